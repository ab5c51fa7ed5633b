"""A tiny but real stream filter for adapter and driver tests (not a mock), used where a test is about plumbing.

It holds text until ". " (or the end of the stream), releases each completed sentence, and stops for good on a
sentence that contains a forbidden word. Built from `sources`, it also stops on a number found in none of them
(a toy grounding check over the numbered sources). Sentence ends are found on the accumulated buffer, never on
piece edges, so it is chunk-invariant (asserted in tests/test_support_filter.py and tests/core/test_driver.py).
"""

from __future__ import annotations

import asyncio
import re
from typing import Sequence

from sluicegate.stream import EMPTY_STEP, STOPPED_STEP, Done, Guard, Step, check_piece

NOTICE = "[answer withheld: failed verification]"
STOP_NOTICE = "The answer was stopped."


class HoldUntilPeriod:
    def __init__(
        self,
        forbidden: tuple[str, ...] = ("2019",),
        notice: str = NOTICE,
        sources: Sequence[str] | None = None,
        reason: str = "forbidden_word",
    ) -> None:
        self._forbidden = forbidden
        self._sources = None if sources is None else "\n".join(sources)
        self._notice = notice
        self._reason = reason
        self._buf = ""
        self._stopped = False
        self._done = False
        self.violations: list[str] = []

    @property
    def stopped(self) -> bool:
        return self._stopped

    @property
    def held(self) -> int:
        return len(self._buf)

    def _bad(self, sentence: str) -> str | None:
        """A forbidden word, or (given sources) a number that appears in none of them."""
        word = next((w for w in self._forbidden if w in sentence), None)
        if word is None and self._sources is not None:
            numbers = re.findall(r"\d+", re.sub(r"\[S\d+\]", "", sentence))
            word = next((n for n in numbers if n not in self._sources), None)
        return word

    def _stop(self, released: str, word: str) -> Step:
        self._stopped = self._done = True
        self._buf = ""
        self.violations.append(word)
        return Step(released, True, (Guard((self._reason,), self._notice), Done("stopped")))

    def feed(self, piece: str) -> Step:
        check_piece(piece)
        if self._stopped or self._done:
            return STOPPED_STEP if self._stopped else EMPTY_STEP
        self._buf += piece
        out: list[str] = []
        while (i := self._buf.find(". ")) >= 0:
            sentence, self._buf = self._buf[: i + 2], self._buf[i + 2 :]
            word = self._bad(sentence)
            if word is not None:
                return self._stop("".join(out), word)
            out.append(sentence)
        return Step("".join(out)) if out else EMPTY_STEP

    def flush(self, *, truncated: bool = False) -> Step:
        if self._stopped or self._done:
            return STOPPED_STEP if self._stopped else EMPTY_STEP
        tail, self._buf = self._buf, ""
        word = self._bad(tail)
        if word is not None:
            return self._stop("", word)
        self._done = True
        return Step(tail, False, (Done("truncated" if truncated else "complete"),))


class SentenceStopFilter(HoldUntilPeriod):
    """The same filter with the reason code and notice the NeMo and Guardrails AI tests expect."""

    def __init__(self, forbidden: tuple[str, ...] = ("2019",)) -> None:
        super().__init__(forbidden, notice=STOP_NOTICE, reason="forbidden")


def toy_factory(texts: Sequence[str]) -> HoldUntilPeriod:
    """A filter factory with the LangChain/LlamaIndex adapters' signature: toy grounding over the sources."""
    return HoldUntilPeriod(forbidden=(), sources=texts)


def make_stop_filter(context: object = None) -> SentenceStopFilter:
    """Factory in the shape the NeMo/Guardrails adapters take (they pass a context; ignored here)."""
    return SentenceStopFilter()

GOOD = "The report is ready. It covers the year 2018 only. Bye now."
BAD = "The report is ready. It covers the year 2019 only. Bye now."
BAD_RELEASED = "The report is ready. "  # what the whole-string filter releases for BAD


async def wait_closed(record: object, ticks: int = 300) -> int:
    """Async closure is finalizer-driven (eventual): poll the loop until the scripted model's generator closed.

    Returns the loop ticks it took (a measure); a loaded machine may finalize later, so after `ticks` it keeps
    waiting up to about five seconds before failing.
    """
    for tick in range(ticks):
        if getattr(record, "closed"):
            return tick
        await asyncio.sleep(0)
    for _ in range(500):
        if getattr(record, "closed"):
            return ticks
        await asyncio.sleep(0.01)
    raise AssertionError(f"model generator not closed after {ticks} loop ticks (produced {getattr(record, 'produced')})")
