"""The first-person check, language by language: which words stop, which lists apply, what is set aside."""

import pytest

from sluicegate._gate.person import SUPPORTED_LANGUAGES, FirstPersonChecker, lists_for, load_list


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "I think the library opens early."),
        ("en", "I'm sure it opens early."),
        ("en", "I’ve checked the fees."),
        ("en", "Contact me for details."),
        ("en", "We can help."),
        ("en", "Our library opens early."),
        ("en", "That is ours."),
        ("fa", "من فکر می‌کنم کتابخانه باز است."),
        ("fa", "ما این را پیشنهاد می‌دهیم."),
        ("fa", "کتابخانه را می‌شناسم و هستم."),
        ("fa", "من دارم."),
        ("fa", "این کار را میکنم."),
        ("fa", "این کار را می‌کنم."),
        ("fa", "این کار را می‌كنم."),  # Arabic kaf: the same after normalization
        ("ar", "أنا أعرف المكتبة."),
        ("ar", "نحن نفتح باكرا."),
        ("ar", "لدي خبرة طويلة."),
        ("ar", "أَنَا أعرف."),  # short vowels removed first
        ("ru", "Я думаю, что библиотека открыта."),
        ("ru", "Мы открываемся рано."),
        ("ru", "Это наша библиотека."),
        ("ru", "Могу помочь."),
        ("hi", "मैं पुस्तकालय जानता हूँ।"),
        ("hi", "हमारा पुस्तकालय खुला है।"),
        ("hi", "मुझे लगता है।"),
        ("zh", "我认为图书馆很早开门。"),
        ("zh", "我们的图书馆很早开门。"),
        ("zh", "图书馆是我的。"),
        ("de", "Ich denke, die Bibliothek öffnet früh."),
        ("de", "Unsere Bibliothek öffnet früh."),
        ("fr", "Je pense que la bibliothèque ouvre tôt."),
        ("fr", "J'ai vérifié les horaires."),
        ("fr", "Notre bibliothèque ouvre tôt."),
        ("es", "Yo creo que abre temprano."),
        ("es", "Tengo experiencia."),
        ("es", "Nuestra biblioteca abre temprano."),
        ("pt", "Eu acho que abre cedo."),
        ("pt", "Tenho experiência."),
        ("pt", "Nossa biblioteca abre cedo."),
    ],
)
def test_first_person_is_found(language: str, sentence: str) -> None:
    assert FirstPersonChecker(language).hits(sentence)


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "She thinks the library opens early."),
        ("en", "i.e. the reading room."),
        ("en", "This is a self-correcting method."),
        ("fa", "او فکر می‌کند کتابخانه باز است."),
        ("ar", "هي تعرف المكتبة."),
        ("ru", "Она думает, что библиотека открыта."),
        ("hi", "वह पुस्तकालय जानती है।"),
        ("zh", "这是一种自我修正的方法。"),
        ("de", "Sie denkt, die Bibliothek öffnet früh."),
        ("fr", "Elle pense que la bibliothèque ouvre tôt."),
        ("es", "Ella cree que abre temprano."),
        ("pt", "Ela acha que abre cedo."),
        ("pt", "Abre nos dias úteis."),  # "nos" (em + os) is left out of the Portuguese list
    ],
)
def test_third_person_passes(language: str, sentence: str) -> None:
    assert FirstPersonChecker(language).hits(sentence) == []


@pytest.mark.parametrize("always", ["en", "fa", "ar", "ru", "hi", "zh"])
@pytest.mark.parametrize("requested", SUPPORTED_LANGUAGES)
def test_six_lists_apply_to_every_answer_except_persian_for_arabic(always: str, requested: str) -> None:
    applies = always in lists_for(requested)
    assert applies == (not (requested == "ar" and always == "fa"))


@pytest.mark.parametrize("optional", ["de", "fr", "es", "pt"])
@pytest.mark.parametrize("requested", SUPPORTED_LANGUAGES)
def test_four_lists_apply_only_when_requested(optional: str, requested: str) -> None:
    assert (optional in lists_for(requested)) == (optional == requested)


def test_english_applies_to_a_french_answer_and_french_not_to_an_english_one() -> None:
    assert FirstPersonChecker("fr").hits("I think so.") == ["I"]
    assert FirstPersonChecker("en").hits("Je pense que oui.") == []


def test_russian_hindi_chinese_persian_apply_to_an_english_answer() -> None:
    checker = FirstPersonChecker("en")
    assert checker.hits("The motto was Я думаю.")
    assert checker.hits("The motto was मैं.")
    assert checker.hits("The motto was 我们.")
    assert checker.hits("The motto was من.")


def test_an_arabic_answer_is_not_checked_for_persian_i_and_we() -> None:
    assert FirstPersonChecker("ar").hits("خرج من البيت ما زال") == []  # "from", "still"
    assert FirstPersonChecker("fa").hits("خرج من البيت") == ["من"]


def test_acronyms_et_al_and_roman_numerals_are_set_aside() -> None:
    fr = FirstPersonChecker("fr")
    assert fr.hits("Ma et al. ont montré cela.") == []
    assert fr.hits("Ma soeur a montré cela.") == ["Ma"]
    en = FirstPersonChecker("en")
    assert en.hits("See annex I and World War I.") == []
    assert en.hits("The US and the EU agreed.") == []
    assert en.hits("As I said.") == ["I"]


def test_chinese_self_compound_is_masked_but_not_other_wo() -> None:
    zh = FirstPersonChecker("zh")
    assert zh.hits("自我修正") == []
    assert zh.hits("自我修正是我们的方法") == ["我"]


def test_every_supported_language_has_a_list() -> None:
    for code in SUPPORTED_LANGUAGES:
        wl = load_list(code)
        assert wl.words or wl.exact or wl.han


def test_persian_list_has_both_forms_of_prefixed_verbs() -> None:
    fa = load_list("fa")
    assert "میکنم" in fa.words and ("می", "کنم") in fa.phrases


# -- the prefilter never hides a hit ------------------------------------------------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from sluicegate._gate.normalize import normalize as _normalize  # noqa: E402
from sluicegate._gate.person import FirstPersonChecker as _Checker  # noqa: E402
from sluicegate._gate.person import load_list as _load_list  # noqa: E402

_VOCAB = sorted(
    {
        e
        for lang in ("en", "fa", "ar", "ru", "hi", "zh", "fr", "de")
        for e in (
            *_load_list(lang).words,
            *_load_list(lang).exact,
            *_load_list(lang).prefixes,
            *_load_list(lang).han,
            *(" ".join(p) for p in _load_list(lang).phrases),
            *_load_list(lang).masks,
        )
    }
) + [
    "WE",
    "We",
    "I",
    "i.e.",
    "Ma",
    "et",
    "al.",
    "annex",
    "I",
    "ai",
    "'",
    "’",
    "-",
    "x",
    "time",
    "some",
    "自我修正",
    "1",
]


@given(
    st.sampled_from(["en", "fa", "ar", "fr", "de", "zh"]),
    st.lists(
        st.tuples(st.sampled_from(_VOCAB), st.sampled_from([" ", "", "'", ". ", "\u200c", "-", ","])), max_size=12
    ),
)
def test_prefilter_never_hides_a_hit(language: str, parts: list[tuple[str, str]]) -> None:
    checker = _Checker(language)
    text = _normalize("".join(a + b for a, b in parts)).replace("’", "'")
    assert checker.hits(text, normalized=True) == checker._walk(text)
