"""Ordinal follow-ups (seed 002, layer 2): "the second one" names an item of the previous answer.

The item is joined to the retrieval query and read for keyword coverage, and the model is told which item
is meant, only when the position and the list are both read without doubt; otherwise the start of the
previous answer is joined. The phrasing is tested, not the answer: "second" said by chance gets the start.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate import SUPPORTED_LANGUAGES
from sluicegate.evidence import (
    LAST,
    NOT_ORDINAL,
    EvidenceGate,
    InMemoryRetriever,
    Passage,
    Preflight,
    read_follow_up,
    read_items,
    read_ordinals,
    retrieve_for,
    start_of,
)
from sluicegate.prompts import render_prompt

LISTED = (
    "Her main projects are these [S1].\n1. Atlas Sky Survey [S1]\n2. Borealis Star Catalogue [S2]\n"
    "3. Cygnus Archive [S3]\n"
)
QUOTED = "Her main projects are «Atlas» [S1], «Borealis» [S2] and «Cygnus» [S3]."

# "tell me more about the second one" in each of the ten languages
SECOND = {
    "en": "Tell me more about the second one",
    "fr": "Parle-moi davantage du deuxième",
    "de": "Erzähl mir mehr über den zweiten",
    "es": "Háblame más del segundo",
    "pt": "Fale mais sobre o segundo",
    "ru": "Расскажи подробнее о втором",
    "fa": "دربارهٔ دومی بیشتر توضیح بده",
    "ar": "أخبرني المزيد عن الثاني",
    "hi": "दूसरे के बारे में और बताइए",
    "zh": "详细介绍一下第二个",
}


def test_every_language_has_its_ordinals_and_the_example() -> None:
    assert set(SECOND) == set(SUPPORTED_LANGUAGES)


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_a_follow_up_naming_a_position_gets_the_item(language: str) -> None:
    found = read_follow_up(SECOND[language], LISTED, language=language)
    assert found.reason == "item" and found.position == 2
    assert found.item == "Borealis Star Catalogue" and found.context == found.item and found.only_item
    assert found.items == ("Atlas Sky Survey", "Borealis Star Catalogue", "Cygnus Archive")


@pytest.mark.parametrize(
    ("language", "question", "position"),
    [
        ("en", "and the last one?", LAST),
        ("en", "What about number 3?", 3),
        ("en", "the 1st", 1),
        ("fr", "et le dernier ?", LAST),
        ("de", "Und der letzte?", LAST),
        ("ru", "А третий?", 3),
        ("ru", "А последний?", LAST),
        ("fa", "مورد ۳ چطور؟", 3),
        ("fa", "سومی چی؟", 3),
        ("ar", "وماذا عن الثالث؟", 3),
        ("hi", "और तीसरा?", 3),
        ("zh", "第3个呢？", 3),
        ("zh", "最后一个呢？", LAST),
        ("es", "¿Y el tercero?", 3),
        ("pt", "E o terceiro?", 3),
    ],
)
def test_positions_are_read_in_every_script(language: str, question: str, position: int) -> None:
    assert [o.position for o in read_ordinals(question, language=language)] == [position]
    found = read_follow_up(question, LISTED, language=language)
    assert found.reason == "item" and found.item == ("Cygnus Archive" if position in (3, LAST) else "Atlas Sky Survey")


def test_words_that_contain_an_ordinal_are_not_one() -> None:
    assert read_ordinals("第二十个项目", language="zh") == []  # twentieth, not second
    assert read_ordinals("Во вторник?", language="ru") == []  # Tuesday
    assert read_ordinals("What about the secondary school?", language="en") == []


@pytest.mark.parametrize(
    ("language", "question"), [("en", "And the fifth one?"), ("fr", "Et le cinquième ?"), ("zh", "第九个呢？")]
)
def test_a_position_out_of_range_gets_the_start_of_the_answer(language: str, question: str) -> None:
    found = read_follow_up(question, LISTED, language=language)
    assert found.reason == "out_of_range" and found.item is None and found.position is not None
    assert found.context == start_of(LISTED) == "Her main projects are these."


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "Wait a second, who won the election?"),
        ("en", "Who was the second president of France?"),
        ("fr", "Qui a gagné la deuxième guerre mondiale ?"),
        ("ru", "Кто победил во второй мировой войне?"),
        ("en", "Compare the first and the second"),  # two positions: which one?
    ],
)
def test_second_said_by_chance_gets_the_start_of_the_answer_not_an_item(language: str, question: str) -> None:
    found = read_follow_up(question, LISTED, language=language)
    assert found.reason == "doubtful_position" and found.item is None
    assert found.context == start_of(LISTED)


def test_a_word_of_the_answer_beside_the_ordinal_is_no_doubt() -> None:
    found = read_follow_up("What about the second project?", LISTED, language="en")  # "projects" in the answer
    assert found.item == "Borealis Star Catalogue" and not found.only_item


def test_lists_read_from_names_quotes_and_lines_must_agree() -> None:
    assert read_items(QUOTED) == [("Atlas", "Borealis", "Cygnus")]
    assert read_follow_up(SECOND["en"], QUOTED, language="en").item == "Borealis"
    # the site's own names win as the item's text, the quotes agreeing with them
    named = read_follow_up(SECOND["en"], QUOTED, language="en", names=["Cygnus", "Borealis", "Atlas"])
    assert named.item == "Borealis"
    bold = "Two books [S1].\n- **The Engine** (2019) [S1]\n- **Notes on Sails**: a study [S2]\n"
    assert read_follow_up("the second one", bold, language="en").item == "Notes on Sails"
    # a quoted list and a line list that name different items: which one is meant is in doubt
    mixed = "She cites «Kant» and «Hume» [S1].\n1. Atlas [S1]\n2. Borealis [S2]\n"
    assert read_follow_up("the second one", mixed, language="en").reason == "ambiguous"
    headed = "## Atlas\nA survey [S1].\n## Borealis\nA catalogue [S2].\n"
    assert read_follow_up("the second one", headed, language="en").item == "Borealis"


def test_no_list_or_no_answer() -> None:
    prose = "She led a sky survey in Chile [S1]. It ended early [S2]."
    found = read_follow_up("Tell me more about the second one", prose, language="en")
    assert found.reason == "no_list" and found.context == "She led a sky survey in Chile."
    assert read_follow_up("Tell me more about the second one", None, language="en") is NOT_ORDINAL
    assert read_follow_up("When does it open?", LISTED, language="en") is NOT_ORDINAL
    with pytest.raises(ValueError, match="unsupported"):
        read_follow_up("x", LISTED, language="xx")


class _Recording:
    def __init__(self, passages: Sequence[Passage]) -> None:
        self.passages = list(passages)
        self.queries: list[str] = []

    def retrieve(self, query: str, *, language: str) -> list[Passage]:
        self.queries.append(query)
        return self.passages


PASSAGES = [
    ("atlas", "The Atlas Sky Survey mapped the southern sky from Chile."),
    ("borealis", "The Borealis Star Catalogue lists northern stars by brightness."),
    ("cygnus", "The Cygnus Archive keeps the survey's raw images."),
]


def test_the_item_is_joined_to_the_retrieval_query() -> None:
    found = read_follow_up(SECOND["en"], LISTED, language="en")
    retriever = _Recording([])
    retrieve_for(retriever, SECOND["en"], language="en", previous="What are her projects?", follow_up=found)
    assert retriever.queries == [SECOND["en"], f"What are her projects? {SECOND['en']} Borealis Star Catalogue"]


def test_preflight_reaches_the_named_item_by_its_own_words_and_tells_the_model() -> None:
    retriever = InMemoryRetriever(PASSAGES, use_embedding=False)  # keyword coverage alone: deterministic
    flight = Preflight(retriever, gate=EvidenceGate(0.5))
    plain = flight.run(SECOND["en"], language="en", previous="What are her projects?")
    assert plain.refused  # without the previous answer, "the second one" has nothing to reach
    decision = flight.run(SECOND["en"], language="en", previous="What are her projects?", previous_answer=LISTED)
    assert decision.allowed and decision.passage_id == "borealis" and decision.score == 1.0
    assert decision.follow_up is not None and decision.follow_up.item == "Borealis Star Catalogue"
    assert decision.log()["follow_up"] == "item"
    prompt = render_prompt(decision.sources, SECOND["en"], language="en", item=decision.follow_up.item, position=2)
    assert "item 2 of the previous answer: “Borealis Star Catalogue”" in prompt.user


def test_preflight_with_a_doubtful_position_uses_the_start_of_the_answer() -> None:
    retriever = InMemoryRetriever(PASSAGES, use_embedding=False)
    flight = Preflight(retriever, gate=EvidenceGate(0.3))
    decision = flight.run("And the fifth one?", language="en", previous_answer=LISTED)
    assert decision.follow_up is not None and decision.follow_up.reason == "out_of_range"
    assert decision.follow_up.item is None


_CHARS = list('ab 12.\n-*#«»"“”第二个second deuxième второй دومی[S1]:()')
_TEXT = st.text(alphabet=st.sampled_from(_CHARS), max_size=80)


@settings(max_examples=200, deadline=None)
@given(question=_TEXT, answer=_TEXT, language=st.sampled_from(SUPPORTED_LANGUAGES))
def test_reading_never_fails_and_an_item_is_always_one_of_the_list(question: str, answer: str, language: str) -> None:
    found = read_follow_up(question, answer, language=language)
    if found.reason == "item":
        assert found.item is not None and found.context == found.item and found.position is not None
        assert any(found.item == i or found.item in i or i in found.item for i in found.items)
    elif found.reason is not None:
        assert found.item is None and found.context == start_of(answer)
    else:
        assert found is NOT_ORDINAL


def test_overlapping_ordinal_matches_are_cut_out_as_one() -> None:
    """'number 3' and '3rd' style matches may overlap; the words left are read from the question as written."""
    found = read_follow_up("Tell me about item 3, the 3rd one", LISTED, language="en")
    assert found.reason == "item" and found.item == "Cygnus Archive" and found.only_item


BRANCHES = "Last year the library opened three branches:\n- North Branch\n- South Branch\n- East Branch"


@pytest.mark.parametrize("question", ["Was the library open last year?", "Which branches opened first?"])
def test_words_of_the_answer_that_are_not_its_items_make_the_ordinal_doubtful(question: str) -> None:
    """ "last" / "first" said by chance: the other words come from the answer's opening, not from its items."""
    found = read_follow_up(question, BRANCHES, language="en")
    assert found.reason == "doubtful_position" and found.item is None


def test_the_kind_of_item_after_the_ordinal_is_no_doubt() -> None:
    assert read_follow_up("And the second branch?", BRANCHES, language="en").item == "South Branch"
