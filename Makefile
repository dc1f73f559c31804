# Everything starts from python3 and make: the first target that needs the
# environment creates .venv, installs uv into it, and syncs the locked workspace.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
UV      := $(BIN)/uv
STAMP   := $(VENV)/.synced

.PHONY: install run test test-unit test-integration test-e2e test-postgres lint format bench docs clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(UV): | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check "uv>=0.5,<1"

$(STAMP): $(UV) uv.lock pyproject.toml $(wildcard */pyproject.toml */*/pyproject.toml)
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --locked --inexact --all-packages --quiet
	@touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/baton up $(ARGS)

test: install
	$(BIN)/pytest tests $(PYTEST_ARGS)

test-unit: install
	$(BIN)/pytest tests/unit $(PYTEST_ARGS)

test-integration: install
	$(BIN)/pytest tests/integration $(PYTEST_ARGS)

test-e2e: install
	$(BIN)/pytest tests/e2e $(PYTEST_ARGS)

# The PostgreSQL-backed tests; needs BATON_TEST_POSTGRES_URL (CI sets it in .ci/run).
test-postgres: install
	$(BIN)/pytest tests -m postgres $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy contracts/src $(wildcard libs/*/src) $(wildcard services/*/src)

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The bench group adds what only the reference cases need (LangGraph and its checkpointer).
BENCH_STAMP := $(VENV)/.synced-bench
$(BENCH_STAMP): $(STAMP)
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --locked --inexact --all-packages --group bench --quiet
	@touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench $(ARGS)

# AsyncAPI for the NATS side, generated from each service's FastStream broker.
ASYNCAPI_TARGETS := baton_notifier.entrypoints.main:broker baton_workflow.entrypoints.main:broker \
                    baton_agent_runner.entrypoints.main:broker

docs: install
	$(BIN)/python -m baton_messaging.asyncapi docs/asyncapi $(ASYNCAPI_TARGETS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
