"""Every (chapter, control) pair as a papermill job on ``dask.distributed``.

    python -m lib.build controls [--chapters a b] [--record] [--scheduler tcp://host:8786]
    make controls CHAPTERS="a b" RECORD=1

A control is a named, deliberately wrong variant of a chapter, declared in
``book/<slug>/controls.yaml`` with the claims it must flip (``lib.claims``). Each pair runs
the chapter's committed notebook at its default parameters and seed 0 with
``control=<name>``; the chapter's own ``claims.report()`` fails the run when a declared
claim did not flip. The jobs share the machinery of ``make sweep``: a ``LocalCluster`` or
``--scheduler``, a progress bar, resume (a rerun skips pairs that passed with the same code
and the same declaration), failures reported by chapter, control and claim.

Results land in ``_build/controls/<slug>/<control>.{ipynb,json}``. With ``--record`` each
chapter whose controls all ran is written to ``book/<slug>/controls.csv`` (one row per
control x claim, columns ``CONTROLS_COLUMNS``, ``measured`` being the claim's printed value
under the control), which the chapter page and the status pages
show and the tests check: the record must be current, and every claim must be flipped by
at least one control (``rule_violations``).
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

from lib.build.book_tools import BOOK, ROOT
from lib.build.sweep import (
    add_dask_arguments,
    code_sha1,
    execute_job,
    known_chapters,
    run_on_dask,
    stored_result,
)
from lib.claims import CONTROLS_FILE, load_controls, read_claims

CONTROLS_DIR = ROOT / "_build" / "controls"
CONTROLS_CSV = "controls.csv"
CONTROLS_COLUMNS = [
    "control",
    "claim_no",
    "claim",
    "holds",
    "expected",
    "flips",
    "code_sha1",
    "measured",
]
SEED = 0


def chapters_with_controls(book: Path = BOOK) -> list[str]:
    return sorted(p.parent.name for p in book.glob(f"*/{CONTROLS_FILE}"))


def run_control(
    slug: str, control: str, declared: dict, out_dir: str, timeout: int | None
) -> dict:
    """Run one chapter under one control with papermill; never raises."""
    out = Path(out_dir) / slug / f"{control}.ipynb"
    result = {
        "chapter": slug,
        "control": control,
        "declared": declared,
        "code_sha1": code_sha1(slug),
        **execute_job(slug, out, {"control": control, "seed": SEED}, timeout),
    }
    unflipped = [
        f"{k} ({c['claim']})"
        for k, c in enumerate(result["claims"], start=1)
        if k in declared["flips"] and c["holds"] == c.get("expected", True)
    ]
    if unflipped:
        result["status"] = "failed"
        what = "did not flip claim(s) " + "; ".join(unflipped)
    elif result["status"] == "passed" and not result["claims"]:
        result["status"] = "failed"
        what = "no claims record in the executed notebook"
    else:
        what = (result["error"].splitlines() or ["failed"])[0]
    result["describe"] = f"{slug}, control {control}: {what}"
    out.with_suffix(".json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    return result


def done(out_dir: Path, slug: str, control: str, declared: dict) -> dict | None:
    """The stored result of a pair that passed with this code and this declaration."""
    return stored_result(out_dir / slug / f"{control}.json", slug, declared=declared)


def record_rows(slug: str, results: list[dict]) -> list[dict]:
    """One row per control x claim, in controls.yaml order, then claim order."""
    order = list(load_controls(slug))
    rows = []
    for r in sorted(results, key=lambda r: order.index(r["control"])):
        for k, c in enumerate(r["claims"], start=1):
            rows.append(
                {
                    "control": r["control"],
                    "claim_no": k,
                    "claim": c["claim"],
                    "holds": int(bool(c["holds"])),
                    "expected": int(bool(c.get("expected", True))),
                    "flips": int(k in r["declared"]["flips"]),
                    "code_sha1": r["code_sha1"],
                    "measured": c.get("measured", ""),
                }
            )
    return rows


def write_record(slug: str, rows: list[dict], book: Path = BOOK) -> Path:
    target = book / slug / CONTROLS_CSV
    with open(target, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=CONTROLS_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return target


def read_record(slug: str, book: Path = BOOK) -> list[dict] | None:
    path = book / slug / CONTROLS_CSV
    if not path.exists():
        return None
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for key in ("claim_no", "holds", "expected", "flips"):
            row[key] = int(row[key])
        # records written before the column existed have no measured values
        row["measured"] = row.get("measured") or ""
    return rows


def flipped(row: dict) -> bool:
    """A row where the control was declared to flip the claim, and it did."""
    return row["flips"] == 1 and row["holds"] != row["expected"]


def staleness(slug: str, book: Path = BOOK) -> list[str]:
    """Why ``controls.csv`` no longer describes the chapter ([] when it is current): the
    code changed, the claims changed, or the declared controls changed."""
    rows = read_record(slug, book)
    if rows is None:
        return [
            f"{slug}: no {CONTROLS_CSV} (run `make controls CHAPTERS={slug} RECORD=1`)"
        ]
    problems = []
    digest = code_sha1(slug)
    if {r["code_sha1"] for r in rows} != {digest}:
        problems.append(f"{slug}: {CONTROLS_CSV} was recorded for other code")
    record = read_claims(book / slug / f"{slug}.ipynb") or {"claims": []}
    claims = [c["claim"] for c in record["claims"]]
    declared = load_controls(slug, book)
    if list(dict.fromkeys(r["control"] for r in rows)) != list(declared):
        problems.append(
            f"{slug}: the controls in {CONTROLS_CSV} are not those declared"
        )
    for name, entry in declared.items():
        mine = [r for r in rows if r["control"] == name]
        if [r["claim"] for r in mine] != claims:
            problems.append(
                f"{slug}: control {name}: the claims changed since the record"
            )
        if [r["claim_no"] for r in mine if r["flips"]] != entry["flips"]:
            problems.append(f"{slug}: control {name}: `flips` changed since the record")
    return problems


def rule_violations(slug: str, book: Path = BOOK) -> list[str]:
    """The rule: every claim is flipped by at least one control, and every control flips
    every claim it is declared to flip. Returns the violations ([] when it holds)."""
    rows = read_record(slug, book)
    if rows is None:
        return [f"{slug}: no {CONTROLS_CSV}"]
    problems = [
        f"{slug}: control {r['control']} is declared to flip claim {r['claim_no']} "
        f"({r['claim']}) but leaves it alone"
        for r in rows
        if r["flips"] and not flipped(r)
    ]
    claims = {r["claim_no"]: r["claim"] for r in rows}
    for k, claim in sorted(claims.items()):
        if not any(flipped(r) for r in rows if r["claim_no"] == k):
            problems.append(f"{slug}: claim {k} ({claim}) is flipped by no control")
    return problems


def flipping_controls(rows: list[dict] | None) -> dict[int, list[str]]:
    """claim number -> the controls that flip it."""
    out: dict[int, list[str]] = {}
    for r in rows or []:
        if flipped(r):
            out.setdefault(r["claim_no"], []).append(r["control"])
    return out


# --- the command -----------------------------------------------------------------------------


def add_arguments(parser) -> None:
    parser.add_argument(
        "--chapters",
        nargs="+",
        default=None,
        help="chapter slugs (default: all with controls)",
    )
    parser.add_argument(
        "--controls", nargs="+", default=None, help="only these controls (default: all)"
    )
    parser.add_argument("--out", default=None, help="output folder (_build/controls)")
    parser.add_argument(
        "--record", action="store_true", help="write book/<slug>/controls.csv"
    )
    add_dask_arguments(parser)


def main(args) -> int:
    slugs = known_chapters(args.chapters or chapters_with_controls())
    bare = [s for s in slugs if not load_controls(s)]
    if bare:
        raise SystemExit(f"no {CONTROLS_FILE} (or an empty one) for: {bare}")
    out_dir = Path(args.out) if args.out else CONTROLS_DIR
    pairs = [
        (s, name, entry) for s in slugs for name, entry in load_controls(s).items()
    ]
    if args.controls:
        known = {name for _, name, _ in pairs}
        if not set(args.controls) <= known:
            raise SystemExit(
                f"unknown controls: {sorted(set(args.controls) - known)}; "
                f"known: {sorted(known)}"
            )
        if args.record:
            raise SystemExit(
                "--record keeps every control of a chapter (no --controls)"
            )
        pairs = [pair for pair in pairs if pair[1] in args.controls]
    start = time.perf_counter()
    results = [r for s, c, d in pairs if (r := done(out_dir, s, c, d))]
    todo = [(s, c, d) for s, c, d in pairs if not done(out_dir, s, c, d)]
    print(
        f"controls {out_dir}: {len(slugs)} chapter(s), {len(pairs)} control(s), "
        f"{len(results)} already done, {len(todo)} to run",
        flush=True,
    )
    if todo:
        jobs = [
            (f"{s}-{c}", run_control, (s, c, d, str(out_dir), args.timeout))
            for s, c, d in todo
        ]
        results += run_on_dask(jobs, args)
    wall = time.perf_counter() - start
    failed = [r for r in results if r["status"] == "failed"]
    for r in sorted(failed, key=lambda r: (r["chapter"], r["control"])):
        print("FAILED", r["describe"], flush=True)
    if args.record:
        for slug in slugs:
            mine = [r for r in results if r["chapter"] == slug]
            if any(not r["claims"] for r in mine):
                print(f"not recorded: {slug} (a control did not run to its claims)")
                continue
            path = write_record(slug, record_rows(slug, mine))
            print(f"wrote {path.relative_to(ROOT)}")
            for problem in rule_violations(slug):
                print("RULE", problem)
    print(
        f"{len(results) - len(failed)} passed, {len(failed)} failed, {wall:.0f} s wall-clock"
    )
    return 1 if failed else 0
