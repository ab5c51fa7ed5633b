"""`Starters.quad` (redaction/starters.py) against the engine: the compiled feed (redaction/_native.c) skips a
trusted detector's candidate start at `q` without asking the engine when `quad(view[q-1:q+3])` lacks its bit,
so the bit must be set wherever that detector can start at `q` (a complete match, a path that runs into the
end of the view, or a partial match of the pattern itself: what the compiled feed's anchored match would see).
Four characters stand in for the whole view: one of context before (a negative lookbehind that needs more
cannot match it) and two after (a path that reads on past them is reported partial). Checked on views rich in
near-values and on arbitrary unicode, with fresh, learnt and full pair tables.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import starters as starters_module
from sluicegate.redaction.detector import Detector
from sluicegate.redaction.registry import BUILTIN
from sluicegate.redaction.starters import BUILTIN_IDS, Starters, starters_for

from .corpus import FUZZ_VALUES
from .test_pair_starters import _NEAR


def _fresh(detectors: tuple[Detector, ...] = BUILTIN) -> Starters:
    # Built like `starters_for`, but with empty tables, so that each test learns its own pairs and quads.
    return Starters(detectors, [id(d) in BUILTIN_IDS and not d.context for d in detectors])


def _can_start(d: Detector, view: str, q: int) -> bool:
    return (
        d.probe.match(view, q, partial=True) is not None
        or d.compiled.match(view, q) is not None
        or d.compiled.match(view, q, partial=True) is not None
    )


def _conservative(table: Starters, view: str) -> int:
    """Assert the quad of every position q (1 <= q, q + 3 <= len(view)) keeps each built-in that can start at q;
    return how many (position, detector) starts were checked."""
    checked = 0
    for q in range(1, len(view) - 2):
        key = view[q - 1 : q + 3]
        mask = table.quad(key)
        # The cached answer (the compiled feed reads `_quads` directly) is the same.
        assert table._quads.get(key, mask) == mask, key
        for i, d in enumerate(BUILTIN):
            if d.context:  # the compiled feed never asks `quad` about a context detector
                continue
            if _can_start(d, view, q):
                checked += 1
                assert mask >> i & 1, (d.entity, q, key, view)
    return checked


_CTX = st.text(st.sampled_from(list("a0:.- 谢ſ@_=\nfFxK+(")), max_size=8)
_RICH = st.lists(
    st.one_of(
        st.sampled_from(_NEAR),
        st.sampled_from(FUZZ_VALUES).map(lambda v: v[:14]),
        st.sampled_from(FUZZ_VALUES).map(lambda v: v[-10:]),
        st.text(max_size=3),
    ),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_CTX, _RICH)
def test_quad_keeps_every_builtin_that_can_start_on_near_values(ctx: str, new: str) -> None:
    view = (ctx + new)[:80]
    table = _fresh()
    _conservative(table, view)
    # Once learnt, the pair and quad tables answer from their caches: the same guarantee.
    _conservative(table, view)
    # The shared table (pairs learnt by every other test in this run) too.
    _conservative(starters_for(BUILTIN), view)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=24))
def test_quad_keeps_every_builtin_that_can_start_on_arbitrary_unicode(view: str) -> None:
    _conservative(_fresh(), view)


@settings(max_examples=150, deadline=None)
@given(st.text(st.sampled_from(list("0123456789 -.:+()@_aAfFkKsSxX\u00b7\t\n")), min_size=4, max_size=40))
def test_quad_keeps_every_builtin_that_can_start_on_digit_and_separator_runs(view: str) -> None:
    # Cards, phones, SSNs, IPs and MACs: lookbehinds of two characters and lookaheads on the next group.
    _conservative(_fresh(), view)


def test_quad_keeps_every_builtin_that_can_start_in_and_around_every_value() -> None:
    table = _fresh()
    checked = 0
    for v in FUZZ_VALUES:
        for before in ("", "a", "0", " ", ":", "x:", "1 ", "谢", "ſ", "key=", "-"):
            for after in ("", " ", "a", "0", "-", ".", ":"):
                checked += _conservative(table, (before + v)[:60] + after)
    assert checked > 1000  # the values do start detectors: the check is not vacuous


def test_quad_keeps_every_builtin_that_can_start_when_the_pair_table_is_full(monkeypatch: pytest.MonkeyPatch) -> None:
    # Past the cap a pair is answered by the one-character table: quad must still only remove what cannot start.
    monkeypatch.setattr(starters_module, "_PAIRS_MAX", 0)
    table = _fresh()
    for v in FUZZ_VALUES[:60]:
        _conservative(table, " " + v[:40] + " ")
    assert not table._pairs and not table._quads
