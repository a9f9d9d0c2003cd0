"""The shipped targets' contracts (`obligations/*.toml` in a checkout; `mathloop.obligations` in the wheel).

Data only: each file is read as package data (`importlib.resources`), its `[target] implementation`
says which target checks it, and that target names the file in its `contract_files`. The bytes of a
file are part of every lineage stored with it: edit a contract only as a new lineage (DESIGN).
"""
