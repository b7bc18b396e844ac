"""Any console: output degrades to ASCII where a stream cannot encode what fracas prints.

fracas writes arrows, dashes, ellipses, `≥` and block bars. A stream whose encoding
lacks them (a Windows console or a redirected file in cp1252, `PYTHONIOENCODING=ascii`,
a C locale) would raise UnicodeEncodeError halfway through a report. `protect()` sets
up the standard streams once, at the command's start, so that every writer (ours,
click's help and error messages, progress bars) goes through one codec error handler:
a character the stream can encode is written as is; one it cannot becomes its ASCII
spelling (`→` as `->`, `█` as `#`), an accented letter its base letter, anything else
`?`. Never a traceback for an encoding.

Why a wrapper for ASCII streams: click (like rich) checks `stream.encoding` before it
writes; it takes an ASCII stream for a misconfigured locale and re-wraps its byte
buffer as UTF-8 (click/_compat.py, `_stream_is_misconfigured`), which writes bytes the
console was told it would not get. The wrapper hides the buffer, so click writes
through the handler instead.
"""

from __future__ import annotations

import codecs
import sys
import unicodedata
from typing import Any, TextIO, cast

#: The codec error handler's name (`str.encode(encoding, ERRORS)`).
ERRORS = "fracas-ascii"

#: ASCII spellings of the characters fracas prints (a character missing here falls back
#: to its decomposition, then `?`).
ASCII = {
    "→": "->", "←": "<-", "↔": "<->", "⇒": "=>", "—": "-", "–": "-", "−": "-", "‐": "-", "…": "...",
    "·": "-", "•": "*", "×": "x", "÷": "/", "≥": ">=", "≤": "<=", "≠": "!=", "≈": "~", "±": "+/-",
    "½": "1/2", "¼": "1/4", "¾": "3/4", "°": " deg", "²": "^2", "³": "^3", "§": "S", "¶": "P",
    "‘": "'", "’": "'", "“": '"', "”": '"', "«": '"', "»": '"', "✓": "ok", "✔": "ok", "✗": "x", "✘": "x",
    "█": "#", "▉": "#", "▊": "#", "▋": "#", "▌": "+", "▍": "+", "▎": "+", "▏": "+", "░": ".", "▒": ":",
    "▓": "#", "■": "#", "□": "o", "●": "*", "○": "o", "★": "*", "☆": "*", "⚔": "x", "\u00a0": " ",
    "\u2009": " ", "\u202f": " ", "\u2002": " ", "\u2003": " ",
}


def ascii_of(char: str) -> str:
    """The ASCII spelling of one character: from the table, its decomposition, or `?`."""
    if char in ASCII:
        return ASCII[char]
    base = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode("ascii")
    return base or "?"


def _handler(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(ascii_of(c) for c in error.object[error.start:error.end]), error.end


codecs.register_error(ERRORS, _handler)


def to_ascii(text: str) -> str:
    """`text` in ASCII, each other character spelled as `ascii_of` does."""
    return text.encode("ascii", ERRORS).decode("ascii")


#: What a stream must encode for fracas's output to pass unchanged.
_PROBE = "→…≥█▏—·×"


def _can_encode(stream: Any) -> bool:
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        _PROBE.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


class AsciiStream:
    """A text stream for an ASCII console: writes `to_ascii(text)` to the stream it wraps.

    Everything but `write` and `buffer` is the wrapped stream's (isatty, fileno, flush,
    encoding); it has no `buffer`, so click writes text to it rather than re-wrapping
    the bytes underneath as UTF-8.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click probes for a binary stream with write(b"")
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        return self.stream.write(to_ascii(text))

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    @property
    def errors(self) -> str:
        return ERRORS

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self.stream, name)


def safe(stream: TextIO) -> TextIO:
    """`stream`, made to degrade to ASCII if its encoding cannot carry fracas's output."""
    if isinstance(stream, AsciiStream) or _can_encode(stream):
        return stream
    encoding = codecs.lookup(getattr(stream, "encoding", None) or "ascii").name
    reconfigure = getattr(stream, "reconfigure", None)
    if encoding != "ascii" and reconfigure is not None:
        reconfigure(errors=ERRORS)  # cp1252 keeps its own é, ×, …; the rest is spelled in ASCII
        return stream
    return cast(TextIO, AsciiStream(stream))


def protect() -> None:
    """Make `sys.stdout` and `sys.stderr` safe for any console (idempotent)."""
    if sys.stdout is not None:  # None under pythonw
        sys.stdout = safe(sys.stdout)
    if sys.stderr is not None:
        sys.stderr = safe(sys.stderr)
