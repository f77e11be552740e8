"""Sphinx extension: the book's status tables and the numbers in its prose, generated at
build time.

``{claims-status}`` (the front page): one row per chapter in toc order -- part, chapter, claims
held, claims not reproduced, claims flipped by a control, the seed sweep, the default runtime
and the ``paper`` preset's.
``{claims-table}`` (the "Reproduction status" page): every claim, grouped by chapter, with the
controls that flip it.
``{controls-table}`` (a chapter page, after its claims table): each claim beside the controls
that flip it, and each control with what it takes away (``controls.csv``, ``controls.yaml``).

Roles for numbers in a chapter's prose (the chapter is the page's own, or ``<slug>:`` first):
``{seeds}`3``` is claim 3's mean ± sd over the recorded seeds (``seeds.csv``),
``{seeds}`3:held``` how many seeds it held on ("10/10"); ``{paper-preset}`3``` is claim 3's
measured value at the ``paper`` preset and ``{paper-preset}`runtime``` that run's runtime
(``paper-run.json``). A reference to a number that was not recorded fails the build.

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
from lib.build.controls import flipped, flipping_controls, read_record
from lib.build.sweep import read_seeds_record
from lib.claims import load_controls, markdown_cell, mean_sd, read_claims, verdict

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
                "controls": read_record(slug),
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


def controls_summary(chapter: dict) -> str:
    """ "k/n": claims flipped by at least one recorded control, of all claims."""
    if not chapter.get("controls") or not chapter["record"]:
        return "–"
    n = len(chapter["record"]["claims"])
    return f"{len(flipping_controls(chapter['controls']))}/{n}"


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
        "| part | chapter | claims held | not reproduced "
        "| claims flipped by a control | seeds 0–9 | runtime | `paper` preset |",
        "|---|---|:---:|:---:|:---:|---|---:|---|",
    ]
    previous_part = None
    for c in chapters:
        part = c["part"] if c["part"] != previous_part else ""
        previous_part = c["part"]
        link = f"{{doc}}`/book/{c['slug']}/{c['slug']}`"
        if c["record"] is None:
            lines.append(f"| {part} | {link} | *no executed claims record* | | | | | |")
            continue
        h, r, total_claims = counts(c["record"])
        refuted_cell = f"{{ref}}`{r} <status-{c['slug']}>`" if r else "0"
        runtime = c["record"].get("runtime_s")
        lines.append(
            f"| {part} | {link} | {h}/{total_claims - r} | {refuted_cell} "
            f"| {controls_summary(c)} "
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
            "| # | claim | measured (seed 0) | paper's statement | held | seeds 0–9 "
            "| flipped by |",
            "|---:|---|---|---|:---:|---|---|",
        ]
        seeds = {int(r["claim_no"]): r for r in c["seeds"] or []}
        flippers = flipping_controls(c.get("controls"))
        for i, claim in enumerate(c["record"]["claims"], start=1):
            mark = verdict(claim["holds"], claim.get("expected", True))[1]
            sweep = seeds.get(i)
            if sweep is None:
                over_seeds = "not swept"
            else:
                verb = "held" if claim.get("expected", True) else "as recorded"
                over_seeds = f"{verb} on {sweep['held']}/{sweep['seeds']}"
                if sweep["mean"]:
                    over_seeds += f"; {mean_sd(sweep['mean'], sweep['sd'])}"
            if c.get("controls") is None:
                flipped_by = "no controls yet"
            else:
                flipped_by = (
                    ", ".join(f"`{n}`" for n in flippers.get(i, [])) or "**none**"
                )
            lines.append(
                f"| {i} | {markdown_cell(claim['claim'])} "
                f"| {markdown_cell(claim['measured'])} "
                f"| {markdown_cell(claim['paper'])} | {mark} | {over_seeds} "
                f"| {flipped_by} |"
            )
        lines.append("")
    return "\n".join(lines)


def controls_markdown(slug: str) -> str:
    """A chapter's controls: each claim beside the controls that flip it, then each control
    with what it takes away and whether it flipped every claim it must."""
    rows = read_record(slug)
    declared = load_controls(slug)
    if not rows:
        return f"*No controls recorded: run `make controls CHAPTERS={slug} RECORD=1`.*"
    claims = {r["claim_no"]: r["claim"] for r in rows}
    record = read_claims(chapter_paths(slug)["ipynb"]) or {"claims": []}
    default = {k: c["measured"] for k, c in enumerate(record["claims"], start=1)}
    lines = [
        "| # | claim | default | flipped by (value under the control) |",
        "|---:|---|---|---|",
    ]
    for k, claim in sorted(claims.items()):
        names = ", ".join(
            f"`{r['control']}`" + (f" ({r['measured']})" if r["measured"] else "")
            for r in rows
            if r["claim_no"] == k and flipped(r)
        )
        lines.append(
            f"| {k} | {markdown_cell(claim)} | {markdown_cell(default.get(k, ''))} "
            f"| {markdown_cell(names) if names else '**no control**'} |"
        )
    lines += [
        "",
        "| control | what it takes away | must flip | flipped |",
        "|---|---|---|:---:|",
    ]
    for name, entry in declared.items():
        mine = [r for r in rows if r["control"] == name and r["flips"]]
        done = sum(r["holds"] != r["expected"] for r in mine)
        mark = (
            f"✓ {done}/{len(mine)}"
            if done == len(mine)
            else f"**✗ {done}/{len(mine)}**"
        )
        must = ", ".join(str(k) for k in entry["flips"])
        lines.append(f"| `{name}` | {markdown_cell(entry['what'])} | {must} | {mark} |")
    return "\n".join(lines)


def chapter_of(env, text: str) -> tuple[str, str]:
    """``(slug, rest)`` of a role's text: ``"<slug>:3"`` or ``"3"`` on a chapter's page."""
    head, sep, rest = text.partition(":")
    if sep and not head.strip().isdigit():
        return head.strip(), rest.strip()
    parts = Path(env.docname).parts
    if len(parts) != 3 or parts[0] != "book":
        raise ValueError(
            f"{text!r}: not on a chapter's page, so name it: <slug>:{text}"
        )
    return parts[1], text.strip()


def recorded_number(env, role: str, text: str) -> str:
    """The text a ``{seeds}`` or ``{paper-preset}`` role prints (see the module docstring)."""
    slug, what = chapter_of(env, text)
    folder = chapter_paths(slug)["md"].parent
    if role == "seeds":
        env.note_dependency(str(folder / "seeds.csv"))
        number, _, field = what.partition(":")
        rows = {r["claim_no"]: r for r in read_seeds_record(slug) or []}
        row = rows.get(number.strip())
        if row is None:
            raise ValueError(f"{slug}: claim {number} has no seeds.csv row")
        if field == "held":
            return f"{row['held']}/{row['seeds']}"
        if field:
            raise ValueError(f"{{seeds}}`{text}`: expected <claim> or <claim>:held")
        if not row["mean"]:
            raise ValueError(f"{slug}: claim {number} has no numeric value over seeds")
        return mean_sd(row["mean"], row["sd"])
    path = folder / "paper-run.json"
    env.note_dependency(str(path))
    if not path.exists():
        raise ValueError(f"{slug}: no paper-run.json (make run PRESET=paper RECORD=1)")
    run = json.loads(path.read_text(encoding="utf-8"))
    if what == "runtime":
        return minutes(run["runtime_s"])
    claims = run.get("claims") or []
    if not what.isdigit() or not 1 <= int(what) <= len(claims):
        raise ValueError(
            f"{slug}: paper-run.json has no claim {what!r} ({len(claims)} recorded)"
        )
    return claims[int(what) - 1]["measured"]


def recorded_number_role(
    name, rawtext, text, lineno, inliner, options=None, content=()
):
    env = inliner.document.settings.env
    try:
        value = recorded_number(env, name, text)
    except (ValueError, KeyError, OSError) as err:
        msg = inliner.reporter.error(f"{{{name}}}`{text}`: {err}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return [nodes.inline(rawtext, value, classes=["recorded-number"])], []


class _Generated(SphinxDirective):
    has_content = False
    render = staticmethod(status_markdown)
    css = "claims-status"

    def run(self):
        root = Path(self.env.srcdir)
        for _, slug in toc_parts(root / "_toc.yml"):
            folder = chapter_paths(slug)["md"].parent
            for name in (
                f"{slug}.ipynb",
                "seeds.csv",
                "paper-run.json",
                "paper.yaml",
                "controls.csv",
            ):
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


class ControlsTable(SphinxDirective):
    """The page's own chapter's controls (``controls.csv`` and ``controls.yaml``)."""

    has_content = False

    def run(self):
        slug, _ = chapter_of(self.env, "")
        folder = chapter_paths(slug)["md"].parent
        for name in ("controls.csv", "controls.yaml"):
            self.env.note_dependency(str(folder / name))
        container = nodes.container(classes=["controls-table"])
        self.state.nested_parse(
            StringList(controls_markdown(slug).splitlines(), source="controls-table"),
            self.content_offset,
            container,
        )
        return [container]


def setup(app):
    app.add_directive("claims-status", ClaimsStatus)
    app.add_directive("claims-table", ClaimsTable)
    app.add_directive("controls-table", ControlsTable)
    app.add_role("seeds", recorded_number_role)
    app.add_role("paper-preset", recorded_number_role)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
