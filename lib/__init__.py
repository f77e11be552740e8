"""Thin helpers shared by every chapter of *Executable Theory: ICLR 2025*.

A chapter uses at most these names::

    import lib rng, device = lib.setup(seed, device)          # seeds random, numpy,
    torch; picks cpu/cuda lib.check_int("n_trials", n_trials, low=1)     # parameter
    checks -> one clear ValueError fig, ax = lib.subplots(); ...; lib.show(fig)   # the
    book's figure style, png only claims = lib.Claims("slug", paper="bibkey")
    # the "What we reproduced" record claims.add(...); claims.report() for x in
    lib.progress(xs, enabled=progress): ...  # a bar on long loops when asked

Everything else -- a chapter's central algorithm and its experiment -- lives in
the chapter.
"""

from lib.claims import Claim, Claims, ClaimsFailed, read_claims
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
    "check_bool",
    "check_choice",
    "check_float",
    "check_float_list",
    "check_int",
    "check_int_list",
    "pick_device",
    "progress",
    "read_claims",
    "setup",
    "show",
    "subplots",
    "use_style",
]
