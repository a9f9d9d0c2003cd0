"""The HTML pages' one Jinja2 environment: templates shipped in view/templates/, every value autoescaped.

Text from the store, a model or a user is never markup: it reaches a template as a plain value and Jinja2
escapes it. Only our own shipped files (stylesheets, the graph's script) and JSON made safe for a script
element are marked safe, here and nowhere else.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

ENV = Environment(loader=PackageLoader("mathloop.view", "templates"),
                  autoescape=select_autoescape(enabled_extensions=("html", "svg"), default_for_string=True, default=True),
                  undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def render(template: str, **values: Any) -> str:
    """Return the named template rendered with `values` (each escaped unless it is Markup made in view/)."""
    return ENV.get_template(template).render(**values)


def macro(template: str, name: str, *args: Any, **kwargs: Any) -> Markup:
    """Return one macro of a template called with the arguments (escaped like a template's values)."""
    return Markup(getattr(ENV.get_template(template).module, name)(*args, **kwargs))


@cache
def shipped(name: str) -> Markup:
    """Return one of our own shipped files (a stylesheet, the graph's script) as markup, byte for byte."""
    return Markup(resources.files("mathloop.view").joinpath("templates", name).read_text(encoding="utf-8"))


ENV.globals["shipped"] = shipped


def script_json(value: Any) -> Markup:
    """Return JSON safe to embed in `<script type="application/json">` (no `<`, `>`, `&` can close the tag).

    >>> str(script_json({"a": "</script><b>"}))
    '{"a": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    """
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
                  .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
