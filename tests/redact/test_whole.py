"""`redact(text)` settles a whole string in one pass (whole.py) where it can prove the stream would not stop on it:
its output must be the stream's (`feed(text)` + `flush()`, and any other chunking) byte for byte.

Run on the pure-`regex` path (`_COMPILED = False`, as test_invariance.py switches hyperscan off) and with the
`[fast]` prefilter (skipped without hyperscan). Texts: the four generators of tests/benchmarks/corpora27.py,
issue 17's corpus, every case of the five suites in tests/redact/suites/ (one by one and strung together, with a
small `max_hold` too), texts that make the stream stop or open a key block (the one pass must decline), and
Hypothesis-generated texts and chunkings. tails.py's bound is checked against the engine's own partial search.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import pairwise
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Hash, Redactor, prefilter, redact, whole
from sluicegate.redaction.registry import select
from sluicegate.redaction.starters import BUILTIN_IDS
from sluicegate.redaction.whole import far_of
from tests.benchmarks import corpora27
from tests.benchmarks import corpus as corpus17

from . import suite_cases
from .corpus import JWT_2K, LABELED, PEM, POSITIVES


@pytest.fixture(autouse=True, scope="module", params=["regex", "regex-no-native", "hyperscan"])
def detection_path(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "regex":  # (with whole.py's candidates from the compiled extension, where it is built)
        patch = mock.patch.object(Redactor, "_COMPILED", False)
    elif request.param == "regex-no-native":
        with mock.patch.object(whole, "NATIVE", False), mock.patch.object(Redactor, "_COMPILED", False):
            yield request.param
        return
    else:
        if not prefilter.available():
            pytest.skip("the optional [fast] extra (hyperscan) is not installed")
        patch = mock.patch.object(Redactor, "_COMPILED", True)
    with patch:
        assert (Redactor()._engine.prefilter is not None) == (request.param == "hyperscan")
        yield request.param


def streamed(pieces: list[str], **kw: object) -> str:
    """What `redact` returned before the one pass: the stream's released text, then the notice if it stopped."""
    r = Redactor(**kw)  # type: ignore[arg-type]
    out = []
    for p in pieces:
        step = r.feed(p)
        out.append(step.text)
        if step.stopped:
            return "".join(out) + r._notice
    step = r.flush()
    return "".join(out) + step.text + (r._notice if step.stopped else "")


def one_pass(text: str, **kw: object) -> str | None:
    """The one pass alone (None where it declines)."""
    return Redactor(**kw)._redact_whole(text)  # type: ignore[arg-type]


def _hide(entity: str, raw: str) -> str:
    return f"<{entity}:{len(raw)}>"


CORPORA = {name: make(48 * 1024) for name, make in corpora27.CORPORA.items()}
CORPORA["issue17-planted"] = corpus17.planted(48 * 1024).text
CORPORA["issue17-prose"] = corpus17.prose(48 * 1024)


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_corpora_whole_equals_stream_and_the_one_pass_is_taken(name: str) -> None:
    text = CORPORA[name]
    got = one_pass(text, operator=_hide)
    assert got is not None, "the one pass declined a corpus it should certify"
    assert got == streamed([text], operator=_hide)
    assert redact(text, operator=_hide) == got
    # and chunked the way a stream comes (the contract the one pass relies on)
    rng = random.Random(len(text))
    cuts = sorted(rng.sample(range(1, len(text)), 300))
    assert streamed([text[a:b] for a, b in pairwise([0, *cuts, len(text)])], operator=_hide) == got


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_corpora_with_a_small_max_hold(name: str) -> None:
    text = CORPORA[name][: 12 * 1024]
    for hold in (300, 1024):
        assert redact(text, max_hold=hold) == streamed([text], max_hold=hold)


def test_hash_operator_and_allow_list_give_the_streams_values() -> None:
    text = CORPORA["json"][:20000] + " " + CORPORA["multilingual"][:20000]
    allow = ["user@example.com"]
    op = Hash(key=b"k" * 32)
    assert redact(text, operator=op, allow=allow) == streamed([text], operator=Hash(key=b"k" * 32), allow=allow)


@pytest.mark.parametrize("suite", suite_cases.NAMES)
def test_every_suite_case(suite: str) -> None:
    cases = suite_cases.load(suite)
    for case in cases:
        text = case["text"]
        assert redact(text, operator=_hide) == streamed([text], operator=_hide), text[:200]
    joined = "\n".join(c["text"] for c in cases)
    for hold in (8192, 512):
        assert redact(joined, operator=_hide, max_hold=hold) == streamed([joined], operator=_hide, max_hold=hold)


LONG_TOKEN = "tok " + "A" * 9000 + " end"
STOPS = {
    "long-base64": "data " + "QUJD" * 3000 + " done",
    "unterminated-pem": "before\n" + PEM.split("-----END")[0] + "and no end line",
    "pem-whole": "key:\n" + PEM + "\nthat was it. " * 50,
    "long-labelled": "password=" + "x" * 9000,
    "jwt-2k-small-hold": "token " + JWT_2K + " expires soon.",
}


@pytest.mark.parametrize("name", sorted(STOPS))
def test_texts_that_stop_or_hold_a_block(name: str) -> None:
    text = STOPS[name]
    for hold in (8192, 1000, 64):
        want = streamed([text], max_hold=hold)
        assert redact(text, max_hold=hold) == want
        got = one_pass(text, max_hold=hold)
        assert got is None or got == want
        if want.endswith(Redactor()._notice):
            assert got is None  # a stop is never certified away


_VALUES = [v for values in POSITIVES.values() for v in values] + [t for t, _, _ in LABELED]
_ALPHABET = st.sampled_from(
    list("ab@.-:= \"'\n0123456789\u00a0\u200bxyz,{}[]()<>") + ["password: ", 'api_key = "', "-----BEGIN "] + _VALUES
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_ALPHABET, max_size=120).map("".join), st.integers(8, 400), st.data())
def test_hypothesis_whole_equals_every_chunking(text: str, hold: int, data: st.DataObject) -> None:
    want = streamed([text], max_hold=hold)
    assert redact(text, max_hold=hold) == want
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=12)))
    assert streamed([text[a:b] for a, b in pairwise([0, *cuts, len(text)])], max_hold=hold) == want


@settings(max_examples=60, deadline=None)
@given(st.lists(_ALPHABET, min_size=40, max_size=400).map("".join), st.integers(0, 10**6))
def test_far_bounds_every_open_path_the_engine_reports(text: str, seed: int) -> None:
    """No path from q or before may run into the end of any prefix that ends at or after `far(text, q)`:
    the probe's partial search (the engine's own open start) on that prefix never starts at or before q."""
    rng = random.Random(seed)
    for d in select(None):
        far = far_of(d, id(d) in BUILTIN_IDS)
        if far is None:
            continue
        if d.opener_rx is not None and d.opener_rx.search(text) is not None:
            continue  # the block's bound holds only without an opener (whole.py checks)
        for _ in range(3):
            q = rng.randrange(len(text))
            f = far(text, q)
            if f is None:
                continue
            for end in {f, rng.randint(f, len(text))}:
                m = d.probe.search(text[:end], partial=True)
                assert m is None or m.start() > q, (d.entity, q, f, end)


def test_prefilter_declines_by_its_byte_count_exactly_where_its_scan_would() -> None:
    """`Prefilter.hits` counts its one-character triggers before scanning: the answer must be the scan's."""
    if not prefilter.available():
        pytest.skip("the optional [fast] extra (hyperscan) is not installed")
    pf = prefilter.shared(select(None))
    assert pf is not None and pf._singles
    texts = [*CORPORA.values(), ":" * 600, "a:" * 400, "x" * 2000 + '"' * 300, STOPS["pem-whole"]]
    for text in texts:
        for lo in (0, 7, len(text) // 2):
            for end in (len(text), min(len(text), lo + 600), min(len(text), lo + 5000)):
                view = text[:end]
                got = pf.hits(view, lo)
                with mock.patch.object(pf, "_singles", ()):
                    assert pf.hits(view, lo) == got
