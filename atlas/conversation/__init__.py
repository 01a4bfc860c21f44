"""One conversation with a model: the tool loop (`loop`), the history sent to the model within a budget
(`history`), and the last chat kept for `atlas chat --continue` (`chat_memory`)."""
