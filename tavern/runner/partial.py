"""A narration shown by completed sentence while the prose renderer still writes it.

The prose call streams (`tavern.llm.early_stop`: a streaming provider feeds the answer so far
to the caller's predicate). `PartialNarration.see` reads the narration out of each prefix,
keeps the sentences that are complete (another one has begun after them), runs the filter
layer over them, and hands the filtered text to `show` when it grew. So what is shown is
what the filters leave of a prefix; a sentence a filter cuts on its own never is. A rule that
judges a sentence by what follows it (a narration capped at its length) can still change the
text: the finished narration, filtered whole, replaces the partial one on the screen.

Example:
    >>> shown = []
    >>> watch = PartialNarration(lambda text: text.replace(" Bad.", ""), shown.append)
    >>> for prefix in ['{"narration": "Rain. Bad. Wind', '{"narration": "Rain. Bad. Wind. Mo']:
    ...     watch.see(prefix)
    >>> shown
    ['Rain.', 'Rain. Wind.']
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from tavern.llm.early_stop import close_json
from tavern.text.sentences import sentence_spans

_OPENS = re.compile(r'"narration"\s*:\s*"')


class PartialNarration:
    """Watches a streamed prose answer; `show(text)` gets each longer filtered prefix."""

    def __init__(self, repair: Callable[[str], str], show: Callable[[str], None]) -> None:
        """`repair`: the filter layer over a narration; `show`: called with what it left."""
        self.repair = repair
        self.show = show
        self._seen = ""
        self._complete = ""
        self._shown = ""

    def see(self, answer_so_far: str) -> None:
        """Read one streamed prefix (a shorter one than before, of the same answer, is the
        early stop's search and changes nothing; any other is a retried answer: start over)."""
        if self._seen.startswith(answer_so_far):
            return
        if not answer_so_far.startswith(self._seen):
            self._complete = ""  # a retry streams a new answer from its start
        self._seen = answer_so_far
        if _OPENS.search(answer_so_far) is None:
            return
        closed = close_json(answer_so_far)
        if closed is None:
            return
        try:
            narration = json.loads(closed).get("narration")
        except (ValueError, AttributeError):
            return
        if not isinstance(narration, str):
            return
        spans = sentence_spans(narration)
        if len(spans) < 2:
            return
        complete = narration[: spans[-2][1]]  # the last sentence may still be growing
        if complete == self._complete:
            return
        self._complete = complete
        text = self.repair(complete).strip()
        if text and text != self._shown:
            self._shown = text
            self.show(text)
