"""Sphinx extension: a glued string reads as text, not as its Python repr.

``glue("name", f"{x:.2f}")`` stores the string's ``text/plain`` repr, ``'0.16'``, and
myst-nb's ``{glue:}`` role pastes that repr, quotes and all (which smartquotes then curls).
This transform runs before smartquotes and strips the quotes of every pasted inline output
whose text is a quoted string, which is what the page means by gluing a string.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.transforms import SphinxTransform

QUOTED = re.compile(r"^(['\"]).*\1$", re.DOTALL)


def unquoted(text: str) -> str:
    """``'0.16'`` -> ``0.16``; anything that is not a quoted string is returned as is."""
    return text[1:-1] if QUOTED.match(text) else text


class StripGluedStringQuotes(SphinxTransform):
    default_priority = 700  # before SmartQuotes (750), which would curl the quotes

    def apply(self, **kwargs):
        for node in self.document.findall(nodes.inline):
            if {"output", "text_plain"} <= set(node["classes"]):
                text = node.astext()
                stripped = unquoted(text)
                if stripped != text:
                    node.clear()
                    node += nodes.Text(stripped)


def setup(app):
    app.add_transform(StripGluedStringQuotes)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
