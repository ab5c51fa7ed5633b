"""Differential test for the fast path: the Redactor with starters and the incremental open point
(`redaction/starters.py`, `redaction/tracker.py`) against the straightforward one that asks every detector on
every check. Same Step (text, stop flag, events) and the same `held` after every single feed, on random texts
rich in near-values and on the corpus, for random chunkings; plus the fact the starters table relies on.
"""

from __future__ import annotations

import functools
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor
from sluicegate.redaction.registry import BUILTIN
from sluicegate.redaction.starters import starters_for

from .corpus import CHINESE, CUSTOM_DETECTORS, ENGLISH, FUZZ_VALUES, JAPANESE, PERSIAN
from .corpus import feed_steps as _steps


class StraightRedactor(Redactor):
    _FAST = False


CUSTOM = CUSTOM_DETECTORS
_VALUES = FUZZ_VALUES
_BITS = list("ab@.-:/=(_ 0123456789+AKIAghp_sk-eyJxoxSGMNO\n\u00a0\u200b：＠谢ſKé") + [
    "-----BEGIN ",
    "-----END ",
    "PRIVATE KEY-----",
    "sk-ant-",
    "ghp_",
    "AKIA",
    "eyJ",
    "xoxb-",
    "password: ",
    "API_KEY=",
    "https://",
    "user:pw@",
    "fe80::",
    "00:1A:",
    "4111 ",
    "+1 ",
    "DE89 ",
    "order=",
    "QX",
    "xapp-",
    "Bearer ",
    "пароль: ",
    "密码：",
    "githubToken=",
    "4111\u00b7",
    "de89 ",
    "090-",
    "o'b",
    "\u0664",
]
_PIECE = st.one_of(st.sampled_from(_BITS), st.sampled_from(_VALUES), st.text(max_size=3))


def _same(pieces: list[str], **opts: object) -> None:
    fast = _steps(functools.partial(Redactor, **opts), pieces)
    slow = _steps(functools.partial(StraightRedactor, **opts), pieces)
    assert fast == slow


@settings(max_examples=150)
@given(st.lists(_PIECE, max_size=40).map("".join), st.data(), st.sampled_from([8192, 64, 300]))
def test_fast_path_equals_straightforward_path_feed_by_feed(text: str, data: st.DataObject, max_hold: int) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=20)))
    bounds = [0, *cuts, len(text)]
    pieces = [text[a:b] for a, b in pairwise(bounds)]
    _same(pieces, max_hold=max_hold)
    _same(pieces, max_hold=max_hold, custom=CUSTOM)
    _same(list(text), max_hold=max_hold)


@pytest.mark.parametrize("size", [1, 3, 4, 7, 64, 10_000])
def test_fast_path_equals_straightforward_path_on_prose_with_values(size: int) -> None:
    parts = []
    for i, v in enumerate(_VALUES):
        prose = (ENGLISH, CHINESE, JAPANESE, PERSIAN)[i % 4]
        cut = (i * 37) % len(prose)
        parts.append(
            prose[:cut] + (" ", "", "：", ":")[i % 4] + v + (" ", "。", "", ", ")[i % 3] + prose[cut : cut + 40]
        )
    text = "\n".join(parts)
    _same([text[i : i + size] for i in range(0, len(text), size)])


_CTX = st.text(alphabet=st.sampled_from(list("a0:.- 谢ſ@_=\n")), max_size=6)
_CH = st.one_of(st.characters(), st.sampled_from(list("aAsSkKſK0+-(.:@ge1bxMNOpPnS")))


@settings(max_examples=300)
@given(_CTX, _CH, st.text(alphabet=st.sampled_from(list("a0:.-@_ kK=")), max_size=8))
def test_starters_cover_every_start_a_builtin_can_make(ctx: str, ch: str, tail: str) -> None:
    table = starters_for(BUILTIN)
    mask = table.mask(ch)
    view = ctx + ch + tail
    for i, d in enumerate(BUILTIN):
        m = d.probe.search(view, len(ctx), partial=True)
        starts_here = (m is not None and m.start() == len(ctx) and len(view) > len(ctx)) or d.compiled.match(
            view, len(ctx)
        ) is not None
        if starts_here:
            assert mask >> i & 1, (d.entity, ctx, ch, tail)


def test_first_character_classes_are_implied_by_their_patterns() -> None:
    # Every BMP character that can start the plain pattern (complete, or a path that wants more text) is in
    # the declared class, so the lookahead prefix never hides a match or an open start.
    import regex

    checked = 0
    for d in BUILTIN:
        if d.first is None:
            continue
        plain = regex.compile(d.pattern)
        probe = regex.compile(f"(?:{d.pattern})(?!)")
        first = regex.compile(d.first)
        for cp in range(0x10000):
            ch = chr(cp)
            if probe.match(ch, partial=True) is not None or plain.match(ch) is not None:
                assert first.fullmatch(ch), (d.entity, hex(cp))
        checked += 1
    assert checked >= 4
