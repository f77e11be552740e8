"""The build tooling: toc reading, staleness detection, papermill overrides."""
import textwrap

import pytest

from lib import book_tools


def test_toc_chapters_reads_nested_parts(tmp_path):
    toc = tmp_path / "_toc.yml"
    toc.write_text(textwrap.dedent("""
        format: jb-book
        root: intro
        parts:
          - caption: A
            chapters:
              - file: book/first-chapter/first-chapter
          - caption: B
            chapters:
              - file: book/second/second.md
              - file: references
    """))
    assert book_tools.toc_chapters(toc) == ["first-chapter", "second"]


def test_parse_overrides_reads_yaml_values():
    assert book_tools.parse_overrides(["n=3", "gammas=[1, 2]", "device=cpu"]) == {
        "n": 3, "gammas": [1, 2], "device": "cpu"}
    with pytest.raises(SystemExit):
        book_tools.parse_overrides(["oops"])


MD = """---
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
# Title

```{code-cell} ipython3
x = 1
```
"""


def test_a_changed_md_is_detected_as_stale(tmp_path):
    import jupytext

    md = tmp_path / "c.md"
    md.write_text(MD)
    ipynb = tmp_path / "c.ipynb"
    jupytext.write(jupytext.read(md), ipynb)
    assert book_tools.code_matches(*book_tools.read_md_and_executed(md, ipynb))
    md.write_text(MD.replace("x = 1", "x = 2"))
    assert not book_tools.code_matches(*book_tools.read_md_and_executed(md, ipynb))


def test_status_table_is_generated_from_the_executed_notebooks(tmp_path, monkeypatch):
    from lib import sphinx_claims

    record = {"chapter": "c", "paper": "key2025", "claims": [
        {"claim": "a | b", "measured": "1.0", "paper": "1", "holds": True},
        {"claim": "second", "measured": "2", "paper": "3", "holds": False},
        {"claim": "third", "measured": "4", "paper": "5", "holds": False, "expected": False}]}
    monkeypatch.setattr(sphinx_claims, "status_rows", lambda root: [("c", record), ("d", None)])
    text = sphinx_claims.status_markdown(tmp_path)
    assert text.splitlines()[0] == "**2 chapters, 3 claims: 1 held, 1 did not reproduce (shown in the chapter).**"
    assert "| third | 4 | 5 | ✗ *not reproduced* |" in text
    assert "{doc}`/book/c/c` {cite:p}`key2025` | a \\| b | 1.0 | 1 | ✓ |" in text
    assert "|  | second | 2 | 3 | **✗ no** |" in text
    assert "{doc}`/book/d/d` | *no executed claims record*" in text
