import re

import pytest

from sluicegate._gate.markers import MARKER_PATTERN, MARKER_RE, marker_numbers, strip_markers


def test_public_pattern_and_regex() -> None:
    assert MARKER_RE.pattern == MARKER_PATTERN
    assert re.fullmatch(MARKER_PATTERN, "[S12]")
    assert not re.fullmatch(MARKER_PATTERN, "[S۱]")  # ASCII digits only
    assert not re.fullmatch(MARKER_PATTERN, "[S]")


def test_marker_numbers() -> None:
    assert marker_numbers("a [S1] b [S12][S1].") == [1, 12, 1]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("It opens at nine [S1]. ", "It opens at nine. "),
        ("Late fees ended [S1][S2]\n\n", "Late fees ended\n\n"),
        ("nine [S1] [S2].", "nine."),
        ("nine.[S1] ", "nine. "),
        ("a [S1] b", "a b"),
        ("a [S1], b", "a, b"),
        ("[S1] The rest.", "The rest."),
        ("x [S1] .", "x."),
        ("این است [S1].", "این است."),
        ("آیا باز است [S2]؟", "آیا باز است؟"),
        ("هو مفتوح [S1]، ثم", "هو مفتوح، ثم"),
        ("她很好[S1]。", "她很好。"),
        ("यह खुला है [S1]।", "यह खुला है।"),
    ],
)
def test_strip_markers_fixes_spacing(text: str, shown: str) -> None:
    assert strip_markers(text) == shown


def test_nested_markers_do_not_leave_a_marker_behind() -> None:
    assert strip_markers("Yes [[S1]S1].") == "Yes."
    assert not MARKER_RE.search(strip_markers("Ok [S[S1]1] x."))


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("It opens at 9 ([S1]).", "It opens at 9."),
        ("It opens at 9 [S1], [S2].", "It opens at 9."),
        ("see [[S1]] now", "see now"),
        ("a [S1], b", "a, b"),
        ("9（[S1]）。", "9。"),
    ],
)
def test_no_empty_brackets_or_stray_commas_are_left(raw: str, shown: str) -> None:
    """Review finding: removing markers left "()", "[]" and ",." behind."""
    assert strip_markers(raw) == shown
