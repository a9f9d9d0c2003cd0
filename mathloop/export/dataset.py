"""A labelled training dataset: Parquet rows of (prompt, completion, label, reward, ...), a card and a manifest.

One row per recorded candidate of a lineage, oldest first. `prompt` is the chat the model proposer
sends at the candidate's parent state (no negative examples: exactly `Environment(target,
StoreCommit(db, parent_commit)).prompt()`), so the dataset is directly a GRPO prompt set whose
`parent_commit` column the TRL reward function resolves. The directory is written under a temporary
name and renamed into place: it is either complete or absent.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

from mathloop import __version__
from mathloop.contract import Contract
from mathloop.domain import Label, Scores, canonical_json, fraction_str
from mathloop.env.prompting import messages_at
from mathloop.env.rewards import RewardTable, certified_gain
from mathloop.outputs import building_dir
from mathloop.propose.base import Head
from mathloop.propose.origin import LOCAL, REPLAY, credit
from mathloop.propose.schemas import ReplyReader
from mathloop.store.rechecks import resting_on_failed
from mathloop.store.repository import CandidateRecord, Repository
from mathloop.targets import build_target

DATA_FILE = "data/train-00000-of-00001.parquet"
COLUMNS = ("prompt", "completion", "label", "reward", "reasons", "bounds", "parent_commit", "target",
           "contract_sha256", "evidence_sha256", "proposer", "model", "candidate_id", "session_id", "commit",
           "payload", "created_at", "origin", "recheck_failed", "program")


class DatasetError(ValueError):
    """The dataset cannot be written (missing pyarrow, occupied directory); the message says why."""


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DatasetError("--dataset needs pyarrow: pip install 'mathloop[ml]'") from None
    return pa, pq


def schema():
    """Return the Arrow schema of a dataset row."""
    pa, _ = _pyarrow()
    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    return pa.schema([
        ("prompt", pa.list_(message)), ("completion", pa.string()), ("label", pa.string()),
        ("reward", pa.float64()), ("reasons", pa.list_(pa.string())), ("bounds", pa.string()),
        ("parent_commit", pa.string()), ("target", pa.string()), ("contract_sha256", pa.string()),
        ("evidence_sha256", pa.string()), ("proposer", pa.string()), ("model", pa.string()),
        ("candidate_id", pa.int64()), ("session_id", pa.int64()), ("commit", pa.string()),
        ("payload", pa.string()), ("created_at", pa.string()), ("origin", pa.string()),
        ("recheck_failed", pa.bool_()), ("program", pa.string()),
    ])


def _completion(c: CandidateRecord, origin: str) -> str:
    """Return the model's raw reply, or the canonical payload for proposals made without a model."""
    raw = c.meta.get("raw_response")
    if isinstance(raw, str) and origin not in (LOCAL, REPLAY):
        return raw
    try:
        return canonical_json(c.payload).decode("utf-8")
    except (TypeError, ValueError):
        return json.dumps(c.payload, sort_keys=True, default=str)


def _program_text(meta: Any) -> str | None:
    """Return the text of the program whose sandboxed output the candidate was (None: not a program)."""
    p = meta.get("program") if isinstance(meta, dict) else None
    return p["text"] if isinstance(p, dict) and isinstance(p.get("text"), str) else None


def rows(contract: Contract, repo: Repository, rewards: RewardTable | None = None) -> Iterator[dict[str, Any]]:
    """Yield one dataset row per candidate of the lineage, oldest first."""
    rewards = rewards or RewardTable()
    reader = ReplyReader(contract, build_target(contract))  # the prompt in the target's proposal form, as sent
    heads: dict[str, Head] = {c.hash: c.as_head() for c in repo.commits(contract.sha256)}
    prompts: dict[str | None, list[dict[str, str]]] = {}
    tainted = resting_on_failed(repo, contract.sha256)  # a commit that failed its re-check, and all resting on it
    for c in repo.candidates(contract.sha256):
        head = heads.get(c.head_commit) if c.head_commit else None
        if c.head_commit not in prompts:
            prompts[c.head_commit] = messages_at(contract, reader.schema, head, form=reader.form)
        label = Label(c.label)
        gain = 0
        if c.evidence is not None and head is not None and label in (Label.CORRECT, Label.PROGRESS):
            gain = certified_gain(contract, Scores(head.ranks, head.bounds), c.evidence)
        bounds = {k: fraction_str(v) for k, v in sorted(c.evidence.bounds.items())} if c.evidence else {}
        origin = credit(c.meta, c.proposer)
        model = c.meta.get("model") if origin not in (LOCAL, REPLAY) else None  # a replay line's claim is no model
        yield {
            "prompt": prompts[c.head_commit], "completion": _completion(c, origin), "label": label.value,
            "reward": rewards.value(label, gain), "reasons": list(c.reasons),
            "bounds": json.dumps(bounds, sort_keys=True), "parent_commit": c.head_commit, "target": contract.name,
            "contract_sha256": contract.sha256, "evidence_sha256": c.evidence_sha, "proposer": c.proposer,
            "model": model if isinstance(model, str) else None, "candidate_id": c.id, "session_id": c.session_id,
            "commit": c.commit_hash, "payload": canonical_json(c.payload).decode("utf-8"), "created_at": c.created_at,
            "origin": origin, "recheck_failed": c.commit_hash in tainted or c.head_commit in tainted,
            "program": _program_text(c.meta),
        }


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_dataset(contract: Contract, repo: Repository, out: Path, *, rewards: RewardTable | None = None,
                  progress: Callable[[], None] | None = None) -> dict[str, Any]:
    """Write DIR/{data/*.parquet, README.md, manifest.json} atomically; return the manifest.

    Raises:
        DatasetError: pyarrow is missing, or `out` exists and is not an empty directory.
        OutputError: `out` cannot be written (its folder is missing or read-only, the disk is full).
    """
    pa, pq = _pyarrow()
    rewards = rewards or RewardTable()
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise DatasetError(f"--dataset {out}: exists and is not an empty directory (nothing written)")
    with building_dir(out) as tmp:  # renamed into place when complete; removed on any failure
        collected: list[dict[str, Any]] = []
        for row in rows(contract, repo, rewards):
            collected.append(row)
            if progress:
                progress()
        table = pa.Table.from_pylist(collected, schema=schema())
        (tmp / "data").mkdir()
        pq.write_table(table, tmp / DATA_FILE)
        (tmp / "README.md").write_text(card(contract, collected, rewards, num_bytes=int(table.nbytes),
                                            download_size=(tmp / DATA_FILE).stat().st_size), encoding="utf-8")
        manifest = {
            "format": "mathloop-dataset/1", "mathloop_version": __version__, "target": contract.name,
            "contract_sha256": contract.sha256, "rows": len(collected),
            "labels": dict(sorted(Counter(r["label"] for r in collected).items())),
            "rewards": rewards.to_json(),
            "files": {name: _sha256(tmp / name) for name in sorted(("README.md", DATA_FILE))},
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


LICENSE = "apache-2.0"  # mathloop's own licence; model replies may carry their model's terms (said in the card)
SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                   (10_000_000, "1M<n<10M"))


def size_category(rows: int) -> str:
    """Return the Hugging Face `size_categories` bin of a dataset with `rows` rows.

    >>> size_category(0), size_category(999), size_category(1000), size_category(12_345_678)
    ('n<1K', 'n<1K', '1K<n<10K', 'n>10M')
    """
    return next((name for limit, name in SIZE_CATEGORIES if rows < limit), "n>10M")


def _feature_yaml(arrow_type, indent: str) -> list[str]:
    """Return the YAML lines of one `dataset_info` feature type (string, int64, float64, lists, structs)."""
    import pyarrow as pa

    if pa.types.is_list(arrow_type):
        inner = arrow_type.value_type
        if pa.types.is_struct(inner):
            lines = [f"{indent}list:"]
            for f in inner:
                lines += [f"{indent}- name: {f.name}"] + _feature_yaml(f.type, indent + "  ")
            return lines
        return [f"{indent}sequence: {inner}"]
    return [f"{indent}dtype: {'float64' if pa.types.is_floating(arrow_type) else arrow_type}"]


def dataset_info_yaml(rows: int, num_bytes: int | None, download_size: int | None) -> str:
    """Return the card's `dataset_info` block: every column's type and the one `train` split."""
    lines = ["dataset_info:", "  features:"]
    for f in schema():
        lines += [f"  - name: {f.name}"] + _feature_yaml(f.type, "    ")
    lines += ["  splits:", "  - name: train", f"    num_bytes: {num_bytes or 0}", f"    num_examples: {rows}"]
    if download_size is not None:
        lines.append(f"  download_size: {download_size}")
    lines.append(f"  dataset_size: {num_bytes or 0}")
    return "\n".join(lines)


def card(contract: Contract, collected: list[dict[str, Any]], rewards: RewardTable, *, num_bytes: int | None = None,
         download_size: int | None = None) -> str:
    """Return the dataset card (README.md): what the rows are, what every bound rests on, how to load it.

    The YAML header carries `license`, `pretty_name`, `size_categories`, `dataset_info` (features and the
    train split) and `configs`, as the Hugging Face Hub reads them.
    """
    labels = Counter(r["label"] for r in collected)
    proposers = Counter(r["proposer"] for r in collected)
    hyps = "\n".join(f"- **{h.title}** ({h.id}): {h.statement.strip()} — {h.citation}" for h in contract.hypotheses)
    label_rows = "\n".join(f"| {lab.value} | {labels.get(lab.value, 0)} | {rewards.value(lab):+g} |" for lab in Label)
    prop_rows = "\n".join(f"- `{p}`: {n}" for p, n in sorted(proposers.items()))
    pretty = json.dumps(f"mathloop: {contract.name} candidates labelled by deterministic checkers", ensure_ascii=False)
    return f"""---
license: {LICENSE}
pretty_name: {pretty}
size_categories:
- {size_category(len(collected))}
task_categories:
- text-generation
{dataset_info_yaml(len(collected), num_bytes, download_size)}
configs:
- config_name: default
  data_files:
  - split: train
    path: {DATA_FILE}
tags:
- mathloop
- verifier
- formal-math
---

# mathloop dataset: {contract.name}

{contract.title}

Every candidate ever proposed for this lineage, labelled by mathloop's deterministic checkers and its
commit rule (strict progress in the product order of ranks and certified bounds). {len(collected)} rows.

| | |
|---|---|
| target | `{contract.name}` (implementation `{contract.target}`) |
| contract sha256 | `{contract.sha256}` |
| exported by | mathloop {__version__} |

## Labels and rewards

| label | rows | reward |
|---|---|---|
{label_rows}

`reward` is the reward table below applied to the label{' (plus the scaled certified gain)' if rewards.gain_scale else ''}:
`{json.dumps(rewards.to_json(), sort_keys=True)}`. `malformed` rows failed extraction, the schema or a limit;
`error` rows are checker failures (timeouts, crashes), not properties of the candidate.
`recheck_failed` is true for a row whose commit (or the head it was judged against) failed the session's
re-check of a quarantined worker: do not train on it as verified.

## Hypotheses every certified bound rests on

A bound in `bounds` is proved by exact or rigorous checks *given* these published results; they are
never "verified" here:

{hyps or "- none"}

## Columns

- `prompt`: the chat messages (`role`, `content`) `mathloop run --proposer openai` sends at the parent
  state, without negative examples.
- `completion`: the model's raw reply, or the canonical payload JSON for proposals made without a model.
- `label`, `reward`, `reasons` (the checkers' and the gate's words), `bounds` (JSON: exact certified
  values of the candidate's state), `evidence_sha256` (sha256 of the evidence's canonical bytes).
- `parent_commit`, `commit` (the commit the candidate created, if it passed the gate), `target`,
  `contract_sha256`, `proposer`, `model`, `candidate_id`, `session_id`, `payload`, `created_at`.
- `origin`: who made the stored payload — `model` (the model's own reply), `model+local` (the model chose the
  structure and the local optimiser changed its numbers, `--proposer openai+local`), `local` (no model) or
  `replay` (replayed from a file, `--proposer replay:FILE`: credited to the file, never to a model, whatever its
  lines claim; `model` is then empty and `completion` is the payload).
- `program`: the Python program whose standard output (run in the sandbox) was the payload, or null.

Proposers: {len(proposers)}
{prop_rows or "- none"}

## Licence

The rows are released under the Apache License 2.0 (`{LICENSE}`), mathloop's own licence. A `completion`
written by a model may also be subject to that model's terms of use: check the `model` column.

## Loading

```python
from datasets import load_dataset

ds = load_dataset("parquet", data_files="{DATA_FILE}", split="train")  # from this directory
```

or `pyarrow.parquet.read_table("{DATA_FILE}")`. `manifest.json` holds the sha256 of every file.
To use it as a GRPO prompt set, score completions with
`mathloop.integrations.trl.reward_function("{contract.name}", db=STORE)`: it reads `parent_commit`.
"""
