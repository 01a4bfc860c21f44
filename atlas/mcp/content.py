"""What an MCP tool returned, as data for the model: structured content first, text parts, the rest summarised.

Images, audio and binary resources are never passed on: the model is told their type and size.
Whatever the server sent stays untrusted text; `atlas.executor.outputs` bounds it like any result.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from atlas.foundation.errors import PermanentToolError


def _decoded_size(base64_text: str) -> int:
    return len(base64_text) * 3 // 4 - base64_text[-2:].count("=")


def _summary(block: types.ContentBlock) -> str | None:
    """Text for a block that is not plain text; None for a text block."""
    if isinstance(block, types.TextContent):
        return None
    if isinstance(block, (types.ImageContent, types.AudioContent)):
        return f"[{block.type}: {block.mime_type}, {_decoded_size(block.data):,} bytes, not shown]"
    if isinstance(block, types.ResourceLink):
        return f"[resource link: {block.uri} ({block.mime_type or 'type unknown'})]"
    resource = block.resource
    if isinstance(resource, types.TextResourceContents):
        return f"[resource {resource.uri} ({resource.mime_type or 'text'})]\n{resource.text}"
    size = _decoded_size(resource.blob)
    return f"[resource {resource.uri}: {resource.mime_type or 'binary'}, {size:,} bytes, not shown]"


def content_text(result: types.CallToolResult) -> str:
    """Every block in order: text as it is, anything else as a one-line summary."""
    parts = []
    for block in result.content:
        summary = _summary(block)
        parts.append(block.text if isinstance(block, types.TextContent) else summary or "")
    return "\n".join(parts)


def result_data(result: types.CallToolResult) -> Any:
    """The data of a successful call; an error result raises with the server's own text."""
    if result.is_error:
        text = content_text(result).strip() or "the tool reported an error without saying why"
        raise PermanentToolError(text)
    if result.structured_content is not None:
        return result.structured_content
    return content_text(result)
