"""Sphinx extension: the front page's reproduction status table.

``{claims-status}`` renders one row per claim of every chapter in the toc, read from the
claims record stored in the chapter's committed, executed ``.ipynb`` (see ``lib.claims``).
Nothing in the table is typed by hand.
"""
from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

from lib.book_tools import chapter_paths, toc_chapters
from lib.claims import markdown_cell, read_claims, verdict


def status_rows(root: Path) -> list[tuple[str, dict | None]]:
    return [(slug, read_claims(chapter_paths(slug)["ipynb"])) for slug in toc_chapters(root / "_toc.yml")]


def status_markdown(root: Path) -> str:
    rows = status_rows(root)
    claims = [c for _, record in rows if record for c in record["claims"]]
    held = sum(c["holds"] and c.get("expected", True) for c in claims)
    refuted = sum(not c["holds"] and not c.get("expected", True) for c in claims)
    lines = [
        f"**{len(rows)} chapter{'s' if len(rows) != 1 else ''}, {len(claims)} claims: {held} held"
        + (f", {refuted} did not reproduce (shown in the chapter)" if refuted else "")
        + ".**",
        "",
        "| chapter | claim | measured | paper's statement | held |",
        "|---|---|---|---|:---:|",
    ]
    for slug, record in rows:
        link = f"{{doc}}`/book/{slug}/{slug}`"
        if record is None:
            lines.append(f"| {link} | *no executed claims record* | | | **✗ no** |")
            continue
        link += f" {{cite:p}}`{record['paper']}`"
        for i, claim in enumerate(record["claims"]):
            mark = verdict(claim["holds"], claim.get("expected", True))[1]
            lines.append(
                f"| {link if i == 0 else ''} | {markdown_cell(claim['claim'])} "
                f"| {markdown_cell(claim['measured'])} | {markdown_cell(claim['paper'])} | {mark} |"
            )
    return "\n".join(lines)


class ClaimsStatus(SphinxDirective):
    has_content = False

    def run(self):
        root = Path(self.env.srcdir)
        for slug in toc_chapters(root / "_toc.yml"):
            self.env.note_dependency(str(chapter_paths(slug)["ipynb"]))
        container = nodes.container(classes=["claims-status"])
        text = status_markdown(root)
        self.state.nested_parse(StringList(text.splitlines(), source="claims-status"), self.content_offset, container)
        return [container]


def setup(app):
    app.add_directive("claims-status", ClaimsStatus)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
