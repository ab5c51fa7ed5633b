"""The open tail (opentail.py) of stop 34 (issue 27): its two claims against the engine, and the compiled feed that
uses them against the feed without them and the pure path.

The claims, for a detector whose every path ends in a final repeat of one class: where its anchored partial match
at v is complete and ends at the end of the text n, with n - v below `most`, (1) v is open (the probe from v
answers v) and (2) it stays so over appended text of `chars`, while n - v stays below `most`. The compiled feed
then takes v open without the probe, and skips the match and the probe while such text streams in
(`compiled_feed(..., tail_off=True)`: as before). Checked: the claims at every start of the four corpora, issue 17's
texts, every case of the five suites and Hypothesis texts; the streams in tests/redact/test_check_feed.py.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath
from sluicegate.redaction.opentail import OpenTail, open_tail
from sluicegate.redaction.registry import BUILTIN
from tests.benchmarks import corpus as C
from tests.benchmarks.corpora27 import CORPORA

from .suite_cases import NAMES, load


def _tails() -> list[tuple[Any, OpenTail]]:
    return [(d, t) for d in BUILTIN if not d.steady and (t := open_tail(d.pattern, d.compiled.flags)) is not None]


def test_the_labelled_value_has_an_open_tail_and_the_token_detectors_none() -> None:
    # (stop 34's claims: without trailing guards, which test_open_tail_guarded.py checks)
    plain = [(d, t) for d in BUILTIN if not d.steady and (t := open_tail(d.pattern, d.compiled.flags, False))]
    got = {d.entity for d, _ in plain}
    assert got == {"LABELED_SECRET"}, got  # LABELED_SECRET's own forms; LABELED_IN_CODE ends in a quote or a label
    ((d, t),) = plain
    assert d.first == "[:=>]"
    assert t.most == 256 and " " not in t.chars and '"' not in t.chars and "<" not in t.chars and "a" in t.chars


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"a[0-9]+", ("0123456789", None)),
        (r"a[0-9]{2,5}+|b[0-9a-c]{1,9}", ("0123456789", 5)),
        (r"(?P<v>x[a-z]*+)", ("abcdefghijklmnopqrstuvwxyz", None)),
        (r"a[0-9]+?", None),  # lazy: the path may end before the text does
        (r"a[0-9]+b", None),  # ends in a literal
        (r"a[0-9]+(?![a-z])", None),  # a lookahead at the end
        (r"(?=ab)a[0-9]+", None),  # a lookahead before: it may read what is appended
        (r"a(?<=(?=xy)a)x[0-9]+", None),  # a lookbehind whose lookahead reads past the repeat's least count
        (r"a[0-9]+|b", None),  # one alternative ends otherwise
        (r"a(?:[0-9]y)+", None),  # the repeat's body is not one class
    ],
)
def test_open_tail_of_small_patterns(pattern: str, expected: tuple[str, int | None] | None) -> None:
    got = open_tail(pattern, guarded=False)
    assert (None if got is None else (got.chars, got.most)) == expected


def _claims(text: str, rng: random.Random) -> int:
    """At every start of `text`, cut at several ends, where the claims apply: assert them. Returns how many."""
    checked = 0
    for d, t in _tails():
        match, probe = d.compiled.match, d.probe.search
        for v, ch in enumerate(text):
            if ch not in ":=>":
                continue
            for end in {len(text), *(min(len(text), v + j) for j in (2, 3, 4, 5, 8, 16, 40, 255, 256, 257, 300))}:
                cut = text[:end]
                m = match(cut, v, partial=True)
                if m is None or m.partial or m.end() != end or (t.most is not None and end - v >= t.most):
                    continue
                p = probe(cut, v, partial=True)
                assert p is not None and p.start() == v, (cut, v)  # claim 1
                checked += 1
                more = "".join(rng.choice(t.chars) for _ in range(rng.randint(1, 9)))
                longer = cut + more
                if t.most is None or len(longer) - v < t.most:
                    p = probe(longer, v, partial=True)
                    assert p is not None and p.start() == v, (longer, v)  # claim 2
                    m2 = match(longer, v, partial=True)
                    assert m2 is not None and not m2.partial and m2.end() == len(longer), (longer, v)
    return checked


def _texts() -> list[str]:
    texts = [make(8000) for make in CORPORA.values()] + [C.planted(8000).text, C.prose(4000)]
    return texts + [case["text"] for name in NAMES for case in load(name)]


def test_the_claims_hold_on_the_corpora_and_the_suites() -> None:
    rng = random.Random(34)
    assert sum(_claims(t, rng) for t in _texts()) > 300


_VALUES = st.one_of(
    st.sampled_from(
        ["password", "api_key", "token", "Passwort", "пароль", "secret_prod", "CVV", " ", "  ", ": ", "=", "=>"]
        + [":=", "==", '"', "'", "`", "<token>", ">", "\n", "\t", "\x1c", "\x85", "\u00a0", "é", "x" * 250]
    ),
    st.text(st.sampled_from(list("aZ0_-.:=<>\"'` \n\x1f")), max_size=8),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_VALUES, max_size=14).map("".join), st.integers(0, 2**32))
def test_the_claims_hold_on_generated_texts(text: str, seed: int) -> None:
    _claims(text, random.Random(seed))


def test_a_streamed_value_is_not_asked_again() -> None:
    # Not vacuous: the claims fire (the probe is not asked after the value is complete, nor the match while it
    # streams), and a space ends it as the engine says.
    asked: list[str] = []
    r = Redactor()
    assert r._tracker is not None
    dets = r._tracker._detectors
    i = next(k for k, d in enumerate(dets) if d.first == "[:=>]" and d.entity == "LABELED_SECRET")
    for attr in ("_match", "_search"):
        fns = list(getattr(r._tracker, attr))
        inner = fns[i]

        def spy(view: str, pos: int, *a: Any, _inner: Any = inner, _attr: str = attr, **k: Any) -> Any:
            asked.append(_attr)
            return _inner(view, pos, *a, **k)

        fns[i] = spy
        setattr(r._tracker, attr, tuple(fns))
    r._quick_native = fastpath.compiled_feed(r._tracker, r._max_hold)
    out = [r.feed(p).text for p in ("api_key = ", "ab", "c", "defg", "hijk", "lmno", "pqrs")]
    assert asked.count("_search") == 0  # no probe at all
    asked_while_streaming = len(asked)
    assert asked_while_streaming <= 3  # "ab" (partial), "c" (complete: recorded), nothing after
    out.append(r.feed(" and more").text)
    out.append(r.flush().text)
    assert "".join(out) == "api_key = <LABELED_SECRET> and more"
