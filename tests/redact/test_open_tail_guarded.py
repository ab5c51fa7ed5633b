"""The open tail's trailing guards (opentail.GUARDED, stop 35): a path may end in a final repeat followed by an
optional group (whose paths end in final repeats) and a negative lookahead of one class. Checked: which patterns
and built-ins get a tail; the two claims against the engine at every start of a complete match of every detector
with a tail (not only label starts), on the corpora, the suites and Hypothesis token texts; the stream with the
guards on, off and the pure path byte for byte; and that a streamed JWT is not asked again.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath, opentail
from sluicegate.redaction.opentail import OpenTail, open_tail
from sluicegate.redaction.registry import BUILTIN
from tests.benchmarks import corpus as C
from tests.benchmarks.corpora27 import CORPORA

from .sameness import Call, corpus_cuts, corpus_texts, same, suite_cuts
from .suite_cases import NAMES, load


def _tails() -> list[tuple[Any, OpenTail]]:
    return [(d, t) for d in BUILTIN if not d.steady and (t := open_tail(d.pattern, d.compiled.flags, True))]


def test_the_guards_give_the_tokens_an_open_tail() -> None:
    got = {d.entity for d, _ in _tails()}
    assert {"JWT", "GITHUB_TOKEN", "SLACK_TOKEN", "DISCORD_BOT_TOKEN", "LABELED_SECRET"} <= got, got
    assert "EMAIL_ADDRESS" not in got and "PHONE_NUMBER" not in got and "IP_ADDRESS" not in got
    jwt = next(t for d, t in _tails() if d.entity == "JWT")
    assert jwt.most is None and "." not in jwt.chars and "\n" not in jwt.chars and "a" in jwt.chars and "-" in jwt.chars


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"a[0-9]+(?![a-z])", ("0123456789", None)),  # the guard reads only the end of the text
        (r"a[0-9]+(?:\.[0-9]*+)?(?![0-9.])", ("0123456789", None)),  # a path ends in the group or before it
        (r"a[0-9]{2,}+(?:\n(?:[a-c]++[0-9]|x)[0-9]*+)?", ("0123456789", None)),  # a JWT's wrap
        (r"a[0-9]+(?:\n[a-c]++[0-9]|x[0-9]*+)?", None),  # one of the group's paths ends in a class
        (r"a[0-9]+(?:xy)?", None),  # the group ends in a literal
        (r"a[0-9]+(?:x)?", ("x", 1)),  # `x?`: a final repeat of at most one (below it: never a match)
        (r"a(?:[0-9]+)?", None),  # skipped, the path ends in a literal
        (r"a[0-9]+(?![a-z]b)", None),  # the guard reads two characters
        (r"a[0-9]+(?=[a-z])", None),  # a positive lookahead needs a character after the end
        (r"a[0-9]+(?![a-z])b?", None),  # the guard is not last: it reads what a later part consumes
        (r"(?=[a-z]{3})a[0-9]+(?![a-z])", None),  # a lookahead before
    ],
)
def test_guarded_open_tail_of_small_patterns(pattern: str, expected: tuple[str, int | None] | None) -> None:
    got = open_tail(pattern, guarded=True)
    assert (None if got is None else (got.chars, got.most)) == expected


def _claims(text: str, rng: random.Random) -> int:
    """At every start of a match of each detector with a tail (overlapping ones too), cut at several ends where the
    anchored match is complete and ends there: claim 1 (the probe answers v) and claim 2 (so over appended `chars`,
    and the match is complete to the new end). Returns how many starts were checked."""
    checked = 0
    for d, t in _tails():
        match, probe = d.compiled.match, d.probe.search
        starts = {m.start() for m in d.compiled.finditer(text, overlapped=True, partial=True)}
        starts |= {rng.randrange(len(text)) for _ in range(8)} if text else set()
        for v in sorted(starts):
            for end in {len(text), *(min(len(text), v + j) for j in (3, 5, 8, 13, 20, 30, 37, 45, 60, 120, 200))}:
                cut = text[:end]
                m = match(cut, v, partial=True)
                if m is None or m.partial or m.end() != end or (t.most is not None and end - v >= t.most):
                    continue
                p = probe(cut, v, partial=True)
                assert p is not None and p.start() == v, (d.entity, cut, v)  # claim 1
                checked += 1
                more = "".join(rng.choice(t.chars) for _ in range(rng.randint(1, 12)))
                longer = cut + more
                if t.most is None or len(longer) - v < t.most:
                    p = probe(longer, v, partial=True)
                    assert p is not None and p.start() == v, (d.entity, longer, v)  # claim 2
                    m2 = match(longer, v, partial=True)
                    assert m2 is not None and not m2.partial and m2.end() == len(longer), (d.entity, longer, v)
    return checked


def test_the_guarded_claims_hold_on_the_corpora_and_the_suites() -> None:
    rng = random.Random(35)
    texts = [make(6000) for make in CORPORA.values()] + [C.planted(6000).text]
    texts += [case["text"] for name in NAMES for case in load(name)]
    assert sum(_claims(t, rng) for t in texts) > 300


_PIECES = st.one_of(
    st.sampled_from(
        ["eyJ", "eyJhbGciOi", ".", "..", "-", "_", "\n", "\r\n", "x1", "1x", "ghp_", "xoxb-", "sk-ant-", "AKIA"]
        + ["AIza", "npm_", "SG.", "bc1q", "1A", "Bearer ", "basic ", "=", "==", "hooks.slack.com/services/", " "]
        + ["/", "+", "é", ":", "0" * 20, "A" * 30, "abcdefghijklmnopqrstuvwxyz012345"]
    ),
    st.text(st.sampled_from(list("aZ09_-.=/+: \n")), max_size=10),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=16).map("".join), st.integers(0, 2**32))
def test_the_guarded_claims_hold_on_generated_token_texts(text: str, seed: int) -> None:
    _claims(text, random.Random(seed))


@contextmanager
def _unguarded() -> Iterator[None]:
    opentail.GUARDED = False
    try:
        yield
    finally:
        opentail.GUARDED = True


def _off(make: Callable[[], Redactor]) -> Callable[[], Redactor]:
    def off() -> Redactor:
        with _unguarded():  # (read when the compiled feed is built)
            return make()

    return off


def _compare(calls: list[Call], max_hold: int = 8192) -> None:
    on = Redactor.factory(max_hold=max_hold)
    same({"on": on, "off": _off(on)}, calls, False, max_hold)  # step for step, and the pure path's (once a session)


@pytest.mark.parametrize("seed", [35])
def test_the_stream_is_the_same_with_the_guards_off_and_on_the_pure_path(seed: int) -> None:
    for calls in corpus_cuts(corpus_texts(), seed):
        _compare(calls)
    for calls, max_hold in suite_cuts(seed):
        _compare(calls, max_hold)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=16).map("".join), st.lists(st.integers(1, 9), min_size=1, max_size=6))
def test_the_stream_is_the_same_on_generated_token_texts(text: str, sizes: list[int]) -> None:
    calls: list[Call] = []
    at = k = 0
    while at < len(text):
        calls.append((text[at : at + sizes[k % len(sizes)]], ""))
        at += sizes[k % len(sizes)]
        k += 1
    _compare(calls)
    _compare(calls, 24)


def _spied(make: Callable[[], Redactor], entity: str) -> tuple[Redactor, list[str]]:
    asked: list[str] = []
    r = make()
    assert r._tracker is not None
    i = next(k for k, d in enumerate(r._tracker._detectors) if d.entity == entity)
    for attr in ("_match", "_search"):
        fns = list(getattr(r._tracker, attr))
        inner = fns[i]

        def spy(view: str, pos: int, *a: Any, _inner: Any = inner, _attr: str = attr, **k: Any) -> Any:
            asked.append(_attr)
            return _inner(view, pos, *a, **k)

        fns[i] = spy
        setattr(r._tracker, attr, tuple(fns))
    r._quick_native = fastpath.compiled_feed(r._tracker, r._max_hold)  # (over the spies, with GUARDED as it is now)
    return r, asked


def test_a_streamed_jwt_is_not_asked_again() -> None:
    # Not vacuous: with the guards off, every feed of the payload and signature asks the match and the probe; on,
    # neither (the header, still open, is matched each feed either way).
    token = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.c2lnbmF0dXJlX3ZhbHVl"
    text = f"x {token}\nnext line"  # (no label before it: `TOKEN=` would be asked first)
    counts = {}
    for guarded in (True, False):
        opentail.GUARDED = guarded
        try:
            r, asked = _spied(Redactor, "JWT")
        finally:
            opentail.GUARDED = True
        out = [r.feed(text[i : i + 4]).text for i in range(0, len(text), 4)] + [r.flush().text]
        assert "".join(out) == "x <JWT>\nnext line"
        counts[guarded] = len(asked)
    assert counts[True] <= 16 and counts[False] >= 40, counts
