"""The built-in detectors' shapes (shape.py), read off once and kept in a data file, for the compiled paths.

Why: a process's first Redactor built its compiled feed's 16-place shapes in Python (~250 ms), and its first
whole-text `redact()` without hyperscan the 32-place ones and the label rests' (~200 ms more): every short-lived
process paid it. The automata depend only on the pattern, its flags, the places and the code that reads them,
so they are stored (`data/redact/shapes.json`, zlib-compressed `Shape.packed()` bytes, keyed by a hash of
pattern, flags and places) with a build key: a hash of shape.py, parsetree.py and reach.py's source, the
`regex` and Python versions and `STATES`. A key that differs (an edited walk, another `regex`) reads nothing
from the file, and every shape is built as before; a pattern not in the file (a custom detector) too.

The same file keeps the whole-text pass's pair table (whole.py `_pair_table`: per ASCII character pair, the
detectors that may start at the second after the first, starters.py's answers, which the pass otherwise asks
Python for ~1,000-2,000 times in a process's first call, 10-50 ms) for the default detector selection, under a
key of its own: starters.py and detector.py's source, the versions, and every detector's pattern, flags,
`first`, `context` and trust. Another selection (entities, custom detectors) fills its table as before.

tests/redact/test_shapecache.py rebuilds every stored shape and compares it byte for byte, checks that every
shape the built-ins ask for is stored, and recomputes every pair of the stored table. Regenerate with
`python -m sluicegate.redaction.shapecache`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import zlib
from array import array
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import regex

if TYPE_CHECKING:
    from .starters import Starters

# Switched off by tests and the benchmark to compare with the shapes built at run time.
USE = True
FILE = Path(__file__).resolve().parents[1] / "data" / "redact" / "shapes.json"
_SOURCES = ("shape.py", "parsetree.py", "reach.py")

Packed = tuple[int, bytes, int]


def build_key() -> str | None:
    """What the stored shapes were read off with (None if a source cannot be read: nothing is used)."""
    from .shape import STATES

    h = hashlib.sha256()
    try:
        for name in _SOURCES:
            h.update(Path(__file__).with_name(name).read_bytes())
    except OSError:
        return None
    h.update(f"{regex.__version__}|{sys.version_info[0]}.{sys.version_info[1]}|{STATES}".encode())
    return h.hexdigest()


def starters_key(starters: Starters) -> str | None:
    """What a `Starters`' pair answers depend on (None if a source cannot be read)."""
    from .starters import BUILTIN_IDS

    h = hashlib.sha256()
    try:
        for name in ("starters.py", "detector.py"):
            h.update(Path(__file__).with_name(name).read_bytes())
    except OSError:
        return None
    h.update(f"{regex.__version__}|{sys.version_info[0]}.{sys.version_info[1]}".encode())
    for d, trusted in zip(starters._detectors, starters._trusted, strict=True):
        got = (d.compiled.pattern, d.compiled.flags, d.first, d.context, id(d) in BUILTIN_IDS, trusted)
        h.update(repr(got).encode())
    return h.hexdigest()


def pair_table(starters: Starters) -> bytearray | None:
    """The stored pair table (every ASCII pair known: bit 63 set) if it is this selection's, else None."""
    if not USE:
        return None
    stored = _stored_pairs()
    if stored is None or stored[0] != starters_key(starters) or len(stored[1]) != 128 * 128 * 8:
        return None
    table = array("Q", stored[1])
    if table.itemsize != 8:  # pragma: no cover - a platform whose unsigned long long is not 8 bytes
        return None
    if sys.byteorder == "big":  # pragma: no cover - stored little-endian, read as native uint64s
        table.byteswap()
    return bytearray(table.tobytes())


@lru_cache(maxsize=1)
def _stored_pairs() -> tuple[str, bytes] | None:
    try:
        data = json.loads(FILE.read_text(encoding="utf-8"))
        got = data["pairs"]
        return str(got["key"]), zlib.decompress(base64.b64decode(got["table"]))
    except (OSError, ValueError, KeyError, TypeError, zlib.error):
        return None


def compute_pairs(starters: Starters) -> bytes:
    """Every ASCII pair's answer, as `whole_starts` keeps it (uint64, bit 63: known; little-endian)."""
    from .whole import _pair_of

    ask = _pair_of(starters)
    out = array("Q", bytes(128 * 128 * 8))
    for prev in range(128):
        for ch in range(128):
            out[prev * 128 + ch] = (ask(chr(prev) + chr(ch)) & ~(1 << 63)) | 1 << 63
    if sys.byteorder == "big":  # pragma: no cover - stored little-endian
        out.byteswap()
    return out.tobytes()


def key_of(pattern: str, flags: int, places: int) -> str:
    return hashlib.sha256(f"{flags}|{places}|{pattern}".encode()).hexdigest()[:40]


@lru_cache(maxsize=1)
def _stored() -> dict[str, Packed | None]:
    try:
        data = json.loads(FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("build") != build_key():
        return {}
    out: dict[str, Packed | None] = {}
    for k, v in data.get("shapes", {}).items():
        out[k] = None if v is None else (int(v[0]), zlib.decompress(base64.b64decode(v[1])), int(v[2]))
    return out


def lookup(pattern: str, flags: int, places: int) -> tuple[bool, Packed | None]:
    """(stored, what `shape(pattern, flags, places)` packs to: None where it has no shape)."""
    if not USE:
        return False, None
    got = _stored()
    k = key_of(pattern, flags, places)
    return (k in got), got.get(k)


def wanted() -> list[tuple[str, int, int]]:
    """Every (pattern, flags, places) the compiled paths read for the built-in detectors: each pattern at the
    feed's places and whole.py's, each label rest at `REST_PLACES`."""
    from . import fastpath, whole
    from .redactor import Redactor
    from .shape import PLACES

    out: list[tuple[str, int, int]] = []
    for d in Redactor()._engine.detectors:
        for places in (PLACES, whole._PLACES):
            out.append((d.compiled.pattern, d.compiled.flags, places))
        if d.near_rest is not None:
            out.append((d.near_rest[2], d.compiled.flags, fastpath.REST_PLACES))
        rest = whole._rest_rx(d)
        if rest is not None:  # (compiled: its flags as `regex` reports them)
            out.append((rest.pattern, rest.flags, fastpath.REST_PLACES))
    return list(dict.fromkeys(out))


def generate() -> dict[str, object]:
    """The file's content, read off with this checkout's code."""
    from .shape import shape

    shapes: dict[str, object] = {}
    for pattern, flags, places in wanted():
        got = shape(pattern, flags, places)
        if got is None:
            shapes[key_of(pattern, flags, places)] = None
            continue
        count, packed = got.packed()
        text = base64.b64encode(zlib.compress(packed, 9)).decode()
        shapes[key_of(pattern, flags, places)] = [count, text, got.places]
    from .redactor import Redactor

    st = Redactor()._engine.starters
    pairs = None
    if st is not None:
        table = base64.b64encode(zlib.compress(compute_pairs(st), 9)).decode()
        pairs = {"key": starters_key(st), "table": table}
    return {"build": build_key(), "shapes": dict(sorted(shapes.items())), "pairs": pairs}


if __name__ == "__main__":
    FILE.write_text(json.dumps(generate(), indent=0) + "\n", encoding="utf-8")
    print(f"wrote {FILE}")
