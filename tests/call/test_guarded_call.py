"""The guarded call as a state machine: seed 002's order, the actions it hands out, and one settle per end."""

from __future__ import annotations

from pathlib import Path

import pytest

from sluicegate import (
    CallModel,
    CallState,
    CallStateError,
    Finished,
    GuardedCall,
    Refuse,
    Reserve,
    Retrieve,
    Settle,
    Show,
    Stop,
)
from sluicegate.evidence import Passage

from .helpers import (
    PASSED,
    PASSING,
    QUESTION,
    REFUSED_QUESTION,
    SOURCES,
    STOP_RELEASED,
    STOPPING,
    budget,
    preflight,
    retriever,
)


def _walk_to_model(call: GuardedCall, tmp_prompt: str = "prompt") -> CallModel:
    action = call.start()
    while not isinstance(action, CallModel):
        if isinstance(action, Retrieve):
            action = call.retrieved(retriever().retrieve(action.query))
        elif isinstance(action, Reserve):
            action = call.reserved(action.budget.reserve(tmp_prompt, language=action.language))
        else:
            raise AssertionError(f"unexpected {action!r}")
    return action


def test_a_refusal_rule_refuses_before_retrieval_and_reserves_nothing(tmp_path: Path) -> None:
    cap, store = budget(tmp_path)
    pre = preflight()
    call = GuardedCall(REFUSED_QUESTION, preflight=pre, budget=cap)
    action = call.start()
    assert isinstance(action, Refuse)
    assert (action.stage, action.reason) == ("rules", "instructions")
    assert action.text and action.decision is not None and action.decision.refused
    assert pre.retriever.calls == 0  # type: ignore[union-attr]
    assert store.reserved_ids == [] and call.state is CallState.DONE
    assert call.outcome.reason == "refused" and call.outcome.released == action.text
    assert isinstance(call.end(), Finished)  # nothing to settle, ever


def test_the_order_is_rules_retrieval_evidence_reservation_model(tmp_path: Path) -> None:
    cap, store = budget(tmp_path)
    call = GuardedCall(QUESTION, preflight=preflight(), budget=cap)
    first = call.start()
    assert isinstance(first, Retrieve) and first.query == QUESTION
    second = call.retrieved(retriever().retrieve(first.query))
    assert isinstance(second, Reserve) and second.sources == tuple(SOURCES)
    assert store.reserved_ids == []  # the reservation is the caller's I/O, done only now
    model = call.reserved(cap.reserve("a prompt"))
    assert isinstance(model, CallModel)
    assert (model.max_output_tokens, model.model) == (256, "small")
    assert model.sources == tuple(SOURCES) and model.decision is not None and model.decision.allowed


def test_no_evidence_refuses_after_retrieval_without_reserving(tmp_path: Path) -> None:
    cap, store = budget(tmp_path)
    call = GuardedCall("What is the boiling point of mercury?", preflight=preflight(), budget=cap)
    action = call.start()
    assert isinstance(action, Retrieve)
    refused = call.retrieved([Passage("x", "Bananas are yellow.", 0.01)])
    assert isinstance(refused, Refuse) and (refused.stage, refused.reason) == ("evidence", "no_evidence")
    assert store.reserved_ids == []


def test_a_follow_up_retrieves_twice_and_joins_the_previous_question(tmp_path: Path) -> None:
    call = GuardedCall("And where?", previous=QUESTION, preflight=preflight())
    first = call.start()
    assert isinstance(first, Retrieve) and not first.joined
    second = call.retrieved([])
    assert isinstance(second, Retrieve) and second.joined and second.query == f"{QUESTION} And where?"
    third = call.retrieved(retriever().retrieve(second.query))
    assert isinstance(third, CallModel) and third.sources == tuple(SOURCES)


def test_a_full_cap_refuses_with_its_notice_and_nothing_to_settle(tmp_path: Path) -> None:
    cap, store = budget(tmp_path, monthly_cap="0.000001")
    call = GuardedCall(sources=SOURCES, budget=cap)
    reserve = call.start()
    assert isinstance(reserve, Reserve)
    refused = call.reserved(cap.reserve("x" * 1000))
    assert isinstance(refused, Refuse) and (refused.stage, refused.reason) == ("budget", "monthly_limit")
    assert refused.text == refused.reservation.notice  # type: ignore[union-attr]
    assert call.outcome.violations == ("monthly_limit",)
    assert isinstance(call.end(), Finished) and store.asked == {}


def test_receive_shows_released_text_then_stops_with_the_notice() -> None:
    call = GuardedCall(sources=SOURCES)
    assert isinstance(call.start(), CallModel)
    actions = [a for piece in STOPPING for a in call.receive(piece)]
    shown = "".join(a.text for a in actions if isinstance(a, Show))
    stops = [a for a in actions if isinstance(a, Stop)]
    assert shown == STOP_RELEASED and len(stops) == 1 and call.stopped
    assert stops[0].guard is not None and stops[0].guard.reasons == ("unsupported_value",)
    assert "2019" not in shown
    end = call.end()
    assert isinstance(end, Finished) and end.outcome.reason == "stopped"


def test_a_complete_answer_is_settled_once_with_its_metered_usage(tmp_path: Path) -> None:
    cap, store = budget(tmp_path)
    call = GuardedCall(sources=SOURCES, budget=cap)
    _walk_to_model(call)
    shown = "".join(a.text for a in call.receive(PASSING) + call.end_of_stream() if isinstance(a, Show))
    assert shown == PASSED
    settle = call.end()
    assert isinstance(settle, Settle) and settle.usage is not None
    assert settle.usage.received_bytes == len(PASSING.encode())
    assert isinstance(call.end(), Finished)  # a second end (a finally after a finally) settles nothing
    finished = call.settled(settle.budget.settle(settle.reservation, settle.usage))
    assert finished.outcome.reason == "complete" and store.asked[settle.reservation.id] == 1


@pytest.mark.parametrize(
    ("error", "reason"),
    [(None, "cancelled"), (ConnectionError("provider"), "truncated"), (KeyboardInterrupt(), "cancelled")],
)
def test_an_end_before_the_model_answered_still_settles_once(tmp_path: Path, error, reason) -> None:
    cap, _ = budget(tmp_path)
    call = GuardedCall(sources=SOURCES, budget=cap)
    _walk_to_model(call)
    settle = call.end(error=error)
    assert isinstance(settle, Settle) and call.state is CallState.SETTLING
    assert call.outcome.reason == reason
    assert isinstance(call.end(), Finished)


def test_methods_out_of_order_raise() -> None:
    call = GuardedCall(sources=SOURCES)
    with pytest.raises(CallStateError):
        call.retrieved([])
    with pytest.raises(CallStateError):
        call.feed("x")
    call.start()
    with pytest.raises(CallStateError):
        call.start()
    with pytest.raises(CallStateError):
        call.settled()


def test_preflight_needs_a_question_and_excludes_given_sources() -> None:
    with pytest.raises(TypeError):
        GuardedCall(preflight=preflight())
    with pytest.raises(ValueError):
        GuardedCall(QUESTION, preflight=preflight(), sources=SOURCES)


def test_an_app_filter_replaces_the_default_gate() -> None:
    from sluicegate import Redactor

    call = GuardedCall(sources=SOURCES)
    call.start()
    call.open(Redactor())
    shown = "".join(a.text for a in call.receive("mail me at ada@example.com ") + call.end_of_stream())
    assert "ada@example.com" not in shown


def test_model_call_allows_one_call_within_the_reservation(tmp_path: Path) -> None:
    from sluicegate import UnreservedCall

    cap, _ = budget(tmp_path)
    early = GuardedCall(sources=SOURCES, budget=cap)
    with pytest.raises(UnreservedCall, match="before the call was admitted"):
        early.model_call("hi")
    call = GuardedCall(sources=SOURCES, budget=cap)
    _walk_to_model(call, tmp_prompt="a short prompt")
    with pytest.raises(UnreservedCall, match="exceeds"):
        call.model_call("a much longer prompt than the one reserved")
    call.model_call("a short prompt")
    with pytest.raises(UnreservedCall, match="second model call"):
        call.model_call("a short prompt")
    assert call.model_calls == 1


def test_a_refused_reservation_lets_no_model_call_through(tmp_path: Path) -> None:
    from sluicegate import UnreservedCall

    cap, _ = budget(tmp_path, monthly_cap="0")
    call = GuardedCall(sources=SOURCES, budget=cap)
    reserve = call.start()
    call.reserved(cap.reserve("p"))
    assert isinstance(reserve, Reserve)
    with pytest.raises(UnreservedCall):
        call.model_call("p")
