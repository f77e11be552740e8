"""Seeding and device choice."""
from __future__ import annotations

import os
import random

import numpy as np

from lib.params import check_choice, check_int

DEVICES = ("auto", "cpu", "cuda")


def pick_device(device: str = "auto") -> str:
    """Return ``"cuda"`` or ``"cpu"``.

    ``"auto"`` takes a GPU when torch sees one; asking for ``"cuda"`` where none exists is an error
    rather than a silent fall-back, so a paper-scale run never quietly runs on the CPU.
    """
    check_choice("device", device, DEVICES)
    try:
        import torch
    except ImportError:  # a numpy-only environment
        if device == "cuda":
            raise ValueError("parameter `device` = 'cuda' is invalid: torch is not installed") from None
        return "cpu"
    has_cuda = torch.cuda.is_available()
    if device == "cuda" and not has_cuda:
        raise ValueError("parameter `device` = 'cuda' is invalid: no CUDA device is visible")
    if device == "auto":
        return "cuda" if has_cuda else "cpu"
    return device


def setup(seed: int, device: str = "auto") -> tuple[np.random.Generator, str]:
    """Seed ``random``, numpy and torch from one integer and choose the device.

    Returns ``(rng, device)``: a fresh ``numpy.random.Generator`` (the only source of randomness a
    numpy chapter should use) and the device string for torch tensors. Torch's global generator is
    seeded too, so ``torch.randn`` without an explicit generator is reproducible on the CPU.
    """
    check_int("seed", seed, low=0, high=2**32 - 1)
    random.seed(seed)
    np.random.seed(seed)
    os.environ.setdefault("PYTHONHASHSEED", str(seed))
    chosen = pick_device(device)
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.manual_seed(seed)
        if chosen == "cuda":
            torch.cuda.manual_seed_all(seed)
    return np.random.default_rng(seed), chosen
