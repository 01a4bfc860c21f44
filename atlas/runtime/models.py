"""The model a `--model` value names: `offline`, `replay:PATH`, or a model on an OpenAI wire.

It sits here, above both the wire adapters (`atlas.llm`) and the offline planner (`atlas.offline`),
the one place that knows every kind of model.
"""

from __future__ import annotations

import os
from difflib import get_close_matches
from pathlib import Path

from atlas.foundation.config import OFFLINE_MODEL
from atlas.foundation.errors import ConfigError
from atlas.llm import Model

REPLAY_PREFIX = "replay:"


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
