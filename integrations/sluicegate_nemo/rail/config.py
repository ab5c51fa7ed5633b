"""Loaded by NeMo for every LLMRails built from a config that imports this folder.

`init(app)` refuses settings that would show unvalidated text and registers the `sluicegate_check` action.
The filter factory comes from `custom_data: {sluicegate: {filter: "pkg.module.factory"}}` in config.yml (a dotted path),
or later from `sluicegate_nemo.install(rails, make_filter)`; without either the action fails closed.
"""

from typing import Any

from sluicegate_nemo.rail_config import init_from_config


def init(app: Any) -> None:  # the signature NeMo calls
    init_from_config(app)
