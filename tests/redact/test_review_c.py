"""Review C of issues 10 and 17: values the Redactor released in part or whole. Each case is checked at every
split and on random chunkings (`assert_chunk_invariant`), and the value must not show in the released text."""

from __future__ import annotations

import pytest

from sluicegate.redaction import Redactor
from sluicegate.testing import assert_chunk_invariant


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Pay BE71 0961 2345 6769 BE71 0961 2345 6769 today.", "BE71 0961 2345 6769"),
        ("Pay BE71-0961-2345-6769-BE71-0961-2345-6769 today.", "BE71-0961-2345-6769"),
    ],
)
def test_two_ibans_in_one_run_of_groups_are_both_replaced(text: str, value: str) -> None:
    run = assert_chunk_invariant(Redactor, text, max_size=9, random_runs=5)
    assert value not in run.text and "2345" not in run.text
    assert run.text.count("<IBAN_CODE>") == 2


def test_an_invalid_group_after_an_iban_stays_text() -> None:
    run = assert_chunk_invariant(Redactor, "Pay BE71 0961 2345 6769 1234 today.", max_size=9, random_runs=3)
    assert run.text == "Pay <IBAN_CODE> 1234 today."
