"""Atlas: a terminal assistant that answers a GitHub project's maintainers' questions through tools.

Layers, top to bottom; each imports only those below it (`tests/test_architecture.py`):
`cli` → `commands/` → `runtime` → `loop` → `llm/` and `offline/` (models) → `tools/` (registry,
executor) → `events`, `messages`, `envelope`, `errors`, `config`, `statefiles`. `calllog/` and
`ui/` are listeners on a session's channel of events (`atlas.events.Events`): the commands
subscribe them (`commands/session.py`), and nothing below them imports either.
"""

__version__ = "0.1.0"
