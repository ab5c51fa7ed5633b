"""The chat request body, validated with pydantic, read with a size limit.

Invalid JSON or a missing/ill-typed field is 422 with FastAPI-shaped `{"detail": [...]}` (the submitted values
are not echoed back); a body over the limit is 413, decided from Content-Length when given and by counting
otherwise, so an oversized body is never read whole into memory.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request

DEFAULT_MAX_BODY_BYTES = 64 * 1024


class Message(BaseModel):
    """One earlier turn of the conversation."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    role: Literal["user", "assistant"]
    content: str = Field(max_length=32_000)


class ChatRequest(BaseModel):
    """What the browser posts: the question, its language, and the conversation so far."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    question: str = Field(min_length=1, max_length=8_000)
    language: str = Field(default="en", pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
    history: tuple[Message, ...] = Field(default=(), max_length=50)


class BodyError(Exception):
    """A request body we refuse, with the status and JSON body to answer with."""

    def __init__(self, status: int, content: dict[str, Any]) -> None:
        super().__init__(status)
        self.status = status
        self.content = content


async def read_body(request: Request, limit: int) -> bytes:
    """The raw body, or `BodyError(413)` as soon as it is known to exceed `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyError(413, {"detail": f"request body over {limit} bytes"})
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyError(413, {"detail": f"request body over {limit} bytes"})
        chunks.append(chunk)
    return b"".join(chunks)


def parse_body(raw: bytes, model: type[BaseModel], content_type: str | None) -> BaseModel:
    """Validate `raw` as JSON for `model`; `BodyError` 415/422 otherwise."""
    if content_type is not None:
        media = content_type.split(";")[0].strip().lower()
        if media != "application/json" and not media.endswith("+json"):
            raise BodyError(415, {"detail": f"expected application/json, got {media or 'nothing'}"})
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        detail = [{"type": "json_invalid", "loc": ["body"], "msg": f"invalid JSON: {type(exc).__name__}"}]
        raise BodyError(422, {"detail": detail}) from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BodyError(422, {"detail": exc.errors(include_url=False, include_input=False)}) from None
