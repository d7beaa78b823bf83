# unonet: every command a developer or CI needs. The first target that needs the virtual environment
# creates it, so `make test` and `make play` work on a fresh clone with nothing but Python 3.11 and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
PROTO_SRC := $(wildcard protos/unonet/v1/*.proto)
PROTO_STAMP := protos/unonet/v1/.generated
NODE_STAMP := node_modules/.installed
# Packages are installed by uv (from PyPI, pinned here), which each environment's own pip (ensurepip's, never
# upgraded: that cost each clean clone two downloads and an unpinned tool) installs first. uv resolves and
# unpacks in parallel and compiles no bytecode up front (what runs is compiled as it is imported, and kept):
# a fresh .venv took 88 s (49 s of CPU) with pip, 13 s (9 s of CPU) with uv, on this 2-core machine.
export PIP_DISABLE_PIP_VERSION_CHECK := 1
UV_VERSION := 0.13.9
# Bytecode caches on: an environment that sets PYTHONDONTWRITEBYTECODE (this machine's does) makes every
# process compile the sources again, every test worker rewrite every test module's asserts and every host
# or bot a test starts compile unonet and grpc's Python (about half the cost of collecting the suite).
unexport PYTHONDONTWRITEBYTECODE

# The suite runs in parallel (pytest-xdist). Most tests wait (on sockets, subprocesses, clocks) rather than
# compute, so more workers than cores pays: on 2 cores, WORKERS measured fastest (README, Tests). loadgroup
# keeps each module whose tests share a fixture on one worker (tests/support/slow_first.py marks them), and
# the collection's own order (slowest first, from tests/durations.json) is kept instead of xdist's by size.
WORKERS ?= 6
XDIST := -n $(WORKERS) --dist loadgroup --no-loadscope-reorder

# The optional compiled build (setup.py, `UNONET_USE_MYPYC=1`): the engine's hot modules (and unonet.rl's) compiled
# by mypyc into a wheel, installed with the dev extra into its own environment. The editable .venv stays pure Python.
CVENV := .venv-compiled
CBIN := $(CVENV)/bin
CPY := $(CBIN)/python
# gcc's optimisation level for the compiled modules (mypyc's opt_level): 3, mypyc's default, for the wheel the
# benches measure (`make compiled`, `make bench`); `make test` builds its tier's wheel at 0, the same C,
# which gcc compiled in 75 s of CPU instead of 115 while the tier's tests took 63 s instead of 52 (the
# replay digest still equals the pure build's). The stamp names the level, so either target builds the
# other's wheel again, and bench/compiled_env.py runs a bench only on the level-3 build.
MYPYC_OPT_LEVEL ?= 3
CSTAMP := $(CVENV)/.installed-O$(MYPYC_OPT_LEVEL)
CTOOLS := $(CVENV)/.build-tools
WHEELS := build/compiled-wheel
# The scenario checker runs from the wheel too (make compiled-test): its edit rebuilds it as well.
ENGINE_SRC := $(wildcard server/unonet/engine/*.py) server/unonet/scenarios.py
# The wheel ships the bots too, and bench/bots.py --build compiled plays them from it: a bot's edit rebuilds it.
BOTS_SRC := $(wildcard bots/unonet/bots/*.py server/unonet/wire/*.py)
# The learning environments too: their hot modules are compiled with the engine (pyproject's rl_modules).
RL_SRC := $(wildcard server/unonet/rl/*.py)
# The host's per-command path too (pyproject's host_modules and wire_modules), and `unonet serve` run from
# the wheel runs it compiled: a host edit rebuilds it.
HOST_SRC := $(wildcard server/unonet/host/*.py)

.PHONY: install protos test check lint pytest bench demo play tmux clean compiled compiled-test

install: $(STAMP) $(PROTO_STAMP)

$(BIN)/uv:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q uv==$(UV_VERSION)

$(STAMP): pyproject.toml | $(BIN)/uv
	$(BIN)/uv pip install -q --python $(PY) -e '.[dev]'
	touch $@

# Generated code is never committed: it is rebuilt whenever a .proto changes.
$(PROTO_STAMP): $(PROTO_SRC) $(STAMP)
	@if [ -n "$(PROTO_SRC)" ]; then \
	  PATH="$(abspath $(BIN)):$$PATH" $(PY) -m grpc_tools.protoc -Iprotos \
	    --python_out=protos --grpc_python_out=protos --mypy_out=protos --mypy_grpc_out=protos \
	    $(PROTO_SRC); fi
	touch $@

protos: $(PROTO_STAMP)

# The buf CLI that lints the protos, and the Node gRPC client a test runs, come from npm, pinned exactly in
# package.json and package-lock.json.
$(NODE_STAMP): package.json $(wildcard package-lock.json)
	if [ -f package-lock.json ]; then npm ci --prefer-offline --no-audit --no-fund; \
	else npm install --prefer-offline --no-audit --no-fund; fi
	touch $@

lint: install $(NODE_STAMP)
	@so=$$(find server client bots protos -name '*.so' -o -name '*.pyd'); if [ -n "$$so" ]; then \
	  echo "compiled modules beside the sources (the editable install would run them, not the code): $$so"; exit 1; fi
	node_modules/.bin/buf lint
	node_modules/.bin/buf breaking --against buf/unonet-v1.binpb
	$(BIN)/ruff check .
	$(BIN)/ruff format --check server/unonet/engine
	$(BIN)/mypy --strict server/unonet client/unonet/client bots/unonet/bots

# The terminal client's end-to-end tests drive the real `unonet play` in tmux; install it where missing.
tmux:
	command -v tmux >/dev/null || (apt-get update && apt-get install -y tmux)

# node_modules too: a test runs a Node gRPC client (@grpc/grpc-js) against the host.
# It collects the suite once first, alone: that writes each test module's assertion-rewritten bytecode (and
# the sources' it imports) once, where six workers starting on a fresh clone each rewrote all of them (7.8 s
# of CPU a worker without the cache, 3.3 s with it). A collection error is reported by the run that follows.
pytest: install $(NODE_STAMP) tmux
	$(BIN)/pytest --collect-only -q -p no:cacheprovider >/dev/null || true
	$(BIN)/pytest $(XDIST)

# Everything at once where make allows: the compiled environment is made and its wheel built while .venv
# installs (mostly waiting on the registries), and the wheel is tested while lint and the suite run (each
# target's output is shown whole, when it ends). What needs what is in the prerequisites; CI (.ci/run)
# runs just this.
test:
	@echo "make test: lint, the suite ($(WORKERS) workers) and the compiled build at once; each prints when it ends"
	@$(MAKE) --no-print-directory -j4 --output-sync=target MYPYC_OPT_LEVEL=0 lint pytest compiled-test

# The edit-test loop, under a minute: ruff (and mypy on the packages) over the Python files changed since
# main (committed or not), buf lint if a proto changed, then the tests tests/durations.json does not list
# as slow (each under a quarter of a second: most of the suite, in parallel).
check: install
	@files=$$( { git diff --name-only --diff-filter=d $$(git merge-base main HEAD 2>/dev/null || echo HEAD); \
	  git ls-files --others --exclude-standard; } | sort -u); \
	py=$$(echo "$$files" | grep '\.py$$' || true); \
	src=$$(echo "$$py" | grep -E '^(server|client|bots)/' || true); \
	echo "changed: $$(echo $$files | wc -w) files"; \
	if [ -n "$$py" ]; then $(BIN)/ruff check $$py || exit 1; fi; \
	engine=$$(echo "$$py" | grep '^server/unonet/engine/' || true); \
	if [ -n "$$engine" ]; then $(BIN)/ruff format --check $$engine || exit 1; fi; \
	if [ -n "$$src" ]; then $(BIN)/mypy --strict $$src || exit 1; fi; \
	if echo "$$files" | grep -q '\.proto$$'; then $(MAKE) --no-print-directory $(NODE_STAMP) && \
	  node_modules/.bin/buf lint || exit 1; fi
	$(BIN)/pytest -n 3 --fast -q

# The compiled environment needs nothing of .venv, so `make test` makes it while .venv installs: the build
# tools (build-system requires and the dev extra's mypy, which ships mypyc) and what the wheel's tests need
# (its dependencies, the dev extra and the rl extra: mypyc type-checks unonet.rl's environments, and
# compiled-test runs tests/rl), all pyproject's pins, so the wheel, once built, installs alone. The wheel is
# built once the protobuf modules are generated (setup.py keeps its metadata under build/).
$(CBIN)/uv:
	test -x $(CPY) || $(PYTHON) -m venv $(CVENV)
	$(CPY) -m pip install -q uv==$(UV_VERSION)

$(CTOOLS): pyproject.toml | $(CBIN)/uv
	$(PYTHON) -c 'import tomllib; d = tomllib.load(open("pyproject.toml", "rb")); \
	  x = d["project"]["optional-dependencies"]; \
	  print("\n".join(r for r in d["build-system"]["requires"] + d["project"]["dependencies"] + x["dev"] + x["rl"] \
	                  if not r.startswith("unonet")))' > $(CVENV)/requirements.txt  # a file: markers hold spaces
	$(CBIN)/uv pip install -q --python $(CPY) -r $(CVENV)/requirements.txt
	touch $@

# The wheel waits for the generated protobuf modules: mypyc type-checks what the compiled modules' packages
# import (unonet.rl's environments import the bots, which import unonet.v1), and a fresh clone has none.
$(CSTAMP): $(CTOOLS) setup.py $(ENGINE_SRC) $(BOTS_SRC) $(RL_SRC) $(HOST_SRC) $(PROTO_STAMP)
	# stale extensions and objects (an object of the other level would be linked as it is), the other stamp
	rm -rf build/lib.* build/bdist.* build/temp.* $(WHEELS) $(CVENV)/.installed $(CVENV)/.installed-O*
	# niced: under `make test` it builds beside the suite, whose turn clocks (1.9 s in the bot check) must
	# not be starved by gcc; alone it runs as fast as ever.
	@start=$$(date +%s); UNONET_USE_MYPYC=1 UNONET_MYPYC_OPT_LEVEL=$(MYPYC_OPT_LEVEL) \
	  nice -n 10 $(CPY) -m pip wheel -q --no-build-isolation --no-deps -w $(WHEELS) . && \
	  echo "compiled wheel (gcc -O$(MYPYC_OPT_LEVEL)) built in $$(( $$(date +%s) - start )) s"
	$(CBIN)/uv pip install -q --python $(CPY) --reinstall --no-deps $(WHEELS)/unonet-*.whl
	touch $@

compiled: $(CSTAMP)

# The engine's tests, the scenario files, the learning environments' and the host's and wire's (their hot
# modules are compiled too) and the replay digest on the compiled build: the digest must equal the pure
# build's, byte for byte (bench/replay_digest.py).
# Two workers: the engine's tests compute rather than wait. The replay digest needs .venv too.
compiled-test: $(CSTAMP) install
	UNONET_BUILD=compiled $(CBIN)/pytest -q -p no:cacheprovider -n 2 --dist loadgroup tests/engine tests/scenarios tests/rl \
	  tests/host tests/wire
	pure=$$($(PY) bench/replay_digest.py) && compiled=$$($(CPY) bench/replay_digest.py) && echo "pure:     $$pure" && \
	  echo "compiled: $$compiled" && test "$$pure" = "$$compiled"

# Both builds: bench/engine.py measures the compiled one in a second process on its environment.
bench: install $(CSTAMP) $(BIN)/uv $(CBIN)/uv
	$(BIN)/uv pip install -q --python $(PY) -e '.[bench]'
	$(CBIN)/uv pip install -q --python $(CPY) "$$(ls $(WHEELS)/unonet-*.whl)[bench]"
	$(PY) bench/engine.py

demo: install
	$(BIN)/unonet demo

# You and three bots on an embedded host on 127.0.0.1; quitting the screen stops the host.
play: install
	$(BIN)/unonet local

clean:
	rm -rf $(VENV) $(CVENV) $(WHEELS) $(PROTO_STAMP) protos/unonet/v1/*_pb2*.py protos/unonet/v1/*_pb2*.pyi
