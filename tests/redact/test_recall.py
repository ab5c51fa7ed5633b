"""Issue 10's recall gaps, labels and false positives: formats the providers and standards document, each
replaced (or left alone) whole, and chunk invariant."""

from __future__ import annotations

import unicodedata

import pytest

from sluicegate.redaction import Redactor, redact
from sluicegate.redaction.detector import data_lines
from sluicegate.testing import assert_chunk_invariant

from .corpus import NEW_FORMATS, NEW_LABELED, NOT_VALUES


@pytest.mark.parametrize(("entity", "value"), NEW_FORMATS, ids=[f"{e}-{i}" for i, (e, _) in enumerate(NEW_FORMATS)])
def test_documented_format_is_replaced_whole_for_every_chunking(entity: str, value: str) -> None:
    text = f"see {value} now"
    run = assert_chunk_invariant(Redactor, text, max_size=6, random_runs=4)
    assert run.text == f"see <{entity}> now"


@pytest.mark.parametrize(("text", "secret", "entity"), NEW_LABELED, ids=[t[:24] for t, _, _ in NEW_LABELED])
def test_labelled_value_goes_and_label_stays(text: str, secret: str, entity: str) -> None:
    run = assert_chunk_invariant(Redactor, text, max_size=6, random_runs=4)
    assert run.text == text.replace(secret, f"<{entity}>", 1)


@pytest.mark.parametrize("text", NOT_VALUES)
def test_near_values_and_prose_stay_text(text: str) -> None:
    run = assert_chunk_invariant(Redactor, text, max_size=6, random_runs=4)
    assert run.text == text


def test_every_password_word_file_exists_for_the_ten_languages() -> None:
    from sluicegate.redaction import labels

    words = {w for w, _ in labels.words()}
    for word in (
        "passwort",
        "mot de passe",
        "contraseña",
        "senha",
        "пароль",
        "رمز عبور",
        "كلمة المرور",
        "पासवर्ड",
        "密码",
    ):
        assert word in words, word


def test_digit_zeros_list_every_decimal_digit_block_of_this_unicode_database() -> None:
    listed = {int(z, 16) for z in data_lines("digit_zeros.txt")}
    actual = {
        cp
        for cp in range(0x80, 0x110000)
        if unicodedata.category(chr(cp)) == "Nd" and unicodedata.decimal(chr(cp)) == 0
    }
    assert actual <= listed  # every zero this Python's database knows is listed
    for cp in listed - actual:  # and the others are zeros of a newer Unicode, unassigned here (3.11 has 14.0)
        assert unicodedata.category(chr(cp)) == "Cn", hex(cp)


def test_digits_of_other_scripts_read_as_digits() -> None:
    deva = "४१११ ११११ ११११ ११११"
    assert redact(f"card {deva} ok") == "card <CREDIT_CARD> ok"
    math = "".join(chr(0x1D7CE + int(d)) for d in "4111111111111111")  # mathematical bold digits
    assert redact(f"card {math} ok") == "card <CREDIT_CARD> ok"
    assert redact("شماره ۰۹۱۲۳۴۵۶۷۸۹ است") == "شماره <PHONE_NUMBER> است"


def test_password_required_style_prose_is_kept() -> None:
    for text in ("password: required", "Password: (optional)", "password: <your password>", "API key: ${API_KEY}"):
        assert redact(text) == text
