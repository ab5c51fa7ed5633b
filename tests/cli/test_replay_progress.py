"""The progress bar: drawn on a terminal for a long run, never into a pipe (CI logs stay clean)."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

from tests.cli.support import ROOT, sluicegate_command, write_jsonl

LIB = ["The library opens at nine and closes at six."]


def records(n: int) -> list[dict[str, object]]:
    return [
        {"id": i, "question": "q", "language": "en", "sources": LIB, "answer": "It opens at nine [S1]."}
        for i in range(n)
    ]


def run_with_stderr_on_a_terminal(path: Path, *extra: str) -> str:
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [*sluicegate_command(), "replay", str(path), *extra],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=follower,
    )  # fmt: skip
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=120) == 0
    return b"".join(chunks).decode("utf-8", "replace")


def test_a_long_run_draws_a_bar_on_a_terminal(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", records(120))
    assert "replaying" in run_with_stderr_on_a_terminal(path)
    assert "replaying" not in run_with_stderr_on_a_terminal(path, "--no-progress")


def test_no_bar_into_a_pipe_or_for_a_short_run(tmp_path: Path) -> None:
    long = write_jsonl(tmp_path / "long.jsonl", records(120))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    piped = subprocess.run([*sluicegate_command(), "replay", str(long)], capture_output=True, text=True, env=env)
    assert piped.returncode == 0 and "replaying" not in piped.stderr
    short = write_jsonl(tmp_path / "short.jsonl", records(5))
    assert "replaying" not in run_with_stderr_on_a_terminal(short)
