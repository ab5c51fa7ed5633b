// sluicegate-client.js: read a gated answer from a POST endpoint that streams Server-Sent Events.
//
// Dependency-free ES module. Not EventSource: EventSource cannot send a body (a question, its language and
// the history), so this POSTs with fetch, reads the body with a ReadableStream reader, decodes it with
// TextDecoder {stream: true} (a character split across reads stays whole), and parses it with the same rules
// as sluicegate.sse.SSEParser: a buffer across reads, dispatch on a blank line, comments ignored, data lines
// joined with "\n", CRLF/LF/CR line ends (a CR ends its line at once; an LF right after it, even in the
// next read, is swallowed), one space stripped after the colon, blocks without data not dispatched, a
// leading BOM dropped, a bounded buffer. abort() goes through an AbortController: it cancels the fetch and
// the body, and the server then closes the provider stream.
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

export const DEFAULT_MAX_EVENT_CHARS = 1 << 20;

export class SSEParseError extends Error {}

export class SSEParser {
  constructor({ maxEventChars = DEFAULT_MAX_EVENT_CHARS } = {}) {
    this.maxEventChars = maxEventChars;
    this.started = false;
    this.line = "";
    this.skipLF = false;
    this.data = null; // array of data lines, or null when the block has none
    this.dataChars = 0;
    this.event = "";
    this.retry = null;
    this.lastEventId = null;
    this.reconnectionTime = null;
  }

  // Parse one decoded read; return the events it completed.
  feed(text) {
    const events = [];
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLF && text.length > 0) {
      this.skipLF = false;
      if (text[0] === "\n") text = text.slice(1);
    }
    const eol = /\r\n|\r|\n/g;
    let pos = 0;
    let match;
    while ((match = eol.exec(text)) !== null) {
      let line = text.slice(pos, match.index);
      if (this.line) {
        line = this.line + line;
        this.line = "";
      }
      pos = match.index + match[0].length;
      this.lineEnd(line, events);
    }
    const rest = text.slice(pos);
    if (rest) {
      this.line += rest;
      this.checkSize();
    } else if (text.endsWith("\r")) {
      this.skipLF = true;
    }
    return events;
  }

  lineEnd(line, events) {
    if (line === "") {
      if (this.data !== null) {
        events.push({
          event: this.event || "message",
          data: this.data.join("\n"),
          id: this.lastEventId,
          retry: this.retry,
        });
      }
      this.data = null;
      this.dataChars = 0;
      this.event = "";
      this.retry = null;
      return;
    }
    if (line[0] === ":") return;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value[0] === " ") value = value.slice(1);
    if (name === "data") {
      (this.data ??= []).push(value);
      this.dataChars += value.length + 1;
      this.checkSize();
    } else if (name === "event") {
      this.event = value;
    } else if (name === "id") {
      if (!value.includes("\0")) this.lastEventId = value;
    } else if (name === "retry") {
      if (/^[0-9]+$/.test(value)) this.retry = this.reconnectionTime = parseInt(value, 10);
    }
  }

  checkSize() {
    if (this.dataChars + this.line.length > this.maxEventChars) {
      throw new SSEParseError(`SSE event larger than ${this.maxEventChars} characters`);
    }
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
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // the parser drops one BOM
    const parser = new SSEParser(handlers);
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
    const decode = (bytes) => {
      try {
        return bytes === undefined ? decoder.decode() : decoder.decode(bytes, { stream: true });
      } catch (err) {
        throw new SSEParseError(`invalid UTF-8 in the stream: ${err.message}`);
      }
    };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        dispatch(parser.feed(decode(value)));
        if (finished) return;
      }
      dispatch(parser.feed(decode()));
    } catch (err) {
      if (controller.signal.aborted) return finish("done", { reason: "cancelled", usage: null, local: true });
      const code = err instanceof SSEParseError ? "bad_stream" : "network";
      controller.abort();
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
