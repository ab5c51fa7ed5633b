"""shapecache.py: data/redact/shapes.json is of this checkout's sources (else: stale, regenerate); in an
environment it lists, every stored shape and pair is what is read off now, byte for byte, and the compiled paths
build no shape for the built-ins; in one it does not list (another `regex`, another Python), nothing is read from
it and the candidates are the ones of shapes built at run time. `--verify` lists an environment only for the same
bytes. The same for the built-ins' open tails (both values of `opentail.GUARDED`) and label gaps, which a fresh
Redactor then reads from the file instead of parsing the patterns again."""

from __future__ import annotations

import base64
import json
import shutil
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from sluicegate.redaction import (
    Redactor,
    fastpath,
    labelgap,
    opentail,
    prefilter,
    shape,
    shapecache,
    tails,
    whole,
    wholedb,
)
from sluicegate.redaction.starters import Starters

from .test_whole_candidates import TEXTS

UNLISTED = "regex 0.0; cpython 0.0"
REGENERATE_HINT = f"regenerate with {shapecache.REGENERATE}"


def _clear() -> None:
    shapecache.clear()
    fastpath._shape.cache_clear()
    fastpath._per_detector.cache_clear()
    fastpath._tail.cache_clear()
    fastpath._label_gap.cache_clear()
    opentail._open_tail.cache_clear()
    whole.far_of.cache_clear()
    wholedb._shared.cache_clear()
    whole._native_plan.cache_clear()
    whole._pair_table.cache_clear()
    whole._shape_pairs.cache_clear()


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    _clear()
    yield
    _clear()


def _file() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(shapecache.FILE.read_text(encoding="utf-8"))
    return data


def _unpack(v: Any) -> tuple[int, bytes, int] | None:
    return None if v is None else (v[0], zlib.decompress(base64.b64decode(v[1])), v[2])


def _mismatches(data: dict[str, Any]) -> list[str]:
    """Where the stored content is not what shape.py and starters.py give now (read off here, not through
    shapecache's own read-off)."""
    out = []
    for pattern, flags, places in shapecache.wanted():
        want = shape.shape.__wrapped__(pattern, flags, places)  # (not shape.py's own cache)
        got = _unpack(data["shapes"][shapecache.key_of(pattern, flags, places)])
        if (None if want is None else (*want.packed(), want.places)) != got:
            out.append(pattern)
    st = Redactor()._engine.starters
    assert st is not None
    table = zlib.decompress(base64.b64decode(data["pairs"]["table"]))
    if table != shapecache.compute_pairs(Starters(st._detectors, st._trusted)):  # (a fresh `Starters`)
        out.append("pairs")
    stored = data["derived"]
    for pattern, flags, guarded in shapecache.wanted_tails():
        tail = opentail._open_tail.__wrapped__(pattern, flags, guarded)  # (not opentail's own cache)
        got = stored["tails"][shapecache.tail_key_of(pattern, flags, guarded)]
        if (None if tail is None else tail.packed()) != (None if got is None else (base64.b64decode(got[0]), got[1])):
            out.append(f"tail {guarded} {pattern}")
    for d in shapecache.wanted_gaps():
        if stored["gaps"][shapecache.gap_key_of(d)] != labelgap.label_gap(d):
            out.append(f"gap {d.pattern}")
    for pattern, flags in shapecache.wanted_fars():
        want = tails._pairs(pattern, flags)
        kept = stored["fars"][shapecache.far_key_of(pattern, flags)]
        if want != (None if kept is None else [(w, frozenset(a)) for w, a in kept]):
            out.append(f"far {pattern}")
    return out


def _flipped(text: str, at: int) -> str:
    raw = bytearray(zlib.decompress(base64.b64decode(text)))
    raw[at] ^= 1
    return base64.b64encode(zlib.compress(bytes(raw), 9)).decode()


def _nothing_read() -> bool:
    st = Redactor()._engine.starters
    assert st is not None
    return (
        shapecache.pair_table(st) is None
        and all(shapecache.lookup(*w) == (False, None) for w in shapecache.wanted())
        and all(shapecache.tail(*w) == (False, None) for w in shapecache.wanted_tails())
        and all(shapecache.gap(d) == (False, None) for d in shapecache.wanted_gaps())
        and all(shapecache.far_pairs(*w) == (False, None) for w in shapecache.wanted_fars())
    )


def test_the_file_is_of_this_checkout_s_sources() -> None:
    """Fails after an edit of shape.py, parsetree.py, reach.py, starters.py, detector.py or a built-in detector
    without regenerating, in every environment."""
    data = _file()
    stale = f"stale: regenerate with {shapecache.REGENERATE}"
    assert data["format"] == shapecache.FORMAT, stale
    assert data["source"] == shapecache.source_key(), stale
    st = Redactor()._engine.starters
    assert st is not None
    assert data["pairs"]["key"] == shapecache.pairs_key(st), stale
    assert {shapecache.key_of(*w) for w in shapecache.wanted()} == set(data["shapes"]), stale
    assert data["derived"]["key"] == shapecache.derived_key(), stale
    assert {shapecache.tail_key_of(*w) for w in shapecache.wanted_tails()} == set(data["derived"]["tails"]), stale
    assert {shapecache.gap_key_of(d) for d in shapecache.wanted_gaps()} == set(data["derived"]["gaps"]), stale
    assert {shapecache.far_key_of(*w) for w in shapecache.wanted_fars()} == set(data["derived"]["fars"]), stale
    assert data["environments"] and all(isinstance(e, str) for e in data["environments"])


def test_here_the_file_is_the_same_bytes_if_listed_and_unread_if_not() -> None:
    """Listed (3.11-3.13 with the `regex` of the last regeneration): every stored shape and all 16,384 pairs are
    read off again byte for byte. Not listed (a newer `regex`): the file is not read at all."""
    data = _file()
    if shapecache.environment() in data["environments"]:
        assert _mismatches(data) == []
        assert not _nothing_read()
    else:
        assert _nothing_read()


def test_the_compiled_paths_build_no_shape_for_the_builtins_where_the_file_is_listed() -> None:
    """A fresh Redactor (the compiled feed's shapes) and whole-text passes on an ASCII and a non-ASCII view (whole.py's
    32-place shapes and the label rests') take every shape from the file where it lists the environment, and build
    them all where it does not."""
    built: list[tuple[str, int, int]] = []
    real = shape.shape

    def counted(pattern: str, flags: int = 0, places: int = shape.PLACES) -> object:
        built.append((pattern, flags, places))
        return real(pattern, flags, places)

    for env in (shapecache.environment(), UNLISTED):
        _clear()
        built.clear()
        with (
            mock.patch.object(shape, "shape", counted),
            mock.patch.object(Redactor, "_COMPILED", False),
            mock.patch.object(shapecache, "environment", lambda env=env: env),
        ):
            r = Redactor()
            for name in ("code", "multilingual"):
                r._append(TEXTS[name])
                assert whole._native_starts(r._engine, r._view) is not None
                r = Redactor()
        if env in _file()["environments"]:
            assert built == [], env
        else:
            assert set(built) == set(shapecache.wanted()), env


def test_an_unlisted_environment_reads_nothing_and_gives_the_same_candidates() -> None:
    """The fallback: the file's content, an unlisted environment's (nothing read) and `USE = False` give the same
    candidates on every corpus."""
    with mock.patch.object(Redactor, "_COMPILED", False):
        engine = Redactor()._engine
        got = []
        for env, use in ((shapecache.environment(), True), (UNLISTED, True), (shapecache.environment(), False)):
            _clear()
            with (
                mock.patch.object(shapecache, "USE", use),
                mock.patch.object(shapecache, "environment", lambda env=env: env),
            ):
                if env == UNLISTED:
                    assert _nothing_read()
                got.append([whole._native_starts(engine, TEXTS[k]) for k in sorted(TEXTS)])
    assert got[0] == got[1] == got[2]
    assert any(any(c) for c in got[0] if c is not None)


def test_switched_off_or_another_selection_or_pattern_gives_nothing() -> None:
    pattern, flags, places = shapecache.wanted()[1]
    listed = shapecache.environment() in _file()["environments"]
    assert shapecache.lookup(pattern, flags, places)[0] == listed
    with mock.patch.object(shapecache, "USE", False):
        assert shapecache.lookup(pattern, flags, places) == (False, None)
        st = Redactor()._engine.starters
        assert st is not None and shapecache.pair_table(st) is None
    assert shapecache.lookup("[a-z]+@", 0, 16) == (False, None)  # not a built-in's
    assert shapecache.pair_table(Redactor(entities=["EMAIL_ADDRESS"])._engine.starters) is None  # another selection


def test_an_edited_source_makes_the_file_stale(tmp_path: Path) -> None:
    """A comment added to a copy of shape.py (and of starters.py): another source key, the file is not read, and
    verifying refuses with "stale"."""
    here = Path(shapecache.__file__).parent
    data = _file()
    for name in ("shape.py", "starters.py", "opentail.py", "labelgap.py"):
        folder = tmp_path / name
        folder.mkdir()
        for source in {*shapecache._SOURCES, *shapecache._PAIR_SOURCES, *shapecache._DERIVED_SOURCES}:
            shutil.copy(here / source, folder / source)
        with mock.patch.object(shapecache, "__file__", str(folder / "shapecache.py")):
            assert shapecache.source_key() == data["source"]
            with (folder / name).open("a", encoding="utf-8") as f:
                f.write("\n# an edit\n")
            _clear()
            with mock.patch.object(shapecache, "environment", lambda: data["environments"][0]):
                found = shapecache.differences(data)
                assert len(found) == 1 and found[0].startswith("stale:") and name in found[0], found
                assert REGENERATE_HINT in found[0]
                assert shapecache.verify(data) == (None, found)
                if name == "shape.py":
                    assert shapecache.source_key() != data["source"]
                    assert shapecache.lookup(*shapecache.wanted()[0]) == (False, None)
                elif name == "starters.py":
                    st = Redactor()._engine.starters
                    assert st is not None and shapecache.pair_table(st) is None
                else:  # the tails and gaps are not read, the rest is
                    assert shapecache.derived_key() != data["derived"]["key"]
                    assert all(shapecache.tail(*w) == (False, None) for w in shapecache.wanted_tails())
                    assert all(shapecache.gap(d) == (False, None) for d in shapecache.wanted_gaps())
                    assert all(shapecache.far_pairs(*w) == (False, None) for w in shapecache.wanted_fars())
                    assert shapecache.lookup(*shapecache.wanted()[0])[0]
                    _clear()
                    with _counted() as (tails_, gaps):
                        Redactor()
                    assert tails_ and gaps  # (computed at run time, as before)


@contextmanager
def _counted() -> Iterator[tuple[list[tuple[str, int, bool]], list[Any]]]:
    """The open tails and label gaps computed (not read from the file) while it is open."""
    tails: list[tuple[str, int, bool]] = []
    gaps: list[Any] = []
    real_tail, real_gap = opentail.open_tail, labelgap.label_gap

    def tail(pattern: str, flags: int = 0, guarded: bool | None = None) -> object:
        tails.append((pattern, flags, opentail.GUARDED if guarded is None else guarded))
        return real_tail(pattern, flags, guarded)

    def gap(d: Any) -> int | None:
        gaps.append(d)
        return real_gap(d)

    with mock.patch.object(opentail, "open_tail", tail), mock.patch.object(labelgap, "label_gap", gap):
        yield tails, gaps


def _tails_and_gap(guarded: bool) -> tuple[tuple[Any, ...], int]:
    """The compiled feed's open tails and label gap for the default selection (`_per_detector`'s last two: the
    others hold compiled objects, compared by identity)."""
    engine = Redactor()._engine
    got = fastpath._per_detector(fastpath._Selection(tuple(engine.detectors)), False, False, False, False, guarded)
    return got[3], got[4]


def test_a_fresh_redactor_reads_the_tails_and_gaps_from_the_file_where_it_is_listed() -> None:
    """Listed: a new Redactor (with either value of `opentail.GUARDED`) computes no open tail and no label gap;
    not listed: every one it asks for; both give the same per-detector tuples as with the file switched off."""
    listed = shapecache.environment() in _file()["environments"]
    for guarded in (True, False):
        got = []
        for env, use in ((shapecache.environment(), True), (UNLISTED, True), (shapecache.environment(), False)):
            _clear()
            with (
                mock.patch.object(opentail, "GUARDED", guarded),
                mock.patch.object(shapecache, "USE", use),
                mock.patch.object(shapecache, "environment", lambda env=env: env),
                _counted() as (tails, gaps),
            ):
                Redactor()
                got.append(_tails_and_gap(guarded))
            if listed and env != UNLISTED and use:
                assert tails == [] and gaps == [], (guarded, tails)
            else:
                wanted = [w for w in shapecache.wanted_tails() if w[2] == guarded]
                assert sorted(tails) == sorted(wanted) and len(gaps) == len(shapecache.wanted_gaps())
        assert got[0] == got[1] == got[2]
        assert any(t is not None for t in got[0][0]) and got[0][1] > 0


def test_the_stored_tails_are_the_computed_ones_under_both_switches() -> None:
    """The file's values (as `shapecache.tail` hands them to the feed) are `open_tail`'s, guarded or not: the two
    switches give different tails for some detector (else one of them would not be tested)."""
    if shapecache.environment() not in _file()["environments"]:
        pytest.skip("not listed here: test_here_the_file_is_the_same_bytes_if_listed_and_unread_if_not checks that")
    differ = 0
    for pattern, flags, guarded in shapecache.wanted_tails():
        stored, packed = shapecache.tail(pattern, flags, guarded)
        want = opentail._open_tail.__wrapped__(pattern, flags, guarded)
        assert stored and packed == (None if want is None else want.packed()), pattern
        differ += guarded and packed != shapecache.tail(pattern, flags, False)[1]
    assert differ
    for d in shapecache.wanted_gaps():
        assert shapecache.gap(d) == (True, labelgap.label_gap(d))
    for pattern, flags in shapecache.wanted_fars():
        assert shapecache.far_pairs(pattern, flags) == (True, tails._pairs(pattern, flags)), pattern
        assert tails.pairs(pattern, flags) == tails._pairs(pattern, flags)


def test_the_whole_pass_reads_its_far_bounds_and_label_gap_from_the_file_where_it_is_listed() -> None:
    """The whole-text pass's far bounds (whole.py `far_of`: `tails.pairs`) and the hyperscan candidates' label gap
    (wholedb.py) of the built-ins: none read off where the file lists the environment, all where it does not,
    and the same far bounds (`Tail`) either way."""
    listed = shapecache.environment() in _file()["environments"]
    engine = Redactor()._engine
    views = [TEXTS[k] for k in sorted(TEXTS)]
    got = []
    for env in (shapecache.environment(), UNLISTED):
        _clear()
        asked: list[tuple[str, int]] = []

        def counted(pattern: str, flags: int, asked: list[tuple[str, int]] = asked, real: Any = tails._pairs) -> Any:
            asked.append((pattern, flags))
            return real(pattern, flags)

        with (
            mock.patch.object(shapecache, "environment", lambda env=env: env),
            mock.patch.object(tails, "_pairs", counted),
            mock.patch.object(wholedb, "BY_ID", False),  # (its databases built again: `_shared` is cleared)
            _counted() as (_, gaps),
        ):
            fars = [whole.far_of(d, True) for d in engine.detectors]
            got.append([[None if f is None else f(v, q) for v in views for q in (0, 7, 100)] for f in fars])
            if prefilter._hs is not None:  # (the [fast] extra: the candidates' database)
                assert wholedb.shared(engine.detectors) is not None
        if listed and env != UNLISTED:
            assert asked == [] and gaps == []
        else:
            assert asked and set(asked) <= set(shapecache.wanted_fars())
            assert gaps or prefilter._hs is None
    assert got[0] == got[1] and any(x is not None for x in got[0][-1])


def test_a_flipped_stored_bit_is_found_and_verifying_refuses_it(tmp_path: Path) -> None:
    """What the listed-environment test compares, and what `--verify` compares, each find one bit flipped in a
    stored shape or in the pair table; the unchanged file verifies and gets this environment listed."""
    data = _file()
    key = next(k for k, v in sorted(data["shapes"].items()) if v is not None)
    bad_shape = json.loads(json.dumps(data))
    bad_shape["shapes"][key][1] = _flipped(bad_shape["shapes"][key][1], 40)
    bad_pairs = json.loads(json.dumps(data))
    bad_pairs["pairs"]["table"] = _flipped(bad_pairs["pairs"]["table"], 8 * (ord("a") * 128 + ord("@")))
    tail = next(k for k, v in sorted(data["derived"]["tails"].items()) if v is not None)
    bad_tail = json.loads(json.dumps(data))
    bits = bytearray(base64.b64decode(bad_tail["derived"]["tails"][tail][0]))
    bits[6] ^= 1  # (a digit: `chars`)
    bad_tail["derived"]["tails"][tail][0] = base64.b64encode(bytes(bits)).decode()
    gap = next(iter(sorted(data["derived"]["gaps"])))
    bad_gap = json.loads(json.dumps(data))
    bad_gap["derived"]["gaps"][gap] += 1
    far = next(k for k, v in sorted(data["derived"]["fars"].items()) if v is not None)
    bad_far = json.loads(json.dumps(data))
    bad_far["derived"]["fars"][far][0][0] += 1  # (w of its first kind of path)
    with mock.patch.object(shapecache, "environment", lambda: UNLISTED):
        assert len(_mismatches(bad_shape)) == 1 and _mismatches(bad_pairs) == ["pairs"]
        assert len(_mismatches(bad_tail)) == 1 and len(_mismatches(bad_gap)) == 1 and len(_mismatches(bad_far)) == 1
        assert shapecache.verify(bad_shape) == (None, [f"shape {key}: other bytes"])
        assert shapecache.verify(bad_pairs) == (None, ["pair table: other bytes"])
        assert shapecache.verify(bad_tail) == (None, [f"tail {tail}: other value"])
        assert shapecache.verify(bad_gap) == (None, [f"gap {gap}: other value"])
        assert shapecache.verify(bad_far) == (None, [f"far {far}: other value"])
        path = tmp_path / "shapes.json"
        path.write_text(json.dumps(bad_shape), encoding="utf-8")
        assert shapecache.main(["--verify", "--file", str(path)]) == 1
        assert json.loads(path.read_text(encoding="utf-8")) == bad_shape  # (not written)
        path.write_text(json.dumps(data), encoding="utf-8")
        assert shapecache.main(["--verify", "--file", str(path)]) == 0
        verified = json.loads(path.read_text(encoding="utf-8"))
    assert verified["environments"] == sorted({*data["environments"], UNLISTED})
    assert {k: v for k, v in verified.items() if k != "environments"} == {
        k: v for k, v in data.items() if k != "environments"
    }


def test_regenerating_lists_this_environment_and_keeps_the_others_only_for_the_same_content(tmp_path: Path) -> None:
    """The others are kept where the sources and the content read off here are the stored ones (listed here, or
    unlisted and reading off the same), dropped for a file of other sources."""
    data = _file()
    same = shapecache.environment() in data["environments"] or shapecache.differences(data) == []
    path = tmp_path / "shapes.json"
    for previous, kept in ((data, same), ({**data, "source": "another"}, False)):
        path.write_text(json.dumps({**previous, "environments": [*previous["environments"], UNLISTED]}), "utf-8")
        assert shapecache.main(["--file", str(path)]) == 0
        got = json.loads(path.read_text(encoding="utf-8"))
        others = [*data["environments"], UNLISTED] if kept else []
        assert got["environments"] == sorted({shapecache.environment(), *others})
        assert got["source"] == shapecache.source_key()
        assert _mismatches(got) == []
