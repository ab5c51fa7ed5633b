"""Rebuild the suite files in this folder from the other projects' sources (run by hand, never by the tests).

    python tests/redact/suites/extract.py --mirror /work/.mirror

`--mirror` holds the bare git directories the `fetch` tool brings (`owner+name/repo`). detect-secrets' own
plugins give the value span of its positive cases (its tests name only the line), so this runs under an
interpreter with `detect-secrets==1.5.0` and `regex` installed (a scratch venv; neither is a project
dependency). Cases are data: their parametrize lists and Go string literals are read, never their test code
run. Secrets gitleaks draws at random (`secrets.NewSecret(regex)`) are drawn here from the same regex with a
fixed seed, so the files are stable.
"""

from __future__ import annotations

import argparse
import ast
import base64
import contextlib
import json
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PINS = {
    "Yelp/detect-secrets": "5e141933554a0b74e7341841f318be21e895339c",
    "gitleaks/gitleaks": "b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b",
    "microsoft/presidio": "0aa9f8e44275cb52c00fbbebe19168e934e1f076",
}


def git_show(mirror: Path, repo: str, path: str) -> str:
    gd = mirror / repo.replace("/", "+") / "repo"
    return subprocess.run(
        ["git", f"--git-dir={gd}", "show", f"{PINS[repo]}:{path}"], capture_output=True, text=True, check=True
    ).stdout


def git_ls(mirror: Path, repo: str, under: str) -> list[str]:
    gd = mirror / repo.replace("/", "+") / "repo"
    out = subprocess.run(
        ["git", f"--git-dir={gd}", "ls-tree", "-r", "--name-only", PINS[repo], under],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split()


# ---------------------------------------------------------------------------------------------- python tests


def parametrized(source: str, env: dict[str, Any]) -> list[tuple[list[str], list[Any], int]]:
    """(argument names, value tuples, line) of every `pytest.mark.parametrize` whose values are data."""
    tree = ast.parse(source)
    for node in tree.body:  # module constants (`COMMON_SECRET = ...`)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            with contextlib.suppress(Exception):  # a constant built by a helper: not data
                env[node.targets[0].id] = eval(compile(ast.Expression(node.value), "<case>", "eval"), env)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr != "parametrize" or len(node.args) < 2:
            continue
        try:
            names = eval(compile(ast.Expression(node.args[0]), "<case>", "eval"), env)
            values = list(eval(compile(ast.Expression(node.args[1]), "<case>", "eval"), env))
        except Exception as exc:  # a list built by a fixture or a helper: not data
            print(f"  skipped parametrize at line {node.lineno}: {exc}", file=sys.stderr)
            continue
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        found.append((names, values, node.lineno))
    return found


PRESIDIO_FILES = {  # recognizer test -> our entity
    "test_credit_card_recognizer.py": "CREDIT_CARD",
    "test_crypto_recognizer.py": "CRYPTO",
    "test_email_recognizer.py": "EMAIL_ADDRESS",
    "test_iban_recognizer.py": "IBAN_CODE",
    "test_ip_recognizer.py": "IP_ADDRESS",
    "test_mac_recognizer.py": "MAC_ADDRESS",
    "test_phone_recognizer.py": "PHONE_NUMBER",
    "test_tr_phone_number_recognizer.py": "PHONE_NUMBER",
    "test_us_ssn_recognizer.py": "US_SSN",
}


def presidio(mirror: Path) -> list[dict[str, Any]]:
    cases: dict[tuple[str, str], dict[str, Any]] = {}
    for name, entity in PRESIDIO_FILES.items():
        path = f"presidio-analyzer/tests/{name}"
        for names, values, line in parametrized(git_show(mirror, "microsoft/presidio", path), {}):
            text_key = next((n for n in ("text", "iban") if n in names), None)
            pos_key = next((n for n in ("expected_positions", "expected_res") if n in names), None)
            if text_key is None or pos_key is None or "expected_len" not in names:
                continue
            for row in values:
                row = dict(zip(names, row, strict=False))
                text = row[text_key]
                spans = [tuple(p[:2]) if len(p) == 2 else tuple(p[1:3]) for p in row[pos_key] or ()]
                spans = [s for s in spans if isinstance(s[0], int)][: row["expected_len"]]
                case = cases.setdefault(
                    (entity, text),
                    {"origin": f"{path}:{line}", "entity": entity, "text": text, "spans": []},
                )
                for s in spans:  # the same text under several leniencies: any span it is expected at counts
                    if list(s) not in case["spans"]:
                        case["spans"].append(list(s))
    return list(cases.values())


# -------------------------------------------------------------------------------------------- detect-secrets


# detect-secrets plugins whose secrets we claim (the rest: Artifactory, Azure storage, Cloudant, IBM, Mailchimp,
# SoftLayer, Square are providers we do not claim; see the README).
DS_CLAIMED = (
    "aws_key",
    "basic_auth",
    "discord",
    "github_token",
    "gitlab_token",
    "ip_public",
    "jwt",
    "keyword",
    "npm",
    "openai",
    "private_key",
    "pypi_token",
    "sendgrid",
    "slack",
    "stripe_key",
    "telegram_token",
    "twilio",
)


def _plugin_class(plugin: str) -> tuple[str, Any]:
    import importlib

    from detect_secrets.plugins.base import BasePlugin

    module = importlib.import_module(
        f"detect_secrets.plugins.{ {'aws_key': 'aws', 'stripe_key': 'stripe'}.get(plugin, plugin) }"
    )
    return next(
        (name, obj)
        for name, obj in vars(module).items()
        if isinstance(obj, type) and issubclass(obj, BasePlugin) and obj.__module__ == module.__name__
    )


def detect_secrets(mirror: Path) -> list[dict[str, Any]]:
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import transient_settings

    base = "tests/plugins"
    cases: dict[str, dict[str, Any]] = {}
    rng = random.Random(0)
    env = {
        "base64": base64,
        "textwrap": textwrap,
        "randint": lambda a, b: rng.randint(a, b),
        # keyword_test.py flattens (extension, cases) pairs into (extension, line, secret) rows
        "parse_test_cases": lambda groups: [(ext, line, sec) for ext, rows in groups for line, sec in rows],
    }
    for path in git_ls(mirror, "Yelp/detect-secrets", base):
        if not path.endswith("_test.py") or "high_entropy" in path or "base_test" in path:
            continue
        plugin = Path(path).name[: -len("_test.py")]
        if plugin not in DS_CLAIMED:
            continue
        only = {"plugins_used": [{"name": _plugin_class(plugin)[0]}]}
        plugin_obj = _plugin_class(plugin)[1]()
        for names, values, line in parametrized(git_show(mirror, "Yelp/detect-secrets", path), dict(env)):
            for row in values:
                row = row if isinstance(row, tuple) else (row,)
                row = dict(zip(names, row, strict=False))
                text = row.get("line", row.get("payload"))
                if not isinstance(text, str) or "file_content" in row:
                    continue
                if "expected_secret" in row:
                    secret = row["expected_secret"]
                elif "should_flag" in row:
                    secret = True if row["should_flag"] else None
                else:  # a list of lines that must all flag (`line` alone)
                    secret = True
                case = cases.setdefault(
                    text, {"origin": f"{path}:{line}", "plugin": plugin, "text": text, "spans": [], "positive": False}
                )
                case.setdefault("files", [])
                if "file_extension" in row:
                    case["files"].append(f"{row['file_extension']}:{'flag' if secret else 'no'}")
                if secret is None:
                    continue
                if secret is True:  # the plugin's own report names the value (no filters: its test asks it alone)
                    with transient_settings(only):
                        found = [s.secret_value for s in plugin_obj.analyze_line(filename="mock_filename", line=text)]
                        found = [f for f in found if f] or [s.secret_value for s in scan_line(text)]
                    secret = max(found, key=len) if found else text.strip()
                start = text.find(secret)
                if start < 0:
                    continue
                case["positive"] = True
                if [start, start + len(secret)] not in case["spans"]:
                    case["spans"].append([start, start + len(secret)])
    return list(cases.values())


# -------------------------------------------------------------------------------------------------- gitleaks

_GO_TOKEN = re.compile(
    r"""\s+|//[^\n]*|/\*.*?\*/|`[^`]*`|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\]|\\.)+'|\.\.\.|:=|[A-Za-z_][\w.]*|[0-9]+|.""",
    re.S,
)


def go_tokens(src: str) -> list[str]:
    return [t for t in _GO_TOKEN.findall(src) if t.strip() and not t.startswith(("//", "/*"))]


def go_string(tok: str) -> str:
    if tok.startswith("`"):
        return tok[1:-1]
    return ast.literal_eval(tok)


class Unknown(Exception):
    pass


_HELPERS = {
    "utils.Numeric": "[0-9]{%s}",
    "utils.Hex": "[a-f0-9]{%s}",
    "utils.AlphaNumeric": "[a-z0-9]{%s}",
    "utils.AlphaNumericExtendedShort": "[a-z0-9_-]{%s}",
    "utils.AlphaNumericExtended": "[a-z0-9=_\\-]{%s}",
    "utils.AlphaNumericExtendedLong": "[a-z0-9\\/=_\\+\\-]{%s}",
}

_SAMPLES = [  # utils.GenerateSampleSecrets' templates (read from cmd/generate/config/utils/generate.go)
    '{i}Token="{s}"',
    '{i}Token = "{s}"',
    "{i}Token={s}",
    "{i}Token = {s}",
    '{\n    "{i}_token": "{s}"\n}',
    '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}',
    "<{i}Token>\n    {s}\n</{i}Token>",
    "{i}_token: {s}",
    "{i}_token: '{s}'",
    '{i}_token: "{s}"',
    'string {i}Token = "{s}";',
    'var {i}Token string = "{s}"',
    '{i}Token := "{s}"',
    "{i}Token := `{s}`",
    'String {i}Token = "{s}";',
    'var {i}Token = "{s}"',
    '${i}Token .= "{s}"',
    "{i}Token = '{s}'",
    '{i}Token = "{s}"',
    'System.setProperty("{I}_TOKEN", "{s}")',
    '  "{i}Token" => "{s}"',
    '{i}_TOKEN = "{s}"',
    '{i}_TOKEN := "{s}"',
    '{i}_TOKEN ::= "{s}"',
    '{i}_TOKEN :::= "{s}"',
    '{i}_TOKEN ?= "{s}"',
]


def sample_regex(pattern: str, rng: random.Random) -> str:
    """A string the regex matches (gitleaks' `secrets.NewSecret`), drawn with `rng`."""
    from re import _parser as sre  # type: ignore[attr-defined]  # a data script, not the package

    pattern = pattern.replace("(?i)", "")

    def draw(seq: Any) -> str:
        out = []
        for op, av in seq:
            name = str(op)
            if name == "LITERAL":
                out.append(chr(av))
            elif name == "IN":
                chars: list[str] = []
                for iop, iav in av:
                    if str(iop) == "LITERAL":
                        chars.append(chr(iav))
                    elif str(iop) == "RANGE":
                        chars += [chr(c) for c in range(iav[0], iav[1] + 1)]
                    elif str(iop) == "CATEGORY":
                        chars += list(
                            "abcdefghijklmnopqrstuvwxyz0123456789" if "DIGIT" not in str(iav) else "0123456789"
                        )
                out.append(rng.choice(chars))
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                lo, hi, sub = av
                n = lo if hi > lo + 8 or hi == sre.MAXREPEAT else rng.randint(lo, hi)
                n = max(n, lo)
                out += [draw(sub) for _ in range(n)]
            elif name == "SUBPATTERN":
                out.append(draw(av[-1]))
            elif name == "BRANCH":
                out.append(draw(av[1][0]))
            elif name == "ANY":
                out.append(rng.choice("abcdef0123"))
            elif name in ("AT",):
                pass
            else:
                raise Unknown(name)
        return "".join(out)

    return draw(sre.parse(pattern))


class GoFunc:
    """Evaluates the string expressions of one rule function: literals, `+`, `fmt.Sprintf`, the utils helpers,
    `secrets.NewSecret`, `GenerateSampleSecret(s)`, local variables and `append`."""

    def __init__(self, toks: list[str], rng: random.Random) -> None:
        self.toks, self.i, self.rng, self.vars = toks, 0, rng, {}
        self.skipped = 0
        self.samples: list[tuple[str, str]] = []  # (text, secret) for GenerateSampleSecrets

    def peek(self) -> str:
        return self.toks[self.i] if self.i < len(self.toks) else ""

    def take(self) -> str:
        tok = self.peek()
        self.i += 1
        return tok

    def args(self) -> list[Any]:
        assert self.take() == "("
        out: list[Any] = []
        while self.peek() != ")":
            out.append(self.expr())
            if self.peek() == "...":
                self.take()
            if self.peek() == ",":
                self.take()
        self.take()
        return out

    def atom(self) -> Any:
        tok = self.take()
        if tok.startswith(("`", '"')):
            return go_string(tok)
        if tok == "[" and self.peek() == "]":
            self.take()
            self.take()  # string
            return self.items()
        if tok in _HELPERS:
            (n,) = self.args()
            return _HELPERS[tok] % n
        if tok == "utils.Hex8_4_4_4_12":
            self.args()
            return "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if tok == "secrets.NewSecret":
            (p,) = self.args()
            return sample_regex(self.known(p), self.rng)
        if tok == "fmt.Sprintf":
            f, *rest = self.args()
            return self.known(f) % tuple(self.known(r) for r in rest)
        if tok == "strings.ToUpper":
            (s,) = self.args()
            return self.known(s).upper()
        if tok == "utils.GenerateSampleSecret":
            i, s = self.args()
            return f'{self.known(i)}_api_token = "{self.known(s)}"'
        if tok == "utils.GenerateSampleSecrets":
            i, s = (self.known(a) for a in self.args())
            out = []
            for t in _SAMPLES:
                text = t.replace("{i}", i).replace("{I}", i.upper()).replace("{s}", s)
                out.append(text)
                self.samples.append((text, s))
            return out
        if tok == "append":
            base, *rest = self.args()
            out = list(self.known(base))
            for r in rest:
                if isinstance(r, list):
                    out += r
                elif isinstance(r, str):
                    out.append(r)
                else:
                    self.skipped += 1
            return out
        if tok in self.vars:
            return self.vars[tok]
        if tok == "(":
            v = self.expr()
            self.take()
            return v
        if self.peek() == "(":  # some other call
            self.args()
        return Unknown(tok)

    def known(self, v: Any) -> Any:
        if isinstance(v, Unknown):
            raise v
        return v

    def expr(self) -> Any:
        v = self.atom()
        while self.peek() == "+":
            self.take()
            w = self.atom()
            v = v + w if isinstance(v, str) and isinstance(w, str) else Unknown("+")
        return v

    def items(self) -> list[str]:
        assert self.take() == "{"
        out: list[str] = []
        while self.peek() not in ("}", ""):
            start = self.i
            try:
                v = self.expr()
            except (Unknown, AssertionError, TypeError, ValueError):
                v = Unknown("item")
                self.i = start + 1
            if isinstance(v, str):
                out.append(v)
            elif isinstance(v, list):
                out += v
            else:
                self.skipped += 1
                while self.peek() not in (",", "}", ""):
                    self.take()
            if self.peek() == ",":
                self.take()
        self.take()
        return out

    def run(self) -> None:
        while self.i < len(self.toks):
            tok = self.take()
            if re.fullmatch(r"[A-Za-z_]\w*", tok) and self.peek() in (":=", "="):
                self.take()
                start = self.i
                try:
                    self.vars[tok] = self.known(self.expr())
                except (Unknown, AssertionError, TypeError, ValueError, IndexError):
                    self.i = start


# Rule ids whose format we claim, by prefix -> our entity. Discord's rules are a labelled value (`discordToken =
# "…"`): their samples are the secrets-in-code family LABELED_SECRET claims. Other providers' rules are not taken.
GITLEAKS_CLAIMED = {
    "aws-access-token": "AWS_ACCESS_KEY",
    "github-": "GITHUB_TOKEN",
    "gitlab-": "GITLAB_TOKEN",
    "slack-webhook": "SLACK_WEBHOOK",
    "slack-": "SLACK_TOKEN",
    "stripe-access-token": "STRIPE_KEY",
    "openai-api-key": "OPENAI_KEY",
    "anthropic-": "ANTHROPIC_KEY",
    "npm-access-token": "NPM_TOKEN",
    "pypi-upload-token": "PYPI_TOKEN",
    "sendgrid-api-token": "SENDGRID_KEY",
    "twilio-api-key": "TWILIO_KEY",
    "telegram-bot-api-token": "TELEGRAM_BOT_TOKEN",
    "gcp-api-key": "GOOGLE_API_KEY",
    "jwt": "JWT",
    "private-key": "PRIVATE_KEY",
    "discord-": "LABELED_SECRET",
}


def claimed(rule_id: str) -> str | None:
    for prefix, entity in GITLEAKS_CLAIMED.items():
        if rule_id == prefix or (prefix.endswith("-") and rule_id.startswith(prefix)):
            return entity
    return None


def gitleaks(mirror: Path) -> list[dict[str, Any]]:
    import tomllib

    import regex

    config = tomllib.loads(git_show(mirror, "gitleaks/gitleaks", "config/gitleaks.toml"))
    rules = {r["id"]: r for r in config["rules"]}
    cases: list[dict[str, Any]] = []
    base = "cmd/generate/config/rules"
    for path in git_ls(mirror, "gitleaks/gitleaks", base):
        if not path.endswith(".go"):
            continue
        src = git_show(mirror, "gitleaks/gitleaks", path)
        for m in re.finditer(r"\nfunc (\w+)\(\)[^{]*\{(.*?)\n\}", src, re.S):
            body = m.group(2)
            rid = re.search(r'RuleID:\s*"([^"]+)"', body)
            if not rid or rid.group(1) not in rules:
                continue
            rule_id = rid.group(1)
            func = GoFunc(go_tokens(body), random.Random(rule_id))
            func.run()
            tps, fps = func.vars.get("tps", []), func.vars.get("fps", [])
            entity = claimed(rule_id)
            generated = dict(func.samples)
            rx = rules[rule_id].get("regex")
            try:
                compiled = regex.compile(rx.replace("\\z", "\\Z")) if rx else None
            except regex.error:
                compiled = None
            group = rules[rule_id].get("secretGroup", 0)
            line = src[: m.start()].count("\n") + 2
            for text in tps if isinstance(tps, list) else []:
                if entity is None:
                    continue
                secret = generated.get(text)
                spans = []
                if secret is not None:
                    start = text.find(secret)
                    spans = [[start, start + len(secret)]]
                elif compiled is not None:
                    for mm in compiled.finditer(text):
                        g = group or (1 if mm.re.groups >= 1 and mm.group(1) else 0)
                        if mm.group(g):
                            spans.append([mm.start(g), mm.end(g)])
                if not spans:
                    continue
                cases.append(
                    {
                        "origin": f"{path}:{line} ({rule_id})",
                        "rule": rule_id,
                        "entity": entity or "LABELED_SECRET",
                        "text": text,
                        "spans": spans,
                        "positive": True,
                    }
                )
            if entity is not None:
                for text in fps if isinstance(fps, list) else []:
                    cases.append(
                        {
                            "origin": f"{path}:{line} ({rule_id})",
                            "rule": rule_id,
                            "entity": entity,
                            "text": text,
                            "spans": [],
                            "positive": False,
                        }
                    )
            if func.skipped:
                print(f"  {rule_id}: {func.skipped} items not evaluated", file=sys.stderr)
    return cases


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", type=Path, required=True)
    ap.add_argument("--only", default="presidio,detect_secrets,gitleaks")
    a = ap.parse_args()
    for name in a.only.split(","):
        cases = {"presidio": presidio, "detect_secrets": detect_secrets, "gitleaks": gitleaks}[name](a.mirror)
        for c in cases:
            c.setdefault("positive", bool(c["spans"]))
        out = HERE / f"{name}.json"
        out.write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        pos = sum(c["positive"] for c in cases)
        print(f"{name}: {len(cases)} cases, {pos} positive -> {out}")


if __name__ == "__main__":
    main()
