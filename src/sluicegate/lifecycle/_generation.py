"""`Generation`: one streamed model answer, from the first event to an executed (or refused) tool call.

What is displayed while the stream runs is a *draft* (`Draft`, `preview()`); what can be stored, indexed or
executed (`tool_calls`, `text`, `output`) exists only after the provider's documented terminal signal, complete
assembly, strict validation and business rules. A closed connection is not success, and no alternative
terminal (cancelled, incomplete, failed, expired) ever promotes the provisional buffers.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from .._stream import Guard, StreamFilter
from ._assembly import Assembly, AssemblyError, Item
from ._ops import Check, Delta, Duplicate, ItemDone, Kind, Op, ProviderId, Start, StreamViolation, Terminal
from ._policy import Policy, idempotency_key
from ._readers.base import EventError, Reader, coerce_event
from ._state import ALTERNATIVE_TERMINALS, IllegalTransition, OutcomeUnknown, State, check_transition
from ._stores.base import DONE, OperationStore
from ._telemetry import Clock, Telemetry
from ._validation import (
    JsonSchemaTool,
    Rejected,
    Rejection,
    Rule,
    ToolDefinition,
    canonical_json,
    compile_tool,
    digest,
    require_closed_schema,
    rules_for,
)
from ._validation import validate_model as _validate

if TYPE_CHECKING:
    from ..sse import SSEParser

log = logging.getLogger("sluicegate.lifecycle")


class _NotApplied:
    def __repr__(self) -> str:
        return "NOT_APPLIED"


NOT_APPLIED: Any = _NotApplied()
_RUN: Any = object()  # `_begin` says: this caller owns the claim, run the tool
"""What a `reconcile` callable returns when the external system has no trace of the operation."""

Reconcile = Callable[[str, "ToolCall"], object]
"""`reconcile(idempotency_key, call)`: the recorded result if the operation was applied, else `NOT_APPLIED`."""


@dataclass(frozen=True)
class ToolCall:
    """A validated tool call: the only kind that can be confirmed and executed."""

    call_id: str
    name: str
    arguments: Any  # the caller's pydantic model instance (or, for a JSON Schema tool, the JSON value)
    canonical: str  # canonical JSON of the validated arguments
    digest: str  # sha256 of `canonical`


@dataclass(frozen=True)
class Draft:
    """A provisional fragment, for display only (a typing cursor, "preparing transfer..."): never a result."""

    key: str
    kind: Kind
    text: str
    name: str | None = None
    draft: bool = True


_LIVE = (State.RECEIVED, State.PROVISIONAL)
_ACCEPTED = (State.VALIDATED, State.CONFIRMED, State.EXECUTED)


class Generation:
    """One generation's state machine, buffers, validation, confirmation and idempotent execution.

    `tools` maps a tool name to its pydantic model (extra="forbid" everywhere; validated with strict=True) or
    to its JSON Schema (validated with `jsonschema`, strictly). `reader` is one of `OpenAIChatReader()`,
    `OpenAIResponsesReader()`, `AnthropicReader()` (one per stream). `rules` maps a tool name (or "output") to a
    business rule that raises to reject. `output` is a model for a structured text answer; `text_filter` (e.g. a
    `SentenceGate`) gates the text drafts and the final text. `principal`, `config_version` and `operation` bind
    the generation to who asked and what for: needed to `confirm` (and so to execute), not to validate.
    """

    def __init__(
        self,
        tools: Mapping[str, ToolDefinition],
        *,
        reader: Reader,
        principal: str | None = None,
        config_version: str | None = None,
        operation: str | None = None,
        rules: Mapping[str, Rule] | None = None,
        output: ToolDefinition | None = None,
        text_filter: StreamFilter | None = None,
        generation_id: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        for name, model in tools.items():
            require_closed_schema(name, model)
        if output is not None:
            require_closed_schema("output", output)
        reader.bind()
        self.id = generation_id or uuid.uuid4().hex  # minted before the connection opens
        self.tools: dict[str, Any] = {
            name: compile_tool(name, m) if isinstance(m, (Mapping, JsonSchemaTool)) else m for name, m in tools.items()
        }
        if isinstance(output, (Mapping, JsonSchemaTool)):
            output = compile_tool("output", output)
        self.reader = reader
        self.principal = principal
        self.config_version = config_version
        self.operation = operation
        self.rules = rules_for(self.tools, rules)
        self.output_model = output
        self.text_filter = text_filter
        self.provider_id: str | None = None
        self._clock = Clock(clock)
        self._state = State.RECEIVED
        self._assembly = Assembly()
        self._rejections: list[Rejection] = []
        self._calls: tuple[ToolCall, ...] = ()
        self._text: str | None = None
        self._output: Any = None
        self._released: list[str] = []  # text released by text_filter (what the drafts showed)
        self._record: str | None = None
        self._executed: set[str] = set()
        # Executors may share one generation across threads (the store makes each run once): the executed set
        # and the move to EXECUTED are one step, or two peers finishing together would both try that move.
        self._executed_lock = threading.Lock()
        self._parser: SSEParser | None = None
        self._parser_text = False
        self.telemetry = Telemetry(self.id, reader.provider, principal, config_version, operation)
        self._transition_log(State.RECEIVED)

    # -- reading -------------------------------------------------------------------------------------------

    @property
    def state(self) -> State:
        return self._state

    @property
    def rejections(self) -> tuple[Rejection, ...]:
        return tuple(self._rejections)

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """Validated calls only; empty in every other state (drafts are never calls)."""
        return self._calls if self._state in _ACCEPTED else ()

    @property
    def text(self) -> str | None:
        """The validated text (after the gate, if any); None until validated."""
        return self._text if self._state in _ACCEPTED else None

    @property
    def output(self) -> Any:
        """The validated structured output (the `output` model instance); None until validated."""
        return self._output if self._state in _ACCEPTED else None

    def preview(self) -> tuple[Draft, ...]:
        """Everything displayable so far, marked as drafts: gated text, raw tool-argument fragments."""
        drafts = []
        if self._released:
            drafts.append(Draft("text", Kind.TEXT, "".join(self._released)))
        for item in self._assembly.items.values():
            if item.kind == Kind.TEXT and self.text_filter is None and item.parts:
                drafts.append(Draft(item.key, Kind.TEXT, item.text))
            elif item.kind == Kind.TOOL and item.parts:
                drafts.append(Draft(item.key, Kind.TOOL, "".join(item.parts), item.name))
        return tuple(drafts)

    # -- feeding -------------------------------------------------------------------------------------------

    def feed(self, event: object) -> tuple[Draft, ...]:
        """Apply one provider event (a dict, or an SSE event); returns the new draft fragments to display."""
        t = self.telemetry
        t.events += 1
        if self._state not in _LIVE:
            t.late_events += 1  # after the terminal signal, a cancellation or a failure: never applied
            return ()
        try:
            name, payload = coerce_event(event)
            if isinstance(payload, Mapping):
                label = str(payload.get("type") or payload.get("object") or "chunk")
                seq = payload.get("sequence_number")
                if isinstance(seq, int) and not isinstance(seq, bool):
                    t.last_sequence = seq
            else:
                label = payload
            t.event_types[label] = t.event_types.get(label, 0) + 1
            ops = self.reader.read_payload(name, payload)
        except EventError as exc:
            self._fail("*", exc.code)
            return ()
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
            # Valid JSON of the wrong shape (a string where the format has an object): fail closed, with a code
            # and the exception's type only (its message could quote the payload).
            self._fail("*", "malformed_event", type(exc).__name__)
            return ()
        drafts: list[Draft] = []
        for op in ops:
            if self._state not in _LIVE:
                break
            self._apply(op, drafts)
        return tuple(drafts)

    def _apply(self, op: Op, drafts: list[Draft]) -> None:
        t = self.telemetry
        try:
            if isinstance(op, Delta):
                self._assembly.delta(op)
                if op.text:
                    self._fragment(self._assembly.items[op.key], op.text, drafts)
            elif isinstance(op, Start):
                if not self._assembly.start(op):
                    t.duplicates_dropped += 1
            elif isinstance(op, ItemDone):
                if not self._assembly.done(op):
                    t.duplicates_dropped += 1
            elif isinstance(op, Check):
                self._assembly.check(op)
            elif isinstance(op, Terminal):
                self._terminal(op, drafts)
            elif isinstance(op, Duplicate):
                t.duplicates_dropped += 1
            elif isinstance(op, ProviderId):
                self.provider_id = t.provider_id = op.value
            elif isinstance(op, StreamViolation):
                self._fail("*", op.code, op.detail)
        except AssemblyError as exc:
            self._fail(exc.key, exc.code)

    def _fragment(self, item: Item, text: str, drafts: list[Draft]) -> None:
        t = self.telemetry
        t.fragments += 1
        if t.to_first_fragment is None:
            t.to_first_fragment = self._clock.elapsed()
        if self._state == State.RECEIVED:
            self._move(State.PROVISIONAL)
        if item.kind == Kind.TOOL:
            drafts.append(Draft(item.key, Kind.TOOL, text, item.name))
        elif item.kind == Kind.TEXT:
            if self.text_filter is None:
                drafts.append(Draft(item.key, Kind.TEXT, text))
                return
            step = self.text_filter.feed(text)
            self._gated(step.text, step.events, drafts)
            if step.stopped:
                self._fail(item.key, "text_gate_stopped")

    def _gated(self, text: str, events: tuple[object, ...], drafts: list[Draft]) -> None:
        if text:
            self._released.append(text)
            drafts.append(Draft("text", Kind.TEXT, text))
        for event in events:
            if isinstance(event, Guard) and event.notice:
                drafts.append(Draft("notice", Kind.TEXT, event.notice))

    def _terminal(self, op: Terminal, drafts: list[Draft]) -> None:
        t = self.telemetry
        t.to_terminal = self._clock.elapsed()
        t.terminal_reason = op.reason
        if op.outcome == "failed":
            self._fail("*", f"provider_{op.outcome}", op.reason, provider_code=op.provider_code)
            return
        if op.outcome != "completed":
            self._incomplete(op.reason)
            return
        if self.reader.closes_items_at_terminal:
            self._assembly.close_all()
        unfinished = [i for i in self._assembly.open_items() if i.kind in (Kind.TEXT, Kind.TOOL)]
        if unfinished:
            self._incomplete("item_not_finished")
            return
        self._move(State.ASSEMBLED)
        self._validate(drafts)

    # -- validation ----------------------------------------------------------------------------------------

    def _validate(self, drafts: list[Draft]) -> None:
        rejections: list[Rejection] = []
        calls: list[ToolCall] = []
        seen_ids: set[str] = set()
        for item in self._assembly.of_kind(Kind.TOOL):
            try:
                calls.append(self._validate_call(item, seen_ids))
            except Rejected as exc:
                rejections.append(Rejection(item.key, exc.code, exc.detail, item.name))
        texts = self._assembly.of_kind(Kind.TEXT)
        for item in texts:
            if item.mismatch:
                rejections.append(Rejection(item.key, "integrity_mismatch", item.mismatch))
        raw_text = "".join(i.text for i in texts)
        text = raw_text
        if self.text_filter is not None:
            step = self.text_filter.flush()
            self._gated(step.text, step.events, drafts)
            text = "".join(self._released)
            if step.stopped or self.text_filter.stopped:
                rejections.append(Rejection("text", "text_gate_stopped"))
        tool_turn = bool(self._assembly.of_kind(Kind.TOOL))
        if self.output_model is not None and not tool_turn:
            # A reply may be tool calls instead of the structured answer, as the providers allow: then the
            # turn is a tool-call turn, its text (a preamble, if any) is text, and `output` stays None.
            try:
                self._output = _validate(self.output_model, raw_text, self.rules.get("output"))
            except Rejected as exc:
                rejections.append(Rejection("output", exc.code, exc.detail))
        if rejections:
            self._rejections.extend(rejections)
            self.telemetry.rejection_codes.extend(r.code for r in rejections)
            self._output = None
            self._leave(State.FAILED)
            return
        self._calls = tuple(calls)
        self._text = text
        self.telemetry.to_validated = self._clock.elapsed()
        self._move(State.VALIDATED)

    def _validate_call(self, item: Item, seen_ids: set[str]) -> ToolCall:
        if item.mismatch:
            raise Rejected("integrity_mismatch", item.mismatch)
        return _checked_call(self.tools, self.rules, item.call_id, item.name, item.text, seen_ids)

    # -- ending --------------------------------------------------------------------------------------------

    def feed_bytes(self, data: bytes | bytearray | memoryview | str) -> tuple[Draft, ...]:
        """Raw SSE bytes of the HTTP response, cut anywhere: parsed by this generation's own `SSEParser`.

        Prefer it to parsing yourself: at `close()` an event left without its final blank line (which the SSE
        rules discard) is counted (`telemetry.unterminated_events`) and logged instead of vanishing."""
        if self._parser is None:
            from ..sse import SSEParser

            self._parser = SSEParser()
            self._parser_text = isinstance(data, str)
        try:
            events = self._parser.feed(data)
        except (ValueError, TypeError) as exc:  # invalid UTF-8, an event over the size bound, bytes and str mixed
            drafts = self._feed_all(getattr(exc, "events", []))
            if self._state in _LIVE:
                self._fail("*", "sse_error", type(exc).__name__)
            return drafts
        return self._feed_all(events)

    def _feed_all(self, events: Iterable[object]) -> tuple[Draft, ...]:
        drafts: list[Draft] = []
        for event in events:
            drafts.extend(self.feed(event))
        return tuple(drafts)

    def _flush_parser(self) -> str | None:
        """End of the byte stream: count and log what the parser still held; a reason if it held an event."""
        parser, self._parser = self._parser, None
        if parser is None:
            return None
        try:
            # A blank line dispatches the block the SSE rules would discard, so it can be counted (not applied).
            pending = parser.feed("\n\n" if self._parser_text else b"\n\n")
            parser.close()
        except ValueError as exc:  # a character cut off at the very end
            self.telemetry.rejection_codes.append(f"sse_error:{type(exc).__name__}")
            return "sse_error"
        if not pending:
            return None
        self.telemetry.unterminated_events += len(pending)
        names = sorted({str(getattr(e, "event", "message")) for e in pending})
        log.warning(
            "generation %s: %d event(s) without their final blank line at the end of the stream, not applied "
            "(SSE event names: %s)",
            self.id,
            len(pending),
            ", ".join(names),
        )
        return "unterminated_event"

    def close(self) -> State:
        """The connection ended. Without the documented terminal signal first, the generation is incomplete."""
        flushed = self._flush_parser()
        if self._state in _LIVE:
            for op in self.reader.at_close():
                if isinstance(op, Terminal) and self._state in _LIVE:
                    self._incomplete(op.reason)
            if self._state in _LIVE:
                self._incomplete(flushed or "closed_without_terminal")
        return self._state

    @property
    def resumable(self) -> bool:
        """Ended incomplete in a way the provider lets you continue: Anthropic `pause_turn` (send the message
        back), a Responses stream cut after a known cursor (`checkpoint()`, then `Generation.resume`)."""
        return self._state is State.INCOMPLETE and self.reader.resumable(self.telemetry.terminal_reason or "")

    # -- resuming after a restart -----------------------------------------------------------------------------

    def checkpoint(self) -> str:
        """The live, provisional state of this generation as JSON, to resume the same stream after a restart
        (`Generation.resume`). Only for streams with a resume cursor (Responses with sequence numbers): without
        one, continuity cannot be proven, so start a new generation (seed 003). It holds provisional fragments:
        store it like a draft, never as a validated version."""
        cursor = getattr(self.reader, "cursor", None)
        if self._state not in _LIVE or not isinstance(cursor, int) or not getattr(self.reader, "numbered", False):
            raise ValueError(
                f"only a live generation on a numbered Responses stream can be resumed (state {self._state.value}, "
                f"cursor {cursor}): start a new generation instead"
            )
        items = [
            {
                "key": i.key,
                "kind": i.kind.value,
                "call_id": i.call_id,
                "name": i.name,
                "initial": i.initial,
                "text": "".join(i.parts),
                "done": i.done,
                "final": i.final,
                "mismatch": i.mismatch,
            }
            for i in self._assembly.items.values()
        ]
        record = {
            "v": 1,
            "checkpoint": True,
            "generation_id": self.id,
            "principal": self.principal,
            "config_version": self.config_version,
            "operation": self.operation,
            "provider": self.reader.provider,
            "provider_id": self.provider_id,
            "state": self._state.value,
            "cursor": cursor,
            "reader": self.reader.state(),
            "items": items,
        }
        return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def resume(
        cls,
        checkpoint: str,
        tools: Mapping[str, ToolDefinition],
        *,
        reader: Reader | None = None,
        rules: Mapping[str, Rule] | None = None,
        output: ToolDefinition | None = None,
        text_filter: StreamFilter | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> Generation:
        """A generation rebuilt from `checkpoint()` after a restart, ready for the events after its cursor.

        `reader` defaults to `OpenAIResponsesReader(starting_after=cursor)`; one you pass must start after the
        same cursor. Open the new connection with `starting_after=cursor` and feed it here: the overlap is
        dropped, the rest continues the same buffers, validated once at the terminal event."""
        from ._readers.openai_responses import OpenAIResponsesReader

        record = json.loads(checkpoint)
        if not isinstance(record, dict) or record.get("checkpoint") is not True or record.get("v") != 1:
            raise ValueError("not a generation checkpoint")
        cursor = record["cursor"]
        if reader is None:
            reader = OpenAIResponsesReader(starting_after=cursor)
        elif getattr(reader, "cursor", None) != cursor:
            raise ValueError(f"the reader must start after the checkpoint's cursor: starting_after={cursor}")
        gen = cls(
            tools,
            reader=reader,
            principal=record["principal"],
            config_version=record["config_version"],
            operation=record["operation"],
            rules=rules,
            output=output,
            text_filter=text_filter,
            generation_id=record["generation_id"],
            clock=clock,
        )
        reader.restore_state(record["reader"])
        for entry in record["items"]:
            item = Item(
                entry["key"],
                Kind(entry["kind"]),
                len(gen._assembly.items),
                entry["call_id"],
                entry["name"],
                entry["initial"],
                [entry["text"]] if entry["text"] else [],
                bool(entry["done"]),
                entry["final"],
                entry["mismatch"],
            )
            gen._assembly.items[item.key] = item
            if item.kind == Kind.TEXT and text_filter is not None and entry["text"]:
                step = text_filter.feed(entry["text"])  # the gate is chunk-invariant: whole text = the deltas
                gen._gated(step.text, step.events, [])
        gen.provider_id = gen.telemetry.provider_id = record["provider_id"]
        if record["state"] == State.PROVISIONAL.value:
            gen._move(State.PROVISIONAL)
        return gen

    def cancel(self) -> State:
        """The user or the system asked to stop; nothing provisional or unexecuted is promoted after this."""
        self.telemetry.cancellations += 1
        self._leave(State.CANCELLED)
        return self._state

    def expire(self) -> State:
        """It is no longer safe to resume or execute (e.g. a confirmation deadline passed)."""
        self._leave(State.EXPIRED)
        return self._state

    def _incomplete(self, reason: str) -> None:
        self.telemetry.incompletes += 1
        self.telemetry.terminal_reason = self.telemetry.terminal_reason or reason
        self._rejections.append(Rejection("*", "incomplete", reason))
        self.telemetry.rejection_codes.append(f"incomplete:{reason}")
        self._leave(State.INCOMPLETE)

    def _fail(self, item: str, code: str, detail: str = "", *, provider_code: str | None = None) -> None:
        self._rejections.append(Rejection(item, code, detail, provider_code=provider_code))
        self.telemetry.rejection_codes.append(code if not detail else f"{code}:{detail}")
        self._leave(State.FAILED)

    def _leave(self, target: State) -> None:
        check_transition(self._state, target)
        if self._state not in _ACCEPTED or self._state == State.VALIDATED:
            shown = [i for i in self._assembly.items.values() if i.kind in (Kind.TEXT, Kind.TOOL) and i.parts]
            self.telemetry.provisional_differences += len(shown)
        self._calls, self._text, self._output = (), None, None
        self._move(target)

    def _move(self, target: State) -> None:
        check_transition(self._state, target)
        self._state = target
        self._transition_log(target)

    def _transition_log(self, state: State) -> None:
        self.telemetry.transitions.append((state.value, self._clock.elapsed()))

    # -- confirmation and execution ------------------------------------------------------------------------

    def _record_json(self) -> str:
        record = {
            "v": 1,
            "generation_id": self.id,
            "principal": self.principal,
            "config_version": self.config_version,
            "operation": self.operation,
            "provider": self.reader.provider,
            "provider_id": self.provider_id,
            "text": self._text,
            "output": None if self._output is None else canonical_json(self._output),
            "calls": [{"call_id": c.call_id, "name": c.name, "arguments": c.canonical} for c in self._calls],
        }
        return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def confirm(self, store: OperationStore) -> str:
        """Persist the validated version under the generation id (a stable key); returns the key."""
        check_transition(self._state, State.CONFIRMED, "only a validated generation can be confirmed")
        missing = [n for n in ("principal", "config_version", "operation") if getattr(self, n) is None]
        if missing:
            raise ValueError(f"confirming binds the version to who asked and what for: pass {', '.join(missing)}")
        record = self._record_json()
        store.put_confirmed(self.id, record)
        self._record = record
        self.telemetry.to_confirmed = self._clock.elapsed()
        self._move(State.CONFIRMED)
        return self.id

    @classmethod
    def restore(
        cls,
        store: OperationStore,
        generation_id: str,
        tools: Mapping[str, ToolDefinition],
        *,
        rules: Mapping[str, Rule] | None = None,
        output: ToolDefinition | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> Generation:
        """A confirmed generation after a restart, from its stored record; ready for `execute`.

        A generation confirmed with structured output needs its `output` model again: the stored value is
        re-validated strictly and must round-trip, like the calls' arguments (never dropped silently)."""
        stored = store.get_confirmed(generation_id)
        if stored is None:
            raise KeyError(f"generation {generation_id} was never confirmed in this store")
        record = json.loads(stored)
        reader = _RestoredReader(record["provider"])
        gen = cls(
            tools,
            reader=reader,
            principal=record["principal"],
            config_version=record["config_version"],
            operation=record["operation"],
            rules=rules,
            output=output,
            generation_id=generation_id,
            clock=clock,
        )
        restored_output = None
        if record.get("output") is not None:
            if output is None:
                raise ValueError(f"generation {generation_id} was confirmed with structured output: pass output=")
            restored_output = _validate(output, record["output"], None)
            if canonical_json(restored_output) != record["output"]:
                raise ValueError("the output model changed: the confirmed output no longer round-trips")
        calls = []
        for entry in record["calls"]:
            model = gen.tools.get(entry["name"])
            if model is None:
                raise ValueError(f"confirmed call {entry['call_id']} uses tool {entry['name']!r}, not declared now")
            value = _validate(model, entry["arguments"], None)
            canonical = canonical_json(value)
            if canonical != entry["arguments"]:
                raise ValueError(f"tool {entry['name']!r} model changed: the confirmed arguments no longer round-trip")
            calls.append(ToolCall(entry["call_id"], entry["name"], value, canonical, digest(canonical)))
        gen.provider_id = gen.telemetry.provider_id = record["provider_id"]
        gen._calls, gen._text, gen._record = tuple(calls), record["text"], stored
        gen._output = restored_output
        for target in (State.ASSEMBLED, State.VALIDATED, State.CONFIRMED):
            gen._move(target)
        return gen

    def idempotency_key(self, call: ToolCall, policy: Policy) -> str:
        return idempotency_key(self.id, call.call_id, call.digest, policy.version)

    def execute(
        self,
        call_id: str,
        tool: Callable[[Any], object],
        *,
        store: OperationStore,
        policy: Policy,
        reconcile: Reconcile | None = None,
    ) -> Any:
        """Run a confirmed call at most once per intent; return its (recorded) JSON result.

        The store is consulted first: a known key returns the recorded result without calling `tool`. A tool
        that raises leaves the operation unknown (`OutcomeUnknown`); later calls stay unknown until `reconcile`
        finds the result or reports `NOT_APPLIED` (only then is the tool run again). Never an automatic retry.
        """
        call, key, ready = self._begin(call_id, store, policy, reconcile)
        if ready is not _RUN:
            return ready
        try:
            result = _dumps(tool(call.arguments))
        except BaseException as exc:
            self._lost(store, key, exc)
        return self._recorded(store, key, call_id, result)

    async def aexecute(
        self,
        call_id: str,
        tool: Callable[[Any], Awaitable[object]],
        *,
        store: OperationStore,
        policy: Policy,
        reconcile: Reconcile | None = None,
    ) -> Any:
        """`execute` for an async tool (the store and `reconcile` are called synchronously; both are short)."""
        call, key, ready = self._begin(call_id, store, policy, reconcile)
        if ready is not _RUN:
            return ready
        try:
            result = _dumps(await tool(call.arguments))
        except BaseException as exc:  # CancelledError too: the request may have left, so the outcome is unknown
            self._lost(store, key, exc)
        return self._recorded(store, key, call_id, result)

    def _begin(
        self, call_id: str, store: OperationStore, policy: Policy, reconcile: Reconcile | None
    ) -> tuple[ToolCall, str, Any]:
        """Checks, authorization and the claim: `_RUN` if this caller owns the run, else the known result."""
        if self._state not in (State.CONFIRMED, State.EXECUTED):
            raise IllegalTransition(self._state, State.EXECUTED, "execute needs a confirmed generation")
        call = next((c for c in self._calls if c.call_id == call_id), None)
        if call is None:
            raise KeyError(f"no confirmed tool call {call_id!r} in generation {self.id}")
        if store.get_confirmed(self.id) != self._record:
            raise IllegalTransition(self._state, State.EXECUTED, "this store holds no such confirmed version")
        assert self.principal is not None and self.operation is not None  # `confirm` required them
        try:
            policy.check(self.principal, self.operation, call)
        except PermissionError:
            self.telemetry.rejection_codes.append("not_authorized")
            raise
        key = self.idempotency_key(call, policy)
        meta = json.dumps(
            {"generation_id": self.id, "call_id": call.call_id, "tool": call.name, "digest": call.digest},
            sort_keys=True,
        )
        record = store.claim(key, meta)
        if record.claimed:
            return call, key, _RUN
        if record.status == DONE and record.result is not None:
            self.telemetry.recorded_results_returned += 1
            self._executed_call(call_id)
            return call, key, json.loads(record.result)
        if reconcile is None:
            self.telemetry.unknown_outcomes += 1
            raise OutcomeUnknown(key, f"the operation is {record.status}; pass reconcile= to look it up")
        try:
            found = reconcile(key, call)
        except Exception as exc:
            self.telemetry.unknown_outcomes += 1
            raise OutcomeUnknown(key, "reconcile could not tell") from exc
        if found is not NOT_APPLIED:
            return call, key, self._recorded(store, key, call_id, _dumps(found), ran=False)
        try:
            store.mark_not_applied(key)  # only from unknown: a pending claim may be a peer still running it
        except KeyError:
            self.telemetry.unknown_outcomes += 1
            raise OutcomeUnknown(
                key,
                f"the operation is {store_status(store, key)}: a peer may still be running it, so a lookup that "
                "finds nothing does not allow a second run (if that executor died, mark_unknown(key) first)",
            ) from None
        if not store.claim(key, meta).claimed:
            self.telemetry.unknown_outcomes += 1
            raise OutcomeUnknown(key, "another executor took the operation after reconciliation")
        return call, key, _RUN

    def _lost(self, store: OperationStore, key: str, exc: BaseException) -> NoReturn:
        store.mark_unknown(key)
        self.telemetry.unknown_outcomes += 1
        if not isinstance(exc, Exception):
            raise exc
        raise OutcomeUnknown(key, f"the tool raised {type(exc).__name__}") from exc

    def _recorded(self, store: OperationStore, key: str, call_id: str, result: str, *, ran: bool = True) -> Any:
        store.complete(key, result)
        if ran:
            self.telemetry.executions += 1
        self._executed_call(call_id)
        return json.loads(result)

    def _executed_call(self, call_id: str) -> None:
        with self._executed_lock:
            self._executed.add(call_id)
            if self._state == State.CONFIRMED and all(c.call_id in self._executed for c in self._calls):
                self.telemetry.to_executed = self._clock.elapsed()
                self._move(State.EXECUTED)


def _checked_call(
    tools: Mapping[str, Any],
    rules: Mapping[str, Rule],
    call_id: str | None,
    name: str | None,
    raw: str,
    seen_ids: set[str],
) -> ToolCall:
    if not call_id:
        raise Rejected("missing_call_id")
    if call_id in seen_ids:
        raise Rejected("duplicate_call_id")
    seen_ids.add(call_id)
    if not name:
        raise Rejected("missing_tool_name")
    model = tools.get(name)
    if model is None:
        raise Rejected("unknown_tool", name)
    value = _validate(model, raw, rules.get(name))
    canonical = canonical_json(value)
    return ToolCall(call_id, name, value, canonical, digest(canonical))


def validate_tool_calls(
    tools: Mapping[str, ToolDefinition],
    calls: Iterable[tuple[str | None, str | None, str]],
    *,
    rules: Mapping[str, Rule] | None = None,
) -> tuple[tuple[ToolCall, ...], tuple[Rejection, ...]]:
    """Validate complete calls `(call_id, name, arguments JSON)` a framework already assembled (NeMo's tool
    output rails): the same identity checks, strict parse, strict schema and rules as a `Generation`."""
    for tool_name, model in tools.items():
        require_closed_schema(tool_name, model)
    checked_rules = rules_for(tools, rules)
    accepted: list[ToolCall] = []
    rejected: list[Rejection] = []
    seen: set[str] = set()
    for call_id, name, raw in calls:
        try:
            accepted.append(_checked_call(tools, checked_rules, call_id, name, raw, seen))
        except Rejected as exc:
            rejected.append(Rejection(call_id or "*", exc.code, exc.detail, name))
    return tuple(accepted), tuple(rejected)


def store_status(store: OperationStore, key: str) -> str:
    record = store.get(key)
    return "absent" if record is None else record.status


def _dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class _RestoredReader(Reader):
    """Stands in for the reader of a generation rebuilt from the store: it reads nothing."""

    def __init__(self, provider: str) -> None:
        super().__init__()
        self.provider = provider

    def read_payload(self, name: str | None, payload: Mapping[str, Any] | str) -> list[Op]:
        return [StreamViolation("restored_generation_reads_nothing")]


def validate_stream(
    source: Iterable[object],
    tools: Mapping[str, ToolDefinition],
    *,
    reader: Reader,
    rules: Mapping[str, Rule] | None = None,
    output: ToolDefinition | None = None,
    text_filter: StreamFilter | None = None,
) -> Generation:
    """The short path when nothing will be executed: feed a whole stream, close it, return the generation.

    `source` yields raw SSE reads (bytes or str, cut anywhere) or provider events (dicts, `SSEEvent`s); no
    principal, configuration version or operation is needed (they are needed only to `confirm`)."""
    gen = Generation(tools, reader=reader, rules=rules, output=output, text_filter=text_filter)
    for chunk in source:
        if isinstance(chunk, (bytes, bytearray, memoryview, str)):
            gen.feed_bytes(chunk)
        else:
            gen.feed(chunk)
    gen.close()
    return gen


__all__ = [
    "ALTERNATIVE_TERMINALS",
    "NOT_APPLIED",
    "Draft",
    "Generation",
    "ToolCall",
    "validate_stream",
    "validate_tool_calls",
]
