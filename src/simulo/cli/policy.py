"""``simulo policy list | inspect ID | get ID:KIND``: the policies trained under the local runs folder.

The runs folder is found as ``simulo run`` finds it: ``--runs-dir DIR``, else ``$SIMULO_RUNS_DIR``, else
``./runs``. Every training run registers a policy there (:mod:`simulo.platform.policy_registry`).

* ``list [--json]``: every policy, newest first: ID, status, checkpoints, best reward, when it ended,
  and the run folder. ``--json`` prints the ``policy.json`` records as a JSON array.
* ``inspect ID [--json]``: one policy: the run that trained it, what it started from, its tags, its
  checkpoints (iteration and reward), and the eval runs that evaluated it with their results.
* ``get ID:KIND [-o PATH]``: copy the checkpoint file (``best.pt`` or ``latest.pt``) to ``PATH``
  (default ``./<ID>-<KIND>.pt``), as the SDK's ``simulo policy get`` downloads it.

Exit status: 0 done, 1 no such policy or checkpoint, 2 usage error (one line).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from simulo.errors import SimuloValueError
from simulo.platform import policy_registry
from simulo.platform.policies import CHECKPOINT_FOLDER, split_reference
from simulo.platform.runner import runs_root

EXIT_OK, EXIT_MISSING, EXIT_USAGE = 0, 1, 2

USAGE = """\
usage: simulo policy list [--json] [--runs-dir DIR]
       simulo policy inspect POLICY_ID [--json] [--runs-dir DIR]
       simulo policy get POLICY_ID:KIND [-o PATH] [--runs-dir DIR]

  list      every policy trained under the runs folder, newest first
  inspect   one policy: its training run, checkpoints and evaluations
  get       copy a checkpoint (KIND is best or latest) to PATH (default ./POLICY_ID-KIND.pt)

  --runs-dir DIR  the runs folder (default: $SIMULO_RUNS_DIR, else ./runs)

Exit status: 0 done, 1 no such policy or checkpoint, 2 usage error."""


class _Usage(Exception):
    """A usage error: one line, exit 2."""


def _options(argv: Sequence[str], valued: tuple[str, ...], switches: tuple[str, ...]
             ) -> tuple[dict[str, str], set[str], list[str]]:
    values: dict[str, str] = {}
    flags: set[str] = set()
    rest: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        key, eq, inline = token.partition("=")
        if key in valued:
            if eq:
                values[key] = inline
            elif i + 1 < len(argv):
                i += 1
                values[key] = argv[i]
            else:
                raise _Usage(f"{key} needs a value")
        elif token in switches:
            flags.add(token)
        elif token.startswith("-"):
            raise _Usage(f"unknown option {token!r}")
        else:
            rest.append(token)
        i += 1
    return values, flags, rest


def _checked_id(text: str) -> str:
    """The normalized policy ID; a malformed one (or a job ID) is a usage error."""
    try:
        return policy_registry.check_policy_id(text)
    except SimuloValueError as exc:
        raise _Usage(str(exc)) from None


def status_of(entry: policy_registry.PolicyEntry) -> str:
    """The policy's status; a run that stopped without updating ``policy.json`` answers with ``run.json``'s."""
    status = str(entry.record.get("status") or "unknown")
    if status == "running":
        try:
            run = json.loads((entry.run_dir / "run.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return status
        if isinstance(run, dict) and isinstance(run.get("status"), str):
            return str(run["status"])
    return status


def _record(entry: policy_registry.PolicyEntry) -> dict[str, Any]:
    return {**entry.record, "status": status_of(entry), "run_path": str(entry.run_dir)}


def _reward(value: Any) -> str:
    return f"{value:.1f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "-"


def _checkpoints(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    items = record.get("checkpoints")
    return [c for c in items if isinstance(c, Mapping)] if isinstance(items, list) else []


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    for row in (headers, *rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def _list(root: Path, as_json: bool) -> int:
    entries = policy_registry.all_policies(root)
    if as_json:
        print(json.dumps([_record(e) for e in entries], indent=2))
        return EXIT_OK
    if not entries:
        where = "" if root.is_dir() else " (no such folder)"
        print(f"No policies found under {root}{where}. Training runs write them under the runs folder of the "
              "folder they ran in: name it with --runs-dir DIR (or $SIMULO_RUNS_DIR).")
        return EXIT_OK
    rows = []
    for entry in entries:
        checkpoints = _checkpoints(entry.record)
        kinds = ", ".join(str(c.get("kind")) for c in checkpoints) or "-"
        best = next((c.get("reward") for c in checkpoints if c.get("kind") == "best"), None)
        when = str(entry.record.get("ended_at") or entry.record.get("created_at") or "-")
        rows.append((entry.policy_id, status_of(entry), kinds, _reward(best), when,
                     str(entry.record.get("run_dir") or entry.run_dir)))
    _table(("POLICY", "STATUS", "CHECKPOINTS", "BEST REWARD", "UPDATED", "RUN"), rows)
    return EXIT_OK


def evaluations(root: Path, policy_id: str) -> list[dict[str, Any]]:
    """The eval runs under ``root`` whose parameters name ``policy_id`` (``--policy ID:KIND``), newest first."""
    found: list[tuple[int, dict[str, Any]]] = []
    for params_file in root.glob("*/*/*/params.json"):
        try:
            params = json.loads(params_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(params, dict):
            continue
        refs = [v for v in params.values() if isinstance(v, str) and split_reference(
            policy_registry.normalize(v))[0] == policy_id]
        if not refs or (params_file.parent / policy_registry.POLICY_FILE).exists():
            continue
        run_dir = params_file.parent
        summary = "-"
        try:
            result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
            if isinstance(result, dict) and isinstance(result.get("summary"), str):
                summary = result["summary"]
        except (OSError, ValueError):
            summary = "no result (the run did not complete)"
        found.append((params_file.stat().st_mtime_ns,
                      {"run": run_dir.relative_to(root).as_posix(), "checkpoint": refs[0], "summary": summary}))
    return [item for _, item in sorted(found, key=lambda pair: pair[0], reverse=True)]


def _inspect(root: Path, policy_id: str, as_json: bool) -> int:
    entry = policy_registry.find_policy(root, policy_id)
    evals = evaluations(root, entry.policy_id)
    if as_json:
        print(json.dumps({**_record(entry), "evaluations": evals}, indent=2))
        return EXIT_OK
    record = entry.record
    print(f"{entry.policy_id}   {record.get('app', '-')}/{record.get('job', '-')}")
    print(f"Trained by       {record.get('run_dir') or entry.run_dir} ({status_of(entry)})")
    print(f"Started from     {record.get('started_from') or 'scratch'}")
    print(f"Task             {record.get('task_name') or 'unknown'} ({record.get('task_digest') or 'unknown'})")
    tags = record.get("tags")
    print(f"Tags             {', '.join(map(str, tags)) if isinstance(tags, list) and tags else 'none'}")
    print(f"Run folder       {entry.run_dir}")
    print("\nCheckpoints")
    checkpoints = _checkpoints(record)
    if not checkpoints:
        print("  no checkpoint saved")
    for checkpoint in checkpoints:
        print(f"  {checkpoint.get('kind')!s:<8} iteration {checkpoint.get('iteration', '-')}   "
              f"reward {_reward(checkpoint.get('reward'))}")
    if not evals:
        print("\nEvaluations      none yet")
        return EXIT_OK
    print("\nEvaluations")
    for item in evals[:10]:
        print(f"  {item['run']}   {item['checkpoint']}   {item['summary']}")
    if len(evals) > 10:
        print(f"  {len(evals) - 10} more not shown")
    return EXIT_OK


def _get(root: Path, reference: str, output: str | None) -> int:
    target, kind = split_reference(policy_registry.normalize(reference))
    if kind is None:
        raise _Usage(f"name a checkpoint: POLICY_ID:best or POLICY_ID:latest, got {reference!r}")
    entry = policy_registry.find_policy(root, target)
    source = entry.run_dir / CHECKPOINT_FOLDER / f"{kind}.pt"
    if not source.is_file():
        raise SimuloValueError(f"checkpoint {entry.policy_id}:{kind} is unavailable: {str(source)!r} does not exist")
    destination = Path(output) if output else Path.cwd() / f"{entry.policy_id}-{kind}.pt"
    if output is None and destination.exists():
        raise SimuloValueError(f"{str(destination)!r} exists; name another file with -o PATH (which replaces it)")
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, destination)
    print(f"Saved {destination}")
    return EXIT_OK


def main(argv: list[str]) -> int:
    """Run ``simulo policy``; returns the exit status."""
    if not argv:
        print("simulo policy: error: no subcommand given; expected list, inspect or get (see 'simulo policy --help')",
              file=sys.stderr)
        return EXIT_USAGE
    if argv[0] in ("-h", "--help"):
        print(USAGE)
        return EXIT_OK
    command, rest = argv[0], argv[1:]
    try:
        values, switches, positional = _options(rest, ("--runs-dir", "-o", "--output"), ("--json",))
        root = runs_root(values.get("--runs-dir"))
        as_json = "--json" in switches
        if command == "list":
            if positional:
                raise _Usage(f"list takes no arguments, got {positional[0]!r}")
            return _list(root, as_json)
        if command in ("inspect", "get"):
            if len(positional) != 1:
                what = "POLICY_ID" if command == "inspect" else "POLICY_ID:KIND"
                raise _Usage(f"{command} takes one {what}, got {len(positional)}")
            if command == "inspect":
                if split_reference(positional[0])[1] is not None:
                    raise _Usage(f"inspect takes a policy ID without ':best' or ':latest', got {positional[0]!r}")
                return _inspect(root, _checked_id(positional[0]), as_json)
            _checked_id(split_reference(policy_registry.normalize(positional[0]))[0])
            return _get(root, positional[0], values.get("-o", values.get("--output")))
        raise _Usage(f"unknown subcommand {command!r}; expected list, inspect or get")
    except _Usage as exc:
        print(f"simulo policy: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SimuloValueError as exc:
        print(f"simulo policy: error: {exc}", file=sys.stderr)
        return EXIT_MISSING

