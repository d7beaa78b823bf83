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

.PHONY: install protos test lint pytest bench demo play tmux clean

install: $(STAMP) $(PROTO_STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
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
	if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
	touch $@

lint: install $(NODE_STAMP)
	node_modules/.bin/buf lint
	node_modules/.bin/buf breaking --against buf/unonet-v1.binpb
	$(BIN)/ruff check .
	$(BIN)/ruff format --check server/unonet/engine
	$(BIN)/mypy --strict server/unonet client/unonet/client bots/unonet/bots

# The terminal client's end-to-end tests drive the real `unonet play` in tmux; install it where missing.
tmux:
	command -v tmux >/dev/null || (apt-get update && apt-get install -y tmux)

# node_modules too: a test runs a Node gRPC client (@grpc/grpc-js) against the host.
pytest: install $(NODE_STAMP) tmux
	$(BIN)/pytest

test: lint pytest

bench: install
	$(PY) -m pip install -q -e '.[bench]'
	$(PY) bench/engine.py

demo: install
	$(BIN)/unonet demo

# You and three bots on an embedded host on 127.0.0.1; quitting the screen stops the host.
play: install
	$(BIN)/unonet local

clean:
	rm -rf $(VENV) $(PROTO_STAMP) protos/unonet/v1/*_pb2*.py protos/unonet/v1/*_pb2*.pyi
