"""`mathloop plot TARGET -o FILE.png|svg`: certified bounds by commit and wall time, labels per session."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


from mathloop.cli.common import DB_HELP, console, fail, open_contract, open_repo, require_extra
from mathloop.outputs import OutputError, check_folder

FORMATS = ("png", "svg")


def plot(
    target: str = typer.Argument(..., help="Target name or contract path."),
    output: Path = typer.Option(..., "--output", "-o", help="The picture to write (.png or .svg)."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Plot the certified bounds against commit and wall time, with the class maximum, goal and published values
    as lines, and the label counts of each session as bars."""
    require_extra("plot", "`mathloop plot`", "matplotlib")
    contract = open_contract(target)
    fmt = output.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        fail(f"--output {output}: unknown picture format {fmt!r} (use .png or .svg)")
    try:
        check_folder(output)
    except OutputError as e:
        fail(f"--output {e}")
    repo = open_repo(db, readonly=True)
    try:
        from mathloop.view.history import history
        from mathloop.view.plots import write_history

        write_history(history(contract, repo), output, fmt)
    except OutputError as e:
        fail(f"--output {e}")
    except RuntimeError as e:
        fail(str(e), 1)
    console.print(f"wrote {output}", highlight=False)
