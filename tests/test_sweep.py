"""The seed sweep on dask.distributed, and the seeds records it writes for the status page."""

import csv
import json
import subprocess
import sys

import pytest

from lib.build import sweep
from lib.build.book_tools import ROOT, chapter_paths
from lib.claims import read_claims

FAST = "chi-squared-preference-optimization"  # the quickest chapter (about 10 s a run)


def test_parse_seeds():
    assert sweep.parse_seeds("0-3") == [0, 1, 2, 3]
    assert sweep.parse_seeds("5,0-1,5") == [0, 1, 5]
    for bad in ("", "a", "3-1", "-2"):
        with pytest.raises(SystemExit):
            sweep.parse_seeds(bad)


def test_summary_counts_passes_and_spread():
    claim = {"claim": "c", "holds": True, "expected": True, "value": 1.0}
    results = [
        {"chapter": "x", "seed": 0, "status": "passed", "error": "", "claims": [claim]},
        {
            "chapter": "x",
            "seed": 1,
            "status": "failed",
            "error": "",
            "claims": [{**claim, "holds": False, "value": 3.0}],
            "failing_claims": ["c"],
        },
        {
            "chapter": "x",
            "seed": 2,
            "status": "failed",
            "error": "ValueError: bad",
            "claims": [],
        },
        {  # a failed run's record keeps a non-finite value as text
            "chapter": "x",
            "seed": 3,
            "status": "failed",
            "error": "",
            "claims": [{**claim, "holds": False, "value": "nan"}],
            "failing_claims": ["c"],
        },
    ]
    rows = sweep.summarise(results)
    assert (
        rows[0]["held"] == 1
        and rows[0]["seeds"] == 4
        and rows[0]["failed_seeds"] == [1, 3]
    )
    assert rows[0]["mean"] == 2.0 and abs(rows[0]["sd"] - 2**0.5) < 1e-12
    assert rows[1]["claim"] == "(the run itself)" and rows[1]["failed_seeds"] == [2]


def test_sweep_on_a_local_cluster_reports_a_failing_job_and_resumes(tmp_path):
    """One chapter x two seeds; seed 2**32 is out of range, so that job fails in the check cell
    while the other completes. A rerun skips the job that passed."""
    out = tmp_path / "sweep"
    cmd = [
        sys.executable,
        "-m",
        "lib.build",
        "sweep",
        "--chapters",
        FAST,
        "--seeds",
        f"0,{2**32}",
        "--workers",
        "2",
        "--out",
        str(out),
        "--no-progress",
    ]
    first = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert first.returncode == 1, first.stdout + first.stderr
    assert f"FAILED {FAST}, seed {2**32}: ValueError: parameter `seed`" in first.stdout
    assert "1 passed, 1 failed" in first.stdout
    passed = json.loads((out / FAST / "seed-0.json").read_text())
    assert passed["status"] == "passed" and passed["claims"]
    with open(out / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    claims = [r for r in rows if r["claim_no"] != "0"]
    assert len(claims) == len(read_claims(chapter_paths(FAST)["ipynb"])["claims"])
    assert all(r["seeds"] == "2" and r["held"] == "1" for r in claims)
    assert any(
        r["claim"] == "(the run itself)" and r["failed_seeds"] == str(2**32)
        for r in rows
    )
    assert "## Failures" in (out / "summary.md").read_text()

    again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert again.returncode == 1
    assert "1 already done, 1 to run" in again.stdout
    # a result recorded for other code (or other parameters) is not "done"
    assert sweep.done(out, FAST, 0, {}) is not None
    assert sweep.done(out, FAST, 0, {"epochs": 10}) is None
    stale = json.loads((out / FAST / "seed-0.json").read_text())
    stale["code_sha1"] = "0" * 12
    (out / FAST / "seed-0.json").write_text(json.dumps(stale))
    assert sweep.done(out, FAST, 0, {}) is None


def test_record_needs_the_default_preset_over_seeds_0_to_9():
    for extra in (["--seeds", "0-3"], ["--preset", "paper"]):
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "lib.build",
                "sweep",
                "--chapters",
                FAST,
                "--record",
                *extra,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert run.returncode != 0 and "--record keeps the default preset" in run.stderr


# --- the committed seeds records ----------------------------------------------------------


def test_seeds_record_is_present_and_current(slug):
    """book/<slug>/seeds.csv must come from a sweep of the chapter's current code and claims:
    re-run `make sweep CHAPTERS=<slug> SEEDS=0-9 RECORD=1` after changing the chapter."""
    rows = sweep.read_seeds_record(slug)
    if rows is None:
        pytest.skip(f"{slug}: no seeds.csv yet (make sweep CHAPTERS={slug} RECORD=1)")
    assert {r["code_sha1"] for r in rows} == {sweep.code_sha1(slug)}, (
        f"{slug}: seeds.csv was recorded for other code; re-run the sweep with RECORD=1"
    )
    claims = read_claims(chapter_paths(slug)["ipynb"])["claims"]
    assert [r["claim"] for r in rows] == [c["claim"] for c in claims], (
        f"{slug}: seeds.csv records other claims than the notebook's; re-run the sweep"
    )
    assert all(int(r["seeds"]) >= 10 for r in rows)


def test_a_stale_seeds_record_is_detected(tmp_path, monkeypatch):
    slug = FAST
    rows = sweep.read_seeds_record(slug)
    if rows is None:
        pytest.skip("no seeds record yet")
    monkeypatch.setattr(sweep, "code_sha1", lambda s: "0" * 12)
    with pytest.raises(AssertionError, match="recorded for other code"):
        test_seeds_record_is_present_and_current(slug)
