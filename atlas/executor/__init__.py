"""The executor: runs a model's tool calls in parallel, each under its own deadline.

`executor.py` is the per-call pipeline (with `attempts.py`, `turn.py`, `outcomes.py`,
`approvals.py`, `breaker.py`, `threads.py`, `outputs.py`) and reports each phase as an
`atlas.protocol.events.CallEvent`. It may import the tool contract (`atlas.tools`), `atlas.protocol`
(events, messages, the envelope) and `atlas.foundation`; never the call log, the models, the loop,
the UI, the commands, a provider's SDK (`openai`) or a terminal library (`rich`, `prompt_toolkit`).
"""
