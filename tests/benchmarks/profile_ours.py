"""Where our filters spend their time: cProfile of the Redactor and the SentenceGate on the benchmark corpora.

    python tests/benchmarks/profile_ours.py [--what redactor|gate|both] [--piece 4] [--kb 256] [--top 25]

Prints the top functions by own time (tottime) and by cumulative time, for the filter fed in `--piece`-character
pieces. Use it when run_all.py reports a missed target; it changes nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "src"))

import corpus as C  # noqa: E402
import subjects as S  # noqa: E402


def profile(label: str, run: object, top: int) -> str:
    prof = cProfile.Profile()
    prof.enable()
    run()  # type: ignore[operator]
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return f"### {label}\n\n```\n{out.getvalue()}\n```\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--what", default="both", choices=("redactor", "gate", "both"))
    ap.add_argument("--piece", type=int, default=4)
    ap.add_argument("--kb", type=int, default=256)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    if args.what in ("redactor", "both"):
        sub = S.our_redactor()
        if sub.reason:
            print(sub.reason)
        else:
            text = C.planted(args.kb * 1024).text
            pieces = [text[i : i + args.piece] for i in range(0, len(text), args.piece)]
            print(
                profile(
                    f"Redactor, {args.kb} KiB planted corpus, {args.piece}-char pieces",
                    lambda: sub.stream(pieces),
                    args.top,
                )
            )
    if args.what in ("gate", "both"):
        answers = C.grounded(max(1, args.kb * 1024 // 400))
        probe = S.our_gate(answers[0].sources)
        if probe.reason:
            print(probe.reason)
        else:
            jobs = [
                (a.sources, [a.answer_s[i : i + args.piece] for i in range(0, len(a.answer_s), args.piece)])
                for a in answers
            ]

            def run() -> None:
                for sources, pieces in jobs:
                    S.our_gate(sources).stream(pieces)

            print(profile(f"SentenceGate, {len(answers)} grounded answers, {args.piece}-char pieces", run, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
