"""The "What we reproduced" record.

A chapter registers each headline claim, then its last cell calls ``report()``, which

* displays the table ``claim | measured | paper | holds`` (``text/plain`` for the
  notebook and nbval, ``text/markdown`` for the rendered book);
* stores the same rows, machine-readable, in the output's metadata under
``executable_theory``
  (nbval ignores output metadata; the front page's status table reads it from the
  committed ``.ipynb``);
* raises ``ClaimsFailed`` when any claim does not hold, so a broken claim fails
  the notebook.

A paper claim that the chapter finds does **not** reproduce is registered with
``expect=False``: its check is still computed and asserted (the report fails if it
unexpectedly holds), and the table shows it as *not reproduced* instead of hiding it or
bending the check until it passes.

A *control* is a named, deliberately wrong variant of the chapter that takes away the
idea one or more claims test (a regulariser zeroed, a wrong theory put in place of the
right one), or, for a claim recorded as not reproduced, a setting where the claim
of the paper does hold. Each chapter declares its controls in
``book/<slug>/controls.yaml``::

    broken-scan:
      what: the backward scan of block verification stops one step early
      flips: [2, 3]            # 1-based numbers in the claims table

and takes ``control = "none"`` in its parameters cell. Under a control, ``report()``
shows the table under a banner naming it and fails when a claim it is declared to flip
did not flip (``holds == expected``); the other claims are shown, not asserted. So a run
with ``-p control <name>`` is itself a test of the check.
"""

from __future__ import annotations

import json
import numbers
import time
from dataclasses import asdict, dataclass
from pathlib import Path

METADATA_KEY = "executable_theory"
NO_CONTROL = "none"
CONTROLS_FILE = "controls.yaml"
BOOK = Path(__file__).resolve().parents[1] / "book"


class ClaimsFailed(AssertionError):
    """At least one registered claim does not hold."""


@dataclass(frozen=True)
class Claim:
    claim: str
    measured: str
    paper: str
    holds: bool
    expected: bool = True
    value: float | None = (
        None  # the measured number, for seed sweeps (None if not a number)
    )

    @property
    def as_expected(self) -> bool:
        return self.holds == self.expected


def verdict(holds: bool, expected: bool = True) -> tuple[str, str]:
    """(plain text, markdown) for the holds column."""
    if expected:
        return ("yes", "✓") if holds else ("NO", "**✗ no**")
    return (
        ("no: not reproduced", "✗ *not reproduced*")
        if not holds
        else ("YES, but expected not to", "**? unexpectedly holds**")
    )


def _format(value, fmt: str) -> str:
    if isinstance(value, str):
        return value
    return fmt.format(value)


def mean_sd(mean, sd=None) -> str:
    """``mean ± sd`` with the sd at two significant digits and the mean to the same
    decimal place (``1.975 ± 0.065``, ``0.01040 ± 0.00071``, ``1230 ± 120``); the mean
    alone, at four significant digits, when there is no spread. Empty strings count as
    missing (as in a ``seeds.csv`` cell)."""
    import math

    def number(x):
        return None if x in (None, "") else float(x)

    mean, sd = number(mean), number(sd)
    if mean is None:
        return ""
    if sd is None or sd == 0 or not math.isfinite(sd):
        return f"{mean:.4g}"
    decimals = 1 - math.floor(math.log10(abs(sd)))
    # two significant digits of sd can round up a decade (0.0996 -> 0.10)
    if abs(round(sd, decimals)) >= 10 ** (2 - decimals):
        decimals -= 1
    if decimals > 0:
        return f"{mean:.{decimals}f} ± {sd:.{decimals}f}"
    step = 10 ** (-decimals)
    return f"{round(mean / step) * step:.0f} ± {round(sd / step) * step:.0f}"


def markdown_cell(text: str) -> str:
    """Text that is safe inside one cell of a markdown pipe table."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def load_controls(chapter: str, book: Path | None = None) -> dict[str, dict]:
    """The controls a chapter declares in ``book/<chapter>/controls.yaml``:
    ``{name: {"what": str, "flips": [claim numbers]}}`` ({} when it has none)."""
    import yaml

    path = (book or BOOK) / chapter / CONTROLS_FILE
    if not path.exists():
        return {}
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a mapping of control names")
    controls = {}
    for name, entry in raw.items():
        where = f"{path}: control {name!r}"
        if not isinstance(name, str) or name == NO_CONTROL or not name.strip():
            raise ValueError(f"{where}: a name must be a string other than 'none'")
        if not isinstance(entry, dict) or set(entry) != {"what", "flips"}:
            raise ValueError(f"{where}: needs exactly `what` and `flips`")
        what, flips = entry["what"], entry["flips"]
        if not isinstance(what, str) or not what.strip():
            raise ValueError(f"{where}: `what` must be a one-line description")
        if (
            not isinstance(flips, list)
            or not flips
            or any(
                isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in flips
            )
            or len(set(flips)) != len(flips)
        ):
            raise ValueError(f"{where}: `flips` must list distinct claim numbers >= 1")
        controls[name] = {"what": " ".join(what.split()), "flips": sorted(flips)}
    return controls


def check_control(chapter: str, control) -> str:
    """The check cell's test of the ``control`` parameter: ``"none"`` or a name declared
    in the chapter's ``controls.yaml``; anything else is one clear ``ValueError``."""
    names = [NO_CONTROL, *load_controls(chapter)]
    if not isinstance(control, str) or control not in names:
        raise ValueError(
            f"parameter `control` = {control!r} is invalid: must be one of "
            + ", ".join(repr(n) for n in names)
            + f" (see book/{chapter}/{CONTROLS_FILE})"
        )
    return control


class Claims:
    """Collects a chapter's claims; see the module docstring."""

    def __init__(self, chapter: str, paper: str, control: str = NO_CONTROL):
        """``chapter``: the chapter's slug; ``paper``: the paper's key in
        ``references.bib``; ``control``: the chapter's ``control`` parameter."""
        for name, value in (("chapter", chapter), ("paper", paper)):
            if not value or not isinstance(value, str):
                raise ValueError(
                    f"Claims needs `{name}` as a non-empty string, got {value!r}"
                )
        self.chapter = chapter
        self.paper = paper
        self.control = check_control(chapter, control)
        entry = load_controls(chapter).get(self.control, {})
        self.control_what: str = entry.get("what", "")
        self.flips: list[int] = entry.get("flips", [])
        self.rows: list[Claim] = []

    def add(
        self,
        claim: str,
        measured,
        paper: str,
        holds,
        *,
        fmt: str = "{:.3g}",
        expect: bool = True,
        value: float | None = None,
    ) -> Claim:
        """Register one claim: ``measured`` is a number (formatted with ``fmt``) or a
        string.

        ``expect=False`` records a paper claim that this chapter shows does not
        reproduce. The record keeps the number itself as ``value`` (a seed sweep
        averages it); when ``measured`` is a string (a bound such as ``"< 1e-04"``),
        pass the number as
        ``value``."""
        if any(row.claim == claim for row in self.rows):
            raise ValueError(f"claim {claim!r} is registered twice")
        if not hasattr(holds, "__bool__"):
            raise TypeError("`holds` must be a boolean")
        if not isinstance(expect, bool):
            raise TypeError("`expect` must be True or False")
        if (
            value is None
            and isinstance(measured, numbers.Real)
            and not isinstance(measured, bool)
        ):
            value = measured
        value = None if value is None else float(value)
        row = Claim(
            str(claim), _format(measured, fmt), str(paper), bool(holds), expect, value
        )
        self.rows.append(row)
        return row

    @property
    def all_hold(self) -> bool:
        return bool(self.rows) and all(row.as_expected for row in self.rows)

    @property
    def under_control(self) -> bool:
        return self.control != NO_CONTROL

    def control_outcome(self, number: int) -> tuple[str, str]:
        """(plain, markdown) outcome of claim ``number`` (1-based) under the control."""
        if number not in self.flips:
            return ("not asserted", "–")
        if self.rows[number - 1].as_expected:
            return ("NOT FLIPPED", "**✗ not flipped**")
        return ("flipped", "✓ flipped")

    def banner(self) -> str:
        flips = ", ".join(map(str, self.flips))
        return (
            f"Control `{self.control}`: {self.control_what}. It must flip claim"
            f"{'s' if len(self.flips) > 1 else ''} {flips}; the others are shown, "
            "not asserted."
        )

    def _table(self, markdown: bool) -> tuple[list[str], list[list[str]]]:
        """Header and rows; under a control, with the claims' numbers (which
        ``controls.yaml`` uses) and the outcome of each."""
        k = 1 if markdown else 0
        header = ["claim", "measured", "paper", "holds"]
        body = [
            [r.claim, r.measured, r.paper, verdict(r.holds, r.expected)[k]]
            for r in self.rows
        ]
        if self.under_control:
            header = ["#", *header, "under the control"]
            body = [
                [str(i), *line, self.control_outcome(i)[k]]
                for i, line in enumerate(body, start=1)
            ]
        return header, body

    def as_text(self) -> str:
        header, body = self._table(markdown=False)
        widths = [
            max(len(line[i]) for line in [header, *body]) for i in range(len(header))
        ]

        def fmt_line(line):
            return " | ".join(x.ljust(w) for x, w in zip(line, widths)).rstrip()

        rule = "-+-".join("-" * w for w in widths)
        lines = [fmt_line(header), rule, *map(fmt_line, body)]
        if self.under_control:
            lines = [self.banner(), "", *lines]
        return "\n".join(lines)

    def as_markdown(self) -> str:
        header, body = self._table(markdown=True)
        align = {"#": "---:", "holds": ":---:", "under the control": ":---:"}
        lines = [
            "| " + " | ".join(header) + " |",
            "|" + "|".join(align.get(h, "---") for h in header) + "|",
        ]
        for line in body:
            lines.append("| " + " | ".join(markdown_cell(x) for x in line) + " |")
        if self.under_control:
            lines = [f"**{markdown_cell(self.banner())}**", "", *lines]
        return "\n".join(lines)

    def record(self) -> dict:
        """The machine-readable record: claims, and the run's wall-clock seconds so
        far."""
        return {
            "chapter": self.chapter,
            "paper": self.paper,
            "runtime_s": round(run_seconds(), 1),
            "control": self.control,
            "flips": list(self.flips),
            "claims": [asdict(r) for r in self.rows],
        }

    def _check_control(self) -> None:
        missing = [k for k in self.flips if k > len(self.rows)]
        if missing:
            raise ClaimsFailed(
                f"control `{self.control}` is declared to flip claim(s) {missing}, "
                f"but the chapter has {len(self.rows)} claims"
            )
        unflipped = [
            f"{k} ({self.rows[k - 1].claim})"
            for k in self.flips
            if self.rows[k - 1].as_expected
        ]
        if unflipped:
            raise ClaimsFailed(
                f"control `{self.control}` did not flip claim(s) it must flip: "
                + "; ".join(unflipped)
            )

    def report(self) -> None:
        """Display the table with its machine-readable record, then fail if a claim does
        not hold."""
        if not self.rows:
            raise ClaimsFailed("no claims were registered")
        bundle = {"text/plain": self.as_text(), "text/markdown": self.as_markdown()}
        try:
            from IPython import get_ipython
            from IPython.display import display
        except ImportError:  # pragma: no cover - IPython ships with every supported env

            def get_ipython():
                return None

        if get_ipython() is not None:
            display(bundle, raw=True, metadata={METADATA_KEY: self.record()})
        else:
            print(self.as_text())
        if self.under_control:
            self._check_control()
            return
        failed = [r.claim for r in self.rows if r.expected and not r.holds]
        surprises = [r.claim for r in self.rows if not r.expected and r.holds]
        problems = []
        if failed:
            problems.append("claims that do not hold: " + "; ".join(failed))
        if surprises:
            problems.append(
                "claims recorded as not reproduced now hold: " + "; ".join(surprises)
            )
        if problems:
            raise ClaimsFailed("; ".join(problems))


def run_seconds() -> float:
    """Seconds since this process started (the kernel, for a notebook): the chapter's
    runtime."""
    try:
        import psutil

        return time.time() - psutil.Process().create_time()
    except Exception:  # pragma: no cover - psutil ships with ipykernel
        return time.perf_counter()


def read_claims(ipynb: str | Path) -> dict | None:
    """The claims record stored in an executed notebook, or ``None`` if it has none."""
    nb = json.loads(Path(ipynb).read_text(encoding="utf-8"))
    found = None
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {}).get(METADATA_KEY)
            if meta is not None:
                found = meta
    return found
