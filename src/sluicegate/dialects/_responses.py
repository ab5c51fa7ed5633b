"""OpenAI Responses: `response.*` named events with a `sequence_number` that rises by one, and the body.

Text goes in one `message` output item (one `output_text` part); each validated tool call is a whole
`function_call` item after it (`output_item.added`, one `function_call_arguments.delta` with the complete
arguments, `.done`, `output_item.done`). A stop is the notice as the last `output_text.delta`, the items closed,
then `response.incomplete` with `incomplete_details.reason: "content_filter"` (never `response.completed`). An
upstream failure is an `error` event (nested `error` object too, as real streams send it: the SDK raises).
Server items (`server`: web search, code interpreter, MCP...) go out as the upstream sent them, with our
`output_index` and `sequence_number`; text after one goes in a new `message` item.
"""

from __future__ import annotations

from typing import Any

from ._base import Billed, Encoder, End, Thought, named
from ._chat import error_body


class ResponsesEncoder(Encoder):
    """Frames for one Responses answer."""

    dialect = "responses"

    def __init__(self, model: str, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self._seq = -1
        self._message_id = "msg_" + self.id.removeprefix("resp_")
        self._message_open = False
        self._message_text = ""  # the open message item's text
        self._annotations: list[dict[str, Any]] = []  # the open message's, when its text is the upstream's
        self._messages = 0
        self._items: list[dict[str, Any]] = []  # finished output items, in order
        self._reasoning: dict[str, int] = {}  # reasoning item id -> its output_index
        self._reasoning_open: str | None = None
        self._part_index: dict[str, int] = {}  # reasoning part -> its summary_index / content_index

    def _prefix(self) -> str:
        return "resp_sg"

    def _event(self, kind: str, **fields: Any) -> bytes:
        self._seq += 1
        return named(kind, {"type": kind, **fields, "sequence_number": self._seq})

    def _response(self, status: str, usage: Billed | None = None, reason: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "response",
            "created_at": self.created,
            "status": status,
            "model": self.model,
            "output": list(self._items),
            "incomplete_details": {"reason": reason} if reason else None,
            "error": None,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": None if usage is None else _usage(usage),
        }

    def _start(self) -> bytes:
        response = self._response("in_progress")
        return self._event("response.created", response=response) + self._event(
            "response.in_progress", response=response
        )

    def _text(self, delta: str) -> bytes:
        out = b""
        if not self._message_open:
            self._message_open = True
            self._message_text = ""
            self._annotations = []
            self._messages += 1
            if self._messages > 1:  # text after a server item: a message item of its own
                self._message_id = f"msg_{self.id.removeprefix('resp_')}_{self._messages}"
            item = {
                "id": self._message_id,
                "type": "message",
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            }
            out += self._event("response.output_item.added", output_index=len(self._items), item=item)
            part = {"type": "output_text", "text": "", "annotations": []}
            out += self._event(
                "response.content_part.added",
                item_id=self._message_id,
                output_index=len(self._items),
                content_index=0,
                part=part,
            )
        self._message_text += delta
        return out + self._event(
            "response.output_text.delta",
            item_id=self._message_id,
            output_index=len(self._items),
            content_index=0,
            delta=delta,
            logprobs=[],
        )

    def _close_message(self, status: str) -> bytes:
        if not self._message_open:
            return b""
        self._message_open = False
        text = self._text_so_far
        index = len(self._items)
        part = {"type": "output_text", "text": text, "annotations": list(self._annotations)}
        item = {"id": self._message_id, "type": "message", "role": "assistant", "status": status, "content": [part]}
        out = self._event(
            "response.output_text.done",
            item_id=self._message_id,
            output_index=index,
            content_index=0,
            text=text,
            logprobs=[],
        )
        out += self._event(
            "response.content_part.done", item_id=self._message_id, output_index=index, content_index=0, part=part
        )
        out += self._event("response.output_item.done", output_index=index, item=item)
        self._items.append(item)
        return out

    @property
    def _text_so_far(self) -> str:
        return self._message_text

    def _server(self, events: list[dict[str, Any]]) -> bytes:
        """A server item's events (`output_item.added` ... `.done`) with our `output_index` and numbers."""
        out = self._close_message("completed")
        index = len(self._items)
        item: dict[str, Any] | None = None
        for event in events:
            kind = str(event.get("type"))
            fields = {k: v for k, v in event.items() if k not in ("type", "sequence_number")}
            if "output_index" in fields:
                fields["output_index"] = index
            if kind in ("response.output_item.added", "response.output_item.done") and isinstance(
                event.get("item"), dict
            ):
                item = event["item"]
            out += self._event(kind, **fields)
        if item is not None:
            self._items.append(item)
        return out

    def finals(self, items: list[dict[str, Any]]) -> bytes:
        """The upstream's `response.completed` copy of the server items we passed replaces ours (by id)."""
        by_id = {i.get("id"): i for i in items}
        self._items = [by_id.get(i.get("id"), i) if i.get("type") != "message" else i for i in self._items]
        return b""

    def annotations(self, text: str, annotations: list[dict[str, Any]]) -> bytes:
        """The upstream message's annotations, passed only when our message shows its text unchanged: their
        `start_index`/`end_index` point into that text (after a replacement they would point elsewhere)."""
        if self.ended or not self._message_open or self._message_text != text or self._annotations:
            return b""
        out = b""
        for n, annotation in enumerate(annotations):
            out += self._event(
                "response.output_text.annotation.added",
                item_id=self._message_id,
                output_index=len(self._items),
                content_index=0,
                annotation_index=n,
                annotation=annotation,
            )
        self._annotations = list(annotations)
        return out

    def boundary(self, citations: bool) -> bytes:
        """The upstream opened a new message item: close ours, so the next text opens a new one too."""
        return self._close_message("completed")

    def _tool_call(self, call_id: str, name: str, arguments: str) -> bytes:
        out = self._close_message("completed")
        index = len(self._items)
        item_id = f"fc_{self.id.removeprefix('resp_')}_{index}"
        item = {
            "id": item_id,
            "type": "function_call",
            "call_id": call_id,
            "name": name,
            "arguments": "",
            "status": "in_progress",
        }
        out += self._event("response.output_item.added", output_index=index, item=item)
        out += self._event(
            "response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=arguments
        )
        out += self._event(
            "response.function_call_arguments.done", item_id=item_id, output_index=index, name=name, arguments=arguments
        )
        done = {**item, "arguments": arguments, "status": "completed"}
        out += self._event("response.output_item.done", output_index=index, item=done)
        self._items.append(done)
        return out

    # Reasoning: one `reasoning` output item per upstream item (its id kept), its summary parts
    # (`reasoning_summary_part.added`, `reasoning_summary_text.delta`/`.done`, `reasoning_summary_part.done`) and
    # `reasoning_text` content parts (`content_part.added`, `reasoning_text.delta`/`.done`, `content_part.done`)
    # numbered by this encoder, the `.done` events carrying the redacted text.

    def _think_item(self, item: str) -> bytes:
        if item in self._reasoning:
            return b""
        out = self._close_message("completed")
        self._reasoning[item] = len(self._items)
        self._reasoning_open = item
        added = {"id": item, "type": "reasoning", "summary": [], "status": "in_progress"}
        return out + self._event("response.output_item.added", output_index=len(self._items), item=added)

    def _part_fields(self, thought: Thought) -> dict[str, Any]:
        index = self._part_index[thought.key]
        where = "summary_index" if thought.kind == "summary" else "content_index"
        return {"item_id": thought.item, "output_index": self._reasoning[thought.item], where: index}

    def _think_open(self, thought: Thought) -> bytes:
        if thought.item not in self._reasoning or self._reasoning_open != thought.item:
            return b""
        siblings = [t for t in self.answer.thoughts.values() if t.item == thought.item and t.kind == thought.kind]
        self._part_index[thought.key] = len(siblings) - 1
        if thought.kind == "summary":
            part = {"type": "summary_text", "text": ""}
            return self._event("response.reasoning_summary_part.added", **self._part_fields(thought), part=part)
        part = {"type": "reasoning_text", "text": ""}
        return self._event("response.content_part.added", **self._part_fields(thought), part=part)

    def _think(self, thought: Thought, delta: str) -> bytes:
        if thought.key not in self._part_index or self._reasoning_open != thought.item:
            return b""
        kind = "response.reasoning_summary_text.delta" if thought.kind == "summary" else "response.reasoning_text.delta"
        return self._event(kind, **self._part_fields(thought), delta=delta)

    def _think_done(self, thought: Thought, complete: bool) -> bytes:
        if thought.key not in self._part_index or self._reasoning_open != thought.item:
            return b""
        fields = self._part_fields(thought)
        if thought.kind == "summary":
            part = {"type": "summary_text", "text": thought.text}
            out = self._event("response.reasoning_summary_text.done", **fields, text=thought.text)
            return out + self._event("response.reasoning_summary_part.done", **fields, part=part)
        part = {"type": "reasoning_text", "text": thought.text}
        out = self._event("response.reasoning_text.done", **fields, text=thought.text)
        return out + self._event("response.content_part.done", **fields, part=part)

    def _think_item_done(self, item: str, extra: dict[str, Any], complete: bool) -> bytes:
        if self._reasoning_open != item:
            return b""
        self._reasoning_open = None
        parts = [t for t in self.answer.thoughts.values() if t.item == item]
        done: dict[str, Any] = {
            "id": item,
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": t.text} for t in parts if t.kind == "summary"],
            "status": "completed" if complete else "incomplete",
        }
        texts = [{"type": "reasoning_text", "text": t.text} for t in parts if t.kind == "text"]
        if texts:
            done["content"] = texts
        if extra.get("encrypted_content"):  # ciphertext only the provider reads: passed on as it came
            done["encrypted_content"] = extra["encrypted_content"]
        out = self._event("response.output_item.done", output_index=self._reasoning[item], item=done)
        self._items.append(done)
        return out

    def _finish(self, end: End, usage: Billed) -> bytes:
        if end in (End.COMPLETE, End.TOOL_CALLS):
            out = self._close_message("completed")
            return out + self._event("response.completed", response=self._response("completed", usage))
        reason = "content_filter" if end is End.CONTENT_FILTER else "max_output_tokens"
        out = self._close_message("incomplete")
        return out + self._event("response.incomplete", response=self._response("incomplete", usage, reason))

    def _error(self, code: str, message: str) -> bytes:
        nested = error_body(code, message, "upstream_error")["error"]
        return self._event("error", code=code, message=message, param=None, error=nested)

    def body(self) -> dict[str, Any]:
        a = self.answer
        end = a.end or End.COMPLETE
        if self._message_open or (a.text and not any(i["type"] == "message" for i in self._items)):
            self._close_message("completed" if end in (End.COMPLETE, End.TOOL_CALLS) else "incomplete")
        usage = a.usage or Billed(0, 0)
        if end in (End.COMPLETE, End.TOOL_CALLS):
            return self._response("completed", usage)
        return self._response(
            "incomplete", usage, "content_filter" if end is End.CONTENT_FILTER else "max_output_tokens"
        )


def _usage(usage: Billed) -> dict[str, Any]:
    """The billed totals, and the upstream's breakdown where it sent one (the type requires the two fields)."""
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": 0, **usage.details.get("input_tokens_details", {})},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0, **usage.details.get("output_tokens_details", {})},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def output_text(body: dict[str, Any]) -> str:
    """The text of a Responses body (what the SDK's `output_text` property joins)."""
    return "".join(
        part.get("text", "")
        for item in body.get("output", [])
        if item.get("type") == "message"
        for part in item.get("content", [])
        if part.get("type") == "output_text"
    )
