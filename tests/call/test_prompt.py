"""The guarded call renders sluicegate's prompt (issue 29) from the filter it will gate with, hands it out on
`Reserve` and `CallModel`, reserves that prompt by default, and names the item of an ordinal follow-up."""

from __future__ import annotations

from pathlib import Path

from sluicegate import CallModel, GuardedCall, Reserve
from sluicegate.call import run_call
from sluicegate.evidence import EvidenceGate, InMemoryRetriever, Preflight
from sluicegate.prompts import render_prompt
from sluicegate.sources import gate_factory

from .helpers import PASSING, QUESTION, SOURCES, budget, settled_once

LISTED = (
    "Her main projects are these [S1].\n1. Atlas Sky Survey [S1]\n2. Borealis Star Catalogue [S2]\n"
    "3. Cygnus Archive [S3]\n"
)
PASSAGES = [
    ("atlas", "The Atlas Sky Survey mapped the southern sky from Chile."),
    ("borealis", "The Borealis Star Catalogue lists northern stars by brightness."),
    ("cygnus", "The Cygnus Archive keeps the survey's raw images."),
]


def test_call_model_carries_the_prompt_in_the_gates_own_settings() -> None:
    call = GuardedCall(QUESTION, sources=SOURCES, filter_factory=gate_factory(language="fr", refusal_token="RIEN"))
    action = call.start()
    assert isinstance(action, CallModel) and action.prompt is not None
    expected = render_prompt(SOURCES, QUESTION, gate=call.open())
    assert action.prompt == expected and "RIEN" in action.prompt.system and "[S1]" in action.prompt.user
    other = GuardedCall(QUESTION, sources=SOURCES).start()
    assert isinstance(other, CallModel) and other.prompt is not None and other.prompt != action.prompt


def test_prompt_false_renders_none_and_a_redaction_only_filter_gets_none() -> None:
    off = GuardedCall(QUESTION, sources=SOURCES, prompt=False).start()
    assert isinstance(off, CallModel) and off.prompt is None
    from sluicegate import Redactor

    redact_only = GuardedCall(QUESTION, sources=SOURCES, filter_factory=lambda texts: Redactor()).start()
    assert isinstance(redact_only, CallModel) and redact_only.prompt is None  # no gate: nothing to promise


def test_the_budget_reserves_the_rendered_prompt_by_default(tmp_path: Path) -> None:
    cap, store = budget(tmp_path)
    call = GuardedCall(QUESTION, sources=SOURCES, budget=cap)
    first = call.start()
    assert isinstance(first, Reserve) and first.prompt is not None
    sent: list[object] = []

    def model(action: CallModel) -> list[str]:
        sent.append(action.prompt)
        return [PASSING[i : i + 5] for i in range(0, len(PASSING), 5)]

    call = GuardedCall(QUESTION, sources=SOURCES, budget=cap)
    "".join(run_call(call, model=model))  # no prompt_of: the call's own prompt is what is reserved
    assert call.reservation is not None and call.reservation.admitted and sent == [call.prompt]
    assert settled_once(store)


def test_an_ordinal_follow_up_names_its_item_to_the_model_and_reaches_its_passage() -> None:
    flight = Preflight(InMemoryRetriever(PASSAGES, use_embedding=False), gate=EvidenceGate(0.5))
    question = "Tell me more about the second one"
    queries: list[str] = []

    def run(previous_answer: str | None) -> GuardedCall:
        call = GuardedCall(
            question,
            language="en",
            previous="What are her projects?",
            previous_answer=previous_answer,
            preflight=flight,
        )
        action = call.start()
        while action.__class__.__name__ == "Retrieve":
            queries.append(action.query)  # type: ignore[attr-defined]
            action = call.retrieved(flight.retrieve(action.query, language="en"))  # type: ignore[attr-defined]
        return call

    assert run(None).decision is not None and run(None).decision.refused  # nothing to reach without the answer
    call = run(LISTED)
    assert call.decision is not None and call.decision.allowed and call.decision.passage_id == "borealis"
    assert call.prompt is not None and "Borealis Star Catalogue" in call.prompt.user
    assert any(q.endswith("Borealis Star Catalogue") for q in queries)
