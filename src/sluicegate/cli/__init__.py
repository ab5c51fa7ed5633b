"""The `sluicegate` command: one entry point, one module per subcommand (replay, eval, calibrate, proxy).

Each subcommand module defines `add_arguments(parser)` and `run(args) -> int` (the exit code), and keeps its
heavy or optional imports (rich, matplotlib, a retriever) inside `run`: building the parser imports every
subcommand module, so `sluicegate --help` must stay cheap and work without the optional extras.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# name -> (private module under sluicegate.cli, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("_replay", "replay recorded answers through the streaming pipeline at several chunkings"),
    "eval": ("_golden", "score a golden set: refusals, evidence threshold, overview route, retrieval recall"),
    "calibrate": ("_calibrate", "pick an evidence threshold from answerable and must-refuse questions"),
    "conform": ("_conform", "check a streaming endpoint for values leaked across frames (a wire-level test)"),
    "proxy": ("_proxy", "serve an OpenAI/Anthropic-compatible proxy that guards an upstream endpoint"),
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sluicegate", description="Guards for streamed LLM answers.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module, help_text) in SUBCOMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(_module=module)
        try:
            mod = importlib.import_module(f"sluicegate.cli.{module}")
        except ModuleNotFoundError as exc:  # a subcommand not built yet, or its module's own import failed
            if exc.name != f"sluicegate.cli.{module}":
                raise
            continue
        mod.add_arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` and run the chosen subcommand; returns its exit code (2 for a usage error)."""
    args = _parser().parse_args(argv)
    mod = importlib.import_module(f"sluicegate.cli.{args._module}")
    return int(mod.run(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
