"""Command-line tools behind the Makefile: execute a chapter, prime the book's execution cache,
run a chapter with papermill, sweep chapters over seeds, and read the toc.

    python -m lib.build execute <slug>       # refresh book/<slug>/<slug>.{ipynb,py} from the .md
    python -m lib.build run <slug> [--preset paper] [-p name=value ...] [--record]
    python -m lib.build sweep --chapters <slug> ... --seeds 0-9 [--preset paper] [--record]
    python -m lib.build controls [--chapters <slug> ...] [--record]   # every control, seed 0
    python -m lib.build prime-cache          # let `jupyter-book build` reuse committed outputs
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
CACHE = ROOT / "_build" / ".jupyter_cache"
RUNS = ROOT / "_build" / "runs"
KERNEL = "python3"


def kernels_import_this_checkout() -> None:
    """Put this checkout first on PYTHONPATH, which every kernel started from this
    process inherits (papermill, nbclient, nbval, dask workers): kernels start in a
    chapter's folder, and would otherwise import the `lib` (and read the controls.yaml)
    of whichever checkout the virtual environment's editable install points at."""
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p
    )


def quiet_papermill() -> None:
    """papermill's parameter inspection warns about every parameter whose comment holds an
    ``=`` ("Unable to parse line ..."); the parameters are injected correctly regardless."""
    import logging

    logging.getLogger("papermill.translators").setLevel(logging.ERROR)


def kernel_manager_class():
    """nbclient's kernel manager with CurveZMQ keys provisioned (jupyter_client's
    ``transport_encryption``): the supported way to talk to a kernel over TCP, and the end of
    ipykernel's "running over TCP without encryption" warning on every run."""
    from jupyter_client.manager import AsyncKernelManager

    class EncryptedKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            kwargs.setdefault("transport_encryption", "auto")
            super().__init__(**kwargs)

    return EncryptedKernelManager


def chapter_paths(slug: str) -> dict[str, Path]:
    folder = BOOK / slug
    return {ext: folder / f"{slug}.{ext}" for ext in ("md", "py", "ipynb")}


def chapters() -> list[str]:
    """Every chapter folder: ``book/<slug>/<slug>.md``."""
    return sorted(p.parent.name for p in BOOK.glob("*/*.md") if p.stem == p.parent.name)


def toc_parts(toc: Path = ROOT / "_toc.yml") -> list[tuple[str, str]]:
    """``(part caption, slug)`` of every chapter, in toc order (entries ``book/<slug>/<slug>``)."""
    import yaml

    found: list[tuple[str, str]] = []

    def walk(node, caption: str):
        if isinstance(node, dict):
            caption = node.get("caption", caption)
            entry = node.get("file")
            if isinstance(entry, str):
                path = Path(entry[:-3] if entry.endswith(".md") else entry)
                if (
                    len(path.parts) == 3
                    and path.parts[0] == "book"
                    and path.parts[1] == path.parts[2]
                ):
                    found.append((caption, path.parts[1]))
            for value in node.values():
                walk(value, caption)
        elif isinstance(node, list):
            for item in node:
                walk(item, caption)

    walk(yaml.safe_load(toc.read_text(encoding="utf-8")), "")
    return found


def toc_chapters(toc: Path = ROOT / "_toc.yml") -> list[str]:
    """Chapter slugs in toc order."""
    return [slug for _, slug in toc_parts(toc)]


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
        kernel_manager_class=kernel_manager_class(),
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
        raise SystemExit(
            f"{paths['md']} changed while it was executing; run `make execute` again"
        )
    config = load_jupytext_config(
        str(paths["md"])
    )  # the same headers as `jupytext --sync` writes
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
            CacheBundleIn(
                nb=nb,
                uri=str(paths["md"].resolve()),
                data={"primed_from": paths["ipynb"].name},
            ),
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


def check_html(html_dir: Path = ROOT / "_build" / "html") -> list[str]:
    """Problems of the built book: a remote script or stylesheet, or a local script (MathJax
    above all) that is not there, which stop it working offline; a glued string pasted as its
    Python repr, quotes included (``lib.build.sphinx_glue``). Returns the problems; [] when it
    is fine."""
    import re

    problems, mathjax_pages = [], 0
    tag = re.compile(r"<(script|link)\b[^>]*>", re.IGNORECASE)
    attr = re.compile(r'\b(src|href|rel)\s*=\s*"([^"]*)"', re.IGNORECASE)
    quoted = re.compile(r'class="output text_plain">([\'"‘“][^<]*)<')
    pages = sorted(p for p in html_dir.rglob("*.html") if "_static" not in p.parts)
    if not pages:
        return [f"no HTML pages under {html_dir}"]
    for page in pages:
        html = page.read_text(encoding="utf-8")
        for text in quoted.findall(html):
            problems.append(
                f"{page.relative_to(html_dir)}: glued string {text} shows its quotes"
            )
        for match in tag.finditer(html):
            attrs = {k.lower(): v for k, v in attr.findall(match.group(0))}
            kind = match.group(1).lower()
            if kind == "link" and "stylesheet" not in attrs.get("rel", ""):
                continue
            url = attrs.get("src" if kind == "script" else "href")
            if not url:
                continue
            name = page.relative_to(html_dir)
            if re.match(r"^(https?:)?//", url):
                problems.append(f"{name}: remote {kind} {url}")
                continue
            local = (page.parent / url.split("?")[0].split("#")[0]).resolve()
            if "mathjax" in url.lower():
                mathjax_pages += 1
            if not local.exists():
                problems.append(f"{name}: {kind} {url} is missing")
    if mathjax_pages == 0:
        problems.append("no page loads MathJax from the book's own files")
    return problems


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


def preset_parameters(slug: str, preset: str | None) -> dict:
    """The papermill parameters of ``book/<slug>/<preset>.yaml`` (none for ``default``).

    Top-level keys that start with ``_`` are metadata about the preset (``_estimate``: the
    expected runtime where it was not measured), not parameters."""
    import yaml

    if preset in (None, "default"):
        return {}
    preset_file = BOOK / slug / f"{preset}.yaml"
    if not preset_file.exists():
        available = sorted(p.stem for p in preset_file.parent.glob("*.yaml"))
        raise SystemExit(
            f"no preset {preset!r} for {slug}; available: ['default'] + {available}"
        )
    values = yaml.safe_load(preset_file.read_text(encoding="utf-8")) or {}
    return {k: v for k, v in values.items() if not str(k).startswith("_")}


def preset_metadata(slug: str, preset: str = "paper") -> dict:
    """The ``_``-prefixed metadata keys of a preset file (without the underscore)."""
    import yaml

    preset_file = BOOK / slug / f"{preset}.yaml"
    if not preset_file.exists():
        return {}
    values = yaml.safe_load(preset_file.read_text(encoding="utf-8")) or {}
    return {k[1:]: v for k, v in values.items() if str(k).startswith("_")}


def run(
    slug: str,
    preset: str | None = None,
    overrides: dict | None = None,
    record: bool = False,
    progress: bool = True,
) -> Path:
    """Execute a chapter with papermill: parameters from ``book/<slug>/<preset>.yaml`` and
    ``overrides``. Writes ``_build/runs/<slug>-<preset>.ipynb`` and never touches the committed
    notebook (a run under a control: ``_build/runs/<slug>-<preset>-<control>.ipynb``). With
    ``record``, a run of the ``paper`` preset without overrides also writes its measured
    runtime and claims to ``book/<slug>/paper-run.json`` for the status page, also when
    claims fail (the record says how many held; the run still fails). ``progress`` shows
    papermill's bar over the notebook's cells in the terminal."""
    import papermill

    quiet_papermill()
    paths = chapter_paths(slug)
    if not paths["ipynb"].exists():
        raise SystemExit(f"no chapter {slug!r}: {paths['ipynb']} does not exist")
    if record and (preset != "paper" or overrides):
        raise SystemExit(
            "--record keeps the runtime of the paper preset, without overrides"
        )
    params = preset_parameters(slug, preset)
    params.update(overrides or {})
    RUNS.mkdir(parents=True, exist_ok=True)
    control = params.get("control", "none")
    suffix = "" if control == "none" else f"-{control}"
    out = RUNS / f"{slug}-{preset or 'default'}{suffix}.ipynb"
    start = time.perf_counter()

    def keep_record():
        device = resolved_device(params.get("device", "auto"))
        write_paper_run(slug, out, time.perf_counter() - start, device)

    try:
        papermill.execute_notebook(
            str(paths["ipynb"]),
            str(out),
            parameters=params,
            kernel_name=KERNEL,
            cwd=str(paths["ipynb"].parent),
            progress_bar=progress,
            # the chapter's own bars (its `progress` parameter) stream to this terminal
            stderr_file=sys.stderr if progress else None,
            kernel_manager_class=kernel_manager_class(),
        )
    except papermill.PapermillExecutionError as error:
        # failing claims are a result of the preset, not a broken run
        if record and error.ename == "ClaimsFailed":
            keep_record()
        raise
    if record:
        keep_record()
    return out


def resolved_device(device: str) -> str:
    """The device a run with this ``device`` parameter used: ``cpu`` or ``cuda``."""
    from lib.runtime import pick_device

    try:
        return pick_device(device)
    except ValueError:
        return str(device)


def write_paper_run(slug: str, executed: Path, seconds: float, device: str) -> Path:
    """Record a measured run of the paper preset (what the status page shows)."""
    import json
    import platform

    from lib.claims import read_claims

    record = read_claims(executed) or {"claims": []}
    held = sum(c["holds"] == c.get("expected", True) for c in record["claims"])
    data = {
        "preset": "paper",
        "runtime_s": round(seconds, 1),
        "device": device,
        "machine": f"{os.cpu_count()} CPU cores, {platform.machine()}",
        "claims_as_recorded": f"{held}/{len(record['claims'])}",
        "date": time.strftime("%Y-%m-%d"),
        "claims": [
            {k: c.get(k) for k in ("claim", "measured", "value", "holds", "expected")}
            for c in record["claims"]
        ],
    }
    target = BOOK / slug / "paper-run.json"
    target.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lib.build",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_exec = sub.add_parser(
        "execute", help="re-execute chapters and refresh their stored outputs"
    )
    p_exec.add_argument("slugs", nargs="*", help="chapter slugs (default: all)")
    p_run = sub.add_parser("run", help="run a chapter with papermill")
    p_run.add_argument("slug")
    p_run.add_argument(
        "--preset", default=None, help="a YAML file beside the notebook, e.g. 'paper'"
    )
    p_run.add_argument(
        "-p", dest="overrides", action="append", default=[], metavar="NAME=VALUE"
    )
    p_run.add_argument(
        "--record", action="store_true", help="keep the paper preset's runtime"
    )
    p_run.add_argument(
        "--no-progress", action="store_true", help="no progress in the terminal"
    )
    from lib.build import sweep

    sweep.add_arguments(
        sub.add_parser("sweep", help="chapters x seeds on dask.distributed")
    )
    from lib.build import controls

    controls.add_arguments(
        sub.add_parser("controls", help="every chapter x control on dask.distributed")
    )
    sub.add_parser(
        "prime-cache", help="store committed outputs in the book's execution cache"
    )
    sub.add_parser(
        "check-html", help="the built book needs no network (scripts, styles, MathJax)"
    )
    sub.add_parser("list", help="list the chapters")
    args = parser.parse_args(argv)

    if args.command == "execute":
        for slug in args.slugs or chapters():
            seconds = execute(slug)
            print(f"executed {slug} in {seconds:.1f} s")
    elif args.command == "run":
        out = run(
            args.slug,
            args.preset,
            parse_overrides(args.overrides),
            record=args.record,
            progress=not args.no_progress,
        )
        print(f"wrote {out.relative_to(ROOT)}")
    elif args.command == "sweep":
        return sweep.main(args)
    elif args.command == "controls":
        return controls.main(args)
    elif args.command == "prime-cache":
        primed = prime_cache()
        print(
            f"primed the execution cache for {len(primed)} chapter(s): {', '.join(primed)}"
        )
    elif args.command == "check-html":
        problems = check_html()
        for problem in problems:
            print(problem)
        if problems:
            return 1
        print("the built book loads no remote script or stylesheet; MathJax is local")
    elif args.command == "list":
        print("\n".join(chapters()))
    return 0
