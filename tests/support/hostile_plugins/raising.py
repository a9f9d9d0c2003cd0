"""A plug-in whose module raises something other than ImportError at import (with rich markup in the text)."""

raise RuntimeError("plug-in exploded at import [/x] [bold]")
