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


def test_plain_partial_search_reports_a_later_complete_match_before_an_earlier_partial_one() -> None:
    # tracker.py relies on it: no complete match after `pos` unless one is reported, open starts as the probe's.
    rx = regex.compile(r"abcd|c")
    m = rx.search("zabc", 0, partial=True)
    assert m is not None and not m.partial and m.span() == (3, 4)
    assert regex.compile(r"(?:abcd|c)(?!)").search("zabc", 0, partial=True).start() == 1
    assert rx.search("zab", 0, partial=True).partial
    nothing = rx.search("zzz ", 0, partial=True)  # nothing after 0: only the empty partial match at the end
    assert nothing is not None and nothing.partial and nothing.span() == (4, 4)


def test_partial_search_of_the_pattern_agrees_with_the_probe_on_the_builtins() -> None:
    from sluicegate.redaction.registry import BUILTIN

    from .corpus import FUZZ_VALUES

    texts = [v[:k] for v in FUZZ_VALUES for k in (1, len(v) // 2, len(v) - 1, len(v))]
    texts += ["the report " + t for t in texts[::7]] + [t + " and more" for t in texts[::5]]
    for d in BUILTIN:
        for text in texts:
            n = len(text)
            m = d.compiled.search(text, 0, partial=True)
            probe = d.probe.search(text, 0, partial=True)
            opened = probe is not None and probe.start() < n
            if m is None:
                assert not opened and d.compiled.search(text) is None, (d.entity, text)
            elif m.partial:
                assert d.compiled.search(text) is None, (d.entity, text)
                assert (m.start() < n) == opened and (not opened or probe.start() == m.start()), (d.entity, text)
            else:
                assert d.compiled.search(text).start() == m.start(), (d.entity, text)
