"""Step 1, reading: a message split into requests, and what each names in the project's own vocabulary.

`frames` cuts the message into requests (quoted text whole, pasted output set apart); `words` makes it
plain and spells out shorthand; `entities`, `issue_refs`, `labels` and `dates` find issues, labels, people
and days; `search` reads a request for issues into `search_issues` filters; `vocabulary`, `label_usage`,
`sections` and `topics` are what the project's data and docs say its words mean. `lazy` and
`pattern_cache` compile each pattern once, on first use. Nothing here decides what a request does.
"""
