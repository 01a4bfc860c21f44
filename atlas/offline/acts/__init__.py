"""Step 2, acts: each request given one typed `Intent` by the first recogniser of an ordered table.

`table.RECOGNISERS` is the order (an action before a read of the same words, a doc named before a count,
a lookup what is left); `act` holds `Act` and `Intent`. Each kind of request has one home: comments in
`comments`, label changes in `labels`, conditions in `conditions`, the inbox and triage plans in
`backlog`, doc asks and label meanings in `docs`, symptoms in `symptoms`; `later` is what an act leaves
for round two. Actions (labels, comments) are planned here and nowhere else.
"""
