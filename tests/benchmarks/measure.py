"""Timing and statistics helpers: medians of repeats with their spread, percentiles, and a per-run time budget.

A shared 2-core machine is noisy, so every figure is a median of repeats measured side by side in one run, and
comparisons are ratios within that run. A peer that is too slow to finish the full corpus inside the budget is
measured on a prefix, and the table says so (never silently extrapolated).
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    """Median and spread (min..max) of repeated measurements of one quantity."""

    median: float
    low: float
    high: float
    n: int

    def fmt(self, digits: int = 2) -> str:
        if self.n == 1:
            return f"{self.median:.{digits}f}"
        return f"{self.median:.{digits}f} ({self.low:.{digits}f}–{self.high:.{digits}f})"


def sample(values: Sequence[float]) -> Sample:
    return Sample(statistics.median(values), min(values), max(values), len(values))


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values (q in 0..100)."""
    if not sorted_values:
        return math.nan
    k = max(0, min(len(sorted_values) - 1, math.ceil(q / 100 * len(sorted_values)) - 1))
    return sorted_values[k]


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """Seconds one call takes, with the garbage collector off during the call (it adds noise, not cost)."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        result = fn()
        return time.perf_counter() - start, result
    finally:
        if was:
            gc.enable()


def repeat(fn: Callable[[], object], repeats: int) -> tuple[list[float], object]:
    """Run `fn` `repeats` times; return the durations and the last result."""
    times: list[float] = []
    result: object = None
    for _ in range(repeats):
        dt, result = timed(fn)
        times.append(dt)
    return times, result


def fit_prefix(run_on: Callable[[int], object], total: int, budget_s: float, *, probe: int = 65_536) -> int:
    """How many characters of the input one run may cover to stay near `budget_s` (at least `probe`).

    Probes on `probe` characters first. Linear extrapolation is optimistic for a filter that is quadratic, which
    is why the table reports the prefix actually measured rather than a projected full-corpus figure.
    """
    if total <= probe:
        return total
    dt = min(timed(lambda: run_on(probe))[0] for _ in range(2))  # the faster of two: noise only slows a run
    if dt <= 0:
        return total
    fits = int(probe * budget_s / dt)
    return total if fits >= total else max(probe, fits)
