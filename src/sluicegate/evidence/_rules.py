"""Layer 1: questions refused before retrieval, with zero embedding and zero model calls.

Why patterns and not a classifier: a classifier that is right most of the time is still a promise the
assistant cannot keep, because its misses are commitments made in someone's name. Patterns miss paraphrases,
and the later layers are there for that; what they catch, they catch every time, at no cost. The refusal is a
fixed text, never the model's words: a refusal written by the model is one the model can take back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .._gate.person import SUPPORTED_LANGUAGES  # one list of the ten languages, the gate's
from .._notices import languages as notice_languages
from .._notices import notice
from ._decision import Decision, MatchedOn
from ._normalize import normalize_question, with_aliases
from ._patterns import Entries, Pattern, by_language, compile_all, first_match, shipped, with_users

GENERIC: tuple[str, ...] = ("instructions", "tasks")  # the shipped categories, on by default


class RefusalRules:
    """Categories of questions that are refused before anything else runs.

    `categories`: which shipped categories to use (default: the generic ones, "instructions" — attempts to
    extract or override the instructions — and "tasks" — write code or a text, translate, solve). `path` and
    `entries` add the user's own categories (fees, availability, private data...), from a directory of
    `<category>/<language>.txt` files or a JSON file, or from code as `{category: {language: [entries]}}`;
    English and Persian entries are regular expressions, the other languages' are phrases (see `patterns`).
    `aliases` (`{"Ada Lovelace": "she"}`) also tries each question with the name read as the pronoun. `texts`
    overrides the refusal text per category and language (default: the fixed "declined" notice). Patterns of the
    question's language are tried, and English ones too (`also`), since prompts drift into English.
    """

    def __init__(
        self,
        categories: Iterable[str] | None = None,
        *,
        path: str | Path | None = None,
        entries: Entries | None = None,
        aliases: Mapping[str, str] | None = None,
        texts: Mapping[str, Mapping[str, str]] | None = None,
        also: Sequence[str] = ("en",),
    ) -> None:
        available = shipped("refusal")
        chosen = tuple(GENERIC if categories is None else categories)
        unknown = [c for c in chosen if c not in available]
        if unknown:
            raise ValueError(f"unknown shipped categories {unknown}; shipped: {sorted(available)}")
        patterns = compile_all({c: available[c] for c in chosen}, origin="sluicegate data/refusal")
        patterns = with_users(patterns, path, entries)
        self._by_language = by_language(patterns)
        self.categories: tuple[str, ...] = tuple(dict.fromkeys(p.category for p in patterns))
        self.aliases = {normalize_question(k): normalize_question(v) for k, v in (aliases or {}).items()}
        self._texts = {c: dict(t) for c, t in (texts or {}).items()}
        self._also = tuple(also)

    def check(self, question: str, *, language: str, previous: str | None = None) -> Decision:
        """Refused (with the category code and the fixed text) or not; never calls anything outside."""
        self._check_language(language)
        found = self.match(question, language=language, previous=previous)
        if found is None:
            return Decision(refused=False, route="refusal", language=language)
        category, matched_on = found
        return Decision(
            refused=True,
            route="refusal",
            language=language,
            category=category,
            text=self.text(category, language),
            matched_on=matched_on,
        )

    def match(self, question: str, *, language: str, previous: str | None = None) -> tuple[str, MatchedOn] | None:
        """The refused category and what matched, or None.

        A question checked with `previous=` is a follow-up: it is also read joined to the previous question,
        and refused when the two read together match ("And for next year?" after "What is her consulting
        fee?", "Now do it." after an attempt to extract the instructions), also when the previous question
        alone was refused already, since a follow-up carries on what it follows. A caller marks a new question
        by leaving `previous` out: the question is then judged alone.
        """
        patterns = self.patterns_for(language)
        for text, matched_on in self._readings(normalize_question(question)):
            hit = first_match(patterns, text)
            if hit is not None:
                return hit.category, matched_on
        if previous:
            for joined, _ in self._readings(normalize_question(f"{previous} {question}")):
                hit = first_match(patterns, joined)
                if hit is not None:
                    return hit.category, "follow_up"
        return None

    def patterns_for(self, language: str) -> list[Pattern]:
        """The patterns tried for a question in `language`: its own, then those of `also`."""
        out = list(self._by_language.get(language, ()))
        for extra in self._also:
            if extra != language:
                out += self._by_language.get(extra, ())
        return out

    def text(self, category: str, language: str) -> str:
        """The fixed refusal text for `category` in `language`."""
        custom = self._texts.get(category, {})
        return custom[language] if language in custom else notice(language, "declined")

    def _readings(self, normalized: str) -> list[tuple[str, MatchedOn]]:
        readings: list[tuple[str, MatchedOn]] = [(normalized, "question")]
        if self.aliases:
            aliased = with_aliases(normalized, self.aliases)
            if aliased != normalized:
                readings.append((aliased, "alias"))
        return readings

    def _check_language(self, language: str) -> None:
        covered = bool(self.categories) and all(language in self._texts.get(c, {}) for c in self.categories)
        if language not in notice_languages() and not covered:
            raise ValueError(f"no refusal text for language {language!r}; supported: {', '.join(SUPPORTED_LANGUAGES)}")
