# Executable Theory: ICLR 2025
#   make test                      lib tests, pairing/outputs/toc checks, strict nbval on every chapter
#   make book                      the HTML book, warnings as errors, from the committed outputs
#   make execute CHAPTER=<slug>    re-execute a chapter and refresh its stored .ipynb/.py
#   make run CHAPTER=<slug> PRESET=paper   papermill run with book/<slug>/paper.yaml -> _build/runs/
#   make sync CHAPTER=<slug>       after a prose-only edit of the .md: carry it to .ipynb/.py, keep outputs
#   make lab                       JupyterLab at the repository root (chapters' .md open as notebooks)
#   make run CHAPTER=<slug> CONTROL=<name>  the chapter under a control (default preset): a test
#   make sweep CHAPTERS="a b" SEEDS=0-9 [PRESET=default] [RECORD=1]   seeds on dask -> _build/sweeps/
#   make controls [CHAPTERS="a b"] [RECORD=1]   every control at seed 0 on dask -> controls.csv
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CHAPTER ?=
PRESET ?= paper
CHAPTERS ?=
SEEDS ?= 0-9
RECORD ?=
CONTROL ?=
# `make run` defaults to the paper preset, `make sweep` to the default parameters
SWEEP_PRESET = $(if $(filter command line environment,$(origin PRESET)),$(PRESET),default)
# `make run CONTROL=<name>` defaults to the default preset: controls are defined there
RUN_PRESET = $(if $(CONTROL),$(SWEEP_PRESET),$(PRESET))

# One thread per kernel: reference outputs (`make execute`) and nbval (two xdist workers on two
# cores) then run with the same floating-point reduction order, and workers do not oversubscribe.
# Libraries that offer results independent of the CPU are told to give them: MKL (torch's CPU
# matrix products) takes its one code path that is the same on Intel and AMD, and torch's and
# numpy's own kernels (exp, log, reductions) take their AVX2 versions on AVX-512 machines too.
# OpenBLAS (numpy's matrix products) has no such switch: chapters print at the precision their
# claims need instead (README, "Outputs and the CPU").
export MKL_CBWR := COMPATIBLE
export ATEN_CPU_CAPABILITY := avx2
export NPY_DISABLE_CPU_FEATURES := X86_V4 AVX512_ICL AVX512_SPR
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MPLBACKEND := Agg
export PYTHONHASHSEED := 0
export PYDEVD_DISABLE_FILE_VALIDATION := 1
export JUPYTER_PLATFORM_DIRS := 1

.PHONY: install test book execute run sync sweep controls clean nbval-kernel lab

$(VENV)/.installed: requirements.txt pyproject.toml jupyter/overrides.json jupyter/jupyter_server_config.json \
  jupyter/ipython_kernel_config.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" >/dev/null
	mkdir -p $(VENV)/share/jupyter/lab/settings $(VENV)/etc/jupyter/jupyter_server_config.d \
	  $(VENV)/etc/ipython
	cp jupyter/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	cp jupyter/jupyter_server_config.json \
	  $(VENV)/etc/jupyter/jupyter_server_config.d/executable-theory.json
	cp jupyter/ipython_kernel_config.py $(VENV)/etc/ipython/ipython_kernel_config.py
	touch $@

install: $(VENV)/.installed

test: install
	$(VENV)/bin/ruff check lib tests
	$(VENV)/bin/ruff format --check lib tests
	$(PY) -m pytest -n 2 --dist loadscope \
	  --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
	  tests book

# Strict nbval with some kernel setting switched for this one command (README, "Outputs and the CPU").
nbval-kernel: install
	@test -n "$(KERNEL_ENV)" || { echo 'usage: make nbval-kernel KERNEL_ENV="NAME=value ..."'; exit 2; }
	env $(KERNEL_ENV) $(PY) -m pytest -n 2 --dist loadscope \
	  --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg book

book: install
	rm -rf _build/html _build/.doctrees _build/.jupyter_cache _build/jupyter_execute
	$(PY) -m lib.build prime-cache
	$(VENV)/bin/jupyter-book build . --all -W -n --keep-going
	$(PY) -m lib.build check-html
	@echo "The book: $(CURDIR)/_build/html/index.html"

execute: install
	@test -n "$(CHAPTER)" || { echo "usage: make execute CHAPTER=<slug> (or CHAPTER=all)"; exit 2; }
	$(PY) -m lib.build execute $(if $(filter all,$(CHAPTER)),,$(CHAPTER))

run: install
	@test -n "$(CHAPTER)" || { echo "usage: make run CHAPTER=<slug> [PRESET=paper] [CONTROL=<name>] [RECORD=1]"; exit 2; }
	$(PY) -m lib.build run $(CHAPTER) --preset $(RUN_PRESET) $(if $(CONTROL),-p control=$(CONTROL)) $(if $(RECORD),--record)

sweep: install
	$(PY) -m lib.build sweep --seeds $(SEEDS) --preset $(SWEEP_PRESET) \
	  $(if $(CHAPTERS),--chapters $(CHAPTERS)) $(if $(RECORD),--record)

controls: install
	$(PY) -m lib.build controls $(if $(CHAPTERS),--chapters $(CHAPTERS)) $(if $(RECORD),--record)

sync: install
	@test -n "$(CHAPTER)" || { echo "usage: make sync CHAPTER=<slug>"; exit 2; }
	$(VENV)/bin/jupytext --sync book/$(CHAPTER)/$(CHAPTER).md

# JupyterLab at the repository root, from .venv; prints its URL (with the token) when it is up.
LAB_PORT ?= 8888
lab: install
	$(VENV)/bin/jupyter lab --no-browser --ip=127.0.0.1 --port=$(LAB_PORT) \
	  --ServerApp.root_dir=$(CURDIR) $(if $(filter 0,$(shell id -u)),--allow-root)

clean:
	rm -rf _build
