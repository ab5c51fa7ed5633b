"""Lifecycle throughput: provider events assembled and validated per second on one core, and the delay from
the terminal event to `validated`. Prints markdown tables; not part of the test run.

    python tests/benchmarks/lifecycle.py [--repeats 5] [--generations 200] [--args-kb 16]

Inputs are the documented fixture streams of tests/lifecycle/fixtures (OpenAI Chat Completions, OpenAI
Responses, Anthropic Messages), fed as decoded dicts, as parsed SSE events, and as raw bytes through the SSE
parser; plus one synthetic long tool call (`--args-kb` of arguments in 16-byte deltas) to show the cost grows
linearly with the arguments. Single-threaded, so "per second" is per core. Medians of repeats, small sizes:
the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate.lifecycle import State  # noqa: E402
from sluicegate.sse import SSEParser  # noqa: E402
from tests.benchmarks.measure import percentile, repeat, sample  # noqa: E402
from tests.lifecycle.helpers import STREAMS, dict_events, events, generation, raw  # noqa: E402


def run_feed(name: str, evs: list[Any], generations: int) -> None:
    for _ in range(generations):
        gen = generation(name)
        for e in evs:
            gen.feed(e)
        gen.close()
        assert gen.state == State.VALIDATED


def run_bytes(name: str, data: bytes, generations: int) -> None:
    for _ in range(generations):
        gen, parser = generation(name), SSEParser()
        for e in parser.feed(data):
            gen.feed(e)
        parser.close()
        gen.close()
        assert gen.state == State.VALIDATED


def long_call(kb: int) -> list[dict[str, Any]]:
    """An Anthropic tool_use whose `memo` is `kb` KiB, streamed in 16-byte `input_json_delta`s."""
    args = json.dumps({"to": "CH93", "amount_cents": 1, "currency": "EUR", "memo": "x" * (kb * 1024)})
    deltas = [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": args[i : i + 16]},
        }
        for i in range(0, len(args), 16)
    ]
    start = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "transfer", "input": {}},
    }
    end = [
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        {"type": "message_stop"},
    ]
    return [{"type": "message_start", "message": {"id": "msg_1", "content": []}}, start, *deltas, *end]


def terminal_delay(name: str, evs: list[Any], generations: int) -> list[float]:
    """Seconds from handing the terminal event to `feed` until the generation is validated (one call)."""
    delays = []
    for _ in range(generations):
        gen = generation(name)
        for e in evs[:-1] if name != "chat" else evs:
            if gen.state == State.VALIDATED:
                break
            start = time.perf_counter()
            gen.feed(e)
            took = time.perf_counter() - start
        if name != "chat":
            start = time.perf_counter()
            gen.feed(evs[-1])
            took = time.perf_counter() - start
        assert gen.state == State.VALIDATED
        delays.append(took)
    return sorted(delays)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--generations", type=int, default=200)
    ap.add_argument("--args-kb", type=int, default=16)
    a = ap.parse_args()
    print(
        f"Python {platform.python_version()}, {platform.machine()}; {a.generations} generations per repeat, "
        f"median of {a.repeats} repeats (min–max)\n"
    )
    print("| stream | events | input | events/s (one core) | generations/s |")
    print("|---|---:|---|---:|---:|")
    for name in STREAMS:
        inputs = {"dicts": dict_events(name), "SSE events": events(name)}  # the chat dicts omit [DONE]
        for label, evs in inputs.items():
            times, _ = repeat(lambda evs=evs, name=name: run_feed(name, evs, a.generations), a.repeats)
            rate = sample([len(evs) * a.generations / t for t in times])
            gens = sample([a.generations / t for t in times])
            print(f"| {name} | {len(evs)} | {label} | {rate.fmt(0)} | {gens.fmt(0)} |")
        data = raw(name)
        n = len(events(name))
        times, _ = repeat(lambda data=data, name=name: run_bytes(name, data, a.generations), a.repeats)
        print(
            f"| {name} | {n} | bytes via SSEParser ({len(data)} B) | "
            f"{sample([n * a.generations / t for t in times]).fmt(0)} | "
            f"{sample([a.generations / t for t in times]).fmt(0)} |"
        )
    print()
    print(f"Long tool call: {a.args_kb} KiB vs {4 * a.args_kb} KiB of arguments in 16-byte deltas (Anthropic dicts)\n")
    print("| arguments | deltas | µs per delta | ratio |")
    print("|---:|---:|---:|---:|")
    base = None
    for kb in (a.args_kb, 4 * a.args_kb):
        evs = long_call(kb)
        gens = max(1, a.generations // (8 * kb // a.args_kb))
        times, _ = repeat(lambda evs=evs, gens=gens: run_feed("anthropic", evs, gens), a.repeats)
        per = statistics.median(t / (gens * (len(evs) - 6)) for t in times) * 1e6
        base = base or per
        print(f"| {kb} KiB | {len(evs) - 6} | {per:.2f} | {per / base:.2f} |")
    print()
    print("Terminal event -> validated (the one `feed` call that takes the terminal event and validates)\n")
    print("| stream | median µs | p99 µs |")
    print("|---|---:|---:|")
    for name in STREAMS:
        d = terminal_delay(name, dict_events(name), a.generations * a.repeats)
        print(f"| {name} | {statistics.median(d) * 1e6:.0f} | {percentile(d, 99) * 1e6:.0f} |")
    d = terminal_delay("anthropic", long_call(a.args_kb), a.generations)
    print(
        f"| anthropic, {a.args_kb} KiB arguments | {statistics.median(d) * 1e6:.0f} | {percentile(d, 99) * 1e6:.0f} |"
    )


if __name__ == "__main__":
    main()
