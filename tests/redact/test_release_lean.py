"""The settling feed's lean release of stop 33 (issue 27) against `_release`'s general path and the pure one.

A feed whose check hands `_release_step` a point, where the view and the held text coincide and the compiled feed
is in use, settles through `Engine.settle_short` (the short settle without `Engine.settle`'s dispatch: None where
that would not take `_settle_short`) and releases through `Redactor._release_plain` (`_release` without the
position map). Claimed to give the same answers: so the Steps (text, stop flag, events) and `held` after every
feed, then the flush, are the same with `_LEAN_RELEASE = False` and on the pure path, on the four issue 27
corpora, issue 17's texts, every case of the five suites and Hypothesis texts at random chunkings (lookaheads, a
small `max_hold`), with and without `[fast]`; and every `settle_short` answer the streams get is `Engine.settle`'s.
"""

from __future__ import annotations

from typing import Any

import pytest

from sluicegate.redaction import Redactor, fastpath
from sluicegate.redaction.settle import Engine

from . import sameness
from .sameness import Make, corpus_texts
from .test_feed_lean import _PIECES


def _subjects(fast: bool, max_hold: int = 8192) -> dict[str, Make]:
    """ "on" (the default build), "off" (every settle through `_release`); `same` adds the pure path."""
    return {
        "on": sameness.variant(fast, max_hold),
        "off": sameness.variant(fast, max_hold, (("_LEAN_RELEASE", False),)),
    }


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_corpora(fast: bool) -> None:
    sameness.on_corpora(_subjects, fast, 27)


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_suites(fast: bool) -> None:
    sameness.on_suites(_subjects, fast, 33)


@sameness.chunkings(_PIECES, max_examples=150)
def test_the_same_steps_on_generated_texts(
    text: str, sizes: list[int], aheads: list[int], max_hold: int, truncated: bool
) -> None:
    sameness.on_chunking(_subjects, text, sizes, aheads, max_hold, truncated)


@pytest.mark.parametrize("fast", [True, False])
def test_every_short_settle_is_the_engines(fast: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # Not vacuous: the lean path is taken on every corpus with findings, and each answer it gets (point and
    # findings, or None: not its case) is compared with the general entry's.
    if fastpath.native is None:
        pytest.fail("the compiled feed is not built: python setup.py build_ext --inplace")
    short = Engine.settle_short
    taken: list[bool] = []
    moved: list[bool] = []  # a search that starts past `pos`, at the tracker's bound

    def checked(self: Engine, view: str, pos: int, point: int, hint: int, keep: Any, *bounds: Any) -> Any:
        assert bounds  # the tracker's: the searches start at them
        lb, origin = bounds[:2]  # (then the choice's switch: `Redactor._LAZY_CHOOSE`)
        moved.append(any(at - origin > pos for i, at in lb.items() if hint >> i & 1))
        got = short(self, view, pos, point, hint, keep, *bounds)
        taken.append(got is not None)
        if got is not None:
            assert got == self.settle(view, pos, point, final=False, keep=keep, hint=hint), (view, pos, point)
        return got

    monkeypatch.setattr(Engine, "settle_short", checked)

    class On(Redactor):
        _COMPILED = fast
        _C_RELEASE = False  # (else `_native.release_one` does most of them: tests/redact/test_settle_round2.py)

    for text in corpus_texts():
        r = On()
        for i in range(0, len(text), 4):
            r.feed(text[i : i + 4])
        r.flush()
    assert sum(taken) > 50 and sum(moved) > 5


def test_the_lean_release_is_off_without_the_compiled_feed_or_with_a_position_map() -> None:
    calls: list[int] = []
    plain = Redactor._release_plain

    class Spied(Redactor):
        _NATIVE = False

    class Seen(Redactor):
        _C_RELEASE = False  # (else `_native.release_one` releases these itself, without `_release_plain`)

    def spy(self: Redactor, point: int, findings: Any, tracker: Any) -> str:
        assert self._positions is None  # the map's case is `_release`'s
        calls.append(point)
        return plain(self, point, findings, tracker)

    for cls in (Spied, Seen):
        cls._release_plain = spy  # type: ignore[method-assign]
    text = "mail jane@example.com now, ip 10.0.0.1 ok "
    r: Redactor = Spied()
    for i in range(0, len(text), 4):
        r.feed(text[i : i + 4])
    assert calls == []  # the pure path: `_release` as before
    r = Seen()
    for i in range(0, len(text), 4):
        r.feed(text[i : i + 4])
    assert calls  # the compiled feed: the lean release
    calls.clear()
    soft = "mail j\u00adane@example.com now, ip 10.0.0.1 ok "  # a soft hyphen: dropped from the view, a map
    r = Seen()
    out = "".join(r.feed(soft[i : i + 4]).text for i in range(0, len(soft), 4)) + r.flush().text
    assert "<EMAIL_ADDRESS>" in out and "<IP_ADDRESS>" in out


def test_the_lean_step_is_the_dataclasss() -> None:
    from sluicegate import Step
    from sluicegate.redaction.redactor import _text_step

    for text in ("a", "<EMAIL_ADDRESS> now", "é\n"):
        got, want = _text_step(text), Step(text)
        assert type(got) is Step and got == want and hash(got) == hash(want) and repr(got) == repr(want)
        assert got.__dict__ == want.__dict__ and list(got.__dict__) == list(want.__dict__)
        with pytest.raises(AttributeError):
            got.text = "b"  # type: ignore[misc]


def test_the_lean_finding_is_the_dataclasss() -> None:
    from sluicegate.redaction.registry import BUILTIN
    from sluicegate.redaction.settle import Finding, _finding

    got, want = _finding(3, 9, BUILTIN[0]), Finding(3, 9, BUILTIN[0])
    assert type(got) is Finding and got == want and hash(got) == hash(want) and repr(got) == repr(want)
    assert list(got.__dict__.items()) == list(want.__dict__.items())
    with pytest.raises(AttributeError):
        got.start = 4  # type: ignore[misc]
