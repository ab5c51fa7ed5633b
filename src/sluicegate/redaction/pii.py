"""Personal data detectors (Presidio entity names): e-mail, card, IBAN, phone, US SSN.

Patterns run on the detection view (Unicode spaces are ' ', dashes '-', fullwidth and Persian digits ASCII).
Every start is guarded by a lookbehind so that a long run of look-alike characters is tried from one place
only, which keeps matching linear on pathological input.
"""

from __future__ import annotations

from . import windows
from .detector import Detector, data_lines

# Letters an address may use: Latin (with accents), Cyrillic and Greek, so a homoglyph does not cut the
# match short; CJK and Arabic-script letters are excluded so that text glued to an address stays text.
_ADDR = r"\p{Latin}\p{Cyrillic}\p{Greek}0-9"
# RFC 5322 lets a local part hold `'`, `!`, `#`, `$`, `&`, `*`, `^`, `~` (`o'brien@…`, `john!doe@…`). A value
# starts with a letter, digit, `_`, `%`, `+` or `-`: leading punctuation (a quote, `...`) is context, not value.
_LOCAL = rf"[{_ADDR}._%+\-'!#$&*^~]"
_FIRST = rf"[{_ADDR}_%+\-]"
_PUNCT = r"[.'!#$&*^~]"
_LABEL = rf"[{_ADDR}](?:[{_ADDR}\-]{{0,61}}[{_ADDR}])?"
_NOT_TLDS = "|".join(sorted(data_lines("not_tlds.txt"), key=len, reverse=True))
# ASCII TLDs, IDN TLDs in their A-label (`xn--p1ai`) and in Cyrillic or Greek letters (`почта.рф`, `.ελ`).
_TLD = r"[A-Za-z]{2,24}+|(?i:xn--)[0-9A-Za-z\-]{2,59}+|[\p{Cyrillic}\p{Greek}]{2,24}+"
# The local part may be up to 256 characters: four times RFC 5321's 64, because a limit in a standard is not a
# reason to show a value (a longer run is held no longer than that, which keeps the hold on prose short).
EMAIL_LOCAL_MAX = 256
EMAIL = Detector(
    "EMAIL_ADDRESS",
    rf"(?<!{_LOCAL}){_PUNCT}{{0,16}}+(?P<v>{_FIRST}{_LOCAL}{{0,{EMAIL_LOCAL_MAX - 1}}}+@(?:{_LABEL}\.)+"
    rf"(?!(?i:{_NOT_TLDS})(?![A-Za-z]))(?:{_TLD})(?![{_ADDR}\-]))",
)

# Between digit groups: one space, dash, tab, dot or middle dot (the view reads every Unicode space as ' ').
_SEP = r"[ \t.\-\u00b7]"
# A run of digit groups (one separator between groups) that starts and ends with the run, up to 76 digits:
# room for four cards side by side, or a card and stray numbers. `card_windows` picks the Luhn-valid 13-19
# digit windows inside it. A longer run is a table of numbers (see the blind spots in docs/redactor.md). The
# run may not start right after a Latin letter (`LU28 0019 …` is an IBAN, not a card after `LU`). After a
# '+' the digits are an international phone number: the run then starts with its '+', and no window may take
# its first group (a card may still follow the number in the same run).
CREDIT_CARD = Detector(
    "CREDIT_CARD",
    rf"(?<![0-9]{_SEP}?)(?<![A-Za-z])(?:\+|(?<!\+))[0-9](?:{_SEP}?[0-9]){{12,75}}(?!{_SEP}?[0-9])",
    locate=windows.card_windows,
    first="[+0-9]",
)


# Upper or lower case, compact or in groups of four separated by spaces or dashes (`de89 3704 …`,
# `AL47-2121-…`), the paper format of ISO 13616. The pattern is a bounded run after a country-code-shaped
# start; `iban_window` takes the country's exact length (data file) and checks mod-97. One generic start
# instead of ~90 case-insensitive country codes: that alternation made every probe at a lowercase letter 2x
# dearer.
IBAN_CODE = Detector(
    "IBAN_CODE",
    r"(?<![A-Za-z0-9])[A-Za-z]{2}[0-9]{2}"
    r"(?:[A-Za-z0-9]{11,30}+|(?:[ \-][A-Za-z0-9]{4}){2,8}(?:[ \-][A-Za-z0-9]{1,3})?)(?![A-Za-z0-9])",
    locate=windows.iban_window,
)

# International (+CC ...) or national: (415) 555-2671 / 415-555-2671 / 415.555.2671, the same after a country code
# without its '+' (1-800-555-0199, 91-415-555-0132: read as +CC), a trunk-0 number in groups separated by spaces
# or dashes (020 7946 0958, 01 23 45 67 89, 090-1234-5678, 0 532 123 45 67, 0 (532) 1234567), a trunk-0 area
# code and a 7-digit number (09-7625400), a compact trunk-0 number (09123456789) or a compact Chinese mobile
# (13812345678); then up to two more groups of the same run ("415-555-2671 2 times", a card after the number).
# libphonenumber picks the window (`phone_window`) and the regions (validators.phone_number). Not right after a
# digit group and its separator (`BE71 0961 …` is an IBAN). A dashed US number may be glued to a lowercase word
# (`is415-555-0132`): its shape is distinctive, where a glued digit run is part of an identifier. An international
# number's digits are a repeat of four alternatives that begin differently (at most one can match at a place), the
# plain digit first: the same matches as an optional separator before each digit, at 60% of the cost per match
# (the `regex` engine kept a backtrack point per digit; tests/redact/test_pattern_rewrites.py compares them).
PHONE_NUMBER = Detector(
    "PHONE_NUMBER",
    r"(?:(?<![0-9A-Za-z+])(?<![0-9][ .\-])(?:"
    r"\+[0-9](?:[0-9]|[ .\-][0-9]|[ ]?\([0-9]|\)[ ]?[0-9]){6,14}"
    r"|(?:[0-9]{1,3}[ .\-])?(?:\([0-9]{3}\)[ ]?|[0-9]{3}[ .\-])[0-9]{3}[ .\-][0-9]{4}"
    r"|0[0-9]{1,4}(?: [0-9]{2,4}){2,4}"
    r"|0[0-9]{1,4}(?:-[0-9]{2,4}){2,3}"
    r"|0[ \-](?:\([0-9]{3}\)[ ]?|[0-9]{3}[ \-])[0-9]{3}(?:[ \-]?[0-9]{2}){2}"
    r"|0[0-9]{1,2}-[0-9]{7}"
    r"|0[0-9]{9,11}"
    r"|1[3-9][0-9]{9}"
    r")|(?<=[a-z])[0-9]{3}-[0-9]{3}-[0-9]{4})(?:[ .\-][0-9]{1,19}){0,2}(?![0-9A-Za-z]|[ .\-]?[0-9])",
    locate=windows.phone_window,
    first="[+(0-9]",
)

# A run of up to 24 digits in groups, not glued to a word; `ssn_windows` picks 3-2-4 groups with one separator.
US_SSN = Detector(
    "US_SSN",
    r"(?<![0-9A-Za-z])(?<![0-9][ \-])[0-9](?:[ \-]?[0-9]){8,23}(?![0-9A-Za-z]|[ \-][0-9])",
    locate=windows.ssn_windows,
    first="[0-9]",
)

DETECTORS = (EMAIL, CREDIT_CARD, IBAN_CODE, PHONE_NUMBER, US_SSN)
