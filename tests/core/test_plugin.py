"""The adapters' host helpers: the extra named in the ImportError, factories from dotted paths."""

from __future__ import annotations

import pytest

from sluicegate._plugin import load_factory, require_extra
from sluicegate.sources import format_sources


def test_require_extra_names_the_extra_and_keeps_the_cause() -> None:
    require_extra("json", adapter="x", framework="JSON", extra="json")  # present: nothing happens
    with pytest.raises(ImportError, match=r'sluicegate_nemo needs NeMo Guardrails; .*"sluicegate\[nemo\]"') as info:
        require_extra("no_such_module_sluicegate", adapter="sluicegate_nemo", framework="NeMo Guardrails", extra="nemo")
    assert isinstance(info.value.__cause__, ImportError)


def test_load_factory_takes_callables_and_dotted_paths() -> None:
    assert load_factory(format_sources) is format_sources
    assert load_factory("sluicegate.sources.format_sources") is format_sources
    with pytest.raises(ValueError, match="sluicegate.filter must be a callable or a dotted path"):
        load_factory("nodots", setting="sluicegate.filter")
    with pytest.raises(ValueError, match="dotted path"):
        load_factory(3)
    with pytest.raises(TypeError, match="is not callable"):
        load_factory("sluicegate.sources.__doc__")
    with pytest.raises((ImportError, AttributeError)):
        load_factory("sluicegate.sources.no_such_factory")
