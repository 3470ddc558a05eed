# CardVerse: the two commands of the README are `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# What the server alone needs (make run: the server extra); the development tools, which pull the
# server and env extras, come with make test (the dev extra).
RUN_STAMP := $(VENV)/.installed-run
# Where make run listens and keeps its data: make run PORT=8080 HOST=0.0.0.0 DATA=/srv/cardverse
HOST ?= 127.0.0.1
PORT ?= 8000
DATA ?= data
# The engine and the bots compiled with mypyc, in place (scripts/build_compiled.py); rebuilt when
# a source changes. Without a C compiler the pure-Python code runs (cardverse/_native.py).
COMPILED := cardverse/_compiled.json
COMPILED_SOURCES := $(wildcard cardverse/engine/*.py cardverse/engine/parts/*.py cardverse/bots/*.py)

.PHONY: run test lint typecheck unit bench clean compiled pure

$(STAMP): pyproject.toml
	@echo "setting up $(VENV) with the development tools (a few minutes the first time)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP) $(RUN_STAMP)

$(RUN_STAMP): pyproject.toml
	@echo "setting up $(VENV) with the server's packages (the first time only)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -e '.[server]'
	touch $(RUN_STAMP)

$(COMPILED): $(STAMP) $(COMPILED_SOURCES) cardverse/_native.py scripts/build_compiled.py
	$(BIN)/python scripts/build_compiled.py

compiled: $(COMPILED)

pure:  # remove the compiled modules: the pure-Python engine and bots run
	$(BIN)/python scripts/build_compiled.py --clean

# The server starts at once; a missing or stale compiled build is made in the background meanwhile
# (scripts/quick_start.py says so, and the next make run uses it).
run: $(RUN_STAMP)
	@$(BIN)/python scripts/quick_start.py --host $(HOST) --port $(PORT) --data-dir $(DATA)

lint: $(STAMP)
	$(BIN)/ruff check cardverse tests bench examples
	$(BIN)/ruff format --check cardverse tests bench examples

typecheck: $(STAMP)
	$(BIN)/mypy cardverse

unit: $(COMPILED)
	bash scripts/ensure-chromium.sh
	bash scripts/ensure-services.sh
	$(BIN)/pytest -n 2 --dist loadgroup -q

test: lint typecheck unit

# The benchmarks' optional reference (OpenSpiel, the `bench` extra): skipped if it cannot install.
BENCH_STAMP := $(VENV)/.bench-installed
$(BENCH_STAMP): $(STAMP)
	-$(BIN)/pip install --quiet -e '.[dev,bench]' && touch $(BENCH_STAMP)

bench: $(COMPILED) $(BENCH_STAMP)
	$(BIN)/python -m bench.engine_bench
	$(BIN)/python -m bench.playout_bench
	$(BIN)/python -m bench.cli_bench
	$(BIN)/python -m bench.env_bench --steps 50000 --runs 3
	$(BIN)/python -m bench.server_bench --tables 250 --duration 15 --repeat 3
	$(BIN)/python -m bench.server_bench --tables 250 --duration 15 --repeat 3 --think 1000 \
		--out bench/results/server-think.json
	$(BIN)/python -m bench.wire_bench --repeat 3
	$(BIN)/python -m bench.live_table_memory --tables 250
	$(BIN)/python -m bench.table_memory --tables 200 --moves 12
	$(BIN)/python -m bench.ws_paths_bench --repeat 3
	$(BIN)/python -m bench.durability_bench --tables 100 --duration 20
	$(BIN)/python -m bench.create_burst_bench --tables 1500 --addresses 150
	$(BIN)/python -m bench.people_bench
	$(BIN)/python -m bench.redteam_probe_bench
	$(BIN)/python -m bench.soak --tables 50 --duration 600
	bash scripts/ensure-services.sh
	$(BIN)/python -m bench.cluster_bench --tables 250 1000 --duration 15 --kills 20 --repeat 3
	# skipped with a message unless CARDVERSE_UECDA_SOURCES is set (docs/uecda.md, section 12)
	$(BIN)/python -m bench.uecda_strength --games 500

clean:
	-$(BIN)/python scripts/build_compiled.py --clean
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build
