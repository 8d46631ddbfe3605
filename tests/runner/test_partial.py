"""`runner.partial`: a streamed narration shown by complete, filtered sentence."""

from __future__ import annotations

from tavern.runner.partial import PartialNarration

CUT = "As an AI, I cannot see the room."


def watch(repair: object = None) -> tuple[PartialNarration, list[str]]:
    shown: list[str] = []

    def default(text: str) -> str:
        return text.replace(f" {CUT}", "").replace(CUT, "")

    return PartialNarration(repair or default, shown.append), shown  # type: ignore[arg-type]


def stream(w: PartialNarration, answer: str) -> None:
    for end in range(1, len(answer) + 1):
        w.see(answer[:end])


def test_only_complete_sentences_are_shown_and_cut_ones_never() -> None:
    w, shown = watch()
    stream(w, f'{{"narration": "Rain falls. {CUT} The door opens. The lamp gut"}}')
    assert shown == ["Rain falls.", "Rain falls. The door opens."]
    assert not any(CUT in s for s in shown)


def test_negative_control_without_the_repair_the_sentence_shows() -> None:
    w, shown = watch(lambda text: text)
    stream(w, f'{{"narration": "Rain falls. {CUT} The door opens. The lamp gut"}}')
    assert any(CUT in s for s in shown)  # the check above can fail


def test_the_early_stops_shorter_prefixes_change_nothing() -> None:
    w, shown = watch()
    answer = '{"narration": "Rain falls. Wind rises. Mo'
    stream(w, answer)
    for end in range(len(answer), 0, -1):  # EarlyStop searches the shortest stopping prefix
        w.see(answer[:end])
    assert shown == ["Rain falls.", "Rain falls. Wind rises."]


def test_a_retried_answer_starts_over() -> None:
    w, shown = watch()
    stream(w, '{"narration": "Rain falls. Wind rises. Mo')
    stream(w, '{"narration": "Snow. Ice. X')  # the retry's stream
    assert shown == ["Rain falls.", "Rain falls. Wind rises.", "Snow.", "Snow. Ice."]


def test_a_prefix_that_is_not_a_narration_yet_shows_nothing() -> None:
    w, shown = watch()
    for prefix in ['{"narr', '{"narration": ', '{"narration": "Rain. Wi', '{"other": "A. B. C']:
        w.see(prefix)
    assert shown == ["Rain."]
