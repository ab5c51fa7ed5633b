"""The third-party `chunk-invariance` harness (PyPI, stdlib-only) run against our Redactor."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import chunk_invariance
import pytest
from chunk_invariance import ChunkInvarianceError, assert_chunk_invariant
from chunk_invariance.strategies import splits_of
from hypothesis import given

from sluicegate.redaction import Redactor, redact

from .corpus import JWT_SHORT, PEM


def redact_stream(chunks: Iterable[str]) -> Iterator[str]:
    """What a reader sees: released text, then the notice if the filter stopped."""
    r = Redactor()
    for chunk in chunks:
        step = r.feed(chunk)
        yield step.text
        if step.stopped:
            yield from (e.notice for e in step.events if hasattr(e, "notice"))
            return
    step = r.flush()
    yield step.text
    yield from (e.notice for e in step.events if hasattr(e, "notice"))


SAMPLES = [
    "use sk-proj-" + "A" * 30 + " now",
    "mail user@example.com, card 4111 1111 1111 1111.",
    "token " + JWT_SHORT + " ok",
    "key:\n" + PEM + "\nend",
    "open:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow",
    "请联系user@example.com谢谢",
]


def test_harness_version() -> None:
    assert chunk_invariance.__version__.startswith("0.2")


@pytest.mark.parametrize("text", SAMPLES)
def test_every_two_part_split(text: str) -> None:
    assert assert_chunk_invariant(redact_stream, redact, text) == len(text)


def test_every_three_part_split_of_a_split_email() -> None:
    assert assert_chunk_invariant(redact_stream, redact, "at user@exa.co!", splits=3) > 50


@given(splits_of(SAMPLES[1] + " " + SAMPLES[2]))
def test_harness_hypothesis_splits(chunks: list[str]) -> None:
    assert_chunk_invariant(redact_stream, redact, "".join(chunks), splits=[chunks])


def test_harness_catches_a_per_chunk_filter() -> None:
    """Control: the same harness fails a per-chunk design, so a pass above means something."""

    def per_chunk(chunks: Iterable[str]) -> Iterator[str]:
        for chunk in chunks:
            yield redact(chunk)

    with pytest.raises(ChunkInvarianceError):
        assert_chunk_invariant(per_chunk, redact, SAMPLES[1])
