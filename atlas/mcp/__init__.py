"""MCP: other servers' tools through Atlas's executor (client), and Atlas's tools to MCP hosts (serve).

Nothing here is imported unless `config.toml` names an MCP server or `atlas mcp` runs: the `mcp`
SDK and its dependencies cost start-up time that `atlas --help` and offline questions never pay.
"""
