"""Loaded by NeMo for every config that lists this folder under `import_paths:` (see sluicegate_nemo.evidence).

The actions read their settings from `custom_data.sluicegate.evidence` in config.yml; `install_evidence(rails,
...)` replaces them with objects built in code.
"""

from typing import Any

from nemoguardrails.actions import action
from nemoguardrails.actions.rail_outcome import RailOutcome

from sluicegate_nemo.evidence import configured


@action(name="sluicegate_refuse", is_system_action=True)
async def sluicegate_refuse(text: Any = None, context: Any = None, config: Any = None, **kwargs: Any) -> RailOutcome:
    return await configured(config).refuse(text=text, context=context, **kwargs)


@action(name="sluicegate_evidence", is_system_action=True)
async def sluicegate_evidence(text: Any = None, context: Any = None, config: Any = None, **kwargs: Any) -> RailOutcome:
    return await configured(config).check_evidence(text=text, context=context, **kwargs)
