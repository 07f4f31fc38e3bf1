"""One connection's session: the front door, the session, the command dispatcher."""
