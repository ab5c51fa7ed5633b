"""A real, tiny stream filter for adapter tests, used until the SentenceGate lands (and kept as a second filter).

It holds text until a sentence boundary `". "` (period + space), releases each sentence that passed, and stops
for good on the first sentence that contains a forbidden word. Chunk-invariant by construction: boundaries are
found on the accumulated buffer, never on piece edges (the test in `tests/test_support_filter.py` asserts it).
"""

from __future__ import annotations

from sluicegate.stream import EMPTY_STEP, STOPPED_STEP, Done, Guard, Step, check_piece

NOTICE = "The answer was stopped."


class SentenceStopFilter:
    """Release text sentence by sentence ("... . "); stop on a sentence containing a forbidden word."""

    def __init__(self, forbidden: tuple[str, ...] = ("2019",)) -> None:
        self._forbidden = forbidden
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

    def _bad(self, sentence: str) -> bool:
        return any(word in sentence for word in self._forbidden)

    def _stop(self, released: str, sentence: str) -> Step:
        self._stopped = True
        self._buf = ""
        self.violations.append(f"forbidden word in a sentence of {len(sentence)} chars")
        return Step(released, True, (Guard(("forbidden",), NOTICE), Done("stopped")))

    def feed(self, piece: str) -> Step:
        check_piece(piece)
        if self._stopped or self._done:
            return STOPPED_STEP if self._stopped else EMPTY_STEP
        self._buf += piece
        out: list[str] = []
        while (i := self._buf.find(". ")) >= 0:
            sentence, self._buf = self._buf[: i + 2], self._buf[i + 2 :]
            if self._bad(sentence):
                return self._stop("".join(out), sentence)
            out.append(sentence)
        return Step("".join(out)) if out else EMPTY_STEP

    def flush(self, *, truncated: bool = False) -> Step:
        if self._stopped or self._done:
            return STOPPED_STEP if self._stopped else EMPTY_STEP
        tail, self._buf = self._buf, ""
        if self._bad(tail):
            return self._stop("", tail)
        self._done = True
        return Step(tail, False, (Done("truncated" if truncated else "complete"),))


def make_stop_filter(context: object = None) -> SentenceStopFilter:
    """Factory in the shape the adapters take (NeMo passes the rail context; ignored here)."""
    return SentenceStopFilter()


GOOD = "The report is ready. It covers the year 2018 only. Bye now."
BAD = "The report is ready. It covers the year 2019 only. Bye now."
BAD_RELEASED = "The report is ready. "  # what the whole-string filter releases for BAD
