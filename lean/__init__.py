"""mathloop's Lean sources (`lean/` in a checkout; `mathloop.lean_sources` in the wheel).

Data only: `prelude/Init.lean` (the prelude the bundled kernel compiles as `Init`), `Mathloop/*.lean`
(the support modules the certificates import: `Mathloop.Exact` for every target, one module per
target that names it in `lean_modules`), and a Lake project (`lakefile.toml`, `lean-toolchain`) for
users with a standard Lean toolchain. Read as package data (`importlib.resources`).
"""
