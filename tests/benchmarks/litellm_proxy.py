"""What the LiteLLM proxy costs in front of the scripted provider, with sluicegate's guardrail on every answer.

Run: python tests/benchmarks/litellm_proxy.py [--requests N]   (starts the provider and one proxy process)

Prints the proxy's startup time, and per request (sequential, loopback, the official `openai` SDK): the
whole-answer latency direct to the provider and through the proxy, and the streamed time to first text and to
the end. The provider streams 39 tokens at 10 ms (0.4 s of generation), all of them supported; the difference is
the proxy plus the guardrail (the gate holds a sentence until it ends, so "first text" includes the first one).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "integrations")]

import openai  # noqa: E402

from tests.litellm.proxy import MASTER_KEY, serve_proxy  # noqa: E402
from tests.services.llm_provider import serve_provider  # noqa: E402

SOURCES = ["Ada Lovelace published her notes on the Analytical Engine in 1843."]
TOKENS = ["She published", " her notes", " in 1843 [S1]. "] + [" They describe", " the engine [S1]."] * 18
META = {"metadata": {"sluicegate": {"sources": SOURCES}}}


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.1f} {max(values) * 1000:8.1f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=10)
    args = parser.parse_args()
    with serve_provider(interval=0.01) as (provider, url):
        provider.script(TOKENS)
        with serve_proxy(Path(tempfile.mkdtemp()), url + "/v1") as proxy:
            direct = openai.OpenAI(base_url=url + "/v1", api_key="x", max_retries=0)
            proxied = openai.OpenAI(base_url=proxy.url + "/v1", api_key=MASTER_KEY, max_retries=0, timeout=60)
            msgs = [{"role": "user", "content": "q"}]
            proxied.chat.completions.create(model="m", messages=msgs, extra_body=META)  # warm-up
            rows: dict[str, list[float]] = {
                "direct whole": [],
                "proxy whole": [],
                "proxy first text": [],
                "proxy stream end": [],
                "direct stream end": [],
            }
            for _ in range(args.requests):
                t = time.monotonic()
                direct.chat.completions.create(model="m", messages=msgs)
                rows["direct whole"].append(time.monotonic() - t)
                t = time.monotonic()
                proxied.chat.completions.create(model="m", messages=msgs, extra_body=META)
                rows["proxy whole"].append(time.monotonic() - t)
                t = time.monotonic()
                list(direct.chat.completions.create(model="m", messages=msgs, stream=True))
                rows["direct stream end"].append(time.monotonic() - t)
                t = time.monotonic()
                first = None
                for c in proxied.chat.completions.create(model="m", messages=msgs, stream=True, extra_body=META):
                    if first is None and c.choices and c.choices[0].delta.content:
                        first = time.monotonic() - t
                rows["proxy stream end"].append(time.monotonic() - t)
                rows["proxy first text"].append(first or 0.0)
            print(f"## LiteLLM proxy ({args.requests} sequential requests; startup {proxy.startup_s:.1f} s)\n")
            print(f"{'what':<20} {'median ms':>9} {'max ms':>8}")
            for name, values in rows.items():
                print(f"{name:<20} {ms(values)}")


if __name__ == "__main__":
    main()
