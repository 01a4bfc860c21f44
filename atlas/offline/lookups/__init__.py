"""Step 3, lookups: the reads of the requests no recogniser took, planned together.

`reader.read_lookups` reads the issues, comparisons, docs and error codes the lookup requests name (a search
is an act, never a lookup); `docs` finds the doc pages and sections named; `unplanned` the doc topic, error
or heading a request names without saying "doc", and what no tool can do. It plans no action.
"""
