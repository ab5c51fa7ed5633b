"""Render the system prompt (data/prompts/<language>.json) and the user message with the numbered sources.

Why the settings come from the gate: a prompt that tells the model to answer "NO_ANSWER" while the gate waits
for another token, or shows markers the gate does not accept, turns every rule-abiding answer into a stop.
`settings_of(filter)` reads the language, the refusal token and the source count from the `SentenceGate`
(also inside a `Pipeline`), and the markers are written by the gate's own `marker()`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from .._gate.checks import CITATION_MISSING, CITATION_OUT_OF_RANGE, FIRST_PERSON, UNSUPPORTED_VALUE
from .._gate.gate import DEFAULT_REFUSAL_TOKEN, SentenceGate, _language
from .._gate.markers import marker
from .._gate.person import SUPPORTED_LANGUAGES
from ..sources import format_sources

# The seed's rules, in the order the prompt states them.
RULES: tuple[str, ...] = (
    "sources_only",
    "third_person",
    "reader_language",
    "no_terms",
    "no_new_numbers",
    "currently",
    "markers",
    "refusal",
)

# Each rule's deterministic twin after (or before) the model; an empty tuple: no check can back it.
RULE_CHECKS: Mapping[str, tuple[str, ...]] = {
    "sources_only": (CITATION_OUT_OF_RANGE, UNSUPPORTED_VALUE),
    "third_person": (FIRST_PERSON,),
    "reader_language": (),
    "no_terms": ("refusal_rules", UNSUPPORTED_VALUE),
    "no_new_numbers": (UNSUPPORTED_VALUE,),
    "currently": (),
    "markers": (CITATION_MISSING, CITATION_OUT_OF_RANGE),
    "refusal": ("refusal_token",),
}

_KEYS = (
    "intro",
    "rules",
    "example_one",
    "example_two",
    "marker_range",
    "marker_range_one",
    "marker_range_unknown",
    "sources_heading",
    "no_sources",
    "question_heading",
    "item_note",
)
_RULE_TEXTS = (*RULES, "third_person_named", "refusal_no_token")


@cache
def _texts(language: str) -> dict[str, Any]:
    path = resources.files("sluicegate").joinpath(f"data/prompts/{language}.json")
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    missing = [k for k in _KEYS if k not in data] + [f"rules.{r}" for r in _RULE_TEXTS if r not in data["rules"]]
    if missing:
        raise ValueError(f"data/prompts/{language}.json lacks {missing}")
    return data


@dataclass(frozen=True)
class PromptSettings:
    """What the prompt must agree on with the gate: the reader's language, the refusal token (None: the gate
    has none), and how many sources the markers may cite (None: not known yet)."""

    language: str = "en"
    refusal_token: str | None = DEFAULT_REFUSAL_TOKEN
    source_count: int | None = None


def settings_of(filt: object) -> PromptSettings:
    """The settings of the `SentenceGate` in `filt` (itself, or a stage of a `Pipeline`).

    A filter without a `SentenceGate` is an error: the prompt would promise checks nothing runs."""
    for stage in (filt, *getattr(filt, "filters", ())):
        if isinstance(stage, SentenceGate):
            return PromptSettings(stage.language, stage.refusal_token, stage.source_count)
    raise TypeError(
        f"{type(filt).__name__} holds no SentenceGate: pass the settings (PromptSettings(language=..., "
        "refusal_token=...)) instead of a filter"
    )


def _settings(gate: object | None, settings: PromptSettings | None, language: str | None) -> PromptSettings:
    if gate is not None and settings is not None:
        raise TypeError("pass gate= or settings=, not both")
    found = settings_of(gate) if gate is not None else (settings or PromptSettings())
    if language is not None:
        wanted = _language(language)
        if gate is not None and wanted != found.language:
            raise ValueError(f"language {wanted!r} differs from the gate's {found.language!r}: the gate checks its own")
        found = PromptSettings(wanted, found.refusal_token, found.source_count)
    return PromptSettings(_language(found.language), found.refusal_token, found.source_count)


def system_prompt(
    language: str | None = None,
    *,
    gate: object | None = None,
    settings: PromptSettings | None = None,
    subject: str | None = None,
) -> str:
    """The system prompt in the reader's language, with the gate's refusal token and marker format.

    `gate`: the filter the answer will pass (a `SentenceGate`, or a `Pipeline` holding one); its language,
    token and source count fill the prompt. Without it, `settings` (default: English, "NO_ANSWER", any count).
    `subject`: the person or organisation the answers are about, named in the third-person rule.
    """
    s = _settings(gate, settings, language)
    data = _texts(s.language)
    rules = data["rules"]
    count = s.source_count
    if count is None or count < 1:
        span = data["marker_range_unknown"]
    elif count == 1:
        span = data["marker_range_one"].format(first=marker(1))
    else:
        span = data["marker_range"].format(first=marker(1), last=marker(count))
    markers = {"marker1": marker(1), "marker2": marker(2)}
    example = data["example_one" if count == 1 else "example_two"].format(**markers)
    fill = {**markers, "example": example, "marker_range": span, "subject": subject or ""}
    lines: list[str] = []
    for rule in RULES:
        key = rule
        if rule == "third_person" and subject:
            key = "third_person_named"
        if rule == "refusal":
            if s.refusal_token is None:
                key = "refusal_no_token"
            fill["refusal_token"] = s.refusal_token or ""
        lines.append(rules[key].format(**fill))
    numbered = "\n".join(f"{i}. {line}" for i, line in enumerate(lines, start=1))
    return f"{data['intro']}\n\n{numbered}"


def user_message(
    sources: Sequence[str],
    question: str,
    *,
    language: str = "en",
    item: str | None = None,
    position: int | None = None,
) -> str:
    """The user turn: the numbered sources ([S1] ... in the gate's format), then the question.

    `item` (and its `position`): the list item an ordinal follow-up names ("the second one"), so the model is
    told which item is meant (`sluicegate.evidence.read_follow_up`).
    """
    data = _texts(_language(language))
    block = format_sources(list(sources)) or data["no_sources"]
    parts = [data["sources_heading"], block, ""]
    if item:
        parts.append(data["item_note"].format(position=position if position is not None else "", item=item))
    parts.append(f"{data['question_heading']} {question}")
    return "\n".join(parts)


def sources_block(sources: Sequence[str], *, language: str = "en") -> str:
    """The numbered sources under their localized heading ("Sources:\n[S1] ..."), for hosts that build the
    rest of the prompt themselves (NeMo's own template)."""
    data = _texts(_language(language))
    return f"{data['sources_heading']}\n{format_sources(list(sources)) or data['no_sources']}"


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt: the system message and the user message (sources and question)."""

    system: str
    user: str

    def messages(self) -> list[dict[str, str]]:
        """Chat messages in the OpenAI/Anthropic shape: `[{"role": "system", ...}, {"role": "user", ...}]`."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]


def render_prompt(
    sources: Sequence[str],
    question: str,
    *,
    gate: object | None = None,
    settings: PromptSettings | None = None,
    language: str | None = None,
    subject: str | None = None,
    item: str | None = None,
    position: int | None = None,
) -> Prompt:
    """The system prompt and the user message for one model call over `sources`, numbered as the gate numbers.

    With `gate`, its source count must equal `len(sources)` (a `ValueError` otherwise: the markers in the
    prompt would point at other texts than the gate checks against).
    """
    texts = list(sources)
    s = _settings(gate, settings, language)
    if s.source_count is not None and s.source_count != len(texts):
        raise ValueError(f"the gate checks {s.source_count} sources but the prompt would number {len(texts)}")
    s = PromptSettings(s.language, s.refusal_token, len(texts))
    return Prompt(
        system_prompt(settings=s, subject=subject),
        user_message(texts, question, language=s.language, item=item, position=position),
    )


def template_prompt(
    *,
    gate: object | None = None,
    settings: PromptSettings | None = None,
    language: str | None = None,
    subject: str | None = None,
    context: str = "context",
    question: str = "question",
) -> Prompt:
    """The prompt as a `{name}`-style template for a framework's prompt class (LangChain's `ChatPromptTemplate`,
    LlamaIndex's `ChatPromptTemplate`): every brace doubled except the `{context}` slot (the numbered sources,
    `format_sources`) and the `{question}` slot. The source count is not known yet, so the system prompt names
    no range ("only the markers of the sources given"); the gate still checks the range.
    """
    s = _settings(gate, settings, language)
    s = PromptSettings(s.language, s.refusal_token, None)
    data = _texts(s.language)
    system = _escape(system_prompt(settings=s, subject=subject))
    user = "\n".join(
        [_escape(data["sources_heading"]), f"{{{context}}}", "", f"{_escape(data['question_heading'])} {{{question}}}"]
    )
    return Prompt(system, user)


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


assert set(RULE_CHECKS) == set(RULES) and all(lang for lang in SUPPORTED_LANGUAGES)
