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

from _show import GROUNDED, PLANTED, QUESTION, SOURCES, pieces  # noqa: E402
from guardrails import Guard  # noqa: E402

import sluicegate_guardrails as sg  # noqa: E402
from sluicegate.sources import gate_from  # noqa: E402


def model(*, messages=None, answer="", **kwargs):
    """A stand-in model: streams a fixed answer in 5-character pieces (guardrails requires **kwargs)."""
    yield from pieces(answer, 5)


def main() -> None:
    guard = Guard().use(sg.StreamGate(filter=gate_from("sources", redact=True), on_fail="fix"))
    # per call: the same list, so [Si] means the same passage to model and gate; with no messages=, the model
    # gets sluicegate's prompt for this gate (sg.default_messages), the sources numbered, then the question
    meta = {"sources": SOURCES, "question": QUESTION}
    for label, answer in (("grounded answer", GROUNDED), ("planted value", PLANTED)):
        s = sg.stream(guard, model, metadata=meta, answer=answer)
        pieces = list(s)
        print(f"stream, {label}\n  pieces: {pieces}\n  reader sees: {''.join(pieces)!r}")
        print(f"  violation: {s.violation}  (guardrails' validation_passed: {s.raw_outcomes[-1].validation_passed})")
    for label, answer in (("grounded answer", GROUNDED), ("planted value", PLANTED)):
        checked = sg.validate(guard, answer, metadata=meta)
        print(f"validate, {label}\n  reader sees: {checked.text!r}\n  violation: {checked.violation}")


if __name__ == "__main__":
    import logging

    logging.getLogger("sluicegate").setLevel(logging.ERROR)  # the gate logs each blocked sentence (server side)
    main()
