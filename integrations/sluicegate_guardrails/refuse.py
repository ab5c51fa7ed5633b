"""`sluicegate/refuse`: an input validator on the messages, so a refused question never reaches the model.

Guardrails validates `on="messages"` before the LLM call, one message's text at a time. A question the
refusal rules refuse fails, and the validator's default on_fail raises `Refused` (a guardrails
`ValidationError`) carrying the fixed localized text and the Decision: the app shows `exc.text`, and the
model was never called. Unlike an agent input guardrail that runs *beside* the model by default, nothing
is generated. The language and the previous question come from the call's metadata (`language`,
`previous`); messages the app wrote itself (the system prompt) are listed in `skip` so they are not judged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from guardrails.errors import ValidationError
from guardrails.validator_base import Validator, register_validator
from guardrails_ai.types import FailResult, PassResult, ValidationResult

from sluicegate.evidence import Decision, RefusalRules

DECISION_KEY = "sluicegate_decision"  # metadata key: a list the validator appends each refusal Decision to


class Refused(ValidationError):
    """The question was refused before the model: `text` is the fixed text to show, `decision` the log record."""

    def __init__(self, text: str, decision: Decision) -> None:
        super().__init__(text)
        self.text = text
        self.decision = decision


def _raise_refused(value: Any, fail_result: FailResult) -> Any:
    decision = (fail_result.metadata or {}).get("decision")
    if not isinstance(decision, Decision):  # pragma: no cover - only our FailResult reaches here
        raise ValidationError(fail_result.error_message)
    raise Refused(decision.text or "", decision)


@register_validator(name="sluicegate/refuse", data_type="string")
class Refuse(Validator):
    """Refuse, before the model, questions matched by `RefusalRules` (shipped generic categories by default).

    `rules`: a RefusalRules, or the keyword arguments to build one (`categories`, `path`, `entries`,
    `aliases`, `texts`). `language`: the default, overridden by metadata["language"]. `skip`: message texts
    not judged (the app's own system prompt). `on_fail` defaults to raising `Refused`; "exception" raises
    guardrails' generic ValidationError, whose message is the fixed text.
    """

    def __init__(
        self,
        rules: RefusalRules | None = None,
        *,
        language: str = "en",
        skip: Iterable[str] = (),
        on_fail: Any = None,
        categories: list[str] | None = None,
        path: str | None = None,
        aliases: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        if on_fail is None or getattr(on_fail, "value", on_fail) == "custom":  # "custom": a serialized guard's
            on_fail = _raise_refused  # record of our default, which lost the function on the way
        # The plain settings travel with a serialized guard (to_dict/from_dict); a RefusalRules object does not.
        settings: dict[str, Any] = {"language": language, "skip": sorted(set(skip))}
        settings.update({k: v for k, v in (("categories", categories), ("path", path), ("aliases", aliases)) if v})
        super().__init__(on_fail=on_fail, **settings, **kwargs)
        self.rules = rules if rules is not None else RefusalRules(categories, path=path, aliases=aliases)
        self.language = language
        self.skip = frozenset(skip)

    def _validate(self, value: Any, metadata: dict[str, Any]) -> ValidationResult:
        if not isinstance(value, str) or value in self.skip:
            return PassResult()
        meta = metadata if isinstance(metadata, dict) else {}
        language = meta.get("language") or self.language
        previous = meta.get("previous")
        decision = self.rules.check(value, language=language, previous=previous if isinstance(previous, str) else None)
        if not decision.refused:
            return PassResult()
        holder = meta.get(DECISION_KEY)
        if isinstance(holder, list):
            holder.append(decision)
        return FailResult(error_message=decision.text or "refused", metadata={"decision": decision})
