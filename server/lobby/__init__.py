"""The lobby: who is online, the rooms, seeks and challenges, rate budgets between people, moderation,
tables restored after a restart."""
