"""Names that look like staff: refused to newcomers, but an account made before that rule
("admin_bob", "moderators") still logs in under its own name, and people still reach it."""

from __future__ import annotations

import pytest

from clients.client import Client
from clients.errors import ClientError
from server.storage import names
from tests.kits.servers import start_server


async def test_an_account_whose_name_now_looks_like_staff_still_logs_in(tmp_path, monkeypatch) -> None:
    server = await start_server(tmp_path)
    try:
        with monkeypatch.context() as m:  # made before names could not look like staff
            m.setattr(names, "looks_like_staff", lambda name: False)
            await server.store.accounts.register("admin_bob", "bob-secret-1")
        bob = await Client.connect_tcp("127.0.0.1", server.telnet_port)
        assert (await bob.login("admin_bob", "bob-secret-1"))["type"] == "ok"
        other = await Client.connect_tcp("127.0.0.1", server.telnet_port)
        with pytest.raises(ClientError) as refused:  # without the password: not theirs
            await other.login("admin_bob")
        assert refused.value.code == "bad_password"
        with pytest.raises(ClientError) as refused:  # a newcomer may not take such a name
            await other.login("admins")
        assert refused.value.code == "bad_name"
        await other.login("carol")
        assert (await other.request("finger", name="admin_bob"))["online"] is True
        await bob.close()
        await other.close()
    finally:
        await server.stop()
