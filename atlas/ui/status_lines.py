"""The header and footer lines of a question: which model answers, about which project, what it cost.

`Styled` lines, so that a pipe gets their words without Rich and a terminal their styles too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas.foundation.sanitize import clean_line
from atlas.ui.plain import Styled

if TYPE_CHECKING:
    from atlas.conversation.loop import TurnResult


def header(model: str, *, read_only: bool, dataset: str, rules: int = 0) -> Styled:
    """`atlas · offline · Orbit · read-only`: which model answers, about which project, whether anything can change."""
    mode = "read-only" if read_only else "side effects ask first"
    if rules and not read_only:
        mode = f"side effects: {counted(rules, 'policy rule')}, then ask"
    return Styled.assemble(
        ("atlas", "bold"), " · ", (clean_line(model), "cyan"), " · ", clean_line(dataset), " · ", (mode, "dim")
    )


def counted(number: int, noun: str) -> str:
    """`1 round`, `2 rounds`."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def footer(result: TurnResult, seconds: float) -> Styled:
    """`2 rounds · 3 calls · 1,204 → 310 tokens · $0.0003 · 2.41 s`; unknown usage is said, not 0.

    No tokens or cost when none were used: the offline planner and replays use none, and
    `0 → 0 tokens · $0.0000` would be noise.
    """
    input_tokens, output_tokens, cost_usd = result.usage.input_tokens, result.usage.output_tokens, result.cost_usd
    parts = [counted(result.rounds, "round"), counted(len(result.calls), "call")]
    if not result.usage.known:
        parts += ["tokens not reported by the server", "cost unknown"]
    elif input_tokens or output_tokens or cost_usd:
        parts += [f"{input_tokens:,} → {output_tokens:,} tokens", f"${cost_usd:.4f}"]
    parts.append(f"{seconds:.2f} s")
    return Styled(" · ".join(parts), style="dim")
