"""Per-stream identity: which filter judges which stream, when many streams share one LLMRails.

NeMo hands a streaming rail no request id, so the session travels two ways, and the rail accepts either:
a `ContextVar` (copied into NeMo's generation task, so `GatedLLM` sees it too) and a string id in a
`{"role": "context", "content": {"sluicegate_session": id}}` message (NeMo merges that into the rail's
context). Only strings go into the message: NeMo JSON-serialises context messages on its LLM path.
A rail that finds neither fails closed.
"""

from __future__ import annotations

import contextlib
import uuid
import weakref
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from sluicegate.host import Session

CONTEXT_KEY = "sluicegate_session"

_CURRENT: ContextVar[StreamSession | None] = ContextVar("sluicegate_nemo_session", default=None)
# Weak: a session lives as long as the stream that owns it; a forgotten one cannot pile up here.
_REGISTRY: weakref.WeakValueDictionary[str, StreamSession] = weakref.WeakValueDictionary()


class SessionMissing(RuntimeError):
    """A streamed answer reached sluicegate with no session: nothing can vouch for it, so it is stopped."""


@dataclass(eq=False)
class StreamSession(Session):
    """One guarded stream (filter, outcome, meter: `sluicegate.sessions.Session`) plus its id and NeMo flags."""

    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    gated: bool = False  # the answer went through `filter` upstream of NeMo (set by gated()/GatedLLM)
    blocked: bool = False  # NeMo's guardrails_violation frame was sent for this stream
    cancelled: bool = False  # the consumer left: the gated model stream returns at its next step
    prompt: str | None = None  # sluicegate's system prompt and numbered sources, for GatedLLM to send

    def __post_init__(self) -> None:
        _REGISTRY[self.id] = self

    def context_message(self) -> dict[str, Any]:
        return {"role": "context", "content": {CONTEXT_KEY: self.id}}

    def close(self) -> None:
        _REGISTRY.pop(self.id, None)


def current_session(context: Mapping[str, Any] | None = None) -> StreamSession | None:
    """The session for this call: the ContextVar first, else the id in the rail's context."""
    session = _CURRENT.get()
    if session is not None:
        return session
    sid = (context or {}).get(CONTEXT_KEY)
    return _REGISTRY.get(sid) if isinstance(sid, str) else None


@contextlib.contextmanager
def use_session(session: StreamSession) -> Iterator[StreamSession]:
    """Make `session` current for code run inside (set and reset in the same task)."""
    token = _CURRENT.set(session)
    try:
        yield session
    finally:
        _CURRENT.reset(token)


def set_current(session: StreamSession) -> None:
    """For `contextvars.Context.run`: bind `session` in a copied context that is never reset."""
    _CURRENT.set(session)
