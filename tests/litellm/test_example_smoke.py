"""examples/litellm_guardrail.py runs offline and shows what it promises, with the real filters and litellm's
own chunk objects."""

from tests.support import run_example

NOTICE = "The rest of this answer could not be supported by the sources and was held back."


def test_litellm_example_runs_offline() -> None:
    out = run_example("litellm_guardrail.py")
    assert "Write to <EMAIL_ADDRESS> with questions." in out
    assert "help.desk@citylib.example" not in out and "2 euros" not in out and "[S" not in out
    assert out.count("finish=content_filter") == 2  # the planted value, the tool call that breaks its schema
    assert f"Late fees were abolished in 2019.\\n\\n{NOTICE}'" in out  # the whole answer: the stream's text
    assert "tool_calls=[('get_weather', '{\"city\": \"Bern\"}')]" in out
    assert "'{\"city\": 5}'" not in out
