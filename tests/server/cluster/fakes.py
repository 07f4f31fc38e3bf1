"""Fakes for the cluster lobby's parts: a bus that records, a room that answers, a lobby's face."""

from __future__ import annotations

import asyncio
import types
from typing import Any

from server.people.players import Player


class FakeBus:
    """What the parts send: to a node, or to every node."""

    def __init__(self, handler: Any = None) -> None:
        self.handler = handler or (lambda msg: None)
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.broadcasts: list[dict[str, Any]] = []
        self.healthy = True
        self.outages = 0
        self.redis: Any = None

    @property
    def started(self) -> bool:
        return self.redis is not None

    def send(self, node: str, msg: dict[str, Any]) -> None:
        self.sent.append((node, msg))

    def broadcast(self, msg: dict[str, Any]) -> None:
        self.broadcasts.append(msg)


class FakeRoom:
    """A room of this node: commands run (counted), people drawn again, stopped."""

    def __init__(self, rid: str, durable: bool = False) -> None:
        self.id = rid
        self.closed = False
        self.journal = object() if durable else None
        self.ran: list[tuple[str, str]] = []
        self.refreshed: list[str] = []
        self.stopped = False

    async def submit(self, player: Player, cmd: str, args: dict[str, Any]) -> Any:
        self.ran.append((player.key, cmd))
        return {"done": cmd}

    def refresh(self, player: Player) -> None:
        self.refreshed.append(player.key)

    async def stop(self, *, end: bool = False) -> None:
        self.stopped = True

    async def disconnected(self, player: Player) -> None:
        pass


class FakeLobby:
    """The node's lobby as the relay and failover see it."""

    def __init__(self) -> None:
        self.config = types.SimpleNamespace(remote_timeout=5.0, lease_seconds=5.0, keepalive_seconds=1.0,
                                            durable_tables=True)
        self.players: dict[str, Player] = {}
        self.rooms: dict[str, Any] = {}
        self.healthy = True
        self.closing = False
        self.released: list[str] = []
        self.away: set[str] = set()
        self.tasks: list[asyncio.Task[Any]] = []

    async def until_running(self) -> None:
        return None

    async def release(self, player: Player) -> None:
        self.released.append(player.key)

    def spawn(self, coro: Any) -> None:
        self.tasks.append(asyncio.get_running_loop().create_task(coro))

    def moved_away(self, rid: str) -> bool:
        return rid in self.away

    async def settle(self) -> None:
        for _ in range(3):
            await asyncio.sleep(0)
        await asyncio.gather(*self.tasks)


class FakeRedis:
    """Keys and hashes in memory, and pipelines of the commands the keep-alive uses."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.executed = 0
        self.commands: list[tuple[str, str]] = []  # (command, key), as executed

    def pipeline(self, transaction: bool = True) -> FakePipe:
        return FakePipe(self)

    async def scan_iter(self, match: str, count: int = 0) -> Any:
        import fnmatch

        for key in list(self.data):
            if fnmatch.fnmatchcase(key, match):
                yield key


class FakePipe:
    def __init__(self, redis: FakeRedis) -> None:
        self.redis = redis
        self.ops: list[Any] = []

    def __len__(self) -> int:
        return len(self.ops)

    def _op(self, command: str, key: str, run: Any) -> None:
        def op() -> Any:
            self.redis.commands.append((command, key))
            return run()

        self.ops.append(op)

    def set(self, key: str, value: str, px: int | None = None) -> None:
        self._op("set", key, lambda: self.redis.data.__setitem__(key, value))

    def delete(self, *keys: str) -> None:
        self._op("delete", keys[0], lambda: sum(self.redis.data.pop(k, None) is not None for k in keys))

    def hset(self, key: str, *args: Any, mapping: dict[str, str] | None = None) -> None:
        self._op("hset", key, lambda: self.redis.data.setdefault(key, {}).update(mapping or {}))

    def hdel(self, key: str, *fields: str) -> None:
        self._op("hdel", key, lambda: [self.redis.data.get(key, {}).pop(f, None) for f in fields])

    def pexpire(self, key: str, ttl: int) -> None:
        self._op("pexpire", key, lambda: int(key in self.redis.data))

    def hgetall(self, key: str) -> None:
        self._op("hgetall", key, lambda: dict(self.redis.data.get(key, {})))

    async def execute(self) -> list[Any]:
        self.redis.executed += 1
        ops, self.ops = self.ops, []
        return [op() for op in ops]
