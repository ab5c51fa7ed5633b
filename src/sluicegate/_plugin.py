"""What every adapter needs from its host, framework-free: the import error that names the extra to install,
and a filter factory given as an object or as a dotted path (config files and RAIL specs carry strings).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any, cast


def require_extra(module: str, *, adapter: str, framework: str, extra: str) -> None:
    """Import `module` or raise an ImportError that says which extra installs it."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f'{adapter} needs {framework}; install the extra: pip install "sluicegate[{extra}]"') from exc


def load_factory(spec: Any, *, setting: str = "filter") -> Callable[..., Any]:
    """A callable as is, or the callable a dotted path `pkg.module.factory` names; `setting` names it in errors."""
    if callable(spec):
        return cast(Callable[..., Any], spec)
    if not isinstance(spec, str) or "." not in spec.strip("."):
        raise ValueError(f"{setting} must be a callable or a dotted path like 'pkg.module.factory', got {spec!r}")
    factory = pkgutil.resolve_name(spec)
    if not callable(factory):
        raise TypeError(f"{setting} {spec!r} is not callable")
    return cast(Callable[..., Any], factory)
