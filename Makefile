# Shoal — the two set-up commands are `make run` and `make test`; both bootstrap the toolchain.
PYTHON ?= python3
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.synced

.PHONY: run test test-fast lint unit integration e2e bench fmt clean control-plane

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install -q uv==$(UV_VERSION)

$(STAMP): pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --all-extras --python $(PYTHON)
	touch $(STAMP)

## The whole system on its embedded default (broker + kubesim + the four services + demo jobs).
run: $(STAMP)
	$(BIN)/shoal up

## Lint, type-check, layer contracts, then every test; the e2e suites run on kubesim and on the
## real control plane (built first, from pinned sources, if it is not built yet).
test: lint control-plane
	SHOAL_REQUIRE_REAL=1 $(BIN)/pytest -q

## The edit-test loop: lint, type-check, layer contracts, unit and integration tests; no e2e
## suites and no control-plane build (aim: under 4 minutes).
test-fast: lint
	$(BIN)/pytest -q tests/unit tests/integration

lint: $(STAMP)
	$(BIN)/ruff check shared services tests
	$(BIN)/ruff format --check shared services tests
	$(BIN)/mypy
	$(BIN)/lint-imports

unit: $(STAMP)
	$(BIN)/pytest -q tests/unit

integration: $(STAMP)
	$(BIN)/pytest -q tests/integration

e2e: $(STAMP) control-plane
	SHOAL_REQUIRE_REAL=1 $(BIN)/pytest -q tests/e2e

bench: $(STAMP)
	$(BIN)/shoal bench all

fmt: $(STAMP)
	$(BIN)/ruff format shared services tests
	$(BIN)/ruff check --fix shared services tests

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .mypy_cache .ruff_cache

## The real control plane (kube-apiserver + etcd, kube-controller-manager, kube-scheduler, kwok,
## Apache Kafka), built from pinned upstream sources into .tools/control-plane/.
control-plane:
	deploy/control-plane/build.sh
