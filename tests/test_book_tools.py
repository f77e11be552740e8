"""The build tooling: toc reading, staleness detection, papermill overrides."""

import textwrap

import pytest

from lib.build import book_tools


def test_toc_chapters_reads_nested_parts(tmp_path):
    toc = tmp_path / "_toc.yml"
    toc.write_text(
        textwrap.dedent("""
        format: jb-book
        root: intro
        parts:
          - caption: A
            chapters:
              - file: book/first-chapter/first-chapter
          - caption: B
            chapters:
              - file: book/second/second.md
              - file: references
    """)
    )
    assert book_tools.toc_chapters(toc) == ["first-chapter", "second"]


def test_parse_overrides_reads_yaml_values():
    assert book_tools.parse_overrides(["n=3", "gammas=[1, 2]", "device=cpu"]) == {
        "n": 3,
        "gammas": [1, 2],
        "device": "cpu",
    }
    with pytest.raises(SystemExit):
        book_tools.parse_overrides(["oops"])


def test_a_paper_preset_whose_claims_fail_is_recorded_and_still_fails(
    tmp_path, monkeypatch
):
    import json

    import nbformat
    import papermill

    slug = "failing-chapter"
    folder = tmp_path / slug
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    parameters = nbformat.v4.new_code_cell("seed = 0")
    parameters.metadata["tags"] = ["parameters"]
    claims = nbformat.v4.new_code_cell(
        textwrap.dedent("""
        from IPython.display import display
        from lib.claims import METADATA_KEY, ClaimsFailed
        row = {"claim": "c", "measured": "1", "value": 1.0, "holds": False}
        record = {"claims": [dict(row, expected=True)]}
        display({"text/plain": "table"}, raw=True, metadata={METADATA_KEY: record})
        raise ClaimsFailed("claims that do not hold: c")
        """)
    )
    nb.cells = [parameters, claims]
    nbformat.write(nb, folder / f"{slug}.ipynb")
    (folder / "paper.yaml").write_text("seed: 1\n")
    monkeypatch.setattr(book_tools, "BOOK", tmp_path)
    monkeypatch.setattr(book_tools, "RUNS", tmp_path / "runs")
    with pytest.raises(SystemExit):  # refused before running, not after
        book_tools.run(slug, preset="paper", overrides={"seed": 2}, record=True)
    assert not (tmp_path / "runs").exists()
    with pytest.raises(papermill.PapermillExecutionError, match="ClaimsFailed"):
        book_tools.run(slug, preset="paper", record=True, progress=False)
    data = json.loads((folder / "paper-run.json").read_text())
    assert data["claims_as_recorded"] == "0/1"
    assert data["claims"][0]["holds"] is False and data["runtime_s"] > 0


MD = """---
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
# Title

```{code-cell} ipython3
x = 1
```
"""


def test_a_changed_md_is_detected_as_stale(tmp_path):
    import jupytext

    md = tmp_path / "c.md"
    md.write_text(MD)
    ipynb = tmp_path / "c.ipynb"
    jupytext.write(jupytext.read(md), ipynb)
    assert book_tools.code_matches(*book_tools.read_md_and_executed(md, ipynb))
    md.write_text(MD.replace("x = 1", "x = 2"))
    assert not book_tools.code_matches(*book_tools.read_md_and_executed(md, ipynb))


def test_status_tables_are_generated_from_what_the_code_recorded(tmp_path):
    from lib.build import sphinx_claims

    record = {
        "chapter": "c",
        "paper": "key2025",
        "runtime_s": 42.0,
        "claims": [
            {"claim": "a | b", "measured": "1.0", "paper": "1", "holds": True},
            {"claim": "second", "measured": "2", "paper": "3", "holds": False},
            {
                "claim": "third",
                "measured": "4",
                "paper": "5",
                "holds": False,
                "expected": False,
            },
        ],
    }
    seeds = [
        {
            "claim_no": "1",
            "claim": "a | b",
            "seeds": "10",
            "held": "10",
            "mean": "1.1234",
            "sd": "0.2345",
        },
        {
            "claim_no": "2",
            "claim": "second",
            "seeds": "10",
            "held": "7",
            "mean": "",
            "sd": "",
        },
    ]
    chapters = [
        {
            "part": "P",
            "slug": "c",
            "record": record,
            "seeds": seeds,
            "controls": [
                {
                    "control": "k",
                    "claim_no": 1,
                    "claim": "a | b",
                    "holds": 0,
                    "expected": 1,
                    "flips": 1,
                    "code_sha1": "x",
                },
                {
                    "control": "k",
                    "claim_no": 2,
                    "claim": "second",
                    "holds": 0,
                    "expected": 1,
                    "flips": 0,
                    "code_sha1": "x",
                },
                {
                    "control": "k",
                    "claim_no": 3,
                    "claim": "third",
                    "holds": 1,
                    "expected": 0,
                    "flips": 1,
                    "code_sha1": "x",
                },
            ],  # fmt: skip
            "paper_run": {"runtime_s": 600.0, "device": "cpu"},
            "estimate": None,
        },
        {
            "part": "P",
            "slug": "d",
            "record": None,
            "seeds": None,
            "paper_run": None,
            "estimate": "GPU, ~20 min",
        },
    ]
    front = sphinx_claims.status_markdown(tmp_path, chapters)
    assert front.splitlines()[0].startswith(
        "**2 chapters, 3 claims: 1 held, 1 did not reproduce.**"
    )
    assert (
        "| P | {doc}`/book/c/c` | 1/2 | {ref}`1 <status-c>` | 2/3 | worst claim 7/10 "
        "| 42 s | 10 min (cpu, measured) |"
    ) in front
    assert "|  | {doc}`/book/d/d` | *no executed claims record* |" in front
    assert sphinx_claims.controls_summary(chapters[1]) == "–"
    table = sphinx_claims.claims_markdown(tmp_path, chapters)
    assert "(status-c)=" in table
    assert "| 1 | a \\| b | 1.0 | 1 | ✓ | held on 10/10; 1.12 ± 0.23 | `k` |" in table
    assert "| 2 | second | 2 | 3 | **✗ no** | held on 7/10 | **none** |" in table
    assert "| 3 | third | 4 | 5 | ✗ *not reproduced* | not swept | `k` |" in table
    assert sphinx_claims.paper_runtime(chapters[1]) == "GPU, ~20 min (estimated)"


def test_check_html_finds_remote_and_missing_scripts(tmp_path):
    (tmp_path / "_static" / "mathjax").mkdir(parents=True)
    (tmp_path / "_static" / "mathjax" / "tex-chtml.js").write_text("")
    page = tmp_path / "index.html"
    page.write_text(
        '<script defer="defer" src="_static/mathjax/tex-chtml.js"></script>'
        '<link rel="stylesheet" href="_static/a.css"><link rel="icon" href="https://x/y">'
    )
    (tmp_path / "_static" / "a.css").write_text("")
    assert book_tools.check_html(tmp_path) == []
    page.write_text(
        '<script src="https://cdn.example.org/mathjax/tex-chtml.js"></script>'
        '<link rel="stylesheet" href="//fonts.example.org/a.css">'
        '<script src="_static/missing.js"></script>'
    )
    problems = book_tools.check_html(tmp_path)
    assert any("remote script https://cdn" in p for p in problems)
    assert any("remote link //fonts" in p for p in problems)
    assert any("_static/missing.js is missing" in p for p in problems)
    assert any("no page loads MathJax" in p for p in problems)
    page.write_text('<span class="output text_plain">‘0.16’</span>')
    assert any(
        "glued string ‘0.16’ shows its quotes" in p
        for p in book_tools.check_html(tmp_path)
    )


def test_glued_strings_lose_their_repr_quotes():
    from docutils import nodes
    from docutils.utils import new_document

    from lib.build import sphinx_glue

    assert sphinx_glue.unquoted("'49 s CPU'") == "49 s CPU"
    assert sphinx_glue.unquoted('"it\'s"') == "it's"
    assert sphinx_glue.unquoted("0.16") == "0.16"
    assert (
        sphinx_glue.unquoted("'a' or 'b") == "'a' or 'b"
    )  # not one quoted string: kept
    document = new_document("test")
    pasted = nodes.inline("'0.16'", "'0.16'", classes=["output", "text_plain"])
    other = nodes.inline("'x'", "'x'", classes=["pasted-text"])
    document += nodes.paragraph("", "", pasted, other)
    transform = sphinx_glue.StripGluedStringQuotes(document)
    transform.apply()
    assert pasted.astext() == "0.16"
    assert other.astext() == "'x'"


def test_roles_print_recorded_numbers_and_refuse_missing_ones(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from lib.build import sphinx_claims

    slug = "strong-model-collapse"
    env = SimpleNamespace(docname=f"book/{slug}/{slug}", note_dependency=lambda p: None)
    rows = {r["claim_no"]: r for r in sphinx_claims.read_seeds_record(slug)}
    numeric = next(k for k, r in rows.items() if r["mean"])
    assert sphinx_claims.recorded_number(
        env, "seeds", numeric
    ) == sphinx_claims.mean_sd(rows[numeric]["mean"], rows[numeric]["sd"])
    held = sphinx_claims.recorded_number(env, "seeds", f"{slug}:{numeric}:held")
    assert held == f"{rows[numeric]['held']}/{rows[numeric]['seeds']}"
    for bad in ("99", f"{numeric}:nope"):
        with pytest.raises(ValueError):
            sphinx_claims.recorded_number(env, "seeds", bad)
    with pytest.raises(ValueError, match="paper-run.json has no claim"):
        sphinx_claims.recorded_number(env, "paper-preset", "99")
    elsewhere = SimpleNamespace(docname="intro", note_dependency=lambda p: None)
    with pytest.raises(ValueError, match="not on a chapter's page"):
        sphinx_claims.recorded_number(elsewhere, "seeds", "1")
