"""The worked notebook executes top to bottom (its cells assert what they show)."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "levinson_conrey.ipynb"


@pytest.mark.slow
def test_worked_notebook_executes():
    jupyter_client = pytest.importorskip("jupyter_client")
    if "python3" not in jupyter_client.kernelspec.find_kernel_specs():
        pytest.skip("no python3 kernel spec (python -m ipykernel install --sys-prefix --name python3)")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "0.386839251075" in outputs
    rich = [o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    html = "".join(d.get("text/html", "") if isinstance(d.get("text/html", ""), str) else "".join(d["text/html"])
                   for d in rich)
    assert 'id="graph-data"' in html and 'data-id="kappa-bound"' in html  # the graph, inline
    assert any("image/png" in d for d in rich)  # the bound-history plot, inline
    assert "class maximum 0.408960000000 (numerical optimum)" in outputs
