# The two commands of the README.  Both create .venv and install the project on first use.
#   make play   start the game server (embedded: fakeredis + in-process bot worker) and open it
#               make play PORT=8001 HOST=0.0.0.0 DATA=/some/folder  (defaults below)
#   make test   run the whole test suite: ruff, mypy, pytest in two xdist workers (needs Redis at
#               127.0.0.1:6379; the second worker starts a private redis-server: tests/conftest.py)
PY ?= python3
# plain assignments: `make play HOST=...` sets them, the environment does not (a shell exports
# HOST, PORT or DATA for other uses: tcsh's HOST is the machine's name)
HOST = 127.0.0.1
PORT = 8000
DATA =
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
REQUIREMENTS := $(VENV)/requirements.txt

.PHONY: play test install bench clean

# the bots' hot modules, as listed in worker/policies/_compiled.py
HOT := $(patsubst %,worker/policies/%.py,$(shell sed -n '/^HOT = (/,/)/p' \
	worker/policies/_compiled.py | sed 's/^HOT = //' | tr -d '",()'))

# the bots' hot modules are compiled with mypyc on install (setup.py): rebuild when they change
# (each step says what it does: the first install takes about a minute)
$(STAMP): pyproject.toml setup.py worker/policies/_compiled.py $(HOT)
	@echo "Installing hokm into $(VENV) (about a minute the first time):"
	@test -x $(BIN)/python || { echo "  1/3 creating the virtual environment"; $(PY) -m venv $(VENV); }
	@echo "  2/3 installing the dependencies with pip"
	@$(BIN)/python -m pip install -q --upgrade pip
	@$(BIN)/python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); \
		print("\n".join(p["build-system"]["requires"] + p["project"]["dependencies"] \
		+ p["project"]["optional-dependencies"]["dev"]))' > $(REQUIREMENTS)
	@$(BIN)/python -m pip install -q -r $(REQUIREMENTS)
	@echo "  3/3 building hokm: mypyc compiles the bots' hot loops to C (about 30 s; HOKM_PURE=1 skips it)"
	@PYTHONWARNINGS=ignore $(BIN)/python -m pip install -q --no-build-isolation --no-deps -e .
	@touch $(STAMP)
	@echo "Installed."

install: $(STAMP)

play: $(STAMP)
	$(BIN)/hokm serve --host '$(HOST)' --port '$(PORT)' $(if $(DATA),--data '$(DATA)') --open

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadfile

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis build
	rm -f worker/policies/*.so worker/policies/_built.py *__mypyc.*.so
