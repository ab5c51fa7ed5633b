import pytest

from sluicegate import SentenceGate
from sluicegate._gate.normalize import normalize
from sluicegate.testing import run_filter


def test_persian_and_arabic_indic_digits_and_separators_become_ascii() -> None:
    assert normalize("۳٫۱۴") == "3.14"
    assert normalize("١٬٢٠٠") == "1,200"
    assert normalize("۲۰۱۹ و ٢٠١٩") == "2019 و 2019"


def test_other_scripts_digits_become_ascii() -> None:
    assert normalize("४२ and ２０１９") == "42 and 2019"


def test_arabic_letter_forms_become_persian_forms() -> None:
    assert normalize("كتاب علي") == "کتاب علی"
    assert normalize("إلى") == "إلی"


def test_arabic_short_vowels_and_tatweel_are_removed() -> None:
    assert normalize("مَعْلُومَات") == "معلومات"
    assert normalize("كـــتاب") == "کتاب"


def test_zwnj_is_a_space_and_invisible_characters_are_dropped() -> None:
    assert normalize("می\u200cکنم") == "می کنم"
    assert normalize("20\u200b19") == "2019"


def test_presentation_forms_are_unfolded() -> None:
    assert normalize("\ufef1") == "\u06cc"  # ARABIC LETTER YEH ISOLATED FORM -> Persian yeh


def test_no_break_space_between_digit_groups_is_a_thousands_separator() -> None:
    assert normalize("1\u202f200 €") == "1200 €"
    assert normalize("1 200") == "1 200"  # an ordinary space is not: "in 2019 200 people"


def test_normalization_is_idempotent() -> None:
    text = "می‌کنم ۳٫۱۴ كَتَبَ 1\u00a0200"
    assert normalize(normalize(text)) == normalize(text)


@pytest.mark.parametrize(
    "hidden", ["\u200d", "\u200e", "\u200f", "\u2060", "\u061c", "\u202a", "\u2066", "\u034f", "\ufe0f", "\U000e0041"]
)
def test_invisible_characters_cannot_hide_a_word_or_a_value(hidden: str) -> None:
    """Review finding: a bidi mark or joiner inside "We" or "2019" got both past the gate."""
    assert normalize(f"W{hidden}e 20{hidden}19") == "We 2019"
    person = run_filter(lambda: SentenceGate(["The library opens at 9 am."]), [f"W{hidden}e open at 9 [S1]."])
    assert person.stopped and "open" not in person.text
    value = run_filter(
        lambda: SentenceGate(["The fund had 20 staff in 19 towns."]), [f"It was founded in 20{hidden}19 [S1]."]
    )
    assert value.stopped and "founded" not in value.text


def test_zwnj_is_still_a_space() -> None:
    assert normalize("می\u200cکنم") == "می کنم"
