"""``simulo export POLICY[:best|:latest] [--format onnx|torchscript] [-o PATH] [--json] [--no-download]``.

ONNX (the default, as the SDK's) writes the SDK's ONNX policy bundle: the folder ``<app>-policy-<kind>``
(``balance-policy-best``) in ``-o DIR`` (default: the current folder), holding ``model.onnx``, ``manifest.json``,
the observation and action schemas, ``normalization.json``, golden test vectors, ``verify.py`` (onnxruntime and
numpy only), ``requirements.txt``, ``README.md`` and the source checkpoint ``model.pt``. The export is checked
first: 100 golden inputs through the policy and through the ONNX graph must agree within the manifest's tolerance,
or nothing is written (see :mod:`simulo.platform.export_bundle`). ``--no-download`` (the SDK's flag) converts and
checks without writing the bundle.

``-o FILE.onnx`` writes the bare ONNX model instead, and ``--format torchscript`` a TorchScript file
(``./<policy_id>-<kind>.ts`` by default, or ``-o`` a file or folder): the policy's deterministic actor for
``onnxruntime`` / ``torch.jit.load``, input ``obs`` ``(batch, observation_dim)`` float32 (raw policy inputs: the
state standardisation folded in), output ``actions`` ``(batch, action_dim)`` clipped as training clipped them
(see :func:`simulo.rl.training.export.export_checkpoint`).

``POLICY`` is a policy ID (``policy_x:best``, ``policy_x:latest``; ``policy_x`` means ``:best``),
``latest[:best|:latest]`` (the newest policy under the runs folder), a run folder or a ``.pt`` checkpoint.
The runs folder is ``--runs-dir DIR``, else ``$SIMULO_RUNS_DIR``, else ``./runs``.

Exit status: 0 written, 1 the policy or checkpoint cannot be found or exported (a missing dependency and a
failed equivalence check included), 2 usage error (one line).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from simulo.errors import MissingDependencyError, SimuloValueError
from simulo.platform import policy_registry
from simulo.platform.policies import LATEST_RUN, PolicyCheckpoint, split_reference
from simulo.platform.runner import runs_root

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
FORMATS = {"onnx": ".onnx", "torchscript": ".ts"}

USAGE = """\
usage: simulo export POLICY[:best|:latest] [--format onnx|torchscript] [-o PATH] [--json] [--no-download]
                     [--runs-dir DIR]

Export a policy checkpoint to run without simulo-local: ONNX as the SDK's bundle, or a TorchScript file.

  POLICY          a policy ID (policy_x:best, policy_x:latest), latest[:KIND], a run folder or a .pt file
  --format FMT    onnx (default: the SDK's ONNX bundle folder APP-policy-KIND) or torchscript (torch.jit.load)
  -o PATH         onnx: the folder the bundle goes in (default .), or FILE.onnx for the bare model;
                  torchscript: the file, or a folder for it (default ./POLICY_ID-KIND.ts)
  --json          print what was written as JSON
  --no-download   onnx: convert and check the export without writing the bundle
  --runs-dir DIR  the runs folder (default: $SIMULO_RUNS_DIR, else ./runs)

Exit status: 0 written, 1 not found or not exportable, 2 usage error."""


class _Usage(Exception):
    """A usage error: one line, exit 2."""


@dataclass(frozen=True)
class _Args:
    reference: str
    fmt: str
    output: str | None
    as_json: bool
    runs_dir: str | None
    no_download: bool

    @property
    def bundle(self) -> bool:
        """Whether the export is the SDK's ONNX bundle (ONNX without ``-o FILE.onnx``)."""
        return self.fmt == "onnx" and not (self.output or "").lower().endswith(".onnx")


def _parse(argv: list[str]) -> _Args:
    reference: str | None = None
    fmt, output, runs_dir, as_json, no_download = "onnx", None, None, False, False
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
        elif token == "--no-download":
            no_download = True
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
    args = _Args(reference, fmt, output, as_json, runs_dir, no_download)
    if no_download and not args.bundle:
        raise _Usage("--no-download goes with the ONNX bundle (not --format torchscript or -o FILE.onnx)")
    return args


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
        args = _parse(argv)
        if policy_registry.looks_like_id(args.reference):
            policy_registry.check_policy_id(split_reference(policy_registry.normalize(args.reference))[0])
    except (_Usage, SimuloValueError) as exc:
        print(f"simulo export: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        checkpoint = resolve(args.reference, runs_root(args.runs_dir))
        if args.bundle:
            return _bundle(checkpoint, args)
        destination = _destination(checkpoint, args.fmt, args.output)
        from simulo.rl.training.export import describe_inputs, export_checkpoint  # noqa: PLC0415 - torch-heavy

        written = Path(export_checkpoint(checkpoint.path, destination, args.fmt))
        inputs = describe_inputs(checkpoint.path)
    except (SimuloValueError, MissingDependencyError) as exc:
        print(f"simulo export: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.as_json:
        print(json.dumps({"checkpoint": checkpoint.checkpoint, "policy_id": checkpoint.policy_id,
                          "kind": checkpoint.kind, "iteration": checkpoint.iteration, "format": args.fmt,
                          "source": str(checkpoint.path), "output": str(written.resolve()),
                          "observation_dim": checkpoint.obs_dim, "action_dim": checkpoint.act_dim}, indent=2))
        return EXIT_OK
    print(f"Exported {checkpoint.checkpoint} (iteration {checkpoint.iteration}) as {args.fmt}: {written}")
    print(f"  {inputs} -> output 'actions' (batch, {checkpoint.act_dim})")
    return EXIT_OK


def _bundle(checkpoint: PolicyCheckpoint, args: _Args) -> int:
    """Write (or with ``--no-download`` only check) the SDK's ONNX bundle; print as the SDK's ``simulo export``."""
    from simulo.platform.export_bundle import export_bundle  # noqa: PLC0415 - torch-heavy

    out_dir = Path(args.output) if args.output else Path.cwd()
    bundle = export_bundle(checkpoint, out_dir, write=not args.no_download)
    validation = bundle.validation
    if args.as_json:
        record = {"format": "onnx", "checkpoint": checkpoint.checkpoint, "policy_id": checkpoint.policy_id,
                  "kind": checkpoint.kind, "iteration": checkpoint.iteration, "source": str(checkpoint.path),
                  "status": "completed", "validation": validation}
        folder = None if bundle.folder is None else str(bundle.folder.resolve())
        print(json.dumps({"export": record, "verdict": validation["verdict"], "bundle_dir": folder}, indent=2))
        return EXIT_OK
    print(f"Exported {checkpoint.checkpoint} (iteration {checkpoint.iteration}) as an ONNX bundle "
          f"({bundle.manifest['schema_version']})")
    print(f"Export validation: PASSED ({validation['vectors_passed']} of {validation['vectors_compared']} golden "
          f"vectors, maximum action difference {validation['max_absolute_difference']:.2e}, tolerance "
          f"{validation['absolute_tolerance']:.0e})")
    if bundle.folder is None:
        print("Export completed. Nothing written (--no-download).")
        return EXIT_OK
    print("ONNX bundle written:")
    print(f"  {bundle.folder}")
    print("Verify it on this machine:")
    print(f"  cd {bundle.folder}")
    print("  python -m pip install -r requirements.txt")
    print("  python verify.py")
    return EXIT_OK
