"""Atlas: a terminal assistant that answers a GitHub project's maintainers' questions through tools.

Layers, top to bottom; each imports only the layers below it, never its own neighbours
(`LAYERS` in `tests/test_architecture.py` checks this list):

1. `__main__`: the entry point (`atlas`, `python -m atlas`).
2. `cli/`: the command line, wiring only.
3. `commands/`: each command's body.
4. `runtime/`: the session a command answers through: settings, tools, the model (`runtime/session.py` picks
   it by name), the executor, the call log.
5. `telemetry/`, `ui/`, `calllog/`: listeners on a session's channel of events
   (`atlas.protocol.events.Events`); a session subscribes them (`runtime/session.py`).
6. `conversation/`: the tool loop, the history it sends to the model, the last chat.
7. `offline/`: the offline planner, a model; 8. `llm/`: the models' one interface (`ModelAdapter`) and the
   wire adapters. Models and listeners know a tool only by its definition (`atlas.tools.definition`).
9. `policy/`, `triage/`, `evaluation/`, `mcp/`: what decides on, plans, scores and extends the tools.
10. `orbit/` (the built-in tools over a dataset) and `executor/` (runs a model's calls).
11. `tracker/`: the journal of Atlas's writes to a tracker; 12. `github/`: GitHub's API and its exports.
13. `tools/` (the tool contract), `state/` (a team's shared state), `dataset/` (a data folder on disk),
    `protocol/` (messages, events and the tool-result envelope).
14. `foundation/`: errors, settings, safe text and the one door to outside files; it imports nothing above.
"""

__version__ = "0.1.0"
