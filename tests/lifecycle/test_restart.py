"""A process restart between confirm and execute, with a real SQLite file and a real redis-server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def worker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.lifecycle.restart_worker", *args],
        cwd=ROOT,
        # this tree's code, not whichever sluicegate the interpreter has installed (an editable install elsewhere)
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(params=["sqlite", "redis"])
def spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:{tmp_path / 'ops.sqlite3'}"
    server = request.getfixturevalue("redis_server")
    import redis

    redis.Redis.from_url(server.url).flushdb()
    return f"redis:{server.url}"


def test_restart_between_confirm_and_execute(spec: str, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.txt"
    ledger.touch()
    confirm = worker("confirm", spec, str(ledger))
    assert confirm.returncode == 0, confirm.stderr
    gen_id = confirm.stdout.strip()
    first = worker("execute", spec, str(ledger), gen_id)  # a new process: only the store remembers
    second = worker("execute", spec, str(ledger), gen_id)  # and another one, as after a retry
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert json.loads(first.stdout)["result"] == json.loads(second.stdout)["result"]
    assert json.loads(second.stdout)["state"] == "executed"
    assert len(ledger.read_text().split()) == 1


def test_crash_after_the_effect_is_unknown_until_reconciled(spec: str, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.txt"
    ledger.touch()
    gen_id = worker("confirm", spec, str(ledger)).stdout.strip()
    crash = worker("crash", spec, str(ledger), gen_id)
    assert crash.returncode == 17
    retry = worker("execute", spec, str(ledger), gen_id)
    assert retry.returncode == 3 and "unknown" in json.loads(retry.stdout)  # never re-run blindly
    healed = worker("reconcile", spec, str(ledger), gen_id)
    assert healed.returncode == 0, healed.stderr
    assert json.loads(healed.stdout)["state"] == "executed"
    assert len(ledger.read_text().split()) == 1
