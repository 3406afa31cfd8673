# Two entry points a new user needs; each sets itself up (a local .venv) first.
#   make demo   validate the shipped examples (DIRT and GT), draw, print and race them
#   make test   ruff, mypy and the test suite (the studio's browser tests included)
#   make quick  the inner loop: the tests but the slowest and the browser's (no lint)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# pytest keeps its assertion-rewritten tests and the suite's processes their modules
# compiled in __pycache__ (git ignores it), even where PYTHONDONTWRITEBYTECODE is set:
# else every worker and every process recompiles them, seconds of each run (issue 22)
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest

# the opt-in compiled build (setup.py, TRACKKIT_COMPILE=1): its wheel, unpacked here, so that
# make bench measures it beside the pure package (PYTHONPATH first)
COMPILED := build/compiled
SOURCES := $(wildcard trackkit/*.py trackkit/*/*.py trackkit/*/*/*.py)

.PHONY: demo test quick lint bench compiled compiled-check schema library clean

$(STAMP): pyproject.toml
	@# CairoSVG (PNG/PDF output) needs the cairo C library
	@ldconfig -p 2>/dev/null | grep -q 'libcairo.so.2' || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && apt-get install -y -qq libcairo2 >/dev/null; \
	  else echo "warning: install the cairo library (Debian: libcairo2, macOS: brew install cairo)"; fi; }
	@# the studio's browser tests drive headless Chromium (Debian: chromium, chromium-driver)
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else echo "warning: the studio's browser tests will be skipped: install chromium and chromium-driver (Debian)"; fi; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,dask]'
	@# byte-compile trackkit as a normal install would (some machines set PYTHONDONTWRITEBYTECODE)
	$(BIN)/python -m compileall -q trackkit
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/trackkit validate examples/col-de-turini.yaml examples/col-de-turini.rekee.json
	$(BIN)/trackkit validate examples/hillclimb-pikes.yaml
	$(BIN)/trackkit validate --kind hillclimb examples/hillclimb-pikes.rgt
	@echo "--- a broken stage: every problem in one pass (exit status 1 expected) ---"
	-$(BIN)/trackkit validate examples/broken-stage.yaml
	@echo "--- a Rekee file with one tile mistyped: one break, one list (exit status 1 expected) ---"
	-$(BIN)/trackkit validate examples/turini-typo.rekee.json
	@mkdir -p out
	$(BIN)/trackkit render examples/col-de-turini.yaml -o out/col-de-turini.svg
	$(BIN)/trackkit render examples/col-de-turini.yaml -o out/col-de-turini.png --px 1600
	$(BIN)/trackkit print examples/col-de-turini.yaml -o out/col-de-turini-a4.pdf --paper a4
	$(BIN)/trackkit simulate examples/col-de-turini.yaml --races 20 --seed 1 --bot cautious --bot aggressive --bot planner
	@echo "--- Rallyman: GT: a circuit of core-box tiles and a figure of eight drawn in Rekee ---"
	$(BIN)/trackkit validate examples/gt-core-circuit.yaml examples/gt-figure-eight.rekee.json
	@echo "--- a broken GT track: every problem in one pass (exit status 1 expected) ---"
	-$(BIN)/trackkit validate examples/gt-broken.yaml
	$(BIN)/trackkit render examples/gt-core-circuit.yaml -o out/gt-core-circuit.svg
	$(BIN)/trackkit render examples/gt-figure-eight.rekee.json -o out/gt-figure-eight.png --px 1600
	$(BIN)/trackkit print examples/gt-core-circuit.yaml -o out/gt-core-circuit-a4.pdf --paper a4
	$(BIN)/trackkit simulate examples/gt-figure-eight.rekee.json --races 20 --seed 1 --players 6 --bot cautious --bot aggressive --bot planner
	@echo "maps and print pages are in out/"

lint: $(STAMP)
	$(BIN)/ruff check trackkit tests scripts benchmarks build_backend setup.py
	$(BIN)/ruff format --check trackkit tests scripts benchmarks build_backend setup.py
	$(BIN)/mypy

test: lint
	@# the suite on every core (at most 4): about half the time on a 2-core machine
	@# (--dist loadgroup: the studio's browser tests share one worker and one browser)
	$(PYTEST) -n auto --maxprocesses=4 --dist loadgroup trackkit tests

quick: $(STAMP)
	@# every test but those marked slow (each of several seconds or more: see pyproject's
	@# markers) and the browser's; make test still runs them all
	$(PYTEST) -n auto --maxprocesses=4 --dist loadgroup -m "not slow and not browser" trackkit tests

$(COMPILED)/.built: $(STAMP) setup.py build_backend/trackkit_build.py $(SOURCES)
	@# mypyc compiles setup.py's modules (about a minute); the wheel is what a user installs
	@# the compiled build's own folders (build_backend's BUILD_DIR: setuptools and mypyc): left
	@# over, a module compiled last time (since dropped from setup.py) would go into the wheel
	rm -rf $(COMPILED) build/compiled-wheel build/mypyc
	TRACKKIT_COMPILE=1 $(BIN)/python -m pip wheel --no-deps -q -w build/compiled-wheel .
	$(BIN)/python -m zipfile -e build/compiled-wheel/trackkit-*.whl $(COMPILED)
	$(BIN)/python -m compileall -q $(COMPILED)/trackkit
	touch $@

compiled: $(COMPILED)/.built

# the compiled build checked (.ci/run): it races the pure package's seeded races byte for
# byte, and passes the tests of the race loop, the rules and the sweeps
COMPILED_TESTS := tests/test_build.py tests/test_sim.py tests/test_engine.py tests/test_rules.py tests/test_risk.py \
  tests/test_gt_rules.py tests/test_gt_race.py tests/test_gt_plan_caches.py tests/test_dask.py
compiled-check: $(COMPILED)/.built
	$(BIN)/python benchmarks/fingerprint.py --races 8 > build/fingerprint-pure.txt
	PYTHONPATH=$(COMPILED) $(BIN)/python -P benchmarks/fingerprint.py --races 8 \
	  > build/fingerprint-compiled.txt
	diff build/fingerprint-pure.txt build/fingerprint-compiled.txt
	TRACKKIT_EXPECT_BUILD=compiled PYTHONPATH=$(COMPILED) $(PYTEST) -n auto --maxprocesses=4 -p no:cacheprovider $(COMPILED_TESTS)

bench: $(STAMP) compiled-check
	$(BIN)/python -m compileall -q trackkit
	@# issue 22's table: the pure package and the compiled build side by side (compiled-check
	@# has shown that both race the same races)
	$(BIN)/python benchmarks/targets.py --compiled $(COMPILED)
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/render.py
	$(BIN)/python benchmarks/rules.py
	$(BIN)/python benchmarks/sim.py
	$(BIN)/python benchmarks/sim.py --gt
	$(BIN)/python benchmarks/generate.py
	$(BIN)/python benchmarks/generate.py --gt
	$(BIN)/python benchmarks/studio.py

schema: $(STAMP)
	$(BIN)/trackkit schema --out schemas

library: $(STAMP)
	$(BIN)/python scripts/build_tile_library.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
