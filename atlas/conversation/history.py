"""The conversation sent to the model, bounded to a budget at a cost that does not grow with the chat.

Each item's size (its JSON length, and its length once its tool output is elided) is computed
once and remembered by identity, so a round re-measures only what is new. Whole turns that no
later request can include any more are dropped from the conversation itself (`forget_unsendable`),
so a 500-turn chat holds, and walks, no more than a 10-turn one that fills the budget.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

HISTORY_BUDGET_CHARS = 60_000
"""What the conversation sent with one request may weigh, in characters of JSON."""

ELIDED_OUTPUT = {"elided": True, "note": "an older tool result, removed to keep the conversation short"}
_MARKER = json.dumps(ELIDED_OUTPUT)
_MARKER_SIZE = len(json.dumps(_MARKER, ensure_ascii=False))

Item = dict[str, Any]


def _size(item: Item) -> int:
    # Plus the separator the item costs in the serialised list.
    return len(json.dumps(item, ensure_ascii=False)) + 2


def _is_output(item: Item) -> bool:
    return item.get("type") == "function_call_output"


def _elided(item: Item) -> Item:
    return {**item, "output": _MARKER}


def _elided_size(item: Item, size: int) -> int:
    """`_size(_elided(item))` without serialising the item again: only its output's text changes."""
    output = item.get("output")
    if not isinstance(output, str):
        return _size(_elided(item))
    return size - len(json.dumps(output, ensure_ascii=False)) + _MARKER_SIZE


class SizeCache:
    """Sizes by item identity, holding the item so that its id cannot be reused while remembered.

    Only the items of the latest conversation measured are kept: memory follows the conversation.
    Items are never changed in place (a new dict replaces one), so a remembered size stays true.
    """

    def __init__(self) -> None:
        self._known: dict[int, tuple[Item, int, int]] = {}

    def measure(self, items: Sequence[Item]) -> tuple[list[int], list[int]]:
        """Each item's size, and its size with its tool output elided (the same for other items)."""
        known, fresh = self._known, {}
        sizes, smallest = [], []
        for item in items:
            hit = known.get(id(item))
            if hit is None or hit[0] is not item:
                size = _size(item)
                hit = (item, size, _elided_size(item, size) if _is_output(item) else size)
            fresh[id(item)] = hit
            sizes.append(hit[1])
            smallest.append(min(hit[1], hit[2]))
        self._known = fresh
        return sizes, smallest


_CACHE = SizeCache()


def _turn_starts(items: Sequence[Item]) -> list[int]:
    return [index for index, item in enumerate(items) if item.get("role") == "user"]


def forget_unsendable(history: list[Item], budget: int = HISTORY_BUDGET_CHARS) -> int:
    """Drop, in place, the oldest turns that no later request can include; how many items went.

    `bound_history` drops whole turns oldest first while the rest is over the budget. Once the
    turns after turn k weigh more than the budget even with every output elided, every later
    request drops turn k and all before it, whatever is asked next: they are gone for good.
    """
    _sizes, smallest = _CACHE.measure(history)
    starts = _turn_starts(history)
    after = 0
    for index in range(len(starts) - 1, 0, -1):
        end = starts[index + 1] if index + 1 < len(starts) else len(history)
        after += sum(smallest[starts[index] : end])
        if after > budget:
            del history[: starts[index]]
            return starts[index]
    return 0


def bound_history(history: Sequence[Item], budget: int = HISTORY_BUDGET_CHARS) -> list[Item]:
    """A copy of the conversation that fits `budget` characters of JSON, or comes as close as it can.

    First, earlier turns' tool outputs become a short `elided` marker, oldest first. Then whole
    earlier turns are dropped, oldest first, so a function_call never loses its output. Only then
    are this turn's earlier rounds elided: the model is still working from them. The latest
    round's outputs are never touched, and the current turn is always kept.
    """
    sizes, smallest = _CACHE.measure(history)
    items = [dict(item) for item in history]
    total = sum(sizes)
    if total <= budget:
        return items
    starts = _turn_starts(items)
    current = starts[-1] if starts else 0
    total = _elide_outputs(items, sizes, smallest, total, budget, range(current))
    cut = 0
    for next_start in starts[1:]:
        if total <= budget:
            break
        total -= sum(sizes[cut:next_start])
        cut = next_start
    _elide_outputs(items, sizes, smallest, total, budget, range(current, _latest_round_start(items)))
    return items[cut:]


def _elide_outputs(
    items: list[Item], sizes: list[int], smallest: list[int], total: int, budget: int, indices: range
) -> int:
    """Replace tool outputs at `indices` with the marker, in order, until `total` fits; the new total."""
    for index in indices:
        if total <= budget:
            break
        if not _is_output(items[index]) or sizes[index] == smallest[index]:
            continue
        items[index] = _elided(items[index])
        total += smallest[index] - sizes[index]
        sizes[index] = smallest[index]
    return total


def _latest_round_start(items: Sequence[Item]) -> int:
    """Index of the first item of the trailing run of tool outputs (len(items) when there is none)."""
    index = len(items)
    while index > 0 and _is_output(items[index - 1]):
        index -= 1
    return index
