"""sluicegate for the OpenAI Agents SDK: gate a streamed run's text, and the final output of a non-streamed one.

- `guarded_stream(Runner.run_streamed(agent, ...), filter)`: released text (then the notice on a stop) from the
  run's raw response deltas; a stop cancels the run and closes the model stream; `.usage` counts a stopped turn.
- `gate_guardrail(make_filter)`: an `OutputGuardrail` for `Runner.run` that trips on a stop;
  `guarded_output(result)` is the text to show when it passed.

See docs/openai_agents.md.
"""

from .guardrail import NAME, Gated, gate_guardrail, gate_text, guarded_output
from .stream import GuardedStream, guarded_stream

__all__ = ["NAME", "Gated", "GuardedStream", "gate_guardrail", "gate_text", "guarded_output", "guarded_stream"]
