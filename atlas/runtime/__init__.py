"""What a command sets up to answer a question (`kit`): settings, tools, the model, the call log, a session id;
and where an answered turn is priced and recorded."""
