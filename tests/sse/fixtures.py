"""The SSE conformance corpus: byte streams with the events the WHATWG rules give for them.

Shared by the parser tests (every split must give these events) and the conformance table in docs/sse.md.
"""

from __future__ import annotations

from sluicegate.sse import SSEEvent

E = SSEEvent

FIXTURES: dict[str, tuple[bytes, list[SSEEvent]]] = {
    "lf": (b"data: hello\n\n", [E(data="hello")]),
    "multiline_data_joined_with_lf": (b"data: a\ndata: b\ndata: c\n\n", [E(data="a\nb\nc")]),
    "crlf": (b"event: delta\r\ndata: x\r\n\r\nevent: done\r\ndata: y\r\n\r\n", [E("delta", "x"), E("done", "y")]),
    "cr_only": (b"data: a\r\rdata: b\rdata: c\r\r", [E(data="a"), E(data="b\nc")]),
    "mixed_line_ends": (b"data: a\n\r\ndata: b\r\n\ndata: c\r\n\r", [E(data="a"), E(data="b"), E(data="c")]),
    "cr_then_lf_is_one_line_end": (b"data: a\r\ndata: b\r\n\r\n", [E(data="a\nb")]),
    "comments_ignored": (b": ping\n\ndata: x\n: in the middle\ndata: y\n\n:\n\n", [E(data="x\ny")]),
    "no_data_line_not_dispatched": (b"event: ping\n\nid: 1\n\nretry: 10\n\n", []),
    "empty_data_line_is_dispatched": (b"data:\n\ndata\n\n", [E(data=""), E(data="")]),
    "spec_example_empty_and_newline": (b"data\n\ndata\ndata\n\ndata:", [E(data=""), E(data="\n")]),
    "spec_example_stock": (b"data: YHOO\ndata: +2\ndata: 10\n\n", [E(data="YHOO\n+2\n10")]),
    "one_space_stripped": (b"data:  two\n\ndata:none\n\ndata: \n\n", [E(data=" two"), E(data="none"), E(data="")]),
    "bom_dropped_once": (b"\xef\xbb\xbfdata: x\n\n", [E(data="x")]),
    "second_bom_is_a_field_name": (b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\ndata: y\n\n", [E(data="y")]),
    "retry_only_digits": (
        b"retry: 1500\ndata: x\n\nretry: 15x\ndata: y\n\nretry:\ndata: z\n\n",
        [E(data="x", retry=1500), E(data="y"), E(data="z")],
    ),
    "id_persists_nul_ignored_empty_resets": (
        b"id: 7\ndata: x\n\ndata: x2\n\nid: a\x00b\ndata: y\n\nid\ndata: z\n\n",
        [E(data="x", id="7"), E(data="x2", id="7"), E(data="y", id="7"), E(data="z", id="")],
    ),
    "event_name_and_unknown_fields": (
        b"event: guard\nfoo: bar\ndata: {}\n\nevent:\ndata: m\n\n",
        [E("guard", "{}"), E(data="m")],
    ),
    "colon_in_value_kept": (b"data: a: b:c\n\n", [E(data="a: b:c")]),
    "persian_split_anywhere": ("event: delta\ndata: سلام دنیا\n\n".encode(), [E("delta", "سلام دنیا")]),
    "cjk_and_emoji": ("data: 图书馆 🚀\n\n".encode(), [E(data="图书馆 🚀")]),
    "unterminated_block_discarded": (b"data: a\n\ndata: b\n", [E(data="a")]),
    "unterminated_line_discarded": (b"data: a\n\ndata: b", [E(data="a")]),
    "unicode_line_separators_are_not_line_ends": (
        "data: a\u2028b\u0085c\x0bd\n\n".encode(),
        [E(data="a\u2028b\u0085c\x0bd")],
    ),
    "gated_frames": (
        b'event: delta\ndata: {"text":"The library opens at 9:00. "}\n\n: ping\n\n'
        b'event: guard\ndata: {"reasons":["unsupported_value"],"notice":"[withheld]"}\n\n'
        b'event: done\ndata: {"reason":"stopped"}\n\n',
        [
            E("delta", '{"text":"The library opens at 9:00. "}'),
            E("guard", '{"reasons":["unsupported_value"],"notice":"[withheld]"}'),
            E("done", '{"reason":"stopped"}'),
        ],
    ),
}
