"""Invisible characters slipped inside a value (bidi marks and isolates, word joiners, variation selectors,
tag characters: every format character and default-ignorable code point) are dropped from the detection
view, so the value is still found; the raw text outside the value is kept byte for byte."""

from __future__ import annotations

import unicodedata

import pytest

from sluicegate.redaction import Redactor, redact
from sluicegate.redaction.normalize import normalize
from sluicegate.testing import assert_chunk_invariant

INVISIBLE = [
    0x200E, 0x200F, 0x061C, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    0x034F, 0xFE0F, 0xFE00, 0x2060, 0x2064, 0x180E, 0x3164, 0xE0001, 0xE0041, 0xE007F, 0xE0100, 0x1D173,
]  # fmt: skip


@pytest.mark.parametrize("cp", INVISIBLE, ids=[f"U+{cp:04X}" for cp in INVISIBLE])
def test_invisible_character_inside_a_value_does_not_hide_it(cp: int) -> None:
    z = chr(cp)
    assert redact(f"mail bob{z}@example.com now") == "mail <EMAIL_ADDRESS> now"
    assert redact(f"card 4111{z}1111{z}1111{z}1111 ok") == "card <CREDIT_CARD> ok"
    assert redact(f"key sk-ant-api03-{'b' * 20}{z}{'b' * 20} ok") == "key <ANTHROPIC_KEY> ok"


@pytest.mark.parametrize("cp", INVISIBLE, ids=[f"U+{cp:04X}" for cp in INVISIBLE])
def test_invisible_characters_outside_a_value_are_kept(cp: int) -> None:
    z = chr(cp)
    text = f"{z}hello{z} world{z}"
    assert redact(text) == text
    assert redact(f"{z}user@example.com{z}") == f"{z}<EMAIL_ADDRESS>{z}"


def test_every_format_character_is_dropped_from_the_view() -> None:
    # All of general category Cf, across the whole code space.
    cf = [chr(cp) for cp in range(0x110000) if unicodedata.category(chr(cp)) == "Cf"]
    assert len(cf) > 150
    assert normalize("a" + "".join(cf) + "b") == "ab"


def test_fullwidth_and_small_form_punctuation_in_an_address() -> None:
    assert redact("mail ｕｓｅｒ＠ｅｘａｍｐｌｅ．ｃｏｍ ok") == "mail <EMAIL_ADDRESS> ok"
    assert redact("mail user﹫example﹒com ok") == "mail <EMAIL_ADDRESS> ok"
    assert redact("mail user＠example｡com ok") == "mail <EMAIL_ADDRESS> ok"


def test_disguised_values_are_chunk_invariant() -> None:
    text = "a bob\u200f@example.com b 4111\u200e1111\u2066\u20691111\U000e0041 1111 c\u202e user﹫example﹒com."
    run = assert_chunk_invariant(Redactor, text, max_size=6, random_runs=10)
    assert run.text == "a <EMAIL_ADDRESS> b <CREDIT_CARD> c\u202e <EMAIL_ADDRESS>."


def test_the_view_of_a_piece_maps_every_table_character_as_translate_does() -> None:
    # extend_view replaces the mapped characters one `replace` each instead of `str.translate`: same view.
    from sluicegate.redaction.normalize import TABLE, extend_view

    mapped = "".join(chr(cp) for cp in sorted(TABLE))
    text = "ab 1\u200b" + mapped + "x\u200d" + mapped[::-1] + "\u00e9\u4e2d"
    positions: list[int] = []
    assert extend_view(text, 0, positions) == text.replace("\u200b", "").replace("\u200d", "").translate(TABLE)
    assert len(positions) == len(text) - 2


def test_needs_normalizing_on_long_text_agrees_with_the_special_class() -> None:
    from sluicegate.redaction.normalize import _SPECIAL, TABLE, needs_normalizing

    base = "plain prose 中文 and فارسی " * 3
    assert not needs_normalizing(base)
    for ch in [*map(chr, sorted(TABLE)), "\u200b", "\u200d", "\ufe0f", "\U000e0041", "\u00ad"]:
        for text in (base + ch, ch + base, ch):
            assert needs_normalizing(text) == (_SPECIAL.search(text) is not None) == True, repr(ch)  # noqa: E712


def test_plain_view_is_the_view_of_a_piece_that_drops_nothing() -> None:
    # plain_view learns which characters are kept as they are; asked twice (the second time from what it learned)
    # it must give the same view as extend_view, and None as soon as a character would be dropped.
    from sluicegate.redaction.normalize import TABLE, extend_view, plain_view

    mapped = "".join(chr(cp) for cp in sorted(TABLE))
    kept = "plain prose 中文 and فارسی é " * 3
    for text in (kept, kept + mapped, mapped + kept[::-1], "ab：1", "x" * 20 + "\u00a0"):
        for _ in range(2):
            assert plain_view(text) == extend_view(text, 0, [])
    for drop in ("\u200b", "\u200d", "\ufe0f", "\U000e0041", "\u00ad"):
        for _ in range(2):
            assert plain_view(kept + drop) is None
            assert plain_view(drop + mapped + kept) is None
