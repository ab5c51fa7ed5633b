"""Personal data detectors (Presidio entity names): e-mail, card, IBAN, phone, US SSN.

Patterns run on the detection view (Unicode spaces are ' ', dashes '-', fullwidth and Persian digits ASCII).
Every start is guarded by a lookbehind so that a long run of look-alike characters is tried from one place
only, which keeps matching linear on pathological input.
"""

from __future__ import annotations

from . import validators, windows
from .detector import Detector, data_lines

# Letters an address may use: Latin (with accents), Cyrillic and Greek, so a homoglyph does not cut the
# match short; CJK and Arabic-script letters are excluded so that text glued to an address stays text.
_ADDR = r"\p{Latin}\p{Cyrillic}\p{Greek}0-9"
_LOCAL = rf"[{_ADDR}._%+\-]"
_LABEL = rf"[{_ADDR}](?:[{_ADDR}\-]{{0,61}}[{_ADDR}])?"
_NOT_TLDS = "|".join(sorted(data_lines("not_tlds.txt"), key=len, reverse=True))

EMAIL = Detector(
    "EMAIL_ADDRESS",
    rf"(?<!{_LOCAL}){_LOCAL}{{1,64}}+@(?:{_LABEL}\.)+(?!(?i:{_NOT_TLDS})(?![A-Za-z]))[A-Za-z]{{2,24}}+(?![{_ADDR}\-])",
)

# A run of digit groups (one space or dash between groups) that starts and ends with the run, up to 38 digits:
# room for two cards side by side or a card and stray numbers. `card_windows` picks the Luhn-valid 13-19
# digit windows inside it. A longer run is a serial or a table of numbers, never a card. After a '+' the
# digits are an international phone number: the run then starts with its '+', and no window may take its
# first group (a card may still follow the number in the same run).
CREDIT_CARD = Detector(
    "CREDIT_CARD",
    r"(?<![0-9][ \-]?)(?:\+|(?<!\+))[0-9](?:[ \-]?[0-9]){12,37}(?![ \-]?[0-9])",
    locate=windows.card_windows,
    first="[+0-9]",
)


def _iban_pattern() -> str:
    by_length: dict[int, list[str]] = {}
    for line in data_lines("iban_lengths.txt"):
        country, length = line.split()
        by_length.setdefault(int(length), []).append(country)
    branches = [
        f"(?:{'|'.join(sorted(countries))})[0-9]{{2}}(?: ?[A-Z0-9]){{{length - 4}}}"
        for length, countries in sorted(by_length.items())
    ]
    return rf"(?<![A-Za-z0-9])(?:{'|'.join(branches)})(?![A-Za-z0-9])"


IBAN_CODE = Detector("IBAN_CODE", _iban_pattern(), validators.iban)

# International (+CC ...) or national: (415) 555-2671 / 415-555-2671 / 415.555.2671, or a trunk-0 number
# in space-separated groups (020 7946 0958, 01 23 45 67 89), then up to two more groups of the same run
# ("415-555-2671 2 times", a card after the number). libphonenumber picks the window (`phone_window`).
PHONE_NUMBER = Detector(
    "PHONE_NUMBER",
    r"(?<![0-9A-Za-z+])(?:"
    r"\+[0-9](?:(?:[ .\-]|[ ]?\(|\)[ ]?)?[0-9]){6,14}"
    r"|(?:\([0-9]{3}\)[ ]?|[0-9]{3}[ .\-])[0-9]{3}[ .\-][0-9]{4}"
    r"|0[0-9]{1,4}(?: [0-9]{2,4}){2,4}"
    r")(?:[ .\-][0-9]{1,19}){0,2}(?![0-9A-Za-z]|[ .\-]?[0-9])",
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
