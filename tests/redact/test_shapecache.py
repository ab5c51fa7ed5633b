"""shapecache.py: the built-ins' shapes kept in data/redact/shapes.json are the ones shape.py reads off now,
every shape the compiled paths ask for the built-ins is there, and nothing is read from a file of another build."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Iterator
from unittest import mock

import pytest

from sluicegate.redaction import Redactor, fastpath, shape, shapecache, whole

from .test_whole_candidates import TEXTS


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    shapecache._stored.cache_clear()
    shapecache._stored_pairs.cache_clear()
    yield
    shapecache._stored.cache_clear()
    shapecache._stored_pairs.cache_clear()


def test_the_file_is_of_this_build_and_every_stored_shape_is_read_off_again_byte_for_byte() -> None:
    data = json.loads(shapecache.FILE.read_text(encoding="utf-8"))
    assert data["build"] == shapecache.build_key(), "stale: python -m sluicegate.redaction.shapecache"
    wanted = shapecache.wanted()
    assert {shapecache.key_of(*w) for w in wanted} == set(data["shapes"])
    for pattern, flags, places in wanted:
        want = shape.shape.__wrapped__(pattern, flags, places)  # (not shape.py's own cache)
        got = data["shapes"][shapecache.key_of(pattern, flags, places)]
        if want is None:
            assert got is None, pattern
            continue
        count, packed = want.packed()
        assert got is not None, pattern
        assert (got[0], zlib.decompress(base64.b64decode(got[1])), got[2]) == (count, packed, want.places), pattern


def test_the_compiled_paths_build_no_shape_for_the_builtins() -> None:
    """A fresh Redactor (the compiled feed's shapes) and whole-text passes on an ASCII and a non-ASCII view (whole.py's
    32-place shapes and the label rests') take every shape from the file."""
    fastpath._shape.cache_clear()
    whole._native_plan.cache_clear()
    built: list[str] = []
    real = shape.shape

    def counted(pattern: str, flags: int = 0, places: int = shape.PLACES) -> object:
        built.append(pattern)
        return real(pattern, flags, places)

    try:
        with mock.patch.object(shape, "shape", counted), mock.patch.object(Redactor, "_COMPILED", False):
            r = Redactor()
            for name in ("code", "multilingual"):
                r._append(TEXTS[name])
                assert whole._native_starts(r._engine, r._view) is not None
                r = Redactor()
        assert built == []
    finally:
        fastpath._shape.cache_clear()
        whole._native_plan.cache_clear()


def test_a_file_of_another_build_or_switched_off_gives_nothing() -> None:
    pattern, flags, places = shapecache.wanted()[1]
    assert shapecache.lookup(pattern, flags, places)[0]
    shapecache._stored.cache_clear()
    with mock.patch.object(shapecache, "build_key", lambda: "another"):
        assert shapecache.lookup(pattern, flags, places) == (False, None)
    with mock.patch.object(shapecache, "USE", False):
        assert shapecache.lookup(pattern, flags, places) == (False, None)
    assert shapecache.lookup("[a-z]+@", 0, 16) == (False, None)  # not a built-in's


def test_the_stored_pair_table_is_every_pair_asked_again() -> None:
    """Each of the 16,384 ASCII pairs of the stored table is starters.py's answer now (a fresh `Starters`)."""
    from sluicegate.redaction.starters import Starters

    st = Redactor()._engine.starters
    assert st is not None
    got = shapecache.pair_table(st)
    assert got is not None, "stale: python -m sluicegate.redaction.shapecache"
    fresh = Starters(st._detectors, st._trusted)
    assert bytes(got) == shapecache.compute_pairs(fresh)
    assert shapecache.pair_table(Redactor(entities=["EMAIL_ADDRESS"])._engine.starters) is None  # another selection
    with mock.patch.object(shapecache, "USE", False):
        assert shapecache.pair_table(st) is None


def test_the_candidates_are_the_same_with_and_without_the_file() -> None:
    with mock.patch.object(Redactor, "_COMPILED", False):
        engine = Redactor()._engine
        got = []
        for use in (True, False):
            fastpath._shape.cache_clear()
            whole._native_plan.cache_clear()
            whole._pair_table.cache_clear()
            whole._shape_pairs.cache_clear()
            with mock.patch.object(shapecache, "USE", use):
                got.append([whole._native_starts(engine, TEXTS[k]) for k in sorted(TEXTS)])
    fastpath._shape.cache_clear()
    whole._native_plan.cache_clear()
    whole._pair_table.cache_clear()
    whole._shape_pairs.cache_clear()
    assert got[0] == got[1]
