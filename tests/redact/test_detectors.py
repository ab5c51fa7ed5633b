"""One test per detector: planted values are replaced, near-misses are not, entity selection and options."""

from __future__ import annotations

import pytest

from sluicegate.redaction import ENTITIES, Detector, Redactor, redact, validators

from .corpus import LABELED, POSITIVES, URL_WITH_CREDENTIALS

CASES = [(entity, value) for entity, values in POSITIVES.items() for value in values]


@pytest.mark.parametrize(("entity", "value"), CASES, ids=[f"{e}-{i}" for i, (e, _) in enumerate(CASES)])
def test_planted_value_is_replaced_with_its_entity(entity: str, value: str) -> None:
    assert redact(f"see {value} now") == f"see <{entity}> now"


@pytest.mark.parametrize(("entity", "value"), CASES, ids=[f"{e}-{i}" for i, (e, _) in enumerate(CASES)])
def test_value_glued_to_non_ascii_text(entity: str, value: str) -> None:
    assert redact(f"请联系{value}谢谢") == f"请联系<{entity}>谢谢"
    assert redact(f"شماره {value}، ممنون") == f"شماره <{entity}>، ممنون"


@pytest.mark.parametrize(("text", "secret", "entity"), LABELED + [URL_WITH_CREDENTIALS])
def test_labelled_secrets_lose_their_value_and_keep_their_label(text: str, secret: str, entity: str) -> None:
    assert redact(text) == text.replace(secret, f"<{entity}>")


def test_url_credentials_keep_scheme_and_host() -> None:
    assert redact(URL_WITH_CREDENTIALS[0]) == "postgres://<URL_CREDENTIALS>@db.internal:5432/app"


def test_every_builtin_entity_has_a_planted_case() -> None:
    covered = set(POSITIVES) | {"LABELED_SECRET", "AWS_SECRET_KEY", "URL_CREDENTIALS", "BEARER_TOKEN"}
    assert covered == set(ENTITIES)


def test_normalized_view_catches_disguised_values_and_output_keeps_raw_text_elsewhere() -> None:
    # NBSP and thin spaces between groups, a zero-width space inside, fullwidth digits and at sign.
    assert redact("card 4111\u00a01111\u200b1111\u20091111 ok") == "card <CREDIT_CARD> ok"
    assert redact("ｕｓｅｒ＠ｅｘａｍｐｌｅ．ｃｏｍ\u00a0ok") == "<EMAIL_ADDRESS>\u00a0ok"
    assert redact("call ＋１ ４１５ ５５５ ２６７１!") == "call <PHONE_NUMBER>!"
    assert redact("user\u200b@example.com") == "<EMAIL_ADDRESS>"
    assert redact("\u200bA\u00a0b\u200d") == "\u200bA\u00a0b\u200d"


def test_persian_digits_are_read_as_digits() -> None:
    assert redact("کارت ۴۱۱۱ ۱۱۱۱ ۱۱۱۱ ۱۱۱۱ است") == "کارت <CREDIT_CARD> است"


def test_adjacent_matches_are_both_replaced_and_nothing_is_eaten() -> None:
    assert redact("a@b.com,c@d.org;192.168.0.1") == "<EMAIL_ADDRESS>,<EMAIL_ADDRESS>;<IP_ADDRESS>"
    assert redact("x user@example.com\n4111111111111111\n") == "x <EMAIL_ADDRESS>\n<CREDIT_CARD>\n"


def test_overlapping_findings_resolve_to_the_earliest_then_longest() -> None:
    # The e-mail pattern sees "pass@db.example.com" inside the URL; the credential span starts first and wins.
    assert redact("mysql://root:pass@db.example.com/x") == "mysql://<URL_CREDENTIALS>@db.example.com/x"
    # Same span from two detectors: the specific one (earlier in priority) names it.
    assert redact("API_KEY=sk-proj-" + "a" * 40) == "API_KEY=<OPENAI_KEY>"


def test_anthropic_key_is_not_reported_as_openai() -> None:
    assert redact("sk-ant-api03-" + "b" * 40) == "<ANTHROPIC_KEY>"


def test_entity_selection() -> None:
    text = "mail user@example.com card 4111 1111 1111 1111"
    assert redact(text, entities=["CREDIT_CARD"]) == "mail user@example.com card <CREDIT_CARD>"
    with pytest.raises(ValueError, match="unknown entities"):
        Redactor(entities=["EMAIL"])
    with pytest.raises(TypeError):
        Redactor(entities="EMAIL_ADDRESS")


def test_allow_list_is_case_insensitive_and_normalized() -> None:
    text = "Write to Support@Example.com, not jane@example.com."
    assert redact(text, allow=["support@example.com"]) == "Write to Support@Example.com, not <EMAIL_ADDRESS>."


def test_custom_detectors_tuple_and_object() -> None:
    text = "ticket EMP-123456 and EMP-000000"
    custom = [("EMPLOYEE_ID", r"EMP-[0-9]{6}(?![0-9])", lambda v: v != "EMP-000000")]
    assert redact(text, custom=custom) == "ticket <EMPLOYEE_ID> and EMP-000000"
    assert redact("code X-42!", custom=[Detector("CODE", r"X-[0-9]+")]) == "code <CODE>!"
    with pytest.raises(ValueError, match="empty string"):
        Redactor(custom=[("BAD", r"x*")])
    with pytest.raises(TypeError):
        Redactor(custom=["just a pattern"])


def test_bad_options_are_clear_errors() -> None:
    for bad in (0, -1, "64", 1.5, True):
        with pytest.raises(ValueError, match="max_hold"):
            Redactor(max_hold=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="operator"):
        Redactor(operator="delete")
    with pytest.raises(TypeError):
        Redactor().feed(b"bytes")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("check", "good", "bad"),
    [
        (validators.luhn, "4111111111111111", "4111111111111112"),
        (validators.iban, "GB82WEST12345698765432", "GB83WEST12345698765432"),
        (validators.base58check, "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb"),
        (validators.bech32, "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5"),
        (validators.us_ssn, "536-22-1234", "536-22 1234"),
        (validators.jwt, "eyJhbGciOiJub25lIn0.eyJhIjoxfQ.", "eyJub3QganNvbg.eyJhIjoxfQ."),
        (validators.ip_address, "10.0.0.1", "300.1.1.1"),
        (validators.mac_address, "00:1a:2b:3c:4d:5e", "00:00:00:00:00:00"),
        (validators.phone_number, "+1 415 555 2671", "+1 000 000 0000"),
    ],
)
def test_validators_accept_the_real_thing_and_reject_the_near_miss(check, good: str, bad: str) -> None:
    assert check(good) is True
    assert check(bad) is False


def test_bech32m_taproot_address() -> None:
    # BIP-350 test vector (segwit v1).
    assert validators.bech32("bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y")
