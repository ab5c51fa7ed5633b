"""Fail closed: an open match at max_hold, or a private-key block that never ends, stops the stream and releases
nothing of it; the whole-string path does exactly the same."""

from __future__ import annotations

import functools

import pytest

from sluicegate import Done, Guard
from sluicegate.redaction import DEFAULT_NOTICE, UNSETTLED, Redactor, redact
from sluicegate.testing import assert_chunk_invariant, pieces_of, run_filter

from .corpus import JWT_2K, make_pem

STOP_EVENTS = (Guard((UNSETTLED,), DEFAULT_NOTICE), Done("stopped"))
BEFORE = "Here is the key you asked for:\n"


def _open_pem(body_lines: int) -> str:
    return BEFORE + make_pem("RSA ", body_lines).rsplit("\n-----END", 1)[0] + "\n"


@pytest.mark.parametrize("size", [1, 8, 64, 10_000])
def test_unterminated_pem_at_max_hold_releases_nothing_of_its_body(size: int) -> None:
    text = _open_pem(40) + "and more text after it"
    body = text[len(BEFORE) :]
    make = functools.partial(Redactor, max_hold=512)
    run = run_filter(make, pieces_of(text, size))
    assert run.stopped
    assert run.events == STOP_EVENTS
    assert run.text == BEFORE
    assert "-----BEGIN" not in run.text and body[40:80] not in run.text
    assert run.max_held <= 512


def test_whole_string_path_fails_closed_identically() -> None:
    text = _open_pem(40) + "tail"
    make = functools.partial(Redactor, max_hold=512)
    whole = run_filter(make, [text])
    assert (whole.text, whole.stopped, whole.events) == (BEFORE, True, STOP_EVENTS)
    assert redact(text, max_hold=512) == BEFORE + DEFAULT_NOTICE
    assert_chunk_invariant(make, text, max_size=16, random_runs=10)


def test_unterminated_pem_at_end_of_stream_fails_closed_under_the_cap() -> None:
    text = _open_pem(3)  # far shorter than max_hold: the stream simply ends inside the block
    for truncated in (False, True):
        run = assert_chunk_invariant(Redactor, text, max_size=16, random_runs=10, truncated=truncated)
        assert (run.text, run.stopped, run.events) == (BEFORE, True, STOP_EVENTS)
    assert redact(text) == BEFORE + DEFAULT_NOTICE


def test_complete_pem_is_replaced_and_the_stream_goes_on() -> None:
    text = BEFORE + make_pem("OPENSSH ", 30) + "\nDone."
    run = run_filter(Redactor, pieces_of(text, 3))
    assert (run.text, run.stopped) == (BEFORE + "<PRIVATE_KEY>\nDone.", False)


@pytest.mark.parametrize("kind", ["RSA ", "", "OPENSSH "])
def test_a_closed_key_does_not_hold_the_rest_of_its_line(kind: str) -> None:
    # A well-formed END line closes the block where it ends: the text after it on the same line is released as
    # it settles, not held to the next newline (a line longer than max_hold used to stop the whole answer).
    after = " Use it and then " + "carry on writing " * 60
    text = BEFORE + make_pem(kind, 3) + after
    make = functools.partial(Redactor, max_hold=512)
    run = assert_chunk_invariant(make, text, max_size=16, random_runs=5)
    assert (run.text, run.stopped) == (BEFORE + "<PRIVATE_KEY>" + after, False)
    assert redact(text, max_hold=512) == BEFORE + "<PRIVATE_KEY>" + after
    r = Redactor()
    end = text.index(after) + 160  # past the next check (held text over 256 is checked as it grows by a quarter)
    for i in range(0, end, 4):
        r.feed(text[i : min(i + 4, end)])
    assert r.held <= 16  # the current word, not the key and the rest of its line


def test_a_malformed_end_line_still_ends_the_block_at_its_newline() -> None:
    for end in ("-----END RSA KEY-----", "-----end private key-----", "-----END PRIVATE KEY----"):
        text = BEFORE + make_pem("RSA ", 2).rsplit("\n-----END", 1)[0] + "\n" + end + " trailing words\nNext line."
        run = run_filter(Redactor, pieces_of(text, 4))
        assert run.text == BEFORE + "<PRIVATE_KEY>\nNext line.", end
        assert "trailing" not in run.text


def test_dashes_and_certificates_are_not_treated_as_open_keys() -> None:
    for text in ("a rule\n-----\n", "-----BEGIN CERTIFICATE-----\nMIIB\n", "ends with -----BEGIN RSA PRIV"):
        run = run_filter(Redactor, list(text))
        assert (run.text, run.stopped) == (text, False)


def test_long_jwt_beyond_max_hold_stops_and_leaks_no_part() -> None:
    text = "token " + JWT_2K + " ok"
    run = run_filter(functools.partial(Redactor, max_hold=256), pieces_of(text, 4))
    assert run.stopped and run.text == "token "
    assert redact(text) == "token <JWT> ok"  # under the default cap it is simply replaced


def test_stop_is_sticky() -> None:
    r = Redactor(max_hold=64)
    step = r.feed(_open_pem(5))
    assert step.stopped and r.stopped
    assert r.feed("more").stopped and r.feed("more").text == ""
    assert r.flush().stopped and r.held == 0


def test_flush_reports_complete_or_truncated() -> None:
    assert run_filter(Redactor, ["hi"]).events == (Done("complete"),)
    assert run_filter(Redactor, ["hi"], truncated=True).events == (Done("truncated"),)
