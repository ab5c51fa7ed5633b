"""A tiny but real stream filter for adapter and driver tests (not a mock), used where a test is about plumbing.

It holds text until ". " (or the end of the stream), releases each completed sentence, and stops for good on a
sentence that contains a forbidden word. Built from `sources`, it also stops on a number found in none of them
(a toy grounding check over the numbered sources). Sentence ends are found on the accumulated buffer, never on
piece edges, so it is chunk-invariant (asserted in tests/test_support_filter.py and tests/core/test_driver.py).
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeVar

from sluicegate._stream import EMPTY_STEP, STOPPED_STEP, Done, Guard, Step, check_piece

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]
NOTICE = "[answer withheld: failed verification]"
# What a reader is shown after released text: the notice set off as a paragraph (sluicegate._driver)
SHOWN_NOTICE = "\n\n" + NOTICE
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
BAD_SHOWN = BAD_RELEASED + "\n\n" + STOP_NOTICE  # what a reader of any adapter's stream sees for BAD


def shown_text(factory: Callable[[], Any], text: str) -> str:
    """What a reader sees for `text` filtered whole: released text, then the notice after a stop."""
    from sluicegate._driver import drive_text

    return "".join(drive_text([text], factory()))


async def cancel_consumer(stream: Any, *, in_body: bool, ticks: int = 50) -> None:
    """Read `stream` in a task and cancel it after the first chunk: while the loop body awaits something
    (`in_body`), or while the task waits in `__anext__`. Then let the loop finalise what `async for` dropped."""
    started = asyncio.Event()

    async def consume() -> None:
        async for _ in stream:
            started.set()
            if in_body:
                await asyncio.sleep(3600)

    task = asyncio.create_task(consume())
    await started.wait()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    for _ in range(ticks):
        await asyncio.sleep(0)


async def wait_closed(record: object, ticks: int = 300) -> int:
    """Async closure is finalizer-driven (eventual): poll the loop until the scripted model's generator closed.

    Returns the loop ticks it took (a measure); a loaded machine may finalize later, so after `ticks` it keeps
    waiting up to about five seconds before failing.
    """
    for tick in range(ticks):
        if record.closed:
            return tick
        await asyncio.sleep(0)
    for _ in range(500):
        if record.closed:
            return ticks
        await asyncio.sleep(0.01)
    raise AssertionError(f"model generator not closed after {ticks} loop ticks (produced {record.produced})")


@dataclass
class Record:
    """What a scripted model did: prompts, pieces produced, whether its stream ran to the end or was closed."""

    prompts: list[str] = field(default_factory=list)
    produced: int = 0
    texts: list[str] = field(default_factory=list)
    exhausted: bool = False
    closed: bool = False

    @property
    def produced_text(self) -> str:
        return "".join(self.texts)

    def _took(self, piece: str | None) -> None:
        if piece is not None:  # None: an item that carries no text piece (e.g. a final usage chunk)
            self.produced += 1
            self.texts.append(piece)

    def stream(self, items: Iterable[tuple[str | None, T]]) -> Iterator[T]:
        """Yield each `(piece, item)`'s item, counting pieces; `closed` however it ends, `exhausted` if it ran out."""
        try:
            for piece, item in items:
                self._took(piece)
                yield item
            self.exhausted = True
        finally:
            self.closed = True

    async def astream(self, items: Iterable[tuple[str | None, T]]) -> AsyncIterator[T]:
        """The async twin of `stream`, yielding to the loop before each item like a network stream."""
        try:
            for piece, item in items:
                await asyncio.sleep(0)
                self._took(piece)
                yield item
            self.exhausted = True
        finally:
            self.closed = True


def run_example(name: str, *, drop_env: Sequence[str] = (), timeout: float = 300) -> str:
    """Run `examples/<name>` in a fresh interpreter with this checkout's code; return its stdout (must exit 0)."""
    env = {k: v for k, v in os.environ.items() if k not in drop_env}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "integrations")])
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)], capture_output=True, text=True, env=env, timeout=timeout
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def import_error_without(framework: str, adapter: str) -> str:
    """The ImportError message of `import adapter` in a fresh interpreter where `framework` cannot be imported."""
    code = (
        f"import sys; sys.modules[{framework!r}] = None\n"
        f"try:\n    import {adapter}\nexcept ImportError as e:\n    print(e)\n    raise SystemExit(3)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "integrations")])}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert proc.returncode == 3, f"import {adapter} did not fail: {proc.stderr}"
    return proc.stdout


def pieces_to_cover(pieces: Sequence[str], end: int) -> int:
    """How many pieces a model must produce before the text up to `end` is complete."""
    total = 0
    for n, piece in enumerate(pieces, start=1):
        total += len(piece)
        if total >= end:
            return n
    return len(pieces)


def drawn_pieces(data: Any, text: str, max_cuts: int = 20) -> list[str]:
    """A Hypothesis-chosen chunking of `text` (`data` is `st.data()`); empty pieces included, as models send them."""
    from hypothesis import strategies as st

    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=max_cuts)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in pairwise(bounds)]
