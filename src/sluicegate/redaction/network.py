"""Network and crypto identifiers (Presidio names): IP_ADDRESS, MAC_ADDRESS, CRYPTO; and URL credentials."""

from __future__ import annotations

from . import validators
from .detector import Detector

_V4 = r"(?:[0-9]{1,3}\.){3}[0-9]{1,3}"
# A compact superset of IPv6 shapes (groups of up to 4 hex digits, '::', an IPv4 tail); `ipaddress` decides.
# It starts with a group or with '::', never with a lone ':' (a label's colon, `ip:2001:db8::1`, is not part of it).
_V6 = (
    r"(?:[0-9A-Fa-f]{1,4}:(?:[0-9A-Fa-f]{0,4}:){1,6}+|::(?:[0-9A-Fa-f]{0,4}:){0,5}+)(?:" + _V4 + r"|[0-9A-Fa-f]{1,4})?"
)

# Start guards keep a long run of groups from being tried at every group (linear time) without refusing a
# value after a label's colon (`ip:10.0.0.1`, `联系方式：…`). An IPv4 address is bounded, so it may start after
# any ':'; an IPv6 address may not start right after a group of its own run and its colon, or after '::', or
# after a hex group with a digit glued to a word (`text2001:db8::1` is one token; `mac:…`, `IPv6:…` are labels).
_STANDALONE = r"(?<![0-9A-Za-z.])"
# An address may carry its network's prefix length (`192.168.1.0/24`, `2001:db8::/32`) and an IPv6 zone
# (`fe80::1%eth0`): both are part of the value, as Presidio reads them, so none of it is shown beside the tag.
IP_ADDRESS = Detector(
    "IP_ADDRESS",
    rf"(?:{_STANDALONE}{_V4}(?:/[0-9]{{1,2}})?(?![0-9A-Za-z]|\.[0-9])"
    rf"|{_STANDALONE}(?<!(?:{_STANDALONE}[0-9A-Fa-f]{{1,4}}|:):)(?<![0-9A-Za-z](?:[0-9A-Fa-f]{{1,3}}[0-9]|[0-9][0-9A-Fa-f]{{1,3}}):){_V6}"
    rf"(?:%[0-9A-Za-z_\-]{{1,16}}+)?(?:/[0-9]{{1,3}})?(?![0-9A-Za-z:]))",
    validators.ip_address,
    first="[0-9A-Fa-f:]",
)

# Not inside a longer run of groups, but fine after a label's colon (`mac:00:1A:…`).
MAC_ADDRESS = Detector(
    "MAC_ADDRESS",
    r"(?<![0-9A-Za-z])(?<!(?<![0-9A-Za-z])[0-9A-Fa-f]{2}[:\-])(?<!(?<![0-9A-Za-z])[0-9A-Fa-f]{4}\.)"
    r"(?:[0-9A-Fa-f]{2}(?P<mac_sep>[:\-])(?:[0-9A-Fa-f]{2}(?P=mac_sep)){4}[0-9A-Fa-f]{2}"
    r"|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4})(?![0-9A-Za-z]|[:\-.][0-9A-Fa-f])",
    validators.mac_address,
)

CRYPTO = Detector(
    "CRYPTO",
    r"(?<![0-9A-Za-z])(?:[13][1-9A-HJ-NP-Za-km-z]{25,34}|bc1[ac-hj-np-z02-9]{8,87})(?![0-9A-Za-z])",
    validators.bitcoin,
)

# scheme://user:password@ for any scheme — only the user:password part is replaced; the scheme and host stay
# readable. The user may be empty (`redis://:pass@host`); the password runs to the last '@' before whitespace,
# so a '/' or '?' typed into it (`mysql://root:Pa55/w0rd@host`) is not shown. Neither crosses a quote, a
# backtick or an angle bracket (`"https://url:8000";@x` is a string literal and its neighbour).
URL_CREDENTIALS = Detector(
    "URL_CREDENTIALS",
    r"(?<![0-9A-Za-z+.\-])[A-Za-z][0-9A-Za-z+.\-]{1,20}+://"
    r"(?P<v>[^\s/?#@:\"'`<>]{0,256}+:[^\s@\"'`<>]{1,256}+)@",
    prefix=r"[A-Za-z][0-9A-Za-z+.\-]{1,20}+://(?P<v>[^\s/?#@:\"'`<>]{0,256}+:[^\s@\"'`<>/]{6})",
)

DETECTORS = (IP_ADDRESS, MAC_ADDRESS, CRYPTO, URL_CREDENTIALS)
