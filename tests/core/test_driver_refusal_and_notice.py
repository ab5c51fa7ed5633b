"""Issue 11, refusal token and driver items: a marker inside the token, the refusal's language, closing before
the first chunk, lone-CR line ends, and the notice set off from the text like a paragraph."""

from __future__ import annotations

import asyncio

import pytest

from sluicegate import Done, SentenceGate, SentenceSplitter
from sluicegate._driver import FALLBACK_NOTICE, Outcome, adrive_text, drive_text
from sluicegate._notices import notice
from sluicegate.testing import assert_chunk_invariant, pieces_of

# -- the refusal token ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["NO_[S1]ANSWER", "NO_ANS[S1]WER.", "NO_[S1][S2]ANSWER", "NO\u200b_ANSWER"])
def test_a_marker_or_invisible_character_inside_the_token_does_not_unmask_it(answer: str) -> None:
    run = assert_chunk_invariant(lambda: SentenceGate(["a", "b"]), answer, max_size=6)
    assert run.text == notice("en", "refusal") and run.events == (Done("refused"),)


def test_a_marked_token_after_released_text_ends_the_answer_unshown() -> None:
    run = assert_chunk_invariant(lambda: SentenceGate(["It opens at nine."]), "It opens at nine [S1]. NO_[S1]ANSWER")
    assert run.text == "It opens at nine." and run.events == (Done("refused"),)


# -- drive_text: a refusal shows the refusal text only, in the gate's language -----------------------------------


@pytest.mark.parametrize("language", ["fr", "ru", "zh"])
def test_a_localized_refusal_is_shown_alone(language: str) -> None:
    shown = list(drive_text(pieces_of("NO_ANSWER", 3), SentenceGate([], language=language)))
    assert "".join(shown) == notice(language, "refusal")
    assert FALLBACK_NOTICE not in "".join(shown)


def test_a_late_refusal_adds_nothing_after_the_released_text() -> None:
    out = Outcome()
    shown = list(drive_text(pieces_of("It opens at nine [S1]. NO_ANSWER", 4), SentenceGate(["nine"]), outcome=out))
    assert "".join(shown) == "It opens at nine." and out.reason == "refused"


def test_async_refusal_is_shown_alone_too() -> None:
    async def main() -> list[str]:
        async def up():
            for piece in pieces_of("NO_ANSWER", 2):
                yield piece

        return [c async for c in adrive_text(up(), SentenceGate([], language="de"))]

    assert "".join(asyncio.run(main())) == notice("de", "refusal")


# -- the notice is set off from the released text as a paragraph ------------------------------------------------


def test_the_notice_is_separated_from_the_last_sentence_like_a_paragraph() -> None:
    gate = SentenceGate(["It opens at nine."])
    shown = "".join(drive_text(pieces_of("It opens at nine [S1]. It closes at 11 [S1].", 5), gate))
    assert shown == "It opens at nine.\n\n" + gate.notice


def test_a_notice_with_nothing_released_before_it_has_no_separator() -> None:
    gate = SentenceGate([])
    assert "".join(drive_text(["It closes at 11."], gate)) == gate.notice


# -- closing before the first chunk closes the upstream ----------------------------------------------------------


class Provider:
    """An upstream with a close(), as a provider stream has: records whether it was closed."""

    def __init__(self) -> None:
        self.closed = False

    def __iter__(self) -> Provider:
        return self

    def __next__(self) -> str:
        return "It opens at nine."

    def close(self) -> None:
        self.closed = True

    def __aiter__(self) -> Provider:
        return self

    async def __anext__(self) -> str:
        return "It opens at nine."

    async def aclose(self) -> None:
        self.closed = True


def test_closing_drive_text_before_the_first_chunk_closes_the_upstream() -> None:
    up, out = Provider(), Outcome()
    chunks = drive_text(up, SentenceGate([]), outcome=out)
    chunks.close()
    assert up.closed and out.reason == "cancelled"


def test_closing_drive_text_before_the_first_chunk_closes_a_generator_upstream() -> None:
    def provider():
        yield "It opens at nine."

    gen = provider()
    drive_text(gen, SentenceGate([])).close()
    assert gen.gi_frame is None  # closed: it can never produce (and bill) anything now


def test_dropping_an_unread_drive_text_closes_the_upstream() -> None:
    up = Provider()
    drive_text(up, SentenceGate([]))  # dropped at once (refcount): as a generator's finaliser would, it closes
    assert up.closed


def test_closing_drive_before_the_first_step_closes_the_upstream() -> None:
    from sluicegate import drive

    up = Provider()
    drive(up, SentenceGate([])).close()
    assert up.closed


def test_closing_adrive_text_before_the_first_chunk_closes_the_upstream() -> None:
    async def main() -> tuple[bool, str | None]:
        up, out = Provider(), Outcome()
        chunks = adrive_text(up, SentenceGate([]), outcome=out)
        await chunks.aclose()
        return up.closed, out.reason

    assert asyncio.run(main()) == (True, "cancelled")


def test_closing_adrive_before_the_first_step_closes_the_upstream() -> None:
    from sluicegate import adrive

    async def main() -> bool:
        up = Provider()
        await adrive(up, SentenceGate([])).aclose()
        return up.closed

    assert asyncio.run(main())


def test_drive_text_used_as_a_context_manager_closes_the_upstream() -> None:
    closed: list[bool] = []

    class Up:
        def __iter__(self):
            return self

        def __next__(self) -> str:
            return "x"

        def close(self) -> None:
            closed.append(True)

    with drive_text(Up(), SentenceGate([])) as chunks:
        assert chunks is not None
    assert closed == [True]


# -- CR and CRLF are line ends like LF ---------------------------------------------------------------------------


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_blank_line_ends_a_paragraph_whatever_the_line_end(newline: str) -> None:
    text = f"Opening hours{newline}{newline}The library opens at nine."
    pieces = SentenceSplitter().feed(text)
    assert pieces == [f"Opening hours{newline}{newline}"]


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_cr_line_ends_are_chunk_invariant_in_the_gate(newline: str) -> None:
    answer = f"Hours{newline}{newline}It opens at nine [S1].{newline}- Closed on Sunday{newline}It ends."
    run = assert_chunk_invariant(lambda: SentenceGate(["It opens at nine."]), answer, max_size=6)
    assert run.events == (Done("complete"),)
    # between sentences the gate writes its own line ends; inside one the model's text is kept as written
    assert run.text == f"Hours\n\nIt opens at nine.\n- Closed on Sunday{newline}It ends."


def test_a_single_crlf_is_one_line_end_not_a_blank_line() -> None:
    assert SentenceSplitter().feed("Hours\r\nIt opens at nine. Next") == ["Hours\r\nIt opens at nine. "]
