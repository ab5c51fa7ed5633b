"""guard_rule: Guardrails AI validators run on sluicegate's strictly validated value, after the terminal signal."""

from __future__ import annotations

from typing import Any

from guardrails import Guard
from guardrails.validators import FailResult, PassResult, Validator, register_validator
from pydantic import BaseModel, ConfigDict

import sluicegate_guardrails as sg
from sluicegate.lifecycle import State
from tests.lifecycle.helpers import run


@register_validator(name="sluicegate-test/max-amount", data_type="integer")
class MaxAmount(Validator):
    def __init__(self, limit: int = 100_000, on_fail: Any = None, **kwargs: Any) -> None:
        super().__init__(on_fail=on_fail, limit=limit, **kwargs)
        self.limit = limit

    def _validate(self, value: Any, metadata: dict[str, Any]) -> Any:
        return PassResult() if value <= self.limit else FailResult(error_message="over the limit", fix_value=self.limit)


class TransferOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    to: str
    amount_cents: int
    currency: str
    memo: str


def guarded(limit: int, on_fail: str) -> Guard:
    return Guard.for_pydantic(TransferOut).use(MaxAmount(limit=limit, on_fail=on_fail), on="$.amount_cents")


def test_guardrails_coerces_and_prunes_on_its_own() -> None:
    """Why strictness stays in sluicegate: Guardrails passes "125000" and unknown fields (guardrails-ai 0.11)."""
    outcome: Any = guarded(10**9, "exception").parse(
        '{"to":"x","amount_cents":"125000","currency":"CHF","memo":"","y":1}'
    )
    assert outcome.validation_passed and outcome.validated_output["amount_cents"] == 125000


def test_validators_pass() -> None:
    gen = run("anthropic", rules={"transfer": sg.guard_rule(guarded(200_000, "exception"))})
    assert gen.state == State.VALIDATED


def test_a_failing_validator_rejects() -> None:
    for on_fail in ("exception", "noop"):
        gen = run("anthropic", rules={"transfer": sg.guard_rule(guarded(100_000, on_fail))})
        assert gen.state == State.FAILED and gen.rejections[0].code == "business_rule", on_fail


def test_a_fixing_validator_rejects_too() -> None:
    gen = run("anthropic", rules={"transfer": sg.guard_rule(guarded(100_000, "fix"))})  # would set 100000
    assert gen.state == State.FAILED
    assert "changed the value" in gen.rejections[0].detail
