"""Layer 3 of seed 002: the system prompt, the only layer a model can ignore.

It asks for what the gate checks after the model, in the reader's language, with the refusal token and the
marker format read from the gate itself, so the prompt and the gate can never disagree. It is written assuming
it will sometimes be ignored: its job is to make the answer that passes the gate the easy one to write. Each
rule's deterministic twin is in `RULE_CHECKS` (and docs/prompts.md).
"""

from .._public import publish
from ._render import (
    RULE_CHECKS,
    RULES,
    Prompt,
    PromptSettings,
    render_prompt,
    settings_of,
    sources_block,
    system_prompt,
    template_prompt,
    user_message,
)

__all__ = [
    "RULES",
    "RULE_CHECKS",
    "Prompt",
    "PromptSettings",
    "render_prompt",
    "settings_of",
    "sources_block",
    "system_prompt",
    "template_prompt",
    "user_message",
]

publish(__name__, globals())  # one documented place per public name (docs/api.md)
