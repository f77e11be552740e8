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
"""

from __future__ import annotations

import json
import numbers
import time
from dataclasses import asdict, dataclass
from pathlib import Path

METADATA_KEY = "executable_theory"


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


def markdown_cell(text: str) -> str:
    """Text that is safe inside one cell of a markdown pipe table."""
    return str(text).replace("|", "\\|").replace("\n", " ")


class Claims:
    """Collects a chapter's claims; see the module docstring."""

    def __init__(self, chapter: str, paper: str):
        """``chapter``: the chapter's slug; ``paper``: the paper's key in
        ``references.bib``."""
        for name, value in (("chapter", chapter), ("paper", paper)):
            if not value or not isinstance(value, str):
                raise ValueError(
                    f"Claims needs `{name}` as a non-empty string, got {value!r}"
                )
        self.chapter = chapter
        self.paper = paper
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

    def as_text(self) -> str:
        header = ("claim", "measured", "paper", "holds")
        body = [
            (r.claim, r.measured, r.paper, verdict(r.holds, r.expected)[0])
            for r in self.rows
        ]
        widths = [max(len(str(line[i])) for line in [header, *body]) for i in range(4)]

        def fmt_line(line):
            return " | ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip()

        rule = "-+-".join("-" * w for w in widths)
        return "\n".join([fmt_line(header), rule, *map(fmt_line, body)])

    def as_markdown(self) -> str:
        lines = ["| claim | measured | paper | holds |", "|---|---|---|:---:|"]
        for r in self.rows:
            mark = verdict(r.holds, r.expected)[1]
            cells = (markdown_cell(x) for x in (r.claim, r.measured, r.paper))
            lines.append("| " + " | ".join(cells) + f" | {mark} |")
        return "\n".join(lines)

    def record(self) -> dict:
        """The machine-readable record: claims, and the run's wall-clock seconds so
        far."""
        return {
            "chapter": self.chapter,
            "paper": self.paper,
            "runtime_s": round(run_seconds(), 1),
            "claims": [asdict(r) for r in self.rows],
        }

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
