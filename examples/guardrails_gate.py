"""sluicegate + Guardrails AI, offline: what a reader sees when an answer passes and when it is stopped.

Run: python examples/guardrails_gate.py   (needs `pip install 'sluicegate[guardrails]'`; no network, no key)

Guardrails AI phones home unless told not to; the block below does it for this process only:
- HOME -> a folder whose .guardrailsrc says enable_metrics=false (Guard() re-reads it on every construction);
- NLTK_DATA -> a folder with an empty tokenizers/punkt (guardrails' import downloads punkt if nltk is
  installed and punkt is missing; nothing here uses it);
- LITELLM_LOCAL_MODEL_COST_MAP=True (litellm would fetch its cost map on the first call).
The demo filter holds text until a sentence ends (". ") and stops on "2019"; use sluicegate.SentenceGate or
sluicegate.Redactor for real.
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
from sluicegate import Done, Guard as GuardEvent, Step  # noqa: E402

GOOD = "The report is ready. It covers the year 2018 only. Bye now."
BAD = "The report is ready. It covers the year 2019 only. Bye now."


class DemoStopFilter:
    """A tiny StreamFilter: releases whole sentences, stops for good on one that mentions 2019."""

    def __init__(self) -> None:
        self.buf, self.stopped, self.done = "", False, False

    def feed(self, piece: str) -> Step:
        if self.stopped or self.done:
            return Step(stopped=self.stopped)
        self.buf += piece
        out = ""
        while (i := self.buf.find(". ")) >= 0:
            sentence, self.buf = self.buf[: i + 2], self.buf[i + 2 :]
            if "2019" in sentence:
                self.stopped, self.buf = True, ""
                return Step(out, True, (GuardEvent(("forbidden",), "Stopped."), Done("stopped")))
            out += sentence
        return Step(out)

    def flush(self, *, truncated: bool = False) -> Step:
        if self.stopped or self.done:
            return Step(stopped=self.stopped)
        tail, self.buf, self.done = self.buf, "", True
        if "2019" in tail:
            self.stopped = True
            return Step("", True, (GuardEvent(("forbidden",), "Stopped."), Done("stopped")))
        return Step(tail, False, (Done("truncated" if truncated else "complete"),))


def model(*, messages=None, answer="", **kwargs):
    """A stand-in model: streams a fixed answer in 5-character pieces (guardrails requires **kwargs)."""
    for i in range(0, len(answer), 5):
        yield answer[i : i + 5]


def main() -> None:
    guard = Guard().use(sg.StreamGate(filter=lambda metadata: DemoStopFilter(), on_fail="fix"))
    messages = [{"role": "user", "content": "What does the report cover?"}]
    for label, answer in (("good answer", GOOD), ("planted 2019", BAD)):
        s = sg.stream(guard, model, messages=messages, answer=answer)
        pieces = list(s)
        print(f"stream, {label}\n  pieces: {pieces}\n  reader sees: {''.join(pieces)!r}")
        print(f"  violation: {s.violation}  (guardrails' validation_passed: {s.raw_outcomes[-1].validation_passed})")
    checked = sg.validate(guard, BAD)
    print(f"validate, planted 2019\n  reader sees: {checked.validated_output!r}\n  violation: {checked.violation}")


if __name__ == "__main__":
    main()
