"""Sphinx extension: the book's two status tables, generated at build time.

``{claims-status}`` (the front page): one row per chapter in toc order -- part, chapter, claims
held, claims not reproduced, the seed sweep, the default runtime and the ``paper`` preset's.
``{claims-table}`` (the "Reproduction status" page): every claim, grouped by chapter.

Everything comes from files the code wrote: the claims record and runtime stored in each chapter's
committed ``.ipynb`` (``lib.claims``), its ``seeds.csv`` (``make sweep ... RECORD=1``), its
``paper-run.json`` (``make run ... RECORD=1``) or the ``_estimate`` of its ``paper.yaml``.
Nothing in the tables is typed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

from lib.build.book_tools import chapter_paths, preset_metadata, toc_parts
from lib.build.sweep import read_seeds_record
from lib.claims import markdown_cell, read_claims, verdict

STATUS_PAGE = "status"


def chapter_data(root: Path) -> list[dict]:
    rows = []
    for part, slug in toc_parts(root / "_toc.yml"):
        folder = chapter_paths(slug)["md"].parent
        paper_run = folder / "paper-run.json"
        rows.append(
            {
                "part": part,
                "slug": slug,
                "record": read_claims(chapter_paths(slug)["ipynb"]),
                "seeds": read_seeds_record(slug),
                "paper_run": json.loads(paper_run.read_text())
                if paper_run.exists()
                else None,
                "estimate": preset_metadata(slug).get("estimate"),
            }
        )
    return rows


def minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def paper_runtime(chapter: dict) -> str:
    if chapter["paper_run"]:
        run = chapter["paper_run"]
        return f"{minutes(run['runtime_s'])} ({run['device']}, measured)"
    if chapter["estimate"]:
        return f"{chapter['estimate']} (estimated)"
    return "–"


def seeds_summary(seeds: list[dict] | None) -> str:
    if not seeds:
        return "not swept"
    runs = min(int(r["seeds"]) for r in seeds)
    worst = min(int(r["held"]) for r in seeds)
    if worst == runs:
        return f"all hold on {runs}/{runs}"
    return f"worst claim {worst}/{runs}"


def counts(record: dict | None) -> tuple[int, int, int]:
    claims = record["claims"] if record else []
    held = sum(c["holds"] and c.get("expected", True) for c in claims)
    refuted = sum(not c["holds"] and not c.get("expected", True) for c in claims)
    return held, refuted, len(claims)


def status_markdown(root: Path, chapters: list[dict] | None = None) -> str:
    """The front page: one row per chapter."""
    chapters = chapter_data(root) if chapters is None else chapters
    total = [counts(c["record"]) for c in chapters]
    held, refuted, n = (sum(t[i] for t in total) for i in range(3))
    lines = [
        f"**{len(chapters)} chapter{'s' if len(chapters) != 1 else ''}, {n} claims: {held} held"
        + (f", {refuted} did not reproduce" if refuted else "")
        + f".** Every claim, with its evidence over seeds: {{doc}}`/{STATUS_PAGE}`.",
        "",
        "| part | chapter | claims held | not reproduced | seeds 0–9 | runtime | `paper` preset |",
        "|---|---|:---:|:---:|---|---:|---|",
    ]
    previous_part = None
    for c in chapters:
        part = c["part"] if c["part"] != previous_part else ""
        previous_part = c["part"]
        link = f"{{doc}}`/book/{c['slug']}/{c['slug']}`"
        if c["record"] is None:
            lines.append(f"| {part} | {link} | *no executed claims record* | | | | |")
            continue
        h, r, total_claims = counts(c["record"])
        refuted_cell = f"{{ref}}`{r} <status-{c['slug']}>`" if r else "0"
        runtime = c["record"].get("runtime_s")
        lines.append(
            f"| {part} | {link} | {h}/{total_claims - r} | {refuted_cell} "
            f"| {seeds_summary(c['seeds'])} | {minutes(runtime) if runtime else '–'} "
            f"| {markdown_cell(paper_runtime(c))} |"
        )
    return "\n".join(lines)


def claims_markdown(root: Path, chapters: list[dict] | None = None) -> str:
    """The status page: every claim, grouped by chapter, with its seed record."""
    chapters = chapter_data(root) if chapters is None else chapters
    lines = []
    for c in chapters:
        lines += [
            f"(status-{c['slug']})=",
            "",
            f"**{c['part']}: {{doc}}`/book/{c['slug']}/{c['slug']}`**",
        ]
        if c["record"] is None:
            lines += ["", "*No executed claims record.*", ""]
            continue
        lines[-1] += f" {{cite:p}}`{c['record']['paper']}`"
        lines += [
            "",
            "| claim | measured (seed 0) | paper's statement | held | seeds 0–9 |",
            "|---|---|---|:---:|---|",
        ]
        seeds = {int(r["claim_no"]): r for r in c["seeds"] or []}
        for i, claim in enumerate(c["record"]["claims"], start=1):
            mark = verdict(claim["holds"], claim.get("expected", True))[1]
            sweep = seeds.get(i)
            if sweep is None:
                over_seeds = "not swept"
            else:
                verb = "held" if claim.get("expected", True) else "as recorded"
                over_seeds = f"{verb} on {sweep['held']}/{sweep['seeds']}"
                if sweep["mean"]:
                    over_seeds += f"; {sweep['mean']} ± {sweep['sd'] or '–'}"
            lines.append(
                f"| {markdown_cell(claim['claim'])} | {markdown_cell(claim['measured'])} "
                f"| {markdown_cell(claim['paper'])} | {mark} | {over_seeds} |"
            )
        lines.append("")
    return "\n".join(lines)


class _Generated(SphinxDirective):
    has_content = False
    render = staticmethod(status_markdown)
    css = "claims-status"

    def run(self):
        root = Path(self.env.srcdir)
        for _, slug in toc_parts(root / "_toc.yml"):
            folder = chapter_paths(slug)["md"].parent
            for name in (f"{slug}.ipynb", "seeds.csv", "paper-run.json", "paper.yaml"):
                if (folder / name).exists():
                    self.env.note_dependency(str(folder / name))
        container = nodes.container(classes=[self.css])
        text = self.render(root)
        self.state.nested_parse(
            StringList(text.splitlines(), source=self.css),
            self.content_offset,
            container,
        )
        return [container]


class ClaimsStatus(_Generated):
    pass


class ClaimsTable(_Generated):
    render = staticmethod(claims_markdown)
    css = "claims-table"


def setup(app):
    app.add_directive("claims-status", ClaimsStatus)
    app.add_directive("claims-table", ClaimsTable)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
