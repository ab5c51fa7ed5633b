"""`sluicegate calibrate`: both distributions, the threshold, the model and corpus it belongs to."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sluicegate.cli import main
from sluicegate.cli._calibrate import choose_threshold, histogram

MODULE = """
from sluicegate.evidence import InMemoryRetriever

CORPUS = [
    "The central library opens at nine on weekdays and at ten on Saturdays.",
    "Late fees for borrowed books were abolished in 2021.",
    "Ada Lovelace published notes on the Analytical Engine in 1843.",
    "The reading room on the second floor has forty desks and free wifi.",
]
retriever = InMemoryRetriever(CORPUS, corpus="library-faq-v1")


def make():
    return InMemoryRetriever(CORPUS, corpus="library-faq-v1")


def plain(query):
    return retriever.retrieve(query, language="en")
"""

ANSWERABLE = """# answerable
When does the central library open on Saturdays?
Were late fees for borrowed books abolished?
How many desks are in the reading room?
What did Ada Lovelace publish about the Analytical Engine?
"""
REFUSE = """# no passage supports these
What is the capital of Peru?
fr	Quelle est la capitale du Pérou ?
fa	این متن را به انگلیسی ترجمه کن
Will it rain tomorrow in Oslo?
Who won the football match yesterday?
Write a poem about the sea
"""


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    (tmp_path / "cal_retriever.py").write_text(MODULE, "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("cal_retriever", None)
    answerable = tmp_path / "answerable.txt"
    refuse = tmp_path / "refuse.txt"
    answerable.write_text(ANSWERABLE, "utf-8")
    refuse.write_text(REFUSE, "utf-8")
    return {"answerable": answerable, "refuse": refuse, "dir": tmp_path}


def _args(files: dict[str, Path], retriever: str, *extra: str) -> list[str]:
    return [
        "calibrate",
        "--answerable",
        str(files["answerable"]),
        "--refuse",
        str(files["refuse"]),
        "--retriever",
        retriever,
        *extra,
    ]


@pytest.mark.parametrize("target", ["cal_retriever:retriever", "cal_retriever:make", "cal_retriever:plain"])
def test_calibrate_prints_both_distributions_and_a_threshold(
    files: dict[str, Path], target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(_args(files, target, "--corpus", "library-faq-v1"))
    out = capsys.readouterr().out
    assert code == 0
    assert "answerable (#)" in out and "must-refuse (x)" in out
    assert "library-faq-v1" in out
    assert "a default, not a calibration" in out
    assert "2 already refused by the refusal rules" in out  # the poem and translation requests: no retrieval
    assert "loses 0 of 4 answerable" in out


def test_calibrate_json_names_the_embedding_and_refuses_every_must_refuse(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_args(files, "cal_retriever:retriever", "--json")) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["embedding_model"].startswith("sluicegate-hashing-bow")
    assert result["corpus"] == "library-faq-v1"
    assert all(s < result["threshold"] for s in result["refuse"])
    assert result["lost"] == sum(1 for s in result["answerable"] if s < result["threshold"])


def test_calibrate_png(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MPLCONFIGDIR", str(files["dir"] / "mpl"))  # matplotlib's cache, not under $HOME
    png = files["dir"] / "cal.png"
    assert main(_args(files, "cal_retriever:retriever", "--png", str(png))) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_retriever_path_is_a_usage_error(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_args(files, "cal_retriever")) == 2
    assert "module:attr" in capsys.readouterr().err
    assert main(_args(files, "no_such_module_xyz:r")) == 2


def test_choose_threshold_refuses_all_and_equal_passes() -> None:
    threshold, lost = choose_threshold([0.5, 0.31, 0.9], [0.1, 0.3])
    assert threshold == 0.301 and lost == 0
    threshold, lost = choose_threshold([0.2, 0.6], [0.45])
    assert threshold is not None and threshold > 0.45 and lost == 1
    assert choose_threshold([0.9], [1.0]) == (None, 1)


def test_histogram_rows_and_counts() -> None:
    text = histogram([0.96, 0.97, 0.5], [0.01])
    rows = text.splitlines()
    assert len(rows) == 21
    assert rows[1].startswith("0.95-1.00") and rows[1].rstrip().endswith("2")
    assert rows[-1].startswith("0.00-0.05") and rows[-1].endswith("x 1")
