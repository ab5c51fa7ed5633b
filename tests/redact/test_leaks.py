"""Issue 10's leaks: a value found but shown in part, a key block whose END line is malformed, a truncated
stream that released an open token, limits of a standard used as a reason to show a value, and a crash on a
deeply nested JWT header. Each case is also checked for chunk invariance."""

from __future__ import annotations

import base64

import pytest

from sluicegate import Done, Guard
from sluicegate.redaction import DEFAULT_NOTICE, UNSETTLED, Redactor, redact
from sluicegate.testing import assert_chunk_invariant, run_filter

from .corpus import alnum, make_jwt

STOP = (Guard((UNSETTLED,), DEFAULT_NOTICE), Done("stopped"))
BODY = "\n".join(alnum(64, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(3))
BEGIN = "-----BEGIN RSA PRIVATE KEY-----\n"


# --- 1. a key block whose END line does not match -----------------------------------------------------------


@pytest.mark.parametrize(
    "end",
    [
        "-----END RSA PRIVATE KEY----",  # one dash short
        "-----END RSA PRIV",  # cut short
        "-----END CERTIFICATE-----",  # another kind's END after a key BEGIN
        "-----end rsa private key-----",  # lowercase
        "-----END RSA PRIVATE KEY",  # no closing dashes
    ],
)
def test_malformed_end_line_never_releases_the_key_body(end: str) -> None:
    text = "key:\n" + BEGIN + BODY + "\n" + end + "\nand more text after it."
    run = assert_chunk_invariant(Redactor, text, max_size=7, random_runs=5)
    assert BODY[:40] not in run.text and BODY[-40:] not in run.text
    assert "BEGIN RSA PRIVATE KEY" not in run.text
    if not run.stopped:  # the END line closed the block: it is replaced and the stream goes on
        assert run.text == "key:\n<PRIVATE_KEY>\nand more text after it."


def test_exact_end_line_followed_by_text_on_the_same_line_keeps_that_text() -> None:
    text = BEGIN + BODY + "\n-----END RSA PRIVATE KEY-----Done."
    assert redact(text) == "<PRIVATE_KEY>Done."


def test_complete_key_at_the_very_end_of_the_stream_is_replaced_not_failed_closed() -> None:
    text = "k " + BEGIN + BODY + "\n-----END RSA PRIVATE KEY-----"
    for truncated in (False, True):
        run = assert_chunk_invariant(Redactor, text, max_size=9, random_runs=5, truncated=truncated)
        assert (run.text, run.stopped) == ("k <PRIVATE_KEY>", False)


def test_key_body_that_never_ends_fails_closed() -> None:
    text = "key:\n" + BEGIN + BODY + "\n----END RSA PRIVATE KEY-----\nmore"  # four dashes: not an END line
    run = assert_chunk_invariant(Redactor, text, max_size=9, random_runs=5)
    assert (run.text, run.stopped, run.events) == ("key:\n", True, STOP)


# --- 2. a truncated stream must not release an open value past its distinctive prefix -----------------------

JWT = make_jwt()
OPEN_AT_TRUNCATION = [
    ("AKIAIOSFODNN7EXAMPL", "AWS_ACCESS_KEY"),  # 19 of 20
    ("ghp_" + alnum(35), "GITHUB_TOKEN"),  # one short
    (JWT[: JWT.index(".") + 8], "JWT"),  # the header and the start of the payload
    ("sk-proj-" + alnum(12), "OPENAI_KEY"),
    ("xoxb-1234567", "SLACK_TOKEN"),
    ("glpat-" + alnum(10), "GITLAB_TOKEN"),
]


@pytest.mark.parametrize(("value", "entity"), OPEN_AT_TRUNCATION)
def test_truncated_stream_redacts_an_open_token(value: str, entity: str) -> None:
    text = "the key is " + value
    run = assert_chunk_invariant(Redactor, text, max_size=7, random_runs=5, truncated=True)
    assert value not in run.text and value[-6:] not in run.text
    assert run.text == f"the key is <{entity}>"
    assert run.events == (Done("truncated"),)


def test_truncated_labelled_value_keeps_its_label() -> None:
    run = run_filter(Redactor, ["password: h", "u"], truncated=True)
    assert run.text == "password: <LABELED_SECRET>"


def test_a_complete_stream_ending_in_a_too_short_token_is_text() -> None:
    # The stream ended normally: the text is final and it is not a token.
    assert redact("prefix ghp_abc") == "prefix ghp_abc"


@pytest.mark.parametrize("text", ["write to user@exa", "call +1 415", "a plain word", "ends with AKIA", "ghp_"])
def test_truncated_stream_keeps_words_that_were_not_past_a_prefix(text: str) -> None:
    run = assert_chunk_invariant(Redactor, text, max_size=5, random_runs=3, truncated=True)
    assert (run.text, run.events) == (text, (Done("truncated"),))


# --- 3. partial leaks ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("glpat-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N" + ".01.0j1rn5p3x ok", "<GITLAB_TOKEN> ok"),
        ("glrt-t1_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N" + ".01.0j1rn5p3x ok", "<GITLAB_TOKEN> ok"),
        ('password = "correct horse battery" ok', 'password = "<LABELED_SECRET>" ok'),
        ("password: abc>def ok", "password: <LABELED_SECRET> ok"),
        ("mysql://root:Pa55/w0rd@host ok", "mysql://<URL_CREDENTIALS>@host ok"),
        ("mysql://root:Pa55/w0rd@host.example.com ok", "mysql://<URL_CREDENTIALS>@host.example.com ok"),
        ("o'brien@example.com and john!doe@example.com", "<EMAIL_ADDRESS> and <EMAIL_ADDRESS>"),
        ("'quoted@example.com'", "'<EMAIL_ADDRESS>'"),
    ],
)
def test_no_part_of_a_found_value_stays_visible(text: str, want: str) -> None:
    run = assert_chunk_invariant(Redactor, text, max_size=7, random_runs=5)
    assert run.text == want


def test_key_wrapped_by_a_newline_is_replaced_whole() -> None:
    key = "sk-proj-" + alnum(80)
    text = f"OPENAI_API_KEY is {key[:60]}\n{key[60:]}\nThen restart."
    run = assert_chunk_invariant(Redactor, text, max_size=9, random_runs=5)
    assert run.text == "OPENAI_API_KEY is <OPENAI_KEY>\nThen restart."


def test_a_word_on_the_line_after_a_key_is_not_taken_along() -> None:
    key = "sk-proj-" + alnum(40)
    assert redact(f"{key}\nThe next line.") == "<OPENAI_KEY>\nThe next line."
    assert redact(f"{key}\n2. Next item") == "<OPENAI_KEY>\n2. Next item"


# --- 4. a limit is not a reason to show a value --------------------------------------------------------------


def test_email_with_a_local_part_over_64_characters_is_replaced() -> None:
    text = "mail " + "x" * 70 + "@example.com now"
    run = assert_chunk_invariant(Redactor, text, max_size=9, random_runs=5)
    assert run.text == "mail <EMAIL_ADDRESS> now"


def test_three_cards_in_one_run_are_all_replaced() -> None:
    text = "cards 4111 1111 1111 1111 5555 5555 5555 4444 4012 8888 8888 1881 ok"
    run = assert_chunk_invariant(Redactor, text, max_size=9, random_runs=5)
    assert run.text == "cards <CREDIT_CARD> <CREDIT_CARD> <CREDIT_CARD> ok"


# --- 5. bad input gets a result, never a crash ---------------------------------------------------------------


def _b64(data: str) -> str:
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


def test_deeply_nested_jwt_header_is_redacted_without_recursion_error() -> None:
    token = _b64('{"a":' + "[" * 1500 + "]" * 1500 + "}") + ".eyJhIjoxfQ.c2ln"
    assert len(token) > 2000
    assert redact(f"t {token} ok") == "t <JWT> ok"
    assert redact(_b64("[" * 3000 + "]" * 3000) + ".eyJhIjoxfQ.c2ln") != ""  # not an object: text, no crash
