# The README's two commands: `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
LOCK := requirements/dev.lock
export PYTHONPATH := $(CURDIR)
STAMP := $(VENV)/.installed-$(shell cat $(LOCK) pyproject.toml | sha1sum | cut -c1-12)

WEB := client/web
WEB_STAMP := $(WEB)/node_modules/.installed-$(shell cat $(WEB)/package-lock.json 2>/dev/null | sha1sum | cut -c1-12)

.PHONY: run test test-docker lint typecheck contracts pytest web web-test bench lock clean

$(STAMP): $(LOCK) pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r $(LOCK)
	rm -f $(VENV)/.installed-*
	touch $@

$(WEB_STAMP): $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
	rm -f $(WEB)/node_modules/.installed-*
	touch $@

# The web client, built into client/web/dist (served by the server at /).
web: $(WEB_STAMP)
	cd $(WEB) && npm run build

# npm test: no import circle in the web client (madge, type-only imports too), then vitest.
web-test: $(WEB_STAMP)
	cd $(WEB) && npm test

run: $(STAMP) web
	bash scripts/run.sh

test: lint typecheck contracts web-test pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

contracts: $(STAMP)
	$(VENV)/bin/lint-imports

# Test workers (pytest-xdist): most tests wait on servers, Redis and the browser more than
# they compute, so a 2-core machine runs more workers than cores. Each worker starts its own
# redis-server; `make test PYTEST_WORKERS=0` runs in one process.
PYTEST_WORKERS ?= 3
BROWSER_WORKERS ?= 2
PYTEST_OPTS := --dist worksteal --durations=30

pytest: $(STAMP) web
	bash scripts/ensure-redis.sh
	bash scripts/ensure-chromium.sh
	$(VENV)/bin/pytest -n $(PYTEST_WORKERS) $(PYTEST_OPTS) --ignore=tests/browser --ignore=tests/docker
	# Playwright's sync API keeps an event loop running for the session: the browser tests
	# get a pytest run of their own so that the asyncio tests never share it.
	$(VENV)/bin/pytest -n $(BROWSER_WORKERS) $(PYTEST_OPTS) tests/browser

# The Dockerfile and docker-compose.yml on a real Docker engine (tests/docker/): installs and
# starts what is missing (dockerd, Compose v2, debootstrap) and builds the stand-in base images
# (cached), then builds and runs the deployment in a compose project of its own, 127.0.0.1
# ports only. Each phase's time is printed; run by .ci/run after `make test`.
test-docker: $(STAMP)
	bash scripts/ensure-redis.sh  # the restore phase opens the backup with a redis-server
	@start=$$SECONDS; bash scripts/docker/ensure-docker.sh; \
		echo "[docker phase] engine and Compose ready: $$((SECONDS - start)) s"
	@start=$$SECONDS; bash scripts/docker/standins.sh; \
		echo "[docker phase] stand-in base images ready: $$((SECONDS - start)) s"
	$(VENV)/bin/pytest -n 0 $(PYTEST_OPTS) tests/docker

bench: $(STAMP)
	$(PY) -m bench.melds

# Regenerate the pinned lock file after changing dependencies in pyproject.toml.
lock:
	$(PY) -m pip install --quiet uv
	$(VENV)/bin/uv pip compile pyproject.toml --extra dev --extra reference \
		--python-version 3.11 -o $(LOCK)
	$(VENV)/bin/uv pip compile pyproject.toml --python-version 3.11 -o requirements/runtime.lock

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis build \
		$(WEB)/node_modules $(WEB)/dist
