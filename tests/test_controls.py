"""Controls: deliberately wrong variants that must flip the claims they take the idea from.

The record (``book/<slug>/controls.csv``, ``make controls RECORD=1``) must be current, and the
rule must hold: every claim of a chapter with controls is flipped by at least one control, and
every control flips every claim it is declared to flip. The machinery is shown failing on
deliberately bad records."""

import csv
import json
import shutil
import subprocess
import sys

import pytest
import yaml

import lib
from lib import claims as claims_module
from lib.build import controls
from lib.build.book_tools import BOOK, ROOT, chapter_paths, chapters

# Every chapter must have controls once the second-pass issues have landed; until then the
# rule applies to the chapters that declare them, the two worked examples among them.
WITH_CONTROLS = controls.chapters_with_controls()
WORKED_EXAMPLES = ["block-verification-speculative-decoding", "strong-model-collapse"]


def test_the_worked_examples_declare_controls():
    assert set(WORKED_EXAMPLES) <= set(WITH_CONTROLS)


@pytest.mark.parametrize("chapter", WITH_CONTROLS)
def test_controls_record_is_present_and_current(chapter):
    """Re-run `make controls CHAPTERS=<slug> RECORD=1` after changing the chapter."""
    slug = chapter
    assert controls.staleness(slug) == []


@pytest.mark.parametrize("chapter", WITH_CONTROLS)
def test_every_claim_is_flipped_by_a_control(chapter):
    slug = chapter
    assert controls.rule_violations(slug) == []


@pytest.mark.parametrize("chapter", WITH_CONTROLS)
def test_chapter_takes_a_control_parameter_and_its_record_ran_without_one(chapter):
    slug = chapter
    import jupytext

    nb = jupytext.read(chapter_paths(slug)["md"])
    parameters = next(c for c in nb.cells if c.cell_type == "code")
    assert 'control = "none"' in parameters.source
    record = lib.read_claims(chapter_paths(slug)["ipynb"])
    assert record.get("control") == "none"


@pytest.mark.parametrize("chapter", WITH_CONTROLS)
def test_an_unknown_control_stops_with_the_valid_names(chapter, tmp_path):
    slug = chapter
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from lib.build.book_tools import KERNEL, kernel_manager_class, quiet_papermill

    quiet_papermill()
    with pytest.raises(PapermillExecutionError) as err:
        papermill.execute_notebook(
            str(chapter_paths(slug)["ipynb"]),
            str(tmp_path / "out.ipynb"),
            parameters={"control": "no-such-control"},
            kernel_name=KERNEL,
            cwd=str(chapter_paths(slug)["md"].parent),
            progress_bar=False,
            kernel_manager_class=kernel_manager_class(),
        )
    assert err.value.ename == "ValueError"
    message = err.value.evalue
    assert "parameter `control` = 'no-such-control'" in message
    for name in ["none", *lib.load_controls(slug)]:
        assert repr(name) in message


# --- the machinery, shown failing on bad records ----------------------------------------------


def copy_chapter(slug, tmp_path):
    book = tmp_path / "book"
    shutil.copytree(BOOK / slug, book / slug)
    return book


def rewrite(book, slug, change):
    path = book / slug / controls.CONTROLS_CSV
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    change(rows)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=controls.CONTROLS_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


@pytest.mark.parametrize("chapter", WITH_CONTROLS[:1])
def test_a_stale_controls_record_is_detected(chapter, tmp_path):
    slug = chapter
    book = copy_chapter(slug, tmp_path)
    assert controls.staleness(slug, book) == []

    def other_code(rows):
        for r in rows:
            r["code_sha1"] = "0" * 12

    rewrite(book, slug, other_code)
    assert any("other code" in p for p in controls.staleness(slug, book))

    book = copy_chapter(slug, tmp_path / "2")

    def renamed_claim(rows):
        rows[0]["claim"] += " (renamed)"

    rewrite(book, slug, renamed_claim)
    assert any("claims changed" in p for p in controls.staleness(slug, book))

    book = copy_chapter(slug, tmp_path / "3")
    declared = yaml.safe_load((book / slug / "controls.yaml").read_text())
    name = next(iter(declared))
    n_claims = len(lib.read_claims(book / slug / f"{slug}.ipynb")["claims"])
    declared[name]["flips"] = sorted(set(declared[name]["flips"]) ^ {n_claims}) or [1]
    (book / slug / "controls.yaml").write_text(yaml.safe_dump(declared))
    assert any("`flips` changed" in p for p in controls.staleness(slug, book))

    (book / slug / controls.CONTROLS_CSV).unlink()
    assert any("no controls.csv" in p for p in controls.staleness(slug, book))


@pytest.mark.parametrize("chapter", WITH_CONTROLS[:1])
def test_a_control_that_leaves_a_declared_claim_alone_breaks_the_rule(
    chapter, tmp_path
):
    slug = chapter
    book = copy_chapter(slug, tmp_path)
    assert controls.rule_violations(slug, book) == []
    rows = controls.read_record(slug, book)
    target = next(r for r in rows if r["flips"])

    def left_alone(rows):
        for r in rows:
            if (
                r["control"] == target["control"]
                and int(r["claim_no"]) == target["claim_no"]
            ):
                r["holds"] = r["expected"]

    rewrite(book, slug, left_alone)
    problems = controls.rule_violations(slug, book)
    assert any(
        f"control {target['control']} is declared to flip claim {target['claim_no']}"
        in p
        for p in problems
    )


def test_a_claim_no_control_flips_breaks_the_rule(tmp_path):
    slug = "x"
    (tmp_path / slug).mkdir()
    rows = [
        {"control": "c", "claim_no": 1, "claim": "a", "holds": 0, "expected": 1,
         "flips": 1, "code_sha1": "0" * 12},
        {"control": "c", "claim_no": 2, "claim": "b", "holds": 1, "expected": 1,
         "flips": 0, "code_sha1": "0" * 12},
    ]  # fmt: skip
    controls.write_record(slug, rows, tmp_path)
    assert controls.rule_violations(slug, tmp_path) == [
        "x: claim 2 (b) is flipped by no control"
    ]
    assert controls.flipping_controls(controls.read_record(slug, tmp_path)) == {
        1: ["c"]
    }


# --- Claims under a control ------------------------------------------------------------------


@pytest.fixture
def toy_book(tmp_path, monkeypatch):
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "controls.yaml").write_text(
        "no-idea:\n  what: the idea taken away\n  flips: [1]\n"
        "wrong-theory:\n  what: a theory that ignores the quantity\n  flips: [1, 2]\n"
    )
    monkeypatch.setattr(claims_module, "BOOK", tmp_path)
    return tmp_path


def toy_claims(control, first_holds, second_holds):
    c = lib.Claims("toy", paper="key", control=control)
    c.add("first", 1.0, "p", first_holds)
    c.add("second", 2.0, "p", second_holds, expect=False)
    c.add("third", 3.0, "p", False)  # not declared: shown, never asserted
    return c


def test_check_control_lists_the_valid_names(toy_book):
    assert lib.check_control("toy", "none") == "none"
    assert lib.check_control("toy", "no-idea") == "no-idea"
    for bad in ("nope", None, 3, ""):
        with pytest.raises(ValueError) as err:
            lib.check_control("toy", bad)
        assert "'none', 'no-idea', 'wrong-theory'" in str(err.value)
        assert "parameter `control`" in str(err.value)


def test_report_under_a_control_passes_only_when_the_declared_claims_flip(
    toy_book, capsys
):
    toy_claims("no-idea", False, False).report()
    text = capsys.readouterr().out
    assert text.startswith(
        "Control `no-idea`: the idea taken away. It must flip claim 1;"
    )
    assert "flipped" in text and "not asserted" in text
    with pytest.raises(
        lib.ClaimsFailed, match=r"did not flip claim\(s\) it must flip: 1"
    ):
        toy_claims("no-idea", True, False).report()
    # claim 2 is recorded as not reproduced, so its control must make it hold
    with pytest.raises(lib.ClaimsFailed, match=r"2 \(second\)"):
        toy_claims("wrong-theory", False, False).report()
    toy_claims("wrong-theory", False, True).report()


def test_without_a_control_the_table_is_unchanged(toy_book):
    c = toy_claims("none", True, False)
    assert c.as_text().splitlines()[0].split(" | ")[0].strip() == "claim"
    assert "under the control" not in c.as_markdown()
    assert c.record()["control"] == "none" and c.record()["flips"] == []
    with_control = toy_claims("wrong-theory", False, True)
    assert "| # | claim |" in with_control.as_markdown()
    assert with_control.record()["flips"] == [1, 2]


def test_a_control_declared_beyond_the_claims_fails(toy_book):
    (toy_book / "toy" / "controls.yaml").write_text("c:\n  what: w\n  flips: [5]\n")
    c = lib.Claims("toy", paper="key", control="c")
    c.add("only", 1.0, "p", False)
    with pytest.raises(lib.ClaimsFailed, match="but the chapter has 1 claims"):
        c.report()


@pytest.mark.parametrize(
    "text",
    [
        "none:\n  what: w\n  flips: [1]\n",
        "c:\n  what: w\n",
        "c:\n  what: w\n  flips: []\n",
        "c:\n  what: w\n  flips: [0]\n",
        "c:\n  what: ''\n  flips: [1]\n",
        "c:\n  what: w\n  flips: [1]\n  extra: 1\n",
        "- c\n",
    ],
)
def test_a_malformed_controls_yaml_is_refused(toy_book, text):
    (toy_book / "toy" / "controls.yaml").write_text(text)
    with pytest.raises(ValueError):
        lib.load_controls("toy")


# --- make controls on dask ---------------------------------------------------------------------


@pytest.mark.parametrize("chapter", WITH_CONTROLS[:1])
def test_controls_command_runs_a_control_on_dask_and_resumes(chapter, tmp_path):
    slug = chapter
    name = next(iter(lib.load_controls(slug)))
    cmd = [
        sys.executable, "-m", "lib.build", "controls", "--chapters", slug,
        "--controls", name, "--workers", "1", "--out", str(tmp_path), "--no-progress",
    ]  # fmt: skip
    first = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stdout + first.stderr
    result = json.loads((tmp_path / slug / f"{name}.json").read_text())
    assert result["status"] == "passed" and result["claims"]
    rows = controls.record_rows(slug, [result])
    assert all(r["measured"] for r in rows)  # the value each claim printed under it
    assert all(any(controls.flipped(r) for r in rows if r["claim_no"] == k)
               for k in lib.load_controls(slug)[name]["flips"])  # fmt: skip
    again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert "1 already done, 0 to run" in again.stdout
    result["declared"] = {**result["declared"], "flips": [1]}
    (tmp_path / slug / f"{name}.json").write_text(json.dumps(result))
    assert controls.done(tmp_path, slug, name, lib.load_controls(slug)[name]) is None


def test_a_record_without_measured_values_still_reads(tmp_path):
    slug = WITH_CONTROLS[0]
    (tmp_path / slug).mkdir()
    old = [c for c in controls.CONTROLS_COLUMNS if c != "measured"]
    with open(tmp_path / slug / controls.CONTROLS_CSV, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=old, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(controls.read_record(slug))
    assert {r["measured"] for r in controls.read_record(slug, tmp_path)} == {""}


def test_the_controls_table_shows_each_flip_with_its_value(monkeypatch):
    from lib.build import sphinx_claims

    slug = WITH_CONTROLS[0]
    rows = [
        {**r, "measured": f"m{r['control']}{r['claim_no']}"}
        for r in controls.read_record(slug)
    ]
    monkeypatch.setattr(sphinx_claims, "read_record", lambda s: rows)
    table = sphinx_claims.controls_markdown(slug)
    assert "| # | claim | default | flipped by (value under the control) |" in table
    for r in rows:
        shown = f"`{r['control']}` (m{r['control']}{r['claim_no']})" in table
        assert shown == controls.flipped(r)


def test_controls_command_refuses_unknown_names():
    run = subprocess.run(
        [sys.executable, "-m", "lib.build", "controls", "--chapters", "no-such"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0 and "unknown chapters" in run.stderr
    assert set(WITH_CONTROLS) <= set(chapters())
