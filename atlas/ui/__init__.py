"""Everything that draws on or reads from the terminal.

Rich views (`board.py`, `turn_view.py`, `render.py`), the approval prompt on `/dev/tty`
(`approval.py`), the chat's prompt_toolkit pieces (`prompt.py`) and `safe.py`, the one sanitiser
for untrusted text. It subscribes to `atlas.events` and may import the layers below the loop
(`events`, `messages`, `errors`, `config`); never `commands`, `cli`, `runtime`, the loop, the
models or `openai`.
"""
