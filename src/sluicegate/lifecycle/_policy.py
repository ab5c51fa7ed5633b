"""Authorization before execution, and the idempotency key bound to the confirmed intent.

The key is computed by the server from what was confirmed — generation id, tool-call id, a digest of the
canonical validated arguments, the policy version — so it is the same for every network retry, every replayed
event and every process that picks the work up, and different as soon as any of those changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._errors import SluicegateError

if TYPE_CHECKING:
    from ._generation import ToolCall


class NotAuthorized(SluicegateError, PermissionError):
    """The policy refused this call for this principal and operation; nothing was executed."""


@dataclass(frozen=True)
class Policy:
    """Who may run which tool: `version` enters the idempotency key (a new policy is a new decision).

    `tools`: tool names allowed at all (None: every declared tool). `authorize(principal, operation, call)`:
    an optional server-side check returning True to allow (e.g. amount limits per principal).
    """

    version: str
    tools: Collection[str] | None = None
    authorize: Callable[[str, str, ToolCall], bool] | None = None

    def check(self, principal: str, operation: str, call: ToolCall) -> None:
        if not self.version:
            raise ValueError("Policy.version must be a non-empty string (it is part of the idempotency key)")
        if self.tools is not None and call.name not in self.tools:
            raise NotAuthorized(f"tool {call.name!r} is not allowed by policy {self.version}")
        if self.authorize is not None and self.authorize(principal, operation, call) is not True:
            raise NotAuthorized(f"policy {self.version} refused {call.name!r} for principal {principal!r}")


def idempotency_key(generation_id: str, call_id: str, args_digest: str, policy_version: str) -> str:
    """H(generation id, tool-call id, canonical-arguments digest, policy version), hex, with a version prefix."""
    material = "\x1f".join((generation_id, call_id, args_digest, policy_version)).encode("utf-8")
    return "sg1-" + hashlib.sha256(material).hexdigest()
