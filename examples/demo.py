"""sluicegate in one screen: a streamed answer passes through the sentence gate, piece by piece.

    python examples/demo.py

Offline and dependency-free: the "model" is a scripted answer cut into small pieces, as a provider streams
them. After each piece we print what the reader has seen so far. The first answer is grounded in the sources
and arrives sentence by sentence, without its [Sn] markers. The second invents a year: the sentences before it
are shown, the gate stops, the reader gets a fixed notice, and the invented sentence never appears. The third
runs the redactor: an e-mail address and an API key arrive split across pieces ("jane.doe@exa" + "mple.com"),
and the reader only ever sees their placeholders.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from collections.abc import Callable  # noqa: E402

from sluicegate import Guard, Redactor, SentenceGate, StreamFilter  # noqa: E402

SOURCES = [
    "The Riverside Library opens at 9:00 on weekdays and at 10:00 on Saturdays.",
    "Late fees were abolished in 2021. Questions: desk@riverside.example.",
]

GROUNDED = (
    "The library opens at 9:00 on weekdays [S1]. On Saturdays it opens at 10:00 [S1].\n\n"
    "Late fees were abolished in 2021 [S2]. Questions go to desk@riverside.example [S2]."
)
INVENTED = (
    "The library opens at 9:00 on weekdays [S1]. Late fees were abolished in 2019 [S2]. "
    "So nothing is owed for old loans [S2]."
)


LEAKY = (
    "Sure. You can reach the author at jane.doe@example.com, and the test key is "
    "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 for now."
)


def stream(answer: str, size: int = 6, make: Callable[[], StreamFilter] = lambda: SentenceGate(SOURCES)) -> str:
    """Feed `answer` in `size`-character pieces, as a provider would, and show the reader's screen."""
    gate = make()
    screen = ""
    for i in range(0, len(answer), size):
        piece = answer[i : i + size]
        step = gate.feed(piece)
        screen += step.text
        new = f"+{step.text!r}" if step.text else ""
        print(f"  piece {piece!r:<10} held {gate.held:>3}  reader sees {len(screen):>3} chars {new}")
        for event in step.events:
            if isinstance(event, Guard):
                print(f"  -> Guard {event.reasons}: the reader is shown: {event.notice!r}")
            else:
                print(f"  -> {event}")
        if step.stopped:
            break
    else:
        step = gate.flush()
        screen += step.text
        print(f"  end of stream             reader sees: {screen!r}")
        for event in step.events:
            print(f"  -> {event}")
    print(f"  final screen:\n    {screen.replace(chr(10), chr(10) + '    ')}")
    if getattr(gate, "violations", ()):
        print(f"  server side only (gate.violations): {gate.violations}")
    return screen


def main() -> None:
    # The server log records only the blocked sentence's length, never its text.
    logging.basicConfig(
        level=logging.WARNING, format="  server log: %(name)s %(levelname)s %(message)s", stream=sys.stdout
    )
    print("Sources:")
    for k, source in enumerate(SOURCES, 1):
        print(f"  [S{k}] {source}")
    print("\n1) A grounded answer, streamed in 6-character pieces:")
    stream(GROUNDED)
    print("\n2) An answer that invents a year (2019; the source says 2021):")
    screen = stream(INVENTED)
    assert "2019" not in screen
    print("\nThe invented sentence never reached the reader: '2019' is not on the screen.")
    print("\n3) The redactor: an e-mail and an API key arrive split across 5-character pieces:")
    screen = stream(LEAKY, size=5, make=Redactor)
    assert "jane.doe" not in screen and "sk-proj-" not in screen
    print("\nNeither value reached the reader, though no single piece contained either of them.")


if __name__ == "__main__":
    main()
