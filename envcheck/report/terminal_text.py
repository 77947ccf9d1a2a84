"""Text that came from outside envcheck, made safe to print: control characters escaped, huge
values cut.

Facts files, paths, directory names and logs are written by others. A raw ESC or CSI sequence
in them could recolour, clear or retitle the user's terminal, and a 10 MB value would be echoed
whole. Every text and Markdown renderer passes such values through `shown` (JSON needs nothing:
json escapes control characters and keeps values whole, for tools).
"""

from __future__ import annotations

import io
import re
from typing import TextIO

VALUE_LIMIT = 500  # characters of one value shown; a path or a log line is far shorter

# C0 controls but for tab-free text (\t too: it breaks table columns), DEL, the C1 controls
# (0x9b is a one-byte CSI), and the bidirectional overrides that reorder what is shown.
_OTHERS = "\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[\x00-\x1f{_OTHERS}]")
# The same less newline and tab, for whole messages: their lines and indents are kept.
_CONTROL_IN_MESSAGES = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHERS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    if character in _NAMED:
        return _NAMED[character]
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(value: object, limit: int = VALUE_LIMIT) -> str:
    """`value` as one line for a terminal: control characters escaped (`\\x1b`), and cut after
    `limit` characters with a marker saying how many more there were."""
    text = str(value)
    cut = ""
    if len(text) > limit:
        cut = f"… [{len(text) - limit} more characters]"
        text = text[:limit]
    return _CONTROL.sub(_escape, text) + cut


def shown_lines(text: str, limit: int = VALUE_LIMIT * 8) -> str:
    """A rendered block (many lines) made safe line by line: for renderers whose lines carry
    values without passing each through `shown` (the lines are kept; a huge one is cut)."""
    return "\n".join(shown(line, limit) for line in text.split("\n"))


def escaped(text: str) -> str:
    """`text` with its control characters escaped as `shown` escapes them, but its newlines and
    tabs kept and nothing cut: for whole messages, many lines long."""
    return _CONTROL_IN_MESSAGES.sub(_escape, text)


class FilteredStream(io.TextIOBase):
    """A text stream that passes everything written to it through `escaped` on its way to
    `unfiltered`. The command line puts stderr behind one, so that no error or notice can carry
    an index's, a file's or an exception's escape sequences to the terminal raw, whichever code
    printed it. What writes terminal controls on purpose (fetch's progress line) writes to
    `unfiltered`."""

    def __init__(self, unfiltered: TextIO) -> None:
        super().__init__()
        self.unfiltered = unfiltered

    def write(self, text: str) -> int:
        self.unfiltered.write(escaped(text))
        return len(text)

    def flush(self) -> None:
        self.unfiltered.flush()

    def isatty(self) -> bool:
        return self.unfiltered.isatty()

    def fileno(self) -> int:
        return self.unfiltered.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.unfiltered.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self.unfiltered.errors


def unfiltered(stream: TextIO) -> TextIO:
    """The stream under a FilteredStream; any other stream itself."""
    return stream.unfiltered if isinstance(stream, FilteredStream) else stream
