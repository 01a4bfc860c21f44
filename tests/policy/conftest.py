"""The fake GitHub of tests/github, for the CI workflow's end-to-end test and the GitHub guards."""

from tests.github.conftest import data, github, quill_data, synced_quill

__all__ = ["data", "github", "quill_data", "synced_quill"]
