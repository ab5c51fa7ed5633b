"""Filters for the replay tests, loaded by the CLI through `--filter tests.cli.filters:NAME`.

`per_piece` is deliberately chunk-dependent: it looks for a forbidden word inside each piece on its own, as a
guard that checks chunks would (langchain4j#4316), so a word split across pieces slips through. The replay
must flag every record where that changes the outcome.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sluicegate import Done, Guard, Pipeline, SentenceGate, Step

WORD = "forbidden"


class PerPiece:
    """Stops when one piece contains WORD. Breaks the contract on purpose."""

    def __init__(self) -> None:
        self._stopped = False
        self._done = False

    @property
    def stopped(self) -> bool:
        return self._stopped

    def feed(self, piece: str) -> Step:
        if self._done:
            return Step(stopped=self._stopped)
        if WORD in piece:
            self._stopped = self._done = True
            return Step(stopped=True, events=(Guard(("forbidden_word",), "[withheld]"), Done("stopped")))
        return Step(text=piece)

    def flush(self, *, truncated: bool = False) -> Step:
        if self._done:
            return Step(stopped=self._stopped)
        self._done = True
        return Step(events=(Done("truncated" if truncated else "complete"),))


class WordStop(PerPiece):
    """Chunk-invariant twin: stops at WORD wherever the pieces were cut (holds a short tail)."""

    def __init__(self, word: str = WORD) -> None:
        super().__init__()
        self.word = word
        self._held = ""

    def feed(self, piece: str) -> Step:
        if self._done:
            return Step(stopped=self._stopped)
        text = self._held + piece
        if self.word in text:
            self._stopped = self._done = True
            before = text[: text.index(self.word)]
            return Step(before, True, (Guard(("forbidden_word",), "[withheld]"), Done("stopped")))
        keep = len(self.word) - 1
        self._held = text[-keep:] if keep else ""
        return Step(text=text[: len(text) - len(self._held)])

    def flush(self, *, truncated: bool = False) -> Step:
        if self._done:
            return Step(stopped=self._stopped)
        self._done = True
        text, self._held = self._held, ""
        return Step(text=text, events=(Done("truncated" if truncated else "complete"),))


def per_piece(record: Mapping[str, Any]) -> PerPiece:
    return PerPiece()


def stricter(record: Mapping[str, Any]) -> Pipeline:
    """ "Version B" of a gate: the sentence gate, then a rule that stops on the word "opens"."""
    return Pipeline(SentenceGate(record["sources"], language=record["language"]), WordStop("opens"))


def not_a_filter(record: Mapping[str, Any]) -> str:
    return "oops"


def explodes(record: Mapping[str, Any]) -> PerPiece:
    if "boom" in record["question"]:
        raise RuntimeError("factory failed")
    return PerPiece()


class QuotingFailure:
    """Raises with the text it was fed in its message, as a careless filter would: the report must not carry
    a secret through the error string (violation details are redacted; so must this be)."""

    stopped = False

    def feed(self, piece: str) -> Step:
        raise ValueError(f"cannot judge {piece!r}")

    def flush(self, *, truncated: bool = False) -> Step:
        return Step()
