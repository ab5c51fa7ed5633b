"""A provider's error code or type, kept only when it looks like a code (it goes into telemetry and logs)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_CODE = re.compile(r"[A-Za-z0-9_.:\-]{1,64}")


def provider_code(error: object, *fields: str) -> str | None:
    """The first of `fields` in the error object that is a short code (`insufficient_quota`, `502`), else None.

    Only identifiers pass: a provider message can quote the prompt, so free text never becomes a code."""
    if not isinstance(error, Mapping):
        return None
    for name in fields:
        value: Any = error.get(name)
        if isinstance(value, bool) or value is None:
            continue
        text = str(value) if isinstance(value, (str, int)) else ""
        if _CODE.fullmatch(text):
            return text
    return None
