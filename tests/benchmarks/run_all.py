"""Run every benchmark of issue 7 and print one markdown table per item, plus where we stand on the targets.

    python tests/benchmarks/run_all.py            # full run; peers installed into an isolated venv first
    python tests/benchmarks/run_all.py --quick    # tiny sizes, seconds (CI smoke)
    python tests/benchmarks/run_all.py --no-peers # ours only, in the current interpreter (no venv, no installs)

Recall on documented formats (Presidio, detect-secrets) is `recall.py`, which uses the same venv.

The peers (safestream-redactor, llm-stream-guards, Presidio, NeMo Guardrails, detect-secrets) are never runtime
dependencies: they go into their own venv (`--venv`, default `.venv-bench` at the repo root) from
`requirements-bench.txt`, together with an editable install of this checkout, and the script re-runs itself there.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
for _sub in ("integrations", "src"):
    if (ROOT / _sub).is_dir():
        sys.path.insert(0, str(ROOT / _sub))  # this checkout's sluicegate and adapters, even without an install

os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

PEER_MODULES = ("safestream_redactor", "llm_stream_guards", "presidio_analyzer", "nemoguardrails", "detect_secrets")


def _peers_importable() -> list[str]:
    import importlib.util

    return [m for m in PEER_MODULES if importlib.util.find_spec(m) is None]


def _ensure_venv(venv: Path) -> tuple[Path | None, str]:
    """Create/refresh the peers venv; return its python, or None and why not."""
    py = venv / "bin" / "python"
    try:
        if not py.exists():
            print(f"creating peers venv {venv} ...", file=sys.stderr)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        probe = subprocess.run(
            [str(py), "-c", "import " + ", ".join(PEER_MODULES) + ", sluicegate"], capture_output=True
        )
        if probe.returncode != 0:
            print("installing peers (requirements-bench.txt) ...", file=sys.stderr)
            pip = [str(py), "-m", "pip", "install", "-q"]
            subprocess.run([*pip, "-r", str(HERE / "requirements-bench.txt")], check=True)
            subprocess.run([*pip, "-e", str(ROOT)], check=True)
        return py, ""
    except (OSError, subprocess.CalledProcessError) as exc:
        return None, f"peers venv could not be set up ({exc})"


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for dist in (
        "sluicegate",
        "safestream-redactor",
        "llm-stream-guards",
        "presidio-analyzer",
        "detect-secrets",
        "spacy",
        "nemoguardrails",
        "regex",
    ):
        try:
            out.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            out.append(f"{dist} (not installed)")
    return ", ".join(out)


def machine() -> str:
    return (
        f"Machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()} ({platform.python_implementation()}). "
        f"Packages: {_versions()}. Run at {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC."
    )


def _target(ok: bool | None) -> str:
    return "n/a" if ok is None else ("met" if ok else "MISSED")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="tiny sizes and 3 repeats: a smoke run of a few seconds")
    ap.add_argument(
        "--size", type=float, default=None, help="planted corpus in MB (default 1; item 4 uses size and 8x size)"
    )
    ap.add_argument("--repeats", type=int, default=None, help="timed repeats per figure (default 5)")
    ap.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds one timed run may take before a slow peer is measured on a prefix",
    )
    ap.add_argument("--items", default="1,2,3,4,5,6,7", help="comma-separated item numbers to run")
    ap.add_argument("--no-peers", action="store_true", help="ours only, in this interpreter; no venv, no installs")
    ap.add_argument("--venv", default=os.environ.get("BENCH_VENV", str(ROOT / ".venv-bench")), help="peers venv path")
    ap.add_argument("--in-venv", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", help="also write the markdown to this file")
    args = ap.parse_args(argv)

    venv_note = ""
    if not args.no_peers and not args.in_venv and _peers_importable():
        py, why = _ensure_venv(Path(args.venv))
        if py is not None:
            cmd = [str(py), str(Path(__file__).resolve()), *(argv if argv is not None else sys.argv[1:]), "--in-venv"]
            return subprocess.call(cmd)
        venv_note = why
    missing = _peers_importable() if not args.no_peers else []

    from items import Config, item1, item2, item3, item4, item5, item6

    cfg = Config(peers=not args.no_peers)
    if args.quick:
        cfg = Config(
            size=16_384,
            scale_factor=8,
            prose=8_192,
            per_piece=8_192,
            answers=10,
            repeats=3,
            budget=1.0,
            peers=cfg.peers,
        )
    if args.size is not None:
        cfg.size = int(args.size * 1_000_000)
    if args.repeats is not None:
        cfg.repeats = args.repeats
    if args.budget is not None:
        cfg.budget = args.budget
    items = {int(x) for x in args.items.split(",") if x.strip()}

    started = time.perf_counter()
    out: list[str] = ["# sluicegate benchmarks", machine()]
    if args.quick:
        out.append("**Quick smoke run (tiny sizes, 3 repeats): the figures are not meaningful.**")
    if venv_note:
        out.append(f"Peers: {venv_note}.")
    if missing:
        out.append(f"Peers not importable here: {', '.join(missing)} (their rows say n/a).")
    out.append(
        "Command: `make bench` (= `python tests/benchmarks/run_all.py`). ¹ = a peer too slow for the time budget "
        f"({cfg.budget:g} s per run) was measured on the prefix named, never extrapolated."
    )
    facts: dict[str, object] = {}
    sections = [
        (1, "1. Redaction throughput", item1),
        (2, "2. Held tail", item2),
        (3, "3. Per-piece cost", item3),
        (4, "4. Scaling (1-character pieces)", item4),
        (5, "5. Time to first visible text (50 tokens/s)", item5),
        (6, "6. Sentence gate vs llm-stream-guards", item6),
        (7, "7. Agent middleware vs PIIMiddleware (create_agent)", lambda c: item7(c, quick=args.quick)),
    ]
    for num, title, fn in sections:
        if num not in items:
            continue
        t0 = time.perf_counter()
        md, data = fn(cfg)
        facts[str(num)] = data
        out.append(f"## {title}\n\n{md}\n\n_{time.perf_counter() - t0:.1f} s_")
        print(out[-1] + "\n", file=sys.stderr, flush=True)
    out.append("## Targets\n\n" + targets(facts))
    out.append(f"Total {time.perf_counter() - started:.0f} s.")
    text = "\n\n".join(out) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 0


def item7(cfg: object, *, quick: bool = False) -> tuple[str, dict[str, float]]:
    """`agent_middleware.py`'s table: needs `langchain` (the `[langchain-agents]` extra), else one line says so."""
    import importlib.util

    if importlib.util.find_spec("langchain") is None or importlib.util.find_spec("langchain.agents") is None:
        return "not available here: needs `langchain` (`pip install sluicegate[langchain-agents]`)", {}
    import agent_middleware

    return agent_middleware.table(quick)


def targets(facts: dict[str, object]) -> str:
    ours_r, peer_r = "sluicegate Redactor (defaults)", "safestream-redactor 0.4.0 (defaults)"
    rows = []
    m1 = facts.get("1") or {}
    for mode, need in (("whole", 10.0), ("4-char", 3.0)):
        a, b = m1.get(f"{ours_r}|{mode}"), m1.get(f"{peer_r}|{mode}")  # type: ignore[union-attr]
        ratio = a / b if a and b else None
        rows.append(
            [
                f"redactor vs safestream-redactor, {mode}",
                f">= {need:g}x",
                f"{ratio:.1f}x" if ratio else "n/a",
                _target(None if ratio is None else ratio >= need),
            ]
        )
    held = (facts.get("2") or {}).get(ours_r)  # type: ignore[union-attr]
    rows.append(
        [
            "redactor held on prose (max)",
            "<= 64 chars",
            "n/a" if held is None else str(held),
            _target(None if held is None else held <= 64),
        ]
    )
    for name, ratio in (facts.get("4") or {}).items():  # type: ignore[union-attr]
        if name.startswith("sluicegate"):
            rows.append([f"{name}: per-byte 8x size / size", "<= 1.2", f"{ratio:.2f}", _target(ratio <= 1.2)])
    p99 = (facts.get("3") or {}).get("sluicegate SentenceGate")  # type: ignore[union-attr]
    rows.append(
        [
            "gate per-piece p99 (4-char)",
            "<= 50 µs",
            "n/a" if p99 is None else f"{p99:.1f} µs",
            _target(None if p99 is None else p99 <= 50),
        ]
    )
    ttft_rows = facts.get("5") or []
    ours = next((r for r in ttft_rows if r.config.startswith("sluicegate")), None)  # type: ignore[attr-defined]
    off = next(
        (
            r
            for r in ttft_rows
            if r.config.startswith("NeMo") and "chunk_size 200" in r.config and "stream_first False" in r.config
        ),
        None,
    )  # type: ignore[attr-defined]
    if ours is not None and ours.first_tokens and off is not None and off.first_tokens:
        x = off.first_tokens / ours.first_tokens
        rows.append(["first visible text vs NeMo stream_first false", ">= 5x sooner", f"{x:.1f}x", _target(x >= 5)])
    else:
        rows.append(["first visible text vs NeMo stream_first false", ">= 5x sooner", "n/a", _target(None)])
    shown = None if ours is None else ours.blocked_shown
    rows.append(
        [
            "blocked-sentence characters shown (ours)",
            "0",
            "n/a" if shown is None else str(shown),
            _target(None if shown is None else shown == 0),
        ]
    )
    from items import table

    return table(["target", "goal", "measured", "status"], rows)


if __name__ == "__main__":
    raise SystemExit(main())
