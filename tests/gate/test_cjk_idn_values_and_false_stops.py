"""Issue 11, gate items: a value bypass in CJK and IDN text, and false stops on grounded answers.

Each case runs through `assert_chunk_invariant`, so the fix holds for every chunking, not just the whole string.
"""

from __future__ import annotations

import pytest

from sluicegate import Done, SentenceGate
from sluicegate._gate.values import canonical_url, extract
from sluicegate.testing import assert_chunk_invariant


def gate_run(sources: list[str], answer: str, language: str = "en"):
    return assert_chunk_invariant(lambda: SentenceGate(sources, language=language), answer, max_size=12, random_runs=5)


def passes(sources: list[str], answer: str, language: str = "en") -> bool:
    return gate_run(sources, answer, language).events == (Done("complete"),)


def stop_codes(sources: list[str], answer: str, language: str = "en") -> tuple[str, ...]:
    run = gate_run(sources, answer, language)
    assert run.stopped, run
    return run.events[0].reasons  # type: ignore[union-attr]


HOMEPAGE = ["Details are on the library's website."]


# -- the bypass: every URL, host and e-mail, in any script, is a value --------------------------------------------


@pytest.mark.parametrize(
    ("answer", "language"),
    [
        ("请访问evil-phish.com了解更多[S1]。", "zh"),
        ("详情请访问https://evil-phish.com/login[S1]。", "zh"),
        ("詳しくはevil-phish.comをご覧ください[S1]。", "zh"),
        ("联系ivan@evil-phish.com了解更多[S1]。", "zh"),
        ("Contact мошенник.рф for more [S1].", "en"),
        ("Пишите на ivan@почта.рф сегодня [S1].", "ru"),
        ("Visit xn--e1aggfgae4f.xn--p1ai for more [S1].", "en"),
        ("Visit https://мошенник.рф/вход for more [S1].", "en"),
    ],
)
def test_hosts_urls_and_emails_glued_to_cjk_or_under_idn_tlds_are_values(answer: str, language: str) -> None:
    assert stop_codes(HOMEPAGE, answer, language) == ("unsupported_value",)


@pytest.mark.parametrize(
    ("source", "answer", "language"),
    [
        ("网址：evil-phish.com。", "请访问evil-phish.com了解更多[S1]。", "zh"),
        ("见 https://example.org/login 。", "详情请访问https://example.org/login[S1]。", "zh"),
        ("Пишите на ivan@почта.рф.", "Пишите на ivan@почта.рф сегодня [S1].", "ru"),
        ("Сайт: xn--e1aggfgae4f.xn--p1ai.", "Сайт мошенник.рф указан в источнике [S1].", "ru"),
        ("联系 ivan@example.com 。", "联系ivan@example.com了解更多[S1]。", "zh"),
    ],
)
def test_the_same_values_pass_when_the_cited_source_has_them(source: str, answer: str, language: str) -> None:
    assert passes([source], answer, language)


def test_idn_hosts_compare_in_one_form_punycode_or_unicode() -> None:
    assert canonical_url("XN--E1AGGFGAE4F.XN--P1AI") == canonical_url("мошенник.рф")
    assert extract("see мошенник.рф").urls == frozenset({"мошенник.рф"})
    assert extract("mail ivan@почта.рф").emails == frozenset({"ivan@почта.рф"})


# -- a terminator, closing bracket or quote after a URL is not part of it --------------------------------------


@pytest.mark.parametrize(
    ("answer", "language"),
    [
        ("详情请访问 www.example.org[S1]。", "zh"),
        ("详情请访问 www.example.org？[S1]", "zh"),
        ("详情请访问「www.example.org」[S1]。", "zh"),
        ("详情请访问（www.example.org）[S1]。", "zh"),
        ("अधिक जानकारी के लिए देखें www.example.org [S1]।", "hi"),
        ("अधिक जानकारी के लिए देखें www.example.org॥ [S1]", "hi"),
        ("See “www.example.org” for the hours [S1].", "en"),
    ],
)
def test_cjk_and_danda_terminators_brackets_and_quotes_are_not_part_of_a_url(answer: str, language: str) -> None:
    assert passes(["The hours are at www.example.org."], answer, language)


def test_extract_stops_a_url_at_cjk_punctuation() -> None:
    assert extract("www.example.org。").urls == frozenset({"example.org"})
    assert extract("https://example.org/a？b").urls == frozenset({"example.org/a"})


# -- a number that names a source, right after "passage", "document"... is a reference ------------------------


SIX = ["The hall opens early."] * 6  # no digits: a source number in an answer is never supported by them


@pytest.mark.parametrize(
    "answer",
    [
        "As Passage 2 notes, the hall opens early [S2].",
        "Passage ID 4 says the hall opens early [S4].",
        "According to document 3, the hall opens early [S3].",
        "Source 5 says the hall opens early [S5].",
        "As passages 2 and 6 say, the hall opens early [S2][S6].",
    ],
)
def test_a_source_number_after_passage_or_document_is_a_reference(answer: str) -> None:
    assert passes(SIX, answer)


def test_a_number_outside_the_sources_after_passage_is_still_a_value() -> None:
    assert stop_codes(SIX, "Passage 9 says the hall opens early [S2].") == ("unsupported_value",)
    assert stop_codes(SIX, "The hall has 4 doors [S1].") == ("unsupported_value",)


@pytest.mark.parametrize(
    ("answer", "language"),
    [
        ("Laut Dokument 3 öffnet die Halle früh [S3].", "de"),
        ("Selon le document 3, la salle ouvre tôt [S3].", "fr"),
        ("Согласно документу 3, зал открывается рано [S3].", "ru"),
        ("根据文档3，大厅很早开放[S3]。", "zh"),
    ],
)
def test_source_references_in_other_languages(answer: str, language: str) -> None:
    assert passes(SIX, answer, language)


# -- first person read in names and titles ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "Queen Elizabeth I ruled England for forty-four years [S1].",
        "The tomb of Seti I is in the Valley of the Kings [S1].",
        "Seti I's tomb is the longest in the valley [S1].",
        "Tomb I held the remains of the king and his family [S1].",
        "Pharaoh Seti I built a temple at Abydos for the gods [S1].",
        "The film Farewell My Concubine won the Palme d'Or [S1].",
        "The song Happy Birthday to Me was released as a single [S1].",
        "The novel So Ends Our Night was written by Remarque [S1].",
    ],
)
def test_roman_numeral_i_and_pronouns_in_titles_are_not_first_person(answer: str) -> None:
    assert passes(["A source with no values."], answer)


@pytest.mark.parametrize(
    "answer",
    [
        "In London I met the director of the film [S1].",
        "Yesterday I met the director [S1].",
        "My advice is to visit the tomb early in the morning [S1].",
        "The guide told us about the tomb [S1].",
        "In that war I lost a brother and a friend [S1].",
    ],
)
def test_first_person_is_still_caught(answer: str) -> None:
    assert stop_codes(["A source with no values."], answer) == ("first_person",)


# -- an abbreviation before a capitalised noun -----------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "After a long debate in the spring the bill was passed by the U.S. Senate in a close vote [S1].",
        "Over many months of hearings the plan was reviewed by the U.K. Government and approved [S1].",
        "After several rounds of talks between the parties the rules were adopted by the E.U. Parliament [S1].",
    ],
)
def test_a_listed_noun_after_us_uk_eu_does_not_end_the_sentence(answer: str) -> None:
    assert passes(["The bill passed."], answer)


# -- rendering: a terminator doubled once markers are removed ----------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        ("He died in 632 A.D. [S1][S2].", "He died in 632 A.D."),
        ("It happened in the U.S. [S1] [S2].", "It happened in the U.S."),
        ("It happened in the U.S.[S1].", "It happened in the U.S."),
    ],
)
def test_a_terminator_doubled_by_marker_removal_is_collapsed(answer: str, shown: str) -> None:
    run = gate_run(["He died in 632.", "It happened."], answer)
    assert run.events == (Done("complete"),)
    assert run.text == shown


# -- review: an e-mail glued to CJK text that holds a number (the address must still be a value) ---------------


@pytest.mark.parametrize(
    ("answer", "language"),
    [
        ("请联系evil@attacker.com价格999元[S1]。", "zh"),
        ("联系x@y.中国价格9元[S1]。", "zh"),
    ],
)
def test_an_email_glued_to_cjk_then_digits_is_still_a_value(answer: str, language: str) -> None:
    source = "价格999元，价格9元。"
    run = gate_run([source], answer, language)
    assert run.stopped, run
    assert run.events[0].reasons == ("unsupported_value",)  # type: ignore[union-attr]


def test_an_email_glued_to_cjk_then_digits_passes_when_the_source_has_it() -> None:
    assert passes(["联系 evil@attacker.com ，价格999元。"], "请联系evil@attacker.com价格999元[S1]。", "zh")


# -- review: a host after a leading '.', '-', '_' or '/' is a value; a dotted run's inside is not a start -------


@pytest.mark.parametrize(
    "answer",
    [
        "Visit .evil-phish.com for more [S1].",
        "Visit ..evil-phish.com for more [S1].",
        "Visit --evil-phish.com for more [S1].",
        "Visit _evil-phish.com for more [S1].",
        "Visit a/evil-phish.com for more [S1].",
    ],
)
def test_a_host_after_leading_punctuation_is_a_value(answer: str) -> None:
    assert stop_codes(HOMEPAGE, answer) == ("unsupported_value",)


def test_a_host_after_leading_punctuation_passes_when_the_source_has_it() -> None:
    assert passes(["Our site is evil-phish.com."], "Visit .evil-phish.com for more [S1].")


def test_a_dotted_run_is_one_host_not_one_per_label() -> None:
    assert extract("see a.b.example.com now").urls == frozenset({"a.b.example.com"})
    assert extract("see a-b.example.com now").urls == frozenset({"a-b.example.com"})


# -- review: a number after "source 1," or "passage 1 and" is a value unless the sentence cites that source -----

THREE = ["Passage one is about the city.", "Passage two is about trade.", "Passage three is about rivers."]


@pytest.mark.parametrize(
    "answer",
    [
        "According to source 1, 3 people died in the flood [S1].",
        "According to passage 1 and 2 people died in the flood [S1].",
        "Source 1, 3 people died [S1].",
    ],
)
def test_a_number_after_a_reference_and_a_joiner_is_a_value_when_its_source_is_not_cited(answer: str) -> None:
    assert stop_codes(THREE, answer) == ("unsupported_value",)


def test_a_list_of_source_numbers_passes_when_each_is_cited() -> None:
    assert passes(THREE, "As passages 1 and 3 say, the city lies on rivers [S1][S3].")
    assert passes(THREE, "As passages 1, 2 and 3 say, the city trades on rivers [S1][S2][S3].")


# -- review: a number in superscript, subscript or circled digits is a value -----------------------------------


@pytest.mark.parametrize("answer", ["The fee is ²⁵⁰ euros [S1].", "The fee is ₂₅₀ euros [S1].", "Gate ⑦ is open [S1]."])
def test_digits_written_as_other_numeric_characters_are_values(answer: str) -> None:
    assert stop_codes(HOMEPAGE, answer) == ("unsupported_value",)


def test_superscript_digits_pass_when_the_source_has_the_number() -> None:
    assert passes(["The fee is 250 euros."], "The fee is ²⁵⁰ euros [S1].")
