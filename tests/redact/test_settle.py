"""The facts about the `regex` package that the settlement point relies on (they fail if the engine changes)."""

from __future__ import annotations

import regex


def test_plain_partial_search_prefers_a_complete_match_over_a_longer_one_in_progress() -> None:
    m = regex.search(r"a(?:b.*END|b)", "abXX", partial=True)
    assert m is not None and not m.partial and m.span() == (0, 2)  # so it cannot be trusted alone


def test_never_completing_probe_reports_where_a_path_meets_the_end() -> None:
    m = regex.search(r"(?:a(?:b.*END|b))(?!)", "abXX", partial=True)
    assert m is not None and m.partial and m.start() == 0
    assert regex.search(r"(?:ab(?!cd))(?!)", "abc", partial=True).start() == 0  # lookahead at the end
    assert regex.search(r"(?:[a-z]++x)(?!)", "abc", partial=True).start() == 0  # possessive run at the end
    assert regex.search(r"(?:[a-z]{2,5}+x)(?!)", "abcdefg", partial=True).start() == 2


def test_lookbehind_sees_text_before_pos() -> None:
    three = regex.compile(r"(?<![0-9])[0-9]{3}")
    assert three.search("1234567", 5, partial=True).span() == (7, 7)
    assert three.search("1234 567", 5).span() == (5, 8)
