"""Reference markers `[Sk]`: found, numbered, and removed from released text with spacing fixed.

Why one module: the gate's checks and rendering agree here on what a marker is; the splitter's character scan
(`segment.py`, markers after a terminator belong to the sentence before them) accepts exactly `MARKER_PATTERN`.
Digits are ASCII only: "[S۱]" is not a marker, so a sentence relying on it fails closed on the marker rule.
"""

from __future__ import annotations

import re

MARKER_FORMAT = "[S{n}]"  # how source n is cited; MARKER_PATTERN below accepts exactly these
MARKER_PATTERN = r"\[S[0-9]+\]"
MARKER_RE = re.compile(MARKER_PATTERN)

# Closing punctuation a marker may sit before: "nine [S1]." -> "nine.", also Persian/Arabic/CJK marks.
_CLOSERS = ".,;:!?…)]}»”’\"'،؛؟۔。，；：！？।॥"
_HSPACE = "[ \\t\\u00a0\\u202f\\u2009]"
# A run of markers, also written with commas or semicolons between them: "[S1][S2]", "[S1], [S2]".
_MARKERS = rf"{MARKER_PATTERN}(?:{_HSPACE}*[,;]?{_HSPACE}*{MARKER_PATTERN})*"
# Markers wrapped in brackets of their own, "9 ([S1])." or "[[S1]]": the brackets would be left empty.
_WRAPPED = re.compile(rf"{_HSPACE}*[(\[（]{_HSPACE}*{_MARKERS}{_HSPACE}*[)\]）]")
# Markers (and the space before them) right before closing punctuation: the space after them goes too.
_BEFORE_CLOSER = re.compile(rf"{_HSPACE}*(?:{_MARKERS}{_HSPACE}*)+(?=[{re.escape(_CLOSERS)}])")
# Any other run of markers: removed with the horizontal space before it; the space after it stays.
_RUN = re.compile(rf"{_HSPACE}*{_MARKERS}")
# Markers between two terminators, "632 A.D. [S1][S2].": removed with the second one, so "A.D." is not doubled.
_DOUBLED = re.compile(rf"(?<=[.!?…]){_HSPACE}*(?:{_MARKERS}{_HSPACE}*)+\.")
_LEADING = re.compile(rf"^\s*(?:{_MARKERS}{_HSPACE}*)+")


def marker(n: int) -> str:
    """The marker of the 1-based source `n` ("[S1]"): the one format the prompt shows and the gate accepts."""
    return MARKER_FORMAT.format(n=n)


def marker_numbers(text: str) -> list[int]:
    """The source numbers cited in `text`, in order of appearance (duplicates kept)."""
    return [int(m.group()[2:-1]) for m in MARKER_RE.finditer(text)]


def strip_markers(text: str) -> str:
    """Remove every marker and fix the spacing it leaves: "nine [S1]." -> "nine.", "a [S1] b" -> "a b"."""
    while MARKER_RE.search(text):  # a loop, since removing "[S1]" from "[[S1]S1]" leaves a marker
        lead = _LEADING.match(text)
        if lead:  # a marker opening the text: drop it with the space that follows
            text = text[lead.end() :]
        text = _RUN.sub("", _BEFORE_CLOSER.sub("", _DOUBLED.sub("", _WRAPPED.sub("", text))))
    return text
