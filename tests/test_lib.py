"""Unit tests of lib: seeding, device choice, parameter checks, claims record, plot helper."""

import json
import random

import numpy as np
import pytest
import torch

import lib
from lib.claims import METADATA_KEY

# --- setup ----------------------------------------------------------------------------------


def test_setup_seeds_every_generator():
    rng, device = lib.setup(7, "cpu")
    first = (random.random(), np.random.rand(), torch.rand(1).item(), rng.random())
    rng, device = lib.setup(7, "cpu")
    again = (random.random(), np.random.rand(), torch.rand(1).item(), rng.random())
    assert first == again
    assert device == "cpu"
    assert isinstance(rng, np.random.Generator)


def test_setup_different_seeds_differ():
    a, _ = lib.setup(1, "cpu")
    b, _ = lib.setup(2, "cpu")
    assert a.random() != b.random()


def test_auto_device_matches_torch():
    assert lib.pick_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a GPU")
def test_cuda_without_gpu_is_a_clear_error():
    with pytest.raises(ValueError, match="`device` = 'cuda'"):
        lib.pick_device("cuda")


@pytest.mark.parametrize("bad", ["gpu", "", None, 0])
def test_unknown_device_rejected(bad):
    with pytest.raises(ValueError, match="parameter `device`"):
        lib.pick_device(bad)


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, 2**32])
def test_bad_seed_rejected(bad):
    with pytest.raises(ValueError, match="parameter `seed`"):
        lib.setup(bad)


# --- parameter checks ------------------------------------------------------------------------


def test_check_int_accepts_and_returns():
    assert lib.check_int("n", np.int64(3), low=1, high=5) == 3


@pytest.mark.parametrize("value", [0, 6, 2.0, True, "2", None])
def test_check_int_message_names_parameter_value_and_range(value):
    with pytest.raises(ValueError) as err:
        lib.check_int("n_trials", value, low=1, high=5)
    text = str(err.value)
    assert "`n_trials`" in text and repr(value) in text and ">= 1 and <= 5" in text


def test_check_float_bounds_and_open_interval():
    assert lib.check_float("beta", 0.5, low=0, low_open=True) == 0.5
    with pytest.raises(ValueError, match="> 0"):
        lib.check_float("beta", 0.0, low=0, low_open=True)
    for bad in (float("nan"), float("inf"), "1", True):
        with pytest.raises(ValueError, match="`beta`"):
            lib.check_float("beta", bad)


def test_check_choice():
    assert lib.check_choice("mode", "a", ["a", "b"]) == "a"
    with pytest.raises(ValueError, match="one of 'a', 'b'"):
        lib.check_choice("mode", "c", ["a", "b"])


def test_check_bool():
    assert lib.check_bool("flag", False) is False
    with pytest.raises(ValueError, match="True or False"):
        lib.check_bool("flag", 1)


def test_check_int_list():
    assert lib.check_int_list("gammas", [1, 2, 4], low=1, increasing=True) == [1, 2, 4]
    for bad in ([], [1, 1], [0, 2], "12", [1, 2.5], (3, True)):
        with pytest.raises(ValueError, match="`gammas`"):
            lib.check_int_list("gammas", bad, low=1, increasing=True)


# --- claims ----------------------------------------------------------------------------------


def test_check_float_list():
    assert lib.check_float_list(
        "fractions", [0, 0.1, 0.5], low=0.0, high=1.0, min_len=3, increasing=True
    ) == [0.0, 0.1, 0.5]
    for bad in ([0.0, 0.1], [0.0, 0.5, 0.5], [0.0, 0.5, 2.0], [0.0, True, 0.5], "0.1"):
        with pytest.raises(ValueError, match="parameter `fractions`"):
            lib.check_float_list(
                "fractions", bad, low=0.0, high=1.0, min_len=3, increasing=True
            )
    with pytest.raises(ValueError, match="> 1.0"):
        lib.check_float_list("dilations", [1.0, 1.5], low=1.0, low_open=True)


def make_claims(holds=True):
    claims = lib.Claims("demo-chapter", paper="demo2025paper")
    claims.add("loss is | small", 0.012345, "< 0.1", holds=np.bool_(True))
    claims.add("rate", "2.0x", "about 2x", holds=holds)
    return claims


def test_claims_text_and_markdown():
    claims = make_claims()
    text = claims.as_text()
    assert text.splitlines()[0].split(" | ")[0].startswith("claim")
    assert "0.0123" in text and "yes" in text
    md = claims.as_markdown()
    assert md.startswith("| claim | measured | paper | holds |")
    assert "loss is \\| small" in md  # a pipe in a claim cannot break the table
    assert claims.all_hold


def test_claims_record_is_json_serialisable():
    record = make_claims().record()
    assert record["chapter"] == "demo-chapter" and record["paper"] == "demo2025paper"
    assert json.loads(json.dumps(record))["claims"][0]["holds"] is True


def test_report_raises_when_a_claim_fails(capsys):
    with pytest.raises(lib.ClaimsFailed, match="rate"):
        make_claims(holds=False).report()
    assert "NO" in capsys.readouterr().out  # the table is still shown before failing


def test_report_passes_when_all_hold(capsys):
    make_claims().report()
    assert "loss is | small" in capsys.readouterr().out


def test_empty_report_fails():
    with pytest.raises(lib.ClaimsFailed):
        lib.Claims("x", paper="y").report()


def test_duplicate_claim_rejected():
    claims = make_claims()
    with pytest.raises(ValueError, match="twice"):
        claims.add("rate", 1, "", True)


def test_claims_need_chapter_and_paper():
    with pytest.raises(ValueError):
        lib.Claims("", paper="x")
    with pytest.raises(ValueError):
        lib.Claims("x", paper="")


def test_report_in_ipython_stores_record_in_output_metadata():
    """Run report() inside a real kernel-like shell and read the record back from the output."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    captured = []
    shell.display_pub.publish = lambda data, metadata=None, **kw: captured.append(
        (data, metadata)
    )
    try:
        make_claims().report()
    finally:
        InteractiveShell.clear_instance()
    ((data, metadata),) = captured
    assert set(data) == {"text/plain", "text/markdown"}
    assert metadata[METADATA_KEY]["claims"][1]["claim"] == "rate"


def test_read_claims_from_notebook(tmp_path):
    record = make_claims().record()
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": "x", "metadata": {}},
            {
                "cell_type": "code",
                "source": "",
                "metadata": {},
                "execution_count": 1,
                "outputs": [
                    {
                        "output_type": "display_data",
                        "data": {"text/plain": "t"},
                        "metadata": {METADATA_KEY: record},
                    }
                ],
            },
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps(nb))
    assert lib.read_claims(path) == record
    nb["cells"][1]["outputs"] = []
    path.write_text(json.dumps(nb))
    assert lib.read_claims(path) is None


# --- plotting --------------------------------------------------------------------------------


def test_show_returns_none_and_closes_the_figure():
    import matplotlib.pyplot as plt

    fig, ax = lib.subplots()
    ax.plot([0, 1], [0, 1])
    assert lib.show(fig) is None
    assert not plt.fignum_exists(fig.number)


def test_show_emits_png_only():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    captured = []
    shell.display_pub.publish = lambda data, metadata=None, **kw: captured.append(data)
    try:
        fig, ax = lib.subplots()
        ax.plot([0, 1], [1, 0])
        lib.show(fig)
    finally:
        InteractiveShell.clear_instance()
    (data,) = captured
    assert set(data) == {
        "image/png"
    }  # no "<Figure size ...>" text for nbval to compare


def test_style_palette_is_colour_blind_safe_set():
    import matplotlib

    lib.use_style()
    cycle = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
    assert cycle[:3] == list(lib.PALETTE[:3]) and len(set(lib.PALETTE)) == len(
        lib.PALETTE
    )


def test_numpy_only_setup_does_not_import_torch():
    """A chapter that never imports torch must not pay for it (or get a GPU device)."""
    import subprocess
    import sys

    code = (
        "import sys, lib; rng, dev = lib.setup(3, 'auto'); "
        "assert 'torch' not in sys.modules, 'torch was imported'; assert dev == 'cpu'; "
        "import pytest\n"
        "try:\n    lib.setup(3, 'cuda')\nexcept ValueError as e:\n    assert 'does not use torch' in str(e)\n"
        "else:\n    raise SystemExit('cuda accepted without torch')"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_claim_that_does_not_reproduce_is_shown_and_still_checked(capsys):
    claims = make_claims()
    claims.add(
        "chi >= dpo at every beta",
        -0.03,
        "at least DPO everywhere",
        holds=False,
        expect=False,
    )
    assert claims.all_hold
    assert "no: not reproduced" in claims.as_text()
    assert "✗ *not reproduced*" in claims.as_markdown()
    assert claims.record()["claims"][-1]["expected"] is False
    claims.report()  # does not raise: the non-reproduction is the recorded finding
    surprise = make_claims()
    surprise.add("refuted claim", 1, "x", holds=True, expect=False)
    with pytest.raises(lib.ClaimsFailed, match="not reproduced now hold"):
        surprise.report()


# --- the rate fit -----------------------------------------------------------------------------


def test_loglog_slope_recovers_a_power_law_with_a_calibrated_error():
    n = np.array([100, 200, 400, 800, 1600, 3200])
    rng = np.random.default_rng(0)
    noise = np.exp(0.05 * rng.standard_normal((400, 6)))
    fits = [lib.loglog_slope(n, 3 * n**-0.8 * e) for e in noise]
    slopes = np.array([f.slope for f in fits])
    # the least-squares error matches the spread of slopes over independent curves
    assert abs(slopes.mean() + 0.8) < 0.01
    assert 0.8 < np.mean([f.se for f in fits]) / slopes.std() < 1.2
    assert (
        fits[0].method == "least squares" and abs(np.exp(fits[0].intercept) - 3) < 0.5
    )


def test_loglog_slope_bootstraps_over_replicates():
    n = np.array([10.0, 100.0, 1000.0, 10000.0])
    rng = np.random.default_rng(1)
    y = n**-1.5 * np.exp(0.1 * rng.standard_normal((20, 4)))
    fit = lib.loglog_slope(n, y, seed=3)
    assert fit.method == "bootstrap over replicates"
    assert fit == lib.loglog_slope(n, y, seed=3)  # reproducible
    assert fit.within(-1.5, k=3) and not fit.within(-1.0, k=3)
    # a mean over 20 replicates has sd 0.1 / sqrt(20) at each n; a least-squares slope
    # through 4 such points has sd that / sqrt(sum of squared deviations of log n)
    expected = 0.1 / np.sqrt(20) / np.sqrt(len(n) * np.log(n).var())
    assert 0.6 < fit.se / expected < 1.4
    assert str(fit) == f"{fit.slope:.3f} ± {fit.se:.3f}"


@pytest.mark.parametrize(
    "x, y",
    [
        ([1, 1, 1], [1, 2, 3]),
        ([1, 2, 3], [1, -2, 3]),
        ([0, 2, 3], [1, 2, 3]),
        ([1, 2], [1, 2]),
        ([1, 2, 3], [[1, 2, 3]]),
        ([1, 2, 3], [1, 2]),
        ([1, 2, 3], [1, np.nan, 3]),
    ],
)
def test_loglog_slope_refuses_what_it_cannot_fit(x, y):
    with pytest.raises(ValueError):
        lib.loglog_slope(x, y)


# --- mean ± sd as the status pages print it -----------------------------------------------------


@pytest.mark.parametrize(
    "mean, sd, text",
    [
        (1.975, 0.06544, "1.975 ± 0.065"),
        (0.0104, 0.0007074, "0.01040 ± 0.00071"),
        (1234, 123, "1230 ± 120"),
        (0.5, 0.0996, "0.50 ± 0.10"),
        ("11.24", "0.847", "11.24 ± 0.85"),
        (3.2, None, "3.2"),
        (3.2, "", "3.2"),
        ("", "", ""),
    ],
)
def test_mean_sd_prints_sd_at_two_digits_and_mean_to_match(mean, sd, text):
    from lib.claims import mean_sd

    assert mean_sd(mean, sd) == text
