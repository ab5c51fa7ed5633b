"""Chunk-invariance assertions, public so users can test their own filters the way we test ours.

The contract: for every chunking of a text, the concatenated released text, the stop flag and the sequence of
events equal those of feeding the text whole and flushing. `assert_chunk_invariant` checks every two-part
split, every fixed piece size 1..N and random chunkings, and reports liveness (the most characters held back).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ._public import publish
from ._stream import Event, StreamFilter

__all__ = ["FilterFactory", "Run", "assert_chunk_invariant", "chunkings", "pieces_of", "random_chunking", "run_filter"]

FilterFactory = Callable[[], StreamFilter]


@dataclass(frozen=True)
class Run:
    """What a reader saw for one chunking: all released text, the final stop flag and every event in order."""

    text: str
    stopped: bool
    events: tuple[Event, ...]
    max_held: int


def pieces_of(text: str, size: int) -> list[str]:
    """Cut `text` into pieces of `size` characters (the last may be shorter)."""
    if size < 1:
        raise ValueError("size must be >= 1")
    return [text[i : i + size] for i in range(0, len(text), size)]


def random_chunking(text: str, rng: random.Random, *, max_piece: int = 12) -> list[str]:
    """Cut `text` at random places; empty pieces are included now and then (a provider may send them)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        n = rng.randint(0, max_piece)
        out.append(text[i : i + n])
        i += n
    return out


def run_filter(make_filter: FilterFactory, pieces: Iterable[str], *, truncated: bool = False) -> Run:
    """Feed `pieces` to a fresh filter, then flush; stop feeding as soon as the filter stops."""
    f = make_filter()
    released: list[str] = []
    events: list[Event] = []
    fed = 0
    out = 0
    max_held = 0
    stopped = False
    for piece in pieces:
        step = f.feed(piece)
        fed += len(piece)
        released.append(step.text)
        out += len(step.text)
        events.extend(step.events)
        held = getattr(f, "held", None)
        max_held = max(max_held, held if isinstance(held, int) else fed - out)
        if step.stopped:
            stopped = True
            break
    if not stopped:
        step = f.flush(truncated=truncated)
        released.append(step.text)
        events.extend(step.events)
        stopped = step.stopped
    return Run("".join(released), stopped or f.stopped, tuple(events), max_held)


def chunkings(
    text: str, *, max_size: int | None = None, random_runs: int = 20, seed: int = 0
) -> Iterable[tuple[str, list[str]]]:
    """Every two-part split, every fixed piece size 1..max_size, and `random_runs` random chunkings."""
    for i in range(len(text) + 1):
        yield f"split at {i}", [text[:i], text[i:]]
    for size in range(1, (max_size if max_size is not None else len(text)) + 1):
        yield f"pieces of {size}", pieces_of(text, size)
    rng = random.Random(seed)
    for n in range(random_runs):
        yield f"random chunking #{n} (seed {seed})", random_chunking(text, rng)


def assert_chunk_invariant(
    make_filter: FilterFactory,
    text: str,
    *,
    max_size: int | None = None,
    random_runs: int = 20,
    seed: int = 0,
    truncated: bool = False,
    extra: Sequence[Sequence[str]] = (),
) -> Run:
    """Assert every chunking of `text` gives the whole-string run; return that run (with worst liveness).

    `max_size` bounds the fixed piece sizes tried (default: up to the whole text). `extra` adds chunkings of
    your own (for example Hypothesis-generated ones). The returned `max_held` is the worst over all runs.
    """
    whole = run_filter(make_filter, [text], truncated=truncated)
    worst = whole.max_held
    cases = list(chunkings(text, max_size=max_size, random_runs=random_runs, seed=seed))
    cases += [("extra chunking", list(c)) for c in extra]
    for label, chunks in cases:
        if "".join(chunks) != text:
            raise ValueError(f"{label}: the chunks do not concatenate to the text")
        got = run_filter(make_filter, chunks, truncated=truncated)
        worst = max(worst, got.max_held)
        if (got.text, got.stopped, got.events) != (whole.text, whole.stopped, whole.events):
            raise AssertionError(_describe(label, chunks, whole, got))
    return Run(whole.text, whole.stopped, whole.events, worst)


def _describe(label: str, chunks: list[str], whole: Run, got: Run) -> str:
    lines = [f"chunk invariance broken ({label}); chunks={chunks!r}"]
    if got.text != whole.text:
        at = next((i for i, (a, b) in enumerate(zip(got.text, whole.text, strict=False)) if a != b), None)
        at = at if at is not None else min(len(got.text), len(whole.text))
        lines.append(
            f"  text differs at {at}: streamed {got.text[at : at + 40]!r} vs whole {whole.text[at : at + 40]!r}"
        )
    if got.stopped != whole.stopped:
        lines.append(f"  stopped: streamed {got.stopped} vs whole {whole.stopped}")
    if got.events != whole.events:
        lines.append(f"  events: streamed {got.events!r} vs whole {whole.events!r}")
    return "\n".join(lines)


publish(__name__, globals())  # one documented place per public name (docs/api.md)
