"""The four deterministic checks on one settled sentence: marker range, marker required, literal presence of
values in the cited sources, no first person.

Why string checks: they are cheap, deterministic and the same for every chunking. They show a claim is
*supported* (its values appear in what it cites), not that it is *true*; see docs/gate.md for the blind spots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import regex

from .markers import marker_numbers, strip_markers
from .normalize import normalize
from .person import FirstPersonChecker
from .references import strip_references
from .values import Values, extract, unsupported

CITATION_OUT_OF_RANGE = "citation_out_of_range"
CITATION_MISSING = "citation_missing"
UNSUPPORTED_VALUE = "unsupported_value"
FIRST_PERSON = "first_person"
CODES: tuple[str, ...] = (CITATION_OUT_OF_RANGE, CITATION_MISSING, UNSUPPORTED_VALUE, FIRST_PERSON)

MIN_WORDS_NEEDING_MARKER = 8

# A list enumerator at the start of a line ("2) ", "- ", "IV. ") is layout, not a value or a word. A numbered
# one ("1. ") is layout only while it continues a list (1, then 2, ...): otherwise "The fee is\n250. Children
# enter free." would hide the value 250 as an enumerator.
_ENUMERATOR = regex.compile(r"(?:^|(?<=[\r\n]))[ \t]*(?:\(?[ivxIVX]{1,4}[.)]|\(?[a-zA-Z][)]|[-*•·‣◦–])[ \t]+")
_NUMBERED = regex.compile(r"(?:^|(?<=[\r\n]))([ \t]*\(?)([0-9]{1,3})([.)][ \t]+)")
_HAN = regex.compile(r"\p{Han}")
_WORD = regex.compile(r"[\p{L}\p{M}\p{N}]")


@dataclass(frozen=True)
class Violation:
    """Why a sentence was blocked. `detail` may quote the sentence: it stays on the server, never in events."""

    code: str
    detail: str


def prose(sentence: str) -> str:
    """The sentence as checked: markers removed, list enumerators (but numbered ones) removed."""
    return _ENUMERATOR.sub("", strip_markers(sentence))


class ListNumbers:
    """Tells a list's own numbering from a value at the start of a line, across the sentences of one answer.

    `1.` starts a list; `n.` continues it only right after `n-1.`. Anything else stays in the text, where it
    is a value like any other. Sentences are judged in text order, so this state is the same for every chunking.
    """

    def __init__(self) -> None:
        self._last = 0

    def strip(self, text: str) -> str:
        def layout(hit: regex.Match[str]) -> str:
            n = int(hit.group(2))
            if n == 1 or n == self._last + 1:
                self._last = n
                return ""
            return hit.group(0)

        return _NUMBERED.sub(layout, text)


def word_count(text: str) -> int:
    """Words by whitespace (tokens with a letter or digit); Han characters count 2 words per 3 characters."""
    han = len(_HAN.findall(text))
    rest = _HAN.sub(" ", text) if han else text
    return sum(1 for token in rest.split() if _WORD.search(token)) + (han * 2) // 3


class Checker:
    """Runs the four checks against a fixed set of indexed sources."""

    def __init__(self, indexes: Sequence[Values], first_person: FirstPersonChecker) -> None:
        self._indexes = tuple(indexes)
        self._first_person = first_person
        self._list_numbers = ListNumbers()

    def check(self, sentence: str) -> list[Violation]:
        """All violations of one sentence (raw, markers included), in check order; empty means it passes."""
        n = len(self._indexes)
        cited = marker_numbers(sentence)
        found: list[Violation] = []
        outside = sorted({k for k in cited if not 1 <= k <= n})
        if outside:
            found.append(
                Violation(
                    CITATION_OUT_OF_RANGE, f"cites {', '.join(f'[S{k}]' for k in outside)}; sources are [S1]..[S{n}]"
                )
            )
        text = self._list_numbers.strip(prose(normalize(sentence)))
        values = extract(strip_references(text, n, frozenset(cited)), normalized=True)
        words = word_count(text)
        if not cited and (values or words >= MIN_WORDS_NEEDING_MARKER):
            why = "states a value" if values else f"has {words} words"
            found.append(Violation(CITATION_MISSING, f"{why} and cites no source"))
        if cited and values:
            indexes = [self._indexes[k - 1] for k in sorted(set(cited)) if 1 <= k <= n]
            missing = unsupported(values, indexes)
            if missing:
                found.append(Violation(UNSUPPORTED_VALUE, f"not in the cited sources: {', '.join(missing)}"))
        hits = self._first_person.hits(text, normalized=True)
        if hits:
            found.append(Violation(FIRST_PERSON, f"first-person words: {', '.join(hits)}"))
        return found
