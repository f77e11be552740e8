"""One rate fit for every chapter: the slope of ``log y`` against ``log x``, with its
standard error.

    fit = lib.loglog_slope(n, error)                 # one curve: least squares
    fit = lib.loglog_slope(n, errors, seed=seed)     # replicates x points: bootstrap
    fit.slope, fit.se, fit.intercept, fit.within(-1.0, k=3)

With one curve the standard error is the least-squares one, from the residuals (it
needs at least three points). With replicates (a 2-D ``y``, one row per replicate) the
slope is fitted to the mean of ``log y`` over replicates, and its standard error is the
standard deviation of that fit over ``n_boot`` bootstrap resamples of the replicates:
the spread a new set of replicates would show, which is what a tolerance should come
from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Slope:
    slope: float
    se: float
    intercept: float
    method: str  # "least squares" or "bootstrap over replicates"

    def within(self, target: float, k: float = 3.0, resolution: float = 0.0) -> bool:
        """Is ``target`` within ``k`` standard errors (plus a fixed ``resolution``) of
        the slope?"""
        return bool(abs(self.slope - target) <= k * self.se + resolution)

    def __str__(self) -> str:
        return f"{self.slope:.3f} ± {self.se:.3f}"


def _line(log_x: np.ndarray, log_y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares slope and intercept of each row of ``log_y`` against ``log_x``."""
    xc = log_x - log_x.mean()
    slope = (log_y - log_y.mean(-1, keepdims=True)) @ xc / (xc @ xc)
    return slope, log_y.mean(-1) - slope * log_x.mean()


def loglog_slope(x, y, *, n_boot: int = 2000, seed: int = 0) -> Slope:
    """The slope of ``log y`` against ``log x`` (see the module docstring).

    ``x``: positive, at least two distinct values. ``y``: positive, shaped like ``x``
    (one curve) or ``(replicates, len(x))`` with at least two replicates."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 1 or len(np.unique(x)) < 2:
        raise ValueError("x must be 1-D with at least two distinct values")
    if y.shape[-1] != len(x) or y.ndim not in (1, 2):
        raise ValueError(f"y must have shape ({len(x)},) or (replicates, {len(x)})")
    if np.any(x <= 0) or np.any(~np.isfinite(y)) or np.any(y <= 0):
        raise ValueError("a log-log fit needs positive, finite x and y")
    log_x, log_y = np.log(x), np.log(y)
    if y.ndim == 1:
        if len(x) < 3:
            raise ValueError("a standard error from one curve needs at least 3 points")
        slope, intercept = _line(log_x, log_y)
        residual = log_y - (intercept + slope * log_x)
        xc = log_x - log_x.mean()
        se = np.sqrt(residual @ residual / (len(x) - 2) / (xc @ xc))
        return Slope(float(slope), float(se), float(intercept), "least squares")
    if y.shape[0] < 2:
        raise ValueError("a bootstrap over replicates needs at least 2 replicates")
    slope, intercept = _line(log_x, log_y.mean(0))
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, y.shape[0], size=(n_boot, y.shape[0]))
    boot_slopes, _ = _line(log_x, log_y[rows].mean(1))
    return Slope(
        float(slope),
        float(boot_slopes.std(ddof=1)),
        float(intercept),
        "bootstrap over replicates",
    )
