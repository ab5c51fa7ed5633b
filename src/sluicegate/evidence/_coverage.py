"""Keyword coverage: a bounded score from whole-word matches, for when similarity is missing or weak.

Why whole words: compared as substrings, "art" is found in "départ" and unrelated questions start to look
like evidence. Why stopwords out and two distinct matches: "the" and "what" are in every passage, and a single
shared word is a coincidence. Chinese has no spaces, so its content units are the character bigrams of each
run left after stopwords are cut out (as Lucene's CJK analyzer does), matched anywhere in the passage.
Persian prefixes and suffixes (data/joins/fa.txt) are joined to their word, so the joined, ZWNJ and split
spellings of a word are one word; a question's suffixed word also matches the bare word in a passage.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

import regex

from .._data import list_names, word_list
from ._normalize import normalize_question, words

MIN_LENGTH = 3  # content words have 3+ characters (2+ in Chinese)
MIN_MATCHES = 2  # coverage counts only when at least two distinct content words match
_HAN_RUN = regex.compile(r"\p{Han}+")
_NOT_HAN_WORD = regex.compile(r"[\p{L}\p{M}\p{Nd}]+")
_ARABIC_SCRIPT = regex.compile(r"^\p{Arabic}+$")


@cache
def _affixes() -> tuple[frozenset[str], frozenset[str]]:
    entries = [normalize_question(e) for e in word_list("joins/fa.txt")]
    return (
        frozenset(e[:-1] for e in entries if e.endswith("-")),
        frozenset(e[1:] for e in entries if e.startswith("-")),
    )


def joined(tokens: list[str]) -> list[str]:
    """Tokens with Persian prefixes and suffixes joined to their word (میگیرد, می‌گیرد, می گیرد: one word).

    The question's ZWNJ became a space, so a word written with one arrives split; a passage may write it joined.
    """
    prefixes, suffixes = _affixes()
    out: list[str] = []
    for token in tokens:
        last = out[-1] if out else ""
        suffix = token in suffixes and last not in prefixes and _ARABIC_SCRIPT.match(last) is not None
        prefix = last in prefixes and _ARABIC_SCRIPT.match(token) is not None
        if suffix or prefix:
            out[-1] += token
        else:
            out.append(token)
    return out


@cache
def stopwords(language: str) -> frozenset[str]:
    """The normalized stopwords of `language` (data/stopwords, copied from spaCy; empty for other languages)."""
    if language not in list_names("stopwords"):
        return frozenset()
    return frozenset(normalize_question(w) for w in word_list(f"stopwords/{language}.txt"))


@cache
def _han_stopwords() -> tuple[str, ...]:
    return tuple(sorted((w for w in stopwords("zh") if _HAN_RUN.fullmatch(w)), key=len, reverse=True))


@cache
def _han_cutter() -> regex.Pattern[str]:
    return regex.compile("|".join(regex.escape(w) for w in _han_stopwords()))


def content_words(normalized: str, language: str) -> frozenset[str]:
    """The question's content words: 3+ characters, not a stopword of `language` or of English.

    Chinese runs give bigrams instead (the runs between Chinese stopwords, two characters a unit).
    """
    stop = stopwords(language) | stopwords("en")
    found: set[str] = set()
    for run in _HAN_RUN.findall(normalized):
        for piece in _han_cutter().split(run):
            found.update(piece[i : i + 2] for i in range(len(piece) - 1))
    for word in joined(_NOT_HAN_WORD.findall(_HAN_RUN.sub(" ", normalized))):
        if len(word) >= MIN_LENGTH and word not in stop:
            found.add(word)
    return frozenset(found)


@dataclass(frozen=True)
class PassageWords:
    """A passage prepared for coverage: its normalized whole words, and its Chinese text for bigram lookups."""

    words: frozenset[str]
    han: str

    @classmethod
    def of(cls, text: str) -> PassageWords:
        normalized = normalize_question(text)
        split = words(normalized)
        return cls(frozenset(split) | frozenset(joined(split)), "|".join(_HAN_RUN.findall(normalized)))

    def has(self, unit: str) -> bool:
        if _HAN_RUN.fullmatch(unit):
            return unit in self.han
        if unit in self.words:
            return True
        if _ARABIC_SCRIPT.match(unit):  # کتابخانه‌ی (ezafe), کتاب‌ها: the bare word in the passage counts
            _, suffixes = _affixes()
            return any(unit.endswith(x) and unit[: -len(x)] in self.words for x in suffixes if len(unit) > len(x) + 1)
        return False


def coverage(content: Iterable[str], passage: PassageWords, *, min_matches: int = MIN_MATCHES) -> float:
    """Matched / all content words, or 0.0 when fewer than `min_matches` distinct content words match."""
    units = frozenset(content)
    if not units:
        return 0.0
    matched = sum(1 for unit in units if passage.has(unit))
    return matched / len(units) if matched >= min_matches else 0.0


def keyword_coverage(question: str, passage: str, *, language: str, min_matches: int = MIN_MATCHES) -> float:
    """The keyword coverage of `passage` for `question` (both raw text), 0..1."""
    return coverage(
        content_words(normalize_question(question), language), PassageWords.of(passage), min_matches=min_matches
    )
