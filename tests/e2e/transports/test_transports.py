"""End to end over real transports: telnetlib3 client, raw TCP, asyncssh (exec, PTY, no PTY), OpenSSH."""

import asyncio
import json
import shutil

import asyncssh
import pytest
import telnetlib3

from clients.client import Client

pytestmark = pytest.mark.e2e


async def read_until(reader, needle: str, timeout: float = 10.0) -> str:
    """Read a telnet/SSH text stream until ``needle`` shows up (never hangs: wait_for)."""
    seen = ""

    async def go():
        nonlocal seen
        while needle not in seen:
            chunk = await reader.read(4096)
            if not chunk:
                raise EOFError(f"closed before {needle!r}; got {seen!r}")
            seen += chunk
        return seen

    return await asyncio.wait_for(go(), timeout)


async def until(predicate, timeout: float = 10.0) -> None:
    async def go():
        while not predicate():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(go(), timeout)


async def test_telnetlib3_client_logs_in_in_french_and_sees_its_echo(server):
    reader, writer = await telnetlib3.open_connection("127.0.0.1", server.telnet_port, cols=100, rows=40,
                                                       term="xterm", encoding="utf8", connect_minwait=0.05)
    try:
        await read_until(reader, "Idioma")
        writer.write("2\r")
        await read_until(reader, ": ")
        writer.write("Zoé\r")
        await read_until(reader, "Zoé")  # echoed by the server (character mode)
        await until(lambda: "zoé" in server.lobby.players)
        session = server.lobby.players["zoé"].session
        assert session.lang == "fr" and session.width == 100 and session.color
        writer.write("whoami\r")
        await read_until(reader, "Zoé.")  # the whoami reply, drawn for people
        writer.write("quit\r")
        await asyncio.wait_for(reader.read(), 10)  # the server closes the connection
        await until(lambda: "zoé" not in server.lobby.players)
    finally:
        writer.close()


async def test_telnet_password_is_not_echoed(server):
    await server.store.accounts.register("dora", "correct-horse-1")
    reader, writer = await telnetlib3.open_connection("127.0.0.1", server.telnet_port, term="xterm",
                                                       encoding="utf8", connect_minwait=0.05)
    try:
        await read_until(reader, "Idioma")
        writer.write("1\r")
        await read_until(reader, ": ")
        writer.write("dora\r")
        prompt = await read_until(reader, "assword: ")  # the name's echo and the prompt: one chunk or two
        assert "dora" in prompt
        writer.write("correct-horse-1\r")
        text = await read_until(reader, "dora", timeout=15)
        assert "correct-horse" not in text
        player = server.lobby.players["dora"]
        assert player.guest is False
    finally:
        writer.close()


async def test_raw_tcp_client_that_never_negotiates_gets_a_prompt_and_plays_in_text(server):
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", server.telnet_port), 5)
    try:
        data = await asyncio.wait_for(reader.readuntil(b"]: "), 10)
        assert data.startswith(b"\xff\xfd\x18")  # telnetlib3 asked for the terminal type; we never answer
        writer.write(b"en\nbob\n")
        data = await asyncio.wait_for(reader.readuntil(b"bob"), 10)
        writer.write(b"whoami\n")
        data = await asyncio.wait_for(reader.readuntil(b"\r\n"), 10)
        while b"bob" not in data:
            data = await asyncio.wait_for(reader.readuntil(b"\r\n"), 10)
        session = server.lobby.players["bob"].session
        assert (session.color, session.unicode) == (False, False)  # unknown terminal: plain ASCII
    finally:
        writer.close()


async def test_ssh_exec_json(server):
    client = await Client.connect_ssh("127.0.0.1", server.ssh_port, "eve", timeout=10)
    try:
        who = await client.request("whoami")
        assert (who["name"], who["guest"]) == ("eve", True)
        r = await client.request_raw("nonsense")
        assert r["code"] == "unknown_command"
    finally:
        await client.close()


def ssh_connect(server, username, **kwargs):
    kwargs.setdefault("client_keys", None)  # never ~/.ssh keys nor the agent of the machine
    return asyncssh.connect("127.0.0.1", server.ssh_port, username=username, known_hosts=None,
                            agent_path=None, **kwargs)


async def test_ssh_pty_shell_with_resize_and_language_from_env(server):
    async with ssh_connect(server, "fred") as conn:
        proc = await conn.create_process(term_type="xterm-256color", term_size=(90, 30),
                                         env={"LANG": "es_ES.UTF-8"})
        await read_until(proc.stdout, "fred")
        session = server.lobby.players["fred"].session
        assert (session.width, session.height, session.lang) == (90, 30, "es")
        proc.change_terminal_size(120, 40)
        proc.stdin.write("whoami\n")  # the resize arrives before (or with) the next line
        await read_until(proc.stdout, "fred")
        await until(lambda: session.width == 120)
        assert session.height == 40
        proc.stdin.write("quit\n")
        await asyncio.wait_for(proc.wait_closed(), 10)


async def test_ssh_shell_without_pty_serves_scripts(server):
    async with ssh_connect(server, "gina") as conn:
        result = await asyncio.wait_for(conn.run(input="whoami\nquit\n"), 15)
        assert "gina" in result.stdout
        assert "\x1b[" not in result.stdout  # no terminal: no colour


async def test_ssh_accounts_need_their_password(server):
    await server.store.accounts.register("hugo", "correct-horse-2")
    client = await Client.connect_ssh("127.0.0.1", server.ssh_port, "HUGO", password="correct-horse-2",
                                      timeout=15)  # the account's own spelling wins
    try:
        who = await client.request("whoami")
        assert (who["name"], who["guest"]) == ("hugo", False)
    finally:
        await client.close()
    with pytest.raises(asyncssh.PermissionDenied):
        async with ssh_connect(server, "hugo", password="wrong-password", preferred_auth="password"):
            pass


@pytest.mark.skipif(shutil.which("ssh") is None, reason="the OpenSSH client (ssh) is not installed")
async def test_openssh_client_json(server, tmp_path):
    proc = await asyncio.create_subprocess_exec(
        "ssh", "-p", str(server.ssh_port), "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-F", "/dev/null", "-i", str(tmp_path / "none"),
        "ivan@127.0.0.1", "json",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        proc.stdin.write(b'{"cmd": "whoami", "id": 7}\n')
        await proc.stdin.drain()
        reply = None
        while reply is None:
            line = await asyncio.wait_for(proc.stdout.readline(), 15)
            assert line, (await proc.stderr.read()).decode()
            msg = json.loads(line)
            if msg["type"] == "ok":
                reply = msg
        assert (reply["id"], reply["name"], reply["guest"]) == (7, "ivan", True)
        proc.stdin.close()
        assert await asyncio.wait_for(proc.wait(), 15) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_ssh_public_key_login(server):
    await server.store.accounts.register("jane", "correct-horse-3")
    key = asyncssh.generate_private_key("ssh-ed25519")
    await server.store.accounts.add_key("jane", key.export_public_key().decode())
    client = await Client.connect_ssh("127.0.0.1", server.ssh_port, "jane", client_keys=[key], timeout=15)
    try:
        who = await client.request("whoami")
        assert (who["name"], who["guest"]) == ("jane", False)
    finally:
        await client.close()
    other = asyncssh.generate_private_key("ssh-ed25519")
    with pytest.raises(asyncssh.PermissionDenied):
        async with ssh_connect(server, "jane", client_keys=[other], preferred_auth="publickey"):
            pass


async def test_second_login_of_an_account_takes_over_the_first(server):
    await server.store.accounts.register("kim", "correct-horse-4")
    first = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10)
    second = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10)
    try:
        await first.login("kim", "correct-horse-4")
        notice = asyncio.ensure_future(first.next_event("notice", timeout=10))
        await second.login("kim", "correct-horse-4")
        assert (await notice)["code"] == "replaced"
        await asyncio.wait_for(first.closed.wait(), 10)
        assert (await second.request("whoami"))["name"] == "kim"
    finally:
        await first.close()
        await second.close()


async def test_a_person_plays_in_text_over_ssh_with_a_countdown(server):
    async with ssh_connect(server, "lena") as conn:
        proc = await conn.create_process(term_type="xterm", term_size=(100, 40))
        await read_until(proc.stdout, "lena")
        # four seats, three bots that act at once; ten seconds a decision: a "5 seconds left" mark (a wait twice the mark)
        proc.stdin.write("create president classic seats=4 bots=3 turn_seconds=10\n")
        text = await read_until(proc.stdout, "5 seconds left to decide.", timeout=20)
        assert "Room r1" in text and "Your hand" in text
        assert "\a" in text and "Your turn" in text  # the table drawn on her turn, with a bell
        assert text.index("\a") < text.index("5 seconds left")
        proc.stdin.write("\n")  # an empty line draws the table again
        await read_until(proc.stdout, "Your hand", timeout=10)
        proc.stdin.write("quit\n")
        await asyncio.wait_for(proc.wait_closed(), 10)


async def test_telnet_window_size_change_naws_and_dumb_terminal(server):
    reader, writer = await telnetlib3.open_connection("127.0.0.1", server.telnet_port, cols=80, rows=24,
                                                       term="dumb", encoding="utf8", connect_minwait=0.05)
    try:
        await read_until(reader, "Idioma")
        writer.write("en\r")
        await read_until(reader, ": ")
        writer.write("mona\r")
        await until(lambda: "mona" in server.lobby.players)
        session = server.lobby.players["mona"].session
        assert (session.color, session.unicode, session.width) == (False, False, 80)
        # the client's window grows: NAWS subnegotiation (IAC SB NAWS 0 132 0 50 IAC SE)
        writer._transport.write(bytes([255, 250, 31, 0, 132, 0, 50, 255, 240]))
        await until(lambda: session.width == 132)
        assert session.height == 50
    finally:
        writer.close()


async def test_ssh_reserved_or_bad_user_name_is_told_and_let_go(server):
    async with ssh_connect(server, "root") as conn:
        result = await asyncio.wait_for(conn.run("json", stdin=asyncssh.DEVNULL), 15)
        lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
        assert any(m.get("type") == "error" and m.get("code") == "bad_name" for m in lines), result.stdout
    async with ssh_connect(server, "root") as conn:
        result = await asyncio.wait_for(conn.run(stdin=asyncssh.DEVNULL), 15)
        assert result.stdout.strip()  # a sentence for people, then the end


async def test_ssh_connections_per_address_are_capped(tmp_path):
    from tests.kits.servers import start_server

    running = await start_server(tmp_path, max_connections_per_address=1)
    try:
        first = await Client.connect_ssh("127.0.0.1", running.ssh_port, "nina", timeout=10)
        with pytest.raises((asyncssh.Error, OSError, asyncio.TimeoutError)):
            async with ssh_connect(running, "omar") as conn:
                await asyncio.wait_for(conn.run("json", stdin=asyncssh.DEVNULL), 10)
        assert (await first.request("whoami"))["name"] == "nina"
        await first.close()
    finally:
        await running.stop()


async def test_telnet_news_arriving_while_typing_keeps_the_partial_line(server):
    reader, writer = await telnetlib3.open_connection("127.0.0.1", server.telnet_port, term="xterm",
                                                       encoding="utf8", connect_minwait=0.05)
    other = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10)
    try:
        await read_until(reader, "Idioma")
        writer.write("en\r")
        await read_until(reader, ": ")
        writer.write("pia\r")
        await until(lambda: "pia" in server.lobby.players)
        await read_until(reader, "pia!")  # the greeting
        writer.write("wh")  # typing, no Enter yet
        await read_until(reader, "wh")  # echoed
        await other.login("rex")
        await other.request("say", text="hello all")
        text = await read_until(reader, "hello all")
        if not text.endswith("wh"):
            text += await read_until(reader, "wh")
        assert text.index("hello all") < text.rindex("wh")  # the partial line is drawn again below
        assert "\x1b[K" in text
        writer.write("oami\r")
        await read_until(reader, "You are pia")
    finally:
        writer.close()
        await other.close()


async def test_ssh_json_with_a_pty_does_not_echo_requests(server):
    async with ssh_connect(server, "uma") as conn:
        proc = await conn.create_process("json", term_type="xterm", term_size=(80, 24))
        await read_until(proc.stdout, '"hello"')
        proc.stdin.write('{"cmd": "whoami", "id": 1}\n')
        text = await read_until(proc.stdout, '"type":"ok"')
        assert '"cmd"' not in text  # the request was not echoed
        proc.stdin.write_eof()
