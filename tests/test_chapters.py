"""The chapter contract, checked on every book/<slug>/ (parametrised by conftest.py)."""

import ast
import subprocess
import sys
import json

import jupytext
import pytest
import yaml

from lib.build.book_tools import BOOK, ROOT, chapter_paths, chapters, toc_chapters
from lib.build.controls import chapters_with_controls
from lib.claims import read_claims


def cells(path):
    return jupytext.read(path).cells


def comparable(cell):
    tags = sorted(cell.metadata.get("tags", []))
    return cell.cell_type, cell.source.strip(), tags


def code_cells(path):
    return [c for c in cells(path) if c.cell_type == "code"]


def executed(slug):
    return json.loads(chapter_paths(slug)["ipynb"].read_text(encoding="utf-8"))


# --- the toc and the folders ---------------------------------------------------------------


def test_at_least_one_chapter():
    assert chapters(), "no chapter found under book/"


def test_every_chapter_folder_is_in_the_toc_and_back():
    assert sorted(toc_chapters()) == chapters()
    assert len(set(toc_chapters())) == len(toc_chapters()), (
        "a chapter is listed twice in _toc.yml"
    )


def test_book_holds_only_chapter_folders():
    strays = [
        p.name
        for p in BOOK.iterdir()
        if p.is_dir() and not (p / f"{p.name}.md").exists()
    ]
    assert not strays, f"folders in book/ that are not chapters: {strays}"


# --- pairing: the three files are one notebook ---------------------------------------------


def test_triple_exists(slug):
    for ext, path in chapter_paths(slug).items():
        assert path.exists(), f"{slug}: missing {path.name}"


def test_md_py_ipynb_agree_cell_by_cell(slug):
    paths = chapter_paths(slug)
    md = [comparable(c) for c in cells(paths["md"])]
    for other in ("py", "ipynb"):
        theirs = [comparable(c) for c in cells(paths[other])]
        assert len(theirs) == len(md), (
            f"{slug}: {other} has {len(theirs)} cells, md has {len(md)}"
        )
        for i, (a, b) in enumerate(zip(md, theirs)):
            assert a == b, (
                f"{slug}: cell {i} of the .{other} differs from the .md; run jupytext --sync / make execute"
            )


def test_kernelspec_is_python3(slug):
    for ext in ("md", "ipynb"):
        nb = jupytext.read(chapter_paths(slug)[ext])
        assert nb.metadata["kernelspec"]["name"] == "python3", f"{slug}.{ext}"


# --- stored outputs: the committed .ipynb is a real, complete run -----------------------------


def test_every_code_cell_was_executed_in_order(slug):
    counts = [
        c.get("execution_count")
        for c in executed(slug)["cells"]
        if c["cell_type"] == "code"
    ]
    assert counts and counts == list(range(1, len(counts) + 1)), (
        f"{slug}: execution counts {counts}; an unexecuted cell would pass nbval vacuously -- run make execute"
    )


def test_no_errors_and_no_figure_reprs_in_outputs(slug):
    for cell in executed(slug)["cells"]:
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"{slug}: a stored output is an error"
            text = "".join(out.get("data", {}).get("text/plain", "")) + "".join(
                out.get("text", "")
            )
            assert "<Figure size" not in text and "matplotlib." not in text, (
                f"{slug}: plot repr leaked: {text[:80]}"
            )


def test_chapter_has_figures(slug):
    pngs = sum(
        "image/png" in out.get("data", {})
        for c in executed(slug)["cells"]
        for out in c.get("outputs", [])
    )
    assert pngs >= 1, f"{slug}: no figure in the stored outputs"


def test_claims_record_present_and_every_claim_holds(slug):
    record = read_claims(chapter_paths(slug)["ipynb"])
    assert record is not None, (
        f"{slug}: no claims record in the stored outputs (the claims cell did not run)"
    )
    assert record["chapter"] == slug
    assert sum(c.get("expected", True) for c in record["claims"]) >= 2, (
        f"{slug}: fewer than 2 asserted claims"
    )
    wrong = [
        c["claim"] for c in record["claims"] if c["holds"] != c.get("expected", True)
    ]
    assert not wrong, f"{slug}: stored claims whose check is not as recorded: {wrong}"
    last = [c for c in executed(slug)["cells"] if c["cell_type"] == "code"][-1]
    assert any("executable_theory" in o.get("metadata", {}) for o in last["outputs"]), (
        f"{slug}: the claims table must be the last code cell's output"
    )


def test_cited_paper_is_in_the_bibliography(slug):
    record = read_claims(chapter_paths(slug)["ipynb"])
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    assert "{" + record["paper"] + "," in bib


# --- parameters and presets ----------------------------------------------------------------


def parameter_names(slug):
    first = code_cells(chapter_paths(slug)["md"])[0]
    assert "parameters" in first.metadata.get("tags", []), (
        f"{slug}: first code cell must be tagged 'parameters'"
    )
    tree = ast.parse(first.source)
    return {
        t.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }


def test_first_code_cell_is_parameters_with_seed_and_device(slug):
    names = parameter_names(slug)
    assert {"seed", "device"} <= names, (
        f"{slug}: parameters must include seed and device, got {sorted(names)}"
    )


def test_paper_preset_names_only_known_parameters(slug):
    preset = chapter_paths(slug)["md"].parent / "paper.yaml"
    assert preset.exists(), f"{slug}: no paper.yaml preset"
    values = yaml.safe_load(preset.read_text()) or {}
    assert values, f"{slug}: empty paper preset"
    unknown = {k for k in values if not str(k).startswith("_")} - parameter_names(slug)
    assert not unknown, f"{slug}: paper.yaml sets unknown parameters {sorted(unknown)}"


def papermill_parameter_names(source):
    """The parameters papermill infers from a `parameters` cell's source."""
    import logging

    import nbformat
    from papermill.inspection import _infer_parameters

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(source, metadata={"tags": ["parameters"]})]
    logging.disable(logging.WARNING)
    try:
        return {p.name for p in _infer_parameters(nb)}
    finally:
        logging.disable(logging.NOTSET)


def test_papermill_infers_every_parameter(slug):
    """Papermill parses each assignment (a `=` inside a comment makes it drop that line)."""
    source = code_cells(chapter_paths(slug)["md"])[0].source
    missed = parameter_names(slug) - papermill_parameter_names(source)
    assert not missed, (
        f"{slug}: papermill cannot parse the parameters {sorted(missed)}; "
        "keep '=' out of their comments"
    )


def test_papermill_parameter_check_can_fail():
    source = "n = 3  # n = 3 in words\nm = 4  # fine\n"
    assert papermill_parameter_names(source) == {"m"}


def test_bad_parameter_stops_with_clear_error_before_heavy_work(slug, tmp_path):
    """Through papermill, a negative seed must stop in the cell after `parameters`."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    out = tmp_path / "bad.ipynb"
    with pytest.raises(PapermillExecutionError) as err:
        papermill.execute_notebook(
            str(chapter_paths(slug)["ipynb"]),
            str(out),
            parameters={"seed": -1},
            kernel_name="python3",
            cwd=str(chapter_paths(slug)["md"].parent),
            progress_bar=False,
        )
    assert err.value.ename == "ValueError" and "`seed`" in err.value.evalue
    ran = [
        c
        for c in json.loads(out.read_text())["cells"]
        if c["cell_type"] == "code" and c.get("execution_count")
    ]
    # parameters, injected-parameters, validation: nothing after the validation cell ran
    assert len(ran) <= 3, f"{slug}: {len(ran)} cells ran before the bad seed was caught"


# --- code that reads on the page -----------------------------------------------------------


def test_chapter_code_is_ruff_formatted_and_clean(slug):
    """Code cells are `ruff format`ted at line length 88 (through jupytext) and pass `ruff check`
    (pyflakes and pycodestyle errors). Long comments and strings are the author's to wrap, and
    a chapter with controls must have wrapped them: no code line over 88 columns."""
    import jupytext

    nb = jupytext.read(chapter_paths(slug)["md"])
    script = jupytext.writes(nb, fmt="py:percent")
    ruff = [sys.executable, "-m", "ruff"]
    formatted = subprocess.run(
        [*ruff, "format", "--stdin-filename", f"{slug}.py", "-"],
        input=script,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    before = [c.source.strip() for c in nb.cells if c.cell_type == "code"]
    after = [
        c.source.strip()
        for c in jupytext.reads(formatted, fmt="py:percent").cells
        if c.cell_type == "code"
    ]
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    assert not changed, (
        f"{slug}: code cells {changed} are not ruff-formatted; run jupytext --pipe"
    )
    check = subprocess.run(
        [
            *ruff,
            "check",
            "--stdin-filename",
            f"book/{slug}/{slug}.py",
            "--ignore",
            "E501",
            "--output-format",
            "concise",
            "-",
        ],
        input=script,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert check.returncode == 0, check.stdout
    # A chapter that has had its second pass (it has controls) keeps every code line within
    # 88 columns, strings and comments included (ruff's E501, which the markdown cells of the
    # script would trip); the others are held to it once they have controls.
    if slug in chapters_with_controls():
        long_lines = [
            f"cell {i}: {len(line)} columns: {line.strip()[:60]}"
            for i, cell in enumerate(code_cells(chapter_paths(slug)["md"]))
            for line in cell.source.splitlines()
            if len(line) > 88
        ]
        assert not long_lines, f"{slug}: code lines over 88 columns:\n" + "\n".join(
            long_lines
        )


def test_outside_a_clone_the_check_cell_stops_with_one_clear_message(slug):
    """Downloaded alone, a chapter cannot import `lib`: its check cell must say how to get it,
    in one message, before anything else runs."""
    import builtins

    check_cell = code_cells(chapter_paths(slug)["md"])[1].source
    assert check_cell.lstrip().startswith("try:\n    import lib"), (
        f"{slug}: the check cell must begin with the `try: import lib` guard"
    )
    guard = check_cell[: check_cell.index("from None") + len("from None")]
    real_import = builtins.__import__

    def no_lib(name, *args, **kwargs):
        if name == "lib" or name.startswith("lib."):
            raise ModuleNotFoundError("No module named 'lib'", name="lib")
        return real_import(name, *args, **kwargs)

    with pytest.raises(SystemExit) as stop:
        exec(guard, {"__builtins__": {**vars(builtins), "__import__": no_lib}})
    assert "make install" in str(stop.value) and "pip install" in str(stop.value)
