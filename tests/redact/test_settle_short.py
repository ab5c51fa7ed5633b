"""The short settle (`Engine._settle_short`) against the general path, the dotted-quad shortcut
(`validators._dotted_quad`) against `ipaddress`, and the bounded probe (`tracker._open_probe`) against the plain
probe search.

A settle of a short range (≤ 512 characters) where only built-in detectors may have a complete match (an IP address
in a log line) searches each of them once (the general path searches for the first complete match, then runs
`finditer` from it) and, for one match, skips the sorting. The claim is that every such settle gives the general
path's answer, so every settle the streams make is done both ways here and compared (point and findings): on the
four issue 27 corpora, issue 17's corpus, every case of the five suites, and Hypothesis texts at random chunkings,
with and without the `[fast]` prefilter, through the compiled feed and the pure one. The released text is then the
same too (asserted as well, with the shortcuts switched off). The bounded probe, which the compiled feed asks after
a complete match, reports the plain probe's open start on the corpora, the suites' cases and generated texts
(test_incremental.py and test_oracle.py also compare the tracker that uses it with `Engine.open_from`, which does
not).
"""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, tracker, validators
from sluicegate.redaction.registry import BUILTIN
from sluicegate.redaction.settle import Engine
from sluicegate.redaction.tracker import _open_probe
from tests.benchmarks import corpus as C
from tests.benchmarks.corpora27 import CORPORA

from .suite_cases import NAMES, load

_general = Engine.settle
_one = Engine._settle_short


@contextmanager
def _both_ways() -> Iterator[dict[str, int]]:
    """Every `Engine.settle` made inside is made with the short path and without it, and the answers
    compared; yields counts (settles, and those the short path took)."""
    seen = {"settles": 0, "one": 0}

    def one(self: Engine, *args: Any) -> Any:
        seen["one"] += 1
        return _one(self, *args)

    def settle(self: Engine, *args: Any, **kwargs: Any) -> Any:
        seen["settles"] += 1
        self.SHORT = False  # (an instance attribute: the class's stays True)
        try:
            slow = _general(self, *args, **kwargs)
        finally:
            del self.SHORT
        fast = _general(self, *args, **kwargs)
        assert fast == slow, (args, kwargs.get("hint"))
        return fast

    Engine.settle = settle  # type: ignore[method-assign]
    Engine._settle_short = one  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        Engine.settle = _general  # type: ignore[method-assign]
        Engine._settle_short = _one  # type: ignore[method-assign]


def _subject(fast: bool, native: bool) -> type[Redactor]:
    class Subject(Redactor):
        _COMPILED = fast
        _NATIVE = native

    return Subject


def _stream(cls: type[Redactor], text: str, sizes: list[int]) -> str:
    r = cls()
    out, at, k = [], 0, 0
    while at < len(text):
        n = sizes[k % len(sizes)]
        step = r.feed(text[at : at + n])
        out.append(step.text)
        if step.stopped:
            return "".join(out)
        at += n
        k += 1
    out.append(r.flush().text)
    return "".join(out)


def _off_output(cls: type[Redactor], text: str, sizes: list[int]) -> str:
    """The stream with the short path, the validators' shortcuts and the bounded probe switched off."""
    Engine.SHORT = False
    validators.SHORTCUTS = False
    tracker.BOUNDED_PROBE = False  # (read when the new Redactor's engine makes its tables)
    try:
        return _stream(cls, text, sizes)
    finally:
        Engine.SHORT = True
        validators.SHORTCUTS = True
        tracker.BOUNDED_PROBE = True


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("fast", [True, False])
def test_the_same_answer_on_the_corpora_and_the_suites(fast: bool, native: bool) -> None:
    cls = _subject(fast, native)
    rng = random.Random(27)
    texts = [make(6000) for make in CORPORA.values()] + [C.planted(6000).text, C.prose(3000)]
    cases = [case["text"] for name in NAMES for case in load(name)]
    with _both_ways() as seen:
        for text in texts:
            for sizes in ([4], [1], [rng.randint(1, 64) for _ in range(50)]):
                assert _stream(cls, text, sizes) == _off_output(cls, text, sizes)
        for text in cases:
            for sizes in ([4], [rng.randint(1, 9) for _ in range(20)]):
                assert _stream(cls, text, sizes) == _off_output(cls, text, sizes)
    # Not vacuous: thousands of settles here take the short path (the streams with it switched off count
    # among the settles, and take none).
    assert seen["one"] > 1000, seen


_PIECES = st.one_of(
    st.text(st.sampled_from(list("0123456789 .:-/%")), max_size=8),
    st.sampled_from(
        [
            "10.0.0.1",
            "192.168.001.1",
            "256.1.1.1",
            "1.2.3.4/33",
            "::1",
            "fe80::1%eth0",
            "a.b@example.com",
            "+44 20 7946 0958",
            "(415) 555-2671",
            "123-45-6789",
            "4111 1111 1111 1111",
            "DE89 3704 0044 0532 0130 00",
            "AKIAQAVSYEEFNPAXX3I4",
            "password: hunter2x ",
            "00:1A:2b:3C:4d:5E",
            "\n",
            " ",
            "é",
        ]
    ),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join), st.lists(st.integers(1, 12), min_size=1, max_size=8))
def test_the_same_answer_on_generated_texts(text: str, sizes: list[int]) -> None:
    for fast in (True, False):
        cls = _subject(fast, True)
        with _both_ways():
            assert _stream(cls, text, sizes) == _off_output(cls, text, sizes)


def _ipaddress_accepts(value: str) -> bool:
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


@settings(max_examples=2000, deadline=None)
@given(
    st.one_of(
        st.lists(st.text(st.sampled_from(list("0123456789")), max_size=4), min_size=1, max_size=5).map(".".join),
        st.text(st.sampled_from(list("0123456789.٣+ -/:%a")), max_size=18),
    )
)
def test_the_dotted_quad_shortcut_is_ipaddress(value: str) -> None:
    if validators._dotted_quad(value):
        assert _ipaddress_accepts(value), value
    validators.SHORTCUTS = False
    try:
        slow = validators.ip_address(value)
    finally:
        validators.SHORTCUTS = True
    assert validators.ip_address(value) == slow


def test_an_address_with_an_empty_or_foreign_prefix_is_not_one() -> None:
    """Hypothesis found `::/` raising ValueError out of the validator (an empty prefix length)."""
    for value in ("::/", "1.2.3.4/", "::1/٣", "1.2.3.4/+8", "1.2.3.4/ 8"):
        assert validators.ip_address(value) is False, value
    assert validators.ip_address("10.0.0.0/8") and validators.ip_address("::1/128")
    assert not validators.ip_address("10.0.0.0/33")


def test_the_dotted_quad_shortcut_on_the_edges() -> None:
    for value in ("0.0.0.0", "255.255.255.255", "10.168.227.181", "1.2.3.4"):
        assert validators._dotted_quad(value) and _ipaddress_accepts(value)
    bad = ("256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1..3.4", "1.2.3.٣", "+1.2.3.4", " 1.2.3.4", "1.2.3.4/8")
    for value in bad:
        assert not validators._dotted_quad(value)


def _starts(m: Any) -> int | None:
    return None if m is None else m.start()


def _same_probe(text: str, positions: list[int]) -> int:
    checked = 0
    for d in BUILTIN:
        bounded = _open_probe(d)
        for pos in positions:
            got = _starts(bounded(text, pos, None, None, True))
            assert got == _starts(d.probe.search(text, pos, partial=True)), (d.entity, text[pos:], pos)
            checked += 1
    return checked


def test_the_bounded_probe_is_the_probe_on_the_corpora_and_the_suites() -> None:
    """`tracker._open_probe(d)` (the compiled feed's probe after a complete match) reports the plain probe's open
    start at every end of a text and from starts near it, as the compiled feed asks it."""
    texts = [make(2500) for make in CORPORA.values()] + [C.planted(2500).text]
    texts += [case["text"][:300] for name in NAMES for case in load(name)][::3]
    checked = 0
    for text in texts:
        for cut in range(1, len(text) + 1, 11):
            view = text[:cut]
            checked += _same_probe(view, sorted({max(0, cut - k) for k in (1, 3, 8, 16, 17, 40, 90)}))
    assert checked > 100_000


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join), st.integers(0, 200))
def test_the_bounded_probe_is_the_probe_on_generated_texts(text: str, back: int) -> None:
    _same_probe(text, sorted({max(0, len(text) - back), 0}))
