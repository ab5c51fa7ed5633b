"""sluicegate for the OpenAI Agents SDK: gate a streamed run's text, and the final output of a non-streamed one.

- `guarded_stream(Runner.run_streamed(agent, ...), filter)`: released text (then the notice on a stop) from the
  run's raw response deltas; a stop cancels the run and closes the model stream; `.usage` counts a stopped turn.
- `gate_guardrail(make_filter)`: an `OutputGuardrail` for `Runner.run` that trips on a stop;
  `guarded_output(result)` is the text to show when it passed.

See docs/openai_agents.md.
"""

from sluicegate.host import require_extra

require_extra("agents", adapter="sluicegate_openai_agents", framework="the OpenAI Agents SDK", extra="openai-agents")

from .guardrail import NAME, Gated, gate_guardrail, gate_text, guarded_output  # noqa: E402
from .stream import GuardedStream, guarded_stream  # noqa: E402

__all__ = ["NAME", "Gated", "GuardedStream", "gate_guardrail", "gate_text", "guarded_output", "guarded_stream"]
