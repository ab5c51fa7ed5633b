"""The boundary between the compiled feed (redaction/_native.c) and the Python classes (fastpath.py).

The extension gets the objects it needs as the arguments of a `_native.Feed` (a renamed attribute fails when a
Redactor is built), and reads and writes by name only the moving state of two classes, which it lists itself in
`_native.STATE`. A rename on the Python side would otherwise not fail: the compiled feed would hand every piece
back (slow, silently) or, for a field it writes, keep state the Python path never reads (wrong). So: every name
it lists is an attribute the Python class really keeps, on a fresh instance and after the Python path ran, and
every private name in the C source is one it lists.
"""

from __future__ import annotations

import pathlib
import re
from typing import Any

import pytest

from sluicegate.redaction import Redactor, fastpath
from sluicegate.redaction.tracker import OpenTracker

_SOURCE = pathlib.Path(fastpath.__file__).with_name("_native.c")


class _Python(Redactor):
    _NATIVE = False


def _native() -> Any:
    if fastpath.native is None:
        pytest.fail("the compiled feed is not built: python setup.py build_ext --inplace")
    return fastpath.native


def _missing(names: tuple[str, ...], obj: object) -> set[str]:
    return {n for n in names if n not in vars(obj)}


def _instances(cls: type[Redactor]) -> list[tuple[Redactor, OpenTracker]]:
    """A fresh filter, and one after both paths ran (a long piece, findings settled, a non-ASCII piece)."""
    fresh = cls()
    used = cls()
    for piece in ("Mail jane@example.com, card 4111 1111 1111 1111. ", "café ", "x" * 300, " done"):
        used.feed(piece)
    out = []
    for r in (fresh, used):
        assert r._tracker is not None
        out.append((r, r._tracker))
    return out


def test_the_state_the_compiled_feed_names_is_kept_by_the_python_classes() -> None:
    state = _native().STATE
    assert set(state) == {"Redactor", "OpenTracker"}
    for cls in (Redactor, _Python):
        for r, tracker in _instances(cls):
            assert not _missing(state["Redactor"], r), "a Redactor field the compiled feed uses was renamed"
            assert not _missing(state["OpenTracker"], tracker), "a tracker field the compiled feed uses was renamed"


def test_the_check_sees_a_renamed_field() -> None:
    # The check above can fail: a field that moved away is reported.
    r = Redactor()
    r._held_view = r.__dict__.pop("_view")  # type: ignore[attr-defined]
    assert _missing(_native().STATE["Redactor"], r) == {"_view"}


def test_every_private_name_in_the_c_source_is_in_its_state_list() -> None:
    keys = set(re.findall(r'KEY\(\w+, "(_\w+)"\)', _SOURCE.read_text()))
    listed = {n for names in _native().STATE.values() for n in names}
    assert keys, "no KEY(...) lines found in _native.c"
    assert keys == listed
    # and no attribute is read by a literal name around the KEY table
    assert not re.findall(r"(?:GetAttrString|SetAttrString|GetItemString)\(", _SOURCE.read_text())


def test_the_feed_takes_its_objects_as_required_keyword_arguments() -> None:
    native = _native()
    with pytest.raises(TypeError):
        native.Feed()
    tracker = Redactor()._tracker
    assert tracker is not None
    with pytest.raises(TypeError):  # positional arguments are refused: every one is named
        native.Feed(tracker)
    assert Redactor()._quick_native is not None


def test_a_renamed_tracker_attribute_fails_when_the_filter_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    # What the Feed is handed is read by fastpath.compiled_feed when a Redactor is built: a rename fails loudly.
    original = OpenTracker.__init__

    def renamed(self: OpenTracker, engine: object) -> None:
        original(self, engine)  # type: ignore[arg-type]
        self._anchored = self.__dict__.pop("_match")  # type: ignore[attr-defined]

    monkeypatch.setattr(OpenTracker, "__init__", renamed)
    with pytest.raises(AttributeError):
        Redactor()
    monkeypatch.setattr(Redactor, "_NATIVE", False)
    assert Redactor().feed("ok ").text == "ok "  # the pure path does not use the anchored matches
