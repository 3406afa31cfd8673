# Two entry points a new user needs; each sets itself up (a local .venv) first.
#   make demo   validate the shipped example stages
#   make test   ruff, mypy and the test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench schema library clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/trackkit validate examples/col-de-turini.yaml examples/col-de-turini.rekee.json
	$(BIN)/trackkit validate examples/hillclimb-pikes.yaml
	$(BIN)/trackkit validate --kind hillclimb examples/hillclimb-pikes.rgt
	@echo "--- a broken stage: every problem in one pass (exit status 1 expected) ---"
	-$(BIN)/trackkit validate examples/broken-stage.yaml

lint: $(STAMP)
	$(BIN)/ruff check trackkit tests scripts benchmarks
	$(BIN)/ruff format --check trackkit tests scripts benchmarks
	$(BIN)/mypy

test: lint
	$(BIN)/pytest trackkit tests

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

schema: $(STAMP)
	$(BIN)/trackkit schema --out schemas

library: $(STAMP)
	$(BIN)/python scripts/build_tile_library.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
