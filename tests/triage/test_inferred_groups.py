"""Label groups inferred from how flat labels are used: labels that behave as one choice are a group."""

from __future__ import annotations

from atlas.triage.groups import learn_groups, missing_groups, one_choice


def backlog() -> list[tuple[str, ...]]:
    """Each issue one of four kinds; topics ride along with any kind; a third of the issues have no label."""
    kinds = ["bug"] * 40 + ["enhancement"] * 30 + ["question"] * 10 + ["documentation"] * 8
    issues: list[tuple[str, ...]] = []
    for n, kind in enumerate(kinds):
        topic = ("streaming",) if n % 3 == 0 else ("windows",) if n % 7 == 0 else ()
        issues.append((kind, *topic))
    return issues + [("streaming",)] * 4 + [()] * 45


def test_flat_labels_that_are_one_choice_form_a_group_and_topics_stay_out() -> None:
    assert one_choice(backlog(), set()) == ["bug", "enhancement", "question", "documentation"]
    known = {label for labels in backlog() for label in labels}
    (group,) = learn_groups(backlog(), known, {})
    assert group.name == "kind" and group.inferred and group.always
    assert group.shown == "kind (bug, enhancement, question, documentation)"
    assert [g.name for g in missing_groups([group], ("streaming",))] == ["kind"]
    assert not missing_groups([group], ("bug", "streaming"))


def test_labels_that_often_come_together_are_not_one_choice() -> None:
    together = [("bug", "enhancement")] * 20 + [("bug",)] * 20 + [("enhancement",)] * 20
    assert one_choice(together, set()) == []


def test_labels_on_few_of_the_labelled_issues_are_not_a_choice() -> None:
    assert one_choice([("bug",)] * 10 + [("docs",)] * 2 + [("ci",)] * 90 + [("ci", "bug")] * 5, set()) == []


def test_configured_groups_are_used_instead_of_inferred_ones() -> None:
    known = {label for labels in backlog() for label in labels}
    groups = learn_groups(backlog(), known, {"type": ("bug", "enhancement")})
    assert [(g.name, g.labels, g.inferred) for g in groups] == [("type", ("bug", "enhancement"), False)]


def test_prefixed_labels_keep_their_groups_and_flat_ones_join_as_a_choice() -> None:
    issues = [("prio:high", "bug")] * 10 + [("prio:low", "feature")] * 10 + [("prio:low", "bug")] * 5
    known = {"prio:high", "prio:low", "bug", "feature"}
    groups = {g.name: g for g in learn_groups(issues, known, {})}
    assert groups["prio"].labels == ("prio:high", "prio:low") and groups["prio"].short == "prio:"
    assert groups["kind"].labels == ("bug", "feature") and groups["kind"].short == "kind"


def test_a_label_whose_issues_seldom_carry_a_group_stands_in_for_it() -> None:
    # `dataset bug` issues carry a kind 1 time in 6, `streaming` ones 30 times in 34.
    issues = [*backlog(), *[("dataset bug",)] * 5, ("dataset bug", "bug")]
    known = {label for labels in issues for label in labels}
    (group,) = learn_groups(issues, known, {})
    assert group.always and "dataset bug" in group.excused_by and "streaming" not in group.excused_by
    assert not missing_groups([group], ("dataset bug",))
    assert [g.name for g in missing_groups([group], ("streaming",))] == ["kind"]
    assert [g.name for g in missing_groups([group], ())] == ["kind"]


def test_a_stand_in_is_a_kind_only_when_its_issues_say_which() -> None:
    from atlas.triage.corpus import Issue
    from atlas.triage.issue_kinds import BUG, learn

    def issue(n: int, labels: tuple[str, ...], body: str) -> Issue:
        return Issue(n, "A report", body, "open", "someone", "2024-01-01T00:00:00Z", labels)

    failing = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad'
    issues = [issue(n, ("bug",), failing) for n in range(10)] + [
        issue(n, ("enhancement",), "Add it") for n in range(20, 30)
    ]
    # Each seldom comes with a kind (2 of 8), too often to be one of the choice.
    issues += [issue(n, ("dataset bug",) if n < 46 else ("dataset bug", "bug"), failing) for n in range(40, 48)]
    issues += [
        issue(n, ("viewer",) if n < 56 else ("viewer", "enhancement"), "The page is empty") for n in range(50, 58)
    ]
    known = {"bug", "enhancement", "dataset bug", "viewer"}
    (group,) = learn_groups([i.labels for i in issues], known, {})
    assert {"dataset bug", "viewer"} <= set(group.excused_by)
    kinds = learn([group], issues)
    assert kinds.of(("dataset bug",)) == BUG and kinds.of(("viewer",)) is None and kinds.of(("enhancement",)) != BUG
