"""The proxy's configuration: a TOML file (stdlib `tomllib`), checked whole at start-up.

```toml
[upstream]
url = "https://api.openai.com"     # --upstream overrides it
api_key = "sk-..."                 # set: the proxy sends its own key and requires client keys
timeout_seconds = 600
max_connections = 1000             # at most this many upstream connections at once (default: no cap)

[auth]
client_keys = ["team-a-key"]       # required when [upstream] api_key is set (never an open relay)

[limits]
max_body_bytes = 1048576           # larger bodies get 413

[pipeline]
redact = true                      # the redactor after the gate (with sources) or alone (without)
preflight = false                  # refusal rules + evidence threshold on the last user message (with sources)

[reasoning]
show = false                       # true: reasoning/thinking text reaches the client, through a redactor of its
                                   # own ([redactor] entities/allow; never the sentence gate); false: none of it

[rate_limits]                      # absent: no rate limits; fail open when the store is down
per_minute = 10                    # any of per_minute, per_hour, per_day
per_hour = 200
by = "key"                         # "key" (the client key, else the address) or "address"
store = "memory://"                # or "sqlite:///path" or "redis://host:6379/0" (shared by several proxies)
trusted_proxies = []               # peers whose X-Forwarded-For is believed (none by default)

[redactor]                         # which detectors run (default: all shipped) and values never redacted
entities = ["OPENAI_KEY", "ANTHROPIC_KEY", "EMAIL_ADDRESS"]
allow = ["help.desk@example.org"]

[refusal]                          # with [pipeline] preflight = true
categories = ["instructions", "tasks"]   # shipped categories (default: these two)
[refusal.patterns]                 # the operator's own: {category: {language: [patterns]}}
fees = { en = ['how much .*(cost|fee)'] }

[evidence]                         # with [pipeline] preflight = true
threshold = 0.35                   # the retrieval score a question needs, else it is refused
min_matches = 2

[budget]                           # absent: no spend cap
monthly_limit = "50"               # dollars
store = "sqlite:///var/lib/sluicegate/spend.sqlite3"   # or "redis://host:6379/0"
max_output_tokens = 1024           # the output cap every upstream call is made with (and reserved for)
scope = "default"
[budget.prices]                    # dollars per million tokens: [input, output]
"gpt-4o-mini" = [0.15, 0.60]
```
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_MAX_BODY_BYTES = 1 << 20
DEFAULT_TIMEOUT_SECONDS = 600.0


class ConfigError(ValueError):
    """The configuration cannot be served safely (the proxy refuses to start)."""


@dataclass(frozen=True)
class BudgetConfig:
    monthly_limit: str
    store: str
    prices: Mapping[str, tuple[float, float]]
    max_output_tokens: int = 1024
    scope: str = "default"


@dataclass(frozen=True)
class RateLimitConfig:
    per_minute: int | None = None
    per_hour: int | None = None
    per_day: int | None = None
    by: str = "key"
    store: str = "memory://"
    trusted_proxies: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProxyConfig:
    upstream_url: str
    upstream_api_key: str | None = field(default=None, repr=False)
    client_keys: tuple[str, ...] = field(default=(), repr=False)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    redact: bool = True
    preflight: bool = False
    show_reasoning: bool = False  # [reasoning] show
    upstream_max_connections: int | None = None  # [upstream] max_connections; None: no cap
    budget: BudgetConfig | None = None
    rate_limits: RateLimitConfig | None = None
    redactor: Mapping[str, Any] = field(default_factory=dict)  # Redactor(**redactor)
    refusal: Mapping[str, Any] = field(default_factory=dict)  # RefusalRules(**refusal)
    evidence: Mapping[str, Any] = field(default_factory=dict)  # EvidenceGate(**evidence)

    def __post_init__(self) -> None:
        if not self.upstream_url.startswith(("http://", "https://")):
            raise ConfigError("the upstream URL must start with http:// or https://")
        if self.upstream_api_key and not self.client_keys:
            raise ConfigError("[upstream] api_key is set: [auth] client_keys must list the keys clients use")
        if self.client_keys and not self.upstream_api_key:
            raise ConfigError(
                "[auth] client_keys without [upstream] api_key: the client's header is passed to the upstream as is"
            )
        if any(not isinstance(k, str) or len(k) < 8 for k in self.client_keys):
            raise ConfigError("every client key must be a string of at least 8 characters")
        if not isinstance(self.max_body_bytes, int) or self.max_body_bytes <= 0:
            raise ConfigError("[limits] max_body_bytes must be a positive integer")


def load_config(path: str | Path | None, *, upstream: str | None = None) -> ProxyConfig:
    """Read `path` (None: defaults) and apply the command line's `--upstream`."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    return config_from(data, upstream=upstream)


def config_from(data: Mapping[str, Any], *, upstream: str | None = None) -> ProxyConfig:
    known = {
        "upstream",
        "auth",
        "limits",
        "pipeline",
        "reasoning",
        "budget",
        "rate_limits",
        "redactor",
        "refusal",
        "evidence",
    }
    unknown = set(data) - known
    if unknown:
        raise ConfigError(f"unknown section(s): {', '.join(sorted(unknown))}")
    up = _table(data, "upstream")
    _keys(up, "upstream", {"url", "api_key", "timeout_seconds", "max_connections"})
    auth = _table(data, "auth")
    limits = _table(data, "limits")
    pipeline = _table(data, "pipeline")
    url = upstream or up.get("url")
    if not isinstance(url, str) or not url:
        raise ConfigError("no upstream: pass --upstream URL or set [upstream] url")
    keys = auth.get("client_keys", [])
    if not isinstance(keys, list):
        raise ConfigError("[auth] client_keys must be a list of strings")
    return ProxyConfig(
        upstream_url=url.rstrip("/"),
        upstream_api_key=up.get("api_key") or None,
        client_keys=tuple(keys),
        max_body_bytes=limits.get("max_body_bytes", DEFAULT_MAX_BODY_BYTES),
        timeout_seconds=float(up.get("timeout_seconds", DEFAULT_TIMEOUT_SECONDS)),
        redact=bool(pipeline.get("redact", True)),
        preflight=bool(pipeline.get("preflight", False)),
        show_reasoning=_show_reasoning(_table(data, "reasoning")),
        upstream_max_connections=_max_connections(up),
        budget=_budget(data.get("budget")),
        rate_limits=_rate_limits(data.get("rate_limits")),
        redactor=_redactor(_table(data, "redactor")),
        refusal=_refusal(_table(data, "refusal")),
        evidence=_evidence(_table(data, "evidence")),
    )


def _table(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    table = data.get(name, {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"[{name}] must be a table")
    return table


def _budget(table: Any) -> BudgetConfig | None:
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise ConfigError("[budget] must be a table")
    prices = table.get("prices") or {}
    if not prices or not all(isinstance(v, list) and len(v) == 2 for v in prices.values()):
        raise ConfigError("[budget.prices] must map each model to [input, output] dollars per million tokens")
    return BudgetConfig(
        monthly_limit=str(table.get("monthly_limit", "0")),
        store=str(table.get("store", "sqlite:///sluicegate-spend.sqlite3")),
        prices={str(k): (float(v[0]), float(v[1])) for k, v in prices.items()},
        max_output_tokens=int(table.get("max_output_tokens", 1024)),
        scope=str(table.get("scope", "default")),
    )


_RATE_KEYS = frozenset({"per_minute", "per_hour", "per_day", "by", "store", "trusted_proxies"})


def _rate_limits(table: Any) -> RateLimitConfig | None:
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise ConfigError("[rate_limits] must be a table")
    unknown = set(table) - _RATE_KEYS
    if unknown:
        raise ConfigError(f"[rate_limits] unknown key(s): {', '.join(sorted(unknown))}")
    windows = {k: table.get(k) for k in ("per_minute", "per_hour", "per_day")}
    if all(v is None for v in windows.values()):
        raise ConfigError("[rate_limits] needs at least one of per_minute, per_hour, per_day")
    for name, value in windows.items():
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise ConfigError(f"[rate_limits] {name} must be a positive integer")
    by = table.get("by", "key")
    if by not in ("key", "address"):
        raise ConfigError('[rate_limits] by must be "key" or "address"')
    store = table.get("store", "memory://")
    if not isinstance(store, str) or not store.startswith(("memory://", "sqlite:///", "redis://", "rediss://")):
        raise ConfigError("[rate_limits] store must be memory://, sqlite:///path, redis:// or rediss://")
    proxies = table.get("trusted_proxies", [])
    if not isinstance(proxies, list) or not all(isinstance(p, str) for p in proxies):
        raise ConfigError("[rate_limits] trusted_proxies must be a list of addresses or networks")
    return RateLimitConfig(
        per_minute=windows["per_minute"],
        per_hour=windows["per_hour"],
        per_day=windows["per_day"],
        by=by,
        store=store,
        trusted_proxies=tuple(proxies),
    )


def _keys(table: Mapping[str, Any], name: str, allowed: set[str]) -> None:
    unknown = set(table) - allowed
    if unknown:
        raise ConfigError(f"[{name}] unknown key(s): {', '.join(sorted(unknown))}")


def _strings(table: Mapping[str, Any], name: str, key: str) -> list[str] | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[{name}] {key} must be a list of strings")
    return value


def _built(name: str, make: Any, options: Mapping[str, Any]) -> None:
    """Build the object once at load, so a bad entity, category or pattern stops the start, not a request."""
    try:
        make(**options)
    except (TypeError, ValueError) as exc:  # PatternError is a ValueError
        raise ConfigError(f"[{name}] {exc}") from None


def _max_connections(table: Mapping[str, Any]) -> int | None:
    value = table.get("max_connections")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError("[upstream] max_connections must be a positive integer")
    return value


def _show_reasoning(table: Mapping[str, Any]) -> bool:
    _keys(table, "reasoning", {"show"})
    show = table.get("show", False)
    if not isinstance(show, bool):
        raise ConfigError("[reasoning] show must be true or false")
    return show


def _redactor(table: Mapping[str, Any]) -> Mapping[str, Any]:
    from sluicegate.redaction import Redactor

    _keys(table, "redactor", {"entities", "allow"})
    options: dict[str, Any] = {}
    for key in ("entities", "allow"):
        value = _strings(table, "redactor", key)
        if value is not None:
            options[key] = tuple(value)
    if "entities" in options and not options["entities"]:
        raise ConfigError("[redactor] entities is empty: set [pipeline] redact = false to run no redactor")
    _built("redactor", Redactor, options)
    return options


def _refusal(table: Mapping[str, Any]) -> Mapping[str, Any]:
    from sluicegate.evidence import RefusalRules

    _keys(table, "refusal", {"categories", "patterns"})
    options: dict[str, Any] = {}
    categories = _strings(table, "refusal", "categories")
    if categories is not None:
        options["categories"] = tuple(categories)
    patterns = table.get("patterns")
    if patterns is not None:
        ok = isinstance(patterns, Mapping) and all(
            isinstance(langs, Mapping)
            and all(isinstance(v, list) and all(isinstance(p, str) for p in v) for v in langs.values())
            for langs in patterns.values()
        )
        if not ok:
            raise ConfigError("[refusal.patterns] must map each category to {language = [patterns]}")
        options["entries"] = {
            str(category): {str(lang): list(v) for lang, v in langs.items()} for category, langs in patterns.items()
        }
    _built("refusal", RefusalRules, options)
    return options


def _evidence(table: Mapping[str, Any]) -> Mapping[str, Any]:
    from sluicegate.evidence import EvidenceGate

    _keys(table, "evidence", {"threshold", "min_matches"})
    options: dict[str, Any] = {}
    threshold = table.get("threshold")
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 <= threshold <= 1:
            raise ConfigError("[evidence] threshold must be a number from 0 to 1")
        options["threshold"] = float(threshold)
    matches = table.get("min_matches")
    if matches is not None:
        if isinstance(matches, bool) or not isinstance(matches, int) or matches < 1:
            raise ConfigError("[evidence] min_matches must be a positive integer")
        options["min_matches"] = matches
    _built("evidence", EvidenceGate, options)
    return options
