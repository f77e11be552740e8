"""Thin helpers shared by every chapter of *Executable Theory: ICLR 2025*.

A chapter uses at most these names::

    import lib
    rng, device = lib.setup(seed, device)           # seeds random, numpy, torch
    lib.check_int("n_trials", n_trials, low=1)      # parameter checks: one ValueError
    control = lib.check_control("slug", control)    # "none" or a name in controls.yaml
    fig, ax = lib.subplots(); ...; lib.show(fig)    # the book's figure style, png only
    fit = lib.loglog_slope(n, err)                  # a rate with its standard error
    claims = lib.Claims("slug", paper="bibkey", control=control)
    claims.add(...); claims.report()                # the "What we reproduced" record
    for x in lib.progress(xs, enabled=progress): ...  # a bar on long loops when asked

Everything else -- a chapter's central algorithm and its experiment -- lives in
the chapter.
"""

from lib.claims import (
    Claim,
    Claims,
    ClaimsFailed,
    check_control,
    load_controls,
    read_claims,
)
from lib.fits import Slope, loglog_slope
from lib.params import (
    check_bool,
    check_choice,
    check_float,
    check_float_list,
    check_int,
    check_int_list,
)
from lib.plotting import PALETTE, show, subplots, use_style
from lib.progress import progress
from lib.runtime import pick_device, setup

__all__ = [
    "PALETTE",
    "Claim",
    "Claims",
    "ClaimsFailed",
    "Slope",
    "check_bool",
    "check_control",
    "check_choice",
    "check_float",
    "check_float_list",
    "check_int",
    "check_int_list",
    "load_controls",
    "loglog_slope",
    "pick_device",
    "progress",
    "read_claims",
    "setup",
    "show",
    "subplots",
    "use_style",
]
