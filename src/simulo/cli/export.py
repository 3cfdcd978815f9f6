"""``simulo export POLICY[:best|:latest] [--format onnx|torchscript] [-o PATH] [--json]``: a portable policy file.

Writes the policy's deterministic actor as a file that runs without simulo-local (and without skrl):
ONNX (the default, as the SDK's) for ``onnxruntime.InferenceSession(path)``, or TorchScript for
``torch.jit.load(path)``. Input ``obs`` ``(batch, observation_dim)`` float32 (the raw policy inputs: the
state standardisation is folded in), output ``actions`` ``(batch, action_dim)``, the deterministic
(mean) action clipped as training clipped it. See :func:`simulo.rl.training.export.export_checkpoint`.

``POLICY`` is a policy ID (``policy_x:best``, ``policy_x:latest``; ``policy_x`` means ``:best``),
``latest[:best|:latest]`` (the newest policy under the runs folder), a run folder or a ``.pt`` checkpoint.
The runs folder is ``--runs-dir DIR``, else ``$SIMULO_RUNS_DIR``, else ``./runs``.

``-o PATH``: the file to write, or a folder to write it into; the default is
``./<policy_id>-<kind>.onnx`` (``.ts`` for TorchScript).

Exit status: 0 written, 1 the policy or checkpoint cannot be found or exported (a missing dependency
included), 2 usage error (one line).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from simulo.errors import MissingDependencyError, SimuloValueError
from simulo.platform import policy_registry
from simulo.platform.policies import LATEST_RUN, PolicyCheckpoint, split_reference
from simulo.platform.runner import runs_root

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
FORMATS = {"onnx": ".onnx", "torchscript": ".ts"}

USAGE = """\
usage: simulo export POLICY[:best|:latest] [--format onnx|torchscript] [-o PATH] [--json] [--runs-dir DIR]

Export a policy checkpoint as a file that runs without simulo-local.

  POLICY          a policy ID (policy_x:best, policy_x:latest), latest[:KIND], a run folder or a .pt file
  --format FMT    onnx (default; onnxruntime) or torchscript (torch.jit.load)
  -o PATH         the file to write, or a folder for it (default ./POLICY_ID-KIND.onnx or .ts)
  --json          print what was written as JSON
  --runs-dir DIR  the runs folder (default: $SIMULO_RUNS_DIR, else ./runs)

Exit status: 0 written, 1 not found or not exportable, 2 usage error."""


class _Usage(Exception):
    """A usage error: one line, exit 2."""


def _parse(argv: list[str]) -> tuple[str, str, str | None, bool, str | None]:
    reference: str | None = None
    fmt, output, runs_dir, as_json = "onnx", None, None, False
    i = 0
    while i < len(argv):
        token = argv[i]
        key, eq, inline = token.partition("=")
        if key in ("--format", "-o", "--output", "--runs-dir"):
            if eq:
                value = inline
            elif i + 1 < len(argv):
                i += 1
                value = argv[i]
            else:
                raise _Usage(f"{key} needs a value")
            if key == "--format":
                fmt = value
            elif key == "--runs-dir":
                runs_dir = value
            else:
                output = value
        elif token == "--json":
            as_json = True
        elif token.startswith("-"):
            raise _Usage(f"unknown option {token!r}")
        elif reference is None:
            reference = token
        else:
            raise _Usage(f"export takes one POLICY, got a second one: {token!r}")
        i += 1
    if reference is None:
        raise _Usage("name the policy to export, such as policy_quiet-cedar-7k3m4q:best")
    if fmt not in FORMATS:
        raise _Usage(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    return reference, fmt, output, as_json, runs_dir


def resolve(reference: str, root: Path) -> PolicyCheckpoint:
    """The checkpoint ``reference`` names; ``latest`` is the newest policy registered under ``root``.

    Raises:
        SimuloValueError: Nothing matches (the message lists what exists), or the file is not a checkpoint.
    """
    target, kind = split_reference(reference.strip())
    if target == LATEST_RUN and not Path(reference).exists():
        entries = policy_registry.all_policies(root)
        if not entries:
            raise SimuloValueError(f"policy {reference!r}: no policy under the runs folder {str(root)!r}; "
                                   "train first (simulo run train.py)")
        target = entries[0].policy_id
        reference = target if kind is None else f"{target}:{kind}"
    return PolicyCheckpoint.resolve(reference, root=root)


def _destination(checkpoint: PolicyCheckpoint, fmt: str, output: str | None) -> Path:
    name = checkpoint.policy_id if checkpoint.kind == "file" else f"{checkpoint.policy_id}-{checkpoint.kind}"
    default = Path(name.replace("/", "-")).name + FORMATS[fmt]
    if output is None:
        return Path.cwd() / default
    path = Path(output)
    return path / default if path.is_dir() or output.endswith(("/", "\\")) else path


def main(argv: list[str]) -> int:
    """Run ``simulo export``; returns the exit status."""
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return EXIT_OK
    try:
        reference, fmt, output, as_json, runs_dir = _parse(argv)
        if policy_registry.looks_like_id(reference):
            policy_registry.check_policy_id(split_reference(policy_registry.normalize(reference))[0])
    except (_Usage, SimuloValueError) as exc:
        print(f"simulo export: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        checkpoint = resolve(reference, runs_root(runs_dir))
        destination = _destination(checkpoint, fmt, output)
        from simulo.rl.training.export import describe_inputs, export_checkpoint  # noqa: PLC0415 - torch-heavy

        written = Path(export_checkpoint(checkpoint.path, destination, fmt))
        inputs = describe_inputs(checkpoint.path)
    except (SimuloValueError, MissingDependencyError) as exc:
        print(f"simulo export: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if as_json:
        print(json.dumps({"checkpoint": checkpoint.checkpoint, "policy_id": checkpoint.policy_id,
                          "kind": checkpoint.kind, "iteration": checkpoint.iteration, "format": fmt,
                          "source": str(checkpoint.path), "output": str(written.resolve()),
                          "observation_dim": checkpoint.obs_dim, "action_dim": checkpoint.act_dim}, indent=2))
        return EXIT_OK
    print(f"Exported {checkpoint.checkpoint} (iteration {checkpoint.iteration}) as {fmt}: {written}")
    print(f"  {inputs} -> output 'actions' (batch, {checkpoint.act_dim})")
    return EXIT_OK
