"""The call log: every tool call and every answered question, in one SQLite file.

`schema.py` holds the migrations, `store.py` the connection and its write transactions,
`queries.py` the reads (`atlas log`, stats, replay export), `log.py` the `CallLog` that joins
them and the listener that writes finished calls a batch at a time (`CallLogWriter`).
It may import `atlas.protocol.events`, `atlas.foundation.errors` and `atlas.foundation.statefiles`; never the tools, the
models, the UI or the commands.
"""

from __future__ import annotations

from atlas.calllog.log import CallLog, CallLogWriter
from atlas.calllog.schema import MIGRATIONS
from atlas.calllog.store import CallLogError

__all__ = ["MIGRATIONS", "CallLog", "CallLogError", "CallLogWriter"]
