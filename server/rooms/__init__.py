"""Rooms: the asyncio shell around one table, its inbox, the bots' thinking, the seat claims."""
