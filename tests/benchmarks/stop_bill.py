"""How fast a stop stops the bill: per adapter and client, the time from the stop (the filter's decision, or the
reader leaving) to the provider seeing its connection closed, and the tokens it generated after the stop.

It runs the real-parts scenarios of the `test_stop_closes_provider.py` suites (the scripted provider on uvicorn,
a token every 6 ms, the official clients, garbage collection off) `--repeat` times each and prints medians.
Run: `python tests/benchmarks/stop_bill.py [--repeat 3]` (about a minute for 3 repeats).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
for extra in (ROOT, ROOT / "src", ROOT / "integrations"):
    sys.path.insert(0, str(extra))
os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")
os.environ["HOME"] = str(ROOT / "tests/guardrails/home")  # Guardrails AI offline (as its tests' conftest)
os.environ["NLTK_DATA"] = str(ROOT / "tests/guardrails/home/nltk_data")
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

from tests.services import stop_checks  # noqa: E402
from tests.services.llm_provider import serve_provider  # noqa: E402
from tests.services.provider_clients import warm_up  # noqa: E402


def _fixture(fn: Any) -> Callable[..., Any]:
    wrapped = getattr(fn, "_fixture_function", None)  # pytest >= 8.4 wraps a fixture's function
    return wrapped if wrapped is not None else fn.__pytest_wrapped__.obj


def scenarios(served: tuple[Any, str]) -> list[tuple[str, str, str, Callable[[], Any]]]:
    """(adapter, client, mode, run) for every case; `run()` performs one and its `check` records the figures."""
    from tests.core import test_core_stop_closes_provider as core
    from tests.guardrails import test_stop_closes_provider as gai
    from tests.langchain import test_lc_stop_closes_provider as lc
    from tests.llamaindex import test_li_stop_closes_provider as li
    from tests.nemo import test_stop_closes_provider as nemo

    out: list[tuple[str, str, str, Callable[[], Any]]] = []
    app_rails = _fixture(nemo.app_rails)()
    nemo_rails = _fixture(nemo.nemo_rails)(served)
    for mode in stop_checks.MODES:
        for client in ("openai", "anthropic", "anthropic-manager", "litellm"):
            out.append(
                ("drive_text", client, mode, lambda c=client, m=mode: core.test_sync_clients_are_closed(served, c, m))
            )
            out.append(
                (
                    "adrive_text",
                    client,
                    mode,
                    lambda c=client, m=mode: asyncio.run(core.test_async_clients_are_closed(served, c, m)),
                )
            )
        for shape, kind in lc.CASES:
            out.append(
                (f"LangChain {shape}", kind, mode, lambda s=shape, k=kind, m=mode: lc.test_sync(served, s, k, m))
            )
            out.append(
                (
                    f"LangChain {shape} async",
                    kind,
                    mode,
                    lambda s=shape, k=kind, m=mode: asyncio.run(lc.test_async(served, s, k, m)),
                )
            )
        out.append(("LlamaIndex GatedSynthesizer", "OpenAI LLM", mode, lambda m=mode: li.test_sync(served, m)))
        out.append(("LlamaIndex async", "OpenAI LLM", mode, lambda m=mode: asyncio.run(li.test_async(served, m))))
        for design in nemo.DESIGNS:
            run = lambda d=design, m=mode: asyncio.run(nemo.test_closes(served, app_rails, nemo_rails, d, m))  # noqa: E731
            out.append(("NeMo", design, mode, run))
        for kind in ("litellm", "openai"):
            out.append(("Guardrails AI", kind, mode, lambda k=kind, m=mode: gai.test_sync(served, k, m)))
            out.append(
                ("Guardrails AI async", kind, mode, lambda k=kind, m=mode: asyncio.run(gai.test_async(served, k, m)))
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # NeMo logs each GateStopped traceback at ERROR level
    gc.disable()
    with serve_provider() as served:
        warm_up(served[1], served[0])
        rows = []
        for adapter, client, mode, run in scenarios(served):
            figures: list[dict[str, float]] = []
            failures = 0
            for _ in range(args.repeat):
                stop_checks.RECORD = figures
                try:
                    run()
                except AssertionError:
                    failures += 1
                finally:
                    stop_checks.RECORD = None
            ms = statistics.median(f["ms"] for f in figures) if figures else float("nan")
            after = statistics.median(f["after"] for f in figures) if figures else float("nan")
            worst = max((f["after"] for f in figures), default=float("nan"))
            rows.append((adapter, client, mode, ms, after, worst, failures))
    print(f"token interval {served[0].interval * 1000:.0f} ms, {args.repeat} runs each, medians (worst tokens)")
    print(
        f"{'adapter':30} {'client':28} {'mode':6} {'ms to close':>11} {'tokens after':>12} {'worst':>5} {'failed':>6}"
    )
    for adapter, client, mode, ms, after, worst, failures in rows:
        print(f"{adapter:30} {client:28} {mode:6} {ms:11.1f} {after:12.0f} {worst:5.0f} {failures:6d}")


if __name__ == "__main__":
    main()
