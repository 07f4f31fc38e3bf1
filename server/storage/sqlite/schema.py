"""The SQLite schema and its migrations (``schema_version`` says which ran)."""

from __future__ import annotations

import logging
import sqlite3

log = logging.getLogger("donne.storage")

MIGRATIONS: list[str] = [
    # 1: accounts, keys, ledger, escrow, history
    """
    CREATE TABLE accounts (
        id        INTEGER PRIMARY KEY,
        name      TEXT    NOT NULL,              -- display form
        key       TEXT    NOT NULL,              -- identity: NFKC + casefold
        skeleton  TEXT    NOT NULL,              -- look-alike form (names.skeleton)
        kind      TEXT    NOT NULL CHECK (kind IN ('player', 'guest', 'house', 'bot')),
        live      INTEGER NOT NULL DEFAULT 1,    -- 0: a guest who left (rows are never deleted)
        password  TEXT,                          -- scrypt$N$r$p$salt$hash, players only
        balance   INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
        created   REAL    NOT NULL,
        closed    REAL
    );
    CREATE UNIQUE INDEX accounts_live_key ON accounts(key) WHERE live = 1;
    CREATE UNIQUE INDEX accounts_live_skeleton ON accounts(skeleton) WHERE live = 1;

    CREATE TABLE ssh_keys (
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        key        TEXT    NOT NULL,             -- "type base64", as OpenSSH writes it
        comment    TEXT    NOT NULL DEFAULT '',
        added      REAL    NOT NULL,
        PRIMARY KEY (account_id, key)
    );

    CREATE TABLE rounds (
        round_id TEXT    PRIMARY KEY,
        state    TEXT    NOT NULL CHECK (state IN ('open', 'settled', 'refunded')),
        escrow   INTEGER NOT NULL CHECK (escrow >= 0),
        opened   REAL    NOT NULL,
        closed   REAL
    );
    CREATE INDEX rounds_open ON rounds(state) WHERE state = 'open';

    CREATE TABLE stakes (
        round_id   TEXT    NOT NULL REFERENCES rounds(round_id),
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        amount     INTEGER NOT NULL CHECK (amount > 0),
        PRIMARY KEY (round_id, account_id)
    );

    CREATE TABLE entries (
        id         INTEGER PRIMARY KEY,
        ts         REAL    NOT NULL,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        delta      INTEGER NOT NULL,
        kind       TEXT    NOT NULL CHECK (kind IN ('grant', 'retire', 'stake', 'payout', 'refund', 'transfer')),
        round_id   TEXT,
        ref        TEXT    NOT NULL DEFAULT '',
        note       TEXT    NOT NULL DEFAULT ''
    );
    CREATE INDEX entries_account ON entries(account_id, id);
    CREATE INDEX entries_round ON entries(round_id) WHERE round_id IS NOT NULL;

    CREATE TABLE history (
        round_id    TEXT PRIMARY KEY,
        game        TEXT NOT NULL,
        rules       TEXT NOT NULL,
        seats       TEXT NOT NULL,               -- JSON list of names
        config      TEXT NOT NULL,               -- JSON
        log         TEXT NOT NULL,               -- JSON list of action dicts
        result      TEXT NOT NULL,               -- JSON event
        commitment  TEXT NOT NULL DEFAULT '',
        finished_at REAL NOT NULL,
        extra       TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX history_game ON history(game, rules);

    CREATE TABLE history_seats (
        round_id   TEXT    NOT NULL REFERENCES history(round_id),
        seat       INTEGER NOT NULL,
        name       TEXT    NOT NULL,
        key        TEXT    NOT NULL,
        registered INTEGER NOT NULL,             -- a registered account when recorded
        points     INTEGER NOT NULL DEFAULT 0,   -- classic P14
        chips      INTEGER NOT NULL DEFAULT 0,   -- chip change this round (tdc T13, speculation)
        president  INTEGER NOT NULL DEFAULT 0,   -- 1 when this seat was Président
        PRIMARY KEY (round_id, seat)
    );
    CREATE INDEX history_seats_key ON history_seats(key, round_id);
    """,
    # 2: a match's rounds share their log: each record keeps the actions after its base's
    #    (an endless tdc table would otherwise store its whole log again with every round)
    """
    ALTER TABLE history ADD COLUMN log_base TEXT;                          -- round whose log this one extends
    ALTER TABLE history ADD COLUMN log_start INTEGER NOT NULL DEFAULT 0;   -- actions taken from the base
    ALTER TABLE history ADD COLUMN log_len INTEGER NOT NULL DEFAULT 0;     -- actions in the full log
    ALTER TABLE history ADD COLUMN log_hash TEXT NOT NULL DEFAULT '';      -- SHA-256 of the full log
    ALTER TABLE history ADD COLUMN match_key TEXT NOT NULL DEFAULT '';     -- game, rules, config, room
    CREATE INDEX history_match ON history(match_key);
    """,
    # 3: one atomic apply: voidable rounds ('reverse' entries), holds, per-round receipts,
    #    maintained totals, registrations per address, durable tables and counters
    """
    CREATE TABLE entries_v3 (
        id         INTEGER PRIMARY KEY,
        ts         REAL    NOT NULL,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        delta      INTEGER NOT NULL,
        kind       TEXT    NOT NULL CHECK (kind IN ('grant', 'retire', 'stake', 'payout', 'refund', 'transfer',
                                                    'reverse')),
        round_id   TEXT,
        ref        TEXT    NOT NULL DEFAULT '',
        note       TEXT    NOT NULL DEFAULT ''
    );
    INSERT INTO entries_v3 (id, ts, account_id, delta, kind, round_id, ref, note)
        SELECT id, ts, account_id, delta, kind, round_id, ref, note FROM entries;
    DROP TABLE entries;
    ALTER TABLE entries_v3 RENAME TO entries;
    CREATE INDEX entries_account ON entries(account_id, id);
    CREATE INDEX entries_round ON entries(round_id) WHERE round_id IS NOT NULL;

    ALTER TABLE rounds ADD COLUMN table_id TEXT;                -- the table that opened it
    CREATE INDEX stakes_account ON stakes(account_id);

    CREATE TABLE holds (
        hold_id    TEXT    PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        amount     INTEGER NOT NULL CHECK (amount > 0),
        round_id   TEXT    REFERENCES rounds(round_id),
        created    REAL    NOT NULL
    );
    CREATE INDEX holds_account ON holds(account_id);
    CREATE INDEX holds_round ON holds(round_id) WHERE round_id IS NOT NULL;

    CREATE TABLE round_flows (                                   -- open rounds only: net of their transfers
        round_id   TEXT    NOT NULL REFERENCES rounds(round_id),
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        net        INTEGER NOT NULL,
        PRIMARY KEY (round_id, account_id)
    );
    CREATE INDEX round_flows_account ON round_flows(account_id);

    CREATE TABLE ledger_totals (                                 -- maintained sums (audit_summary)
        shard    INTEGER PRIMARY KEY,
        balances INTEGER NOT NULL DEFAULT 0,
        escrow   INTEGER NOT NULL DEFAULT 0,
        held     INTEGER NOT NULL DEFAULT 0,
        granted  INTEGER NOT NULL DEFAULT 0,
        retired  INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO ledger_totals (shard, balances, escrow, held, granted, retired) SELECT 0,
        (SELECT COALESCE(SUM(balance), 0) FROM accounts),
        (SELECT COALESCE(SUM(escrow), 0) FROM rounds WHERE state = 'open'),
        0,
        (SELECT COALESCE(SUM(delta), 0) FROM entries WHERE kind = 'grant'),
        (SELECT COALESCE(-SUM(delta), 0) FROM entries WHERE kind = 'retire');

    CREATE TABLE registrations (
        id      INTEGER PRIMARY KEY,
        address TEXT    NOT NULL,
        ts      REAL    NOT NULL
    );
    CREATE INDEX registrations_address ON registrations(address, ts);

    CREATE TABLE tables (
        table_id  TEXT    PRIMARY KEY,
        config    TEXT    NOT NULL,                              -- JSON
        status    TEXT    NOT NULL CHECK (status IN ('open', 'over', 'aside')),
        reason    TEXT    NOT NULL DEFAULT '',
        opened_at REAL    NOT NULL,
        closed_at REAL,
        next_seq  INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX tables_open ON tables(status) WHERE status = 'open';

    CREATE TABLE table_log (
        table_id TEXT    NOT NULL REFERENCES tables(table_id),
        seq      INTEGER NOT NULL,
        entry    TEXT    NOT NULL,                               -- JSON
        PRIMARY KEY (table_id, seq)
    );

    CREATE TABLE counters (
        name  TEXT    PRIMARY KEY,
        value INTEGER NOT NULL
    );
    """,
    # 4: the social side: profiles (bio, privacy, last seen), friends, offline messages, ratings and
    #    their history (OpenSkill, per game and table; docs/storage.md)
    """
    CREATE TABLE profiles (
        key        TEXT    PRIMARY KEY,          -- the account's name key
        bio        TEXT    NOT NULL DEFAULT '',
        hide_where INTEGER NOT NULL DEFAULT 0,   -- 1: finger, friends and who do not say where
        notify     INTEGER NOT NULL DEFAULT 1,   -- 0: no notice when a friend logs in or sits down
        last_seen  REAL
    );

    CREATE TABLE friends (
        key     TEXT NOT NULL,                   -- who keeps the list
        friend  TEXT NOT NULL,                   -- the friend's name key
        name    TEXT NOT NULL,                   -- the friend's display name
        added   REAL NOT NULL,
        PRIMARY KEY (key, friend)
    );
    CREATE INDEX friends_friend ON friends(friend);

    CREATE TABLE mail (                          -- messages kept for an account's next login
        id         INTEGER PRIMARY KEY,
        recipient  TEXT NOT NULL,                -- name key
        sender     TEXT NOT NULL,                -- display name
        sender_key TEXT NOT NULL,
        text       TEXT NOT NULL,
        sent       REAL NOT NULL
    );
    CREATE INDEX mail_recipient ON mail(recipient, id);

    CREATE TABLE ratings (
        key     TEXT    NOT NULL,                -- a player's name key, or bot:LEVEL
        name    TEXT    NOT NULL,
        kind    TEXT    NOT NULL CHECK (kind IN ('player', 'bot')),
        game    TEXT    NOT NULL,
        rules   TEXT    NOT NULL,
        mu      REAL    NOT NULL,
        sigma   REAL    NOT NULL,
        games   INTEGER NOT NULL DEFAULT 0,
        updated REAL    NOT NULL,
        PRIMARY KEY (key, game, rules)
    );
    CREATE INDEX ratings_board ON ratings(game, rules, kind);

    CREATE TABLE rating_history (                -- one row per rated entrant of a rated round
        id           INTEGER PRIMARY KEY,
        round_id     TEXT    NOT NULL,
        key          TEXT    NOT NULL,
        game         TEXT    NOT NULL,
        rules        TEXT    NOT NULL,
        seat         INTEGER NOT NULL,
        score        REAL    NOT NULL,           -- what ranked the round (higher is better)
        mu_before    REAL    NOT NULL,
        sigma_before REAL    NOT NULL,
        mu_after     REAL    NOT NULL,
        sigma_after  REAL    NOT NULL,
        ts           REAL    NOT NULL
    );
    CREATE UNIQUE INDEX rating_history_entrant ON rating_history(round_id, seat);
    CREATE INDEX rating_history_key ON rating_history(key, game, rules, id);
    """,
    # 5: running a community: roles, locks, password resets, bans, mutes, the moderation log,
    #    admins' chips (each grant or retirement an entry of its own), ignore lists, notes (motd)
    """
    ALTER TABLE accounts ADD COLUMN role TEXT NOT NULL DEFAULT 'player'
        CHECK (role IN ('player', 'moderator', 'admin'));
    ALTER TABLE accounts ADD COLUMN locked TEXT;                -- NULL: open; else why it is locked
    ALTER TABLE accounts ADD COLUMN reset_hash TEXT;            -- a one-time code (resetpw), hashed
    ALTER TABLE accounts ADD COLUMN reset_until REAL;           -- ... valid until then

    CREATE TABLE bans (
        id         INTEGER PRIMARY KEY,
        kind       TEXT    NOT NULL CHECK (kind IN ('account', 'address', 'key')),
        account_id INTEGER REFERENCES accounts(id),            -- kind account (a rename keeps the ban)
        target     TEXT    NOT NULL,                            -- name then, network, or "type base64"
        reason     TEXT    NOT NULL DEFAULT '',
        actor      TEXT    NOT NULL,
        created    REAL    NOT NULL,
        until      REAL,                                        -- NULL: for good
        lifted     REAL,                                        -- NULL: not lifted
        lifted_by  TEXT
    );
    CREATE INDEX bans_active ON bans(kind) WHERE lifted IS NULL;

    CREATE TABLE mutes (
        id         INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        reason     TEXT    NOT NULL DEFAULT '',
        actor      TEXT    NOT NULL,
        created    REAL    NOT NULL,
        until      REAL    NOT NULL,
        lifted     REAL,
        lifted_by  TEXT
    );
    CREATE INDEX mutes_account ON mutes(account_id) WHERE lifted IS NULL;

    CREATE TABLE modlog (
        id     INTEGER PRIMARY KEY,
        ts     REAL    NOT NULL,
        actor  TEXT    NOT NULL,
        action TEXT    NOT NULL,
        target TEXT    NOT NULL DEFAULT '',
        reason TEXT    NOT NULL DEFAULT '',
        detail TEXT    NOT NULL DEFAULT '{}'                    -- JSON
    );

    CREATE TABLE admin_chips (                                  -- the grant/retire entries admins made
        entry_id INTEGER PRIMARY KEY REFERENCES entries(id),
        actor    TEXT    NOT NULL,
        reason   TEXT    NOT NULL DEFAULT ''
    );

    CREATE TABLE ignores (
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        other_key  TEXT    NOT NULL,                            -- names.name_key of the ignored name
        other_name TEXT    NOT NULL,
        added      REAL    NOT NULL,
        PRIMARY KEY (account_id, other_key)
    );

    CREATE TABLE notes (                                        -- server-wide texts (motd)
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,    # 6: tournaments (docs/tournaments.md): each event's configuration and status, its journal (numbered
    #    entries, appended in order as a table's log), and the tables it opened
    """
    CREATE TABLE tournaments (
        tournament_id TEXT    PRIMARY KEY,
        config        TEXT    NOT NULL,                          -- JSON: ArenaConfig / SwissConfig
        organiser     TEXT    NOT NULL,
        status        TEXT    NOT NULL CHECK (status IN ('open', 'over', 'aside')),
        created_at    REAL    NOT NULL,
        closed_at     REAL,
        next_seq      INTEGER NOT NULL DEFAULT 0,
        standings     TEXT                                       -- JSON, once over
    );
    CREATE INDEX tournaments_status ON tournaments(status, created_at);

    CREATE TABLE tournament_log (
        tournament_id TEXT    NOT NULL REFERENCES tournaments(tournament_id),
        seq           INTEGER NOT NULL,                          -- the number of the row's first entry
        entry         TEXT    NOT NULL,                          -- JSON: an entry, or an array of them
        PRIMARY KEY (tournament_id, seq)
    );

    CREATE TABLE tournament_tables (
        table_id      TEXT    PRIMARY KEY,                       -- a table belongs to one event at most
        tournament_id TEXT    NOT NULL REFERENCES tournaments(tournament_id),
        round         INTEGER NOT NULL DEFAULT 0,                -- a Swiss round (0: an arena's table)
        position      INTEGER NOT NULL                           -- the order the event opened them
    );
    CREATE INDEX tournament_tables_event ON tournament_tables(tournament_id, position);
    """,
]


def migrate(conn: sqlite3.Connection) -> int:
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    version = row[0] or 0
    for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in split_sql(script):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        log.info("database schema migrated to version %d", number)
    return len(MIGRATIONS)


def split_sql(script: str) -> list[str]:
    """Statements of a migration (executescript would commit on its own)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
