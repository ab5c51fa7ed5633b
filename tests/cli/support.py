"""Run the installed `sluicegate` console script as a subprocess, from the repository root."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def sluicegate_command() -> list[str]:
    """The console script next to this interpreter (the one `pip install -e` wrote)."""
    script = Path(sys.executable).with_name("sluicegate")
    if script.exists():
        return [str(script)]
    found = shutil.which("sluicegate")
    if found is None:
        raise RuntimeError("the sluicegate console script is not installed: pip install -e '.[dev]'")
    return [found]


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "160"}
    return subprocess.run(
        [*sluicegate_command(), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


def write_jsonl(path: Path, records: list[Any]) -> Path:
    """Each item is a dict (dumped as JSON) or a raw line (str) written as is."""
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def replay_json(*args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Run `sluicegate replay ... --json -` and decode the report from stdout."""
    proc = run_cli("replay", *args, "--json", "-")
    assert proc.returncode in (0, 1), proc.stderr
    return proc, json.loads(proc.stdout)


def rows_by_id(doc: dict[str, Any]) -> dict[Any, dict[str, Any]]:
    return {row["id"]: row for row in doc["records"]}
