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


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The password: `hunter2abc` is set.", "hunter2abc"),
        ("Set DB_PASSWORD=`s3cr3t-Value` and restart.", "s3cr3t-Value"),
        ("api_key = `abc def 123` (with spaces)", "abc def 123"),
        ("Set `DB_PASSWORD`=`hunter2abc` first.", "hunter2abc"),
        ("Set `DB_PASSWORD`=hunter2abc first.", "hunter2abc"),
    ],
)
def test_a_labelled_value_in_backticks_is_replaced(text: str, value: str) -> None:
    """Markdown answers quote values in backticks; the value was released whole."""
    run = assert_chunk_invariant(Redactor, text, max_size=9, random_runs=5)
    assert value not in run.text and "<LABELED_SECRET>" in run.text


def test_a_placeholder_in_backticks_stays_text() -> None:
    run = assert_chunk_invariant(Redactor, "Set password: `<your password>` first.", max_size=9, random_runs=3)
    assert run.text == "Set password: `<your password>` first."


REVIEW_CASES = [
    "Pay BE71 0961 2345 6769 BE71 0961 2345 6769 today.",
    "The password: `hunter2abc` is set.",
    "Set `DB_PASSWORD`=`hunter2abc` first.",
    "password: `hunter2ab",
]


@pytest.mark.parametrize("text", REVIEW_CASES)
def test_the_frozen_oracle_was_updated_with_these_leak_fixes(text: str) -> None:
    """The oracle (tests/redact/oracle/) is the Redactor's expected behaviour: the two leak fixes were made
    there too, deliberately, so the hot path and the oracle agree on them feed by feed, flush included."""
    from . import oracle

    ours, theirs = Redactor(), oracle.Redactor()
    for i in range(0, len(text), 3):
        assert ours.feed(text[i : i + 3]) == theirs.feed(text[i : i + 3])
    assert ours.flush(truncated=True) == theirs.flush(truncated=True)
