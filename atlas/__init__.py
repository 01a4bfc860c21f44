"""Atlas: a terminal assistant that answers Orbit maintainers' questions through tools."""

__version__ = "0.1.0"
