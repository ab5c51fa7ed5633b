"""The seed's blind spots ("« Étayé » ne veut pas dire « vrai »"), each pinned as today's behaviour.

These tests do not describe what the gate *should* do; they record what it *does*, so a change in a blind spot
is a visible, reviewed change (and docs/gate.md is updated with it).
"""

from __future__ import annotations

from sluicegate import Done, SentenceGate
from sluicegate.testing import run_filter


def run(sources: list[str], answer: str, language: str = "en"):
    return run_filter(lambda: SentenceGate(sources, language=language), [answer])


def passes(sources: list[str], answer: str, language: str = "en") -> bool:
    result = run(sources, answer, language)
    return result.events == (Done("complete"),)


def test_a_sentence_citing_two_sources_may_take_a_value_from_either() -> None:
    sources = ["The reading room has 40 seats.", "The café has 12 tables."]
    # The claim pairs the café with the reading room's figure: checked per sentence, not per proposition.
    assert passes(sources, "The café has 40 tables [S1][S2].")


def test_a_decimal_point_or_thousands_separator_counts_as_a_digit_boundary() -> None:
    assert passes(["The rate was 14.52 at the time."], "It rose 52% [S1].")
    assert passes(["The rate was 14.52 at the time."], "It lasted 14 days [S1].")
    assert passes(["The hall seats 1,200 people."], "The annex seats 200 [S1].")


def test_words_are_not_checked() -> None:
    sources = ["Ada Park is the head librarian of the city library."]
    # Wrong role and wrong organisation, no value: any in-range marker makes it pass.
    assert passes(sources, "Ada Park is the chief financial officer of the national museum [S1].")


def test_short_unmarked_sentences_pass() -> None:
    assert passes([], "It closed for good last winter.")  # 6 words, no value, no marker: an unsupported claim
    assert not passes([], "It closed for good last winter after the flood.")  # 9 words


def test_chinese_only_sentences_under_twelve_characters_need_no_marker() -> None:
    assert passes([], "图书馆去年冬天永久关闭。", language="zh")  # 11 Han characters
    assert not passes([], "图书馆去年冬天永久关闭了。", language="zh")  # 12


def test_fixed_english_list_has_holes() -> None:
    assert passes([], "We'd recommend the morning.")
    assert passes([], "Let's visit in the morning.")
    assert passes([], "WE recommend it. Call US.")  # all caps reads as an acronym


def test_persian_first_person_outside_the_list_passes() -> None:
    assert passes([], "دیروز به کتابخانه رفتم.", language="fa")  # "I went": a verb ending, not in the list
    assert not passes([], "من دیروز به کتابخانه رفتم.", language="fa")  # the pronoun is


def test_other_languages_first_person_is_left_to_the_prompt_outside_their_language() -> None:
    assert passes([], "Je pense que oui.", language="en")
    assert passes([], "Ich denke schon.", language="es")
    assert passes([], "Yo creo que sí.", language="fr")
    assert passes([], "Eu acho que sim.", language="de")
    assert not passes([], "Je pense que oui.", language="fr")


def test_closing_punctuation_can_merge_sentences() -> None:
    sources = ["The library opens at nine."]
    tail = " The reading room upstairs is always quiet and full of light."  # 11 words, no marker
    assert not passes(sources, "It opens at nine [S1]." + tail)  # two sentences: the second needs a marker
    assert passes(sources, "(It opens at nine [S1].)" + tail)  # after .) before a capital: one sentence
    assert passes(sources, "آیا ساعت نه باز است؟» [S1] اتاق مطالعه طبقه بالا همیشه آرام و پر از نور است.", "fa")


def test_german_closing_quotes_now_end_the_sentence() -> None:
    """Changed on purpose from the seed (which merged here): `?“` and `?«` close a German quotation, so the
    sentence after it is judged alone and needs its own marker."""
    sources = ["The library opens at nine."]
    for quoted in ("„Ist sie offen [S1]?“", "»Ist sie offen [S1]?«"):
        answer = f"Sie fragte {quoted} Der Lesesaal oben ist immer ruhig und voller Licht."
        assert not passes(sources, answer, "de")


def test_a_boundary_can_come_too_early_and_the_gate_fails_closed() -> None:
    sources = ["Captain Hook founded the reading club of the library."]
    # "Capt." is not in the abbreviation list, so the period before a capital ends a "sentence": the 11 words
    # before it carry no marker (it comes after "Hook"), and a grounded answer is held back.
    answer = "The reading club of the old city library was founded by Capt. Hook [S1]."
    result = run(sources, answer)
    assert result.events[-1] == Done("stopped")  # grounded, but held back: fail closed
    assert result.text == ""
    # A quoted question followed by a name ends a "sentence" too.
    quoted = 'The librarian asked the visitor in the hall "Is it open?" Hook said yes [S1].'
    assert run(sources, quoted).events[-1] == Done("stopped")


def test_a_list_after_a_colon_line_is_not_a_blind_spot_with_this_splitter() -> None:
    # The seed's splitter cut just after "1." when a line ending with ":" introduced a list; this one breaks
    # the line before the list marker, so each item is judged on its own.
    sources = ["Late fees were 20 euros. Cards cost 5 euros."]
    assert passes(sources, "Fees:\n1. Late fees were 20 euros [S1].\n2. Cards cost 5 euros [S1].")


def test_the_corpus_vouches_for_any_figure_it_contains() -> None:
    article = "Legal research tools hallucinated between 17% and 33% of the time."
    # "Supported" means "somewhere in what the sentence cites", not "about this".
    assert passes([article], "Late fees rose by 17% last year [S1].")


def test_english_list_applies_to_every_answer_so_a_german_mine_stops() -> None:
    assert not passes([], "Die Mine ist geschlossen.", language="de")  # English "mine"
    assert passes([], "I'M NOT SURE.", language="en")  # all caps: acronyms


def test_words_left_out_of_lists_on_purpose_pass() -> None:
    assert passes([], "Abre nos dias úteis.", language="pt")
    assert passes([], "أرسل الكتاب إليّ.", language="ar")


def test_numbers_written_as_words_are_not_values() -> None:
    sources = ["Late fees were 20 euros."]
    assert passes(sources, "Late fees were twenty-five euros [S1].")
    assert passes(sources, "滞纳金是二十五欧元[S1]。", language="zh")
    assert not passes(sources, "Late fees were 25 euros [S1].")


def test_an_inline_list_after_a_colon_is_cut_after_its_first_enumerator() -> None:
    sources = ["Late fees were 20 euros. Cards cost 5 euros."]
    # "Fees: 1. " is judged as a sentence: it states the value 1 and cites nothing. Fail closed.
    result = run(sources, "Fees: 1. Late fees were 20 euros [S1]. 2. Cards cost 5 euros [S1].")
    assert result.events[-1] == Done("stopped") and result.text == ""


# -- decisions of issue 11, both sides pinned (docs/gate.md, "blind spots") ---------------------------


def test_roman_numeral_i_rule_both_sides() -> None:
    """`I` after a capitalised word is the numeral one when no lowercase word follows ("Seti I."), or only
    "is", "and", "of"..., or after a title and a name ("Queen Elizabeth I ruled"), or after two capitalised
    words that do not open the sentence. Otherwise it is the pronoun."""
    src = ["A source."]
    assert passes(src, "Queen Elizabeth I ruled England for many years [S1].")
    assert passes(src, "The tomb of Seti I is in the Valley of the Kings [S1].")
    assert passes(src, "It was built for Ramesses I and his son [S1].")
    assert not passes(src, "In London I met the director of the film [S1].")
    assert not passes(src, "In that war I lost a brother [S1].")
    # the price, both ways: a name with no title before a lowercase verb is read as the pronoun (a false stop)...
    assert not passes(src, "Seti I ruled Egypt for about eleven years [S1].")
    # ...and the pronoun after two capitalised words that do not open the sentence is read as the numeral
    assert passes(src, "Yesterday in New York I met the mayor [S1].")


def test_capitalised_pronoun_in_a_title_run_both_sides() -> None:
    src = ["A source."]
    assert passes(src, "The film Farewell My Concubine won the Palme d'Or [S1].")
    assert passes(src, "The song Happy Birthday to Me was released as a single [S1].")
    assert not passes(src, "My advice is to visit the tomb early [S1].")  # opening the sentence: first person
    assert not passes(src, "The guide told us about the tomb [S1].")  # lowercase: first person
    # the price: a wrongly capitalised pronoun after a capitalised word mid-sentence reads as a title
    assert passes(src, "In Paris My family stayed for a week [S1].")


def test_a_number_after_a_source_word_is_a_reference_both_sides() -> None:
    sources = ["The law has five sections.", "It was amended.", "It is in force."]
    assert passes(sources, "As passage 3 notes, the law was amended [S2].")
    assert not passes(sources, "As passage 7 notes, the law was amended [S2].")  # outside 1..n: a value
    # the price: a real figure after such a word, within 1..n, is not checked
    assert passes(sources, "The law was amended by document 2 of the session [S2].")


def test_country_abbreviation_before_a_noun_both_sides() -> None:
    src = ["The bill passed."]
    long = " after a long debate that lasted for many weeks in the spring [S1]."
    assert passes(src, "The bill was passed by the U.S. Senate" + long)  # a listed noun: one sentence
    # not listed: the abbreviation ends a "sentence" of 8+ words with no marker, which fails closed
    assert not passes(src, "The students who enrolled in the new course took a B.E. Chemical Engineering exam" + long)
    assert not passes(src, "The rails that were used for the new bridge were made by U.S. Steel" + long)


def test_a_cjk_host_glued_to_cjk_text_fails_closed() -> None:
    """Where a host written in CJK starts inside unspaced CJK text cannot be known: the glued text is read
    with it, so the value is not found in the sources and the gate stops. Set off by spaces, it passes."""
    src = ["网址：例子.中国"]
    assert not passes(src, "请访问例子.中国了解更多[S1]。", language="zh")
    assert passes(src, "请访问 例子.中国 了解更多[S1]。", language="zh")
    assert passes(["网址：example.org"], "请访问example.org了解更多[S1]。", language="zh")  # the script change


def test_a_url_path_ends_at_cjk_text_so_a_cjk_path_is_not_compared() -> None:
    """A link's path stops at the first CJK character (CJK text usually follows a link unspaced), so two links
    that differ only in an unencoded CJK path compare equal."""
    src = ["见 https://zh.wikipedia.org/wiki/北京"]
    assert passes(src, "详见https://zh.wikipedia.org/wiki/上海[S1]。", language="zh")
    assert not passes(src, "详见https://zh.wikipedia.org/w/上海[S1]。", language="zh")
