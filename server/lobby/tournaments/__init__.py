"""Tournaments in the server: the lobby's hall (:mod:`~server.lobby.tournaments.hall`, what it needs of
the lobby: :mod:`~server.lobby.tournaments.host`), one asyncio shell per event
(:mod:`~server.lobby.tournaments.shell`), the tables it opens (:mod:`~server.lobby.tournaments.tables`),
what commands read (:mod:`~server.lobby.tournaments.views`) and an event's restart
(:mod:`~server.lobby.tournaments.restart`). The events themselves are ``server/tournaments/`` (sans
I/O); see docs/tournaments.md."""
