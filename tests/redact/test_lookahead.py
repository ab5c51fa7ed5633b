"""`Redactor.feed(piece, lookahead=...)`: the promised start of what follows settles values that end where the
piece ends, and never changes what is released, only when.

The oracle is the Redactor without lookahead on the whole text (`redact`-style, one feed and a flush): fed in
any chunking, each piece with a true prefix of the rest as its lookahead (of any length, also none), the
released text, the stop and the events are the oracle's; a stream that ends (or is cut short) right after a
lookahead was given is the oracle's on the text up to there. Run on the compiled feed and on the pure path,
with the pure-`regex` detection and with the hyperscan prefilter asked on every check.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator, Sequence
from itertools import pairwise
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate import Step
from sluicegate.redaction import Redactor, prefilter
from sluicegate.testing import Run, run_filter

from .corpus import JWT_SHORT, LABELED, PEM, POSITIVES


@pytest.fixture(autouse=True, scope="module", params=["native", "pure", "straightforward", "hyperscan"])
def detection_path(request: pytest.FixtureRequest) -> Iterator[str]:
    """Module-scoped (Hypothesis tests must not depend on function-scoped fixtures); restores on exit.
    "straightforward": every detector asked on every check (no tracker), the differential tests' reference."""
    if request.param == "native":
        patch = mock.patch.object(Redactor, "_COMPILED", False)
    elif request.param == "pure":
        patch = mock.patch.multiple(Redactor, _COMPILED=False, _NATIVE=False)
    elif request.param == "straightforward":
        patch = mock.patch.multiple(Redactor, _COMPILED=False, _NATIVE=False, _FAST=False)
    else:
        if not prefilter.available():
            pytest.skip("the optional [fast] extra (hyperscan) is not installed")
        patch = mock.patch.object(prefilter, "MIN_RANGE", 0)
    with patch:
        if request.param == "native":
            from sluicegate.redaction import redactor as module

            if module._native is None:
                pytest.fail("the compiled feed is not built: python setup.py build_ext --inplace")
            assert Redactor()._quick_native is not None
        if request.param in ("pure", "straightforward"):
            assert Redactor()._quick_native is None
        assert (Redactor()._tracker is None) == (request.param == "straightforward")
        yield request.param


_VALUES = [v for e, values in POSITIVES.items() if e != "PRIVATE_KEY" for v in values]
_VALUES += [t for t, _, _ in LABELED]

# Values at the end of a sentence, in the middle of one, glued to punctuation, in several scripts.
TEXTS = [
    "The library opens at 9:00 on weekdays. Write to jane.doe@example.com. Call +1 415 555 2671! Bye.",
    "Le numéro est le +33 1 42 68 53 00. L'IBAN est FR14 2004 1010 0505 0001 3M02 606. Merci.",
    "Die IBAN lautet DE89 3704 0044 0532 0130 00.\n\nSchreiben Sie an info@example.de, bitte.",
    "Позвоните по номеру +7 495 123-45-67. Почта: ivan@example.ru. Спасибо.",
    "请联系user@example.com。卡号4111111111111111。谢谢。",
    "Key AKIAIOSFODNN7EXAMPLE. Token " + JWT_SHORT + ". Done [S1].",
    "Address 192.168.1.10. Or 2001:db8::8a2e:370:7334. MAC 00:1A:2B:3C:4D:5E.\nEnd",
    "password: hunter2! Then DATABASE_PASSWORD=s3cr3t-value\n\nok",
    "block:\n" + PEM + "\nthat was it. Mail a@b.co.",
    "card 4111 1111 1111 1111 12/27. ssn 536-22-1234. weekdays.",
]


def _whole(text: str, *, truncated: bool = False, max_hold: int = 8192) -> Run:
    path = (Redactor._COMPILED, Redactor._NATIVE, Redactor._FAST, prefilter.MIN_RANGE)
    return _whole_on(text, truncated, max_hold, path)


@functools.cache
def _whole_on(text: str, truncated: bool, max_hold: int, path: tuple[bool, bool, bool, int]) -> Run:
    return run_filter(functools.partial(Redactor, max_hold=max_hold), [text], truncated=truncated)


def _run_ahead(
    text: str, cuts: Sequence[int], sizes: Sequence[int], *, end: int | None = None, **kw: object
) -> tuple[Run, Redactor]:
    """Feed text[:end] cut at `cuts`, each piece with the next `sizes[k]` characters of the text (to its end, not
    `end`: a stream that ends early had promised more) as its lookahead; then flush."""
    end = len(text) if end is None else end
    truncated = bool(kw.pop("truncated", False))
    r = Redactor(**kw)  # type: ignore[arg-type]
    bounds = [0, *sorted(c for c in cuts if c < end), end]
    out: list[str] = []
    events: list[object] = []
    stopped = False
    for k, (a, b) in enumerate(pairwise(bounds)):
        step = r.feed(text[a:b], lookahead=text[b : b + sizes[k % len(sizes)]])
        out.append(step.text)
        events.extend(step.events)
        if step.stopped:
            stopped = True
            break
    if not stopped:
        step = r.flush(truncated=truncated)
        out.append(step.text)
        events.extend(step.events)
        stopped = step.stopped
    return Run("".join(out), stopped, tuple(events), 0), r  # type: ignore[arg-type]


def _same(got: Run, want: Run) -> None:
    assert (got.text, got.stopped, got.events) == (want.text, want.stopped, want.events)


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_every_split_with_every_lookahead_length_is_the_oracle(text: str) -> None:
    want = _whole(text)
    for cut in range(len(text) + 1):
        for size in (0, 1, 2, 3, 8):
            got, _ = _run_ahead(text, [cut], [size])
            _same(got, want)


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_a_stream_that_ends_after_a_lookahead_is_the_oracle_of_its_prefix(text: str) -> None:
    """The promise is about the next piece *if any*: the stream may end (or be cut short) right after it."""
    for end in range(len(text) + 1):
        for truncated in (False, True):
            want = _whole(text[:end], truncated=truncated)
            got, _ = _run_ahead(text, [end], [3], end=end, truncated=truncated)
            _same(got, want)


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_random_chunkings_with_random_lookaheads(text: str) -> None:
    rng = random.Random(len(text))
    want = _whole(text)
    for _ in range(30):
        cuts = sorted(rng.sample(range(len(text) + 1), rng.randint(1, min(12, len(text)))))
        sizes = [rng.choice((0, 1, 2, 3, 5)) for _ in range(8)]
        got, _ = _run_ahead(text, cuts, sizes)
        _same(got, want)


_ALPHABET = st.sampled_from(list("ab@.-: 0123456789\n\u00a0\u200b谢KEY=") + _VALUES[:16] + [". ", "! ", "\n\n"])


@settings(max_examples=80, deadline=None)
@given(st.lists(_ALPHABET, max_size=30).map("".join), st.data())
def test_hypothesis_texts_chunkings_and_lookaheads_with_a_small_hold(text: str, data: st.DataObject) -> None:
    """A small `max_hold` makes open values stop the stream: the stop comes where it would without lookahead."""
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    sizes = data.draw(st.lists(st.integers(0, 4), min_size=1, max_size=6))
    end = data.draw(st.integers(0, len(text)))
    truncated = data.draw(st.booleans())
    for max_hold in (24, 8192):
        got, _ = _run_ahead(text, cuts, sizes, max_hold=max_hold)
        _same(got, _whole(text, max_hold=max_hold))
        early, _ = _run_ahead(text, cuts, sizes, end=end, truncated=truncated, max_hold=max_hold)
        _same(early, _whole(text[:end], truncated=truncated, max_hold=max_hold))


@pytest.mark.parametrize(
    ("piece", "ahead", "shown"),
    [
        ("The library opens at 9:00 on weekdays.", " W", "The library opens at 9:00 on weekdays."),
        ("Write to jane.doe@example.com.", " C", "Write to <EMAIL_ADDRESS>."),
        ("Call +1 415 555 2671!", "\n\nB", "Call <PHONE_NUMBER>!"),
        ("IBAN DE89 3704 0044 0532 0130 00.", " T", "IBAN <IBAN_CODE>."),
        ("Key AKIAIOSFODNN7EXAMPLE.", " T", "Key <AWS_ACCESS_KEY>."),
        ("Schreiben Sie an info@example.de.", "\n\nD", "Schreiben Sie an <EMAIL_ADDRESS>."),
        ("Позвоните: +7 495 123-45-67.", " П", "Позвоните: <PHONE_NUMBER>."),
    ],
)
def test_a_value_that_ends_a_sentence_is_settled_by_the_lookahead(piece: str, ahead: str, shown: str) -> None:
    assert Redactor().feed(piece).text != shown  # without it, the end is held: it could still grow
    assert Redactor().feed(piece, lookahead=ahead).text == shown


def test_a_value_the_lookahead_continues_stays_held() -> None:
    """`415 555` followed by ` 2671` is one phone number: nothing of it is released early."""
    r = Redactor()
    assert r.feed("Call +1 415 555", lookahead=" 2").text == "Call "
    assert r.feed(" 2671 now.").text + r.flush().text == "<PHONE_NUMBER> now."


def test_a_broken_promise_is_an_error_and_stops() -> None:
    r = Redactor()
    r.feed("Write to a@b.com.", lookahead=" N")
    with pytest.raises(ValueError, match="lookahead"):
        r.feed("Xext.")
    assert r.stopped and r.feed("more") == Step(stopped=True)


def test_a_piece_shorter_than_the_promise_keeps_the_rest_of_it() -> None:
    r = Redactor()
    r.feed("a.", lookahead="\n\nNe")
    r.feed("\n")
    with pytest.raises(ValueError, match="lookahead"):
        r.feed(" Ne")


def test_without_lookahead_nothing_changes() -> None:
    """Steps of the plain path are the same objects as before (the compiled feed's `EMPTY_STEP`/`Step`)."""
    r = Redactor()
    assert r.feed("hello wor") == Step("hello ")
    assert r.feed("ld") == Step()
    assert r.flush().text == "world"


@pytest.mark.parametrize("size", [0, 1, 2, 3])
def test_a_stop_inside_the_lookahead_still_happens_there(size: int) -> None:
    """`b…b.` is still an open address when the held text reaches `max_hold`, and the space after it would have
    closed it: the plain filter stops there, so the lookahead must not settle it first."""
    text = "b" * 23 + ". Next sentence."
    want = _whole(text, max_hold=24)
    assert want.stopped
    for cut in range(len(text) + 1):
        got, _ = _run_ahead(text, [cut], [size], max_hold=24)
        _same(got, want)


@pytest.mark.parametrize("size", [8, 9, 20])
def test_a_cut_short_token_whose_key_name_the_lookahead_would_settle_is_replaced_from_its_start(size: int) -> None:
    """`aws_secret_access_key = <40 chars>`: the lookahead makes the value 41 characters (no AWS key any more)
    but the stream is cut short before it. A truncated flush replaces the open AWS token from its value start,
    found by a search that starts at its key name; the lookahead released the key name first, so the flush no
    longer found that token and reported a LABELED_SECRET instead: the text differed from the oracle's."""
    text = "1 aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY8123456789:Fc"
    end = 59
    want = _whole(text[:end], truncated=True)
    assert "<AWS_SECRET_KEY>" in want.text
    for cut in range(end + 1):
        got, _ = _run_ahead(text, [cut], [size], end=end, truncated=True)
        _same(got, want)
