"""The Mudlet package (clients/mudlet/donne.xml): well-formed, handling the GMCP packages the server
sends (docs/gmcp.md), its Lua compiling (when a Lua compiler is installed)."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "mudlet" / "donne.xml"


def scripts() -> list[ET.Element]:
    root = ET.parse(PACKAGE).getroot()
    assert root.tag == "MudletPackage"
    return [s for s in root.iter("Script") if (s.findtext("script") or "").strip()]


def test_the_package_listens_to_the_table_packages():
    (script,) = scripts()
    name = script.findtext("name")
    handlers = {e.text for e in script.iter("string")}
    assert {"gmcp.Donne.Table", "gmcp.Donne.Hand", "gmcp.Char.Status", "sysConnectionEvent"} <= handlers
    lua = script.findtext("script") or ""
    assert f"function {name}(" in lua  # Mudlet calls the function named as the script
    assert "Core.Supports.Add" in lua and "Donne 1" in lua


def test_the_lua_compiles(tmp_path):
    luac = shutil.which("luac5.4") or shutil.which("luac5.3") or shutil.which("luac")
    if luac is None:
        pytest.skip("no Lua compiler (Debian lua5.4)")
    (script,) = scripts()
    source = tmp_path / "donne.lua"
    source.write_text(script.findtext("script") or "")
    done = subprocess.run([luac, "-p", str(source)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
