"""The layers of ``server/`` import only downward, as docs/architecture.md lists them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"

LAYERS = (
    ("start",),
    ("web",),
    ("sessions",),
    ("transports",),
    ("presenters",),
    ("commands",),
    ("cluster",),
    ("lobby",),
    ("rooms",),
    ("community",),
    ("table",),
    ("tournaments",),
    ("games",),
    ("people",),
    ("storage",),
    ("operations",),
    ("messages",),
    ("protocol", "config"),
    ("engine",),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def _package(module: str) -> str | None:
    """The layer a dotted module name belongs to (None: outside the project)."""
    parts = module.split(".")
    if parts[0] in ("engine", "clients"):
        return parts[0]
    if parts[0] != "server" or len(parts) < 2:
        return None
    return parts[1]


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, at any depth (lazy imports and TYPE_CHECKING ones included)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "server":
                found += [(node.lineno, f"server.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _wrong(where: str, source: str | None, imports: list[tuple[int, str]]) -> list[str]:
    wrong = []
    for lineno, module in imports:
        target = _package(module)
        if target is None or target == source:
            continue
        said = f"{where}:{lineno} imports {module}"
        if source == "clients":
            if target != "engine":
                wrong.append(said + " (clients/ imports only engine/)")
        elif target == "clients" and source != "start":
            wrong.append(said + " (only start-up runs the client tools)")
        elif source in RANK and target in RANK and RANK[target] <= RANK[source]:
            wrong.append(said + f" ({source} may not import {target})")
        elif source in RANK and target not in RANK and target != "clients":
            wrong.append(said + f" ({target} is in no layer)")
    return wrong


def violations(files: list[Path]) -> list[str]:
    wrong = []
    for path in files:
        wrong += _wrong(str(path.relative_to(ROOT)), _package(_module_of(path)), _imports(path))
    return wrong


def test_every_package_of_server_has_its_layer() -> None:
    packages = {p.name for p in (ROOT / "server").iterdir() if (p / "__init__.py").exists()}
    modules = {p.stem for p in (ROOT / "server").glob("*.py") if p.stem != "__init__"}
    assert packages | modules == set(RANK) - {"engine"}


def test_the_layers_import_only_downward() -> None:
    files = [*ROOT.joinpath("server").rglob("*.py"), *ROOT.joinpath("engine").rglob("*.py")]
    assert violations(files) == []


def test_the_client_tools_import_only_the_engine() -> None:
    assert violations(list(ROOT.joinpath("clients").rglob("*.py"))) == []


def test_the_check_catches_an_upward_import() -> None:
    said = _wrong("server/table/x.py", "table", [(2, "server.rooms.room"), (3, "server.games.base")])
    assert said == ["server/table/x.py:2 imports server.rooms.room (table may not import rooms)"]
    assert _wrong("clients/x.py", "clients", [(1, "server.protocol")]) != []


def test_the_docs_list_the_same_layers() -> None:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- layers -->\n```\n(.*?)```", text, re.S)
    assert block is not None, "docs/architecture.md lost its layer list"
    assert tuple(tuple(line.split()) for line in block.group(1).splitlines() if line.strip()) == LAYERS


@pytest.mark.parametrize("name", ["start", "clients"])
def test_layer_names_are_packages(name: str) -> None:
    assert (ROOT / ("server/" + name if name != "clients" else name) / "__init__.py").exists()
