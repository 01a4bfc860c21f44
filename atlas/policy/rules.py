"""The rule format of `[[policy.rules]]`: a decision for a tool, narrowed by typed conditions.

A rule says nothing about a call unless every condition it sets holds; conditions it leaves out
hold for any call. Label and text conditions hold only for calls that carry a label or a text.
Every model is strict: a value of the wrong type (`max_per_run = "5"`, `after_untrusted = 1`) is
an error naming its line, never converted.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from atlas.foundation import bounded_regex
from atlas.policy.free_text import free_text_problem
from atlas.policy.kinds import COMMENT_TOOLS, LABEL_TOOLS

Decision = Literal["allow", "ask", "deny"]
STRICTNESS: dict[str, int] = {"deny": 3, "ask": 2, "allow": 1}
RULE_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"


class Annotations(BaseModel):
    """MCP tool annotations a rule may require (a missing hint counts as its MCP default)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


class Example(BaseModel):
    """A call a rule must (or must not) match: `atlas policy check` runs them."""

    model_config = ConfigDict(extra="forbid", strict=True)

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    issue_state: Literal["open", "closed"] | None = None
    repository: str | None = None
    dataset: str | None = None
    untrusted: bool = False
    """Whether untrusted text was read earlier in the turn."""
    annotations: Annotations | None = None


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(pattern=RULE_NAME)
    decision: Decision
    tool: list[str] = Field(min_length=1)
    """Tool names, or globs over them (`git__*` for an MCP server's tools)."""
    labels: list[str] | None = None
    """Globs over the label (`comp:*`), case-insensitive, matched on the tracker's spelling."""
    label_groups: list[str] | None = None
    """Names of `[policy.label_groups]`: the label matches one of the group's globs."""
    issues: list[int] | None = None
    issue_state: Literal["open", "closed"] | None = None
    repository: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
    """`OWNER/REPO`: the GitHub repository the write goes to (or the dataset was synced from)."""
    dataset: str | None = None
    """The dataset folder: its full path, or its folder name."""
    text: list[str] | None = None
    """A comment's whole text must be one of these."""
    pattern: str | None = None
    """A comment's whole text must match this regular expression."""
    max_chars: int | None = Field(default=None, ge=1, le=65536)
    args: dict[str, Any] | None = None
    """These arguments must have exactly these values."""
    annotations: Annotations | None = None
    max_per_run: int | None = Field(default=None, ge=1, le=10000)
    max_per_issue: int | None = Field(default=None, ge=1, le=10000)
    after_untrusted: bool = False
    """An allow that still holds after untrusted text was read in the turn (a triage allowlist)."""
    must_match: list[Example] = Field(default_factory=list)
    must_not_match: list[Example] = Field(default_factory=list)
    reason: str | None = Field(default=None, max_length=200)

    _tool = field_validator("tool", "labels", "text", mode="before")(lambda value: _as_list(value))

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        # Compiled as it is matched (`regex`, every character matching `.`), so a pattern that loads is one that runs.
        problem = None if value is None else bounded_regex.problem(value, bounded_regex.DOTALL)
        if problem is not None:
            raise ValueError(f"pattern is not a regular expression Atlas can use: {problem}")
        return value

    @model_validator(mode="after")
    def _coherent(self) -> Rule:
        if self.decision != "allow" and (self.max_per_run or self.max_per_issue or self.after_untrusted):
            raise ValueError("max_per_run, max_per_issue and after_untrusted belong to allow rules")
        if self.after_untrusted and not self.narrow_enough_for_untrusted():
            raise ValueError(
                "an allow with after_untrusted = true must be a label allowlist (labels or label_groups, "
                "for add_label/remove_label only) or a fixed comment text (text or pattern, for post_comment only)"
            )
        blanket = self.blanket_parts(self.labels or []) if self.after_untrusted else []
        if blanket:
            field, problem = blanket[0]
            raise at_field(field, f"after_untrusted = true needs {problem}")
        return self

    def blanket_parts(self, globs: list[str]) -> list[tuple[str, str]]:
        """What keeps this rule, with these label globs, from being narrow enough for after untrusted
        text: `(field, why)` for a pattern with room for free text, or a glob that takes every label."""
        parts: list[tuple[str, str]] = []
        problem = None if self.pattern is None else free_text_problem(self.pattern)
        if problem is not None:
            parts.append(("pattern", f"a fixed comment, and {problem}"))
        for glob in globs:
            if "*" in glob and not glob.strip("*?"):
                parts.append(("labels", f"a label allowlist, and {glob!r} takes every label"))
        return parts

    def narrow_enough_for_untrusted(self) -> bool:
        """Never a blanket allow: only label allowlists and fixed comment texts may act after untrusted text."""
        labelled = bool(self.labels or self.label_groups) and all(tool in LABEL_TOOLS for tool in self.tool)
        fixed_text = bool(self.text or self.pattern) and all(tool in COMMENT_TOOLS for tool in self.tool)
        return labelled or fixed_text


class PolicyDocument(BaseModel):
    """The `[policy]` table of one file."""

    model_config = ConfigDict(extra="forbid", strict=True)

    rules: list[Rule] = Field(default_factory=list)
    label_groups: dict[str, list[str]] = Field(default_factory=dict)


def at_field(field: str, message: str) -> PydanticCustomError:
    """A rule's problem that belongs to one of its fields (named, with its line, in the error)."""
    return PydanticCustomError("rule_field", message, {"field": field})
