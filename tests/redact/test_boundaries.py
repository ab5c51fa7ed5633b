"""Values next to other digit groups: a card, SSN or phone number followed or preceded by a stray number
(an expiry date, a counter, a second card) is still found, and only the value is replaced.

Candidate windows are aligned to digit-group boundaries and validated (Luhn, SSN rules, libphonenumber);
the stray groups stay as they were. Near-misses (long runs, Luhn-invalid numbers) stay untouched.
"""

from __future__ import annotations

import pytest

from sluicegate.redaction import Redactor, redact
from sluicegate.testing import assert_chunk_invariant

NEIGHBOURS = [
    ("Card: 4111 1111 1111 1111 12/27 CVV 123", "Card: <CREDIT_CARD> 12/27 CVV 123"),
    ("cards 4111111111111111 5555555555554444", "cards <CREDIT_CARD> <CREDIT_CARD>"),
    ("Step 2 4111111111111111 is the card", "Step 2 <CREDIT_CARD> is the card"),
    ("card 4111-1111-1111-1111-12 ok", "card <CREDIT_CARD>-12 ok"),
    ("row 7 4111 1111 1111 1111 3 items", "row 7 <CREDIT_CARD> 3 items"),
    ("ssn 123-45-6780 1 time", "ssn <US_SSN> 1 time"),
    ("case 2 536-22-1234 closed", "case 2 <US_SSN> closed"),
    ("call 415-555-2671 2 times", "call <PHONE_NUMBER> 2 times"),
    ("call (415) 555-2671 2 times", "call <PHONE_NUMBER> 2 times"),
    ("call +1 415 555 2671 2 times", "call <PHONE_NUMBER> 2 times"),
    ("Tel +44 20 7946 0958 2 lines", "Tel <PHONE_NUMBER> 2 lines"),
    ("Tel 020 7946 0958 2 lines", "Tel <PHONE_NUMBER> 2 lines"),
    ("+1 415 555 2671 5555555555554444", "<PHONE_NUMBER> <CREDIT_CARD>"),
    ("+1 2 4111 1111 1111 1111", "+1 2 <CREDIT_CARD>"),
    # The same class in the other detectors (already handled; kept as regression tests).
    ("IBAN DE89 3704 0044 0532 0130 00 12 x", "IBAN <IBAN_CODE> 12 x"),
    ("2 DE89 3704 0044 0532 0130 00", "2 <IBAN_CODE>"),
    ("ip 192.168.1.10 2 hosts", "ip <IP_ADDRESS> 2 hosts"),
    ("3 192.168.1.10", "3 <IP_ADDRESS>"),
    ("2001:db8::8a2e:370:7334 5", "<IP_ADDRESS> 5"),
    ("mac 00:1A:2B:3C:4D:5E 2", "mac <MAC_ADDRESS> 2"),
]


@pytest.mark.parametrize(("text", "want"), NEIGHBOURS)
def test_value_next_to_a_digit_group_is_found(text: str, want: str) -> None:
    assert redact(text) == want
    assert_chunk_invariant(Redactor, text, max_size=4, random_runs=3)


NEAR_MISSES = [
    "Order 4111111111111112 5 was refunded.",  # Luhn-invalid, with a stray group
    "Serial 0000 1111 2222 3333 4444 5555 6666 7777 8888 9999 1234 5678.",  # a long run is not a card
    "Ref 1234 5678 9012 3456 78 and 12 1234 5678 9012 3456.",
    "ISBN 978-3-16-148410-0 2 copies, 2024-01-15 3 times.",
    "Codes 000-12-3456 7 and 666-12-3456 1 are not SSNs.",
    "IBAN DE00 3704 0044 0532 0130 00 12 has bad check digits.",
    "Dial +00 00 0000 0000 2 to test.",
    # Luhn-valid 4-4-4-4 inside a longer run; an invalid '+' number is not read as a card either
    "Ref 2024 0123 4567 8901 2345 6789 is an account number.",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_next_to_digit_groups_stay_untouched(text: str) -> None:
    assert redact(text) == text


def test_a_phone_number_is_never_read_as_a_card() -> None:
    # The phone digits plus the stray "2" pass Luhn; the '+' marks an international number, not a card.
    assert "CREDIT_CARD" not in redact("Tel +44 20 7946 0958 2 lines")
