"""A census of the core's public surface (issue 25, item 3), read by `tests/test_public_surface.py`.

Run it as a script to print the report: `python tests/surface_census.py`. It measures
- every class defined in `src/sluicegate` (by reading the source: a class is where its `class` statement is),
- which class names are defined in more than one module,
- how many public-looking import paths reach each class (a module path with no `_private` part whose namespace
  holds the class),
- every exception class and its bases,
- what `integrations/` imports from the core that no package's `__all__` lists.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGE = SRC / "sluicegate"
INTEGRATIONS = ROOT / "integrations"

# The public namespaces (docs/api.md): each public name has exactly one of these as its documented place.
PUBLIC_PLACES = (
    "sluicegate",
    "sluicegate.budget",
    "sluicegate.call",
    "sluicegate.dialects",
    "sluicegate.evidence",
    "sluicegate.host",
    "sluicegate.lifecycle",
    "sluicegate.prompts",
    "sluicegate.redaction",
    "sluicegate.scripted",
    "sluicegate.sources",
    "sluicegate.sse",
    "sluicegate.testing",
)


@dataclass(frozen=True)
class ClassDef:
    name: str
    module: str  # dotted module path
    bases: tuple[str, ...]  # as written in the source


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def class_defs() -> list[ClassDef]:
    """Every top-level class statement under src/sluicegate (nested classes are not importable names)."""
    found = []
    for path in source_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                found.append(ClassDef(node.name, module_name(path), tuple(ast.unparse(b) for b in node.bases)))
    return found


def defined_twice(defs: list[ClassDef] | None = None) -> dict[str, list[str]]:
    """Class name -> the modules that define it, for names defined in more than one module."""
    where: dict[str, list[str]] = defaultdict(list)
    for d in defs if defs is not None else class_defs():
        where[d.name].append(d.module)
    return {name: mods for name, mods in sorted(where.items()) if len(mods) > 1}


def is_private_path(dotted: str) -> bool:
    return any(part.startswith("_") for part in dotted.split("."))


def import_all() -> dict[str, object]:
    """Import every module of the core (the `cli` subcommands too); returns name -> module."""
    import sluicegate

    modules: dict[str, object] = {"sluicegate": sluicegate}
    for info in pkgutil.walk_packages(sluicegate.__path__, "sluicegate."):
        if info.name.endswith("__main__"):
            continue
        modules[info.name] = importlib.import_module(info.name)
    return modules


def core_classes(modules: dict[str, object]) -> list[type]:
    """Every class object the core's own modules define (read back from where `class_defs` found it)."""
    out = []
    for d in class_defs():
        obj = getattr(modules.get(d.module), d.name, None)
        if isinstance(obj, type):
            out.append(obj)
    return out


def import_paths(modules: dict[str, object]) -> dict[str, list[str]]:
    """`module.Class` (where defined) -> the public-looking modules whose namespace holds that class."""
    classes = {id(c): c for c in core_classes(modules)}
    paths: dict[str, list[str]] = defaultdict(list)
    for name, mod in sorted(modules.items()):
        if is_private_path(name):
            continue
        for value in vars(mod).values():
            if isinstance(value, type) and id(value) in classes:
                paths[f"{_defined_in(value)}.{value.__qualname__}"].append(name)
    return dict(paths)


def _defined_in(cls: type) -> str:
    return str(getattr(cls, "__sluicegate_defined_in__", cls.__module__))


def exception_classes(modules: dict[str, object]) -> list[type[BaseException]]:
    return [c for c in core_classes(modules) if issubclass(c, BaseException)]


def public_names() -> dict[str, set[str]]:
    """Public place -> the names its `__all__` lists."""
    out = {}
    for place in PUBLIC_PLACES:
        try:
            out[place] = set(getattr(importlib.import_module(place), "__all__", ()))
        except ModuleNotFoundError:  # a place not built yet
            out[place] = set()
    return out


@dataclass(frozen=True)
class AdapterImport:
    file: str
    line: int
    module: str
    name: str


def adapter_imports() -> list[AdapterImport]:
    """Every `from sluicegate... import X` / `import sluicegate...` in integrations/ (their tests excluded)."""
    found = []
    for path in sorted(INTEGRATIONS.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if "/tests/" in rel:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module == "sluicegate" or node.module.startswith("sluicegate."):
                    for alias in node.names:
                        found.append(AdapterImport(rel, node.lineno, node.module, alias.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "sluicegate" or alias.name.startswith("sluicegate."):
                        found.append(AdapterImport(rel, node.lineno, alias.name, ""))
    return found


def non_public_adapter_imports() -> list[AdapterImport]:
    names = public_names()
    bad = []
    for imp in adapter_imports():
        if imp.name == "":  # `import sluicegate.x`: only a public place may be imported whole
            if imp.module not in names:
                bad.append(imp)
        elif imp.module not in names or imp.name not in names[imp.module]:
            bad.append(imp)
    return bad


def report() -> str:
    modules = import_all()
    defs = class_defs()
    lines = [f"classes defined in src/sluicegate: {len(defs)}"]
    twice = defined_twice(defs)
    lines.append(f"class names defined in more than one module: {len(twice)}")
    lines += [f"  {name}: {', '.join(mods)}" for name, mods in twice.items()]
    excs = exception_classes(modules)
    base = getattr(modules["sluicegate"], "SluicegateError", None)
    outside = [e for e in excs if base is None or not issubclass(e, base)]
    lines.append(f"exception classes: {len(excs)}, outside one base: {len(outside)}")
    for e in excs:
        bases = ", ".join(f"{b.__module__}.{b.__qualname__}".removeprefix("builtins.") for b in e.__bases__)
        lines.append(f"  {_defined_in(e)}.{e.__qualname__}({bases})")
    paths = import_paths(modules)
    multi = {k: v for k, v in paths.items() if len(v) > 1}
    lines.append(f"classes reachable from public-looking modules: {len(paths)}, by more than one path: {len(multi)}")
    lines += [f"  {k}: {len(v)}: {', '.join(v)}" for k, v in sorted(multi.items(), key=lambda kv: -len(kv[1]))]
    bad = non_public_adapter_imports()
    lines.append(f"adapter imports of names no public __all__ lists: {len(bad)}")
    lines += [f"  {b.file}:{b.line}: from {b.module} import {b.name}" for b in bad]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.path[:0] = [str(SRC), str(INTEGRATIONS)]
    print(report())
