"""`Detector.steady`: the claim the compiled feed relies on to skip re-matching a held block, checked against the
engine. For each declared kind (opener, triggers, k): if the detector's pattern, matched with `partial=True` at
the block's start, is open (a partial match) when the text ends at `e`, the opener is whole before `e - k`, and
neither `text[e - k : e]` nor an appended text holds a trigger character, then it is still open (partial, not
complete and not dead) after the appended text. And for a kind with complete-phase triggers: if the match is
complete while the block is still open there (the probe, `(?:P)(?!)`, has a partial match at the start: an END
line waiting for its newline), with the same conditions on those triggers, it is still complete and still open.
"""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction.registry import BUILTIN

STEADY = [(d, kind) for d in BUILTIN for kind in d.steady]
_OPENERS = {
    "-": [
        "-----BEGIN RSA PRIVATE KEY-----\n",
        "-----BEGIN PRIVATE KEY-----",
        "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n",
    ],
    "P": ["PuTTY-User-Key-File-2: ssh-rsa\n", "PuTTY-User-Key-File-3: "],
}
_BITS = [
    "-",
    "--",
    "-----",
    "-----END",
    "-----end",
    "-----END RSA PRIVATE KEY-----",
    "---- END",
    "---- end",
    "\n",
    "Private-MAC: ",
    "Private-MAC: 0a9f",
    "P",
    "Pr",
    "Priv",
    "E",
    "N",
    "D",
    "end",
    "END",
    "MIIE",
    "abc+/=",
    " ",
    "0123456789abcdef",
    "é",
    "谢",
    "\r\n",
    "Encryption: none",
    "Public-Lines: 6",
]
_TEXT = st.lists(st.one_of(st.sampled_from(_BITS), st.text(max_size=4)), max_size=30).map("".join)


def test_the_private_key_detector_declares_its_kinds() -> None:
    assert {t for d, (_, t, _, _) in STEADY} == {"-", "P"}
    assert all(d.entity == "PRIVATE_KEY" for d, _ in STEADY)


@settings(max_examples=1500)
@given(st.data(), _TEXT, _TEXT)
def test_an_open_block_stays_open_over_text_without_its_triggers(data: st.DataObject, body: str, more: str) -> None:
    d, (opener, triggers, k, _) = data.draw(st.sampled_from(STEADY))
    head = data.draw(st.sampled_from(_OPENERS[triggers]))
    quiet = data.draw(st.text(alphabet=st.sampled_from(list("MIIEabc+/=0 \n谢")), max_size=20))
    text = data.draw(st.sampled_from(["", "prose before ", "x"])) + head + body + quiet
    start = len(text) - len(head) - len(body) - len(quiet)
    opened = regex.compile(opener).match(text, start)
    m = d.compiled.match(text, start, partial=True)
    if opened is None or m is None or not m.partial or opened.end() > len(text) - k:
        return
    if any(t in text[len(text) - k :] for t in triggers):
        return
    tail = "".join(c for c in more if c not in triggers)
    after = d.compiled.match(text + tail, start, partial=True)
    assert after is not None and after.partial, (text, tail)


@settings(max_examples=1500)
@given(st.data(), _TEXT, _TEXT)
def test_a_complete_block_still_open_stays_so_over_text_without_its_triggers(
    data: st.DataObject, body: str, more: str
) -> None:
    with_claim = [(d, kind) for d, kind in STEADY if kind[3] is not None]
    d, (opener, _, k, triggers) = data.draw(st.sampled_from(with_claim))
    head = data.draw(st.sampled_from(_OPENERS["-"]))
    end_line = data.draw(st.sampled_from(["-----END RSA PRIVATE KEY-----", "-----end", "---- END SSH2", "-----End x"]))
    quiet = data.draw(st.text(alphabet=st.sampled_from(list("MIIEabc+/=0 谢é.")), max_size=20))
    text = data.draw(st.sampled_from(["", "prose before ", "x"])) + head + body + end_line + quiet
    start = len(text) - len(head) - len(body) - len(end_line) - len(quiet)
    opened = regex.compile(opener).match(text, start)
    m = d.compiled.match(text, start, partial=True)
    if opened is None or m is None or m.partial or opened.end() > len(text) - k:
        return
    if d.probe.match(text, start, partial=True) is None or any(t in text[len(text) - k :] for t in triggers):
        return
    tail = "".join(c for c in more if c not in triggers)
    after = d.compiled.match(text + tail, start, partial=True)
    assert after is not None and not after.partial, (text, tail)
    assert d.probe.match(text + tail, start, partial=True) is not None, (text, tail)
