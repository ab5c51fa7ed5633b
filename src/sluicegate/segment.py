"""Placeholder: the streaming sentence splitter lands in the next commit."""


class SentenceSplitter:  # pragma: no cover - replaced by the real splitter
    def feed(self, piece: str) -> list[str]:
        raise NotImplementedError

    def flush(self) -> str:
        raise NotImplementedError
