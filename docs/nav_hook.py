"""MkDocs hook: drop navigation entries whose page does not exist (yet), so `mkdocs build --strict` passes.

Pages written by other parts of the project (a target's own page, the Lean and PRZZ pages) are listed in
mkdocs.yml's nav once; until the file exists the entry is left out instead of failing the build.
"""

from __future__ import annotations

from pathlib import Path


def _keep(item, docs: Path):
    if isinstance(item, str):
        return item if "://" in item or (docs / item).is_file() else None
    if isinstance(item, dict):
        out = {}
        for title, value in item.items():
            if isinstance(value, list):
                kept = [k for k in (_keep(v, docs) for v in value) if k is not None]
                if kept:
                    out[title] = kept
            elif (kept := _keep(value, docs)) is not None:
                out[title] = kept
        return out or None
    return item


def on_config(config, **kwargs):
    docs = Path(config["docs_dir"])
    if config.get("nav"):
        config["nav"] = [k for k in (_keep(i, docs) for i in config["nav"]) if k is not None]
    return config
