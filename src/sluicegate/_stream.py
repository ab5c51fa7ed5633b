"""The stream-filter contract: value objects a filter returns, the protocol it follows, and `Pipeline`.

A filter is a sans-I/O state machine (the h11 style): the caller feeds it pieces of a streamed answer and
appends whatever each call releases to what the reader sees. Nothing here knows where text comes from.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Literal, Protocol, Union, runtime_checkable

DoneReason = Literal["complete", "stopped", "truncated", "refused", "cancelled"]
DONE_REASONS: tuple[str, ...] = ("complete", "stopped", "truncated", "refused", "cancelled")


@dataclass(frozen=True)
class Guard:
    """The stream was stopped by a check. Carries reason *codes* and a fixed notice, never blocked text."""

    reasons: tuple[str, ...]
    notice: str


@dataclass(frozen=True)
class Done:
    """The stream is over, and why. Exactly one per stream, always the last event."""

    reason: str

    def __post_init__(self) -> None:
        if self.reason not in DONE_REASONS:
            raise ValueError(f"Done reason must be one of {DONE_REASONS}, got {self.reason!r}")


Event = Union[Guard, Done]  # noqa: UP007 - a runtime alias, evaluated on Python 3.10 too


@dataclass(frozen=True)
class Step:
    """What one `feed`/`flush` call produced: text to append for the reader, the stop flag, events in order.

    `lookahead` is context, never text to show: a promise that if the filter releases anything more, it begins
    with these characters. A filter that knew what follows its released text (the sentence gate saw the next
    sentence start, which is how it knew the last one had ended) hands it on, so that the next stage of a
    `Pipeline` can settle its own decision at the end of that text now instead of one release later. It is not
    part of a step's value (`==` and `repr` leave it out): the contract compares text, stop and events.
    """

    text: str = ""
    stopped: bool = False
    events: tuple[Event, ...] = field(default_factory=tuple)
    lookahead: str = field(default="", compare=False, repr=False)


EMPTY_STEP = Step()
STOPPED_STEP = Step(stopped=True)


@runtime_checkable
class StreamFilter(Protocol):
    """What every filter implements. Stop is sticky: once stopped, `feed` and `flush` return empty steps."""

    def feed(self, piece: str) -> Step: ...

    def flush(self, *, truncated: bool = False) -> Step: ...

    @property
    def stopped(self) -> bool: ...


def reads_lookahead(stage: object) -> bool:
    """Does `stage.feed` take a `lookahead` keyword (`feed(piece, *, lookahead="")`)? Such a stage may read the
    previous stage's `Step.lookahead`; any other filter is fed as before."""
    feed = getattr(stage, "feed", None)
    if feed is None:
        return False
    try:
        parameter = inspect.signature(feed).parameters.get("lookahead")
    except (TypeError, ValueError):  # no signature to read (a builtin): fed without it
        return False
    return parameter is not None and parameter.kind in (parameter.KEYWORD_ONLY, parameter.POSITIONAL_OR_KEYWORD)


def check_piece(piece: object) -> str:
    """Reject non-`str` pieces with a message that says what to do (bytes are the usual mistake)."""
    if isinstance(piece, str):
        return piece
    if isinstance(piece, (bytes, bytearray, memoryview)):
        raise TypeError(
            "stream filters take str pieces, got bytes: decode them first "
            "(sluicegate.Utf8Decoder keeps a character split across chunks intact)"
        )
    raise TypeError(f"stream filters take str pieces, got {type(piece).__name__}")


# When several filters each end the stream, the pipeline reports the most telling reason.
_DONE_PRIORITY = {"stopped": 4, "refused": 3, "cancelled": 2, "truncated": 1, "complete": 0}


class Pipeline:
    """Chain filters: each is fed the text the previous one released. Invariant if every stage is.

    Inner `Done` events are folded into one `Done` at the end (a stop wins over a refusal, which wins over a
    truncation). When a later stage stops on text an earlier stage released just before stopping itself,
    only the later stage's `Guard` and end reason are reported: its stop comes first in reading order. When an
    early stage stops, the later stages still flush what they hold, since that text was already approved
    upstream; when a later stage stops, the earlier stages' held text is dropped.

    Lookahead: a stage whose `feed` takes a `lookahead` keyword (`reads_lookahead`) is fed the previous stage's
    `Step.lookahead` with its text (the gate's next-sentence start, for the Redactor), and the pipeline's own
    `feed` takes one for its first stage; the pipeline's step carries its last stage's. It is never released.
    """

    def __init__(self, *filters: StreamFilter) -> None:
        if not filters:
            raise ValueError("Pipeline needs at least one filter")
        self._filters = filters
        self._reads = tuple(reads_lookahead(f) for f in filters)
        self._stopped = False
        self._done = False

    @property
    def stopped(self) -> bool:
        return self._stopped

    @property
    def filters(self) -> tuple[StreamFilter, ...]:
        return self._filters

    @property
    def violations(self) -> tuple[object, ...]:
        """The stages' server-side violation details, in stage order (stages without any count as none)."""
        return tuple(v for f in self._filters for v in getattr(f, "violations", ()))

    @property
    def held(self) -> int:
        """Characters held across stages (stages without a `held` count as 0)."""
        return sum(int(getattr(f, "held", 0)) for f in self._filters)

    def feed(self, piece: str, *, lookahead: str = "") -> Step:
        check_piece(piece)
        check_piece(lookahead)
        if self._stopped or self._done:
            return STOPPED_STEP if self._stopped else EMPTY_STEP
        return self._run(piece, final=False, truncated=False, lookahead=lookahead)

    def flush(self, *, truncated: bool = False) -> Step:
        if self._stopped or self._done:
            return STOPPED_STEP if self._stopped else EMPTY_STEP
        return self._run("", final=True, truncated=truncated)

    def _run(self, piece: str, *, final: bool, truncated: bool, lookahead: str = "") -> Step:
        events: list[Event] = []
        dones: list[Done] = []
        text = piece
        stop_at: int | None = None
        for index, stage in enumerate(self._filters):
            if not text:
                step = EMPTY_STEP
            elif lookahead and self._reads[index] and not final:
                step = stage.feed(text, lookahead=lookahead)  # type: ignore[call-arg]
            else:
                step = stage.feed(text)
            # What this stage promises about its next release; moot once it is flushed or stopped.
            lookahead = step.lookahead
            if step.stopped and stop_at is not None:
                # This stage stopped inside text an earlier stage released before its own stop: that is the
                # first stop in reading order, so it alone is reported (as a chunked run would see it).
                events, dones = [e for e in events if not isinstance(e, Guard)], []
            self._collect(step, events, dones)
            text = step.text
            if step.stopped:
                stop_at = index if stop_at is None else stop_at
                final = True  # later stages have now seen all this stage will ever release
                continue
            if final:
                end = stage.flush(truncated=truncated and stop_at is None)
                if end.stopped and stop_at is not None:
                    events, dones = [e for e in events if not isinstance(e, Guard)], []
                self._collect(end, events, dones)
                text += end.text
                if end.stopped and stop_at is None:
                    stop_at = index
        if stop_at is not None:
            self._stopped = True
        if final or stop_at is not None:
            self._done = True
            reason = max((d.reason for d in dones), key=_DONE_PRIORITY.__getitem__, default=None)
            if reason is None:
                reason = "stopped" if stop_at is not None else ("truncated" if truncated else "complete")
            events.append(Done(reason))
            lookahead = ""
        return Step(text=text, stopped=self._stopped, events=tuple(events), lookahead=lookahead)

    @staticmethod
    def _collect(step: Step, events: list[Event], dones: list[Done]) -> None:
        for event in step.events:
            if isinstance(event, Done):
                dones.append(event)
            else:
                events.append(event)
