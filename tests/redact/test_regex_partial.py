"""A quirk of the `regex` package's partial matching, and the label patterns written around it (issue 27).

Inside a lookbehind, a greedy single-character repeat that has to give back (`[ \\t]{0,2}`, `_?`) makes a partial
search report a match still open where none can start: `(?<=ab[ \\t]{0,2})=` on `xb = …` is "partial" at the `=`
whatever follows. The filter read that as an open label value, held the text after every `api_key = "…"` whose
label tail matched another label's (`access_key`) and stopped the answer at `max_hold` (a false fail-closed stop
on 64 KB of code blocks, before and after issue 27). Possessive repeats (`?+`, `{0,2}+`) do not backtrack and
are exact there, since the element before each is never the repeated character. Here: the quirk itself (if a
`regex` release fixes it, this test says so), every label's near misses, and the corpus that stopped.
"""

from __future__ import annotations

import regex

from sluicegate.redaction import Redactor, labels
from sluicegate.redaction.secrets import LABELED_SECRET
from tests.benchmarks.corpora27 import CORPORA


def _open_at(pattern: str, text: str) -> int | None:
    m = regex.search(f"(?:{pattern})(?!)", text, partial=True)
    return None if m is None else m.start()


def test_the_quirk_greedy_repeats_in_a_lookbehind_report_a_false_partial() -> None:
    text = 'xb = "a"\nfor'
    assert _open_at(r"(?<=ab[ \t]{0,2})=", text) == 3  # nothing can match at the `=`, yet it is "open" there
    assert _open_at(r"(?<=ab[ \t]{0,2}+)=", text) == len(text)
    assert regex.search(r"(?<=ab[ \t]{0,2})=", text) is None


_FORMS = ('{t} = "v1"\nnext line of text', "{t}: value\nnext line", '{t} := "v"\nmore text', '"{t}": "v"\nmore')


def test_no_near_miss_of_any_label_leaves_a_value_open() -> None:
    """The tail of every label after a stray letter (`xi_key = "v"`) is no label, and nothing is left open."""
    wrong = []
    for word, _ in labels.words():
        for k in range(1, len(word)):
            for sep in ("", "_"):
                for form in _FORMS:
                    text = form.format(t="x" + sep + word[k:])
                    start = LABELED_SECRET.probe.search(text, partial=True)
                    if (
                        start is not None
                        and start.start() < text.index("\n")
                        and not LABELED_SECRET.compiled.search(text)
                    ):
                        wrong.append(text[:40])
    assert wrong == []


def test_code_blocks_and_multilingual_text_are_not_stopped() -> None:
    for name in ("code", "multilingual"):
        text = CORPORA[name](64 * 1024)
        r = Redactor()
        most = 0
        for i in range(0, len(text), 4):
            assert not r.feed(text[i : i + 4]).stopped, name
            most = max(most, r.held)
        assert not r.flush().stopped
        assert most < 400, (name, most)
