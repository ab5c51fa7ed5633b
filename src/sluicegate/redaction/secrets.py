"""Secret detectors: detect-secrets' regex plugins plus current provider key formats, JWTs, private-key blocks
and labelled assignments (`password: …`, `API_KEY=…`).

Token bodies use possessive quantifiers (`++`, `{n,}+`): a run of key characters is taken whole, never
re-split by backtracking, which keeps 100 KB of base64 linear. A token still growing at the end of the buffer
is a partial match, so it is held until a character that cannot belong to it arrives.
"""

from __future__ import annotations

import regex

from . import labels, validators
from .detector import LOOKBEHIND, Detector
from .reach import reach as pattern_reach

_B = r"(?<![0-9A-Za-z_\-])"  # token start: not inside a longer word
_E = r"(?![0-9A-Za-z_\-])"  # token end
_T = r"[0-9A-Za-z_\-]"  # a token character
# A long key wrapped onto the next line by a fixed-width display: the next line continues it only if it is one
# run of key characters holding both a letter and a digit (a prose word or a list number `2.` is not taken).
_WRAP = r"(?:\r?\n(?:[A-Za-z_\-]++[0-9]|[0-9]++[A-Za-z_\-])[0-9A-Za-z_\-]*+)?"

AWS_ACCESS_KEY = Detector(
    "AWS_ACCESS_KEY",
    r"(?<![0-9A-Z])(?:AKIA|ASIA|ABIA|ACCA|A3T[0-9A-Z])[0-9A-Z]{16}(?![0-9A-Z])",
    prefix=r"(?:AKIA|ASIA|ABIA|ACCA|A3T[0-9A-Z])[0-9A-Z]",
)
_AWS_LABEL = r"(?i:aws)[0-9A-Za-z_\-]{0,20}+\s{0,3}[\"']?\s{0,3}(?::|=|=>)\s{0,3}[\"']?"
AWS_SECRET_KEY = Detector(
    "AWS_SECRET_KEY",
    r"(?<![0-9A-Za-z])" + _AWS_LABEL + r"(?P<v>[0-9A-Za-z/+]{40})(?![0-9A-Za-z/+=])",
    prefix=_AWS_LABEL + r"(?P<v>[0-9A-Za-z/+])",
)
# A GitHub token may be followed by '_' or '-' (`ghp_…_suffix` in a variable name): only letters and digits end it.
GITHUB_TOKEN = Detector(
    "GITHUB_TOKEN",
    _B + r"(?:gh[pousr]_[0-9A-Za-z]{36,255}+|github_pat_[0-9A-Za-z_]{22,255}+)" + _WRAP + r"(?![0-9A-Za-z])",
    prefix=r"gh[pousr]_[0-9A-Za-z]|github_pat_[0-9A-Za-z_]",
)
# Every GitLab token family (gitlab.com docs, "Token prefixes"), the routable forms with their `.xx.crc`
# suffix (`glpat-….01.0j1rn5p3x`, `glrt-t1_…`), and the session cookie.
_GITLAB_PREFIX = r"gl(?:pat|dt|rt|ptt|ft|ffct|soat|cbt|imt|oas|agent|wt|isa)-|GR1348941"
GITLAB_TOKEN = Detector(
    "GITLAB_TOKEN",
    _B + rf"(?:(?:{_GITLAB_PREFIX}){_T}{{20,}}+(?:\.[0-9A-Za-z]{{2,}}+)*+|_gitlab_session=[0-9a-f]{{32}})" + _E,
    prefix=rf"(?:{_GITLAB_PREFIX}){_T}|_gitlab_session=[0-9a-f]",
)
# A configuration token's access form carries a refresh prefix: `xoxe.xoxp-1-…`.
SLACK_TOKEN = Detector(
    "SLACK_TOKEN",
    _B + r"(?:xoxe\.)?(?:xox[aboprse]|xapp)-[0-9A-Za-z\-]{10,}+" + _WRAP + _E,
    prefix=r"(?:xoxe\.)?(?:xox[aboprse]|xapp)-[0-9A-Za-z]",
)
# With `https://`, `http://` or no scheme at all (`hooks.slack.com/services/…` pasted from a config).
SLACK_WEBHOOK = Detector(
    "SLACK_WEBHOOK",
    r"(?:https?://|(?<![0-9A-Za-z_.\-/]))hooks\.slack\.com/(?:services|workflows|triggers)/[0-9A-Za-z_/]{20,}+"
    r"(?![0-9A-Za-z_/])",
    prefix=r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[0-9A-Za-z_]",
)
# Secret and restricted keys in live, test and sandbox (`prod`) modes; publishable `pk_` keys are public.
STRIPE_KEY = Detector(
    "STRIPE_KEY",
    _B + r"[rs]k_(?:live|test|prod)_[0-9A-Za-z]{16,}+" + _WRAP + _E,
    prefix=r"[rs]k_(?:live|test|prod)_[0-9A-Za-z]",
)
ANTHROPIC_KEY = Detector(
    "ANTHROPIC_KEY", _B + r"sk-ant-[0-9A-Za-z_\-]{20,}+" + _WRAP + _E, prefix=r"sk-ant-[0-9A-Za-z_\-]"
)
OPENAI_KEY = Detector(
    "OPENAI_KEY",
    _B + r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[0-9A-Za-z_\-]{20,}+" + _WRAP + _E,
    prefix=r"sk-(?!ant-)(?:(?:proj|svcacct|admin)-[0-9A-Za-z_\-]|[0-9A-Za-z_\-]{8})",
)
GOOGLE_API_KEY = Detector("GOOGLE_API_KEY", _B + r"AIza[0-9A-Za-z_\-]{35}" + _E, prefix=r"AIza[0-9A-Za-z_\-]")
NPM_TOKEN = Detector("NPM_TOKEN", _B + r"npm_[0-9A-Za-z]{36}" + _E, prefix=r"npm_[0-9A-Za-z]")
# PyPI and TestPyPI API tokens: the macaroon's base64 names the index (`pypi.org`, `test.pypi.org`).
_PYPI = r"pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)"
PYPI_TOKEN = Detector("PYPI_TOKEN", _B + _PYPI + r"[0-9A-Za-z_\-]{50,}+" + _WRAP + _E, prefix=_PYPI)
SENDGRID_KEY = Detector(
    "SENDGRID_KEY", _B + r"SG\.[0-9A-Za-z_\-]{22}\.[0-9A-Za-z_\-]{43}" + _E, prefix=r"SG\.[0-9A-Za-z_\-]{4}"
)
# Account and API key SIDs: 32 hex digits in Twilio's docs, any lowercase letter or digit in detect-secrets'
# (`SKxxxx…` as written in examples); uppercase hex after `AC` is a hash, not a SID.
TWILIO_KEY = Detector(
    "TWILIO_KEY", r"(?<![0-9A-Za-z])(?:AC|SK)[0-9a-z]{32}(?![0-9A-Za-z])", prefix=r"(?:AC|SK)[0-9a-z]{8}"
)
# Bot ids have grown from 8-10 digits; 5-16 covers the ids seen in the wild and in gitleaks' rule.
TELEGRAM_BOT_TOKEN = Detector(
    "TELEGRAM_BOT_TOKEN",
    r"(?<![0-9])[0-9]{5,16}:[0-9A-Za-z_\-]{35}" + _E,
    prefix=r"[0-9]{5,16}:[0-9A-Za-z_\-]{4}",
)
# The first part is the bot's id in base64 (any first character: ids grow), then a timestamp and an HMAC.
DISCORD_BOT_TOKEN = Detector(
    "DISCORD_BOT_TOKEN",
    _B + r"[0-9A-Za-z_\-]{24,26}\.[0-9A-Za-z_\-]{6}\.[0-9A-Za-z_\-]{27,}+" + _E,
    prefix=r"[0-9A-Za-z_\-]{24,26}\.[0-9A-Za-z_\-]{6}\.",
)
# Two or three base64url parts; the header must decode to a JSON object. The signature may be empty (alg
# "none": `header.payload.`), and an unsigned token may lack the last dot.
JWT = Detector(
    "JWT",
    _B + r"eyJ[0-9A-Za-z_\-]{5,}+\.[0-9A-Za-z_\-]{2,}+(?:\.[0-9A-Za-z_\-]*+)?" + _WRAP + _E,
    validators.jwt,
    prefix=r"eyJ[0-9A-Za-z_\-]{5,}+\.",
)

# Private-key blocks of every kind, from the BEGIN line to the first END line. The body is a tempered
# run (any text that is not the start of an END line, in any case), possessive so it can never reach past it.
# Once the BEGIN line is complete the body is never released: an END line that is malformed (a dash short, cut
# short, another kind's END, lowercase) still ends the block at the end of its line, and a block that never
# meets an END line fails closed (`opener`). The END alternatives are atomic: once a well-formed END line is
# whole, the malformed-line alternative is not tried as well, so the text after it is not held to the next
# newline (it was: a closed key followed by more than `max_hold` characters on its line stopped the answer).
_PEM_OPEN = r"-----BEGIN (?:[0-9A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END (?:[0-9A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----|-----(?i:end)[^\n]*+"
_SSH2_OPEN = r"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"
_SSH2_END = r"---- END SSH2 ENCRYPTED PRIVATE KEY ----|---- (?i:end)[^\n]*+"
_PUTTY_OPEN = r"PuTTY-User-Key-File-[0-9]+: "
PRIVATE_KEY = Detector(
    "PRIVATE_KEY",
    rf"{_PEM_OPEN}(?:[^\-]++|-(?!----(?i:end)))*+(?>{_PEM_END})"
    rf"|{_SSH2_OPEN}(?:[^\-]++|-(?!--- (?i:end)))*+(?>{_SSH2_END})"
    rf"|{_PUTTY_OPEN}(?:[^P]++|P(?!rivate-MAC: ))*+Private-MAC: [0-9A-Fa-f]++",
    opener=rf"{_PEM_OPEN}|{_SSH2_OPEN}|{_PUTTY_OPEN}",
    # The PEM and SSH2 bodies can only end at a '-' (an END line), PuTTY's at a 'P' (Private-MAC:); their
    # lookaheads read at most 12 characters past it. A PEM or SSH2 END line runs to its newline; PuTTY's MAC
    # ends at any non-hex character, so it makes no claim there.
    steady=((_PEM_OPEN, "-", 16, "\n-"), (_SSH2_OPEN, "-", 16, "\n-"), (_PUTTY_OPEN, "P", 16, None)),
)

# `Authorization: Bearer <opaque token>` (RFC 6750 b64token) and `Basic <base64>`: the scheme word stays. A
# value of letters only must be long (`basic understanding` is prose).
BEARER_TOKEN = Detector(
    "BEARER_TOKEN",
    r"(?<![0-9A-Za-z])(?i:bearer|basic)[ ]{1,3}(?P<v>[0-9A-Za-z\-._~+/]{12,}+=*+)(?![0-9A-Za-z\-._~+/=])",
    validators.credential_token,
    prefix=r"(?i:bearer|basic)[ ]{1,3}(?P<v>[0-9A-Za-z\-._~+/]{12})",
)
# `DATABASE_PASSWORD=…`, `"api_key": "…"`, `Password: …`, `API Key = …`, `if pwd == "…"`, `mot de passe : …`,
# `githubToken: …`. Only the value is replaced. A prefix such as `DATABASE_` needs no pattern: the label may start
# right after `_`, `-` or `.` (letters of the label's script may not come before or after it; Chinese labels
# may follow any character, as Chinese has no spaces). A quoted value ends at its closing quote (or the end of
# the line, or 256 characters); an unquoted one at the end of the token (whitespace or a quote), so `;` and
# `&` go with it: showing the rest of a connection string is not worth showing part of a password.
#
# The match starts at the separator and the label is a lookbehind (at most `LOOKBEHIND` characters, checked
# in labels.py): the engine skips to the next ':' or '=' at C speed instead of trying ~60 case-insensitive
# words at every letter (the alternation made whole-text scans 7x slower), and a label is never held, only
# its value. Its start depends on the text before it, so the starters table cannot learn it (`context`).
_SCRIPTS = r"0-9\p{Latin}\p{Cyrillic}\p{Greek}\p{Arabic}\p{Devanagari}"
_CAMEL = rf"(?<=[a-z0-9])(?:{'|'.join(labels.CAMEL_WORDS)})"
# Inside lookbehinds only (as `_LABEL`, `_CODE_LABEL`): the alternation factored by endings (labels.py says why).
_WORD = rf"(?:(?<![{_SCRIPTS}])(?i:{labels.lookbehind_alternation()})|{_CAMEL})"
_LABEL = rf"{_WORD}(?![{_SCRIPTS}])"
# Before a quoted value, in code: any label may take a suffix (`password_super_secure = "…"`,
# `apikey_myservice: "…"`): a quoted string assigned to a secret-named identifier is a secret, where an unquoted
# word after `password_policy:` names a setting, and may end in a number (`"access_token1": "…"`).
_CODE_WORD = rf"(?:(?<![{_SCRIPTS}])(?i:{labels.lookbehind_alternation(suffixes=False)})|{_CAMEL})"
_CODE_LABEL = rf"{_CODE_WORD}{labels.SUFFIX}(?:[0-9]{{1,2}}+)?(?![{_SCRIPTS}])"
# The same label read forwards (after a reversed comparison's value): the flat alternation, longest word first.
_CODE_LABEL_FORWARD = (
    rf"(?:(?<![{_SCRIPTS}])(?i:{labels.alternation(suffixes=False)})|{_CAMEL})"
    rf"{labels.SUFFIX}(?:[0-9]{{1,2}}+)?(?![{_SCRIPTS}])"
)
_SEP = r"(?:==|:=|=>|:|=)\s{0,3}"
# A value in backticks (Markdown's code span, how answers quote a value) is quoted like one in quotes.
_VALUE = (
    r"(?:\"(?P<v>[^\"\n]{1,256}+)|'(?P<v>[^'\n]{1,256}+)|`(?P<v>[^`\n]{1,256}+)"
    r"|(?P<v>[^\s\"'`<:=][^\s\"'`]{2,}+))"
)
# A quoted value in code; `@"…"` is an Objective-C or C# verbatim string.
_QUOTED = r"(?:@?\"(?P<v>[^\"\n]{1,256}+)|'(?P<v>[^'\n]{1,256}+)|`(?P<v>[^`\n]{1,256}+))"
# Operators of assignments and comparisons in code: Make's `::=`, `:::=` and `?=`, PHP's `.=`, `+=`, `!=`,
# `===`, `!==`; matched inside the lookbehind that names the label (the match starts at the operator's last
# character).
_OP = r"(?::{1,3}+=|[?.+]=|!==|!=|===|==|=>|:|=)"
# Between a label and its operator: one type word (`var discordToken string =`) or a type annotation
# (`const PASSWORD: &str =`, `apiKey: string =`), then a quote (`"password": …`) and up to two spaces. A C
# array (`char secrete[25] =`, `secrete[] =`) takes a double-quoted value only: in C a single quote is a character.
_DECL = r"(?:[ \t][0-9A-Za-z_]{1,8}+|[ \t]?+:[ \t]?+&?+[0-9A-Za-z_]{1,8}+)?[\"'`]?+[ \t]{0,2}+"
_DQUOTED = r"@?\"(?P<v>[^\"\n]{1,256}+)"
# The lookbehinds, each at most `LOOKBEHIND` characters (asserted below): the label before a separator; before
# a code operator; a quoted label before a comma (`System.setProperty("DISCORD_TOKEN", "…")`); a label before a
# call's parenthesis (`std::string secret("…")`, `secrete.assign("…", 17)`); an XML element's name
# (`<discordToken>…`); a label and a space before a quoted value (`password "…";`).
_BEHIND = {
    "separator": rf"{_LABEL}[\"'`]?+[ \t]{{0,2}}+",
    "operator": rf"{_CODE_LABEL}{_DECL}{_OP}",
    "array": rf"{_CODE_LABEL}\[[0-9]{{0,4}}+\][ \t]{{0,2}}+{_OP}",
    "comma": rf"[\"'][0-9A-Za-z_.\-]{{0,16}}+{_CODE_LABEL}[\"'][ \t]{{0,2}}+,",
    "call": rf"{_CODE_LABEL}(?:\.assign)?\(",
    "element": rf"<[0-9A-Za-z_.\-]{{0,16}}+{_CODE_LABEL}>",
    "space": rf"{_CODE_LABEL}[ \t]{{1,2}}+\"",
}
# A value compared with a label written after it: `if ("…" == password)`. The value has no spaces, so a prose
# quotation is released at its first space instead of being held to its closing quote.
_REVERSED = (
    r"\"(?P<v>[^\"\s]{1,256}+)\"[ \t]{0,3}(?:===|!==|==|!=)[ \t]{0,3}"
    rf"(?:[0-9A-Za-z_.\-]{{0,20}}[_.\-])?{_CODE_LABEL_FORWARD}"
)
# Each alternative consumes what is cheap to check (its operator, the spaces and the value's first character, a
# quote) before the lookbehind that names the label, so the label alternation is tried only where a value of the
# right kind follows: in JSON or logs most `:`, `,` and `"` are not followed by one (a label check at every `:`
# made whole JSON text 10x slower). An unquoted value after a plain separator; a quoted one after any code form.
_S3 = r"\s{0,3}+"
_UNQUOTED = rf"[^\s\"'`<:=](?<={_BEHIND['separator']}(?:==|:=|=>|:|=){_S3}[^\s])[^\s\"'`]{{2,}}+"


def _quoted_after(behind: str, dq_behind: str | None = None) -> str:
    """A quoted value whose opening quote is consumed before the lookbehind `behind` (which ends before the
    spaces); a double-quoted (or `@"…"`) one may also follow `dq_behind`. One lookbehind for the three quotes (the
    value then reads to the quote it opened with): three copies of the label alternation made the pattern half
    as large again, and each copy is more of the compiled pattern for a stream's cache to lose between calls."""
    dq = "" if dq_behind is None else rf"|{dq_behind}{_S3}@?\""
    return (
        rf"(?:@?\"|'|`)(?<=(?:{behind}{_S3}(?:@?\"|'|`){dq}))"
        r"(?:(?<=\")(?P<v>[^\"\n]{1,256}+)|(?<=')(?P<v>[^'\n]{1,256}+)|(?<=`)(?P<v>[^`\n]{1,256}+))"
    )


# Two detectors of one entity: the forms that start at a separator, an operator or `>`, and those that start at a
# comma, a parenthesis or a quote. One pattern of all seven alternatives cost about twice its two halves (the
# `regex` engine optimizes each pattern as a whole; a 64 KB JSON probe: 193 ms against 38 + 52).
_PREFIX = (
    rf"(?:{_SEP}|[:=>]\s{{0,3}}|,[ \t]{{0,3}}|\([ \t]{{0,2}})"
    r"(?:@?[\"'`](?P<v>[^\"'`\n])|(?P<v>[^\s\"'`<]))"
)
LABELED_SECRET = Detector(
    "LABELED_SECRET",
    rf"(?:==|:=|=>|:|=){_S3}(?P<v>{_UNQUOTED})"
    # the match starts at the operator's last character (the lookbehind holds the whole operator), so a `.` in
    # prose is not a start at all
    + rf"|[:=>]{_S3}{_quoted_after(_BEHIND['operator'], _BEHIND['array'])}"
    + rf"|>(?<={_BEHIND['element']})\s{{0,8}}(?P<v>[^\s<>\"'`]{{2,256}}+)",
    labels.secret_value,
    first="[:=>]",
    prefix=_PREFIX,
    context=True,
    near=":=>",
)
LABELED_IN_CODE = Detector(
    "LABELED_SECRET",
    rf",[ \t]{{0,3}}+{_quoted_after(_BEHIND['comma'])}"
    + rf"|\([ \t]{{0,2}}+{_quoted_after(_BEHIND['call'])}"
    + rf"|\"(?<=[0-9\p{{L}}][ \t]{{1,2}}+\")(?<={_BEHIND['space']})(?P<v>[^\"\n]{{1,256}}+)\""
    + rf"|{_REVERSED}",
    labels.secret_value,
    first='[,("]',
    prefix=_PREFIX,
    context=True,
    near=",(",  # not `"`: a reversed comparison's label comes after its value
)
# One more character than each lookbehind's reach: a label's own `(?<![…])` reads the character before it.
for _name, _body in _BEHIND.items():
    _width = pattern_reach(_body, regex.V0)
    # +6: a separator's two characters, up to three spaces and a quote or a value's first character after it.
    assert _width is not None and _width + 7 <= LOOKBEHIND, f"the {_name} label must fit the context the filter keeps"

DETECTORS = (
    PRIVATE_KEY,
    AWS_ACCESS_KEY,
    AWS_SECRET_KEY,
    GITHUB_TOKEN,
    GITLAB_TOKEN,
    SLACK_WEBHOOK,
    SLACK_TOKEN,
    STRIPE_KEY,
    ANTHROPIC_KEY,
    OPENAI_KEY,
    GOOGLE_API_KEY,
    NPM_TOKEN,
    PYPI_TOKEN,
    SENDGRID_KEY,
    TWILIO_KEY,
    TELEGRAM_BOT_TOKEN,
    JWT,
    DISCORD_BOT_TOKEN,
    BEARER_TOKEN,
    LABELED_SECRET,
    LABELED_IN_CODE,
)
