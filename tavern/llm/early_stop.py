"""Stopping an answer while it streams, once its caller knows the rest will be thrown away.

A small model loops, and the filter `loop` then cuts the copies; every looping token costs
model time. A caller may pass a `StopEarly` predicate with its request; a streaming provider
feeds it the answer so far and, when it answers True, stops the generation (llama.cpp
cancels the slot when the connection closes) and returns the prefix as a closed JSON answer,
marked `stopped_early`. `close_json` closes only a prefix cut inside a string value (or at a
value's end); one cut inside a key or between tokens is not closed, and streaming goes on.
"""

from __future__ import annotations

import re
from collections.abc import Callable

StopEarly = Callable[[str], bool]
"""Given the answer so far (raw JSON text), True when the caller needs no more of it."""
_WORD_PIECES = re.compile(r"\s*\S+|\s+$")


def word_pieces(text: str) -> list[str]:
    """`text` cut as a stream may deliver it, word by word (the fake and the replay server).

    >>> word_pieces('{"a": "b c"} ')
    ['{"a":', ' "b', ' c"}', ' ']
    """
    return _WORD_PIECES.findall(text)


_PARTIAL_UNICODE = re.compile(r"(\\+)u[0-9a-fA-F]{0,3}$")
_HIGH_SURROGATE = re.compile(r"(\\+)u[dD][89abAB][0-9a-fA-F]{2}$")
"""The first half of an escaped surrogate pair: alone, it is no character."""
_CLOSER = {"{": "}", "[": "]"}


def close_json(prefix: str) -> str | None:
    """`prefix` closed into JSON, if it was cut inside a string value or right after a value.

    >>> close_json('{"narration": "The door opens. The door op')
    '{"narration": "The door opens. The door op"}'
    >>> close_json('{"a": ["x", "y\\\\')
    '{"a": ["x", "y"]}'
    >>> close_json('{"narr') is None, close_json('{"a": "b", ') is None
    (True, True)
    """
    stack: list[str] = []
    in_string = escaped = False
    is_key = False  # the string being read (or last read) is an object key
    expecting_value = False  # after ":" (or "," / "[" in an array): a string here is a value
    for char in prefix:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            is_key = bool(stack) and stack[-1] == "{" and not expecting_value
            expecting_value = False
        elif char in _CLOSER:
            stack.append(char)
            expecting_value = char == "["
        elif char in "}]":
            if not stack or _CLOSER[stack.pop()] != char:
                return None
            expecting_value = False
        elif char == ":":
            expecting_value = True
        elif char == ",":
            expecting_value = bool(stack) and stack[-1] == "["
    if not stack:
        return None  # a closed or scalar answer: nothing to stop
    if in_string:
        if is_key:
            return None
        text = _without_partial_escape(prefix) + '"'
    else:
        # Only right after a whole value: a key, ":", "," or a number may be unfinished.
        text = prefix.rstrip()
        if is_key or text[-1:] not in ('"', "}", "]"):
            return None
    return text + "".join(_CLOSER[opener] for opener in reversed(stack))


def _without_partial_escape(text: str) -> str:
    """`text` (cut inside a JSON string) without an escape sequence it cut in two."""
    backslashes = len(text) - len(text.rstrip("\\"))
    if backslashes % 2:
        text = text[:-1]
    for pattern in (_PARTIAL_UNICODE, _HIGH_SURROGATE):  # "\ud800\udc" loses both halves
        partial = pattern.search(text)
        if partial is not None and len(partial.group(1)) % 2:
            text = text[: partial.start() + len(partial.group(1)) - 1]
    return text


class EarlyStop:
    """Accumulates streamed pieces and decides when the answer may stop.

    `feed` returns True once `stop` held on the text so far and the text could be closed;
    `content` is then the shortest prefix on which `stop` holds, closed (`close_json`). Until
    then, `content` is the raw text.
    """

    def __init__(self, stop: StopEarly) -> None:
        self._stop = stop
        self.stopped = False
        self.content = ""

    def feed(self, piece: str) -> bool:
        """Add `piece`; True when the answer stops here."""
        before = self.content
        text = before + piece
        self.content = text
        if not self._stop(text):
            return False
        # The shortest prefix that stops: the same however the server cut its pieces, so a
        # replay that streams the recorded answer again gets the same answer.
        shortest = next(
            end for end in range(len(before) + 1, len(text) + 1) if self._stop(text[:end])
        )
        closed = close_json(text[:shortest])
        if closed is None:
            return False
        self.content, self.stopped = closed, True
        return True
