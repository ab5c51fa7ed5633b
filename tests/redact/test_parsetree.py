"""parsetree.py's `fold_groups`: the one walk through groups, atomic groups and alternatives that wholedb.py's
`_cover` and `_after` answer their questions with (each node's answer from the rule, or from inside its group).

The rules here answer a literal's character as a number (`a` = 1, `b` = 2, ...), so each expected answer can be
worked out by hand from the pattern; what `label_gap` makes of the walk on the built-ins is
tests/redact/test_whole_candidates.py's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sluicegate.redaction.parsetree import constants, fold_groups, parser


def _letters(op: Any, av: Any) -> float | None:
    return float(av - ord("a") + 1) if op is constants.LITERAL and chr(av).isalpha() else None


def _least(_seq: Any, answers: Iterator[tuple[int, float | None]]) -> float | None:
    got = [a for _, a in answers if a is not None]
    return min(got) if got else None


def _first(_seq: Any, answers: Iterator[tuple[int, float | None]]) -> float | None:
    return next((a for _, a in answers if a is not None), None)


# (the parser inlines a non-capturing group and makes an alternation of single characters a class: the groups
# here capture, the alternatives are longer)
@pytest.mark.parametrize(
    ("pattern", "least", "first"),
    [
        ("cab", 1.0, 3.0),
        ("0c1", 3.0, 3.0),
        ("012", None, None),  # no node answers
        ("0(d(b))", 2.0, 4.0),  # through nested groups
        ("0(?>e)", 5.0, 5.0),  # an atomic group
        ("0(?:ce|ed|dc)", 4.0, 5.0),  # an alternation: the most over its alternatives (3, 4, 3 and 3, 5, 4)
        ("0(?:c1|12)b", 2.0, 2.0),  # an alternative with no answer: the alternation has none
        ("0(?:c1|1b)", 3.0, 3.0),  # each alternative its own sequence (`1b` answers 2)
        ("0(b)+", None, None),  # a repeat is not walked into
        ("0(?=b)", None, None),  # nor an assertion (a rule may answer it)
    ],
)
def test_each_node_answers_by_the_rule_or_through_its_group(
    pattern: str, least: float | None, first: float | None
) -> None:
    tree = parser.parse(pattern)
    assert fold_groups(tree, _letters, _least) == least
    assert fold_groups(tree, _letters, _first) == first


def test_a_rules_answer_stands_for_the_whole_node() -> None:
    asked: list[Any] = []

    def groups_are_ten(op: Any, av: Any) -> float | None:
        asked.append(op)
        return 10.0 if op is constants.SUBPATTERN else _letters(op, av)

    assert fold_groups(parser.parse("(a)b"), groups_are_ten, _least) == 2.0
    assert asked == [constants.SUBPATTERN, constants.LITERAL]  # the group's body was not asked


def test_the_answers_are_lazy_and_indexed() -> None:
    asked: list[int] = []
    seen: list[tuple[int, float | None]] = []

    def counted(op: Any, av: Any) -> float | None:
        asked.append(av)
        return _letters(op, av)

    def up_to_the_first(seq: Any, answers: Iterator[tuple[int, float | None]]) -> float | None:
        for j, a in answers:
            seen.append((j, a))
            if a is not None:
                return a + len(seq) - j - 1  # what the caller does with the rest of the sequence (`_after`)
        return None

    assert fold_groups(parser.parse("01c2d3"), counted, up_to_the_first) == 6.0
    assert seen == [(0, None), (1, None), (2, 3.0)]
    assert [chr(c) for c in asked] == ["0", "1", "c"]  # nothing after the first answer is asked
