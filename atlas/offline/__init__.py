"""The built-in offline planner: a `Model` that plans tool calls from the user's words, no key needed.

One message is read in four steps, each with one home (`compose.py` runs them in order):
1. reading: `frames` splits the message into requests (quotes whole, pasted text set apart), `words` and
   `entities` find issues, labels, dates and people in the project's own vocabulary (`vocabulary`);
2. acts: `acts.RECOGNISERS`, an ordered table, gives each request one typed `Intent` (comment, labels,
   conditional, inbox, triage, doc, count, search, …); comments live in `comments`, labels in `label_acts`,
   conditions in `conditions`, the backlog in `backlog`, doc asks in `doc_acts`; what is left is a lookup;
3. lookups: `plan.read_lookups` plans the reads the lookups name (issues, comparisons, docs, codes, searches);
4. answer: `answer` and `later_answer` write the Markdown from what the tools returned (`readings`), none
   dropped (`results`); `later` plans the calls that wait on a result.
`model.py` is the `Model` (the loop's side). Examples and notes use the project's own labels, codes and docs.
It may import `atlas.protocol.messages`, `atlas.foundation.config`, `atlas.foundation.errors` and the neutral tool
definitions (`atlas.tools.definition`); never the registry, a tool module, the UI or the commands.
"""

from __future__ import annotations

from atlas.offline.model import OfflinePlanner

__all__ = ["OfflinePlanner"]
