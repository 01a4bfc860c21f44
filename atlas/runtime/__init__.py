"""The session a command answers through (`session.Session`, opened by `session.open_session`): settings, tools,
the model, its channel of events, its executor and call log; one question answered = traced, run, recorded."""
