"""SentenceGate behaviour: release, stop, rendering, refusal token, truncation, bad input."""

import logging

import pytest

import sluicegate
from sluicegate import Done, Guard, SentenceGate, Violation
from sluicegate._gate.person import SUPPORTED_LANGUAGES
from sluicegate._notices import languages, notice
from sluicegate.testing import pieces_of, run_filter

SOURCES = ["The library opens at nine.", "Late fees were 20 euros until 2021."]


def gate(**kw: object) -> SentenceGate:
    return SentenceGate(SOURCES, **kw)  # type: ignore[arg-type]


def whole(text: str, *, truncated: bool = False, **kw: object):
    return run_filter(lambda: gate(**kw), [text], truncated=truncated)


def pieces(text: str, size: int):
    return [text[i : i + size] for i in range(0, len(text), size)]


# The seed's test, as written there (sources=..., 7-character pieces).
def test_unsupported_value_never_reaches_the_reader() -> None:
    gate = SentenceGate(sources=["The library opens at nine."])
    released = ""
    for piece in pieces("It opens at nine [S1]. Late fees ended in 2019 [S1]. More", 7):
        outcome = gate.feed(piece)
        released += outcome.text
        if outcome.stopped:
            break
    assert "2019" not in released and gate.stopped
    assert released == "It opens at nine."


def test_exported_from_the_package_root() -> None:
    assert sluicegate.SentenceGate is SentenceGate and sluicegate.Violation is Violation


def test_grounded_answer_is_released_without_markers() -> None:
    run = whole("It opens at nine [S1]. Late fees were 20 euros [S2]. Yes.")
    assert run.text == "It opens at nine. Late fees were 20 euros. Yes."
    assert run.events == (Done("complete"),) and not run.stopped


def test_each_sentence_is_released_as_soon_as_its_boundary_is_final() -> None:
    g = gate()
    assert g.feed("It opens at nine [S1]").text == ""
    assert g.feed(". ").text == ""  # more markers could still follow
    assert g.feed("L").text == "It opens at nine."
    assert g.held == 2  # the space (emitted before the next sentence) and "L"


def test_violation_releases_earlier_sentences_of_the_same_piece_then_stops() -> None:
    g = gate()
    step = g.feed("It opens at nine [S1]. Fees were 99 euros [S2]. More text")
    assert step.text == "It opens at nine."
    assert step.stopped and g.stopped
    assert step.events == (Guard(("unsupported_value",), notice("en", "stopped")), Done("stopped"))
    assert g.violations == (Violation("unsupported_value", "not in the cited sources: 99"),)


def test_stop_is_sticky() -> None:
    g = gate()
    g.feed("Fees were 99 euros [S2]. ")
    g.feed("X")
    assert g.feed("It opens at nine [S1]. Ok.").text == ""
    assert g.feed("more").stopped
    assert g.flush().events == () and g.flush().stopped


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        ("It opens at nine [S3]. ", "citation_out_of_range"),
        ("It opens at 9 in the morning. ", "citation_missing"),
        ("Late fees were 25 euros [S2]. ", "unsupported_value"),
        ("I believe it opens at nine [S1]. ", "first_person"),
    ],
)
def test_each_code_stops_and_nothing_of_the_sentence_is_sent(answer: str, code: str) -> None:
    text = "Yes. " + answer + "Next."
    run = whole(text)
    assert run.text == "Yes."
    assert run.events[0].reasons == (code,)  # type: ignore[union-attr]
    assert run.events[-1] == Done("stopped")
    sent = run.text + "".join(repr(e) for e in run.events)
    blocked = answer.strip()
    for word in blocked.replace("[", " ").replace("]", " ").replace(".", " ").split():
        if word not in ("Yes", "Next", "in", "at", "it", "It", "the", "be", "by", "of", "S2", "S3", "S1", "not"):
            assert word not in sent


def test_logging_records_only_the_length_of_the_blocked_sentence(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="sluicegate"):
        whole("It opens at nine [S1]. Late fees were 25 euros [S2]. More")
    assert caplog.records
    logged = " ".join(r.getMessage() for r in caplog.records)
    blocked = "Late fees were 25 euros [S2]. "
    assert f"{len(blocked)} characters" in logged
    assert "25" not in logged and "euros" not in logged and "Late" not in logged


def test_paragraphs_stay_paragraphs_and_spacing_is_normalized() -> None:
    run = whole("  It opens at nine [S1].\n\n\nLate fees were 20 euros [S2].\nYes.   Ok.  \n")
    assert run.text == "It opens at nine.\n\nLate fees were 20 euros.\nYes. Ok."


def test_separator_is_the_prefix_of_the_next_sentence_so_a_stop_leaves_no_dangling_space() -> None:
    g = gate()
    first = g.feed("It opens at nine [S1].\n\nLate fees were 99 euros [S2]. X")
    assert first.text == "It opens at nine."
    g2 = gate()
    assert g2.feed("It opens at nine [S1].\n\nYes. ").text == "It opens at nine."
    assert g2.feed("N").text == "\n\nYes."


def test_chinese_sentences_have_no_separator() -> None:
    g = SentenceGate(["图书馆9点开门。"], language="zh")
    run = run_filter(lambda: SentenceGate(["图书馆9点开门。"], language="zh"), ["图书馆9点开门[S1]。是的。"])
    assert run.text == "图书馆9点开门。是的。"
    assert g.feed("是").text == ""


def test_marker_only_segment_is_range_checked() -> None:
    assert whole("Yes.\n[S9]\nOk.").events[0] == Guard(("citation_out_of_range",), notice("en", "stopped"))


# Refusal token
def test_answer_that_is_the_token_is_replaced_by_the_refusal_text() -> None:
    for answer in ("NO_ANSWER", "  NO_ANSWER\n", "NO_ANSWER.", "NO_ANSWER. The sources do not say."):
        run = whole(answer)
        assert run.text == notice("en", "refusal"), answer
        assert run.events == (Done("refused"),) and run.stopped


def test_token_prefix_is_held_and_the_first_character_that_rules_it_out_releases_nothing_extra() -> None:
    g = gate()
    assert g.feed("NO_").text == "" and g.held == 3
    assert not g.stopped
    step = g.feed("ANSWER ")
    assert step.text == notice("en", "refusal")
    assert step.stopped


def test_text_that_starts_like_the_token_goes_down_the_normal_path() -> None:
    assert whole("NO_ANSWERS are rare.").text == "NO_ANSWERS are rare."
    assert whole("No, it opens at nine [S1].").text == "No, it opens at nine."
    assert whole("NO").text == "NO"


def test_token_after_released_sentences_ends_the_answer_there_as_refused() -> None:
    run = whole("It opens at nine [S1]. NO_ANSWER")
    assert run.text == "It opens at nine."
    assert run.events == (Done("refused"),) and run.stopped


def test_token_is_never_released_even_inside_a_sentence() -> None:
    run = whole("Yes. The answer is NO_ANSWER here. More.")
    assert "NO_ANSWER" not in run.text and run.text == "Yes."
    assert run.events == (Done("refused"),)


def test_custom_and_disabled_token() -> None:
    assert whole("NONE", refusal_token="NONE", refusal_text="Nothing.").text == "Nothing."
    assert whole("NO_ANSWER", refusal_token=None).text == "NO_ANSWER"


def test_refusal_text_is_localized() -> None:
    run = run_filter(lambda: SentenceGate([], language="de"), ["NO_ANSWER"])
    assert run.text == notice("de", "refusal")


# Truncation
def test_truncation_drops_the_unfinished_fragment_unjudged() -> None:
    run = whole("It opens at nine [S1]. Late fees were 99 eu", truncated=True)
    assert run.text == "It opens at nine."
    assert run.events == (Done("truncated"),) and not run.stopped


def test_truncation_after_a_finished_sentence_still_judges_it() -> None:
    assert whole("It opens at nine [S1]. Yes.", truncated=True).text == "It opens at nine. Yes."
    run = whole("It opens at nine [S1]. Fees were 99 [S2].", truncated=True)
    assert run.events[-1] == Done("stopped")  # the stop wins over the truncation


def test_truncation_with_nothing_released() -> None:
    assert whole("I", truncated=True).events == (Done("truncated"),)
    assert whole("", truncated=True).events == (Done("truncated"),)
    assert whole("NO_ANSWER", truncated=True).events == (Done("truncated"),)


def test_flush_judges_the_last_sentence() -> None:
    run = whole("It opens at nine [S1]. Fees were 99 euros [S2]")
    assert run.text == "It opens at nine." and run.events[-1] == Done("stopped")


def test_empty_answer_completes() -> None:
    assert whole("").events == (Done("complete"),)
    assert whole("   \n").text == ""


# Bad input
def test_unknown_language_lists_the_supported_ones() -> None:
    with pytest.raises(ValueError) as err:
        SentenceGate(SOURCES, language="xx")
    for code in SUPPORTED_LANGUAGES:
        assert code in str(err.value)


def test_language_tags_with_region_are_accepted() -> None:
    assert SentenceGate([], language="pt-BR").language == "pt"
    assert SentenceGate([], language="ZH").language == "zh"


@pytest.mark.parametrize("bad", ["one source", b"bytes", [b"x"], ["ok", 3], 5, [None]])
def test_non_str_sources_are_a_type_error(bad: object) -> None:
    with pytest.raises(TypeError):
        SentenceGate(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [b"bytes", 3, None])
def test_non_str_pieces_are_a_type_error(bad: object) -> None:
    with pytest.raises(TypeError):
        gate().feed(bad)  # type: ignore[arg-type]


def test_empty_refusal_token_is_rejected() -> None:
    with pytest.raises(ValueError):
        gate(refusal_token="  ")


def test_notices_exist_for_every_supported_language() -> None:
    assert set(languages()) == set(SUPPORTED_LANGUAGES)
    for code in SUPPORTED_LANGUAGES:
        for kind in ("refusal", "stopped", "truncated"):
            assert notice(code, kind).strip()  # type: ignore[arg-type]
        assert gate(language=code).notice == notice(code, "stopped")


def test_custom_notice_is_carried_by_the_guard() -> None:
    run = whole("Fees were 99 [S2]. ", notice="Held back.")
    assert run.events[0] == Guard(("unsupported_value",), "Held back.")


# Sources are indexed once
def test_sources_are_indexed_once_never_per_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    import sluicegate._gate.gate as gate_module
    import sluicegate._gate.values as values_module

    scanned: list[int] = []
    real_scan = values_module._scan

    def counting_scan(text: str):
        scanned.append(len(text))
        return real_scan(text)

    monkeypatch.setattr(values_module, "_scan", counting_scan)
    big = ["x " * 50_000 + "The fee is 20.", "y " * 50_000]
    g = gate_module.SentenceGate(big)
    after_index = list(scanned)
    assert sorted(after_index) == sorted(len(s) for s in big)
    answer = "The fee is 20 [S1]. " * 200 + "End."
    for piece in pieces_of(answer, 4):
        g.feed(piece)
    g.flush()
    per_sentence = scanned[len(after_index) :]
    assert len(per_sentence) == 201
    assert max(per_sentence) < 100  # each scan is one sentence, never a source
    assert sum(per_sentence) <= len(answer)


# With the core driver and Pipeline
def test_driver_closes_the_upstream_on_a_stop_and_on_a_refusal() -> None:
    from sluicegate import Outcome, drive

    for answer, reason in (
        ("It opens at nine [S1]. Fees were 99 euros [S2]. " + "More. " * 50, "stopped"),
        ("NO_ANSWER. " + "More. " * 50, "refused"),
    ):
        pulled: list[str] = []
        closed: list[bool] = []

        def upstream(text: str = answer, pulled: list[str] = pulled, closed: list[bool] = closed):
            try:
                for piece in pieces_of(text, 5):
                    pulled.append(piece)
                    yield piece
            finally:
                closed.append(True)

        outcome = Outcome()
        steps = list(drive(upstream(), gate(), outcome=outcome))
        assert outcome.reason == reason and closed == [True]
        assert len("".join(pulled)) < len(answer) // 2  # the rest was never generated
        assert "99" not in "".join(s.text for s in steps)
        if reason == "stopped":
            assert outcome.violations and outcome.violations[0].code == "unsupported_value"


def test_gate_in_a_pipeline_keeps_its_events() -> None:
    from sluicegate import Pipeline

    run = run_filter(lambda: Pipeline(gate()), pieces_of("It opens at nine [S1]. Fees were 99 [S2]. X", 3))
    assert run.text == "It opens at nine."
    assert run.events[-1] == Done("stopped") and isinstance(run.events[0], Guard)


def test_token_followed_by_a_combining_mark_is_judged_the_same_in_every_chunking() -> None:
    from sluicegate.testing import assert_chunk_invariant

    for answer in ("NO_ANSWER\u0301 x. Yes.", "NO_ANSWER² x. Yes.", "NO_ANSWER- x. Yes."):
        assert_chunk_invariant(gate, answer)


def test_a_run_past_the_splitter_cap_is_judged_and_fails_closed() -> None:
    run = whole("word " * 400)  # no terminator: the splitter cuts at its cap; the fragment has no marker
    assert run.text == "" and run.events[-1] == Done("stopped")
    assert run.events[0].reasons == ("citation_missing",)  # type: ignore[union-attr]


def test_source_count_and_empty_sources() -> None:
    assert gate().source_count == 2
    empty = SentenceGate([])
    assert empty.source_count == 0
    step = empty.feed("It opens early [S1]. X")
    assert step.stopped and step.events[0].reasons == ("citation_out_of_range",)  # type: ignore[union-attr]
    assert run_filter(lambda: SentenceGate([]), ["Yes. Short and fine."]).events == (Done("complete"),)


def test_whitespace_runs_between_sentences_are_held_in_bounded_memory() -> None:
    """Review finding: every whitespace-only segment was appended to the held spacing, without limit."""
    gate = SentenceGate(["x"])
    screen = gate.feed("Hi there.").text
    for _ in range(8000):
        screen += gate.feed(" " * 99 + "\n").text
        assert gate.held <= 1000 + 100 + 2  # the splitter's cap, one piece, the compacted spacing
    screen += gate.feed("Bye.").text + gate.flush().text
    assert screen == "Hi there.\n\nBye."
