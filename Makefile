# The two commands of the README.  Both create .venv and install the project on first use.
#   make play   start the game server (embedded: fakeredis + in-process bot worker) and open it
#   make test   run the whole test suite: ruff, mypy, pytest (needs Redis at 127.0.0.1:6379)
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play test install bench clean

# the bots' hot modules, as listed in worker/policies/_compiled.py
HOT := $(patsubst %,worker/policies/%.py,$(shell sed -n 's/^HOT = (\(.*\))/\1/p' \
	worker/policies/_compiled.py | tr -d '",'))

# the bots' hot modules are compiled with mypyc on install (setup.py): rebuild when they change
$(STAMP): pyproject.toml setup.py worker/policies/_compiled.py $(HOT)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

play: $(STAMP)
	$(BIN)/hokm serve --open

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis build
	rm -f worker/policies/*.so worker/policies/_built.py *__mypyc.*.so
