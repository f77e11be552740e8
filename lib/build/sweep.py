"""Chapters x seeds x presets as papermill jobs on ``dask.distributed``.

    python -m lib.build sweep --chapters strong-model-collapse --seeds 0-9
    python -m lib.build sweep --chapters a b --seeds 0-3 --preset paper --scheduler tcp://host:8786
    make sweep CHAPTERS="a b" SEEDS=0-9 PRESET=default RECORD=1

Each (chapter, seed) is one task: a papermill run of the chapter's committed notebook with the
preset's parameters and ``seed``. By default the tasks run on a ``LocalCluster`` (one worker
process per core, one BLAS thread each); ``--scheduler`` sends them to an existing cluster whose
workers have this repository installed (``make install`` or ``pip install -e .``) at the same path.

Everything lands in ``_build/sweeps/<name>/``: per job the executed notebook and a JSON result
(``<slug>/seed-<k>.json``), then ``summary.csv`` and ``summary.md`` (per claim: passes over seeds,
mean and sd of the measured value). A rerun skips jobs whose result says they passed with the
same chapter code and parameters, so a crashed or interrupted sweep resumes. A failing job
(a claim that does not hold, an exception, a timeout) is reported with its chapter, seed and
the failing claim or error; the others go on, and the command exits non-zero. With ``--record`` (default preset, seeds 0-9 included) each chapter's
summary is written to ``book/<slug>/seeds.csv``, which the status page shows.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

from lib.claims import mean_sd
from lib.build.book_tools import (
    BOOK,
    KERNEL,
    ROOT,
    chapter_paths,
    chapters,
    kernel_manager_class,
    preset_parameters,
    quiet_papermill,
)

SWEEPS = ROOT / "_build" / "sweeps"
SEEDS_FILE = "seeds.csv"
SEEDS_COLUMNS = ["claim_no", "claim", "seeds", "held", "mean", "sd", "code_sha1"]
# One thread per kernel (the Makefile's setting), and the libraries' CPU-independent paths.
JOB_ENV = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}


def parse_seeds(text: str) -> list[int]:
    """``"0-9"``, ``"3"`` or ``"0,2,5-7"`` -> a sorted list of distinct seeds."""
    seeds: set[int] = set()
    for part in str(text).split(","):
        part = part.strip()
        try:
            if "-" in part:
                lo, hi = (int(x) for x in part.split("-", 1))
                if lo > hi or lo < 0:
                    raise ValueError
                seeds.update(range(lo, hi + 1))
            else:
                seeds.add(int(part))
        except ValueError:
            raise SystemExit(
                f"--seeds {text!r}: expected e.g. 0-9, 3 or 0,2,5-7"
            ) from None
    if not seeds or min(seeds) < 0:
        raise SystemExit(f"--seeds {text!r}: expected non-negative seeds")
    return sorted(seeds)


def code_sha1(slug: str) -> str:
    """A digest of the chapter's code cells: a seeds record is valid only for this code."""
    import jupytext

    cells = jupytext.read(chapter_paths(slug)["md"]).cells
    code = "\n\0".join(c.source.strip() for c in cells if c.cell_type == "code")
    return hashlib.sha1(code.encode()).hexdigest()[:12]


# --- one job -------------------------------------------------------------------------------


def execute_job(slug: str, out: Path, parameters: dict, timeout: int | None) -> dict:
    """Run the chapter's committed notebook with papermill into ``out``; never raises.
    Returns ``status``, ``error``, the stored ``claims`` and ``seconds``."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from lib.claims import read_claims

    os.environ.update(JOB_ENV)
    quiet_papermill()
    out.parent.mkdir(parents=True, exist_ok=True)
    result = {"status": "passed", "error": "", "claims": []}
    start = time.perf_counter()
    try:
        papermill.execute_notebook(
            str(chapter_paths(slug)["ipynb"]),
            str(out),
            parameters=parameters,
            kernel_name=KERNEL,
            cwd=str(chapter_paths(slug)["md"].parent),
            progress_bar=False,
            execution_timeout=timeout,
            kernel_manager_class=kernel_manager_class(),
        )
    except PapermillExecutionError as err:
        result["status"] = "failed"
        result["error"] = f"{err.ename}: {err.evalue}".strip()
    except Exception as err:  # a timeout, a dead kernel: reported, never raised
        result["status"] = "failed"
        result["error"] = f"{type(err).__name__}: {err}".strip()
    result["seconds"] = round(time.perf_counter() - start, 1)
    record = read_claims(out) if out.exists() else None
    if record:
        result["claims"] = record["claims"]
    return result


def run_job(
    slug: str, seed: int, parameters: dict, out_dir: str, timeout: int | None
) -> dict:
    """Run one chapter at one seed with papermill; never raises (the error is in the result)."""
    out = Path(out_dir) / slug / f"seed-{seed}.ipynb"
    result = {
        "chapter": slug,
        "seed": seed,
        "code_sha1": code_sha1(slug),
        "parameters": parameters,
        **execute_job(slug, out, {**parameters, "seed": seed}, timeout),
    }
    failing = [
        c["claim"] for c in result["claims"] if c["holds"] != c.get("expected", True)
    ]
    if failing:
        result["status"] = "failed"
        result["failing_claims"] = failing
    elif result["status"] == "passed" and not result["claims"]:
        result["status"] = "failed"
        result["error"] = result["error"] or "no claims record in the executed notebook"
    (out.with_suffix(".json")).write_text(
        json.dumps(result, indent=1), encoding="utf-8"
    )
    return result


def done(out_dir: Path, slug: str, seed: int, parameters: dict) -> dict | None:
    """The stored result of a job that passed with this code and these parameters, or None
    (so a rerun runs it; a changed chapter is never summarised from old results)."""
    return stored_result(
        out_dir / slug / f"seed-{seed}.json", slug, parameters=parameters
    )


def stored_result(path: Path, slug: str, **same) -> dict | None:
    """The job result at ``path`` if it passed with the chapter's present code and the
    same values of ``same`` (e.g. the parameters), else None: a rerun runs that job."""
    if not path.exists():
        return None
    result = json.loads(path.read_text(encoding="utf-8"))
    current = (
        result.get("status") == "passed"
        and result.get("code_sha1") == code_sha1(slug)
        and all(result.get(key) == value for key, value in same.items())
    )
    return result if current else None


# --- the summary -----------------------------------------------------------------------------


def summarise(results: list[dict]) -> list[dict]:
    """Per chapter and claim (by position): runs, passes, mean and sd of the measured value."""
    rows = []
    by_chapter: dict[str, list[dict]] = {}
    for r in results:
        by_chapter.setdefault(r["chapter"], []).append(r)
    for slug, runs in by_chapter.items():
        runs = sorted(runs, key=lambda r: r["seed"])
        n_claims = max((len(r["claims"]) for r in runs), default=0)
        for i in range(n_claims):
            got = [(r["seed"], r["claims"][i]) for r in runs if len(r["claims"]) > i]
            # a failed run's record may hold a non-finite value as text ("nan")
            values = [float(c["value"]) for _, c in got if c.get("value") is not None]
            values = [v for v in values if math.isfinite(v)]
            mean = sum(values) / len(values) if values else None
            sd = (
                math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
                if len(values) > 1
                else None
            )
            rows.append(
                {
                    "chapter": slug,
                    "claim_no": i + 1,
                    "claim": got[0][1]["claim"],
                    "expected": got[0][1].get("expected", True),
                    "seeds": len(runs),
                    "held": sum(c["holds"] == c.get("expected", True) for _, c in got),
                    "mean": mean,
                    "sd": sd,
                    "failed_seeds": [
                        s for s, c in got if c["holds"] != c.get("expected", True)
                    ],
                }
            )
        errors = [r for r in runs if r["status"] == "failed" and not r["claims"]]
        if errors:
            rows.append(
                {
                    "chapter": slug,
                    "claim_no": 0,
                    "claim": "(the run itself)",
                    "expected": True,
                    "seeds": len(runs),
                    "held": len(runs) - len(errors),
                    "mean": None,
                    "sd": None,
                    "failed_seeds": [r["seed"] for r in errors],
                }
            )
    return rows


def number(x) -> str:
    return "" if x is None else f"{x:.4g}"


def write_summary(
    out_dir: Path, rows: list[dict], results: list[dict], wall: float
) -> None:
    with open(out_dir / "summary.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(
            [
                "chapter",
                "claim_no",
                "claim",
                "seeds",
                "held",
                "mean",
                "sd",
                "failed_seeds",
            ]
        )
        for r in rows:
            writer.writerow(
                [
                    r["chapter"],
                    r["claim_no"],
                    r["claim"],
                    r["seeds"],
                    r["held"],
                    number(r["mean"]),
                    number(r["sd"]),
                    " ".join(map(str, r["failed_seeds"])),
                ]
            )
    failed = [r for r in results if r["status"] == "failed"]
    lines = [
        f"# Sweep `{out_dir.name}`",
        "",
        f"{len(results)} runs, {len(failed)} failed, {wall:.0f} s wall-clock.",
        "",
        "| chapter | claim | held | mean ± sd |",
        "|---|---|:---:|---|",
    ]
    for r in rows:
        spread = mean_sd(r["mean"], r["sd"])
        claim = r["claim"].replace("|", "\\|")
        lines.append(
            f"| {r['chapter']} | {claim} | {r['held']}/{r['seeds']} | {spread} |"
        )
    if failed:
        lines += ["", "## Failures", ""]
        for r in sorted(failed, key=lambda r: (r["chapter"], r["seed"])):
            lines.append(f"- {describe_failure(r)}")
    (out_dir / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def describe_failure(r: dict) -> str:
    if r.get("describe"):
        return r["describe"]
    what = (
        "claims that do not hold: " + "; ".join(r["failing_claims"])
        if r.get("failing_claims")
        else r["error"].splitlines()[0]
        if r["error"]
        else "failed"
    )
    return f"{r['chapter']}, seed {r['seed']}: {what}"


def write_seeds_record(slug: str, rows: list[dict]) -> Path:
    """``book/<slug>/seeds.csv``: the default preset's claims over seeds, for the status page."""
    digest = code_sha1(slug)
    target = BOOK / slug / SEEDS_FILE
    with open(target, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(SEEDS_COLUMNS)
        for r in rows:
            if r["chapter"] == slug and r["claim_no"] > 0:
                writer.writerow(
                    [
                        r["claim_no"],
                        r["claim"],
                        r["seeds"],
                        r["held"],
                        number(r["mean"]),
                        number(r["sd"]),
                        digest,
                    ]
                )
    return target


def read_seeds_record(slug: str) -> list[dict] | None:
    path = BOOK / slug / SEEDS_FILE
    if not path.exists():
        return None
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# --- the command -----------------------------------------------------------------------------


def add_arguments(parser) -> None:
    parser.add_argument(
        "--chapters", nargs="+", default=None, help="chapter slugs (default: all)"
    )
    parser.add_argument(
        "--seeds", default="0-9", help="e.g. 0-9, 3 or 0,2,5-7 (default 0-9)"
    )
    parser.add_argument(
        "--preset", default="default", help="default, or a preset file: paper"
    )
    parser.add_argument(
        "--name", default=None, help="folder under _build/sweeps (default: preset)"
    )
    parser.add_argument(
        "--out", default=None, help="the output folder itself (overrides --name)"
    )
    parser.add_argument(
        "-p", dest="overrides", action="append", default=[], metavar="NAME=VALUE"
    )
    parser.add_argument(
        "--record", action="store_true", help="write book/<slug>/seeds.csv"
    )
    add_dask_arguments(parser)


def add_dask_arguments(parser) -> None:
    """The options of every command that runs papermill jobs on dask (``run_on_dask``)."""
    parser.add_argument(
        "--scheduler", default=None, help="tcp://HOST:PORT of an existing cluster"
    )
    parser.add_argument(
        "--workers", type=int, default=None, help="LocalCluster workers (cores)"
    )
    parser.add_argument(
        "--timeout", type=int, default=1800, help="seconds per cell (default 1800)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def known_chapters(slugs: list[str]) -> list[str]:
    """``slugs``, or a one-line exit naming the unknown ones."""
    unknown = [s for s in slugs if s not in chapters()]
    if unknown:
        raise SystemExit(f"unknown chapters: {unknown}; known: {chapters()}")
    return slugs


def main(args) -> int:
    from lib.build.book_tools import parse_overrides

    slugs = known_chapters(args.chapters or chapters())
    seeds = parse_seeds(args.seeds)
    overrides = parse_overrides(args.overrides)
    if args.record and (
        args.preset != "default" or overrides or not set(range(10)) <= set(seeds)
    ):
        raise SystemExit(
            "--record keeps the default preset over seeds 0-9 (no overrides)"
        )
    params = {s: {**preset_parameters(s, args.preset), **overrides} for s in slugs}
    out_dir = Path(args.out) if args.out else SWEEPS / (args.name or args.preset)
    out_dir.mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    results = [r for s in slugs for k in seeds if (r := done(out_dir, s, k, params[s]))]
    todo = [(s, k) for s in slugs for k in seeds if not done(out_dir, s, k, params[s])]
    print(
        f"sweep {out_dir}: {len(slugs)} chapter(s) x {len(seeds)} seed(s), "
        f"{len(results)} already done, {len(todo)} to run",
        flush=True,
    )
    if todo:
        results += submit(todo, params, out_dir, args)
    rows = summarise(results)
    write_summary(out_dir, rows, results, time.perf_counter() - start)
    failed = [r for r in results if r["status"] == "failed"]
    for r in sorted(failed, key=lambda r: (r["chapter"], r["seed"])):
        print("FAILED", describe_failure(r), flush=True)
    if args.record:
        for slug in slugs:
            print(f"wrote {write_seeds_record(slug, rows).relative_to(ROOT)}")
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    print(f"summary: {out_dir / 'summary.md'}")
    return 1 if failed else 0


def submit(todo, params, out_dir: Path, args) -> list[dict]:
    """Run the (chapter, seed) jobs on dask; see ``run_on_dask``."""
    jobs = [
        (f"{s}-seed-{k}", run_job, (s, k, params[s], str(out_dir), args.timeout))
        for s, k in todo
    ]
    return run_on_dask(jobs, args)


def run_on_dask(jobs, args) -> list[dict]:
    """Run ``(key, function, arguments)`` jobs as dask tasks: on a ``LocalCluster`` (one
    worker process per core, one thread each) or on ``args.scheduler``; a progress bar
    unless ``args.no_progress``; each failure reported as it comes. Every function returns
    a result dict with ``status`` and never raises."""
    from dask.distributed import Client, LocalCluster, as_completed

    os.environ.update(JOB_ENV)  # inherited by LocalCluster workers and their kernels
    if args.scheduler:
        cluster, client = None, Client(args.scheduler)
    else:
        workers = args.workers or os.cpu_count() or 1
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=40,
        )
        client = Client(cluster)
    try:
        futures = [
            client.submit(function, *arguments, key=key, pure=False)
            for key, function, arguments in jobs
        ]
        iterator = as_completed(futures)
        if not args.no_progress:
            from tqdm.auto import tqdm

            iterator = tqdm(iterator, total=len(futures), desc="jobs", file=sys.stdout)
        results = []
        for future in iterator:
            result = future.result()
            results.append(result)
            if result["status"] == "failed":
                print(f"\nFAILED {describe_failure(result)}", flush=True)
        return results
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
