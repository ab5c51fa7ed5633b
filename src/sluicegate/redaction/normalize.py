"""The detection view: a per-character normalized copy of the held text, with an exact map back to the raw text.

Detectors must see `4111\u00a01111`, fullwidth digits and a zero-width space inside a value the way a reader
sees them, yet the output must keep the raw text everywhere outside a match. Normalization is strictly per
character (one raw character becomes one view character or none), so building the view piece by piece gives
the same view as building it whole: the chunk-invariance contract does not depend on where pieces are cut.
"""

from __future__ import annotations

from collections.abc import Iterable

import regex

from . import fastpath as _fp
from .detector import data_lines

# Unicode spaces a model or a copy-paste may put between digit groups: all read as an ASCII space.
_SPACES = [0x00A0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000]
# Hyphens, dashes and the minus sign: all read as '-'.
_DASHES = [*range(0x2010, 0x2016), 0x2212, 0xFE58, 0xFE63]
# Punctuation that reads as '@' or '.' in an address: small forms and the halfwidth ideographic full stop
# (their fullwidth forms are in the fullwidth ASCII block).
_PUNCT = {0xFE6B: "@", 0xFE52: ".", 0xFF61: "."}

TABLE: dict[int, str] = {}
TABLE.update({cp: " " for cp in _SPACES})
TABLE.update({cp: "-" for cp in _DASHES})
TABLE.update({cp: chr(cp - 0xFEE0) for cp in range(0xFF01, 0xFF5F)})  # fullwidth ASCII
# Every script's decimal digits (Persian, Arabic-Indic, Devanagari, Bengali, Thai, mathematical, ...), as the
# sentence gate folds them: the zero of each block is in a data file, its nine successors follow it.
for _zero in data_lines("digit_zeros.txt"):
    TABLE.update({int(_zero, 16) + i: str(i) for i in range(10)})
TABLE.update(_PUNCT)

# Invisible characters that can be slipped inside a value to break a pattern: dropped from the view. Every
# format character (bidi marks and isolates, word joiners, tags, the Mongolian vowel separator) and every
# default-ignorable code point (variation selectors, the combining grapheme joiner, Hangul fillers), as
# the Unicode Character Database defines them in the `regex` package's tables.
_DROP = r"\p{Cf}\p{Default_Ignorable_Code_Point}"
_DROPS = regex.compile(f"[{_DROP}]")
assert not any(_DROPS.match(chr(cp)) for cp in TABLE), "a mapped character is also dropped"


def _ranges(cps: list[int]) -> str:
    """A character class body of ranges (hundreds of digits as single characters made every check 2x slower)."""
    out: list[str] = []
    run_start = prev = cps[0]
    for cp in [*cps[1:], -2]:
        if cp != prev + 1:
            out.append(regex.escape(chr(run_start)) + ("" if prev == run_start else "-" + regex.escape(chr(prev))))
            run_start = cp
        prev = cp
    return "".join(out)


assert all(len(v) == 1 for v in TABLE.values()), "normalization maps one character to one"
_MAP = {chr(cp): v for cp, v in TABLE.items()}
_MAPPED = frozenset(_MAP)
# Characters seen that the view keeps as they are (neither mapped nor dropped), learned by `plain_view`; a
# stream of every code point must not grow it without bound.
_KEPT: set[str] = set()
_KEPT_MAX = 1 << 16

_SPECIAL = regex.compile("[" + _ranges(sorted(TABLE)) + _DROP + "]")
assert all(cp > 0x7F for cp in TABLE), "ASCII text never needs normalizing"


def needs_normalizing(text: str) -> bool:
    """Fast check so that plain text skips the per-character path (ASCII never needs it). The same answer as
    `_SPECIAL.search(text) is not None`, but a class of a few hundred ranges costs ~130 ns a character in the
    `regex` engine (0.4 ms for an 8 KiB slice of a whole text), a set lookup ~15 ns."""
    if len(text) <= 16:  # a streamed piece: one call
        return not text.isascii() and _SPECIAL.search(text) is not None
    return not text.isascii() and (_DROPS.search(text) is not None or not _MAPPED.isdisjoint(text))


# False: `plain_view` always takes `set(piece)` (the compiled `distinct` is compared with it in
# tests/redact/test_whole_lean.py). From this many characters the call pays for itself.
DISTINCT = True
_DISTINCT_FROM = 64


def plain_view(piece: str) -> str | None:
    """The view of `piece` if it drops no character (then view and raw indices still coincide, and no index map
    is needed: a mapped character keeps its place), else None (use `extend_view`)."""
    if piece.isascii() or (len(piece) <= 16 and _SPECIAL.search(piece) is None):
        return piece
    # The distinct characters, less those known to be kept as they are: of a long piece of prose, only the
    # few mapped ones and the first sight of each new one are looked at (a `_DROPS` search of every character
    # cost as much as this whole function). From a long piece, the compiled `distinct` hands over those that
    # are not ASCII (never mapped or dropped): `set(piece)` makes an object of every character.
    helper = _fp.wholec if DISTINCT and len(piece) > _DISTINCT_FROM else None
    chars = (set(piece) if helper is None else set(helper.distinct(piece))).difference(_KEPT)
    mapped = []
    for ch in chars:
        if ch in _MAP:
            mapped.append(ch)
        elif _DROPS.match(ch) is not None:
            return None
        elif len(_KEPT) < _KEPT_MAX:
            _KEPT.add(ch)
    return _replaced(piece, mapped)


def normalize(text: str) -> str:
    """The view of `text` (for allow-lists and one-off values; streaming uses `extend_view`)."""
    return _DROPS.sub("", text).translate(TABLE)


def extend_view(piece: str, raw_offset: int, positions: list[int]) -> str:
    """Return the view of `piece` and append, for each view character, its index in the raw buffer.

    `raw_offset` is the raw index of `piece[0]`. Mapped characters keep their place, so only the dropped ones
    break the run of raw indices: the view itself is built by the C-speed `sub` and `replace` (a Persian
    paragraph has a zero-width non-joiner every few words and digits to map; a loop per character cost a
    quarter of the whole-text time).
    """
    at = 0
    dropped = False
    for m in _DROPS.finditer(piece):
        i = m.start()
        positions.extend(range(raw_offset + at, raw_offset + i))
        at = i + 1
        dropped = True
    positions.extend(range(raw_offset + at, raw_offset + len(piece)))
    return _translate(_DROPS.sub("", piece) if dropped else piece)


def _translate(text: str) -> str:
    """`text.translate(TABLE)`: one `replace` per mapped character the text holds (a few, in a long piece),
    since `translate` with a dict looks every character up from Python objects (4x slower on 8 KiB)."""
    return _replaced(text, _MAPPED.intersection(text))


def _replaced(text: str, mapped: Iterable[str]) -> str:
    """`text` with each of these mapped characters replaced by its view character."""
    for ch in mapped:
        text = text.replace(ch, _MAP[ch])
    return text
