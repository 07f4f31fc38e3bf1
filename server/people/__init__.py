"""A person's presence on the server as the lobby and rooms see it: players, their output, resume codes."""
