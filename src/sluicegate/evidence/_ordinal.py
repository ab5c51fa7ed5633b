"""Ordinal follow-ups (seed 002, layer 2): "tell me more about the second one".

The position is read from the question (data/ordinals), the list from the previous answer: the site's own
headings and names found in it (`names`), what it quotes (data/quotes.txt), and its heading and list lines.
The item the position names is joined to the retrieval query and its words are used for keyword coverage,
and the model is told which item is meant, only when both can be read without doubt: one position, a
question that says nothing else the answer does not (data/follow_up), every list read agreeing on the item.
Otherwise, the start of the previous answer is joined instead. It is the phrasing that is tested, not the
answer: a follow-up that says "second" by chance also gets the start of the answer and may pass the
threshold; the prompt and the gate are still behind it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

import regex

from .._data import list_names, word_list
from .._gate.markers import strip_markers
from .._gate.person import SUPPORTED_LANGUAGES
from ._coverage import content_words
from ._normalize import normalize_question
from ._patterns import compile_entry, phrase_source

LAST = -1  # the position "the last one"
START_CHARS = 200  # the start of the previous answer joined when no item can be read: its first sentence, capped
MIN_ITEMS = 2  # a list has at least two items
STEM = 4  # a follow-up word matches an answer word sharing its first max(STEM, len-2) characters ("project(s)")

Reason = Literal["item", "out_of_range", "no_list", "ambiguous", "doubtful_position"]
_SLOT = "ordinalslotn"
_NUMBER = r"(?P<n>[0-9]{1,2})"
_SENTENCE_END = regex.compile(r"[.!?。！？؟।]+(?=\s|$)|[。！？]")
_LIST_LINE = regex.compile(r"^[ \t]*(?:#{1,6}[ \t]+|[-*•·][ \t]+|[0-9]{1,3}[.)][ \t]+)(?P<body>.+?)[ \t]*$", regex.M)
_HEADING = regex.compile(r"^[ \t]*#{1,6}[ \t]+")
_BOLD = regex.compile(r"\*\*(?P<b>[^*\n]+)\*\*|__(?P<u>[^_\n]+)__")
_HAN_WORD = regex.compile(r"\p{Han}+")
_TITLE_END = regex.compile(r"\s+[—–-]\s+|:\s|\s\(|[.;,。，：；](?:\s|$)")


@dataclass(frozen=True)
class Ordinal:
    """A position read from a question: 1-based, or `LAST`; `span` is where in the normalized question."""

    position: int
    span: tuple[int, int]


@dataclass(frozen=True)
class FollowUp:
    """What an ordinal follow-up refers to.

    `position`: read from the question (None: the question names no position). `item`: the item it names,
    when the position and the list were both read without doubt (`reason == "item"`), else None. `items`: the
    list read. `context`: the text joined to the retrieval query and to the coverage reading (the item, or
    the start of the previous answer; "" when the question names no position). `only_item`: the question
    says nothing but the item, so coverage also reads the item's own words alone.
    """

    position: int | None
    item: str | None
    items: tuple[str, ...]
    context: str
    reason: Reason | None
    only_item: bool = False


NOT_ORDINAL = FollowUp(None, None, (), "", None)


@cache
def _ordinals(language: str) -> tuple[tuple[int | None, regex.Pattern[str]], ...]:
    if language not in list_names("ordinals"):
        return ()
    out: list[tuple[int | None, regex.Pattern[str]]] = []
    for line in word_list(f"ordinals/{language}.txt"):
        head, _, entry = line.partition(" ")
        position = None if head == "n" else LAST if head == "last" else int(head)
        if entry.startswith("re:"):
            out.append((position, compile_entry(entry, language, origin=f"data/ordinals/{language}.txt")))
            continue
        source = phrase_source(entry.replace("{n}", _SLOT), language).replace(_SLOT, _NUMBER)
        out.append((position, regex.compile(source)))
    return tuple(out)


@cache
def _follow_up_words(language: str) -> tuple[frozenset[str], tuple[str, ...]]:
    if language not in list_names("follow_up"):
        return frozenset(), ()
    entries = [normalize_question(w) for w in word_list(f"follow_up/{language}.txt")]
    return frozenset(e for e in entries if not e.endswith("*")), tuple(e[:-1] for e in entries if e.endswith("*"))


@cache
def _quotes() -> regex.Pattern[str]:
    pairs = [line.split() for line in word_list("quotes.txt")]
    alts = [f"{regex.escape(o)}(?P<q{i}>[^{regex.escape(o + c)}\\n]{{1,120}}){regex.escape(c)}" for i, (o, c) in
            enumerate(pairs)]  # fmt: skip
    return regex.compile("|".join(alts))


def read_ordinals(question: str, *, language: str, also: Sequence[str] = ("en",)) -> list[Ordinal]:
    """Every position the question names (its language's ordinals, then those of `also`), in text order."""
    text = normalize_question(question)
    found: list[Ordinal] = []
    for lang in dict.fromkeys((language, *also)):
        for position, pattern in _ordinals(lang):
            for m in pattern.finditer(text):
                value = position if position is not None else int(m.group("n"))
                if value == 0:
                    continue
                found.append(Ordinal(value, m.span()))
    return sorted(set(found), key=lambda o: o.span)


def read_items(answer: str, *, names: Iterable[str] = ()) -> list[tuple[str, ...]]:
    """The lists an answer holds: the site's `names` in the order the answer mentions them, what it quotes,
    its heading lines and its list lines; each reading with at least two items."""
    text = strip_markers(answer)
    readings = [_named(text, names), _quoted(text), *_lines(text)]
    return [r for r in readings if len(r) >= MIN_ITEMS]


def _named(text: str, names: Iterable[str]) -> tuple[str, ...]:
    folded = normalize_question(text)
    spans: list[tuple[int, int, str]] = []
    for name in dict.fromkeys(n for n in names if n and n.strip()):
        key = normalize_question(name)
        m = regex.search(rf"(?<![\p{{L}}\p{{M}}\p{{Nd}}]){regex.escape(key)}(?![\p{{L}}\p{{M}}\p{{Nd}}])", folded)
        if m:
            spans.append((m.start(), m.end(), name.strip()))
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    kept: list[tuple[int, int, str]] = []
    for start, end, name in spans:  # a name inside a longer one found at the same place is the longer one's
        if kept and start < kept[-1][1]:
            continue
        kept.append((start, end, name))
    return tuple(name for _, _, name in kept)


def _quoted(text: str) -> tuple[str, ...]:
    found = (next(v for v in m.groups() if v is not None).strip() for m in _quotes().finditer(text))
    return tuple(dict.fromkeys(q for q in found if q))


def _lines(text: str) -> list[tuple[str, ...]]:
    headings: list[str] = []
    entries: list[str] = []
    for m in _LIST_LINE.finditer(text):
        title = _title(m.group("body"))
        if title:
            (headings if _HEADING.match(m.group()) else entries).append(title)
    return [tuple(headings), tuple(entries)]


def _title(body: str) -> str:
    bold = _BOLD.search(body)
    if bold and bold.start() == 0:
        return (bold.group("b") or bold.group("u") or "").strip()
    cut = _TITLE_END.search(body)
    return (body[: cut.start()] if cut else body).strip(" *_\"'«»“”„")


def start_of(answer: str) -> str:
    """The start of an answer: its first sentence, markers removed, at most `START_CHARS` (cut at a space)."""
    text = " ".join(strip_markers(answer).split())
    end = _SENTENCE_END.search(text)
    head = text[: end.end()] if end else text
    if len(head) > START_CHARS:
        cut = head.rfind(" ", 0, START_CHARS)
        head = head[: cut if cut > 0 else START_CHARS]
    return head.strip()


def read_follow_up(
    question: str,
    previous_answer: str | None,
    *,
    language: str,
    names: Iterable[str] = (),
    also: Sequence[str] = ("en",),
) -> FollowUp:
    """What a follow-up that names a position refers to (see the module doc); `NOT_ORDINAL` if it names none."""
    if language not in SUPPORTED_LANGUAGES:
        raise ValueError(f"unsupported language {language!r}; supported: {', '.join(SUPPORTED_LANGUAGES)}")
    if not previous_answer:
        return NOT_ORDINAL
    ordinals = read_ordinals(question, language=language, also=also)
    if not ordinals:
        return NOT_ORDINAL
    start = start_of(previous_answer)
    lists = read_items(previous_answer, names=names)
    positions = {o.position for o in ordinals}
    if len(positions) > 1:
        return FollowUp(None, None, _first(lists), start, "doubtful_position")
    position = ordinals[0].position
    leftover = _leftover(_rest(question, ordinals), language)
    if _by_chance(question, ordinals, leftover, previous_answer, lists, language):
        return FollowUp(position, None, _first(lists), start, "doubtful_position")
    if not lists:
        return FollowUp(position, None, (), start, "no_list")
    picked = [_at(items, position) for items in lists]
    if any(p is None for p in picked):
        reason: Reason = "out_of_range" if all(p is None for p in picked) else "ambiguous"
        return FollowUp(position, None, lists[0], start, reason)
    chosen = [p for p in picked if p is not None]
    keys = [normalize_question(p) for p in chosen]
    if not all(a in b or b in a for a in keys for b in keys):
        return FollowUp(position, None, lists[0], start, "ambiguous")
    item = chosen[0]  # names first: the site's own name for it; else what the answer quotes; else its line
    return FollowUp(position, item, lists[0], item, "item", only_item=not leftover)


def _by_chance(
    question: str,
    ordinals: list[Ordinal],
    leftover: list[str],
    answer: str,
    lists: list[tuple[str, ...]],
    language: str,
) -> bool:
    """Whether the question's other words say the ordinal by chance rather than about the list.

    Each must occur in the previous answer; and beside the words of the list's items, at most one may come from
    elsewhere in the answer, the word right after the ordinal (the kind of item: "the second project" after
    "Her main projects are these"). So "Was the library open last year?" after "Last year the library opened
    three branches: ..." is doubtful (library, open, year are the answer's words, not its items').
    """
    units = _answer_units(answer, language)
    if any(not _in_answer(w, units) for w in leftover):
        return True
    listed = _answer_units(" ".join(item for items in lists for item in items), language)
    outside = [w for w in leftover if not _in_answer(w, listed)]
    if not outside:
        return False
    after = _word_after(question, ordinals[-1], language)
    return len(outside) > 1 or outside[0] != after


def _word_after(question: str, ordinal: Ordinal, language: str) -> str | None:
    """The first content word after the ordinal in the normalized question (None at its end)."""
    tail = normalize_question(question)[ordinal.span[1] :]
    found = [(tail.find(w), w) for w in content_words(tail, language)]
    return min((f for f in found if f[0] >= 0), default=(0, None))[1]


def _first(lists: list[tuple[str, ...]]) -> tuple[str, ...]:
    return lists[0] if lists else ()


def _at(items: tuple[str, ...], position: int) -> str | None:
    if position == LAST:
        return items[-1]
    return items[position - 1] if 1 <= position <= len(items) else None


def _rest(question: str, ordinals: list[Ordinal]) -> str:
    """The normalized question with its ordinals cut out (overlapping matches, "second" in "second one", as one)."""
    text = normalize_question(question)
    merged: list[list[int]] = []
    for start, end in sorted(o.span for o in ordinals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in reversed(merged):
        text = text[:start] + " " + text[end:]
    return text


def _leftover(rest: str, language: str) -> list[str]:
    """Content words of the question besides its ordinal that a follow-up does not say ("tell", "more")."""
    plain: set[str] = set()
    prefixes: list[str] = []
    for lang in dict.fromkeys((language, "en")):
        w, p = _follow_up_words(lang)
        plain |= w
        prefixes += p
    for han in sorted((w for w in plain if _HAN_WORD.fullmatch(w)), key=len, reverse=True):
        rest = rest.replace(han, " ")  # Chinese has no spaces: cut the follow-up words out before the bigrams
    return sorted(
        w for w in content_words(rest, language) if w not in plain and not any(w.startswith(p) for p in prefixes)
    )


def _answer_units(answer: str, language: str) -> frozenset[str]:
    return content_words(normalize_question(strip_markers(answer)), language)


def _in_answer(word: str, units: frozenset[str]) -> bool:
    if word in units:
        return True
    size = max(STEM, len(word) - 2)
    return len(word) >= STEM and any(u[:size] == word[:size] for u in units if len(u) >= size)
