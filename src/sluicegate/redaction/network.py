"""Network and crypto identifiers (Presidio names): IP_ADDRESS, MAC_ADDRESS, CRYPTO; and URL credentials."""

from __future__ import annotations

from . import validators
from .detector import Detector

_V4 = r"(?:[0-9]{1,3}\.){3}[0-9]{1,3}"
# A compact superset of IPv6 shapes (groups of up to 4 hex digits, '::', an IPv4 tail); `ipaddress` decides.
_V6 = r"(?:[0-9A-Fa-f]{0,4}:){2,7}+(?:" + _V4 + r"|[0-9A-Fa-f]{1,4})?"

IP_ADDRESS = Detector(
    "IP_ADDRESS",
    rf"(?<![0-9A-Za-z.:])(?:{_V4}(?![0-9A-Za-z]|\.[0-9])|{_V6}(?![0-9A-Za-z:]))",
    validators.ip_address,
)

MAC_ADDRESS = Detector(
    "MAC_ADDRESS",
    r"(?<![0-9A-Za-z:\-.])(?:[0-9A-Fa-f]{2}(?P<mac_sep>[:\-])(?:[0-9A-Fa-f]{2}(?P=mac_sep)){4}[0-9A-Fa-f]{2}"
    r"|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4})(?![0-9A-Za-z]|[:\-.][0-9A-Fa-f])",
    validators.mac_address,
)

CRYPTO = Detector(
    "CRYPTO",
    r"(?<![0-9A-Za-z])(?:[13][1-9A-HJ-NP-Za-km-z]{25,34}|bc1[ac-hj-np-z02-9]{8,87})(?![0-9A-Za-z])",
    validators.bitcoin,
)

# scheme://user:password@ — only the user:password part is replaced; the scheme and host stay readable.
URL_CREDENTIALS = Detector(
    "URL_CREDENTIALS",
    r"(?<![0-9A-Za-z+.\-])[A-Za-z][0-9A-Za-z+.\-]{1,20}+://(?P<v>[^\s/?#@:]{1,256}+:[^\s/?#@]{1,256}+)@",
)

DETECTORS = (IP_ADDRESS, MAC_ADDRESS, CRYPTO, URL_CREDENTIALS)
