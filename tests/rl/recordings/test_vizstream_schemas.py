"""The VizStream schemas are built here from our own ``.proto`` sources and match simulo-viz 0.1.0's."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from vizstream_fields import FIELDS, SIMULO_VIZ_SHA256

from simulo.rl.recordings import schemas

pytest.importorskip("google.protobuf")
descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")

ROOT = Path(__file__).resolve().parents[3]
PROTO_ROOT = ROOT / "src" / "simulo" / "rl" / "recordings" / "proto"


def _descriptor_set() -> object:
    files = descriptor_pb2.FileDescriptorSet()
    files.ParseFromString(resources.files("simulo.rl.recordings").joinpath("vizstream.binpb").read_bytes())
    return files


def _field_table(files: object) -> dict[str, str]:
    """``vizstream_fields.FIELDS``' layout, read from a descriptor set."""
    kinds = descriptor_pb2.FieldDescriptorProto
    scalar = {number: name[5:].lower() for name, number in kinds.Type.items()}
    table: dict[str, str] = {}

    def visit(message: object, prefix: str) -> None:
        if message.options.map_entry:
            return
        full = f"{prefix}.{message.name}"
        fields = []
        for field in message.field:
            named = field.type in (kinds.TYPE_MESSAGE, kinds.TYPE_ENUM)
            kind = field.type_name.lstrip(".") if named else scalar[field.type]
            mark = "*" if field.label == kinds.LABEL_REPEATED else "?" if field.proto3_optional else ""
            fields.append(f"{field.name}={field.number}:{mark}{kind}")
        table[full] = " ".join(fields)
        for nested in message.nested_type:
            visit(nested, full)

    for file in files.file:
        if not file.name.startswith("google/"):
            for message in file.message_type:
                visit(message, file.package)
    return table


def test_the_descriptor_set_defines_simulo_vizs_messages_and_fields() -> None:
    table = _field_table(_descriptor_set())
    assert sorted(table) == sorted(FIELDS)
    wrong = {name: table[name] for name in FIELDS if table[name] != FIELDS[name]}
    assert wrong == {}


def test_the_descriptor_set_is_simulo_vizs_byte_for_byte() -> None:
    data = resources.files("simulo.rl.recordings").joinpath("vizstream.binpb").read_bytes()
    assert hashlib.sha256(data).hexdigest() == SIMULO_VIZ_SHA256


def test_every_proto_source_is_in_the_set_and_nothing_else_of_ours() -> None:
    sources = sorted(p.relative_to(PROTO_ROOT).as_posix() for p in PROTO_ROOT.rglob("*.proto"))
    ours = sorted(f.name for f in _descriptor_set().file if not f.name.startswith("google/"))
    assert sources == ours
    assert len(sources) == 27


def test_each_channel_schema_resolves_and_carries_its_imports_first() -> None:
    for channel in schemas.CHANNELS:
        closure = descriptor_pb2.FileDescriptorSet()
        closure.ParseFromString(schemas.schema_data(channel.schema_name))
        seen: set[str] = set()
        for file in closure.file:
            assert set(file.dependency) <= seen, file.name
            seen.add(file.name)
        message = schemas.message_class(channel.schema_name)
        assert message.DESCRIPTOR.file.name == closure.file[-1].name


def test_the_committed_set_is_what_the_sources_compile_to() -> None:
    """protoc (grpcio-tools, in the test extra) compiles our .proto sources to exactly the committed bytes."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_vizstream.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
