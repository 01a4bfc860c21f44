"""Triage of a backlog: label groups, inbox signals, label proposals, similar issues, plans, evaluation.

Learned from the project's own issues. scikit-learn is imported only by `model.py`, and only
when a proposal or a similarity ranking is asked for: nothing here is loaded by `atlas --help`,
`atlas tools` or an `ask` that does not call a triage tool.
"""
