"""Source numbers written in prose ("as Passage 2 notes", "document 3", "文档3"): references, not values.

Why: real answers name their sources by number as well as by marker. A number in 1..n right after a word that
names a source is that source's number; comparing it with the sources' text would stop a grounded answer. A
number outside 1..n stays a value (and so fails closed). Word lists: `data/source_references/<lang>.txt`.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache

import regex

from .._data import list_names, word_list
from .normalize import normalize

_HAN = regex.compile(r"\p{Han}")
_NUMBER = regex.compile(r"(?<![0-9])[0-9]{1,3}(?![0-9]|[.,][0-9])")  # a small whole number (1..999)
_WINDOW = 48  # how far before a number a source word may start ("Passage ID No. " and a long word fit)
_JOINER = regex.compile(r"[ \t\u00a0]*(?:,|;|&|/|and|or|und|et|y|e|и|和|、)[ \t\u00a0]*\Z", regex.IGNORECASE)


@cache
def _before_number() -> regex.Pattern[str]:
    """A source word, then an optional label ("ID", "#", "No."), at the very end of the text before a number."""
    words = {
        normalize(w).casefold()
        for lang in list_names("source_references")
        for w in word_list(f"source_references/{lang}.txt")
    }
    spaced = sorted((w for w in words if not _HAN.search(w)), key=len, reverse=True)
    glued = sorted((w for w in words if _HAN.search(w)), key=len, reverse=True)
    alternatives = [rf"(?<![\w])(?:{'|'.join(regex.escape(w) for w in spaced)})"]
    if glued:
        alternatives.append(f"(?:{'|'.join(regex.escape(w) for w in glued)})")
    label = r"(?:[ \t\u00a0]*(?:id|#|no\.?|nr\.?|n°|№|number))?[ \t\u00a0]*[:#№]?[ \t\u00a0]*"
    return regex.compile(rf"(?i)(?:{'|'.join(alternatives)}){label}\Z")


def strip_references(text: str, sources: int, cited: Collection[int] = ()) -> str:
    """`text` with each source number in 1..`sources` that follows a source word blanked out (normalized text).

    Only numbers in 1..`sources` are looked at, and only the few characters before each, so the cost grows
    with those numbers, not with the word lists. A number joined to a reference by "and", "," ... is one too
    (a list that starts with a number outside 1..n is read as values: it fails closed) only when the sentence
    cites that source (`cited`, its marker numbers): else "source 1, 3 people died" would hide the value 3.
    """
    if sources <= 0:
        return text
    hits = [h for h in _NUMBER.finditer(text) if 1 <= int(h.group()) <= sources]  # only these can be references
    if not hits:
        return text
    before = _before_number()
    blanks: list[tuple[int, int]] = []
    last_end = -1  # end of the previous reference number, for lists ("passages 2 and 6")
    for hit in hits:
        start = hit.start()
        listed = last_end >= 0 and int(hit.group()) in cited and _JOINER.match(text, last_end, start) is not None
        if listed or before.search(text, max(0, start - _WINDOW), start) is not None:
            last_end = hit.end()
            blanks.append((start, hit.end()))
        else:
            last_end = -1
    if not blanks:
        return text
    parts: list[str] = []
    at = 0
    for a, b in blanks:
        parts.append(text[at:a])
        parts.append(" ")
        at = b
    parts.append(text[at:])
    return "".join(parts)
