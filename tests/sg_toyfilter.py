"""A tiny but real stream filter for adapter and driver tests (not a mock).

It holds text until ". " (or the end of the stream), releases each completed sentence, and stops for good on a
sentence that contains a forbidden word. Sentence ends depend only on the whole text, so it is chunk-invariant
(asserted in tests/core/test_driver.py). Built from `sources`, it also stops on a number found in none of
them (a toy grounding check over the numbered sources); it stands in for the SentenceGate where a test is about the plumbing.
"""

from __future__ import annotations

import re
from typing import Sequence

from sluicegate.stream import Done, Guard, Step, check_piece

NOTICE = "[answer withheld: failed verification]"


class HoldUntilPeriod:
    def __init__(
        self, forbidden: tuple[str, ...] = ("2019",), notice: str = NOTICE, sources: Sequence[str] | None = None
    ) -> None:
        self._forbidden = forbidden
        self._sources = None if sources is None else "\n".join(sources)
        self._notice = notice
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
            word = next((n for n in re.findall(r"\d+", re.sub(r"\[S\d+\]", "", sentence)) if n not in self._sources), None)
        return word

    def _stop(self, released: str, word: str) -> Step:
        self._stopped = self._done = True
        self._buf = ""
        self.violations.append(word)
        return Step(released, True, (Guard(("forbidden_word",), self._notice), Done("stopped")))

    def feed(self, piece: str) -> Step:
        check_piece(piece)
        if self._stopped or self._done:
            return Step(stopped=self._stopped)
        self._buf += piece
        out: list[str] = []
        while (i := self._buf.find(". ")) >= 0:
            sentence, self._buf = self._buf[: i + 2], self._buf[i + 2 :]
            word = self._bad(sentence)
            if word is not None:
                return self._stop("".join(out), word)
            out.append(sentence)
        return Step("".join(out))

    def flush(self, *, truncated: bool = False) -> Step:
        if self._stopped or self._done:
            return Step(stopped=self._stopped)
        tail, self._buf = self._buf, ""
        word = self._bad(tail)
        if word is not None:
            return self._stop("", word)
        self._done = True
        return Step(tail, False, (Done("truncated" if truncated else "complete"),))


def toy_factory(texts: Sequence[str]) -> HoldUntilPeriod:
    """A filter factory with the adapters' signature: the toy grounding filter over the numbered sources."""
    return HoldUntilPeriod(forbidden=(), sources=texts)
