"""The ``simulo`` command: ``simulo <command> [args]``.

Each command lives in its own module under :mod:`simulo.cli` with a ``main(argv) -> int`` function and
is imported only when it runs, so ``simulo --help`` stays instant. A command in :data:`FROZEN_EXIT` run as
the process's command freezes the heap before the process ends
(:func:`~simulo.platform.process_settings.freeze_heap`), which spares the interpreter's shutdown collections.
"""

from __future__ import annotations

import importlib
import sys

from simulo.platform.process_settings import freeze_heap

# command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "check-urdf": ("simulo.cli.check_urdf", "check a URDF file and list every problem in it"),
    "asset": ("simulo.cli.asset", "list the local robot catalog, or check a registry reference's model"),
    "run": ("simulo.cli.run", "run a job of an app file locally"),
    "policy": ("simulo.cli.policy", "list and inspect the policies trained under the runs folder, or copy one"),
    "export": ("simulo.cli.export", "export a policy checkpoint as ONNX or TorchScript"),
    "logs": ("simulo.cli.logs", "print a run's log; --follow until it ends (a simulo run --detach run)"),
    "result": ("simulo.cli.result", "print what a completed run returned"),
    "outputs": ("simulo.cli.outputs", "list the files a run kept with simulo.save_output"),
    "recordings": ("simulo.cli.recordings", "list the recordings (MCAP, MP4) a run wrote, or export one for Foxglove"),
    "create": ("simulo.cli.create", "write a starter app (task, preview, train, eval, play) into a new folder"),
    "pick-place": ("simulo.cli.pick_place", "the scripted pick-and-place app (flags: every seed experiment)"),
}

# Commands that have flushed or closed everything they write when they return (the interpreter flushes stdout
# and stderr itself): their process may end without the interpreter's closing garbage collections.
FROZEN_EXIT = frozenset({"pick-place"})


def _usage() -> str:
    width = max(len(c) for c in COMMANDS)
    rows = "\n".join(f"  {name.ljust(width)}  {help_}" for name, (_, help_) in COMMANDS.items())
    return (f"usage: simulo <command> [args]\n\ncommands:\n{rows}\n\n"
            "Run 'simulo <command> --help' for a command's options.")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``simulo`` console script; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(_usage())
        return 0
    if args[0] == "--version":
        from simulo import __version__

        print(f"simulo-local {__version__}")
        return 0
    command = COMMANDS.get(args[0])
    if command is None:
        print(f"simulo: unknown command {args[0]!r}; expected one of: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    module = importlib.import_module(command[0])
    status = int(module.main(args[1:]) or 0)
    if argv is None and args[0] in FROZEN_EXIT:  # run as the process's command, which ends next
        freeze_heap()
    return status


if __name__ == "__main__":
    raise SystemExit(main())
