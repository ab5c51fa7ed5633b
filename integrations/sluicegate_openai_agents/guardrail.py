"""`gate_guardrail(make_filter)`: an Agents SDK `OutputGuardrail` that filters the whole final output.

For the non-streamed path (`Runner.run`): the final output goes through a fresh filter as one piece (the core's
`drive_text`, so it is exactly what the streamed path would show for the same text), and the guardrail trips on
a stop. An output guardrail cannot change the output, so what to show is recorded in the guardrail's
`output_info` (`Gated`): `guarded_output(result)` reads it. `final_output` stays the model's own text (citation
markers, values a redactor would replace): never show it. On a trip, show `exc.guardrail_result.output
.output_info.shown`, never `exc.run_data` (it holds the model's whole turn).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents import GuardrailFunctionOutput, OutputGuardrail, RunContextWrapper

from sluicegate import Outcome, StreamFilter, drive_text

NAME = "sluicegate"


@dataclass(frozen=True)
class Gated:
    """What the filter made of the final output: `shown` is what the reader may see (the released text, and
    the notice a paragraph apart on a stop); `reasons` the guard's reason codes (no blocked text)."""

    shown: str
    released: str
    stopped: bool
    reasons: tuple[str, ...]


def gate_text(text: str, filt: StreamFilter) -> Gated:
    """Filter one whole text, as the streamed path would for any chunking of it."""
    outcome = Outcome()
    shown = "".join(drive_text([text], filt, outcome=outcome))
    guard = outcome.guard
    return Gated(shown, outcome.released, outcome.stopped, tuple(guard.reasons) if guard is not None else ())


def gate_guardrail(make_filter: Callable[[], StreamFilter], *, name: str = NAME) -> OutputGuardrail[Any]:
    """An output guardrail that runs `make_filter()` (a fresh filter per run) over the final output.

    A final output that is not a `str` (a structured `output_type`) trips it: the gate judges text, and letting
    an unjudged object through would be failing open.
    """

    def check(ctx: RunContextWrapper[Any], agent: Any, output: Any) -> GuardrailFunctionOutput:
        if not isinstance(output, str):
            gated = Gated("", "", True, ("not_text",))
        else:
            gated = gate_text(output, make_filter())
        return GuardrailFunctionOutput(output_info=gated, tripwire_triggered=gated.stopped)

    return OutputGuardrail(guardrail_function=check, name=name)


def guarded_output(result: Any, *, name: str = NAME) -> str:
    """What to show of a finished run's final output: the gated text the guardrail named `name` recorded.

    Raises `LookupError` when that guardrail did not run (not attached to the last agent): showing
    `final_output` instead would show unvalidated text.
    """
    for item in getattr(result, "output_guardrail_results", ()):
        info = item.output.output_info
        if item.guardrail.get_name() == name and isinstance(info, Gated):
            return info.shown
    raise LookupError(f"no {name!r} output guardrail ran on this result; attach gate_guardrail(...) to the agent")
