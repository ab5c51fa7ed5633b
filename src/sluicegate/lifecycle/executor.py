"""Run every call of a confirmed generation, in the model's order, at most once per intent.

What each framework's tool executor shares (LangChain, LlamaIndex): look the tool up per call, run it through
`Generation.execute` / `aexecute` (the store first, the policy, the idempotency key, `OutcomeUnknown` on a lost
response), collect the recorded results. The adapter only says how to call its framework's tool and how to
wrap a result as its framework's message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .policy import Policy
from .stores.base import OperationStore

if TYPE_CHECKING:
    from .generation import Generation, Reconcile, ToolCall

ApplyFor = Callable[["ToolCall"], Callable[[Any], object]]
AsyncApplyFor = Callable[["ToolCall"], Callable[[Any], Awaitable[object]]]


def execute_calls(
    generation: Generation,
    apply_for: ApplyFor,
    *,
    store: OperationStore,
    policy: Policy,
    reconcile: Reconcile | None = None,
) -> list[tuple[ToolCall, Any]]:
    """`(call, recorded result)` for each validated call; `apply_for(call)` gives the function run on its
    arguments (it may raise, e.g. for an unknown tool, before anything runs). `OutcomeUnknown` propagates."""
    results = []
    for call in generation.tool_calls:
        apply = apply_for(call)
        results.append((call, generation.execute(call.call_id, apply, store=store, policy=policy, reconcile=reconcile)))
    return results


async def aexecute_calls(
    generation: Generation,
    apply_for: AsyncApplyFor,
    *,
    store: OperationStore,
    policy: Policy,
    reconcile: Reconcile | None = None,
) -> list[tuple[ToolCall, Any]]:
    """`execute_calls` with async tools, one call after the other (their order is the model's)."""
    results = []
    for call in generation.tool_calls:
        apply = apply_for(call)
        result = await generation.aexecute(call.call_id, apply, store=store, policy=policy, reconcile=reconcile)
        results.append((call, result))
    return results
