"""Replay one recorded answer through a fresh pipeline at several chunkings, as production would stream it.

Each chunking runs through `sluicegate.drive` — the driver every adapter uses — so a replay sees what a
reader would have seen: the upstream stops being read at the stop, and a record cut short by the provider is
replayed as an upstream that dies after its last piece (validated text released, `Done("truncated")`).

The recorded chunking decides the record's outcome; every other chunking must give byte-identical released
text, stop and events (the filter contract). A record where one does not is flagged `chunk_dependent`: that
is a bug in the filter, not in the answer.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._driver import FALLBACK_NOTICE, Outcome, drive
from .._errors import SluicegateError
from .._stream import Event, Guard, StreamFilter
from ..testing import pieces_of, random_chunking
from ._filters import FilterSpecError, RecordFactory
from ._records import ReplayRecord

# Done reason -> the outcome reported for a record.
OUTCOMES = {"complete": "released", "stopped": "stopped", "refused": "refused", "truncated": "truncated"}
# The outcome an `expected` label asks for (a truncated answer still released what it had: no false stop).
WANTED = {"release": ("released", "truncated"), "stop": ("stopped",), "refuse": ("refused",)}
MAX_PROBED_SENTENCES = 400

Chunking = tuple[str, int | None]  # (label, piece size; None = the whole answer in one piece)


def parse_sizes(text: str) -> list[int | None]:
    """`"1,4,whole"` -> `[1, 4, None]`; `"none"` -> `[]` (the recorded chunking only). ValueError names a bad item."""
    if text.strip() == "none":
        return []
    sizes: list[int | None] = []
    for item in (part.strip() for part in text.split(",")):
        if item == "whole":
            sizes.append(None)
        elif item.isdigit() and int(item) >= 1:
            sizes.append(int(item))
        else:
            raise ValueError(f"chunk sizes are positive integers or 'whole' (or just 'none'), got {item!r}")
    return list(dict.fromkeys(sizes))


def size_label(size: int | None) -> str:
    return "whole" if size is None else str(size)


class _ProviderCut(SluicegateError):
    """Raised by the replayed upstream after its last piece when the record was cut short by the provider."""


def _upstream(pieces: Sequence[str], cut: bool) -> Any:
    yield from pieces
    if cut:
        raise _ProviderCut


@dataclass(frozen=True)
class ChunkRun:
    """What one chunking produced."""

    label: str
    released: str
    reason: str
    events: tuple[Event, ...]
    violations: tuple[Any, ...] = ()
    error: str | None = None

    @property
    def signature(self) -> tuple[str, str, tuple[Event, ...], str | None]:
        """What the contract says must not depend on the chunking."""
        return (self.released, self.reason, self.events, self.error)


def run_chunking(make: Callable[[], StreamFilter], pieces: Sequence[str], *, cut: bool, label: str) -> ChunkRun:
    """Drive `pieces` through a fresh filter; a filter that raises is reported, not propagated."""
    outcome = Outcome()
    error: str | None = None
    try:
        for _ in drive(_upstream(pieces, cut), make(), outcome=outcome):
            pass
    except _ProviderCut:
        pass
    except FilterSpecError:
        raise
    except Exception as exc:  # a bug in the filter (or a factory that failed): fail closed, say what it was
        error = f"{type(exc).__name__}: {exc}"
    reason = "error" if error is not None else (outcome.reason or "complete")
    return ChunkRun(label, outcome.released, reason, tuple(outcome.events), outcome.violations, error)


@dataclass(frozen=True)
class ReplayResult:
    """The replay of one record: its outcome in the recorded chunking and the chunkings that disagree."""

    record: ReplayRecord
    runs: tuple[ChunkRun, ...]
    blocked_sentence: str | None = None
    differs: tuple[str, ...] = field(default=())

    @property
    def main(self) -> ChunkRun:
        return self.runs[0]

    @property
    def outcome(self) -> str:
        return OUTCOMES.get(self.main.reason, self.main.reason)

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c for e in self.main.events if isinstance(e, Guard) for c in e.reasons))

    @property
    def notice(self) -> str | None:
        """The fixed text the reader saw after the released text, on a stop."""
        if self.outcome != "stopped":
            return None
        guard = next((e for e in self.main.events if isinstance(e, Guard)), None)
        return guard.notice if guard is not None and guard.notice else FALLBACK_NOTICE

    @property
    def shown_chars(self) -> int:
        """Characters the reader saw before the end (the notice not counted)."""
        return len(self.main.released)

    @property
    def chunk_dependent(self) -> bool:
        return bool(self.differs)

    @property
    def verdict(self) -> str | None:
        """Against `expected`: ok, false_stop, false_refusal, missed_stop or missed_refusal (None: unlabelled)."""
        expected = self.record.expected
        if expected is None:
            return None
        if self.outcome in WANTED[expected]:
            return "ok"
        if expected == "release":
            return "false_stop" if self.outcome == "stopped" else "false_refusal"
        return "missed_stop" if expected == "stop" else "missed_refusal"


def _sentences(text: str) -> list[str]:
    from .._gate.segment import SentenceSplitter

    splitter = SentenceSplitter()
    out = splitter.feed(text)
    tail = splitter.flush()
    return out + ([tail] if tail else [])


def blocked_sentence(make: Callable[[], StreamFilter], answer: str) -> str | None:
    """The sentence the filter stopped on: the last one of the shortest sentence prefix that stops it.

    Found by replaying growing prefixes, so it works for any filter whose stop depends on the text so far (the
    contract's filters all do). None when no prefix stops it on its own, or the answer is too long to probe.
    """
    sentences = _sentences(answer)
    if len(sentences) > MAX_PROBED_SENTENCES:
        return None
    prefix = ""
    for sentence in sentences:
        prefix += sentence
        run = run_chunking(make, [prefix], cut=False, label="probe")
        if run.reason == "stopped":
            return sentence
    return None


def random_seed(seed: int, record: ReplayRecord) -> int:
    """A seed per record from `--seed` and the record's id: the same chunkings on every run of the same file."""
    digest = hashlib.blake2b(f"{seed}\0{record.id!r}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def replay(
    record: ReplayRecord, factory: RecordFactory, sizes: Sequence[int | None], *, random_runs: int = 0, seed: int = 0
) -> ReplayResult:
    """Replay `record` in its recorded chunking, then at each of `sizes` and `random_runs` random chunkings
    (seeded per record, so a baseline compares like with like); compare every run with the first."""

    def make() -> StreamFilter:
        return factory(record.raw, record.language)

    answer = record.answer
    runs = [run_chunking(make, record.chunks, cut=record.truncated, label="recorded")]
    for size in sizes:
        pieces = [answer] if size is None else pieces_of(answer, size)
        runs.append(run_chunking(make, pieces, cut=record.truncated, label=size_label(size)))
    rng = random.Random(random_seed(seed, record))
    for n in range(random_runs):
        runs.append(run_chunking(make, random_chunking(answer, rng), cut=record.truncated, label=f"random#{n + 1}"))
    first = runs[0].signature
    differs = tuple(run.label for run in runs[1:] if run.signature != first)
    blocked = blocked_sentence(make, answer) if runs[0].reason == "stopped" else None
    return ReplayResult(record, tuple(runs), blocked, differs)
