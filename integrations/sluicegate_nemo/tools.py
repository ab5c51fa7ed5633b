"""Tool calls in NeMo Guardrails (0.24.x, passthrough mode): a tool output rail that keeps only valid calls.

NeMo runs `rails.tool_output.flows` on complete tool calls before it returns them (`process bot tool call` in
`rails/llm/llm_flows.co`). Measured: a rail that `abort`s does **not** stop them — `extract_tool_calls_from_events`
falls back to the pre-rail `BotToolCalls` event and the blocked calls are returned anyway. So this rail never
aborts: it *replaces* `$tool_calls` with the calls that passed sluicegate's strict validation, and with an empty
list as soon as one call is rejected (one bad call rejects the model's whole intent, as in a `Generation`).

NeMo hands the rail parsed argument dicts (its OpenAI client turns truncated or malformed JSON into `{}`); they
are re-serialized and go through the same strict parse, strict schema and rules as streamed calls, so `{}` for a
tool with required fields, `"5"` for an int and unknown fields are all rejected.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from nemoguardrails import LLMRails, RailsConfig
from pydantic import BaseModel

from sluicegate.lifecycle import Rejection, Rule, validate_tool_calls

TOOL_RAIL_FLOW = "sluicegate check tool calls"
TOOL_RAIL_ACTION = "sluicegate_validate_tool_calls"
TOOL_RAIL_COLANG = f"""
define subflow {TOOL_RAIL_FLOW}
  $tool_calls = execute {TOOL_RAIL_ACTION}(tool_calls=$tool_calls)
"""

log = logging.getLogger("sluicegate")


class ToolCallRail:
    """The action behind the rail; `rejections` keeps the last call's reasons (codes, no values)."""

    def __init__(self, tools: Mapping[str, type[BaseModel]], *, rules: Mapping[str, Rule] | None = None) -> None:
        validate_tool_calls(tools, [], rules=rules)  # refuse open schemas and stray rules at install time
        self.tools = dict(tools)
        self.rules = rules
        self.rejections: tuple[Rejection, ...] = ()

    async def validate(self, tool_calls: Any = None, **_: Any) -> list[dict[str, Any]]:
        # Never raise: NeMo 0.24 answers a failed action with its "internal error" text *and the unvalidated
        # calls* (fail-open, tested), so a call this cannot even read is a rejection, like a bad schema.
        calls, unreadable = [], []
        for tc in tool_calls or []:
            try:
                function = tc.get("function") or {}
                arguments = function.get("arguments")
                raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
                calls.append((tc.get("id"), function.get("name"), raw))
            except (AttributeError, TypeError, ValueError, RecursionError):
                unreadable.append(Rejection("*", "invalid_json", "the call could not be read as JSON"))
        accepted, rejected = validate_tool_calls(self.tools, calls, rules=self.rules)
        self.rejections = (*unreadable, *rejected)
        if self.rejections:
            log.warning("tool calls withheld: %s", ", ".join(sorted({r.code for r in self.rejections})))
            return []
        return [
            {"id": c.call_id, "type": "function", "function": {"name": c.name, "arguments": json.loads(c.canonical)}}
            for c in accepted
        ]


def tool_rail_config(yaml_content: str = "", colang_content: str = "") -> RailsConfig:
    """A passthrough config with the sluicegate tool output rail added to yours."""
    base = f"passthrough: true\nrails:\n  tool_output:\n    flows:\n      - {TOOL_RAIL_FLOW}\n"
    config = RailsConfig.from_content(yaml_content=base, colang_content=TOOL_RAIL_COLANG)
    if yaml_content or colang_content:
        config = config + RailsConfig.from_content(yaml_content=yaml_content or "{}", colang_content=colang_content)
    return config


def install_tool_rail(
    rails: LLMRails, tools: Mapping[str, type[BaseModel]], *, rules: Mapping[str, Rule] | None = None
) -> ToolCallRail:
    """Register the rail's action on `rails` (built from `tool_rail_config()`); returns it for inspection."""
    flows = rails.config.rails.tool_output.flows
    if TOOL_RAIL_FLOW not in flows:
        raise ValueError(f"the config has no {TOOL_RAIL_FLOW!r} tool output rail: build it with tool_rail_config()")
    rail = ToolCallRail(tools, rules=rules)
    rails.register_action(rail.validate, name=TOOL_RAIL_ACTION)
    return rail
