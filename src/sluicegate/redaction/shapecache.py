"""The built-in detectors' shapes (shape.py), read off once and kept in a data file, for the compiled paths.

Why: a process's first Redactor built its compiled feed's 16-place shapes in Python (~250 ms), and its first
whole-text `redact()` without hyperscan the 32-place ones and the label rests' (~200 ms more): every short-lived
process paid it. The automata depend only on the pattern, its flags, the places and the code that reads them,
so they are stored (`data/redact/shapes.json`, zlib-compressed `Shape.packed()` bytes, keyed by a hash of
pattern, flags and places). The same file keeps the whole-text pass's pair table (whole.py `_pair_table`: per
ASCII character pair, the detectors that may start at the second after the first, starters.py's answers, which
the pass otherwise asks Python for ~1,000-2,000 times in a process's first call, 10-50 ms) for the default
detector selection; the streaming `Starters._pair` reads it too (`starters.STORED_PAIRS`: a first stream's new
pairs). Another selection (entities, custom detectors) or a custom pattern fills its own as before.
It also keeps what the compiled feed reads off each built-in's pattern when a Redactor is built (fastpath.py
`_per_detector`): its open tail (opentail.py, with and without trailing guards, for either value of
`opentail.GUARDED`) and the label gap of the label detectors (labelgap.py `label_gap`). Both parse the pattern
again, and cost a process's first `Redactor()` ~160 ms of its ~180 (stop 35's GUARDED gave more detectors a tail).
And the (w, A) pairs of tails.py (`tails.pairs`) of each built-in's pattern and opener, which the whole-text
pass's far bounds (whole.py `far_of`) read off on its first call (~100 ms more).

Two keys decide whether the file is read, and a miss only means "built at run time, as before" (nothing is
ever written at run time: site-packages may be read-only):
- the *source key* (`source_key()`; `pairs_key()` for the table): a hash of shape.py, parsetree.py and
  reach.py's source, `STATES` and `FORMAT` (the table: starters.py and detector.py's source, `FORMAT`, and
  every detector's pattern, flags, `first`, `context` and trust; the tails and gaps: `derived_key()`, of
  opentail.py, tails.py, parsetree.py, reach.py, labelgap.py and labels.py, and `FORMAT`, each entry keyed by
  the pattern, its flags and the switch, or the pattern and its `near_rest`). It must equal the stored one, and
  tests/redact/test_shapecache.py fails if it does not: an edited walk and a forgotten regeneration are caught.
- the *environment* (`environment()`: the `regex` version, the Python implementation and major.minor). What is
  read off also depends on `regex`'s parser and on Python, which the project does not pin (CI runs 3.11-3.13
  with the newest `regex`), so the file lists the environments its content was verified in, and is used only in
  one of them. An environment not listed is not an error: everything is built at run time, the same candidates.

Regenerate (after editing any source above, or to add today's `regex`):
    python -m sluicegate.redaction.shapecache            # writes the content read off here, lists this environment
    python3.12 -m sluicegate.redaction.shapecache --verify  # under each other Python: lists its environment
                                                          # only if it reads off the same bytes
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
import zlib
from array import array
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import regex

if TYPE_CHECKING:
    from .starters import Starters

# Switched off by tests and the benchmark to compare with the shapes built at run time.
USE = True
FILE = Path(__file__).resolve().parents[1] / "data" / "redact" / "shapes.json"
FORMAT = 3  # the file's layout (a new layout: the stored source keys differ, nothing is read)
_SOURCES = ("shape.py", "parsetree.py", "reach.py")
_PAIR_SOURCES = ("starters.py", "detector.py")
# What an open tail (opentail.py and what it imports), tails.py's pairs and a label gap (labelgap.py: parsetree.py,
# reach.py and the label words' groups of labels.py; the words themselves are in the patterns, which key the
# entries) are read off with.
_DERIVED_SOURCES = ("opentail.py", "tails.py", "parsetree.py", "reach.py", "labelgap.py", "labels.py")
REGENERATE = "python -m sluicegate.redaction.shapecache (then --verify under the other Pythons CI runs)"

Packed = tuple[int, bytes, int]


def environment() -> str:
    """What else than the sources a read-off depends on: the `regex` release and the Python (major.minor)."""
    v = sys.version_info
    return f"regex {regex.__version__}; {sys.implementation.name} {v[0]}.{v[1]}"


def _hash_sources(names: tuple[str, ...], extra: str) -> str | None:
    h = hashlib.sha256()
    try:
        for name in names:
            h.update(Path(__file__).with_name(name).read_bytes())
    except OSError:
        return None
    h.update(f"|{FORMAT}|{extra}".encode())
    return h.hexdigest()


def source_key() -> str | None:
    """The code the stored shapes were read off with (None if a source cannot be read: nothing is used)."""
    from .shape import STATES

    return _hash_sources(_SOURCES, f"{STATES}")


def pairs_key(starters: Starters) -> str | None:
    """The code and detectors a `Starters`' pair answers depend on (None if a source cannot be read)."""
    from .starters import BUILTIN_IDS

    fields = [
        (d.compiled.pattern, d.compiled.flags, d.first, d.context, id(d) in BUILTIN_IDS, trusted)
        for d, trusted in zip(starters._detectors, starters._trusted, strict=True)
    ]
    return _hash_sources(_PAIR_SOURCES, repr(fields))


def derived_key() -> str | None:
    """The code the stored open tails and label gaps were read off with (None if a source cannot be read)."""
    return _hash_sources(_DERIVED_SOURCES, "tails, gaps")


def tail_key_of(pattern: str, flags: int, guarded: bool) -> str:
    return hashlib.sha256(f"tail|{flags}|{int(guarded)}|{pattern}".encode()).hexdigest()[:40]


def gap_key_of(d: Any) -> str:
    """A label gap's entry: `label_gap` reads the detector's pattern and its `near_rest` (detector.py's, so
    that is in the key rather than detector.py's source)."""
    return hashlib.sha256(f"gap|{d.pattern}|{d.near_rest!r}".encode()).hexdigest()[:40]


def far_key_of(pattern: str, flags: int) -> str:
    return hashlib.sha256(f"far|{flags}|{pattern}".encode()).hexdigest()[:40]


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    """The file if it is of this format and lists this environment, else {} (nothing is used)."""
    try:
        data = json.loads(FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    envs = data.get("environments")
    if not isinstance(envs, list) or environment() not in envs:
        return {}
    return data


def pair_table(starters: Starters) -> bytearray | None:
    """The stored pair table (every ASCII pair known: bit 63 set) if it is this selection's, else None."""
    if not USE:
        return None
    stored = _stored_pairs()
    if stored is None or stored[0] != pairs_key(starters) or len(stored[1]) != 128 * 128 * 8:
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
        got = _data()["pairs"]
        return str(got["key"]), zlib.decompress(base64.b64decode(got["table"]))
    except (ValueError, KeyError, TypeError, zlib.error):
        return None


def compute_pairs(starters: Starters) -> bytes:
    """Every ASCII pair's answer, as `whole_starts` keeps it (uint64, bit 63: known; little-endian)."""
    from . import starters as _starters
    from .whole import _pair_of

    ask = _pair_of(starters)
    out = array("Q", bytes(128 * 128 * 8))
    was, _starters.STORED_PAIRS = _starters.STORED_PAIRS, False  # (asked of the engine, not of this file)
    try:
        for prev in range(128):
            for ch in range(128):
                out[prev * 128 + ch] = (ask(chr(prev) + chr(ch)) & ~(1 << 63)) | 1 << 63
    finally:
        _starters.STORED_PAIRS = was
    if sys.byteorder == "big":  # pragma: no cover - stored little-endian
        out.byteswap()
    return out.tobytes()


def key_of(pattern: str, flags: int, places: int) -> str:
    return hashlib.sha256(f"{flags}|{places}|{pattern}".encode()).hexdigest()[:40]


@lru_cache(maxsize=1)
def _stored() -> dict[str, Packed | None]:
    data = _data()
    if not data or data.get("source") != source_key():
        return {}
    try:
        return {k: _unpack(v) for k, v in data["shapes"].items()}
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, zlib.error):
        return {}


def _unpack(v: Any) -> Packed | None:
    return None if v is None else (int(v[0]), zlib.decompress(base64.b64decode(v[1])), int(v[2]))


def lookup(pattern: str, flags: int, places: int) -> tuple[bool, Packed | None]:
    """(stored, what `shape(pattern, flags, places)` packs to: None where it has no shape)."""
    if not USE:
        return False, None
    got = _stored()
    k = key_of(pattern, flags, places)
    return (k in got), got.get(k)


Tail = tuple[bytes, int]  # `OpenTail.packed()`: the 16-byte set of `chars` and `most` (-1: unbounded)
# {"tails": {tail key: Tail | None}, "gaps": {gap key: int | None}, "fars": {far key: tails.pairs() | None}}
Derived = dict[str, dict[str, Any]]
_EMPTY: Derived = {"tails": {}, "gaps": {}, "fars": {}}


@lru_cache(maxsize=1)
def _stored_derived() -> Derived:
    data = _data()
    try:
        got = data["derived"]
        if got["key"] != derived_key():
            return _EMPTY
        return _unpack_derived(got)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError):
        return _EMPTY


def _unpack_derived(got: Any) -> Derived:
    tails: dict[str, Any] = {}
    for k, v in got["tails"].items():
        if v is None:
            tails[str(k)] = None
            continue
        bits = base64.b64decode(v[0], validate=True)
        if len(bits) != 16:
            raise ValueError("an open tail's set is 16 bytes")
        tails[str(k)] = (bits, int(v[1]))
    gaps = {str(k): None if v is None else int(v) for k, v in got["gaps"].items()}
    fars = {
        str(k): None if v is None else [(int(w), frozenset(str(a) for a in atoms)) for w, atoms in v]
        for k, v in got["fars"].items()
    }
    return {"tails": tails, "gaps": gaps, "fars": fars}


def tail(pattern: str, flags: int, guarded: bool) -> tuple[bool, Tail | None]:
    """(stored, what `opentail.open_tail(pattern, flags, guarded)` packs to: None where it has none)."""
    if not USE:
        return False, None
    got = _stored_derived()["tails"]
    k = tail_key_of(pattern, flags, guarded)
    return (k in got), got.get(k)


def gap(d: Any) -> tuple[bool, int | None]:
    """(stored, `labelgap.label_gap(d)`: None where it is not known)."""
    if not USE:
        return False, None
    got = _stored_derived()["gaps"]
    k = gap_key_of(d)
    return (k in got), got.get(k)


def far_pairs(pattern: str, flags: int) -> tuple[bool, list[tuple[int, frozenset[str]]] | None]:
    """(stored, `tails.pairs(pattern, flags)`: None where it has none)."""
    if not USE:
        return False, None
    got = _stored_derived()["fars"]
    k = far_key_of(pattern, flags)
    return (k in got), got.get(k)


def clear() -> None:
    """Forget what was read from the file (tests that switch the environment or the file)."""
    _data.cache_clear()
    _stored.cache_clear()
    _stored_pairs.cache_clear()
    _stored_derived.cache_clear()


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


def wanted_tails() -> list[tuple[str, int, bool]]:
    """Every (pattern, flags, guarded) whose open tail the compiled feed reads for the built-ins (fastpath.py
    `_per_detector`: the detectors that are not block ones), for both values of `opentail.GUARDED`."""
    from .registry import BUILTIN

    out = [(d.pattern, d.compiled.flags, g) for d in BUILTIN if not d.steady for g in (True, False)]
    return list(dict.fromkeys(out))


def wanted_gaps() -> list[Any]:
    """The built-in detectors whose label gap the compiled feed reads (those with a `near` claim)."""
    from .registry import BUILTIN

    return [d for d in BUILTIN if d.near is not None]


def wanted_fars() -> list[tuple[str, int]]:
    """Every (pattern, flags) whose `tails.pairs` the whole-text pass may read for a built-in (whole.py `far_of`:
    the compiled pattern, or a block's opener), whether or not its `reach` makes it ask."""
    from .registry import BUILTIN

    out = []
    for d in BUILTIN:
        out.append((d.compiled.pattern, d.compiled.flags))
        if d.opener_rx is not None:
            out.append((d.opener_rx.pattern, d.opener_rx.flags))
    return list(dict.fromkeys(out))


def read_off_derived() -> Derived:
    """Every wanted open tail and label gap as read off now with this checkout's code (not through a cache)."""
    from .labelgap import label_gap
    from .opentail import _open_tail
    from .tails import _pairs

    tails: dict[str, Any] = {}
    for pattern, flags, guarded in wanted_tails():
        got = _open_tail.__wrapped__(pattern, flags, guarded)
        tails[tail_key_of(pattern, flags, guarded)] = None if got is None else got.packed()
    return {
        "tails": tails,
        "gaps": {gap_key_of(d): label_gap(d) for d in wanted_gaps()},
        "fars": {far_key_of(p, f): _pairs(p, f) for p, f in wanted_fars()},
    }


def _text_derived(derived: Derived) -> dict[str, Any]:
    return {
        "key": derived_key(),
        "tails": {
            k: None if v is None else [base64.b64encode(v[0]).decode(), v[1]]
            for k, v in sorted(derived["tails"].items())
        },
        "gaps": dict(sorted(derived["gaps"].items())),
        "fars": {
            k: None if v is None else [[w, sorted(atoms)] for w, atoms in v] for k, v in sorted(derived["fars"].items())
        },
    }


def read_off() -> tuple[dict[str, Packed | None], str | None, bytes | None]:
    """What this environment reads off now with this checkout's code: every wanted shape (not shape.py's
    cache), the default selection's pairs key and its table."""
    from .redactor import Redactor
    from .shape import shape

    shapes: dict[str, Packed | None] = {}
    for pattern, flags, places in wanted():
        got = shape.__wrapped__(pattern, flags, places)
        shapes[key_of(pattern, flags, places)] = None if got is None else (*got.packed(), got.places)
    st = Redactor()._engine.starters
    if st is None:
        return shapes, None, None
    from .starters import Starters

    fresh = Starters(st._detectors, st._trusted)  # (no answer remembered from an earlier call)
    return shapes, pairs_key(fresh), compute_pairs(fresh)


def stored_content(data: dict[str, Any]) -> tuple[dict[str, Packed | None], str | None, bytes | None]:
    """A file's content in `read_off()`'s form (decompressed: zlib's own bytes may differ between builds)."""
    shapes = {k: _unpack(v) for k, v in data["shapes"].items()}
    pairs = data.get("pairs")
    if pairs is None:
        return shapes, None, None
    return shapes, str(pairs["key"]), zlib.decompress(base64.b64decode(pairs["table"]))


def differences(data: dict[str, Any]) -> list[str]:
    """Where a file's content differs from what is read off here (the source keys first); [] if it is the same."""
    if data.get("format") != FORMAT:
        return [f"format {data.get('format')!r}, not {FORMAT}: regenerate with {REGENERATE}"]
    if data.get("source") != source_key():
        return [f"stale: shape.py, parsetree.py or reach.py changed; regenerate with {REGENERATE}"]
    if data["derived"]["key"] != derived_key():
        names = ", ".join(_DERIVED_SOURCES)
        return [f"stale: one of {names} changed (open tails, label gaps); regenerate with {REGENERATE}"]
    shapes, key, table = read_off()
    stored, stored_key, stored_table = stored_content(data)
    if stored_key != key:
        return [f"stale: starters.py, detector.py or a detector changed; regenerate with {REGENERATE}"]
    out = [f"shape {k}: not stored" for k in shapes.keys() - stored.keys()]
    out += [f"shape {k}: stored, not wanted" for k in stored.keys() - shapes.keys()]
    out += [f"shape {k}: other bytes" for k in shapes.keys() & stored.keys() if shapes[k] != stored[k]]
    if table != stored_table:
        out.append("pair table: other bytes")
    derived, stored_derived = read_off_derived(), _unpack_derived(data["derived"])
    for part in ("tails", "gaps", "fars"):
        now, kept = derived[part], stored_derived[part]
        out += [f"{part[:-1]} {k}: not stored" for k in now.keys() - kept.keys()]
        out += [f"{part[:-1]} {k}: stored, not wanted" for k in kept.keys() - now.keys()]
        out += [f"{part[:-1]} {k}: other value" for k in now.keys() & kept.keys() if now[k] != kept[k]]
    return sorted(out)


def generate(previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """The file's content read off here, listing this environment (and those `previous` listed, if its content
    and sources are the same: they verified these bytes)."""
    shapes, key, table = read_off()
    envs = [environment()]
    if previous is not None and not _safe_differences(previous):
        envs += [e for e in previous.get("environments", []) if isinstance(e, str)]
    text: dict[str, object] = {
        k: None if v is None else [v[0], base64.b64encode(zlib.compress(v[1], 9)).decode(), v[2]]
        for k, v in sorted(shapes.items())
    }
    pairs = None
    if table is not None:
        pairs = {"key": key, "table": base64.b64encode(zlib.compress(table, 9)).decode()}
    return {
        "format": FORMAT,
        "source": source_key(),
        "environments": sorted(set(envs)),
        "shapes": text,
        "pairs": pairs,
        "derived": _text_derived(read_off_derived()),
    }


def _safe_differences(data: dict[str, Any]) -> list[str]:
    try:
        return differences(data)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, zlib.error) as e:
        return [f"unreadable: {e!r}"]


def verify(data: dict[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    """(the file listing this environment too, []) if what is read off here equals its content byte for byte,
    else (None, the differences)."""
    found = _safe_differences(data)
    if found:
        return None, found
    envs = [e for e in data.get("environments", []) if isinstance(e, str)]
    return {**data, "environments": sorted({*envs, environment()})}, []


def _write(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=0) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sluicegate.redaction.shapecache", description=__doc__)
    parser.add_argument("--verify", action="store_true", help="list this environment if it reads off the same")
    parser.add_argument("--file", type=Path, default=FILE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    path: Path = args.file
    try:
        previous: dict[str, Any] | None = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        previous = None
    if not args.verify:
        data = generate(previous if isinstance(previous, dict) else None)
        _write(path, data)
        print(f"wrote {path}; listed: {', '.join(data['environments'])}")
        return 0
    if not isinstance(previous, dict):
        print(f"{path}: no file to verify; generate it with {REGENERATE}", file=sys.stderr)
        return 1
    verified, found = verify(previous)
    if verified is None:
        print(f"{environment()}: NOT listed, what it reads off differs from {path}:", file=sys.stderr)
        for line in found:
            print(f"  {line}", file=sys.stderr)
        return 1
    _write(path, verified)
    print(f"{environment()}: the same bytes as {path}; listed: {', '.join(verified['environments'])}")
    return 0


if __name__ == "__main__":  # (the package's own module, not a second copy of it as __main__)
    from sluicegate.redaction import shapecache as _self

    sys.exit(_self.main())
