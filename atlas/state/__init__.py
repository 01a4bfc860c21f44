"""Where a team's shared state lives: local files (the default) or one PostgreSQL database.

`settings.py` reads `ATLAS_STATE_URL` / `[state] url`; `who.py` names the person and machine each
record carries; `postgres/` holds the database backend (psycopg, imported only when a URL is set).
"""
