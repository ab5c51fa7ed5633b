"""The README's set-up section keeps exactly two commands, and CI runs the test command verbatim.

Why a test: a newcomer pastes these lines on a fresh machine; if CI ran something else, a missing install step
would stay hidden behind a green run.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setup_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]


def test_the_readme_has_exactly_two_setup_commands_demo_then_tests() -> None:
    commands = _setup_commands()
    assert len(commands) == 2, commands
    demo, tests = commands
    assert "\n" not in demo and "\n" not in tests  # one line each: pasted whole
    assert demo.endswith("python examples/demo.py") and 'pip install -q -e "' not in demo  # core only
    assert tests.endswith("python -m pytest -q") and '".[dev]"' in tests


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _setup_commands()[1] in ci


def test_the_debian_install_script_names_every_service_the_tests_start() -> None:
    script = (ROOT / "tests" / "services" / "install-debian.sh").read_text(encoding="utf-8")
    for package in ("redis-server", "nginx", "chromium", "chromium-driver"):
        assert package in script
