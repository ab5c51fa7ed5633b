"""Structured output with Guardrails AI: its validators as a business rule on sluicegate's validated value.

What Guardrails AI (0.11) allows: `Guard.for_pydantic(Model)` parses the output, then `prune_extra_keys` and
`coerce_types` run *before* any validator — unknown fields vanish and `"4200"` becomes `4200` even with
`extra="forbid"` on the model (measured) — and its streaming JSON path validates every parsable prefix without
looking at the finish signal (`run/stream_runner.py`). So strictness and completeness cannot be enforced inside
Guardrails. What it does well is validators on a finished value; `guard_rule(guard)` runs them there: on the
candidate a `Generation` already parsed and validated strictly, after the terminal signal, once.

A validator that fails refuses the call. A validator that *fixes* the value (`on_fail="fix"`, filter, refrain)
refuses it too: the intent that gets confirmed and executed is the one the model produced and we validated,
never a silently edited one.
"""

from __future__ import annotations

from typing import Any

from guardrails import Guard
from pydantic import BaseModel

from sluicegate.lifecycle import Rule


class GuardrailsRejected(ValueError):
    """Guardrails' validators refused (or changed) the validated value."""


def guard_rule(guard: Guard) -> Rule:
    """A `Generation` business rule (`rules={"transfer": guard_rule(guard)}`) that runs `guard.parse`."""

    def rule(value: BaseModel) -> None:
        data = value.model_dump(mode="json")
        try:
            outcome: Any = guard.parse(value.model_dump_json())
        except Exception as exc:  # on_fail="exception" raises guardrails' ValidationError
            raise GuardrailsRejected(f"Guardrails validation failed: {exc}") from None
        if not outcome.validation_passed:
            raise GuardrailsRejected(f"Guardrails validation failed: {outcome.error or 'a validator refused'}")
        if outcome.validated_output != data:
            raise GuardrailsRejected("a Guardrails validator changed the value (fix/filter): refused, not executed")

    return rule
