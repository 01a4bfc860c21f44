"""The `atlas` command line: wiring only; each command's body lives in `atlas.commands`.

`root.py` is the Typer application and its top-level commands, `groups.py`, `policy.py`, `state.py` and
`triage.py` its command groups, `options.py` what they share. `fast.py` runs a plain `atlas ask WORDS...`
without Typer. `descriptors.py` and `quick_exit.py` make a process's start and end safe and quick. Nothing
here is imported at package import, so `atlas.cli.fast` stays light.
"""
