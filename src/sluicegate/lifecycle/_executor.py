"""Run every call of a confirmed generation, in the model's order, at most once per intent.

What each framework's tool executor shares (LangChain, LlamaIndex): look the tool up per call, run it through
`Generation.execute` / `aexecute` (the store first, the policy, the idempotency key, `OutcomeUnknown` on a lost
response), collect the recorded results. The adapter only says how to call its framework's tool and how to
wrap a result as its framework's message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from ._policy import Policy
from ._stores.base import OperationStore

if TYPE_CHECKING:
    from ._generation import Generation, Reconcile, ToolCall

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


class ToolExecutor:
    """A framework's tool executor, all but the framework: tools by name, the store, the policy, `run`/`arun`.

    A subclass says how its framework names a tool (`tool_name`), runs it on the validated arguments as JSON
    (`invoke`, `ainvoke`) and answers the model (`message(recorded, call)`); `framework` names it in errors.
    `run(generation)` returns one message per call, in the generation's order; `OutcomeUnknown` propagates.
    """

    framework = "a"

    def __init__(
        self, tools: Sequence[Any], *, store: OperationStore, policy: Policy, reconcile: Reconcile | None = None
    ) -> None:
        self.tools = {self.tool_name(t): t for t in tools}
        self.store = store
        self.policy = policy
        self.reconcile = reconcile

    def tool_name(self, tool: Any) -> str:
        raise NotImplementedError

    def invoke(self, tool: Any, arguments: dict[str, Any]) -> object:
        raise NotImplementedError

    def ainvoke(self, tool: Any, arguments: dict[str, Any]) -> Awaitable[object]:
        raise NotImplementedError

    def message(self, recorded: Any, call: ToolCall) -> Any:
        raise NotImplementedError

    def check_async(self, tool: Any, call: ToolCall) -> None:
        """Raise if `tool` cannot run async: `arun` asks before anything runs."""

    def _tool(self, call: ToolCall) -> Any:
        tool = self.tools.get(call.name)
        if tool is None:
            raise KeyError(f"no {self.framework} tool named {call.name!r} for call {call.call_id}")
        return tool

    def _apply(self, call: ToolCall) -> Callable[[Any], object]:
        tool = self._tool(call)
        return lambda args: self.invoke(tool, args.model_dump(mode="json"))

    def _aapply(self, call: ToolCall) -> Callable[[Any], Awaitable[object]]:
        tool = self._tool(call)
        self.check_async(tool, call)
        return lambda args: self.ainvoke(tool, args.model_dump(mode="json"))

    def run(self, generation: Generation) -> list[Any]:
        done = execute_calls(generation, self._apply, store=self.store, policy=self.policy, reconcile=self.reconcile)
        return [self.message(recorded, call) for call, recorded in done]

    async def arun(self, generation: Generation) -> list[Any]:
        """`run` with the async tools, one call after the other (their order is the model's)."""
        done = await aexecute_calls(
            generation, self._aapply, store=self.store, policy=self.policy, reconcile=self.reconcile
        )
        return [self.message(recorded, call) for call, recorded in done]
