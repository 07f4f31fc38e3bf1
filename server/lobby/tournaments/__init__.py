"""Tournaments in the server: the lobby's hall (:mod:`~server.lobby.tournaments.hall`), one asyncio
shell per event (:mod:`~server.lobby.tournaments.shell`) and the tables it opens
(:mod:`~server.lobby.tournaments.tables`). The events themselves are ``server/tournaments/``
(sans I/O); see docs/tournaments.md."""
