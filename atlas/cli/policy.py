"""The `atlas policy` command group: wiring only, as in `atlas.cli`."""

from __future__ import annotations

import typer

from atlas.cli.options import command_group, examples

policy_app = command_group("Approval policies: the rules that allow, ask or deny side effects before you are asked.")


@policy_app.command("list", epilog=examples("atlas policy list", "atlas policy list --json"))
def policy_list(as_json: bool = typer.Option(False, "--json", help="One JSON object per rule.")) -> None:
    """Every rule, where it comes from (file:line), and whether it applies."""
    from atlas.commands import guarded
    from atlas.commands.policy import list_rules

    guarded(lambda: list_rules(as_json=as_json))


@policy_app.command("check", epilog=examples("atlas policy check"))
def policy_check() -> None:
    """Read every policy file and run each rule's examples (exit 1 when one fails, 2 when a file is malformed)."""
    from atlas.commands import guarded
    from atlas.commands.policy import check_rules

    raise typer.Exit(guarded(check_rules))


@policy_app.command("revoke", epilog=examples("atlas policy revoke granted-add-label-3f2a"))
def policy_revoke(name: str = typer.Argument(..., help="The name of a rule granted at the prompt.")) -> None:
    """Remove a rule that was granted at the prompt ("allow actions like this in this project")."""
    from atlas.commands import guarded
    from atlas.commands.policy import revoke_rule

    guarded(lambda: revoke_rule(name))


@policy_app.command("trust", epilog=examples("atlas policy trust", "atlas policy trust .atlas/config.toml"))
def policy_trust(
    path: str | None = typer.Argument(None, help="The file to trust (default: each found file not trusted yet)."),
) -> None:
    """Let a found .atlas/config.toml allow, as it is now (any later change makes it untrusted again)."""
    from atlas.commands import guarded
    from atlas.commands.policy import trust_file

    guarded(lambda: trust_file(path))
