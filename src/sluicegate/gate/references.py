"""Source numbers written in prose ("as Passage 2 notes", "document 3", "文档3"): references, not values.

Why: real answers name their sources by number as well as by marker. A number in 1..n right after a word that
names a source is that source's number; comparing it with the sources' text would stop a grounded answer. A
number outside 1..n stays a value (and so fails closed). Word lists: `data/source_references/<lang>.txt`.
"""

from __future__ import annotations

from functools import cache

import regex

from .._data import list_names, word_list
from .normalize import normalize

_HAN = regex.compile(r"\p{Han}")
_NUMBER = regex.compile(r"[0-9]+")


@cache
def _pattern() -> regex.Pattern[str]:
    words = {
        normalize(w).casefold()
        for lang in list_names("source_references")
        for w in word_list(f"source_references/{lang}.txt")
    }
    spaced = sorted((w for w in words if not _HAN.search(w)), key=len, reverse=True)
    glued = sorted((w for w in words if _HAN.search(w)), key=len, reverse=True)
    alternatives = [rf"(?<![\w])(?:{'|'.join(regex.escape(w) for w in spaced)})(?![\w])"]
    if glued:
        alternatives.append(f"(?:{'|'.join(regex.escape(w) for w in glued)})")
    number = r"(?<![0-9])[0-9]{1,3}(?![0-9]|[.,][0-9])"
    label = r"(?:[ \t\u00a0]*(?:id|#|no\.?|nr\.?|n°|№|number))?[ \t\u00a0]*[:#№]?[ \t\u00a0]*"
    joiner = r"[ \t\u00a0]*(?:,|;|&|/|\band\b|\bor\b|\bund\b|\bet\b|\by\b|\be\b|\bи\b|和|、)[ \t\u00a0]*"
    return regex.compile(rf"(?i)(?:{'|'.join(alternatives)}){label}{number}(?:{joiner}{number})*")


def strip_references(text: str, sources: int) -> str:
    """`text` with each source number in 1..`sources` that follows a source word blanked out (normalized text)."""
    if sources <= 0 or not any(c.isdigit() for c in text):
        return text

    def blank(hit: regex.Match[str]) -> str:
        return _NUMBER.sub(lambda m: " " if 1 <= int(m.group()) <= sources else m.group(), hit.group())

    return _pattern().sub(blank, text)
