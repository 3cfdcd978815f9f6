"""Regenerate ``src/simulo/rl/recordings/vizstream.binpb`` from the ``.proto`` sources beside it.

The sources under ``src/simulo/rl/recordings/proto/`` state the VizStream schemas (package
``simulo.vizstream.v1``) and the Foxglove messages they use, field for field as simulo-viz 0.1.0
publishes them. This compiles them with protoc (from ``grpcio-tools``, which also brings the
``google/protobuf/*.proto`` well-known types) into one ``FileDescriptorSet`` holding every file and its
imports, dependencies first: the schema bytes recordings register for their channels.

Usage (grpcio-tools is a build and test tool, in the ``test`` extra, never a dependency of simulo)::

    pip install -e ".[test]"
    python scripts/build_vizstream.py [--check]

``--check`` compares instead of writing and exits 1 when the committed file is stale.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from importlib import resources
from pathlib import Path

RECORDINGS = Path(__file__).resolve().parents[1] / "src" / "simulo" / "rl" / "recordings"
PROTO_ROOT = RECORDINGS / "proto"
OUTPUT = RECORDINGS / "vizstream.binpb"


def proto_files() -> list[str]:
    """The sources, relative to :data:`PROTO_ROOT`, sorted (the order fixes the set's file order)."""
    return sorted(path.relative_to(PROTO_ROOT).as_posix() for path in PROTO_ROOT.rglob("*.proto"))


def compile_set() -> bytes:
    """Compile every source into one serialized ``FileDescriptorSet`` (imports included)."""
    try:
        from grpc_tools import protoc  # noqa: PLC0415 - a build tool, absent from simulo's environments
    except ImportError:
        sys.exit("build_vizstream: grpc_tools is not importable (see this script's docstring)")
    well_known = resources.files("grpc_tools") / "_proto"
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "vizstream.binpb"
        args = ["protoc", f"-I{PROTO_ROOT}", f"-I{well_known}", "--include_imports",
                f"--descriptor_set_out={out}", *proto_files()]
        if protoc.main(args) != 0:
            sys.exit("build_vizstream: protoc failed (its message is above)")
        return out.read_bytes()


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) the descriptor set; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    args = parser.parse_args(argv)
    data = compile_set()
    if args.check:
        same = OUTPUT.read_bytes() == data
        print(f"{OUTPUT}: {'up to date' if same else 'stale: rerun without --check'}")
        return 0 if same else 1
    OUTPUT.write_bytes(data)
    print(f"wrote {OUTPUT} ({len(data)} bytes, {len(proto_files())} sources)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
