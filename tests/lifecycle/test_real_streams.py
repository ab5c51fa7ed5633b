"""Real recorded streams (fixtures/real) against the providers' own SDK accumulators, at every byte split.

What must hold for every stream (issue 23): a stream the SDK reports incomplete (no terminal event, an error,
`length`/`max_tokens`/`pause_turn`, a refusal) never validates, also cut at any event; what validates equals
what the SDK hands the application (call ids, names, arguments, text); nothing the SDK returns is dropped
without a rejection; every way of cutting the bytes gives the same result as the whole stream.
"""

from __future__ import annotations

import functools
import json
import logging
import random
from typing import Any

import pytest

from sluicegate.lifecycle import Generation, OpenAIResponsesReader, State
from sluicegate.sse import SSEParser

from .real_streams import BY_FILE, MANIFEST, OPEN_SCHEMA, REAL, STREAMS, feed, generation, load, sdk_result, summary

# The openai SDK's own models warn while serializing some hosted-tool items (its union of item types).
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

# The SDK's accumulator raises on these recordings, so it hands the application nothing to compare with.
SDK_RAISES = {
    "chat/pai_openrouter_annotations.sse": RuntimeError,  # OpenRouter's annotations deltas carry no `index`
    "responses/vercel_parallel_tool_call_wrapper_1.jsonl": ValueError,  # a recorded line is not JSON
}
# The SDK returns a result; we refuse it, and why (each is a contract break the SDK does not check).
STRICTER = {
    # Hand-made fixture whose text deltas do not add up to `output_text.done`: the copies disagree.
    "responses/vercel_openai_shell_container_1.jsonl": "integrity_mismatch",
    # GitHub Copilot gives every event a new id; deltas name no item that was opened.
    "responses/vercel_github_copilot_id_rotation_1.jsonl": "provider_id_changed",
    # A second message spliced in mid-call: the SDK returns the first call cut at `{"value":"Spark` as a
    # partial-mode parse, plus the second.
    "anthropic/vercel_spliced_message_start.jsonl": "second_message",
    # n=3: the SDK returns three choices; we read one completion per generation.
    "chat/openai_python_parse_pydantic_model_multiple_choices.sse": "multiple_choices_unsupported",
}
SMALL = 2500  # bytes: below this every split position is tried; above, a seeded sample plus 1-byte reads
SAMPLED_BYTES = 600_000  # per big stream: as many sampled splits as fit (10 to 60), plus 1-byte reads
PREFIXES = 25  # event boundaries tried per stream (all of them for short streams)


@functools.cache
def _names(key: str) -> frozenset[str]:
    return frozenset(_sdk_names(key))


def _sdk_names(key: str) -> set[str]:
    try:
        return {name for _, name, _ in sdk_result(STREAMS[key], load(STREAMS[key])).calls}
    except Exception:
        return set()


def _ours(key: str, cuts: Any = ()) -> Generation:
    return feed(generation(STREAMS[key], _names(key)), load(STREAMS[key]), cuts)


def _sdk_accepts(result: Any) -> bool:
    return bool(result.complete and not result.refusal and result.choices == 1 and not result.unsupported)


def test_every_fixture_has_its_origin_and_the_collection_is_broad() -> None:
    on_disk = {p.relative_to(REAL).as_posix() for p in REAL.rglob("*") if p.is_file()}
    assert on_disk == {e["file"] for e in MANIFEST} | {"manifest.json", "README.md"}
    readme = (REAL / "README.md").read_text()
    for entry in MANIFEST:
        assert entry["repo"] and len(entry["commit"]) == 40 and entry["path"] and entry["license"]
        assert entry["file"] in readme and entry["commit"] in readme
    per_provider = {p: sum(1 for e in MANIFEST if e["provider"] == p) for p in ("chat", "responses", "anthropic")}
    assert min(per_provider.values()) >= 20, per_provider


@pytest.mark.parametrize("key", sorted(STREAMS))
def test_agrees_with_the_provider_sdk(key: str) -> None:
    entry, data = STREAMS[key], load(STREAMS[key])
    if key in SDK_RAISES:
        with pytest.raises(SDK_RAISES[key]):
            sdk_result(entry, data)
        gen = _ours(key)
        assert gen.state in (State.VALIDATED, State.FAILED)  # ours decides alone; it never crashes
        return
    sdk = sdk_result(entry, data)
    gen = _ours(key)
    if gen.state == State.VALIDATED:
        assert _sdk_accepts(sdk), (sdk, gen.rejections)
        assert [(c.call_id, c.name, json.loads(c.canonical)) for c in gen.tool_calls] == sdk.calls
        assert gen.text == sdk.text
        return
    assert gen.rejections, "a refused generation says why"
    if _sdk_accepts(sdk):
        assert key in STRICTER, (key, gen.state, gen.rejections)
        assert STRICTER[key] in [r.code for r in gen.rejections]
    for kind in sdk.unsupported:  # an item nobody models is named in the rejection, never dropped
        assert ("unsupported_output_item", kind) in [(r.code, r.detail) for r in gen.rejections]


def _split_points(data: bytes, key: str) -> list[int]:
    if len(data) <= SMALL:
        return list(range(1, len(data)))
    rng = random.Random(key)
    return sorted(rng.sample(range(1, len(data)), max(10, min(60, SAMPLED_BYTES // len(data)))))


@pytest.mark.parametrize("key", sorted(STREAMS))
def test_every_byte_split_gives_the_whole_stream_result(key: str) -> None:
    entry, data = STREAMS[key], load(STREAMS[key])
    names = _names(key)
    whole = summary(feed(generation(entry, names), data))
    for cut in _split_points(data, key):
        assert summary(feed(generation(entry, names), data, [cut])) == whole, cut
    one_byte = feed(generation(entry, names), data, range(1, len(data)))
    assert summary(one_byte) == whole


@pytest.mark.parametrize("key", sorted(STREAMS))
def test_parsed_events_and_dicts_give_the_same_result(key: str) -> None:
    entry, data = STREAMS[key], load(STREAMS[key])
    names = _names(key)
    events = SSEParser().feed(data)
    by_events = generation(entry, names)
    for event in events:
        by_events.feed(event)
    by_events.close()
    whole = feed(generation(entry, names), data)
    assert by_events.state == whole.state
    assert [c.canonical for c in by_events.tool_calls] == [c.canonical for c in whole.tool_calls]
    if all(_is_json(e.data) for e in events) and entry["provider"] != "anthropic":
        by_dicts = generation(entry, names)
        for event in events:
            if event.data.strip() != "[DONE]":
                by_dicts.feed(json.loads(event.data))
        by_dicts.close()
        assert by_dicts.state == whole.state or whole.telemetry.unterminated_events
        assert [c.canonical for c in by_dicts.tool_calls] == [c.canonical for c in whole.tool_calls]


def _is_json(data: str) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return data.strip() == "[DONE]"
    return True


def _event_ends(data: bytes) -> list[int]:
    """Byte offsets just after each event's blank line."""
    ends, pos = [], 0
    while True:
        at = data.find(b"\n\n", pos)
        if at < 0:
            return ends
        pos = at + 2
        ends.append(pos)


@pytest.mark.parametrize("key", sorted(set(STREAMS) - set(SDK_RAISES)))
def test_a_stream_cut_at_any_event_validates_only_if_the_sdk_says_complete(key: str) -> None:
    entry, data = STREAMS[key], load(STREAMS[key])
    names = _names(key)
    ends = _event_ends(data)
    if len(ends) > PREFIXES:
        ends = sorted(random.Random(key).sample(ends, PREFIXES - 5) + ends[-5:])
    for end in ends:
        prefix = data[:end]
        gen = feed(generation(entry, names), prefix)
        if gen.state == State.VALIDATED:
            sdk = sdk_result(entry, prefix)
            assert _sdk_accepts(sdk), (end, sdk)
            assert [(c.call_id, c.name, json.loads(c.canonical)) for c in gen.tool_calls] == sdk.calls
        else:
            assert gen.tool_calls == () and gen.text is None


# -- the issue's points on real streams ---------------------------------------------------------------------

SERVER_TOOL_STREAMS = sorted(
    k
    for k in STREAMS
    if k.startswith("anthropic/") and any(b in load(STREAMS[k]) for b in (b'"server_tool_use"', b'"mcp_tool_use"'))
)


def test_the_collection_has_the_server_tool_streams_the_issue_names() -> None:
    blob = b"".join(load(STREAMS[k]) for k in SERVER_TOOL_STREAMS)
    for tool in (b"web_search", b"web_fetch", b"code_execution", b"tool_search", b"mcp_tool_use"):
        assert tool in blob
    assert len(SERVER_TOOL_STREAMS) >= 9


@pytest.mark.parametrize("key", SERVER_TOOL_STREAMS)
def test_anthropic_server_tools_are_buffered_not_run_and_never_fail(key: str) -> None:
    gen = _ours(key)
    # Validated, or ended for the provider's own reason (pause_turn, a refusal, a cut), never a contract error.
    assert {(r.code, r.detail) for r in gen.rejections} <= {
        ("incomplete", "pause_turn"),
        ("incomplete", "unterminated_event"),
        ("provider_failed", "refusal"),
    }, gen.rejections
    served = {n for n in _names(key)}  # the SDK's tool_use blocks only
    assert {c.name for c in gen.tool_calls} <= served
    assert all(not c.call_id.startswith("srvtoolu_") for c in gen.tool_calls)  # server tool ids never surface


def test_pause_turn_is_incomplete_and_resumable() -> None:
    gen = _ours("anthropic/pai_pause_turn_web_search_streaming_vcr__0.sse")
    assert gen.state == State.INCOMPLETE
    assert gen.telemetry.terminal_reason == "pause_turn"
    assert gen.resumable
    assert [(r.code, r.detail) for r in gen.rejections] == [("incomplete", "pause_turn")]


CLIENT_ITEMS = {
    "responses/vercel_openai_local_shell_tool_1.jsonl": "local_shell_call",
    "responses/vercel_openai_shell_tool_1.jsonl#0": "shell_call",
    "responses/vercel_openai_apply_patch_tool_1.jsonl": "apply_patch_call",
    "responses/vercel_openai_apply_patch_tool_delete_1.jsonl": "apply_patch_call",
    "responses/vercel_openai_client_tool_search_1.jsonl": "tool_search_call",
    "responses/pai_client_tool_search.sse": "tool_search_call",
    "responses/vercel_openai_custom_tool_1.jsonl": "write_sql",  # a custom tool is named by its own name
}


@pytest.mark.parametrize("key", sorted(CLIENT_ITEMS))
def test_client_items_are_tool_calls_when_declared_and_rejected_by_name_when_not(key: str) -> None:
    name = CLIENT_ITEMS[key]
    declared = _ours(key)
    assert declared.state == State.VALIDATED, declared.rejections
    assert name in [c.name for c in declared.tool_calls]
    undeclared = feed(generation(STREAMS[key], _names(key) - {name}), load(STREAMS[key]))
    assert undeclared.state == State.FAILED
    assert ("unknown_tool", name) in [(r.code, r.tool) for r in undeclared.rejections]
    assert undeclared.tool_calls == ()


def test_a_custom_tool_call_arrives_as_its_input() -> None:
    gen = _ours("responses/vercel_openai_custom_tool_1.jsonl")
    assert json.loads(gen.tool_calls[0].canonical) == {"input": "SELECT * FROM users WHERE age > 25"}


def test_a_hosted_shell_call_is_the_providers_not_ours() -> None:
    # The container shell call is answered in the same response by its shell_call_output.
    gen = feed(
        generation(STREAMS["responses/vercel_openai_shell_container_1.jsonl"], []),
        load(STREAMS["responses/vercel_openai_shell_container_1.jsonl"]),
    )
    assert "unknown_tool" not in [r.code for r in gen.rejections]


@pytest.mark.parametrize(
    ("key", "code"),
    [
        ("responses/vercel_openai_error_1.jsonl", "insufficient_quota"),
        ("chat/pai_groq_tool_use_failed_error.sse", "tool_use_failed"),
    ],
)
def test_provider_error_codes_reach_the_rejection(key: str, code: str) -> None:
    gen = _ours(key)
    assert gen.state == State.FAILED
    failure = next(r for r in gen.rejections if r.code == "provider_failed")
    assert failure.provider_code == code and failure.detail == code
    assert f"provider_failed:{code}" in gen.telemetry.rejection_codes


@pytest.mark.parametrize("key", ["responses/pai_stream_0_unnumbered.sse", "responses/pai_stream_1_unnumbered.sse"])
def test_responses_without_sequence_numbers_are_read_in_arrival_order(key: str) -> None:
    assert b"sequence_number" not in load(STREAMS[key])
    gen = _ours(key)
    assert gen.state == State.VALIDATED
    reader = gen.reader
    assert isinstance(reader, OpenAIResponsesReader) and reader.numbered is False and reader.cursor is None


def test_an_unnumbered_replay_is_caught_structurally() -> None:
    key = "responses/pai_stream_0_unnumbered.sse"
    events = [json.loads(e.data) for e in SSEParser().feed(load(STREAMS[key]))]
    delta = next(i for i, e in enumerate(events) if e["type"] == "response.function_call_arguments.delta")
    added = next(i for i, e in enumerate(events) if e["type"] == "response.output_item.added")
    replayed = events[: added + 1] + [events[added]] + events[added + 1 : delta + 1] + events[delta:]
    gen = generation(STREAMS[key], _names(key))
    for event in replayed:
        gen.feed(event)
    gen.close()
    assert gen.state == State.FAILED  # the replayed delta no longer equals the arguments' `.done` copy
    assert "integrity_mismatch" in [r.code for r in gen.rejections]
    assert gen.telemetry.duplicates_dropped >= 1  # the repeated output_item.added was dropped


@pytest.mark.parametrize(
    "key", ["anthropic/anthropic_sdk_basic_response.sse", "anthropic/anthropic_sdk_tool_use_response.sse"]
)
def test_an_event_without_its_final_blank_line_is_counted_and_logged(
    key: str, caplog: pytest.LogCaptureFixture
) -> None:
    data = load(STREAMS[key])
    assert not data.endswith(b"\n\n")
    with caplog.at_level(logging.WARNING, logger="sluicegate.lifecycle"):
        gen = _ours(key)
    assert gen.state == State.INCOMPLETE
    assert gen.telemetry.unterminated_events == 1
    assert gen.telemetry.terminal_reason == "unterminated_event"
    assert any("message_stop" in r.getMessage() and gen.id in r.getMessage() for r in caplog.records)
    terminated = feed(generation(STREAMS[key], _names(key)), data + b"\n\n")
    assert terminated.state == State.VALIDATED and terminated.telemetry.unterminated_events == 0


RESUMABLE = [
    "responses/pai_client_tool_search_1.sse",
    "responses/pai_phase.sse",
    "responses/vercel_openai_apply_patch_tool_1.jsonl",
]


@pytest.mark.parametrize("key", RESUMABLE)
def test_a_responses_stream_resumes_after_a_restart_at_every_event(key: str) -> None:
    entry, data = STREAMS[key], load(STREAMS[key])
    names = _names(key)
    events = SSEParser().feed(data)
    whole = summary(feed(generation(entry, names), data))
    tools = {n: OPEN_SCHEMA for n in names}
    for cut in range(1, len(events)):
        first = Generation(tools, reader=OpenAIResponsesReader())
        for event in events[:cut]:
            first.feed(event)
        if first.state != State.PROVISIONAL and first.state != State.RECEIVED:
            break  # the terminal event is in the first connection
        stored = first.checkpoint()  # ... process restarts here: only `stored` survives ...
        cursor = json.loads(stored)["cursor"]
        # The reader the new connection needs, passed explicitly or left to `resume` (both are the API).
        reader = OpenAIResponsesReader(starting_after=cursor) if cut % 2 else None
        second = Generation.resume(stored, tools, reader=reader)
        overlap = max(0, cut - 3)  # the new connection replays a few events before the cursor
        for event in events[overlap:]:
            second.feed(event)
        second.close()
        assert second.id == first.id
        got = summary(second)
        assert got[:4] == whole[:4], (cut, cursor)


@pytest.mark.parametrize("key", sorted(set(STREAMS) - set(SDK_RAISES)))
def test_telemetry_of_real_streams_holds_no_content(key: str) -> None:
    sdk = sdk_result(STREAMS[key], load(STREAMS[key]))
    exported = json.dumps(_ours(key).telemetry.as_dict(), ensure_ascii=False)
    secrets = [sdk.text[:40]] if len(sdk.text) >= 12 else []
    secrets += [v for _, _, a in sdk.calls for v in _strings(a) if len(v) >= 12]
    for secret in secrets:
        assert secret not in exported


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_every_real_call_runs_exactly_once_through_confirm_execute_and_restore(tmp_path: Any) -> None:
    from sluicegate.lifecycle import Policy, SQLiteOperationStore

    from .real_streams import READERS

    store = SQLiteOperationStore(tmp_path / "ops.sqlite3")
    policy = Policy(version="2026-12")
    runs: dict[tuple[str, str], int] = {}
    total = 0
    for key in sorted(set(STREAMS) - set(SDK_RAISES)):
        entry = STREAMS[key]
        tools = {n: OPEN_SCHEMA for n in _names(key)}
        gen = Generation(tools, reader=READERS[entry["provider"]](), principal="u", config_version="c", operation="o")
        feed(gen, load(entry))
        if gen.state != State.VALIDATED or not gen.tool_calls:
            continue
        gen.confirm(store)

        def tool(args: Any, _key: str = key) -> dict[str, str]:
            runs[(_key, json.dumps(args, sort_keys=True))] = runs.get((_key, json.dumps(args, sort_keys=True)), 0) + 1
            return {"ok": "yes"}

        for call in gen.tool_calls:
            assert gen.execute(call.call_id, tool, store=store, policy=policy) == {"ok": "yes"}
            assert gen.execute(call.call_id, tool, store=store, policy=policy) == {"ok": "yes"}
        restored = Generation.restore(store, gen.id, tools)
        for call in restored.tool_calls:
            assert restored.execute(call.call_id, tool, store=store, policy=policy) == {"ok": "yes"}
        assert restored.state == State.EXECUTED
        total += len(gen.tool_calls)
    store.close()
    assert total >= 30
    assert sum(runs.values()) == total  # each real call ran once, whatever was retried or restored


def test_checkpoint_needs_a_resume_cursor() -> None:
    gen = generation(STREAMS["anthropic/vercel_anthropic_json_tool_1.jsonl"], [])
    with pytest.raises(ValueError, match="new generation"):
        gen.checkpoint()


def test_the_readme_lists_every_provider_and_license() -> None:
    readme = (REAL / "README.md").read_text()
    for repo in {e["repo"] for e in MANIFEST}:
        assert repo in readme
    assert BY_FILE  # the manifest is keyed by file
