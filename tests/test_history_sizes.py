"""The conversation's sizes, as `bound_history` weighs them: an elided output's size is computed, never guessed."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from atlas.conversation.history import _elided, _elided_size, _size

TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=200)


@given(call_id=TEXT, output=st.one_of(TEXT, st.dictionaries(TEXT, TEXT, max_size=3)))
def test_an_elided_outputs_size_is_what_serialising_it_gives(call_id: str, output: Any) -> None:
    item = {"type": "function_call_output", "call_id": call_id, "output": output}
    assert _elided_size(item, _size(item)) == _size(_elided(item))
