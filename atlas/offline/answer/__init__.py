"""Step 4, answer: the Markdown written from what the tools returned, none of it dropped.

`render` writes round one's answer; `round_two` what round two decided and did; `results` each read tool's
result (triage reads, a plugin's data); `issue_view` a whole issue; `quoting` quotes outsiders' text;
`help` and `nearest` what to say when nothing was understood.
"""
