from guardrails import Guard
from guardrails_gate import PLANTED, SOURCES, model  # sets HOME for an offline Guardrails AI, the scripted model

import sluicegate_guardrails as sg
from sluicegate.sources import gate_from

guard = Guard().use(sg.StreamGate(filter=gate_from("sources", redact=True)))  # one validator: gate + redaction
messages = [{"role": "user", "content": "When is the library open?"}]
s = sg.stream(guard, model, messages=messages, metadata={"sources": SOURCES}, answer=PLANTED)
print(repr("".join(s)))  # released text, then the notice a paragraph apart
print(s.violation)  # None, or the reason codes (do not rely on validation_passed)
print(s.outcome.reason, s.outcome.guard.reasons, len(s.raw_outcomes) > 0)  # a sluicegate.Outcome
checked = sg.validate(guard, PLANTED, metadata={"sources": SOURCES})
print(repr(checked.validated_output))  # the released text only
print(repr(checked.text))  # what to show: with the notice after a stop
