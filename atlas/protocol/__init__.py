"""What the loop, the models, the executor and the listeners say to each other.

Tool calls, model turns and token usage (`messages`), the envelope every tool call is answered with
(`envelope`), and what happens in a session, on one channel of events (`events`).
"""
