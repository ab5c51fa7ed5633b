"""whole.certified's far bounds: asked once per (far, place) over its tries, and what they read capped at
`whole.READ_BUDGET` times the view's length (past it the one pass declines and the stream redacts the text).

Before the cap, detect-secrets' cases strung together (43 KB, where many places find no bound and read to the
view's end) cost 0.2 s at the default `max_hold` and 3 s at 512 before declining. Here: the characters read are
counted through `_Reads.far` (each far's answer to the bound, or the view's end), the underlying fars are counted
too, and the output of `redact()` is the stream's with the cap and without it (`READ_BUDGET = 0`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from unittest import mock

import pytest

from sluicegate.redaction import Redactor, whole
from tests.benchmarks import corpora27
from tests.redact import suite_cases


class Stream(Redactor):
    _WHOLE = False


def _stream(text: str, max_hold: int) -> tuple[str, bool]:
    r = Stream(max_hold=max_hold)
    a = r.feed(text)
    b = a if a.stopped else r.flush()
    return a.text + (b.text if b is not a else ""), a.stopped or b.stopped


def _whole(text: str, max_hold: int) -> tuple[str, bool]:
    r = Redactor(max_hold=max_hold)
    got = r._redact_whole(text)
    if got is not None:
        return got, False
    a = r.feed(text)
    b = a if a.stopped else r.flush()
    return a.text + (b.text if b is not a else ""), a.stopped or b.stopped


def _texts() -> Iterator[tuple[str, str]]:
    yield "detect_secrets", "\n".join(c["text"] for c in suite_cases.load("detect_secrets"))
    yield "gitleaks", "\n".join(c["text"] for c in suite_cases.load("gitleaks"))
    yield "code", corpora27.CORPORA["code"](64 * 1024)


class _Counted:
    """Counts, for one `certified` at a time, what its `_Reads` asked: the characters read and each far call."""

    def __init__(self) -> None:
        self.read = 0
        self.calls: Counter[tuple[int, int]] = Counter()
        self._real = whole._Reads.far
        self._wrapped: dict[int, whole.Far] = {}  # one counting far per far (`_Reads` remembers by identity)

    def far(self, reads: whole._Reads, f: whole.Far, view: str, x: int) -> int | None:
        def counted(v: str, q: int) -> int | None:
            got = f(v, q)
            self.calls[(id(f), q)] += 1
            self.read += (len(v) if got is None else got) - q
            return got

        counted_f = self._wrapped.setdefault(id(f), counted)
        return self._real(reads, counted_f, view, x)

    def patched(self) -> object:
        """`_Reads.far` through this counter (as the method `mock.patch.object` puts on the class)."""
        return lambda reads, f, view, x: self.far(reads, f, view, x)


@pytest.mark.parametrize("max_hold", [8192, 512])
def test_reads_stay_within_the_budget_and_each_far_is_asked_once(max_hold: int) -> None:
    for name, text in _texts():
        counted = _Counted()
        with mock.patch.object(whole._Reads, "far", counted.patched()):
            Redactor(max_hold=max_hold)._redact_whole(text)
        # One far may read to the view's end after the budget's last character: the cap is budget + 1 views.
        assert counted.read <= (whole.READ_BUDGET + 1) * len(text), name
        assert all(n == 1 for n in counted.calls.values()), name


def test_the_budget_is_what_stops_the_reading() -> None:
    """Without the cap (0) the detect-secrets text reads far more than the budget: the test above can fail."""
    text = next(t for n, t in _texts() if n == "detect_secrets")
    counted = _Counted()
    with (
        mock.patch.object(whole, "READ_BUDGET", 0),
        mock.patch.object(whole._Reads, "far", counted.patched()),
    ):
        Redactor(max_hold=512)._redact_whole(text)
    assert counted.read > 100 * len(text)


@pytest.mark.parametrize("budget", [whole.READ_BUDGET, 0, 1])
@pytest.mark.parametrize("max_hold", [8192, 512])
def test_redact_is_the_stream_with_and_without_the_cap(budget: int, max_hold: int) -> None:
    with mock.patch.object(whole, "READ_BUDGET", budget):
        for name, text in _texts():
            assert _whole(text, max_hold) == _stream(text, max_hold), name
