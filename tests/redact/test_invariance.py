"""The contract: any chunking gives the whole-string text, stop flag and events (sluicegate.testing at every
two-part split, fixed sizes, random chunkings, and Hypothesis-generated chunkings).

Every test here runs three times: on the pure-`regex` path with the compiled feed and with the pure-Python feed
(the oracle; feed_paths.py), and with the compiled prefilter (the `[fast]` extra) asked on every check, whatever the
length of the range (skipped when hyperscan is not installed)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from itertools import pairwise
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate import Pipeline
from sluicegate.redaction import Hash, Redactor, prefilter, redact
from sluicegate.testing import assert_chunk_invariant, run_filter

from .corpus import CHINESE, CLEAN, JAPANESE, JWT_2K, LABELED, PEM, PERSIAN, POSITIVES, URL_WITH_CREDENTIALS
from .feed_paths import feed_path


@pytest.fixture(autouse=True, scope="module", params=["regex", "regex-python-feed", "hyperscan"])
def detection_path(request: pytest.FixtureRequest) -> Iterator[str]:
    """Module-scoped (Hypothesis tests must not depend on function-scoped fixtures); restores on exit. The
    regex path runs on both feed paths (feed_paths.py): the compiled feed and the pure-Python oracle."""
    if request.param.startswith("regex"):
        patch = mock.patch.object(Redactor, "_COMPILED", False)
    else:
        if not prefilter.available():
            pytest.skip("the optional [fast] extra (hyperscan) is not installed")
        patch = mock.patch.object(prefilter, "MIN_RANGE", 0)
    with patch, feed_path("python" if request.param == "regex-python-feed" else "compiled"):
        assert (Redactor()._engine.prefilter is not None) == (request.param == "hyperscan")
        yield request.param


_VALUES = [v for values in POSITIVES.values() for v in values] + [t for t, _, _ in LABELED] + [URL_WITH_CREDENTIALS[0]]

# Every detector, in prose, glued to non-ASCII text, adjacent to each other, in Chinese and Japanese.
FIXTURES = {
    "english-mix": "Reach me at user@exa" + "mple.com or +1 415 555 2671; card 4111 1111 1111 1111, "
    "IBAN DE89 3704 0044 0532 0130 00, ip 192.168.1.10 / 2001:db8::8a2e:370:7334.",
    "chinese-glued": "请联系user@example.com谢谢，卡号4111111111111111，电话+44 20 7946 0958。" + CHINESE[:40],
    "japanese-glued": JAPANESE[:30]
    + "メールはjane.doe@mail.example.co.ukです。SSN 536-22-1234、MAC 00:1A:2B:3C:4D:5E。",
    "persian-glued": PERSIAN[:40] + " ایمیل user@example.com و کارت ۴۱۱۱ ۱۱۱۱ ۱۱۱۱ ۱۱۱۱ است.",
    "secrets-env": "\n".join(
        f"KEY_{i}={v}" for i, v in enumerate(vs[0] for e, vs in POSITIVES.items() if e not in ("PRIVATE_KEY",))
    ),
    "labelled": " ".join(t for t, _, _ in LABELED) + " " + URL_WITH_CREDENTIALS[0],
    "adjacent": "a@b.com,c@d.org;192.168.0.1 4111111111111111\n536-22-1234",
    "pem": "key:\n" + PEM + "\nthat was it.",
    "jwt-2k": "token " + JWT_2K + " expires soon.",
    "disguised": "card 4111\u00a01111\u200b1111\u20091111, ｕｓｅｒ＠ｅｘａｍｐｌｅ．ｃｏｍ, \u200bsk-ant-api03-"
    + "x" * 30,
    "clean": " ".join(CLEAN[:6]),
    "near-misses": "user@exa mple.com 4111 1111 1111 111 DE89 3704 ---- -----BEGIN CERT eyJhbGci.",
    "digit-groups": "Card: 4111 1111 1111 1111 12/27; cards 4111111111111111 5555555555554444; Step 2 "
    "4111111111111111; ssn 123-45-6780 1 time; call 415-555-2671 2 times; Tel +44 20 7946 0958 2 lines.",
    "unterminated-pem-at-end": "begin\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI",
}


def _short(text: str) -> int:
    return min(len(text), 12)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_every_split_size_and_random_chunking(name: str) -> None:
    text = FIXTURES[name]
    run = assert_chunk_invariant(Redactor, text, max_size=_short(text), random_runs=15)
    assert run.text + ("" if not run.stopped else "") == redact(text)[: len(run.text)]


def test_whole_run_matches_redact_and_reveals_no_planted_value() -> None:
    for name, text in FIXTURES.items():
        whole = run_filter(Redactor, [text])
        if not whole.stopped:
            assert whole.text == redact(text), name
        for value in _VALUES:
            if value in text:
                assert value not in whole.text, (name, value)


@pytest.mark.parametrize("operator", ["mask", Hash(key=b"k" * 32), lambda e, raw: f"[{e.lower()}:{len(raw)}]"])
def test_operators_are_chunk_invariant(operator: object) -> None:
    make = functools.partial(Redactor, operator=operator)
    for name in ("english-mix", "disguised", "labelled"):
        assert_chunk_invariant(make, FIXTURES[name], max_size=6, random_runs=5)


def test_small_max_hold_stops_identically_for_every_chunking() -> None:
    make = functools.partial(Redactor, max_hold=64)
    run = assert_chunk_invariant(make, FIXTURES["jwt-2k"], max_size=8, random_runs=10)
    assert run.stopped and run.text == "token "


def test_pipeline_of_two_redactors_is_invariant() -> None:
    make = lambda: Pipeline(Redactor(entities=["EMAIL_ADDRESS"]), Redactor())  # noqa: E731
    assert_chunk_invariant(make, FIXTURES["english-mix"], max_size=5, random_runs=5)


@st.composite
def chunked(draw: st.DrawFn) -> tuple[str, list[str]]:
    text = draw(st.sampled_from(sorted(FIXTURES.values())))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=40)))
    bounds = [0, *cuts, len(text)]
    return text, [text[a:b] for a, b in pairwise(bounds)]


@functools.cache
def _whole_on(text: str, path: tuple[bool, int]):
    return run_filter(Redactor, [text])


def _whole(text: str):
    """Cached per detection path, so each path's chunkings are compared with its own whole run."""
    return _whole_on(text, (Redactor._COMPILED, prefilter.MIN_RANGE))


@given(chunked())
def test_hypothesis_chunkings_of_the_corpus(case: tuple[str, list[str]]) -> None:
    text, pieces = case
    got = run_filter(Redactor, pieces)
    want = _whole(text)
    assert (got.text, got.stopped, got.events) == (want.text, want.stopped, want.events)


_ALPHABET = st.sampled_from(
    list("ab@.-: 0123456789\u00a0\u200b\u200f\u2066\U000e0041﹫xyzKEY=-----BEGIN PRIVATEND\n谢") + _VALUES[:12]
)


@settings(max_examples=60)
@given(st.lists(_ALPHABET, max_size=30).map("".join), st.data())
def test_hypothesis_generated_text_and_chunking(text: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    pieces = [text[a:b] for a, b in pairwise(bounds)]
    make = functools.partial(Redactor, max_hold=48)
    got = run_filter(make, pieces)
    want = run_filter(make, [text])
    assert (got.text, got.stopped, got.events) == (want.text, want.stopped, want.events)
    one = run_filter(make, list(text))
    assert (one.text, one.stopped, one.events) == (want.text, want.stopped, want.events)
