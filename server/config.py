"""Server configuration: embedded defaults, then a TOML file, then overrides.

``config/default.toml`` holds every key with its default, grouped in sections
(``[server]``, ``[limits]``, ``[ssh]``, ``[timers]``, ``[chips]``, ``[storage]``, ``[social]``, ``[cluster]``,
``[restart]``). A configuration file
given with ``--config`` uses the same sections and keys; keyword overrides
(command-line flags, tests) use the bare key names, which are unique across
sections. Unknown keys are refused, so a typo never goes unnoticed.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_FILE = Path(__file__).resolve().parent.parent / "config" / "default.toml"


class ConfigError(ValueError):
    """A configuration file or override that cannot be used."""


@dataclass(frozen=True, slots=True)
class Config:
    # [server]
    host: str = "127.0.0.1"
    ssh_port: int = 2222
    telnet_port: int = 2323
    telnet_mssp: bool = True
    telnet_gmcp: bool = True
    telnet_mccp: bool = True
    data_dir: Path = field(default_factory=lambda: Path("data"))
    db_file: str = "donne.sqlite3"
    host_key_file: str = "ssh_host_ed25519_key"
    default_lang: str = "fr"
    log_level: str = "INFO"
    log_per_connection: int = 100
    bot_processes: int = 0
    event_loop: str = "auto"
    gc_freeze_seconds: float = 1.0
    gc_full_seconds: float = 3600.0
    gc_young: int = 100000
    gc_full_closed: int = 2000
    motd: str = ""
    verify_url: str = ""
    # [limits]
    max_line: int = 1024
    input_bytes_per_second: int = 16384
    input_burst: int = 131072
    commands_per_second: float = 8.0
    command_burst: int = 20
    flood_disconnect: int = 200
    idle_timeout: float = 1800.0
    max_connections_per_address: int = 20
    login_timeout: float = 60.0
    outbound_queue: int = 2000
    drain_timeout: float = 20.0
    max_rooms: int = 500
    rooms_per_account: int = 2
    rooms_per_address: int = 5
    guest_room_share: float = 0.8
    max_name: int = 20
    max_chat: int = 300
    ssh_keepalive: float = 30.0
    telnet_connect_maxwait: float = 0.4
    registrations_per_hour: int = 3
    chat_per_minute: float = 20.0
    chat_burst: int = 5
    tells_per_minute: float = 30.0
    tells_burst: int = 10
    tells_received_per_minute: float = 60.0
    tells_received_burst: int = 20
    challenges_per_minute: float = 6.0
    challenges_burst: int = 3
    challenges_received_per_minute: float = 6.0
    challenges_received_burst: int = 3
    seeks_per_minute: float = 4.0
    seeks_burst: int = 3
    verify_per_minute: float = 20.0
    verify_burst: int = 5
    logins_per_minute: float = 12.0
    logins_burst: int = 6
    # [ssh] (algorithm lists: empty = our defaults, see server/transports/ssh.py)
    kex: tuple[str, ...] = ()
    ciphers: tuple[str, ...] = ()
    macs: tuple[str, ...] = ()
    signature_algs: tuple[str, ...] = ()
    compression: tuple[str, ...] = ()
    ssh_max_sessions: int = 3
    ssh_window: int = 16384
    # [timers]
    turn_seconds: float = 30.0
    auction_seconds: float = 10.0
    flip_seconds: float = 10.0
    offer_seconds: float = 15.0
    time_bank: float = 60.0
    time_bank_step: float = 15.0
    grace_seconds: float = 60.0
    round_pause: float = 3.0
    bot_delay: float = 0.8
    close_after_over: float = 120.0
    cut_window: float = 6.0
    trade_window: float = 6.0
    entropy_window: float = 2.0
    autopass_delay: float = 1.0
    room_wait_seconds: float = 600.0
    # [chips]
    starting_chips: int = 1000
    guest_chips: int = 200
    allow_guests: bool = True
    allow_registration: bool = True
    bot_chips: int = 1000
    default_stake: int = 2
    default_ante: int = 1
    # [storage]
    url: str = ""
    # [restart]
    durable_tables: bool = True
    resume_window: float = 60.0
    shutdown_in: float = 0.0
    check_hashes: bool = True
    write_ahead: bool = True
    # [social]
    rate_bot_tables: bool = False
    rating_min_games: int = 5
    mail_per_sender: int = 5
    mail_per_recipient: int = 50
    max_friends: int = 200
    max_bio: int = 300
    challenge_seconds: float = 60.0
    seek_seconds: float = 300.0
    # [cluster] (docs/cluster.md; empty redis_url: one process, the embedded default)
    redis_url: str = ""
    node: str = ""
    lease_seconds: float = 5.0
    keepalive_seconds: float = 1.0
    remote_timeout: float = 10.0
    service_timeout: float = 2.0
    # [tournaments] (docs/tournaments.md; its key is create in the file: see _SECTION_KEYS)
    tournament_create: str = "staff"
    # [metrics] (its keys are host and port in the file: see _SECTION_KEYS)
    metrics_host: str = "127.0.0.1"
    metrics_port: int = 0
    # [mssp] (free keys: MSSP variables an operator sets, docs/operators.md)
    mssp: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # [web] (docs/web.md; its keys are host, port... in the file: see _SECTION_KEYS)
    web_host: str = "127.0.0.1"
    web_port: int = 0
    web_origins: tuple[str, ...] = ()
    web_trusted_proxies: tuple[str, ...] = ()

    @property
    def db_path(self) -> Path:
        return self.data_dir / self.db_file

    @property
    def host_key_path(self) -> Path:
        return self.data_dir / self.host_key_file

    def replace(self, **changes: object) -> Config:
        return _build({**dataclasses.asdict(self), **changes})


PACED = ("tells", "tells_received", "challenges", "challenges_received", "seeks", "verify", "logins")
"""The kinds of ``KIND_per_minute`` and ``KIND_burst`` keys (``server/lobby/pace.py``)."""

_FIELDS = {f.name: f for f in dataclasses.fields(Config)}
_SECTION_KEYS = {("metrics", "host"): "metrics_host", ("metrics", "port"): "metrics_port",
                 ("web", "host"): "web_host", ("web", "port"): "web_port", ("web", "origins"): "web_origins",
                 ("web", "trusted_proxies"): "web_trusted_proxies", ("tournaments", "create"): "tournament_create"}
"""Keys a section names like another section's: ``[metrics] host`` is ``metrics_host``."""


def _flatten(doc: Mapping[str, object], source: str) -> dict[str, object]:
    flat: dict[str, object] = {}
    for section, values in doc.items():
        if not isinstance(values, dict):
            raise ConfigError(f"{source}: top-level key {section!r} must be a [section]")
        if section == "mssp":  # its keys are MSSP variable names, not settings
            flat["mssp"] = values
            continue
        for key, value in values.items():
            key = _SECTION_KEYS.get((section, key), key)
            if key not in _FIELDS:
                raise ConfigError(f"{source}: unknown key {section}.{key}")
            flat[key] = value
    return flat


def _coerce(name: str, value: Any) -> Any:  # a TOML value or an override, made its field's type
    kind = _FIELDS[name].type
    try:
        if kind == "Path":
            return Path(value)
        if kind == "int":
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError(value)
            return int(value)
        if kind == "float":
            if isinstance(value, bool):
                raise ValueError(value)
            return float(value)
        if kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(value)
            return value
        if kind == "str":
            if not isinstance(value, str):
                raise ValueError(value)
            return value
        if kind == "tuple[tuple[str, tuple[str, ...]], ...]":
            return _mssp_table(value)
        if kind == "tuple[str, ...]":
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v for v in value):
                raise ValueError(value)
            return tuple(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name}: expected {kind}, got {value!r}") from None
    return value


def _mssp_table(value: dict[str, object] | Iterable[tuple[object, object]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``[mssp]``: MSSP variable names (upper case letters, digits, spaces, ``_ -``) to a string, a
    number, a boolean (``"1"``/``"0"``) or a list of strings; in the order given."""
    items = value.items() if isinstance(value, dict) else value
    table: list[tuple[str, tuple[str, ...]]] = []
    for name, raw in items:
        if not isinstance(name, str) or not name or len(name) > 40 or name != name.upper() or \
                not all(c.isalnum() or c in " _-" for c in name):
            raise ValueError(name)
        values = raw if isinstance(raw, list | tuple) else [raw]
        words: list[str] = []
        for v in values:
            if isinstance(v, bool):
                words.append("1" if v else "0")
            elif isinstance(v, int | float | str) and len(str(v)) <= 400:
                words.append(str(v))
            else:
                raise ValueError(v)
        table.append((name, tuple(words)))
    return tuple(table)


def _build(values: Mapping[str, object]) -> Config:
    unknown = set(values) - set(_FIELDS)
    if unknown:
        raise ConfigError(f"unknown configuration keys: {', '.join(sorted(unknown))}")
    cfg = Config(**{k: _coerce(k, v) for k, v in values.items()})
    _check(cfg)
    return cfg


def _check(cfg: Config) -> None:
    for port in (cfg.ssh_port, cfg.telnet_port, cfg.metrics_port, cfg.web_port):
        if not 0 <= port <= 65535:
            raise ConfigError(f"port out of range: {port}")
    positive = ("max_line", "input_bytes_per_second", "input_burst", "commands_per_second", "command_burst", "outbound_queue", "drain_timeout",
                "max_name", "max_chat", "turn_seconds", "auction_seconds", "login_timeout",
                "log_per_connection", "ssh_max_sessions")
    for name in positive:
        if getattr(cfg, name) <= 0:
            raise ConfigError(f"{name} must be positive")
    for name in ("flip_seconds", "offer_seconds", "time_bank", "time_bank_step", "grace_seconds", "round_pause", "bot_delay", "idle_timeout",
                 "close_after_over", "ssh_keepalive", "telnet_connect_maxwait", "cut_window", "trade_window",
                 "entropy_window",
                 "autopass_delay", "resume_window", "shutdown_in", "room_wait_seconds"):
        if getattr(cfg, name) < 0:
            raise ConfigError(f"{name} must not be negative")
    if not 1024 <= cfg.ssh_window <= 2**21:
        raise ConfigError("ssh_window must be between 1024 and 2097152 bytes")
    if cfg.default_stake < 0 or cfg.default_stake % 2:
        raise ConfigError("default_stake must be an even number of chips (T13)")
    if cfg.starting_chips < 0 or cfg.guest_chips < 0:
        raise ConfigError("starting_chips and guest_chips must not be negative")
    if cfg.max_rooms < 1:
        raise ConfigError("max_rooms must be at least 1")
    if cfg.rooms_per_account < 0 or cfg.rooms_per_address < 0:
        raise ConfigError("rooms_per_account and rooms_per_address must not be negative (0: no limit)")
    if not 0.0 <= cfg.guest_room_share <= 1.0:
        raise ConfigError("guest_room_share must be between 0 and 1")
    if cfg.event_loop not in ("auto", "uvloop", "asyncio"):
        raise ConfigError("event_loop must be auto, uvloop or asyncio")
    if cfg.gc_freeze_seconds < 0 or cfg.gc_full_seconds < 0 or cfg.gc_young < 0 or cfg.gc_full_closed < 0:
        raise ConfigError("gc_freeze_seconds, gc_full_seconds, gc_young and gc_full_closed must not be negative "
                          "(0: off)")
    if cfg.bot_processes < 0:
        raise ConfigError("bot_processes must not be negative (0: one less than the machine's cores)")
    if cfg.registrations_per_hour < 0:
        raise ConfigError("registrations_per_hour must not be negative (0: no limit)")
    if cfg.chat_per_minute < 0:
        raise ConfigError("chat_per_minute must not be negative (0: no limit)")
    if cfg.chat_burst < 1:
        raise ConfigError("chat_burst must be at least 1")
    for kind in PACED:
        if getattr(cfg, f"{kind}_per_minute") < 0:
            raise ConfigError(f"{kind}_per_minute must not be negative (0: no limit)")
        if getattr(cfg, f"{kind}_burst") < 1:
            raise ConfigError(f"{kind}_burst must be at least 1")
    if cfg.max_connections_per_address < 1:
        raise ConfigError("max_connections_per_address must be at least 1")
    if len(cfg.motd) > 2000:
        raise ConfigError("motd: at most 2000 characters")
    if cfg.url and not cfg.url.startswith(("postgresql://", "postgres://")):
        raise ConfigError("storage url must be empty (SQLite in the data folder) or a postgresql:// URL")
    for name in ("rating_min_games", "mail_per_sender", "mail_per_recipient", "max_friends", "max_bio"):
        if getattr(cfg, name) < 0:
            raise ConfigError(f"{name} must not be negative")
    if cfg.challenge_seconds <= 0 or cfg.seek_seconds <= 0:
        raise ConfigError("challenge_seconds and seek_seconds must be positive")
    if cfg.redis_url:
        if not cfg.redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigError("cluster redis_url must be a redis:// URL")
        if not cfg.url:
            raise ConfigError("a cluster node keeps its community in PostgreSQL: set [storage] url")
        if not cfg.node or not all(c.isalnum() or c in "-_." for c in cfg.node) or len(cfg.node) > 64:
            raise ConfigError("cluster node must be a name (letters, digits, - _ .), unique in the cluster")
    if cfg.keepalive_seconds <= 0 or cfg.lease_seconds < 3 * cfg.keepalive_seconds or cfg.remote_timeout <= 0:
        raise ConfigError("keepalive_seconds and remote_timeout must be positive, lease_seconds at least "
                          "three keep-alives")
    if cfg.service_timeout <= 0:
        raise ConfigError("service_timeout must be positive")
    if cfg.tournament_create not in ("staff", "accounts"):
        raise ConfigError('tournaments create must be "staff" or "accounts"')
    if cfg.default_ante < 1 or cfg.bot_chips < 0:
        raise ConfigError("default_ante must be at least 1 and bot_chips not negative")


def load_config(path: str | Path | None = None, **overrides: object) -> Config:
    """Embedded defaults, then the TOML file at ``path``, then ``overrides`` (bare key names).

    Overrides whose value is ``None`` are ignored, so unset command-line flags
    can be passed straight through.
    """
    values: dict[str, object] = {}
    with DEFAULT_FILE.open("rb") as fh:
        values.update(_flatten(tomllib.load(fh), str(DEFAULT_FILE.name)))
    if path is not None:
        try:
            with Path(path).open("rb") as fh:
                doc = tomllib.load(fh)
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}") from None
        values.update(_flatten(doc, str(path)))
    values.update({k: v for k, v in overrides.items() if v is not None})
    return _build(values)
