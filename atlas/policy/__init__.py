"""Approval policies: typed allow/ask/deny rules for side effects, decided before anyone is asked.

`rules.py` is the rule format, `load.py` reads it from `config.toml` files (with the line of each
rule, and which files are trusted to allow), `facts.py` says what a call is about, `decide.py`
evaluates deny → ask → allow with the built-in guards, `gate.py` is what the executor consults,
and `grant.py` writes the rules a person grants at the prompt.
"""
