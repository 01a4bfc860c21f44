"""Models behind one small interface: the `Model` protocol (`adapter.py`) and `resolve(name)`.

Four models speak it: the OpenAI Responses API (`openai.py`), the Chat Completions API of any
OpenAI-compatible server (`chat_completions.py`), the built-in offline planner (`atlas.offline`)
and replay scripts (`scripted.py`). The loop knows only this protocol, and gives each request
the session's channel (`atlas.protocol.events.Events`): the reply's text goes there as it streams, and
an adapter that waits on a server reports its waits there too. Each adapter is a `ModelAdapter`,
which takes a request as one `ModelRequest`; the two OpenAI-wire ones share `streamed.StreamedAdapter`.
It may import `atlas.protocol`, `atlas.foundation` and tool definitions; never the executor, the UI,
the runtime or the commands. Only the adapters (`openai.py`, `chat_completions.py`, `streamed.py`,
`openai_client.py`, `openai_schema.py`) import the `openai` SDK, lazily.
"""

from __future__ import annotations

import os
from difflib import get_close_matches
from pathlib import Path

from atlas.foundation.config import OFFLINE_MODEL
from atlas.foundation.errors import ConfigError
from atlas.llm.adapter import Model, ModelAdapter, ModelRequest

REPLAY_PREFIX = "replay:"

__all__ = ["REPLAY_PREFIX", "Model", "ModelAdapter", "ModelRequest", "resolve"]


def resolve(name: str, api: str = "responses") -> Model:
    """The model a `--model` value names: `offline`, `replay:PATH`, or a model on the `api` wire.

    Modules are imported only when chosen: `import openai` alone costs about a second.
    """
    name = name.strip()
    if not name:
        raise ConfigError("the model name is empty: use --model offline, --model replay:PATH or an OpenAI model")
    if name == OFFLINE_MODEL:
        from atlas.offline import OfflinePlanner

        return OfflinePlanner()
    if name.startswith(REPLAY_PREFIX):
        path = name[len(REPLAY_PREFIX) :].strip()
        if not path:
            raise ConfigError("--model replay:PATH needs the path of a replay script")
        from atlas.llm.scripted import ScriptedModel

        return ScriptedModel.from_file(Path(path).expanduser())
    if not os.environ.get("OPENAI_API_KEY", "").strip() and get_close_matches(name.lower(), [OFFLINE_MODEL]):
        # Without a key only `offline` and `replay:` can answer: a near miss is a typo, not an OpenAI model.
        raise ConfigError(f"unknown model {name!r}: did you mean --model offline?")
    if api == "chat":
        from atlas.llm.chat_completions import ChatCompletionsModel

        return ChatCompletionsModel(name)
    from atlas.llm.openai import OpenAIModel

    return OpenAIModel(name)
