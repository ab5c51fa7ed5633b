"""Precision: a clean corpus of look-alikes is released byte for byte, whole and streamed."""

from __future__ import annotations

import pytest

from sluicegate.redaction import Redactor, redact
from sluicegate.testing import run_filter

from .corpus import CHINESE, CLEAN, ENGLISH, JAPANESE, PERSIAN


@pytest.mark.parametrize("text", CLEAN + [ENGLISH, CHINESE, JAPANESE, PERSIAN])
def test_clean_text_is_untouched(text: str) -> None:
    assert redact(text) == text
    assert run_filter(Redactor, list(text)).text == text


def test_clean_corpus_as_one_document() -> None:
    doc = "\n".join(CLEAN)
    r = Redactor()
    out = r.feed(doc).text + r.flush().text
    assert out == doc
    assert r.counts == {}
