# The README's two commands: `make demo` (the main job) and `make test` (the tests).
# Both create .venv/ and install everything on first use.
.PHONY: setup demo test benchmark

setup:
	./scripts/setup.sh

demo: setup
	.venv/bin/dpsynrag demo

test: setup
	.venv/bin/python -m pytest

benchmark: setup
	.venv/bin/python benchmarks/bench_decoder.py
