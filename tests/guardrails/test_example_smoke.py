"""examples/guardrails_gate.py runs offline and shows what it promises, with the real filters."""

from tests.support import run_example

GROUNDED_SEEN = (
    "reader sees: 'The library opens at nine on weekdays. Late fees were abolished in 2019. "
    "Write to <EMAIL_ADDRESS> with questions.'"
)
STOPPED_SEEN = (
    "reader sees: 'The library opens at nine on weekdays. Late fees were abolished in 2019.\\n\\n"
    "The rest of this answer could not be supported by the sources and was held back.'"
)


def test_guardrails_example_runs_offline() -> None:
    out = run_example("guardrails_gate.py", drop_env=("GUARDRAILS_RUN_SYNC",))  # the default validator service
    assert out.count(GROUNDED_SEEN) == 2  # streamed and whole-string: markers stripped, e-mail redacted
    assert out.count(STOPPED_SEEN) == 2  # the two grounded sentences, then the stop: nothing after it
    assert out.count("violation: sluicegate stopped the stream: unsupported_value") == 2
    assert out.count("violation: None") == 2
    assert "help.desk@citylib.example" not in out  # the e-mail arrived split across pieces
    assert "2 euros" not in out and "bicycles" not in out  # the planted sentence
    assert "[S" not in out
