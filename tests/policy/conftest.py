"""The fake GitHub of tests/github, for the CI workflow's end-to-end test."""

from tests.github.conftest import github

__all__ = ["github"]
