"""Liveness: on benign prose the filter holds only a few characters (<= 64), whatever the script."""

from __future__ import annotations

import pytest

from sluicegate.redaction import Redactor
from sluicegate.testing import assert_chunk_invariant, run_filter

from .corpus import CHINESE, ENGLISH, JAPANESE, PERSIAN

# Prose that uses the word for "password" in each of the ten languages whose labels are data files: a label
# without a separator and value is prose, held no longer than any word.
PASSWORD_PROSE = {
    "german": "Das Passwort muss lang sein. Ändern Sie Ihr Kennwort regelmäßig, bitte.",
    "french": "Le mot de passe doit être long ; changez votre mot de passe souvent.",
    "spanish": "La contraseña debe ser larga; cambie su contraseña a menudo.",
    "portuguese": "A senha deve ser longa; troque a sua senha com frequência.",
    "russian": "Пароль должен быть длинным; меняйте пароль почаще, пожалуйста.",
    "arabic": "يجب أن تكون كلمة المرور طويلة، وغيّر كلمة السر كثيرًا.",
    "hindi": "पासवर्ड लंबा होना चाहिए; अपना पासवर्ड अक्सर बदलें।",
    "persian-password": "رمز عبور باید طولانی باشد؛ گذرواژه را زود به زود عوض کنید.",
    "chinese-password": "密码必须足够长，请经常更换您的密码和口令。",
    "english-password": "Your password must be long; the passphrase and PIN code too.",
}
PROSE = {"english": ENGLISH, "chinese": CHINESE, "japanese": JAPANESE, "persian": PERSIAN, **PASSWORD_PROSE}


@pytest.mark.parametrize("name", sorted(PROSE))
def test_most_characters_held_on_prose_is_at_most_64(name: str) -> None:
    text = PROSE[name] * 3
    run = assert_chunk_invariant(Redactor, text, max_size=8, random_runs=5)
    assert run.text == text
    assert run.max_held <= 64, run.max_held


@pytest.mark.parametrize("name", ["chinese", "japanese"])
def test_first_output_arrives_within_64_characters_without_spaces(name: str) -> None:
    r = Redactor()
    released = ""
    for i, ch in enumerate(PROSE[name]):  # noqa: B007 - i is read after the loop
        released += r.feed(ch).text
        if released:
            break
    assert released and i < 64


def test_held_counts_characters_of_an_open_value() -> None:
    r = Redactor()
    assert r.feed("mail me at user@exa").text == "mail me at "
    assert r.held == len("user@exa")
    assert r.feed("mple.com now").text == "<EMAIL_ADDRESS> "
    assert r.held == len("now")  # a word could still become an address
    assert r.flush().text == "now" and r.held == 0


def test_a_split_word_is_never_spaced() -> None:
    # NeMo Guardrails #1197: "ass" + "isting" must stay "assisting".
    assert run_filter(Redactor, ["ass", "isting", " you"]).text == "assisting you"
