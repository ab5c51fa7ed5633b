"""Utf8Decoder: characters split across byte chunks survive; invalid UTF-8 is a clear error."""

from __future__ import annotations

import pytest

from sluicegate import InvalidUtf8Error, Utf8Decoder

TEXT = "کتابخانه ۳٫۱۴ 阅览室 café 🙂"


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_split_characters_are_kept(size: int) -> None:
    data = TEXT.encode()
    d = Utf8Decoder()
    out = "".join(d.feed(data[i : i + size]) for i in range(0, len(data), size)) + d.flush()
    assert out == TEXT


def test_invalid_bytes_raise_with_the_offset() -> None:
    d = Utf8Decoder()
    assert d.feed(b"ok ") == "ok "
    with pytest.raises(InvalidUtf8Error, match="byte 3"):
        d.feed(b"\xff")


def test_truncated_character_at_the_end_is_an_error() -> None:
    d = Utf8Decoder()
    d.feed("é".encode()[:1])
    with pytest.raises(InvalidUtf8Error):
        d.flush()


def test_str_is_rejected() -> None:
    with pytest.raises(TypeError):
        Utf8Decoder().feed("text")  # type: ignore[arg-type]
