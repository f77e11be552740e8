"""Parameter checks for the cell after a chapter's ``parameters`` cell.

Each check raises one ``ValueError`` that names the parameter, the value it got and what
is allowed, so that a bad value injected by papermill stops before any heavy work::

    ValueError: parameter `gamma_max` = 0 is invalid: must be an integer >= 1
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence


def _fail(name: str, value, allowed: str):
    raise ValueError(f"parameter `{name}` = {value!r} is invalid: must be {allowed}")


def _bounds(low, high, *, integer: bool, low_open: bool = False) -> str:
    kind = "an integer" if integer else "a number"
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low}")
    if high is not None:
        parts.append(f"<= {high}")
    return kind + (" " + " and ".join(parts) if parts else "")


def check_int(
    name: str, value, *, low: int | None = None, high: int | None = None
) -> int:
    """``value`` must be an int (not a bool) within ``[low, high]``; returns it."""
    allowed = _bounds(low, high, integer=True)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        _fail(name, value, allowed)
    if (low is not None and value < low) or (high is not None and value > high):
        _fail(name, value, allowed)
    return int(value)


def check_float(
    name: str,
    value,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
) -> float:
    """``value`` must be a finite real within the bounds (``low`` excluded when
    ``low_open``)."""
    allowed = _bounds(low, high, integer=False, low_open=low_open)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != value:
        _fail(name, value, allowed)
    if value in (float("inf"), float("-inf")):
        _fail(name, value, allowed)
    if low is not None and (value <= low if low_open else value < low):
        _fail(name, value, allowed)
    if high is not None and value > high:
        _fail(name, value, allowed)
    return float(value)


def check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        _fail(name, value, "True or False")
    return value


def check_choice(name: str, value, choices: Iterable):
    """``value`` must be one of ``choices``."""
    choices = tuple(choices)
    if value not in choices:
        _fail(name, value, "one of " + ", ".join(repr(c) for c in choices))
    return value


def _check_list(name, values, what, check_one, *, min_len, increasing) -> list:
    """The shared part of the list checks: a sequence (not a string) of at least
    ``min_len`` items, each accepted by ``check_one``, strictly increasing when
    asked."""
    if increasing:
        what += ", strictly increasing"
    if (
        isinstance(values, (str, bytes))
        or not isinstance(values, Sequence)
        or len(values) < min_len
    ):
        _fail(name, values, what)
    try:
        checked = [check_one(v) for v in values]
    except ValueError:
        checked = None  # one message, naming the whole list, raised outside the handler
    if checked is None:
        _fail(name, values, what)
    if increasing and any(b <= a for a, b in zip(checked, checked[1:])):
        _fail(name, values, what)
    return checked


def check_int_list(
    name: str,
    values,
    *,
    low: int | None = None,
    high: int | None = None,
    min_len: int = 1,
    increasing: bool = False,
) -> list[int]:
    """A non-empty list of ints in ``[low, high]``, strictly increasing when asked."""
    what = f"a list of at least {min_len} " + _bounds(low, high, integer=True).replace(
        "an integer", "integers"
    )
    return _check_list(
        name,
        values,
        what,
        lambda v: check_int(name, v, low=low, high=high),
        min_len=min_len,
        increasing=increasing,
    )


def check_float_list(
    name: str,
    values,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    min_len: int = 1,
    increasing: bool = False,
) -> list[float]:
    """A list of at least ``min_len`` finite reals within the bounds of ``check_float``,
    strictly increasing when asked; returns them as floats."""
    what = f"a list of at least {min_len} " + _bounds(
        low, high, integer=False, low_open=low_open
    ).replace("a number", "numbers")
    return _check_list(
        name,
        values,
        what,
        lambda v: check_float(name, v, low=low, high=high, low_open=low_open),
        min_len=min_len,
        increasing=increasing,
    )
