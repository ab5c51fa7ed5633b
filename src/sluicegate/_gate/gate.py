"""`SentenceGate`: hold a streamed answer sentence by sentence, release only sentences that pass the four
checks, and stop for good at the first that does not.

Why per sentence: the sentence is the smallest unit that carries a claim, and a token the reader has seen
cannot be taken back. The reader waits about one sentence; in exchange a blocked sentence is never shown.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import cast

import regex

from .._notices import notice as fixed_text
from .._stream import EMPTY_STEP, STOPPED_STEP, Done, Event, Guard, Step, check_piece
from .checks import Checker, Violation
from .markers import strip_markers
from .person import SUPPORTED_LANGUAGES, checker_for
from .segment import CLOSERS, TERMINATORS, SentenceSplitter
from .values import Values, index_source

__all__ = ["SentenceGate", "Violation", "SUPPORTED_LANGUAGES"]

logger = logging.getLogger("sluicegate")

DEFAULT_REFUSAL_TOKEN = "NO_ANSWER"  # what the model answers when the sources do not cover the question

_NEWLINES = regex.compile(r"\r\n|\r|\n")
_MARKERS_AND_SPACE = regex.compile(r"(?:\s|\[S[0-9]+\])*\Z")
_WORD_CHAR = regex.compile(r"\w")  # the same "word character" as the token search below
_BARE_LIST_MARKER = regex.compile(r"\s*(?:[0-9]{1,3}[.)]|[-*•])\Z")


def _language(language: object) -> str:
    """ "fr", "FR" and "fr-CA" all mean French; anything else unknown is an error naming what is supported."""
    if not isinstance(language, str):
        raise TypeError(f"language must be a str such as 'en', got {type(language).__name__}")
    code = language.strip().replace("_", "-").split("-", 1)[0].casefold()
    if code not in SUPPORTED_LANGUAGES:
        raise ValueError(f"unsupported language {language!r}; supported: {', '.join(SUPPORTED_LANGUAGES)}")
    return code


def _sources(sources: object) -> tuple[str, ...]:
    if isinstance(sources, (str, bytes, bytearray)):
        raise TypeError("sources must be a sequence of str (one per source), not a single string")
    try:
        items = tuple(cast(Iterable[object], sources))
    except TypeError:
        raise TypeError(f"sources must be a sequence of str, got {type(sources).__name__}") from None
    for k, item in enumerate(items, 1):
        if not isinstance(item, str):
            raise TypeError(f"source [S{k}] must be a str, got {type(item).__name__}")
    return cast(tuple[str, ...], items)


def _separator(whitespace: str) -> str:
    """What the reader sees between two sentences: a blank line, a newline, a space or nothing.

    Idempotent (`_separator(_separator(a) + b) == _separator(a + b)`), so held spacing can be kept compacted."""
    if not whitespace:
        return ""
    lines = len(_NEWLINES.findall(whitespace))
    return "\n\n" if lines >= 2 else "\n" if lines == 1 else " "


# What may hide inside the token without changing what the reader sees: markers (removed before release) and
# invisible characters (format characters, soft hyphen, variation selectors and other default-ignorables).
_HIDDEN = r"(?:[ \t]*\[S[0-9]+\][ \t]*|[\p{Cf}\u00ad\u034f\u115f\u1160\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0])"


def _masked(token: str) -> regex.Pattern[str]:
    """The token as a word, with hidden characters allowed between its characters."""
    gap = f"{_HIDDEN}*"
    body = gap.join(regex.escape(ch) for ch in token)
    return regex.compile(rf"(?<![\w]){body}(?![\w])")


def _finished(tail: str) -> bool:
    """Does a tail cut by truncation end like a sentence (a terminator, or a blank line)? Else it is a fragment."""
    body = tail[: _MARKERS_AND_SPACE.search(tail).start()]  # type: ignore[union-attr]
    if not body.strip() or _BARE_LIST_MARKER.match(body):
        return False
    if len(_NEWLINES.findall(tail[len(body) :])) >= 2:
        return True
    body = body.rstrip(CLOSERS)
    return bool(body) and body[-1] in TERMINATORS


class SentenceGate:
    """A stream filter that releases an answer sentence by sentence, after four deterministic checks.

    `sources` are numbered [S1]..[Sn] in the order given; each is indexed once here. See docs/gate.md.
    """

    def __init__(
        self,
        sources: Iterable[str],
        *,
        language: str = "en",
        refusal_token: str | None = DEFAULT_REFUSAL_TOKEN,
        refusal_text: str | None = None,
        notice: str | None = None,
    ) -> None:
        self.language = _language(language)
        if refusal_token is not None and (not isinstance(refusal_token, str) or not refusal_token.strip()):
            raise ValueError("refusal_token must be a non-empty str, or None to turn the token off")
        for name, value in (("refusal_text", refusal_text), ("notice", notice)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{name} must be a str or None, got {type(value).__name__}")
        self._indexes: tuple[Values, ...] = tuple(index_source(s) for s in _sources(sources))
        self._checker = Checker(self._indexes, checker_for(self.language))
        self._token = refusal_token.strip() if refusal_token is not None else None
        self._token_re = (
            regex.compile(rf"(?<![\w]){regex.escape(self._token)}(?![\w])") if self._token is not None else None
        )
        self._masked_token_re = _masked(self._token) if self._token is not None else None
        self.refusal_text = refusal_text if refusal_text is not None else fixed_text(self.language, "refusal")
        self.notice = notice if notice is not None else fixed_text(self.language, "stopped")
        self._splitter = SentenceSplitter()
        self._violations: list[Violation] = []
        self._pending = ""  # the current sentence as received so far (the splitter's unreturned text)
        self._head_decided = self._token is None  # the current sentence cannot start with the token any more
        self._space = ""  # whitespace after the last released sentence, emitted before the next one
        self._released = False
        self._stopped = False
        self._done = False

    # -- the filter contract ---------------------------------------------------------------------------------

    @property
    def stopped(self) -> bool:
        """True once the gate ended the answer early: a violation, or the refusal token."""
        return self._stopped

    @property
    def violations(self) -> tuple[Violation, ...]:
        """What blocked the answer (server side only: details may quote the blocked sentence)."""
        return tuple(self._violations)

    @property
    def refusal_token(self) -> str | None:
        """The token that turns the answer into the fixed refusal (None: off); `sluicegate.prompts` names it."""
        return self._token

    @property
    def source_count(self) -> int:
        """How many sources the markers may cite ([S1]..[Sn])."""
        return len(self._indexes)

    @property
    def held(self) -> int:
        """Characters received and not yet released or dropped."""
        return 0 if self._done else self._splitter.held + len(self._space)

    def feed(self, piece: str) -> Step:
        """Take a piece of the answer; return the sentences it settled that passed, or the stop."""
        check_piece(piece)
        if self._done:
            return STOPPED_STEP if self._stopped else EMPTY_STEP
        if not piece:
            return EMPTY_STEP
        out: list[str] = []
        for sentence in self._splitter.feed(piece):
            self._head_decided = self._token is None
            end = self._judge(sentence, out)
            if end is not None:
                return end
        # The splitter is lossless, so the current sentence is the last `held` characters received.
        held = self._splitter.held
        self._pending = (self._pending + piece)[-held:] if held else ""
        if not self._head_decided:
            starts = self._starts_with_token(self._pending, final=False)
            if starts is not None:
                self._head_decided = True
                if starts:
                    return self._refuse(out)
        if not out:
            return EMPTY_STEP
        return Step(text="".join(out), lookahead=self._lookahead())

    def flush(self, *, truncated: bool = False) -> Step:
        """End of stream. The last sentence is judged; after a truncation an unfinished fragment is dropped."""
        if self._done:
            return STOPPED_STEP if self._stopped else EMPTY_STEP
        tail = self._splitter.flush()
        self._pending = ""
        out: list[str] = []
        if tail and (not truncated or _finished(tail)):
            if not self._head_decided and self._starts_with_token(tail, final=True):
                return self._refuse(out)
            end = self._judge(tail, out)
            if end is not None:
                return end
        self._done = True
        return Step(text="".join(out), events=(Done("truncated" if truncated else "complete"),))

    # -- internals -------------------------------------------------------------------------------------------

    def _lookahead(self) -> str:
        """What the next release, if there is one, begins with: the separator and the next sentence's first
        character, which the splitter had to see before it could end the last one. See docs/gate.md.

        Exact, and a function of the text alone: the next sentence starts at that character (a boundary is final
        only at a character that is neither whitespace nor a marker), so the next release is `_separator(_space)`
        and that sentence's body, which starts with it, since no marker rule can remove a first character other
        than whitespace, `[`, `(` or `（` (for those, and before anything was released, the promise is empty).
        If the next sentence is blocked or the token refuses, nothing more is released: still true."""
        if not self._released or not self._pending:
            return ""
        first = self._pending[0]
        if first.isspace() or first in "[(（":
            return ""
        return _separator(self._space) + first

    def _starts_with_token(self, text: str, *, final: bool) -> bool | None:
        """Does the sentence `text` begin with the token? None while it still could (or could not) be."""
        assert self._token is not None
        head = text.lstrip()
        token = self._token
        if len(head) <= len(token):
            if not token.startswith(head):
                return False
            return head == token if final else None
        return head.startswith(token) and not _WORD_CHAR.match(head, len(token))

    def _has_token(self, sentence: str) -> bool:
        """The token at the start of the sentence or anywhere in it as a word, also with markers or invisible
        characters inside it (`NO_[S1]ANSWER` is shown as `NO_ANSWER`): one search on the raw sentence."""
        assert self._token_re is not None and self._masked_token_re is not None
        return (
            self._starts_with_token(sentence, final=True)
            or self._token_re.search(sentence) is not None
            or self._masked_token_re.search(sentence) is not None
        )

    def _judge(self, sentence: str, out: list[str]) -> Step | None:
        """Release `sentence` into `out` if it passes; return the final step if the answer ends here."""
        if self._token_re is not None and self._has_token(sentence):
            return self._refuse(out)
        found = self._checker.check(sentence)
        if found:
            return self._stop(found, len(sentence), out)
        shown = strip_markers(sentence)
        body = shown.strip()
        if not body:  # only whitespace (and markers): nothing to show, keep the spacing (compacted: bounded)
            self._space = _separator(self._space + shown)
            return None
        lead = shown[: len(shown) - len(shown.lstrip())]
        if self._released:
            out.append(_separator(self._space + lead))
        out.append(body)
        self._space = _separator(shown[len(shown.rstrip()) :])
        self._released = True
        return None

    def _stop(self, found: list[Violation], length: int, out: list[str]) -> Step:
        self._violations.extend(found)
        codes = tuple(dict.fromkeys(v.code for v in found))
        logger.warning("sentence blocked (%s), %d characters", ", ".join(codes), length)
        return self._end(out, "stopped", (Guard(reasons=codes, notice=self.notice),))

    def _refuse(self, out: list[str]) -> Step:
        if not self._released and not out:
            out.append(self.refusal_text)
        return self._end(out, "refused", ())

    def _end(self, out: list[str], reason: str, events: tuple[Event, ...]) -> Step:
        self._stopped = self._done = True
        self._pending = self._space = ""
        self._splitter.flush()
        return Step(text="".join(out), stopped=True, events=(*events, Done(reason)))
