"""One figure style for the whole book, and a ``show`` that emits a PNG and nothing
else.

Figures are displayed as ``image/png`` only: no ``<Figure size ...>`` text and no object
repr reaches a cell's text outputs, so nbval never compares plot artefacts. The palette
is Okabe & Ito's colour-blind-safe set.
"""

from __future__ import annotations

import base64
import io

import matplotlib

matplotlib.use("Agg")  # figures reach the notebook only through `show`
import matplotlib.pyplot as plt

PALETTE = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
)

STYLE = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 110,
    "savefig.dpi": 110,
    "savefig.bbox": "tight",
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "legend.fontsize": 10,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 2.0,
    "lines.markersize": 6,
    "legend.frameon": False,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "svg.hashsalt": "executable-theory",
}


def use_style() -> None:
    """Apply the book's matplotlib style (idempotent)."""
    matplotlib.rcParams.update(STYLE)


def subplots(
    nrows: int = 1,
    ncols: int = 1,
    *,
    width: float | None = None,
    height: float | None = None,
    **kwargs,
):
    """``plt.subplots`` in the book's style; ``width``/``height`` in inches."""
    use_style()
    w, h = STYLE["figure.figsize"]
    if width is None:
        width = w * (1 if ncols == 1 else min(ncols, 2) * 0.85)
    if height is None:
        height = h * (1 if nrows == 1 else nrows * 0.8)
    return plt.subplots(nrows, ncols, figsize=(width, height), **kwargs)


def png_bytes(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def show(fig) -> None:
    """Display ``fig`` as a PNG in the notebook, then close it. Returns ``None``.

    Outside IPython (running the percent script with ``python``) the figure is closed
    silently.
    """
    data = png_bytes(fig)
    plt.close(fig)
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return
    if get_ipython() is None:
        return
    display({"image/png": base64.b64encode(data).decode("ascii")}, raw=True)
    return
