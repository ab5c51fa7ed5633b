"""A HOME folder in which Guardrails AI imports and runs offline, made fresh for a test run (never in the tree).

Why a folder of its own: Guard() re-reads `~/.guardrailsrc` on every construction (guard.configure() would not
stick), guardrails' import calls nltk.download("punkt") when nltk is installed and tokenizers/punkt is missing,
and whatever else runs under that HOME (Chromium, dconf) writes into it.
"""

from __future__ import annotations

from pathlib import Path


def make_offline_home(home: Path) -> dict[str, str]:
    """Writes the rc file (metrics and remote inferencing off) and an empty punkt folder under `home`; returns
    the environment variables that point Guardrails AI, nltk and litellm at them."""
    home.mkdir(parents=True, exist_ok=True)
    (home / ".guardrailsrc").write_text("enable_metrics=false\nuse_remote_inferencing=false\n", encoding="utf-8")
    (home / "nltk_data" / "tokenizers" / "punkt").mkdir(parents=True, exist_ok=True)
    return {"HOME": str(home), "NLTK_DATA": str(home / "nltk_data"), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
