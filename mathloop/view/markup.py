"""HTML built with escaping by default: text from the store (model payloads, reasons) is never markup."""

from __future__ import annotations

import html
import json
from typing import Any


class Safe(str):
    """Text that is already HTML (built here from escaped parts); everything else gets escaped."""


def esc(value: Any) -> Safe:
    """Return `value` as HTML text: escaped unless it is already Safe.

    >>> esc('<script>alert("x")</script>')
    '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'
    """
    return value if isinstance(value, Safe) else Safe(html.escape("" if value is None else str(value), quote=True))


def fill(template: str, **values: Any) -> Safe:
    """Return the template with every `{name}` replaced by the escaped value (Safe values stay as they are)."""
    return Safe(template.format(**{k: esc(v) for k, v in values.items()}))


def join(parts: Any, sep: str = "") -> Safe:
    """Return the escaped parts joined by `sep` (itself markup)."""
    return Safe(sep.join(esc(p) for p in parts))


def script_json(value: Any) -> Safe:
    """Return JSON safe to embed in `<script type="application/json">` (no `<`, `>`, `&` can close the tag).

    >>> script_json({"a": "</script><b>"})
    '{"a": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    """
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return Safe(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
                .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
