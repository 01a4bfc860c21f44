"""Step 3, lookups: the reads of the requests no recogniser took, planned together.

`reader.read_lookups` reads issues, comparisons, docs, error codes and searches named in the lookup
requests; `docs` finds the doc pages and sections named; `unplanned` the doc topic, error or heading a
request names without saying "doc", and what no tool can do. It plans no action.
"""
