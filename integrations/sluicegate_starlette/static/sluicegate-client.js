// sluicegate-client.js: read a gated answer from a POST endpoint that streams Server-Sent Events.
//
// Dependency-free ES module. Not EventSource: EventSource cannot send a body (a question, its language and
// the history), so this POSTs with fetch, reads the body with a ReadableStream reader, decodes it with
// TextDecoder {stream: true} without `fatal` (a character split across reads stays whole; invalid UTF-8 is
// U+FFFD, as the spec and EventSource do), and parses it with the same rules as sluicegate.sse.SSEParser: a
// buffer across reads, dispatch on a blank line, comments ignored, data lines joined with "\n", CRLF/LF/CR
// line ends (a CR ends its line at once; an LF right after it, even in the next read, is swallowed), one
// space stripped after the colon, blocks without data not dispatched, a leading BOM dropped, the last event
// ID committed at dispatch, `retry` digits only up to 2^63 - 1, and one event bounded to maxEventBytes
// (1 MiB, the Python parser's limit, counted the same way whatever the read sizes). abort() goes through an
// AbortController: it cancels the fetch and the body, and the server then closes the provider stream.
//
//   import { streamAnswer } from "/sluicegate-client.js";
//   const run = streamAnswer("/chat", { question, language: "en", history: [] }, {
//     onDelta: (text) => out.append(text),          // released text, in order
//     onGuard: ({ reasons, notice }) => show(notice), // the stream was stopped: show the fixed notice
//     onDone: ({ reason, usage }) => {},             // once, when the server ends the stream (or on abort)
//     onError: ({ code, message, status }) => {},    // an error event (then onDone follows), or a failure
//   });                                               // with no done: HTTP status, network, bad stream
//   stopButton.onclick = () => run.abort();
//   await run.done;

// The Python parser's limit (sluicegate.sse.DEFAULT_MAX_EVENT_BYTES), counted the same way: one limit for
// encode_event, SSEParser and this client.
export const DEFAULT_MAX_EVENT_BYTES = 1 << 20;
// `retry` above 2^63 - 1 ms is ignored, as the Python parser does (compared as a 19-digit string).
const MAX_RETRY_DIGITS = "9223372036854775807";

export class SSEParseError extends Error {}

// One event grew past maxEventBytes. `events` holds what the same feed() call had already completed, so
// nothing that arrived whole before the oversized event is lost.
export class SSEEventTooLarge extends SSEParseError {
  constructor(message, events) {
    super(message);
    this.events = events;
  }
}

// UTF-8 length of a JS string, as Python's `len(text.encode("utf-8", "surrogatepass"))`: a surrogate pair is
// 4 bytes, a lone surrogate 3 (it cannot come from bytes: the decoder makes it U+FFFD, also 3).
function utf8Length(text) {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c < 0xdc00 && c >= 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // the pair's two code units are already counted: 4 in all
      i++;
    } else n += 2;
  }
  return n;
}

// The spec's rule (ASCII digits, base ten, leading zeros allowed) and the Python parser's bound; anything else
// is ignored, never an error. A Number: exact up to 2^53 ms, which is what setTimeout could use anyway.
function retryMs(value) {
  if (!/^[0-9]+$/.test(value)) return null;
  const digits = value.replace(/^0+/, "") || "0";
  if (digits.length > 19 || (digits.length === 19 && digits > MAX_RETRY_DIGITS)) return null;
  return Number(digits);
}

// feed(Uint8Array | string) -> events, close() -> events, with the rules of sluicegate.sse.SSEParser (issue 24):
// bytes decoded by one TextDecoder {stream: true} without `fatal` (invalid UTF-8 is U+FFFD, one per maximal
// ill-formed subsequence, the same for every cut; the BOM is left to the parser, which drops one); the last
// event ID committed when a block ends (a block cut off by the end leaves it), seedable with `lastEventId`;
// maxEventBytes bounding one event's data (UTF-8 bytes, plus one per line) plus the line being read, whatever
// the read sizes. After an error the parser refuses further input.
export class SSEParser {
  constructor({ maxEventBytes = DEFAULT_MAX_EVENT_BYTES, lastEventId = null } = {}) {
    if (!(maxEventBytes >= 1)) throw new RangeError("maxEventBytes must be >= 1");
    if (lastEventId !== null) {
      if (typeof lastEventId !== "string") throw new TypeError("lastEventId must be a string");
      if (/[\0\r\n]/.test(lastEventId)) {
        throw new RangeError("lastEventId must not contain NUL, CR or LF (no stream could have set it)");
      }
    }
    this.maxEventBytes = maxEventBytes;
    this.decoder = null; // made by the first read of bytes
    this.mode = null; // "bytes" or "text", fixed by the first feed
    this.started = false; // a first character was seen (the BOM check is done)
    this.parts = []; // the unterminated line carried across reads, in pieces (joined once)
    this.lineBytes = 0;
    this.skipLF = false; // the last read ended on CR: an LF starting the next one belongs to it
    this.data = null; // array of data lines, or null when the block has none
    this.dataBytes = 0;
    this.event = "";
    this.retry = null;
    this.idBuffer = lastEventId; // the spec's "last event ID buffer": set by `id`, committed at dispatch
    this.lastEventId = lastEventId;
    this.reconnectionTime = null; // the last valid `retry`, in ms (whether or not dispatched)
    this.failed = null;
    this.closed = false;
  }

  // Parse one read (bytes, or already-decoded text; not a mix); return the events it completed.
  feed(chunk) {
    this.checkUsable();
    let text;
    if (typeof chunk === "string") {
      this.setMode("text");
      text = chunk;
    } else if (ArrayBuffer.isView(chunk) || chunk instanceof ArrayBuffer) {
      this.setMode("bytes");
      this.decoder ??= new TextDecoder("utf-8", { ignoreBOM: true });
      text = this.decoder.decode(chunk, { stream: true });
    } else {
      throw new TypeError("SSEParser.feed takes a Uint8Array or a string");
    }
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text.length === 0) return [];
    const events = [];
    try {
      if (this.skipLF) {
        this.skipLF = false;
        if (text[0] === "\n") text = text.slice(1);
      }
      this.parse(text, events);
    } catch (err) {
      if (err instanceof SSEParseError) this.failed = err.message;
      throw err;
    }
    return events;
  }

  // End of stream: an unterminated block is discarded, its id not committed; a character cut off at the end
  // (in that discarded line) is dropped, not decoded.
  close() {
    this.checkUsable();
    this.closed = true;
    this.decoder = null;
    return [];
  }

  checkUsable() {
    if (this.failed !== null) throw new SSEParseError(`SSEParser is unusable after an earlier error: ${this.failed}`);
    if (this.closed) throw new SSEParseError("SSEParser is closed");
  }

  setMode(mode) {
    if (this.mode === null) this.mode = mode;
    else if (this.mode !== mode) throw new TypeError("SSEParser.feed: do not mix bytes and strings in one stream");
  }

  parse(text, events) {
    const eol = /\r\n|\r|\n/g;
    let pos = 0;
    let match;
    while ((match = eol.exec(text)) !== null) {
      let line = text.slice(pos, match.index);
      if (this.parts.length > 0) {
        this.parts.push(line);
        line = this.parts.join("");
        this.parts = [];
        this.lineBytes = 0;
      }
      pos = match.index + match[0].length;
      this.lineEnd(line, events);
    }
    if (pos < text.length) this.hold(text.slice(pos), events);
    else if (text.endsWith("\r")) this.skipLF = true;
  }

  hold(rest, events) {
    this.parts.push(rest);
    this.lineBytes += utf8Length(rest);
    if (this.dataBytes + this.lineBytes > this.maxEventBytes) this.tooLarge(this.dataBytes + this.lineBytes, events);
  }

  lineEnd(line, events) {
    if (line === "") {
      this.lastEventId = this.idBuffer; // committed even by a block without data (the spec's step 1)
      if (this.data !== null) {
        events.push({ event: this.event || "message", data: this.data.join("\n"), id: this.lastEventId, retry: this.retry });
      }
      this.data = null;
      this.dataBytes = 0;
      this.event = "";
      this.retry = null;
      return;
    }
    const size = this.dataBytes + utf8Length(line);
    if (size > this.maxEventBytes) this.tooLarge(size, events);
    if (line[0] === ":") return;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value[0] === " ") value = value.slice(1);
    if (name === "data") {
      (this.data ??= []).push(value);
      this.dataBytes += utf8Length(value) + 1;
    } else if (name === "event") {
      this.event = value;
    } else if (name === "id") {
      if (!value.includes("\0")) this.idBuffer = value;
    } else if (name === "retry") {
      const ms = retryMs(value);
      if (ms !== null) this.retry = this.reconnectionTime = ms;
    } // any other field is ignored, as the spec says
  }

  tooLarge(size, events) {
    throw new SSEEventTooLarge(
      `SSE event larger than maxEventBytes=${this.maxEventBytes} (at least ${size} bytes)`,
      events,
    );
  }
}

function call(fn, arg) {
  if (typeof fn === "function") fn(arg);
}

async function errorBody(response) {
  try {
    return await response.json();
  } catch {
    return null;
  }
}

// POST `body` as JSON to `url` and dispatch the gated answer's events. Returns { abort, done }: `done`
// resolves when the stream is over (after onDone or onError), never rejects.
export function streamAnswer(url, body, handlers = {}) {
  const controller = new AbortController();
  let finished = false;
  const finish = (kind, arg) => {
    if (finished) return;
    finished = true;
    call(kind === "done" ? handlers.onDone : handlers.onError, arg);
  };

  const run = async () => {
    let response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "text/event-stream", ...(handlers.headers || {}) },
        body: JSON.stringify(body),
        signal: controller.signal,
        cache: "no-store",
      });
    } catch (err) {
      if (controller.signal.aborted) return finish("done", { reason: "cancelled", usage: null, local: true });
      return finish("error", { code: "network", message: String(err && err.message ? err.message : err) });
    }
    if (!response.ok) {
      const detail = await errorBody(response);
      const message = detail && detail.error && detail.error.message ? detail.error.message : response.statusText;
      return finish("error", { code: `http_${response.status}`, status: response.status, message, detail });
    }
    const type = (response.headers.get("Content-Type") || "").split(";")[0].trim().toLowerCase();
    if (type !== "text/event-stream") {
      return finish("error", { code: "not_event_stream", status: response.status, message: `got ${type}` });
    }
    const reader = response.body.getReader();
    const parser = new SSEParser({ maxEventBytes: handlers.maxEventBytes, lastEventId: handlers.lastEventId ?? null });
    const dispatch = (events) => {
      for (const ev of events) {
        call(handlers.onEvent, ev);
        let payload;
        try {
          payload = JSON.parse(ev.data);
        } catch {
          continue; // not one of ours: an app may interleave its own events
        }
        if (ev.event === "delta") call(handlers.onDelta, payload.text);
        else if (ev.event === "guard") call(handlers.onGuard, payload);
        else if (ev.event === "error") call(handlers.onError, payload);
        else if (ev.event === "done") finish("done", payload);
      }
    };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        dispatch(parser.feed(value)); // bytes: the parser decodes them (TextDecoder {stream: true}, U+FFFD)
        if (finished) return;
      }
      dispatch(parser.close());
    } catch (err) {
      if (controller.signal.aborted) return finish("done", { reason: "cancelled", usage: null, local: true });
      controller.abort();
      if (err instanceof SSEEventTooLarge) {
        try {
          dispatch(err.events); // the events the read completed before the oversized one
        } catch {
          // a handler that throws does not stop the error from being reported
        }
      }
      const code = err instanceof SSEParseError ? "bad_stream" : "network";
      return finish("error", { code, message: String(err && err.message ? err.message : err) });
    }
    if (finished) return;
    finish("error", { code: "incomplete", message: "the stream ended without a done event" });
  };

  const done = run();
  return {
    abort() {
      controller.abort();
    },
    done,
    get finished() {
      return finished;
    },
  };
}
