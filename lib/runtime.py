"""Seeding and device choice."""

from __future__ import annotations

import random
import sys

import numpy as np

from lib.params import check_choice, check_int

DEVICES = ("auto", "cpu", "cuda")


def pick_device(device: str = "auto") -> str:
    """Return ``"cuda"`` or ``"cpu"``.

    ``"auto"`` takes a GPU when torch sees one; asking for ``"cuda"`` where none exists
    is an error rather than a silent fall-back, so a paper-scale run never quietly runs
    on the CPU.
    """
    check_choice("device", device, DEVICES)
    if device == "cpu":
        return "cpu"
    try:
        import torch
    except ImportError:  # a numpy-only environment
        if device == "cuda":
            raise ValueError(
                "parameter `device` = 'cuda' is invalid: torch is not installed"
            ) from None
        return "cpu"
    has_cuda = torch.cuda.is_available()
    if device == "cuda" and not has_cuda:
        raise ValueError(
            "parameter `device` = 'cuda' is invalid: no CUDA device is visible"
        )
    return "cuda" if has_cuda else "cpu"


def setup(seed: int, device: str = "auto") -> tuple[np.random.Generator, str]:
    """Seed ``random``, numpy and torch from one integer and choose the device.

    Returns ``(rng, device)``: a fresh ``numpy.random.Generator`` (the only source of
    randomness a numpy chapter should use) and the device string for torch tensors.

    Torch is seeded (and the device looked up) only when the chapter has imported torch
    before calling ``setup``: a numpy-only chapter then never pays torch's import time,
    and its device is ``"cpu"`` since nothing of it runs on a GPU. A torch chapter
    imports torch first.
    """
    check_int("seed", seed, low=0, high=2**32 - 1)
    check_choice("device", device, DEVICES)
    random.seed(seed)
    np.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is None:
        if device == "cuda":
            raise ValueError(
                "parameter `device` = 'cuda' is invalid: this chapter does not use torch"
            )
        return np.random.default_rng(seed), "cpu"
    chosen = pick_device(device)
    torch.manual_seed(seed)
    if chosen == "cuda":
        torch.cuda.manual_seed_all(seed)
    return np.random.default_rng(seed), chosen
