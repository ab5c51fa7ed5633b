"""One normalization for comparisons, applied alike to answer sentences and to sources.

Why: a Persian answer may write ۳٫۱۴ where its source wrote 3.14, or an Arabic ي where the source has the
Persian ی. Checks compare strings, so both sides must first be brought to one form. The result is only ever
compared, never shown: what the reader sees is the model's own text.
"""

from __future__ import annotations

import unicodedata

import regex

ZWNJ = "\u200c"

# Arabic letter forms that Persian writes differently: compared in their Persian form.
_LETTERS = {
    0x064A: "\u06cc",  # ARABIC LETTER YEH -> FARSI YEH
    0x0649: "\u06cc",  # ARABIC LETTER ALEF MAKSURA -> FARSI YEH
    0x0643: "\u06a9",  # ARABIC LETTER KAF -> KEHEH
    0x06C0: "\u0647",  # HEH WITH YEH ABOVE -> HEH
}
# Arabic short vowels and related marks (fathatan .. sukun, superscript alef), and tatweel: dropped.
_DROPPED = set(range(0x064B, 0x0653)) | {0x0670, 0x0640}
# Invisible characters that could hide a value or a word from the checks are dropped: the soft hyphen and
# zero-width space here, every format character (category Cf, ZWNJ aside) and default-ignorable below.
_DROPPED |= {0x200B, 0xFEFF, 0x00AD}
# Arabic decimal and thousands separators (۳٫۱۴, ۱٬۲۰۰); the fullwidth forms that build links and addresses
# (evil．com, a＠b．org). Other fullwidth punctuation keeps its meaning in CJK text (，is not a decimal comma).
_SEPARATORS = {0x066B: ".", 0x066C: ",", 0xFF0E: ".", 0xFF0F: "/", 0xFF1A: ":", 0xFF20: "@"}
_PRESENTATION_FORMS = ((0xFB50, 0xFDFF), (0xFE70, 0xFEFF))


# Default-ignorable code points that are not format characters: combining grapheme joiner, variation
# selectors, Mongolian free variation selectors, Hangul fillers.
_IGNORABLE = (
    (0x034F, 0x034F),
    (0x180B, 0x180F),
    (0xFE00, 0xFE0F),
    (0xE0100, 0xE01EF),
    (0x115F, 0x1160),
    (0x3164, 0x3164),
    (0xFFA0, 0xFFA0),
)


def _ignorable(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE)


def _map(cp: int) -> int | str | None:
    if cp < 0x80:
        return cp
    if cp == 0x200C:
        return " "
    if cp in _DROPPED:
        return None
    if cp in _LETTERS:
        return _LETTERS[cp]
    if cp in _SEPARATORS:
        return _SEPARATORS[cp]
    ch = chr(cp)
    category = unicodedata.category(ch)
    if category == "Cf" or _ignorable(cp):  # bidi marks, ZWJ, word joiner, tags...: invisible, so dropped
        return None
    if category == "Nd":  # any script's decimal digit: Persian, Arabic-Indic, Devanagari...
        return str(unicodedata.decimal(ch))
    if category == "No":  # superscript, subscript, circled digits (²⁵⁰, ₂, ⑦, ⑩): their digits, else unchecked
        folded = unicodedata.normalize("NFKC", ch)
        if folded != ch and any(c.isdigit() for c in folded):
            return normalize(folded)
    if any(lo <= cp <= hi for lo, hi in _PRESENTATION_FORMS):
        return normalize(unicodedata.normalize("NFKC", ch))
    return cp


class _Table(dict):  # type: ignore[type-arg]
    """A `str.translate` table filled on first sight of each character (no import-time sweep of Unicode)."""

    def __missing__(self, cp: int) -> int | str | None:
        value = _map(cp)
        self[cp] = value
        return value


_TABLE = _Table()
# A no-break or thin space between digit groups is a thousands separator (French "1 200"): dropped.
_GROUP_SPACE = regex.compile(r"(?<=[0-9])[\u00a0\u202f\u2009\u2007](?=[0-9]{3}(?![0-9]))")


def normalize(text: str) -> str:
    """Return the comparison form of `text`: ASCII digits, Persian letter forms, no short vowels, ZWNJ as space."""
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    text = text.translate(_TABLE)
    if "\u00a0" in text or "\u202f" in text or "\u2009" in text or "\u2007" in text:
        text = _GROUP_SPACE.sub("", text)
    return text
