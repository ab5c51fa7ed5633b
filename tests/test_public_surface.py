"""The public surface is enforced here (issue 25, item 3; docs/api.md): one exception base, no class name
defined twice, each public class at one documented place with `__module__` set to it, and adapters that import
only public names. The measuring is in `tests/surface_census.py` (run it as a script for the report)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sluicegate._public import PLACES
from tests import surface_census as census


@pytest.fixture(scope="module")
def modules() -> dict[str, object]:
    return census.import_all()


def test_every_exception_of_the_core_derives_from_one_base(modules: dict[str, object]) -> None:
    import sluicegate

    excs = census.exception_classes(modules)
    assert len(excs) >= 20  # the census found them (a broken census must not pass by finding none)
    # Private control-flow exceptions that never leave their module (`redaction.alphabet._Unknown`) are exempt.
    outside = [
        f"{e.__module__}.{e.__qualname__}"
        for e in excs
        if not e.__name__.startswith("_") and not issubclass(e, sluicegate.SluicegateError)
    ]
    assert outside == []


@pytest.mark.parametrize(
    ("error", "stdlib_base"),
    [
        ("sluicegate.InvalidUtf8Error", ValueError),
        ("sluicegate.CallStateError", RuntimeError),
        ("sluicegate.UnreservedCall", RuntimeError),
        ("sluicegate.budget.StoreUnavailable", Exception),
        ("sluicegate.evidence.PatternError", ValueError),
        ("sluicegate.evidence.UnusableScoreError", ValueError),
        ("sluicegate.evidence.EmbeddingUnavailable", RuntimeError),
        ("sluicegate.lifecycle.NotAuthorized", PermissionError),
        ("sluicegate.lifecycle.IllegalTransition", RuntimeError),
        ("sluicegate.lifecycle.OutcomeUnknown", RuntimeError),
        ("sluicegate.lifecycle.ConfirmationConflict", ValueError),
        ("sluicegate.sse.SSEEventTooLarge", ValueError),
        ("sluicegate.sse.UpstreamFailedEarly", Exception),
        ("sluicegate.scripted.ProviderError", ConnectionError),
    ],
)
def test_an_error_is_caught_by_the_base_and_by_the_stdlib_base_callers_caught_before(
    error: str, stdlib_base: type[BaseException]
) -> None:
    import importlib

    import sluicegate

    place, name = error.rsplit(".", 1)
    cls = getattr(importlib.import_module(place), name)
    for caught in (sluicegate.SluicegateError, stdlib_base):
        with pytest.raises(caught):
            raise cls.__new__(cls)  # each error's own __init__ takes its own arguments


def test_no_class_name_is_defined_in_two_modules_of_the_core() -> None:
    defs = census.class_defs()
    assert len(defs) >= 100
    assert census.defined_twice(defs) == {}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("sluicegate.budget:Decision", "sluicegate.budget:CapDecision"),
        ("sluicegate.lifecycle:SQLiteStore", "sluicegate.lifecycle:SQLiteOperationStore"),
        ("sluicegate.lifecycle:RedisStore", "sluicegate.lifecycle:RedisOperationStore"),
    ],
)
def test_a_renamed_public_name_still_imports_from_its_old_place_with_a_deprecation_warning(old: str, new: str) -> None:
    import importlib

    old_place, old_name = old.split(":")
    new_place, new_name = new.split(":")
    with pytest.warns(DeprecationWarning, match=f"use {new_place}.{new_name}"):
        got = getattr(importlib.import_module(old_place), old_name)
    assert got is getattr(importlib.import_module(new_place), new_name)
    with pytest.raises(AttributeError):
        _ = importlib.import_module(old_place).NoSuchName


def test_adapters_import_only_names_a_public_place_lists_in_its_all() -> None:
    imports = census.adapter_imports()
    assert len(imports) >= 50  # the census read the adapters
    bad = [f"{i.file}:{i.line}: from {i.module} import {i.name}" for i in census.non_public_adapter_imports()]
    assert bad == []


def test_the_census_flags_an_adapter_importing_a_private_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter = tmp_path / "sluicegate_fake"
    adapter.mkdir()
    (adapter / "mod.py").write_text("from sluicegate._driver import _Run\nfrom sluicegate import drive\n")
    monkeypatch.setattr(census, "INTEGRATIONS", tmp_path)
    monkeypatch.setattr(census, "ROOT", tmp_path)
    assert [(i.module, i.name) for i in census.non_public_adapter_imports()] == [("sluicegate._driver", "_Run")]


def public_objects() -> dict[int, tuple[object, list[str]]]:
    """id -> (a public class or function, the public places whose `__all__` lists it)."""
    import importlib
    import inspect

    found: dict[int, tuple[object, list[str]]] = {}
    for place in PLACES:
        mod = importlib.import_module(place)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if isinstance(obj, type) or inspect.isfunction(obj):
                found.setdefault(id(obj), (obj, []))[1].append(place)
    return found


def test_each_public_class_and_function_names_its_one_documented_place_in_module() -> None:
    objects = public_objects()
    assert len(objects) >= 150
    wrong = []
    for obj, places in objects.values():
        home = obj.__module__  # type: ignore[attr-defined]
        # Its place, plus at most the root re-exporting a subpackage's name (`sluicegate.GuardedCall`).
        if home not in places or set(places) - {home, "sluicegate"}:
            wrong.append(f"{obj.__qualname__}: __module__={home}, listed by {places}")  # type: ignore[attr-defined]
    assert wrong == []


def test_the_place_list_of_the_census_is_the_core_own() -> None:
    assert census.PUBLIC_PLACES == PLACES


@pytest.mark.parametrize(
    ("old", "name", "new"),
    [
        ("sluicegate.driver", "Outcome", "sluicegate"),
        ("sluicegate.stream", "Done", "sluicegate"),
        ("sluicegate.gate", "SentenceGate", "sluicegate"),
        ("sluicegate.gate.normalize", "normalize", "sluicegate._gate.normalize"),
        ("sluicegate.gate.values", "index_source", "sluicegate._gate.values"),
        ("sluicegate.notices", "notice", "sluicegate.host"),
        ("sluicegate.closing", "aclose_now", "sluicegate.host"),
        ("sluicegate.provider_chunks", "sdk_text", "sluicegate.host"),
        ("sluicegate.sessions", "Session", "sluicegate.host"),
        ("sluicegate.plugin", "require_extra", "sluicegate.host"),
        ("sluicegate.responses", "OpenResponses", "sluicegate._responses"),
        ("sluicegate.cli.upstream", "UpstreamApp", "sluicegate.cli._upstream"),
    ],
)
def test_an_old_module_path_still_imports_with_a_deprecation_warning(old: str, name: str, new: str) -> None:
    import importlib

    with pytest.warns(DeprecationWarning, match=f"import {name} from"):
        got = getattr(importlib.import_module(old), name)
    assert got is getattr(importlib.import_module(new), name)


def test_the_api_guide_lists_every_public_name_under_its_place() -> None:
    """docs/api.md is the one list a user reads: a name added to a place's `__all__` must appear in its section."""
    import importlib
    import re

    guide = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text(encoding="utf-8")
    missing = {}
    for place in PLACES:
        found = re.search(r"^## `" + re.escape(place) + r"`\n(.*?)(?=^## )", guide, re.S | re.M)
        section = found.group(1) if found else ""
        names = [n for n in importlib.import_module(place).__all__ if f"`{n}`" not in section]
        if names:
            missing[place] = names
    assert missing == {}
