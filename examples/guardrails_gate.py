"""sluicegate + Guardrails AI, offline: a grounded answer, a planted unsupported value, and PII redaction.

Run: python examples/guardrails_gate.py   (needs `pip install 'sluicegate[guardrails]'`; no network, no key)

Guardrails AI phones home unless told not to; the block below does it for this process only:
- HOME -> a folder whose .guardrailsrc says enable_metrics=false (Guard() re-reads it on every construction);
- NLTK_DATA -> a folder with an empty tokenizers/punkt (guardrails' import downloads punkt if nltk is
  installed and punkt is missing; nothing here uses it);
- LITELLM_LOCAL_MODEL_COST_MAP=True (litellm would fetch its cost map on the first call).
The filter is the real one: the SentenceGate over the call's sources (metadata["sources"], numbered
[S1]..[Sn] in the prompt by the same helper), piped into the Redactor; `gate_from("sources", redact=True)`
builds a fresh one per call. The stand-in model streams in 5-character pieces, so the e-mail arrives split.
"""

from __future__ import annotations

import os
import tempfile

_home = tempfile.mkdtemp(prefix="sluicegate-gai-")
with open(os.path.join(_home, ".guardrailsrc"), "w", encoding="utf-8") as rc:
    rc.write("enable_metrics=false\nuse_remote_inferencing=false\n")
os.makedirs(os.path.join(_home, "nltk_data", "tokenizers", "punkt"))
os.environ.update(HOME=_home, NLTK_DATA=os.path.join(_home, "nltk_data"), LITELLM_LOCAL_MODEL_COST_MAP="True")

from guardrails import Guard  # noqa: E402

import sluicegate_guardrails as sg  # noqa: E402
from sluicegate.sources import format_sources, gate_from  # noqa: E402

SOURCES = [
    "The library opens at nine on weekdays and at ten on Saturdays.",
    "Late fees were abolished in 2019.",
    "Questions go to the front desk at help.desk@citylib.example.",
]
GROUNDED = (
    "The library opens at nine on weekdays [S1]. Late fees were abolished in 2019 [S2]. "
    "Write to help.desk@citylib.example with questions [S3]."
)
# The second sentence cites [S2] for a year that is in no source: the gate stops there.
PLANTED = GROUNDED.replace("in 2019", "in 2017")


def model(*, messages=None, answer="", **kwargs):
    """A stand-in model: streams a fixed answer in 5-character pieces (guardrails requires **kwargs)."""
    for i in range(0, len(answer), 5):
        yield answer[i : i + 5]


def main() -> None:
    guard = Guard().use(sg.StreamGate(filter=gate_from("sources", redact=True), on_fail="fix"))
    question = "When is the library open, and whom do I ask?"
    prompt = f"Answer from these sources, citing them:\n{format_sources(SOURCES)}\n\nQuestion: {question}"
    messages = [{"role": "user", "content": prompt}]
    meta = {"sources": SOURCES}  # per call: the same list, so [Si] means the same passage to model and gate
    for label, answer in (("grounded answer", GROUNDED), ("planted value", PLANTED)):
        s = sg.stream(guard, model, messages=messages, metadata=meta, answer=answer)
        pieces = list(s)
        print(f"stream, {label}\n  pieces: {pieces}\n  reader sees: {''.join(pieces)!r}")
        print(f"  violation: {s.violation}  (guardrails' validation_passed: {s.raw_outcomes[-1].validation_passed})")
    for label, answer in (("grounded answer", GROUNDED), ("planted value", PLANTED)):
        checked = sg.validate(guard, answer, metadata=meta)
        print(f"validate, {label}\n  reader sees: {checked.validated_output!r}\n  violation: {checked.violation}")


if __name__ == "__main__":
    import logging

    logging.getLogger("sluicegate").setLevel(logging.ERROR)  # the gate logs each blocked sentence (server side)
    main()
