"""The built-in offline planner: a `Model` that plans tool calls from the user's words, no key needed.

One design, one folder per step; `compose.read_question` runs the steps in order, and each kind of request
has exactly one home:
1. `reading/`: the message split into requests (quotes whole, pasted text set apart), and the issues, labels,
   people, days and filters each names, found in the project's own vocabulary;
2. `acts/`: the ordered table `acts.table.RECOGNISERS` gives each request one typed `Intent` (conditional,
   comment, labels, inbox, triage, doc, newest, count, symptom, search, …); actions are planned here alone,
   and a request no recogniser knows is a lookup;
3. `lookups/`: `reader.read_lookups` plans the reads all lookups name together (issues, comparisons, docs,
   error codes); a search is always an act;
4. `answer/`: the Markdown written from what the tools returned, none of it dropped.
`plan.py` is what the steps hand on (the calls of round one, the steps left for round two), `readings.py`
what a call returned; `model.py` is the `Model`, the loop's side. Each step imports only those below it
(tests/offline/test_layout.py). Examples and notes use the project's own labels, codes and docs.
It may import `atlas.protocol`, `atlas.foundation` and the neutral tool definitions (`atlas.tools.definition`);
never the registry, a tool module, the UI or the commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from atlas.offline.model import OfflinePlanner

__all__ = ["OfflinePlanner"]


def __getattr__(name: str) -> object:
    """`OfflinePlanner` on first use: `atlas issue` reads `answer.issue_view` without loading the planner."""
    if name == "OfflinePlanner":
        from atlas.offline.model import OfflinePlanner

        return OfflinePlanner
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
