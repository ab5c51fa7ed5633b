"""examples/openai_agents.py runs offline and shows what it promises, with the real filters and the real SDK."""

from tests.support import run_example

GROUNDED_SEEN = (
    "reader sees: 'The library opens at nine on weekdays. Late fees were abolished in 2019. "
    "Write to <EMAIL_ADDRESS> with questions.'"
)
STOPPED_SEEN = (
    "reader sees: 'The library opens at nine on weekdays. Late fees were abolished in 2019.\\n\\n"
    "The rest of this answer could not be supported by the sources and was held back.'"
)


def test_openai_agents_example_runs_offline() -> None:
    out = run_example("openai_agents.py")
    assert out.count(GROUNDED_SEEN) == 2  # streamed and the guardrail's: markers stripped, e-mail redacted
    assert out.count(STOPPED_SEEN) == 2  # the two grounded sentences, then the stop: nothing after it
    assert "outcome: stopped" in out and "(estimate)" in out and "(provider)" in out
    assert "tripwire: ('unsupported_value',)" in out
    assert "help.desk@citylib.example" not in out  # the e-mail arrived split across pieces
    assert "2 euros" not in out and "bicycles" not in out and "[S" not in out
