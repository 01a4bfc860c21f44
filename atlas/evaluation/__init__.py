"""Eval suites (`suites`: reading cases and scoring the calls a model planned) and the faults a case may
inject into read tools (`faults`)."""
