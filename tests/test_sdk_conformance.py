"""simulo's runtime classes conform to simulo-interfaces' Protocols, member by member (the SDK backend's rule).

For every Protocol in ``simulo.interfaces.authoring`` and ``simulo.interfaces.runtime``, each member must exist
on our implementing class with the same kind (method, classmethod, staticmethod, or data: a property or an
attribute), and each method's parameters must agree in both directions: the same names, in the same order, of
the same kinds, with defaults in the same places. Where simulo-local knowingly differs, :data:`EXCLUSIONS`
says why and which issue will fix it; the test fails on anything that neither matches nor is listed, and on
a listed exclusion that matches by now.

Our classes inherit the Protocols for the type checker only (``simulo._sdk_protocols``: mypy checks each
override nominally, and at run time the bases are ``object``, so ``simulo.interfaces`` stays off the runtime
path and a member we lack is never a Protocol's ``...`` body returning ``None``). Since mypy cannot see a member
missing at run time, this test is the run-time check of the same classes; tests/test_sdk_protocol_bases.py
checks that each class here declares its base (below, from the source, so that removing a base fails a test
and not only mypy).

Also the SDK's one-import rule: every name of ``simulo.interfaces.__all__`` and
``simulo.interfaces.authoring.__all__`` is reachable from ``simulo``.

And the signatures users see (``inspect.signature``, ``help()``, editors): for every public name of the SDK that
``simulo`` exports, ``inspect.signature`` of our object has the SDK's parameters (names, order, kinds, defaults),
then only keyword-only parameters with defaults of our own. The SDK's objects are simulo-interfaces' (installed)
and, for the thin client's own names (``App``, ``Runtime``, ``Asset``, ...), those of the SDK's wheel unzipped
at :data:`SDK_WHEELS`, read in a subprocess (its ``simulo`` is not ours); that part skips when the wheel is
absent. Where the SDK resolves a name to a stand-in of ``(*args, **kwargs)`` (its learning names, at submit),
the signature it declares for editors (``simulo._client.facades``, its concrete class's) is the one compared.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import subprocess
import sys
import textwrap
import typing
from pathlib import Path
from typing import Any

import pytest

import simulo
import simulo._sdk_protocols as sdk_protocols
import simulo.interfaces as interfaces
from simulo.interfaces import authoring, runtime

#: Protocol -> the simulo classes that implement it, as ``"module:Class"`` (none: see EXCLUSIONS).
IMPLEMENTATIONS: dict[str, list[str]] = {
    "authoring.ActuatorProtocol": ["simulo.sim.actuators:ParallelGripper",
                                   "simulo.sim.actuators:ParallelGripperActuator",
                                   "simulo.sim.actuators:SurfaceGripperActuator"],
    "authoring.CameraProtocol": ["simulo.sim.sensors.camera:Camera"],
    "authoring.ExternalForceProtocol": ["simulo.sim.robot:Robot", "simulo.sim.prop:Prop"],
    "authoring.PropPropertiesProtocol": ["simulo.sim.prop:Prop"],
    "authoring.PropProtocol": ["simulo.sim.prop:Prop"],
    "authoring.PropStateProtocol": ["simulo.sim.prop:PropState"],
    "authoring.RobotPropertiesProtocol": ["simulo.sim.robot:Robot"],
    "authoring.RobotProtocol": ["simulo.sim.robot:Robot"],
    "authoring.RobotStateProtocol": ["simulo.sim.robot_state:RobotState"],
    "authoring.SceneGravityProtocol": ["simulo.sim.scene:Scene"],
    "authoring.SceneGroupProtocol": ["simulo.sim.scene:SceneGroup"],
    "authoring.SceneProtocol": ["simulo.sim.scene:Scene"],
    "authoring.SceneVariantsProtocol": ["simulo.sim.scene:Scene"],
    "authoring.VariantPropProtocol": ["simulo.sim.variants:VariantProp"],
    "runtime.AnomalyDebugSessionProtocol": [],
    "runtime.EngineTaskProtocol": ["simulo.rl.task:Task"],
    "runtime.LearningEnvProtocol": ["simulo.rl.env:LearningEnv"],
    "runtime.ObservationComponentProtocol": ["simulo.rl.components:ObservationComponent"],
    "runtime.PlayerProtocol": ["simulo.rl.training.player:RLPlayer"],
    "runtime.PolicyNetworkProtocol": ["simulo.rl.training.player:PolicyPlayer"],
    "runtime.RewardComponentProtocol": ["simulo.rl.components:RewardComponent"],
    "runtime.TaskProtocol": ["simulo.rl.task:Task"],
    "runtime.TerminationConditionProtocol": ["simulo.rl.components:TerminationCondition"],
    "runtime.TrainerProtocol": ["simulo.rl.training.trainer:RLTrainer"],
}


def _excluded(protocol: str, members: str, reason: str, issue: int) -> dict[tuple[str, str], tuple[str, int]]:
    return {(protocol, member): (reason, issue) for member in members.split()}


#: (Protocol, member or ``*``) -> (why simulo-local differs, the issue that will fix it; 0: a difference that
#: stays: the SDK makes it itself, or a compatible extension that mypy's nominal check accepts).
EXCLUSIONS: dict[tuple[str, str], tuple[str, int]] = {
    **_excluded("runtime.AnomalyDebugSessionProtocol", "*", "anomaly debug sessions are the "
                "cloud platform's (they replay on its servers)", 10),
    **_excluded("runtime.PolicyNetworkProtocol", "__call__", "PolicyPlayer.__call__ adds deterministic=True "
                "(evaluate(actions='sampled') samples through it), a compatible extension of the Protocol's "
                "__call__(self, observation)", 0),
    **_excluded("authoring.SceneProtocol", "add", "Scene.add also takes SceneVariantsProtocol's variants=None "
                "(which it matches); SceneProtocol.add lacks it, so no one method matches both: the two "
                "Protocols conflict, and the SDK's own Scene has the same choice to make", 0),
    **_excluded("runtime.EngineTaskProtocol", "engine_setup", "Task has no engine_setup yet (rl/task.py)", 10),
    **_excluded("runtime.TrainerProtocol", "train", "RLTrainer.train defaults max_iterations and adds checkpoint "
                "keywords, as the SDK's own RLTrainer facade declares (a compatible extension); the "
                "Protocol's is train(self, max_iterations)", 0),
    **_excluded("runtime.PlayerProtocol", "play", "RLPlayer.play adds record=, as the SDK's own RLPlayer facade "
                "declares (a compatible extension); the Protocol's play has no record", 0),
}

#: Names of the two ``__all__`` lists that are not ``simulo`` attributes, as in the SDK: the Protocols, which
#: simulo's classes implement (IMPLEMENTATIONS) rather than export.
NOT_ON_SIMULO = tuple(n for n in authoring.__all__ if n.endswith("Protocol"))

#: Subpackages of ``simulo.interfaces.__all__``: reachable as ``simulo.interfaces.<name>``.
SUBPACKAGES = ("platform", "runtime")


def _protocols() -> dict[str, type]:
    """``"authoring.RobotProtocol" -> class`` for every Protocol of the two packages."""
    out = {}
    for package, module in (("authoring", authoring), ("runtime", runtime)):
        for name in dir(module):
            value = getattr(module, name)
            if isinstance(value, type) and getattr(value, "_is_protocol", False) and name.endswith("Protocol"):
                out[f"{package}.{name}"] = value
    return out


def _load(ref: str) -> type:
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def _init_attributes(cls: type) -> set[str]:
    """Names that any ``__init__`` in the MRO assigns as ``self.NAME``, and annotated class attributes."""
    names: set[str] = set()
    for klass in cls.__mro__:
        names |= set(getattr(klass, "__annotations__", {}))
        init = klass.__dict__.get("__init__")
        if init is None or not inspect.isfunction(init):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(init)))
        except (OSError, TypeError):
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name) and node.value.id == "self"):
                names.add(node.attr)
    return names


def _kind(cls: type, name: str) -> str | None:
    """``method``, ``classmethod``, ``staticmethod`` or ``data``; ``None`` when ``cls`` has no such member."""
    try:
        raw = inspect.getattr_static(cls, name)
    except AttributeError:
        return "data" if name in _init_attributes(cls) else None
    if isinstance(raw, classmethod):
        return "classmethod"
    if isinstance(raw, staticmethod):
        return "staticmethod"
    return "method" if inspect.isfunction(raw) else "data"


def _params(cls: type, name: str) -> list[tuple[str, str, bool]]:
    return [(p.name, p.kind.name, p.default is not inspect.Parameter.empty)
            for p in inspect.signature(getattr(cls, name)).parameters.values()]


def _member_problem(protocol: type, impl: type, name: str) -> str | None:
    """Why ``impl.name`` does not conform to ``protocol.name``, or ``None`` when it does."""
    want, have = _kind(protocol, name), _kind(impl, name)
    if want is None:  # annotation-only data member of the Protocol
        want = "data"
    if have is None:
        return f"missing (the Protocol's is {want})"
    if want != have:
        return f"is {have}, the Protocol's is {want}"
    if want != "data":
        ours, theirs = _params(impl, name), _params(protocol, name)
        if ours != theirs:
            return f"parameters {ours} differ from the Protocol's {theirs}"
    return None


def _check_all() -> tuple[dict[str, int], list[str], list[str]]:
    """Counts, unlisted problems, and listed exclusions that conform by now."""
    counts = {"protocols": 0, "members": 0, "matching": 0, "excluded": 0}
    problems: list[str] = []
    stale: list[str] = []
    for key, protocol in _protocols().items():
        counts["protocols"] += 1
        members = sorted(typing._get_protocol_attrs(protocol))  # type: ignore[attr-defined]
        impls = [_load(ref) for ref in IMPLEMENTATIONS[key]]
        for name in members:
            for impl in impls or [None]:
                counts["members"] += 1
                problem = "no implementing class" if impl is None else _member_problem(protocol, impl, name)
                listed = (key, name) in EXCLUSIONS or (key, "*") in EXCLUSIONS
                if problem is None:
                    counts["matching"] += 1
                    if (key, name) in EXCLUSIONS:
                        stale.append(f"{key}.{name} on {impl.__name__} conforms now; drop its exclusion")
                elif listed:
                    counts["excluded"] += 1
                else:
                    where = "" if impl is None else f" on {impl.__module__}.{impl.__qualname__}"
                    problems.append(f"{key}.{name}{where}: {problem}")
    return counts, problems, stale


def test_every_protocol_has_an_entry() -> None:
    assert sorted(IMPLEMENTATIONS) == sorted(_protocols())


def test_runtime_classes_conform_to_the_protocols() -> None:
    counts, problems, stale = _check_all()
    print(f"\nSDK conformance: {counts['protocols']} Protocols, {counts['members']} members checked, "
          f"{counts['matching']} matching, {counts['excluded']} excluded")
    assert problems == []
    assert stale == []
    assert counts["matching"] + counts["excluded"] == counts["members"]


def test_every_exclusion_names_a_protocol_member_a_reason_and_an_issue() -> None:
    protocols = _protocols()
    for (key, name), (reason, issue) in EXCLUSIONS.items():
        assert key in protocols, key
        assert name == "*" or name in typing._get_protocol_attrs(protocols[key]), (key, name)  # type: ignore[attr-defined]
        assert reason and isinstance(issue, int), (key, name)


@pytest.mark.parametrize("module", [interfaces, authoring], ids=["interfaces", "authoring"])
def test_one_import_rule(module: Any) -> None:
    missing = [name for name in module.__all__
               if not hasattr(simulo, name) and name not in (*NOT_ON_SIMULO, *SUBPACKAGES)]
    assert missing == []
    for name in set(module.__all__) & set(SUBPACKAGES):
        assert importlib.import_module(f"simulo.interfaces.{name}") is getattr(module, name)
    for name in set(module.__all__) & set(NOT_ON_SIMULO):
        assert not hasattr(simulo, name), f"{name} is on simulo now; drop it from NOT_ON_SIMULO"


def _class_node(cls: type) -> tuple[ast.Module, ast.ClassDef]:
    """The parsed module of ``cls`` and its ``class`` statement."""
    tree = ast.parse(inspect.getsource(sys.modules[cls.__module__]))
    nodes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__]
    assert len(nodes) == 1, cls
    return tree, nodes[0]


def _declared_protocols(cls: type) -> set[str]:
    """SDK Protocols that ``cls`` and its simulo bases declare through ``simulo._sdk_protocols`` bases, by source."""
    found: set[str] = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("simulo.") or klass.__module__.startswith("simulo.interfaces"):
            continue
        tree, node = _class_node(klass)
        imported = {alias.asname or alias.name for n in tree.body if isinstance(n, ast.ImportFrom)
                    and n.module == "simulo._sdk_protocols" for alias in n.names}
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id in sdk_protocols.BASES:
                where = f"{klass.__qualname__}'s base {base.id}"
                assert base.id in imported, f"{where} is not imported from simulo._sdk_protocols"
                found |= set(sdk_protocols.BASES[base.id])
    protocols = _protocols()
    return {key for name in found for key, protocol in protocols.items() if protocol in protocols[name].__mro__}


#: Protocols implemented structurally but not inherited, with why.
NOT_INHERITED = {
    "runtime.EngineTaskProtocol": "Task lacks its engine_setup (see EXCLUSIONS), which the type checker would then "
                                  "believe Task has; Task inherits TaskProtocol, its base",
}


@pytest.mark.parametrize("key", [k for k, refs in IMPLEMENTATIONS.items() if refs])
def test_each_runtime_class_declares_its_protocol_base(key: str) -> None:
    for ref in IMPLEMENTATIONS[key]:
        declared = key in _declared_protocols(_load(ref))
        if key in NOT_INHERITED:
            assert not declared, f"{ref} inherits {key} now; drop it from NOT_INHERITED"
        else:
            assert declared, f"{ref} does not inherit {key} (simulo._sdk_protocols)"


def test_the_type_checking_bases_are_the_listed_protocols() -> None:
    """What mypy sees (the ``if TYPE_CHECKING`` classes) is what :data:`simulo._sdk_protocols.BASES` says."""
    tree = ast.parse(inspect.getsource(sdk_protocols))
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    seen = {n.name: [ast.unparse(b) for b in n.bases] for n in block.body if isinstance(n, ast.ClassDef)}
    want = {name: [p.partition(".")[2] for p in protocols] + ["Protocol"]
            for name, protocols in sdk_protocols.BASES.items()}
    assert seen == want
    assert all(key in IMPLEMENTATIONS for protocols in sdk_protocols.BASES.values() for key in protocols)


def test_the_bases_cost_no_sdk_import_at_run_time() -> None:
    code = ("import sys, simulo._sdk_protocols\n"
            "print(sorted(m for m in sys.modules if m.startswith('simulo.interfaces')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert all(getattr(sdk_protocols, name) is object for name in sdk_protocols.BASES)


#: The SDK's wheels (simulo 0.34.0 and simulo-interfaces 0.25.0) unzipped into one folder: ``pip download --no-deps
#: -d /tmp/sdk simulo==0.34.0 simulo-interfaces==0.25.0``, then unzip both into ``/tmp/sdk/x``.
SDK_WHEELS = Path(os.environ.get("SIMULO_SDK_WHEELS", "/tmp/sdk/x"))

#: Public name -> why its signature differs from the SDK's for good: the SDK's own conflicts only.
SIGNATURE_EXCLUSIONS: dict[str, str] = {}

#: Public name -> (how its signature still differs from the SDK's, the issue that will make it match).
SIGNATURE_PENDING: dict[str, tuple[str, int]] = {}

#: ``(name, kind, repr(default) or None)`` of each parameter.
Shape = list[tuple[str, str, str | None]]


def _shape(obj: Any) -> list[tuple[str, str, str | None]] | None:
    """``(name, kind, repr(default) or None)`` of each parameter; None: no signature, or only ``*args, **kwargs``.

    Self-contained: the subprocess that reads the SDK's wheel runs its source.
    """
    import inspect

    try:
        params = list(inspect.signature(obj).parameters.values())
    except (TypeError, ValueError):
        return None
    if params and all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    return [(p.name, p.kind.name, None if p.default is p.empty else repr(p.default)) for p in params]


def _signature_problem(ours: Shape | None, theirs: Shape | None) -> str | None:
    """Why our parameters do not extend the SDK's, or None when they do (or the SDK shows none)."""
    if theirs is None:
        return None
    if ours is None:
        return f"shows no parameters; the SDK's are {theirs}"
    if ours[:len(theirs)] != theirs:
        return f"{ours} does not start with the SDK's {theirs}"
    extras = [name for name, kind, default in ours[len(theirs):] if kind != "KEYWORD_ONLY" or default is None]
    return f"added parameters {extras} are not keyword-only with a default" if extras else None


def _contract_shapes() -> dict[str, Shape | None]:
    """Name -> the SDK's shape, for the contract names of the one-import rule (simulo-interfaces, installed)."""
    return {name: _shape(getattr(module, name)) for module in (interfaces, authoring) for name in module.__all__
            if name not in (*NOT_ON_SIMULO, *SUBPACKAGES)}


_THIN_CLIENT_SHAPES = """
from __future__ import annotations
import json, sys
sys.path.insert(0, sys.argv[1])
import simulo
from simulo._client import facades
assert simulo.__file__.startswith(sys.argv[1]), simulo.__file__
{shape}
skip = set(json.loads(sys.argv[2]))
out = {{}}
for name in simulo.__all__:
    if name not in skip:
        shape = _shape(getattr(simulo, name))
        out[name] = shape if shape is not None or not hasattr(facades, name) else _shape(getattr(facades, name))
print(json.dumps(out))
"""


def _thin_client_shapes(skip: set[str]) -> dict[str, Shape | None]:
    """Name -> the SDK's shape, for the names of the SDK's ``simulo.__all__`` not in ``skip``, from its wheel."""
    if not (SDK_WHEELS / "simulo" / "__init__.py").is_file():
        pytest.skip(f"the SDK's wheels are not unzipped at {SDK_WHEELS} (pip download --no-deps -d /tmp/sdk "
                    "simulo==0.34.0 simulo-interfaces==0.25.0, then unzip both into /tmp/sdk/x, or set "
                    "SIMULO_SDK_WHEELS)")
    code = _THIN_CLIENT_SHAPES.format(shape=textwrap.dedent(inspect.getsource(_shape)))
    done = subprocess.run([sys.executable, "-I", "-c", code, str(SDK_WHEELS), json.dumps(sorted(skip))],
                          capture_output=True, text=True, check=False, cwd=SDK_WHEELS)
    assert done.returncode == 0, done.stderr
    return {name: None if shape is None else [tuple(p) for p in shape]
            for name, shape in json.loads(done.stdout).items()}


def _signature_problems(sdk_shapes: dict[str, Shape | None]) -> tuple[list[str], list[str]]:
    """Unlisted differences, and listed exclusions that match by now."""
    problems, stale = [], []
    for name, theirs in sdk_shapes.items():
        problem = _signature_problem(_shape(getattr(simulo, name)), theirs)
        listed = name in SIGNATURE_EXCLUSIONS or name in SIGNATURE_PENDING
        if problem is not None and not listed:
            problems.append(f"simulo.{name}: {problem}")
        elif problem is None and listed:
            stale.append(f"simulo.{name} matches the SDK's signature now; drop it from its list")
    return problems, stale


def test_contract_names_have_the_sdks_signatures() -> None:
    shapes = _contract_shapes()
    compared = {name for name, shape in shapes.items() if shape is not None}
    print(f"\nSDK signatures: {len(compared)} of simulo-interfaces' {len(shapes)} names compared")
    assert {"Material", "Cuboid", "RigidPhysics", "JointConfig", "ObjectVariants", "parse_job_public_id"} <= compared
    assert _signature_problems(shapes) == ([], [])


def test_the_thin_clients_names_have_the_sdks_signatures() -> None:
    contract = _contract_shapes()
    shapes = _thin_client_shapes(set(contract))
    compared = {name for name, shape in shapes.items() if shape is not None}
    print(f"\nSDK signatures: {len(compared)} of the thin client's {len(shapes)} names compared")
    assert {"App", "Runtime", "Volume", "Asset", "LearningEnv", "RLTrainer", "RLPlayer", "evaluate"} <= compared
    assert set(SIGNATURE_EXCLUSIONS) | set(SIGNATURE_PENDING) <= set(contract) | set(shapes)
    assert _signature_problems(shapes) == ([], [])


_APP_MEMBERS = """
from __future__ import annotations
import inspect, json, sys
sys.path.insert(0, sys.argv[1])
import simulo
{shape}
out = {{}}
for name in dir(simulo.App):
    if not name.startswith("_"):
        member = inspect.getattr_static(simulo.App, name)
        out[name] = ["property", None] if isinstance(member, property) else ["method", _shape(member)]
print(json.dumps(out))
"""

#: ``App`` members of the SDK that simulo-local leaves out, with why.
APP_MEMBERS_LEFT_OUT = {
    "resolve_job": "the SDK's submit path resolves a job by name; simulo run selects it with --job",
    "resolve_job_function": "as resolve_job",
    "validate_job_submission": "the SDK's one-typed-job-per-file check before a cloud submit",
}


def test_app_members_have_the_sdks_kinds_and_signatures() -> None:
    if not (SDK_WHEELS / "simulo" / "__init__.py").is_file():
        pytest.skip(f"the SDK's wheels are not unzipped at {SDK_WHEELS}")
    code = _APP_MEMBERS.format(shape=textwrap.dedent(inspect.getsource(_shape)))
    done = subprocess.run([sys.executable, "-I", "-c", code, str(SDK_WHEELS)], capture_output=True, text=True,
                          check=False, cwd=SDK_WHEELS)
    assert done.returncode == 0, done.stderr
    problems = []
    for name, (kind, theirs) in json.loads(done.stdout).items():
        if name in APP_MEMBERS_LEFT_OUT:
            continue
        ours = inspect.getattr_static(simulo.App, name, None)
        if ours is None or isinstance(ours, property) != (kind == "property"):
            problems.append(f"App.{name}: the SDK's is a {kind}, ours {ours!r}")
        elif kind == "method":
            problem = _signature_problem(_shape(ours), None if theirs is None else [tuple(p) for p in theirs])
            if problem is not None:
                problems.append(f"App.{name}: {problem}")
    assert problems == []
    assert {"job", "job_declarations"} <= set(json.loads(done.stdout))


#: The value types whose made dataclass ``__init__`` once read ``(self, *args, **kwargs)`` (issue 27).
VALUE_TYPES = ("Material", "SurfaceMaterial", "RigidPhysics", "LightConfig", "DistantLight", "DomeLight",
               "TerrainConfig", "GroundPlane", "SubTerrainConfig", "RoughTerrain", "PrimitiveShape", "Cone", "Cuboid",
               "Sphere", "Cylinder", "ActuatorGainsConfig", "ArticulationConfig", "JointConfig", "ObjectVariants")


def test_each_classs_init_shows_the_classs_parameters() -> None:
    """What ``help()`` lists under ``__init__`` (and tools that read it) is the class's signature, ``self`` first."""
    checked, differing = [], []
    for name in simulo.__all__:
        cls = getattr(simulo, name)
        init = getattr(cls, "__init__", None)
        if isinstance(cls, type) and inspect.isfunction(init) and init.__module__.startswith("simulo."):
            checked.append(name)
            if list(inspect.signature(init).parameters.values())[1:] != list(
                    inspect.signature(cls).parameters.values()):
                differing.append(f"{name}.__init__{inspect.signature(init)} is not {name}{inspect.signature(cls)}")
    assert set(VALUE_TYPES) <= set(checked)
    assert differing == []


def test_every_signature_exclusion_names_a_public_name_a_reason_and_an_issue() -> None:
    assert all(name in simulo.__all__ and reason for name, reason in SIGNATURE_EXCLUSIONS.items())
    assert all(name in simulo.__all__ and reason and issue > 0 for name, (reason, issue) in SIGNATURE_PENDING.items())
    assert not set(SIGNATURE_EXCLUSIONS) & set(SIGNATURE_PENDING)


@pytest.mark.parametrize(("ours", "theirs", "problem"), [
    ("(a, b=1, *, c=2)", "(a, b=1)", None),
    ("(a, b=1)", "(a, b=1)", None),
    ("(*args, **kwargs)", "(a, b=1)", "shows no parameters"),
    ("(a, b=2)", "(a, b=1)", "does not start with the SDK's"),
    ("(b, a)", "(a, b)", "does not start with the SDK's"),
    ("(a, *, b=1)", "(a, b=1)", "does not start with the SDK's"),
    ("(a, c=3)", "(a)", "added parameters ['c'] are not keyword-only"),
    ("(a, *, c)", "(a)", "added parameters ['c'] are not keyword-only with a default"),
    ("(a)", "(*args, **kwargs)", None),
])
def test_the_signature_rule(ours: str, theirs: str, problem: str | None) -> None:
    def shape(params: str) -> Shape | None:
        namespace: dict[str, Any] = {}
        exec(f"def f{params}: pass", namespace)
        return _shape(namespace["f"])

    found = _signature_problem(shape(ours), shape(theirs))
    assert found == problem if problem is None else problem in (found or "")
