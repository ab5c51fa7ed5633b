"""Budget: a monthly spend cap that reserves before the model is called, and per-client rate limits.

The cap fails closed (unknown spend is refused); the rate limits fail open (a cache outage must not take the
site down). State lives in a store: `SQLiteStore(path)` embedded by default, `RedisStore(client)` for several
instances. Nothing here imports a database client at import time (sqlite3 is the standard library; redis is
imported only when a `RedisStore` talks to its server).
"""

from .._deprecation import moved_names
from .._public import publish
from ._call import REFUSED_REASON, CallBudget, refused
from ._cap import CapDecision, CapStats, Reservation, SpendCap, utc_month
from ._clientkey import client_address, client_key
from ._prices import NANO, Price, from_nano
from ._ratelimit import DEGRADED_HEADER, RateDecision, RateLimits
from ._stores import RedisStore, SpendStore, SQLiteStore, StoreUnavailable, Totals

__all__ = [
    "DEGRADED_HEADER",
    "NANO",
    "REFUSED_REASON",
    "CallBudget",
    "CapStats",
    "CapDecision",
    "Price",
    "RateDecision",
    "RateLimits",
    "RedisStore",
    "Reservation",
    "SQLiteStore",
    "SpendCap",
    "SpendStore",
    "StoreUnavailable",
    "Totals",
    "client_address",
    "client_key",
    "from_nano",
    "refused",
    "utc_month",
]

# Renamed so no class name is defined twice in the core (`sluicegate.evidence.Decision` is the other one).
__getattr__ = moved_names(__name__, {"Decision": "sluicegate.budget:CapDecision"})

publish(__name__, globals())  # one documented place per public name (docs/api.md)
