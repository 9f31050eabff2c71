"""A message block's first line says who answered: the model asked for, the one that answered
when the provider reports another (pi 1.5+ `responseModel`), and an unusual stop reason."""

from __future__ import annotations

from pi_sessions.core.common.glyphs import ASCII
from pi_sessions.widgets.message_text import role_title


def reply(**fields: object) -> dict[str, object]:
    return {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "model": "auto", **fields}


def test_the_model_that_answered_is_shown_when_it_differs() -> None:
    assert (
        role_title(reply(responseModel="claude-sonnet-4-5"), ASCII)
        == "assistant - auto (answered by claude-sonnet-4-5)"
    )
    assert role_title(reply(responseModel="auto"), ASCII) == "assistant - auto"
    assert role_title(reply(responseModel=["odd"]), ASCII) == "assistant - auto"  # not a name: nothing said


def test_a_deferred_reply_says_so() -> None:
    assert role_title(reply(stopReason="deferred"), ASCII) == "assistant - auto - deferred"
