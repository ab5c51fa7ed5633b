"""The detection view: a per-character normalized copy of the held text, with an exact map back to the raw text.

Detectors must see `4111\u00a01111`, fullwidth digits and a zero-width space inside a value the way a reader
sees them, yet the output must keep the raw text everywhere outside a match. Normalization is strictly per
character (one raw character becomes one view character or none), so building the view piece by piece gives
the same view as building it whole: the chunk-invariance contract does not depend on where pieces are cut.
"""

from __future__ import annotations

import regex

# Unicode spaces a model or a copy-paste may put between digit groups: all read as an ASCII space.
_SPACES = [0x00A0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000]
# Hyphens, dashes and the minus sign: all read as '-'.
_DASHES = [*range(0x2010, 0x2016), 0x2212, 0xFE58, 0xFE63]
# Invisible characters that can be slipped inside a value to break a pattern: dropped from the view.
_INVISIBLE = [0x00AD, 0x180E, 0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF]

TABLE: dict[int, str | None] = {}
TABLE.update({cp: " " for cp in _SPACES})
TABLE.update({cp: "-" for cp in _DASHES})
TABLE.update({cp: chr(cp - 0xFEE0) for cp in range(0xFF01, 0xFF5F)})  # fullwidth ASCII
TABLE.update({0x0660 + i: str(i) for i in range(10)})  # Arabic-Indic digits
TABLE.update({0x06F0 + i: str(i) for i in range(10)})  # Persian (Extended Arabic-Indic) digits
TABLE.update({cp: None for cp in _INVISIBLE})

_SPECIAL = regex.compile("[" + "".join(regex.escape(chr(cp)) for cp in TABLE) + "]")
_DROPS = frozenset(chr(cp) for cp in _INVISIBLE)


def needs_normalizing(text: str) -> bool:
    """Fast check so that plain text skips the per-character path."""
    return _SPECIAL.search(text) is not None


def normalize(text: str) -> str:
    """The view of `text` (for allow-lists and one-off values; streaming uses `extend_view`)."""
    return text.translate(TABLE)


def extend_view(piece: str, raw_offset: int, positions: list[int]) -> str:
    """Return the view of `piece` and append, for each view character, its index in the raw buffer.

    `raw_offset` is the raw index of `piece[0]`.
    """
    view: list[str] = []
    for i, ch in enumerate(piece):
        if ch in _DROPS:
            continue
        mapped = TABLE.get(ord(ch), ch)
        assert mapped is not None
        view.append(mapped)
        positions.append(raw_offset + i)
    return "".join(view)
