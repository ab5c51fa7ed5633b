"""Prometheus text exposition from plain counters (no `prometheus_client`: one process, a handful of series,
and the proxy's import stays light). Labels are codes only (dialect, reason, entity, status), never text."""

from __future__ import annotations

import threading
from collections import Counter

# Seconds the proxy adds between an upstream read and the frames it writes for it.
BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


class Histogram:
    def __init__(self) -> None:
        self.counts = [0] * (len(BUCKETS) + 1)
        self.sum = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        for i, bound in enumerate(BUCKETS):
            if value <= bound:
                self.counts[i] += 1
                break
        else:
            self.counts[-1] += 1
        self.sum += value
        self.count += 1


class Metrics:
    """The counters /metrics shows; thread-safe (uvicorn may run the app from one loop, tests from another)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: Counter[tuple[str, str]] = Counter()  # (dialect, stream)
        self.ends: Counter[tuple[str, str]] = Counter()  # (dialect, reason)
        self.stops: Counter[str] = Counter()  # reason code of a stop
        self.refusals: Counter[str] = Counter()
        self.redactions: Counter[str] = Counter()  # entity
        self.upstream_closes: Counter[str] = Counter()  # why: stop, client_disconnect, end
        self.statuses: Counter[str] = Counter()  # HTTP status answered before the stream
        self.added = Histogram()
        self.first_frame = Histogram()

    def count(self, counter: Counter[str] | Counter[tuple[str, str]], key: object, n: int = 1) -> None:
        with self._lock:
            counter[key] += n  # type: ignore[index]

    def observe(self, histogram: Histogram, value: float) -> None:
        with self._lock:
            histogram.observe(value)

    def render(self) -> str:
        with self._lock:
            lines: list[str] = []
            _counter(
                lines, "sluicegate_proxy_requests_total", "Guarded requests.", ("dialect", "stream"), self.requests
            )
            _counter(
                lines, "sluicegate_proxy_ends_total", "How guarded answers ended.", ("dialect", "reason"), self.ends
            )
            _counter(lines, "sluicegate_proxy_stops_total", "Answers stopped by a filter.", ("code",), self.stops)
            _counter(lines, "sluicegate_proxy_refusals_total", "Refusals before the model.", ("reason",), self.refusals)
            _counter(lines, "sluicegate_proxy_redactions_total", "Values redacted.", ("entity",), self.redactions)
            _counter(
                lines,
                "sluicegate_proxy_upstream_closes_total",
                "Upstream streams closed early.",
                ("why",),
                self.upstream_closes,
            )
            _counter(
                lines,
                "sluicegate_proxy_responses_total",
                "Statuses answered before a stream.",
                ("status",),
                self.statuses,
            )
            _histogram(
                lines, "sluicegate_proxy_added_latency_seconds", "Time from an upstream read to its frames.", self.added
            )
            _histogram(
                lines,
                "sluicegate_proxy_first_frame_added_seconds",
                "Time from the first upstream read to the first frame written.",
                self.first_frame,
            )
            return "\n".join(lines) + "\n"


def _label(value: object) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _counter(lines: list[str], name: str, help_: str, labels: tuple[str, ...], counter: Counter) -> None:  # type: ignore[type-arg]
    lines += [f"# HELP {name} {help_}", f"# TYPE {name} counter"]
    for key, value in sorted(counter.items(), key=lambda kv: str(kv[0])):
        values = key if isinstance(key, tuple) else (key,)
        inner = ",".join(f'{label}="{_label(v)}"' for label, v in zip(labels, values, strict=True))
        lines.append(f"{name}{{{inner}}} {value}")


def _histogram(lines: list[str], name: str, help_: str, h: Histogram) -> None:
    lines += [f"# HELP {name} {help_}", f"# TYPE {name} histogram"]
    running = 0
    for bound, count in zip(BUCKETS, h.counts, strict=False):
        running += count
        lines.append(f'{name}_bucket{{le="{bound}"}} {running}')
    lines.append(f'{name}_bucket{{le="+Inf"}} {h.count}')
    lines.append(f"{name}_sum {h.sum}")
    lines.append(f"{name}_count {h.count}")
