# donne — two commands on a fresh machine: `make serve` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: serve test lint typecheck pytest tools bench i18n clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

serve: $(STAMP)
	$(BIN)/donne serve

# Real clients and tools the end-to-end tests drive (OpenSSH, telnet, tmux, PuTTY's plink,
# ssh-audit, Debian's chromium for the browser tests: Playwright drives it, never a browser of its
# own) and the real services the storage and cluster tests start (PostgreSQL, Redis).
# Installed when missing and possible; the tests that need one skip with a reason otherwise.
TOOLS := ssh:openssh-client telnet:telnet tmux:tmux plink:putty-tools ssh-audit:ssh-audit redis-server:redis-server \
         tt++:tintin++ luac5.4:lua5.4 chromium:chromium
# PostgreSQL's initdb is not on PATH: look where the tests look (pg_config --bindir, /usr/lib/postgresql/*/bin)
HAVE_PG = { [ -x "$$(pg_config --bindir 2>/dev/null)/initdb" ] || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }
tools:
	@missing=""; for t in $(TOOLS); do command -v $${t%%:*} >/dev/null || [ -x /usr/games/$${t%%:*} ] || missing="$$missing $${t#*:}"; done; \
	$(HAVE_PG) || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  { command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null); } || \
	  echo "note: could not install$$missing; tests needing them will be skipped"; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict engine server clients

# The tests run in two processes (pytest-xdist), each with its own PostgreSQL, Redis and temporary
# folders, every server on port 0, a test file whole in one process (README); `make test
# PYTEST_WORKERS=1` runs them in one.
PYTEST_WORKERS ?= 2
pytest: $(STAMP)
	$(BIN)/python -m pytest $(if $(filter-out 0 1,$(PYTEST_WORKERS)),-n $(PYTEST_WORKERS) --dist loadfile)

test: $(STAMP) tools lint typecheck pytest

# After changing or adding a message in server/: extract, merge, then translate
# the new entries in i18n/*/LC_MESSAGES/donne.po (docs/i18n.md).
i18n: $(STAMP)
	$(BIN)/python -m server.start.catalogs update
	$(BIN)/python -m server.start.catalogs check

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
