# Benchmarks beside the peers (issue 7). The peers go into their own venv (BENCH_VENV, default .venv-bench).
PYTHON ?= python3
BENCH_VENV ?= .venv-bench

.PHONY: check bench bench-quick bench-ours

# Lint, format and type checks (the same as .pre-commit-config.yaml); .ci/run runs this before the tests.
check:
	ruff check .
	ruff format --check .
	mypy


bench:
	$(PYTHON) tests/benchmarks/run_all.py --venv $(BENCH_VENV) --out bench-results.md

bench-quick:
	$(PYTHON) tests/benchmarks/run_all.py --venv $(BENCH_VENV) --quick

bench-ours:
	$(PYTHON) tests/benchmarks/run_all.py --no-peers --quick
