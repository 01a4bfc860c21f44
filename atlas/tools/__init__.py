"""Tools the model can call: the registry, the executor, the Orbit read tools and the mock tracker.

`registry.py` describes tools; `executor.py` runs a model's calls (with `attempts.py`, `turn.py`,
`outcomes.py`, `approvals.py`, `breaker.py`, `threads.py`, `outputs.py`) and reports each phase
as an `atlas.events.CallEvent`; `orbit.py`, `orbitdb.py`, `docs.py` and `tracker.py` are the tools.
It may import `atlas.events`, `atlas.messages`, `atlas.envelope`, `atlas.errors`, `atlas.config`
and `atlas.statefiles`; never the call log, the models, the loop, the UI, the commands, a
provider's SDK (`openai`) or a terminal library (`rich`, `prompt_toolkit`).
"""
