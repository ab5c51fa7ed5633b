"""Fixed, localized texts the reader may see: the refusal, the stop notice, the truncation notice, the
refusal of a question declined before retrieval (`declined`) and the monthly spend limit (`monthly_limit`).

Why fixed: a notice written by the model would be one more unverified claim. The texts live in
`data/notices.json` so translators edit data, not code.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Literal

NoticeKind = Literal["refusal", "stopped", "truncated", "declined", "monthly_limit"]


@lru_cache(maxsize=1)
def _all() -> dict[str, dict[str, str]]:
    raw = json.loads(resources.files("sluicegate").joinpath("data/notices.json").read_text("utf-8"))
    return {code: texts for code, texts in raw.items() if not code.startswith("_")}


def languages() -> tuple[str, ...]:
    """Language codes with notices."""
    return tuple(_all())


def notice(language: str, kind: NoticeKind) -> str:
    """The fixed `kind` text in `language` (a supported code)."""
    return _all()[language][kind]
