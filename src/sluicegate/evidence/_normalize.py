"""The question normalization shared by the refusal rules, the overview route and keyword coverage.

Why one function: a pattern, a stopword and a passage are only comparable with a question once all of them
are in the same form. It reuses the sentence gate's comparison form (Arabic letter forms to Persian, any
script's digits to ASCII, Arabic short vowels and invisible characters dropped, ZWNJ to a space) and adds
case folding and one kind of apostrophe and of space. The result is only compared, never shown.
"""

from __future__ import annotations

from collections.abc import Mapping

import regex

from .._gate.normalize import normalize

APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "\u2018": "'", "\uff07": "'"})
_SPACES = regex.compile(r"\s+")
_WORD = regex.compile(r"[\p{L}\p{M}\p{Nd}]+")
_HAN = regex.compile(r"\p{Han}")


def normalize_question(text: str) -> str:
    """The comparison form of a question (or passage, pattern, stopword): normalized, case-folded, one space."""
    return _SPACES.sub(" ", normalize(text).casefold().translate(APOSTROPHES)).strip()


def words(normalized: str) -> list[str]:
    """The words of a normalized text, in order: runs of letters, marks and digits (apostrophes split)."""
    return _WORD.findall(normalized)


def has_han(text: str) -> bool:
    """Whether `text` holds a Chinese character (matched without word boundaries)."""
    return _HAN.search(text) is not None


def with_aliases(normalized: str, aliases: Mapping[str, str]) -> str:
    """`normalized` with every alias name read as its pronoun (longest names first, whole words only).

    `aliases` maps a normalized name to its normalized pronoun. "name's" becomes the pronoun's possessive when
    the pronoun is an English one ("ada lovelace's rates" -> "her rates"), so English patterns written with
    pronouns match a question written with the name.
    """
    text = normalized
    for name in sorted(aliases, key=len, reverse=True):
        pronoun = aliases[name]
        escaped = regex.escape(name)
        possessive = _POSSESSIVE.get(pronoun)
        if possessive is not None:
            text = regex.sub(
                rf"(?<![\p{{L}}\p{{M}}\p{{Nd}}]){escaped}'s?(?![\p{{L}}\p{{M}}\p{{Nd}}])", possessive, text
            )
        text = regex.sub(rf"(?<![\p{{L}}\p{{M}}\p{{Nd}}]){escaped}(?![\p{{L}}\p{{M}}\p{{Nd}}])", pronoun, text)
    return text


def _possessives() -> dict[str, str]:
    from .._data import word_list

    pairs = (line.split() for line in word_list("refusal/possessives.txt"))
    return {pair[0]: pair[1] for pair in pairs if len(pair) == 2}


_POSSESSIVE = _possessives()
