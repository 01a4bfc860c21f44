"""The built-in offline planner: a `Model` that plans tool calls from the user's words, no key needed.

`model.py` is the `Model` (the loop's side), `plan.py` reads a question into planned calls,
`search.py` reads search requests, `answer.py` writes the Markdown answer from the results.
It may import `atlas.protocol.messages`, `atlas.foundation.config`, `atlas.foundation.errors` and the neutral tool
definitions (`atlas.tools.definition`); never the registry, a tool module, the UI or the commands.
"""

from __future__ import annotations

from atlas.offline.model import OfflinePlanner

__all__ = ["OfflinePlanner"]
