"""Command-line tools behind the Makefile: execute a chapter, prime the book's execution cache,
run a chapter with papermill, and read the toc.

    python -m lib.book_tools execute <slug>             # refresh book/<slug>/<slug>.{ipynb,py} from the .md
    python -m lib.book_tools run <slug> [--preset paper] [-p name=value ...]
    python -m lib.book_tools prime-cache                # let `jupyter-book build` reuse committed outputs
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
CACHE = ROOT / "_build" / ".jupyter_cache"
RUNS = ROOT / "_build" / "runs"
KERNEL = "python3"


def chapter_paths(slug: str) -> dict[str, Path]:
    folder = BOOK / slug
    return {ext: folder / f"{slug}.{ext}" for ext in ("md", "py", "ipynb")}


def chapters() -> list[str]:
    """Every chapter folder: ``book/<slug>/<slug>.md``."""
    return sorted(p.parent.name for p in BOOK.glob("*/*.md") if p.stem == p.parent.name)


def toc_chapters(toc: Path = ROOT / "_toc.yml") -> list[str]:
    """Chapter slugs in toc order (entries of the form ``book/<slug>/<slug>``)."""
    import yaml

    found: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            entry = node.get("file")
            if isinstance(entry, str):
                parts = Path(entry).with_suffix("").parts if entry.endswith(".md") else Path(entry).parts
                if len(parts) == 3 and parts[0] == "book" and parts[1] == parts[2]:
                    found.append(parts[1])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(toc.read_text(encoding="utf-8")))
    return found


def execute(slug: str, timeout: int = 1200) -> float:
    """Execute the chapter's ``.md`` top to bottom and rewrite its ``.ipynb`` and ``.py``.

    The ``.md`` is the source of truth and is never rewritten: code and prose come from it,
    outputs from this run. An edit made to the ``.md`` while it runs stops the refresh. Returns
    the wall-clock seconds of the run.
    """
    import jupytext
    from jupytext.config import load_jupytext_config
    from nbclient import NotebookClient

    paths = chapter_paths(slug)
    if not paths["md"].exists():
        raise SystemExit(f"no chapter {slug!r}: {paths['md']} does not exist")
    source = paths["md"].read_text(encoding="utf-8")
    nb = jupytext.reads(source, fmt="md:myst")
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=KERNEL,
        record_timing=False,
        resources={"metadata": {"path": str(paths["md"].parent)}},
    )
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    for i, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)
        cell.id = stable_cell_id(i, cell.source)
    if paths["md"].read_text(encoding="utf-8") != source:
        raise SystemExit(f"{paths['md']} changed while it was executing; run `make execute` again")
    config = load_jupytext_config(str(paths["md"]))  # the same headers as `jupytext --sync` writes
    jupytext.write(nb, paths["ipynb"], config=config)
    jupytext.write(nb, paths["py"], fmt="py:percent", config=config)
    return seconds


def stable_cell_id(index: int, source: str) -> str:
    """A cell id that changes only when the cell does, so re-execution does not churn git diffs."""
    return hashlib.sha1(f"{index}:{source}".encode()).hexdigest()[:12]


def read_md_and_executed(md: Path, ipynb: Path):
    """The notebook MyST-NB builds from ``md``, and the code cells of the executed ``ipynb``."""
    import jupytext
    from myst_nb.core.read import read_myst_markdown_notebook

    md_nb = read_myst_markdown_notebook(md.read_text(encoding="utf-8"), path=md)
    run_code = [c for c in jupytext.read(ipynb).cells if c.cell_type == "code"]
    return md_nb, run_code


def code_matches(md_nb, run_code) -> bool:
    """Do the ``.md``'s code cells equal, in order, those that were executed?"""
    md_code = [c for c in md_nb.cells if c.cell_type == "code"]
    return [c.source.strip() for c in md_code] == [c.source.strip() for c in run_code]


def prime_cache(cache_path: Path = CACHE) -> list[str]:
    """Store each chapter's committed outputs in jupyter-cache, keyed by its ``.md``.

    jupyter-cache hashes the kernelspec and the code cells (source and metadata) of the notebook
    MyST-NB reads from the ``.md``. We read the ``.md`` with MyST-NB's own reader, copy the
    outputs and execution counts of the committed ``.ipynb`` into it, and cache that: the book
    then shows exactly the outputs nbval verified, without executing the chapter again. A chapter
    whose ``.md`` code no longer matches its ``.ipynb`` is stale; we refuse to prime it.
    """
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(str(cache_path))
    primed, stale = [], []
    for slug in toc_chapters():
        paths = chapter_paths(slug)
        md_nb, run_code = read_md_and_executed(paths["md"], paths["ipynb"])
        if not code_matches(md_nb, run_code):
            stale.append(slug)
            continue
        nb = copy.deepcopy(md_nb)
        for cell, ran in zip((c for c in nb.cells if c.cell_type == "code"), run_code):
            cell.outputs = ran.outputs
            cell.execution_count = ran.execution_count
        cache.cache_notebook_bundle(
            CacheBundleIn(nb=nb, uri=str(paths["md"].resolve()), data={"primed_from": paths["ipynb"].name}),
            check_validity=False,
            overwrite=True,
        )
        primed.append(slug)
    if stale:
        raise SystemExit(
            "stale chapters (their .md code differs from the executed .ipynb): "
            + ", ".join(stale)
            + "\nrun `make execute CHAPTER=<slug>` for each"
        )
    return primed


def parse_overrides(items: list[str]) -> dict:
    """``name=value`` pairs; values are read as YAML (``3`` -> int, ``[1, 2]`` -> list)."""
    import yaml

    out = {}
    for item in items:
        if "=" not in item:
            raise SystemExit(f"-p expects name=value, got {item!r}")
        name, value = item.split("=", 1)
        out[name.strip()] = yaml.safe_load(value)
    return out


def run(slug: str, preset: str | None = None, overrides: dict | None = None) -> Path:
    """Execute a chapter with papermill: parameters from ``book/<slug>/<preset>.yaml`` and
    ``overrides``. Writes ``_build/runs/<slug>-<preset>.ipynb`` and never touches the committed
    notebook."""
    import papermill
    import yaml

    paths = chapter_paths(slug)
    if not paths["ipynb"].exists():
        raise SystemExit(f"no chapter {slug!r}: {paths['ipynb']} does not exist")
    params: dict = {}
    if preset:
        preset_file = paths["ipynb"].parent / f"{preset}.yaml"
        if not preset_file.exists():
            available = sorted(p.stem for p in paths["ipynb"].parent.glob("*.yaml"))
            raise SystemExit(f"no preset {preset!r} for {slug}; available: {available}")
        params.update(yaml.safe_load(preset_file.read_text(encoding="utf-8")) or {})
    params.update(overrides or {})
    RUNS.mkdir(parents=True, exist_ok=True)
    out = RUNS / f"{slug}-{preset or 'default'}.ipynb"
    papermill.execute_notebook(
        str(paths["ipynb"]),
        str(out),
        parameters=params,
        kernel_name=KERNEL,
        cwd=str(paths["ipynb"].parent),
        progress_bar=False,
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lib.book_tools", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_exec = sub.add_parser("execute", help="re-execute chapters and refresh their stored outputs")
    p_exec.add_argument("slugs", nargs="*", help="chapter slugs (default: all)")
    p_run = sub.add_parser("run", help="run a chapter with papermill")
    p_run.add_argument("slug")
    p_run.add_argument("--preset", default=None, help="a YAML file beside the notebook, e.g. 'paper'")
    p_run.add_argument("-p", dest="overrides", action="append", default=[], metavar="NAME=VALUE")
    sub.add_parser("prime-cache", help="store committed outputs in the book's execution cache")
    sub.add_parser("list", help="list the chapters")
    args = parser.parse_args(argv)

    if args.command == "execute":
        for slug in args.slugs or chapters():
            seconds = execute(slug)
            print(f"executed {slug} in {seconds:.1f} s")
    elif args.command == "run":
        out = run(args.slug, args.preset, parse_overrides(args.overrides))
        print(f"wrote {out.relative_to(ROOT)}")
    elif args.command == "prime-cache":
        primed = prime_cache()
        print(f"primed the execution cache for {len(primed)} chapter(s): {', '.join(primed)}")
    elif args.command == "list":
        print("\n".join(chapters()))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.exit(main())
