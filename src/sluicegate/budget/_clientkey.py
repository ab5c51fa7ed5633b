"""Which client a request comes from, as the edge saw it: the ASGI peer, or the right-most untrusted hop of
X-Forwarded-For when (and only when) the peer is a configured trusted proxy.

Why right-most: each proxy appends the address it received the connection from, so everything left of the hop
our own proxy appended was written by the client and can be anything (redis/fastapi-redis-sdk#39). With no
trusted proxies configured the header is ignored entirely: a client cannot pick its own bucket. IPv6 clients are
keyed by their /64 (configurable): one host usually owns a whole /64 and can rotate addresses inside it freely.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

UNKNOWN = "unknown"  # no peer (a unix socket, a test transport): all such requests share one bucket


def networks(trusted: Iterable[str | IPNetwork]) -> tuple[IPNetwork, ...]:
    """Parse trusted proxies ("10.0.0.0/8", "127.0.0.1", "::1"); a bad entry is a configuration error."""
    out: list[IPNetwork] = []
    for entry in trusted:
        try:
            out.append(entry if not isinstance(entry, str) else ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ValueError(f"trusted proxy {entry!r} is not an IP address or network") from None
    return tuple(out)


def parse_ip(text: str) -> IPAddress | None:
    """An address from a header hop: "1.2.3.4", "1.2.3.4:5678", "[2001:db8::1]:443", "2001:db8::1"."""
    text = text.strip().strip('"')
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def bucket(address: IPAddress, ipv6_prefix: int = 64) -> str:
    """The rate-limit key of an address: IPv4 as is, IPv6 by its /`ipv6_prefix` network."""
    if isinstance(address, ipaddress.IPv6Address) and ipv6_prefix < 128:
        return str(ipaddress.IPv6Network((address, ipv6_prefix), strict=False))
    return str(address)


def _forwarded_for(scope: Mapping[str, Any]) -> list[str]:
    """All X-Forwarded-For hops in order; several headers are one list, joined in the order they came."""
    hops: list[str] = []
    for name, value in scope.get("headers") or ():
        if bytes(name).lower() == b"x-forwarded-for":
            hops.extend(h for h in bytes(value).decode("latin-1").split(","))
    return hops


def _trusted(address: IPAddress, trusted: tuple[IPNetwork, ...]) -> bool:
    return any(address.version == net.version and address in net for net in trusted)


def client_address(scope: Mapping[str, Any], trusted_proxies: Iterable[str | IPNetwork] = ()) -> IPAddress | None:
    """The client's address for an ASGI `scope`, or None when there is no peer at all."""
    trusted = networks(trusted_proxies)
    client = scope.get("client")
    peer = parse_ip(str(client[0])) if client else None
    if peer is None or not trusted or not _trusted(peer, trusted):
        return peer
    nearest = peer
    for hop in reversed(_forwarded_for(scope)):
        address = parse_ip(hop)
        if address is None:  # our proxies never write garbage: the chain is broken, trust nothing past here
            return nearest
        if not _trusted(address, trusted):
            return address
        nearest = address
    return nearest  # every hop is one of ours: the request started inside


def client_key(scope: Mapping[str, Any], trusted_proxies: Iterable[str | IPNetwork] = (), ipv6_prefix: int = 64) -> str:
    """The rate-limit key for an ASGI `scope` (see `client_address` and `bucket`)."""
    address = client_address(scope, trusted_proxies)
    return UNKNOWN if address is None else bucket(address, ipv6_prefix)
