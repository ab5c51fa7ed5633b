"""`sluicegate replay` end to end: the installed console script run as a subprocess, its exit codes and JSON."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.cli.support import EXAMPLES, ROOT, replay_json, rows_by_id, run_cli, sluicegate_command, write_jsonl

LIB = ["The library opens at nine and closes at six.", "Late fees were abolished in 2021."]


def rec(rid: str, answer: str | None = None, **extra: object) -> dict[str, object]:
    out: dict[str, object] = {"id": rid, "question": "When does it open?", "language": "en", "sources": LIB}
    if answer is not None:
        out["answer"] = answer
    out.update(extra)
    return out


def test_the_shipped_examples_come_out_as_labelled_but_the_documented_false_stop() -> None:
    proc, doc = replay_json(str(EXAMPLES / "replay" / "answers.jsonl"))
    assert proc.returncode == 0
    rows = rows_by_id(doc)
    assert len({r["language"] for r in rows.values()}) >= 5
    wrong = {rid: r["verdict"] for rid, r in rows.items() if r["verdict"] != "ok"}
    # "Capt." is not in the abbreviation list: the splitter ends a 12-word "sentence" there (docs/splitter.md).
    assert wrong == {"en-abbreviation": "false_stop"}
    assert doc["false_stops"] == ["en-abbreviation"]
    assert not doc["chunk_dependent"], "the default pipeline keeps the contract on every example"
    t = doc["totals"]
    assert t["records"] == len(rows) and t["invalid_lines"] == 0
    assert t["released"] + t["stopped"] + t["refused"] + t["truncated"] == t["records"]
    assert t["stopped"] == sum(t["stopped_by_code"].values())
    assert set(t["stopped_by_code"]) == {
        "citation_missing",
        "citation_out_of_range",
        "first_person",
        "unsupported_value",
    }
    assert rows["en-truncated"]["outcome"] == "truncated" and rows["en-truncated"]["truncated"] is True
    assert rows["en-split-email"]["shown"] == "Access is granted by <EMAIL_ADDRESS> within two days."
    assert "sk-proj" not in json.dumps(doc), "the split key is redacted everywhere in the report"


def test_a_false_stop_is_reported_with_its_rule_the_shown_characters_and_the_blocked_sentence(tmp_path: Path) -> None:
    answer = "The library opens at nine [S1]. Late fees ended in 2019 [S2]. They return soon [S2]."
    path = write_jsonl(tmp_path / "a.jsonl", [rec("fs", chunks=[answer[:20], answer[20:]], expected="release")])
    proc, doc = replay_json(str(path))
    assert proc.returncode == 0, "without --baseline the exit code is 0 whatever was found"
    row = doc["records"][0]
    assert doc["false_stops"] == ["fs"] and doc["totals"]["false_stops"] == 1
    assert (row["outcome"], row["codes"], row["verdict"]) == ("stopped", ["unsupported_value"], "false_stop")
    assert row["shown"] == "The library opens at nine."
    assert row["shown_chars"] == len("The library opens at nine.")
    assert "2019" not in row["shown"] and "2019" not in row["notice"]
    assert row["server_side"]["blocked_sentence"] == "Late fees ended in 2019 [S2]. "
    assert row["server_side"]["violations"] == [
        {"code": "unsupported_value", "detail": "not in the cited sources: 2019"}
    ]
    assert "false stops" in proc.stderr  # the table goes to stderr when the JSON takes stdout


def test_outcomes_are_counted_by_code_refusal_and_truncation(tmp_path: Path) -> None:
    records = [
        rec("ok", "It opens at nine [S1]."),
        rec("first", "It opens at nine [S1]. I think it is nice."),
        rec("range", "It opens at nine [S3]."),
        rec("refusal", chunks=["NO_AN", "SWER"], expected="refuse"),
        rec("cut", chunks=["It opens at nine [S1].", " Late fees were abol"], truncated=True),
        rec("miss", "It opens at nine [S1].", expected="stop"),
    ]
    proc, doc = replay_json(str(write_jsonl(tmp_path / "a.jsonl", records)))
    t = doc["totals"]
    assert (t["released"], t["stopped"], t["refused"], t["truncated"]) == (2, 2, 1, 1)
    assert t["stopped_by_code"] == {"citation_out_of_range": 1, "first_person": 1}
    assert t["by_language"] == {"en": {"refused": 1, "released": 2, "stopped": 2, "truncated": 1}}
    assert (t["labelled"], t["as_expected"], t["missed_stops"]) == (2, 1, 1)
    rows = rows_by_id(doc)
    assert rows["cut"]["shown"] == "It opens at nine." and rows["cut"]["outcome"] == "truncated"
    assert rows["refusal"]["shown"].startswith("The sources available")


def test_bad_lines_are_reported_with_their_line_number_and_the_run_goes_on(tmp_path: Path) -> None:
    lines = [
        rec("a", "It opens at nine [S1]."),
        "",  # blank: skipped, but still counted as a line
        '{"id": "broken", "question": ',
        {"id": "nolang", "question": "q", "sources": [], "answer": "x"},
        rec("klingon", "x", language="tlh"),
        rec("noanswer"),
        rec("a", "duplicate id"),
        "[1, 2]",
        rec("b", "It opens at nine [S1]."),
    ]
    path = write_jsonl(tmp_path / "a.jsonl", lines)
    proc, doc = replay_json(str(path))
    assert proc.returncode == 0
    assert [r["id"] for r in doc["records"]] == ["a", "b"]
    assert [r["line"] for r in doc["records"]] == [1, 9]
    invalid = {e["line"]: e["error"] for e in doc["invalid"]}
    assert sorted(invalid) == [3, 4, 5, 6, 7, 8]
    assert invalid[3].startswith("invalid JSON")
    assert "language" in invalid[4] and "tlh" in invalid[5] and "answer" in invalid[6]
    assert "already used on line 1" in invalid[7]
    assert doc["totals"]["invalid_lines"] == 6
    assert f"{path}:5: unknown language 'tlh'" in proc.stderr


def test_a_line_that_is_not_utf8_is_one_bad_line(tmp_path: Path) -> None:
    good = json.dumps(rec("a", "It opens at nine [S1].")).encode()
    path = tmp_path / "a.jsonl"
    path.write_bytes(good + b"\n" + b'{"id": "\xff"}\n' + good.replace(b'"a"', b'"b"') + b"\n")
    _, doc = replay_json(str(path))
    assert [r["id"] for r in doc["records"]] == ["a", "b"]
    assert doc["invalid"][0]["line"] == 2 and "UTF-8" in doc["invalid"][0]["error"]


def test_unusable_input_is_a_one_line_error_with_exit_2(tmp_path: Path) -> None:
    good = write_jsonl(tmp_path / "a.jsonl", [rec("a", "x")])
    cases = [
        ("replay", str(tmp_path / "missing.jsonl")),
        ("replay", str(tmp_path)),  # a directory is not readable as a file
        ("replay", str(good), "--filter", "no_such_module:make"),
        ("replay", str(good), "--filter", "tests.cli.filters:no_such_factory"),
        ("replay", str(good), "--filter", "nocolon"),
        ("replay", str(good), "--filter", "tests.cli.filters:not_a_filter"),
        ("replay", str(good), "--sizes", "0,whole"),
        ("replay", str(good), "--baseline", str(tmp_path / "nope.json")),
        ("replay", str(good), "--baseline", str(good)),  # JSONL is not a report
    ]
    for args in cases:
        proc = run_cli(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert proc.stdout == "", args
        assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("sluicegate replay: "), args


def test_the_invariance_flag_fires_on_a_chunk_dependent_filter(tmp_path: Path) -> None:
    records = [
        rec("whole-word", chunks=["this is forbidden here"]),  # whole piece: stops; 1 and 4: slips through
        rec("split-word", chunks=["this is forb", "idden here"]),  # recorded: slips through; whole: stops
        rec("clean", chunks=["nothing to see"]),
    ]
    path = write_jsonl(tmp_path / "a.jsonl", records)
    _, doc = replay_json(str(path), "--filter", "tests.cli.filters:per_piece")
    rows = rows_by_id(doc)
    assert rows["whole-word"]["chunk_dependent"] and set(rows["whole-word"]["differs_at"]) == {"1", "4"}
    assert rows["split-word"]["chunk_dependent"] and rows["split-word"]["differs_at"] == ["whole"]
    assert not rows["clean"]["chunk_dependent"]
    assert doc["chunk_dependent"] == ["whole-word", "split-word"] and doc["totals"]["chunk_dependent"] == 2
    assert rows["whole-word"]["chunkings"]["1"]["outcome"] == "complete"
    assert rows["whole-word"]["chunkings"]["recorded"]["outcome"] == "stopped"


def test_a_chunk_invariant_custom_filter_is_not_flagged_and_sizes_are_configurable(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", [rec("w", chunks=["this is forb", "idden here"])])
    proc = run_cli("replay", str(path), "--filter", "tests.cli.filters:WordStop", "--sizes", "1,2,3,5,whole")
    assert proc.returncode == 0, proc.stderr
    _, doc = replay_json(str(path), "--filter", "tests.cli.filters:WordStop", "--sizes", "1,2,3,5,whole")
    assert doc["chunkings"] == ["recorded", "1", "2", "3", "5", "whole"]
    row = doc["records"][0]
    assert (row["outcome"], row["codes"], row["chunk_dependent"]) == ("stopped", ["forbidden_word"], False)
    assert row["shown"] == "this is "


def test_a_filter_that_raises_is_reported_on_its_record_and_the_run_goes_on(tmp_path: Path) -> None:
    records = [rec("x", "fine"), {**rec("y", "fine"), "question": "boom"}, rec("z", "fine")]
    _, doc = replay_json(str(write_jsonl(tmp_path / "a.jsonl", records)), "--filter", "tests.cli.filters:explodes")
    rows = rows_by_id(doc)
    assert [rows[k]["outcome"] for k in "xyz"] == ["released", "error", "released"]
    assert rows["y"]["error"] == "RuntimeError: factory failed" and doc["totals"]["errors"] == 1


def test_baseline_exits_1_on_a_new_false_stop_only(tmp_path: Path) -> None:
    records = [
        rec("grounded", "The library opens at nine [S1].", expected="release"),
        rec("known", "It is open at nine [S1]. I like it.", expected="release"),  # a false stop in both versions
    ]
    path = write_jsonl(tmp_path / "a.jsonl", records)
    before = tmp_path / "before.json"
    assert run_cli("replay", str(path), "--json", str(before)).returncode == 0
    assert json.loads(before.read_text("utf-8"))["false_stops"] == ["known"]

    same = run_cli("replay", str(path), "--baseline", str(before))
    assert same.returncode == 0, same.stdout + same.stderr
    assert "0 new false stops" in same.stdout

    # "Version B" also stops on the word "opens": "grounded" becomes a new false stop.
    after = run_cli("replay", str(path), "--filter", "tests.cli.filters:stricter", "--baseline", str(before))
    assert after.returncode == 1, after.stdout + after.stderr
    assert "1 new false stop (grounded)" in after.stdout
    _, doc = replay_json(str(path), "--filter", "tests.cli.filters:stricter", "--baseline", str(before))
    assert doc["baseline"]["new_false_stops"] == ["grounded"]
    assert doc["baseline"]["changed"] == [
        {"id": "grounded", "was": "released", "now": "stopped", "codes": ["forbidden_word"]}
    ]

    # And back: B as the baseline, A fixes the false stop it introduced.
    b = tmp_path / "b.json"
    run_cli("replay", str(path), "--filter", "tests.cli.filters:stricter", "--json", str(b))
    _, doc = replay_json(str(path), "--baseline", str(b))
    assert doc["baseline"]["new_false_stops"] == [] and doc["baseline"]["fixed_false_stops"] == ["grounded"]


def test_sse_recordings_replay_in_their_recorded_chunking() -> None:
    proc, doc = replay_json("--format", "sse", str(EXAMPLES / "replay" / "answers_sse.jsonl"))
    assert proc.returncode == 0 and not doc["invalid"]
    rows = rows_by_id(doc)
    assert all(r["verdict"] == "ok" for r in rows.values()), {k: r["verdict"] for k, r in rows.items()}
    assert rows["openai-grounded"]["pieces"] == 4  # one piece per recorded text event
    # No [DONE], and finish_reason "length": both cut short by the provider.
    for rid in ("openai-cut", "openai-length"):
        assert (rows[rid]["outcome"], rows[rid]["truncated"], rows[rid]["shown"]) == (
            "truncated",
            True,
            "It opens at nine.",
        )
    assert rows["openai-invented"]["codes"] == ["unsupported_value"] and "2019" not in rows["openai-invented"]["shown"]
    assert rows["responses-fa-split-bytes"]["shown"] == "کتابخانه از ساعت ۸ صبح تا ۶ عصر باز است."
    assert rows["anthropic-email"]["shown"] == "Access is granted by <EMAIL_ADDRESS> within two days."


def test_broken_sse_recordings_are_bad_lines(tmp_path: Path) -> None:
    base = {"id": "x", "question": "q", "language": "en", "sources": LIB}
    ok = 'data: {"choices":[{"delta":{"content":"It opens at nine [S1]."}}]}\n\ndata: [DONE]\n\n'
    lines = [
        {**base, "id": "ok", "sse": [ok]},
        {**base, "id": "too-big", "sse": ["data: " + "x" * (1 << 20) + "\n\n"]},  # over the parser's 1 MiB event
        {**base, "id": "not-b64", "sse_b64": ["%%%"]},
        {**base, "id": "no-sse", "answer": "plain"},
        # "data: \xff\r\n\r\n": invalid UTF-8 reads as U+FFFD (the SSE rule), so the record is replayed, not bad
        {**base, "id": "bad-utf8", "sse_b64": ["ZGF0YTog/w0KDQo="]},
    ]
    _, doc = replay_json("--format", "sse", str(write_jsonl(tmp_path / "a.jsonl", lines)))
    assert [r["id"] for r in doc["records"]] == ["ok", "bad-utf8"] and doc["records"][0]["outcome"] == "released"
    errors = {e["line"]: e["error"] for e in doc["invalid"]}
    assert "cannot be parsed" in errors[2] and "base64" in errors[3] and "'sse'" in errors[4]


def test_help_lists_the_subcommands_without_optional_imports() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0 and "replay" in proc.stdout and "eval" in proc.stdout
    proc = run_cli("replay", "--help")
    assert proc.returncode == 0 and "--baseline" in proc.stdout and "--format" in proc.stdout


def test_random_chunkings_are_seeded_per_record_and_catch_a_split_word(tmp_path: Path) -> None:
    # Recorded and at sizes 4 and whole the word arrives in one piece; only a cut inside it slips through.
    answer = "a forbidden thing"
    path = write_jsonl(tmp_path / "a.jsonl", [rec("w", chunks=[answer])])
    args = (str(path), "--filter", "tests.cli.filters:per_piece", "--sizes", "whole", "--random", "30")
    _, first = replay_json(*args)
    _, again = replay_json(*args)
    assert first == again, "the same file, seed and count give the same chunkings"
    row = first["records"][0]
    assert row["chunk_dependent"] and all(label.startswith("random#") for label in row["differs_at"])
    assert first["chunkings"][-1] == "random#30"
    _, other = replay_json(*args, "--seed", "7")
    assert other["records"][0]["differs_at"] != row["differs_at"]


def test_the_default_pipeline_keeps_the_contract_under_random_chunkings_of_the_examples() -> None:
    _, doc = replay_json(str(EXAMPLES / "replay" / "answers.jsonl"), "--random", "10")
    assert doc["chunk_dependent"] == [] and len(doc["chunkings"]) == 4 + 10


def test_without_the_cli_extra_the_commands_say_which_extra_to_install(tmp_path: Path) -> None:
    # A `rich` and a `yaml` that fail to import stand in for an install without the [cli] extra.
    for name in ("rich", "yaml"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("raise ImportError('not installed (simulated)')\n")
    good = write_jsonl(tmp_path / "a.jsonl", [rec("a", "x")])
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    for args in (["replay", str(good)], ["eval", str(EXAMPLES / "golden" / "golden.yaml")]):
        proc = subprocess.run([*sluicegate_command(), *args], capture_output=True, text=True, env=env, cwd=ROOT)
        assert proc.returncode == 2, proc.stderr
        assert "pip install 'sluicegate[cli]'" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert subprocess.run([*sluicegate_command(), "--help"], capture_output=True, env=env).returncode == 0


def test_json_the_decoder_refuses_beyond_syntax_is_one_bad_line(tmp_path: Path) -> None:
    """`json.loads` raises plain ValueError (an integer over 4300 digits) and RecursionError (deep nesting),
    not only JSONDecodeError: each is that line's error, never a traceback that ends the run."""
    lines = [
        rec("a", "It opens at nine [S1]."),
        '{"id": "huge", "n": ' + "1" * 5000 + "}",
        "[" * 100_000 + "]" * 100_000,
        rec("b", "It opens at nine [S1]."),
    ]
    path = write_jsonl(tmp_path / "a.jsonl", lines)
    proc, doc = replay_json(str(path))
    assert "Traceback" not in proc.stderr, proc.stderr
    assert [r["id"] for r in doc["records"]] == ["a", "b"]
    assert [e["line"] for e in doc["invalid"]] == [2, 3]
    assert all(e["error"].startswith("invalid JSON") for e in doc["invalid"])


def test_a_filter_module_that_fails_on_import_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "broken_guard.py").write_text('raise RuntimeError("configuration missing")\n')
    good = write_jsonl(tmp_path / "a.jsonl", [rec("a", "x")])
    proc = subprocess.run(
        [*sluicegate_command(), "replay", str(good), "--filter", "broken_guard:make"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "RuntimeError" in proc.stderr, proc.stderr


def test_a_filter_module_in_the_working_directory_is_found(tmp_path: Path) -> None:
    """`sluicegate replay --filter myguard:make` from the project's directory, as `uvicorn main:app` works:
    a console script does not put the working directory on sys.path by itself."""
    (tmp_path / "myguard.py").write_text(
        "from sluicegate import SentenceGate\n\ndef make(record):\n    return SentenceGate(record['sources'])\n"
    )
    good = write_jsonl(tmp_path / "a.jsonl", [rec("a", "It opens at nine [S1].")])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [*sluicegate_command(), "replay", str(good), "--filter", "myguard:make", "--json", "-"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["filter"] == "myguard:make" and doc["records"][0]["outcome"] == "released"


def test_a_filter_error_that_quotes_the_answer_reaches_the_reports_redacted(tmp_path: Path) -> None:
    secret = "jane.doe@example.com"
    path = write_jsonl(tmp_path / "a.jsonl", [rec("a", f"Write to {secret} [S1].")])
    html = tmp_path / "r.html"
    proc, doc = replay_json(str(path), "--filter", "tests.cli.filters:QuotingFailure", "--html", str(html))
    row = doc["records"][0]
    assert row["outcome"] == "error" and row["error"].startswith("ValueError: cannot judge")
    assert secret not in json.dumps(doc) and "<EMAIL_ADDRESS>" in row["error"]
    assert secret not in html.read_text("utf-8") and secret not in proc.stderr


def test_a_recorded_sse_event_nested_past_the_stack_is_a_bad_line(tmp_path: Path) -> None:
    base = {"id": "x", "question": "q", "language": "en", "sources": LIB}
    ok = 'data: {"choices":[{"delta":{"content":"It opens at nine [S1]."},"finish_reason":"stop"}]}\n\n'
    deep = "data: " + "[" * 100_000 + "]" * 100_000 + "\n\n"
    lines = [{**base, "id": "deep", "sse": [deep, ok]}, {**base, "id": "ok", "sse": [ok]}]
    proc, doc = replay_json("--format", "sse", str(write_jsonl(tmp_path / "a.jsonl", lines)))
    assert "Traceback" not in proc.stderr, proc.stderr
    assert [r["id"] for r in doc["records"]] == ["ok"]
    assert doc["invalid"][0]["line"] == 1 and "cannot be parsed" in doc["invalid"][0]["error"]


def test_record_ids_are_printed_as_text_not_as_terminal_markup(tmp_path: Path) -> None:
    """Ids, codes and file names are the user's data: `[/oops]` made rich raise MarkupError after the JSON
    was written (a traceback), and `[red]` restyled the table."""
    lines = [rec(rid, "It opens at nine [S1].", expected="stop") for rid in ("[/oops]", "[red]x")]  # missed stops
    path = write_jsonl(tmp_path / "[weird].jsonl", lines)
    proc = run_cli("replay", str(path))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "[/oops]" in proc.stdout and "[red]x" in proc.stdout and "[weird]" in proc.stdout
