"""Models behind one small interface: the `Model` protocol and its base, `ModelAdapter` (`adapter.py`).

Three adapters live here: the OpenAI Responses API (`openai.py`), the Chat Completions API of any
OpenAI-compatible server (`chat_completions.py`) and replay scripts (`scripted.py`); the built-in
offline planner (`atlas.offline`, a layer above) is a `ModelAdapter` too, and `atlas.runtime.session`
picks one by its name. The loop knows only this protocol, and gives each request the session's
channel (`atlas.protocol.events.Events`): the reply's text goes there as it streams, and an adapter
that waits on a server reports its waits there too. Each adapter takes a request as one
`ModelRequest`; the two OpenAI-wire ones share `streamed.StreamedAdapter`.
It may import `atlas.protocol`, `atlas.foundation` and tool definitions; never the executor, the UI,
the runtime or the commands. Only the adapters (`openai.py`, `chat_completions.py`, `streamed.py`,
`openai_client.py`, `openai_schema.py`) import the `openai` SDK, lazily.
"""

from __future__ import annotations

from atlas.llm.adapter import Model, ModelAdapter, ModelRequest

__all__ = ["Model", "ModelAdapter", "ModelRequest"]
