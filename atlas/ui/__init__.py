"""Everything that draws on or reads from the terminal.

Rich views (`board.py`, `turn_view.py`, `render.py`), the approval prompt on `/dev/tty`
(`approval.py`), the chat's prompt_toolkit pieces (`prompt.py`) and `safe.py`, the one sanitiser
for untrusted text, and `json_out.py`, the one way JSON is printed. It subscribes to
`atlas.protocol.events` and imports only the layers below the listeners (`atlas/__init__.py`); never
`commands`, `cli` or `runtime`, a tool but by its definition, or `openai`.
"""
