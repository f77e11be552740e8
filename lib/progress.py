"""A progress bar over a chapter's long loops, off by default.

Chapters take a ``progress`` parameter (``False`` by default, so stored outputs never
carry a bar;
``True`` in every ``paper.yaml``) and wrap their long loops::

    for n in lib.progress(sample_sizes, enabled=progress, desc="sample sizes"):
        ...

With ``enabled=False`` the iterable comes back untouched: nothing is imported or
printed.
"""

from __future__ import annotations

from collections.abc import Iterable


def progress(
    iterable: Iterable,
    *,
    enabled: bool,
    desc: str | None = None,
    total: int | None = None,
) -> Iterable:
    """``iterable`` itself, or a tqdm bar over it when ``enabled``."""
    if not isinstance(enabled, bool):
        raise ValueError(
            f"parameter `progress` = {enabled!r} is invalid: must be True or False"
        )
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, mininterval=1.0)
