"""No catastrophic backtracking: inputs built to blow up naive patterns are handled correctly here; their
linear cost is measured in tests/benchmarks/redactor.py (doubling the input, at most 2.5x the time)."""

from __future__ import annotations

import pytest

from sluicegate.redaction import Redactor, redact
from sluicegate.testing import pieces_of, run_filter

from .corpus import alnum

PATHOLOGICAL = {
    "email": "x" * 4000 + "@" + "a-" * 3000 + "!",
    "spaced-digits": " ".join("1234567890") * 5000,
    "base64": alnum(50_000, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"),
    "dashes": "-" * 20_000,
    "dots-and-colons": "1." * 5000 + "a:" * 5000,
    # Runs of digit groups just short of the run bound: every one is split into candidate windows.
    "digit-group-runs": "1234 5678 9012 3456 7890 1234 5678 9012 34, " * 1000,
}


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_pathological_input_is_released_unchanged(name: str) -> None:
    text = PATHOLOGICAL[name]
    assert redact(text) == text
    run = run_filter(Redactor, pieces_of(text, 97))
    assert (run.text, run.stopped) == (text, False)


def test_a_real_value_after_a_pathological_run_is_still_found() -> None:
    text = "x" * 4000 + " then user@example.com " + "1 2 3 " * 1000
    assert "<EMAIL_ADDRESS>" in redact(text)
