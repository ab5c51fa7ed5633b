"""The streaming starters' ASCII pairs read from shapecache.py's file (`starters.STORED_PAIRS`) against the engine:
every pair the same answer, the engine still asked where the file does not answer (another mask, another
selection, a pair that is not ASCII), and the file's table computed by the engine, not by itself."""

from __future__ import annotations

import pytest

from sluicegate.redaction import Redactor, shapecache, starters
from sluicegate.redaction.detector import custom_detector
from sluicegate.redaction.starters import Starters


def _fresh() -> Starters:
    """The default selection's starters, with nothing learnt (the shared one has learnt from other tests)."""
    st = Redactor()._engine.starters
    assert st is not None
    return Starters(st._detectors, st._trusted)


def _asked(st: Starters) -> list[tuple[str, str, int, int]]:
    """Every ASCII pair whose character may start something: (prev, ch, the character's mask, the pair's answer)."""
    out = []
    for c in range(128):
        ch = chr(c)
        mask = st._compute(ch)
        if mask:
            out.extend((chr(p), ch, mask, st._pair(chr(p), ch, mask)) for p in range(128))
    return out


def test_every_stored_pair_is_the_engines_answer() -> None:
    stored = _fresh()
    assert stored._stored_pairs() is not None  # (the file is this selection's: else nothing here is compared)
    got = _asked(stored)
    starters.STORED_PAIRS = False
    try:
        want = _asked(_fresh())
    finally:
        starters.STORED_PAIRS = True
    assert len(got) > 5000
    assert got == want


def test_the_engine_is_asked_where_the_file_does_not_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mask other than the character's, a pair that is not ASCII and another selection go to the engine (a
    `_stored_pairs` that fails shows it), and give the engine's answers."""
    st = _fresh()
    mask = st._compute("a")
    assert bin(mask).count("1") > 1

    def refuse() -> None:
        raise AssertionError("the file was read")

    monkeypatch.setattr(st, "_stored_pairs", refuse)
    low = mask & -mask  # (one detector of the character's)
    assert st._pair(" ", "a", low) == low & _engine_pair(" ", "a", low)
    e = st._compute("é")
    if e:
        assert st._pair(" ", "é", e) == _engine_pair(" ", "é", e)
    custom = (custom_detector(("X", r"ab[0-9]+")),)
    assert Starters(custom, [True])._stored_pairs() is None


def _engine_pair(prev: str, ch: str, mask: int) -> int:
    starters.STORED_PAIRS = False
    try:
        return _fresh()._pair(prev, ch, mask)
    finally:
        starters.STORED_PAIRS = True


def test_the_file_is_computed_by_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """`compute_pairs` (what `python -m sluicegate.redaction.shapecache` writes and `--verify` compares) asks the
    engine even when the file answers: a table that read itself would verify whatever it holds."""
    st = _fresh()

    def refuse() -> None:
        raise AssertionError("the file was read while computing it")

    monkeypatch.setattr(Starters, "_stored_pairs", lambda self: refuse())
    table = shapecache.compute_pairs(st)
    assert len(table) == 128 * 128 * 8
