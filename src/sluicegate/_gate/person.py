"""The first-person check: the assistant speaks *about* someone, never *as* them.

Why word lists and not a model: the check must be deterministic, cheap and the same for every chunking.
Why some lists apply to every answer: a reply drifts most easily into English (the language of the prompt),
and Persian, Arabic, Russian, Hindi and Chinese words cannot be formed by Latin names or acronyms. German,
French, Spanish and Portuguese short words are also names and ordinary words elsewhere ("Ma et al."), so those
lists apply only to answers requested in that language; Persian "من"/"ما" mean "from"/"what" in Arabic, so an
answer requested in Arabic is not checked against the Persian list.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

import regex

from .._data import word_list
from .normalize import normalize

SUPPORTED_LANGUAGES: tuple[str, ...] = ("en", "fa", "ar", "ru", "hi", "zh", "de", "fr", "es", "pt")
ALWAYS: tuple[str, ...] = ("en", "fa", "ar", "ru", "hi", "zh")
WHEN_REQUESTED: tuple[str, ...] = ("de", "fr", "es", "pt")

_TOKEN = regex.compile(r"[\p{L}\p{M}\p{Nd}_']+")
_HAN_ONLY = regex.compile(r"^\p{Han}+$")
_ROMAN = regex.compile(r"^[IVXLCDM]+$")
_CASED_LETTER = regex.compile(r"\p{Lu}")
_TITLE_CASE = regex.compile(r"\p{Lu}(?:\p{Ll}|')")  # "London", "Seti", "O'Neill": not "I", not "NASA"
_LOWERCASE_WORD = regex.compile(r"[ \t]+\p{Ll}")


@dataclass(frozen=True)
class WordList:
    """One language's first-person entries, split by how they are matched (see data/first_person/README.md)."""

    words: frozenset[str]  # case-folded single tokens
    exact: frozenset[str]  # single tokens matched with their case
    prefixes: frozenset[str]  # "j'": matches the start of a token
    phrases: tuple[tuple[str, ...], ...]  # consecutive tokens
    han: tuple[str, ...]  # searched anywhere
    masks: tuple[str, ...]  # masked before the Han search


@cache
def load_list(language: str) -> WordList:
    """Read `data/first_person/<language>.txt` once, normalized like the answers it is compared with."""
    words: set[str] = set()
    exact: set[str] = set()
    prefixes: set[str] = set()
    phrases: list[tuple[str, ...]] = []
    han: list[str] = []
    masks: list[str] = []
    for line in word_list(f"first_person/{language}.txt"):
        if line.startswith("!"):
            masks.append(normalize(line[1:]))
        elif line.startswith("="):
            exact.add(normalize(line[1:]).replace("’", "'"))
        elif _HAN_ONLY.match(line):
            han.append(normalize(line))
        else:
            entry = normalize(line).replace("’", "'").casefold()
            parts = entry.split()
            if len(parts) > 1:
                phrases.append(tuple(parts))
            elif entry.endswith("'"):
                prefixes.add(entry)
            else:
                words.add(entry)
    return WordList(frozenset(words), frozenset(exact), frozenset(prefixes), tuple(phrases), tuple(han), tuple(masks))


@cache
def _roman_context() -> frozenset[str]:
    return frozenset(w.casefold() for w in word_list("roman_context.txt"))


def lists_for(language: str) -> tuple[str, ...]:
    """The languages whose lists apply to an answer requested in `language`."""
    chosen = [code for code in ALWAYS if not (language == "ar" and code == "fa")]
    if language in WHEN_REQUESTED:
        chosen.append(language)
    return tuple(chosen)


@cache
def _numeral_titles() -> frozenset[str]:
    return frozenset(w.casefold() for w in word_list("numeral_titles.txt"))


# After the numeral I (never after the pronoun): "Seti I is", "Elizabeth I and", "Henry I of".
_AFTER_NUMERAL = frozenset({"is", "has", "does", "and", "or", "of", "who", "whose", "which", "whom"})
_FUNCTION_WORDS = frozenset({"to", "of", "the", "a", "an", "and", "in", "on", "for", "at", "with", "from"})


def _capitalised(token: str) -> bool:
    return bool(_TITLE_CASE.match(token))


def _roman_one(tokens: list[str], i: int, lowercase_next: bool) -> bool:
    """Is the capital I at `i` the numeral one? The rule (docs/gate.md, blind spots):

    after a word of `roman_context.txt` ("World War I", "annex I.") or a capitalised name ("Seti I."), when no
    lowercase word follows (or only "is", "and", "of"... which never follow the pronoun); after a title and a
    name ("Queen Elizabeth I ruled"); after two capitalised words that do not open the sentence ("the Pharaoh
    Seti I ruled"). So "In London I met" (the capitalised word follows the sentence's first word) is first
    person, and so is "in that war I lost".
    """
    if i == 0:
        return False
    prev = tokens[i - 1]
    settled = not lowercase_next or (i + 1 < len(tokens) and tokens[i + 1] in _AFTER_NUMERAL)
    if prev.casefold() in _roman_context() and (_capitalised(prev) or settled):
        return True
    if not _capitalised(prev):
        return False
    if settled:
        return True
    if i >= 2 and tokens[i - 2].casefold() in _numeral_titles():
        return True
    return i >= 3 and _capitalised(tokens[i - 2])


def _in_title(tokens: list[str], i: int) -> bool:
    """A capitalised pronoun inside a title-cased run, not opening the sentence: "Farewell My Concubine",
    "Happy Birthday to Me", "So Ends Our Night". Mid-sentence, a pronoun is capitalised only in a title."""
    if i == 0 or not _capitalised(tokens[i]):
        return False
    prev = tokens[i - 1]
    if (i >= 2 and _capitalised(prev)) or (i + 1 < len(tokens) and _capitalised(tokens[i + 1])):
        return True  # (the sentence's first word is capitalised anyway: it does not make a title)
    return prev in _FUNCTION_WORDS and i >= 2 and _capitalised(tokens[i - 2])


def _set_aside(tokens: list[str], lowercase_next: list[bool]) -> list[bool]:
    """Tokens no list may match: all-caps acronyms, a surname before "et al.", a Roman numeral after "annex" or
    a name ("Seti I"), a capitalised pronoun in a title. `lowercase_next[i]`: a lowercase word follows token i
    directly (no punctuation between)."""
    roman_context = _roman_context()
    aside = [False] * len(tokens)
    for i, tok in enumerate(tokens):
        letters = tok.replace("'", "")
        if tok == "I":
            aside[i] = _roman_one(tokens, i, lowercase_next[i])
        elif len(letters) >= 2 and _CASED_LETTER.search(letters) and letters == letters.upper():
            aside[i] = True  # WE, US, NASA, МЫ: read as acronyms
        elif i + 2 < len(tokens) and tokens[i + 1] == "et" and tokens[i + 2] == "al":
            aside[i] = True  # "Ma et al."
        elif _ROMAN.match(tok) and i > 0 and tokens[i - 1].casefold() in roman_context:
            aside[i] = True  # "annex II"
        elif _in_title(tokens, i):
            aside[i] = True  # "Farewell My Concubine"
    return aside


class FirstPersonChecker:
    """Finds first-person words in a sentence, for the lists that apply to one requested language."""

    def __init__(self, language: str) -> None:
        self.languages = lists_for(language)
        loaded = [load_list(code) for code in self.languages]
        self._words = frozenset().union(*(w.words for w in loaded))
        self._exact = frozenset().union(*(w.exact for w in loaded))
        self._prefixes = tuple(sorted(frozenset().union(*(w.prefixes for w in loaded))))
        self._phrases = frozenset(p for w in loaded for p in w.phrases)
        self._longest = max((len(p) for p in self._phrases), default=1)
        self._han = tuple(h for w in loaded for h in w.han)
        self._masks = tuple(m for w in loaded for m in w.masks)
        self._maybe_folded, self._maybe_exact = self._prefilters()

    def _prefilters(self) -> tuple[regex.Pattern[str] | None, regex.Pattern[str] | None]:
        """One search that every hit must pass, so most sentences skip the token-by-token walk.

        Conservative by construction: a hit is a token (letters, marks, digits, `_`, apostrophes) whose
        apostrophe-stripped, case-folded form is listed, so the listed text occurs in the case-folded sentence
        with no letter, mark, digit or `_` on either side (prefix entries: before it).
        """
        edge = r"[\p{L}\p{M}\p{Nd}_]"

        def alternation(entries: Iterable[str]) -> str:
            return "|".join(regex.escape(e) for e in sorted(set(entries), key=len, reverse=True))

        bounded = set(self._words) | {p[0] for p in self._phrases}
        parts = []
        if bounded:
            parts.append(rf"(?<!{edge})(?:{alternation(bounded)})(?!{edge})")
        if self._prefixes:
            parts.append(rf"(?<!{edge})(?:{alternation(self._prefixes)})")
        if self._han:
            parts.append(f"(?:{alternation(self._han)})")
        folded = regex.compile("|".join(parts)) if parts else None
        exact = regex.compile(rf"(?<!{edge})(?:{alternation(self._exact)})(?!{edge})") if self._exact else None
        return folded, exact

    def hits(self, text: str, *, normalized: bool = False) -> list[str]:
        """First-person words in `text` (normalized here unless the caller says it already is)."""
        text = (text if normalized else normalize(text)).replace("’", "'")
        if not (
            (self._maybe_folded is not None and self._maybe_folded.search(text.casefold()))
            or (self._maybe_exact is not None and self._maybe_exact.search(text))
        ):
            return []
        return self._walk(text)

    def _walk(self, text: str) -> list[str]:
        """The token-by-token match on a normalized sentence (what `hits` runs when the prefilter passes)."""
        found: list[str] = []
        if self._han:
            masked = text
            for mask in self._masks:
                masked = masked.replace(mask, "\x00" * len(mask))
            found.extend(h for h in self._han if h in masked)
        tokens: list[str] = []
        lowercase_next: list[bool] = []
        for hit in _TOKEN.finditer(text):
            tok = hit.group().strip("'")
            if tok:
                tokens.append(tok)
                lowercase_next.append(bool(_LOWERCASE_WORD.match(text, hit.end())))
        aside = _set_aside(tokens, lowercase_next)
        folded = [t.casefold() for t in tokens]
        for i, tok in enumerate(tokens):
            if aside[i]:
                continue
            word = folded[i]
            if (
                tok in self._exact
                or word in self._words
                or "'" in word
                and any(word.startswith(p) for p in self._prefixes)
            ):
                found.append(tok)
            elif self._phrases:
                for n in range(2, self._longest + 1):
                    if i + n <= len(tokens) and not any(aside[i : i + n]) and tuple(folded[i : i + n]) in self._phrases:
                        found.append(" ".join(tokens[i : i + n]))
                        break
        return found


@cache
def checker_for(language: str) -> FirstPersonChecker:
    """One checker per language, shared by every gate (it holds no per-stream state)."""
    return FirstPersonChecker(language)
