"""The overview route: questions about someone's work as a whole are answered from records, not similarity.

Why: "what has she done recently?" has no nearest neighbour. Its answer is a list ordered by date, and no
passage looks like that (with the seed's embedding, it scored below a question about the weather). Such
questions are recognized by patterns per language and get the user's records, newest first, instead of the
threshold. They are exempt from nothing else: the refusal rules run first, the sentence gate after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path

from .._notices import notice
from ._decision import NO_RECORDS, Decision, Record
from ._normalize import normalize_question, with_aliases
from ._patterns import Entries, Pattern, by_language, compile_all, first_match, shipped, with_users

RecordsSource = Callable[[str, str], Iterable[Record]]  # (question, language) -> the records to answer from


class Overview:
    """Send overview questions to `records(question, language)`.

    Shipped patterns (data/overview/work/<language>.txt: what someone does or did recently, their background,
    projects, research, writing, education, skills, services) can be turned off with `shipped=False`; `path`
    and `entries` add the user's own, in the refusal rules' formats. `aliases` reads a name as a pronoun, so
    "Ada Lovelace's projects" is read as "her projects". `limit` caps the records passed on. With `fallback`
    (default), a question that names the subject (an alias name) but that neither the patterns route nor any
    passage supports gets a brief overview (`brief_limit` newest records) instead of a refusal (`Preflight`).
    """

    def __init__(
        self,
        records: RecordsSource,
        *,
        shipped_patterns: bool = True,
        path: str | Path | None = None,
        entries: Entries | None = None,
        aliases: Mapping[str, str] | None = None,
        limit: int | None = None,
        brief_limit: int = 5,
        fallback: bool = True,
        also: Sequence[str] = ("en",),
    ) -> None:
        patterns: list[Pattern] = []
        if shipped_patterns:
            patterns += compile_all(shipped("overview"), origin="sluicegate data/overview")
        self._by_language = by_language(with_users(patterns, path, entries))
        self._records = records
        self.aliases = {normalize_question(k): normalize_question(v) for k, v in (aliases or {}).items()}
        self.limit = limit
        self.brief_limit = brief_limit
        self.fallback = fallback
        self._also = tuple(also)

    def matches(self, question: str, *, language: str) -> bool:
        """Whether `question` is an overview question (as asked, or with an alias read as its pronoun)."""
        patterns = list(self._by_language.get(language, ()))
        for extra in self._also:
            if extra != language:
                patterns += self._by_language.get(extra, ())
        normalized = normalize_question(question)
        readings = [normalized, with_aliases(normalized, self.aliases)] if self.aliases else [normalized]
        return any(first_match(patterns, text) is not None for text in readings)

    def about(self, question: str) -> bool:
        """Whether `question` names the subject (one of the alias names, as a whole word)."""
        normalized = normalize_question(question)
        return any(with_aliases(normalized, {name: "\x00"}) != normalized for name in self.aliases)

    def brief(self, question: str, *, language: str) -> Decision:
        """The fallback for a question about the subject that no pattern routed and no passage supports: a brief
        overview of the records (the newest `brief_limit`) rather than a refusal, because a wrong refusal tells the
        reader the site does not cover a subject it covers. The sentence gate still checks what is said."""
        records = ordered(self._records(question, language))[: self.brief_limit]
        if not records:
            return Decision(True, "overview", language, category=NO_RECORDS, text=notice(language, "refusal"))
        return Decision(False, "overview", language, matched_on="brief", records=tuple(records))

    def decide(self, question: str, *, language: str) -> Decision | None:
        """None for a question this route does not take; else the records (newest first), or a refusal if none."""
        if not self.matches(question, language=language):
            return None
        records = ordered(self._records(question, language))
        if self.limit is not None:
            records = records[: self.limit]
        if not records:
            return Decision(True, "overview", language, category=NO_RECORDS, text=notice(language, "refusal"))
        return Decision(False, "overview", language, records=tuple(records))


def ordered(records: Iterable[Record]) -> list[Record]:
    """Dated records newest first (by their own start date, then end date), undated ones after, in given order."""
    items = list(records)
    for record in items:
        if not isinstance(record, Record):
            raise TypeError(f"the records callable must yield Record objects, got {type(record).__name__}")
    dated = [r for r in items if r.date is not None]
    undated = [r for r in items if r.date is None]
    dated.sort(key=lambda r: (r.end or r.date or date.min, r.date or date.min), reverse=True)
    return dated + undated
