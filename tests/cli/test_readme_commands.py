"""The README's commands for the shipped replay and eval examples run as written, and succeed."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.cli.support import ROOT, run_cli


def readme_commands() -> list[list[str]]:
    text = (ROOT / "README.md").read_text("utf-8")
    section = text.split("## Replaying recorded answers, scoring a golden set", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return [shlex.split(line) for line in block.splitlines() if line.startswith("sluicegate ")]


def test_each_shipped_example_runs_with_its_one_readme_command(tmp_path: Path) -> None:
    commands = readme_commands()
    assert {c[1] for c in commands} == {"replay", "eval"} and len(commands) == 3
    for command in commands:
        args = [str(tmp_path / Path(a).name) if a.endswith(".html") else a for a in command[1:]]
        proc = run_cli(*args)
        assert proc.returncode == 0, (command, proc.stdout[-2000:], proc.stderr[-2000:])
    assert (tmp_path / "replay-report.html").read_text("utf-8").startswith("<!doctype html>")
