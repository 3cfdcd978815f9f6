"""Fuzz every setter and argument of Robot, Prop, Scene and Simulation with Hypothesis: a bad value raises a
SimuloError whose message names the argument (and the value, for scalars), the world is unchanged, and after
all the refused calls it steps to the same bytes as an untouched twin."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import simulo
from simulo.errors import SimuloError

N = 2
FUZZ = settings(max_examples=25, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
FREE = simulo.ArticulationConfig(fix_root_link=False)


def build() -> dict[str, Any]:
    """A world: the cartpole (fixed), the floater (free base) and a cube, in N environments."""
    scene = simulo.Scene(num_envs=N)
    scene.add(simulo.Terrain.plane(name="ground"), at="/World", per_environment=False)
    cart = simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1"))
    from tests.conftest import FLOATER_URDF  # noqa: PLC0415 - the shared test model

    floater = simulo.Robot(simulo.Asset.from_urdf_string(FLOATER_URDF), articulation=FREE,
                           initial_pose=simulo.Pose.from_xyz(0.0, 0.6, 0.4))
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.1, 0.1, 0.1), physics=simulo.RigidPhysics(mass=0.3),
                                     pose=simulo.Pose.from_xyz(0.5, 0.0, 0.3)))
    scene.add(cart, at="/World/Cart")
    scene.add(floater, at="/World/Floater")
    scene.add(cube, at="/World")
    sim = simulo.Simulation(scene)
    return {"sim": sim, "cart": cart, "floater": floater, "cube": cube}


def fingerprint(world: dict[str, Any]) -> bytes:
    """Everything a refused call could change: engine state, buffers, targets, forces, library, gravity."""
    parts: list[bytes] = []
    for name in ("cart", "floater"):
        data = world[name].data
        n, j = data.num_envs, data.num_joints
        q, qd, eff = np.zeros((n, j)), np.zeros((n, j)), np.zeros((n, j))
        pose, lin, ang = np.zeros((n, 7)), np.zeros((n, 3)), np.zeros((n, 3))
        data.batch.read_joints(q, qd, eff)
        data.batch.read_base(pose, lin, ang)
        parts += [a.tobytes() for a in (q, qd, pose, lin, ang, data.pos_t, data.vel_t, data.eff_t,
                                        data.motor_force, data.external.forces, data.external.torques)]
        parts.append(np.asarray(data.batch.read_bodies([1], range(n), velocity=False)[0]).tobytes())
    cube = world["cube"].data
    parts += [np.asarray(cube.pose).tobytes(), cube.external.forces.tobytes()]
    parts.append(bytes([world["sim"].tensors.uses_torch]))
    parts.append(np.asarray(world["sim"].gravity).tobytes())
    return b"".join(parts)


@pytest.fixture(scope="module")
def worlds():
    pair = build(), build()
    yield pair
    for world in pair:
        world["sim"].close()


def bad_arrays(shape: tuple[int, ...]) -> st.SearchStrategy[Any]:
    """Values a float batch of ``shape`` must refuse."""
    size = int(np.prod(shape))
    poison = st.sampled_from([np.nan, np.inf, -np.inf, 1e13, -1e300, 1e300])

    def poisoned(args: tuple[int, float]) -> np.ndarray:
        out = np.zeros(shape)
        out.flat[args[0] % size] = args[1]
        return out

    wrong_shape = st.tuples(st.integers(0, 4), st.integers(0, 9)).filter(lambda s: s != shape[:2]).map(np.zeros)
    return st.one_of(
        st.tuples(st.integers(0, size - 1), poison).map(poisoned),
        wrong_shape,
        st.just(np.zeros(shape, dtype=bool)),
        st.text(max_size=4),
        st.none(),
        st.just([[0.0, 1.0], [2.0]]),
        st.just({"x": 1.0}),
        st.just(np.zeros(shape, dtype=complex)),
        st.just(np.full(shape, "a")),
    )


def b(world: dict[str, Any], name: str) -> int:
    return len(world[name].data.body_names)


SETTERS: list[tuple[str, str, Callable[[dict[str, Any]], tuple[int, ...]], Callable[[dict[str, Any], Any], Any]]] = [
    ("cart.set_joint_state positions", "positions", lambda w: (N, 2), lambda w, v: w["cart"].set_joint_state(v)),
    ("cart.set_joint_state velocities", "velocities", lambda w: (N, 2),
     lambda w, v: w["cart"].set_joint_state(np.zeros((N, 2)), v)),
    ("floater.set_root_pose", "pose", lambda w: (N, 7), lambda w, v: w["floater"].set_root_pose(v)),
    ("floater.set_root_velocity", "velocity", lambda w: (N, 6), lambda w, v: w["floater"].set_root_velocity(v)),
    ("cart.set_joint_position_target", "positions", lambda w: (N, 2),
     lambda w, v: w["cart"].set_joint_position_target(v)),
    ("cart.set_joint_velocity_target", "velocities", lambda w: (N, 2),
     lambda w, v: w["cart"].set_joint_velocity_target(v)),
    ("cart.set_joint_effort_target", "efforts", lambda w: (N, 2), lambda w, v: w["cart"].set_joint_effort_target(v)),
    ("cart.set_mass", "mass", lambda w: (N, b(w, "cart")), lambda w, v: w["cart"].set_mass(v)),
    ("cart.set_friction", "friction", lambda w: (N, b(w, "cart")), lambda w, v: w["cart"].set_friction(v)),
    ("cart.set_restitution", "restitution", lambda w: (N, b(w, "cart")), lambda w, v: w["cart"].set_restitution(v)),
    ("cart.set_joint_gains", "stiffness", lambda w: (N, 2), lambda w, v: w["cart"].set_joint_gains(v, np.ones((N, 2)))),
    ("cart.apply_external_force forces", "forces", lambda w: (N, b(w, "cart"), 3),
     lambda w, v: w["cart"].apply_external_force(v, np.zeros((N, b(w, "cart"), 3)))),
    ("cart.apply_external_force torques", "torques", lambda w: (N, b(w, "cart"), 3),
     lambda w, v: w["cart"].apply_external_force(np.zeros((N, b(w, "cart"), 3)), v)),
    ("cube.set_pose", "pose", lambda w: (N, 7), lambda w, v: w["cube"].set_pose(v)),
    ("cube.set_velocity", "velocity", lambda w: (N, 6), lambda w, v: w["cube"].set_velocity(v)),
    ("cube.set_mass", "mass", lambda w: (N, 1), lambda w, v: w["cube"].set_mass(v)),
    ("cube.set_friction", "friction", lambda w: (N, 1), lambda w, v: w["cube"].set_friction(v)),
    ("cube.set_restitution", "restitution", lambda w: (N, 1), lambda w, v: w["cube"].set_restitution(v)),
    ("cube.set_scale", "scale", lambda w: (N, 1, 3), lambda w, v: w["cube"].set_scale(v)),
    ("cube.apply_external_force", "forces", lambda w: (N, 1, 3),
     lambda w, v: w["cube"].apply_external_force(v, np.zeros((N, 1, 3)))),
    ("sim.set_gravity", "gravity", lambda w: (N, 3), lambda w, v: w["sim"].set_gravity(v)),
]


def refused(world: dict[str, Any], call: Callable[[], Any], named: str) -> None:
    before = fingerprint(world)
    with pytest.raises(SimuloError) as info:
        call()
    assert named.lower() in str(info.value).lower(), str(info.value)
    assert fingerprint(world) == before


@pytest.mark.parametrize(("label", "named", "shape", "call"), SETTERS, ids=[s[0] for s in SETTERS])
def test_a_bad_batch_is_refused_by_name_and_changes_nothing(worlds, label, named, shape, call) -> None:
    world = worlds[0]

    @FUZZ
    @given(value=bad_arrays(shape(world)))
    def check(value: Any) -> None:
        assume(value is not None or label != "cart.set_joint_state velocities")  # None: zero velocities
        refused(world, lambda: call(world, value), named)

    check()


BAD_IDS = st.one_of(st.lists(st.integers(N, 50), min_size=1, max_size=3), st.just([0, 0]), st.just([0.5]),
                    st.just(["0"]), st.just([True]), st.just([[0]]), st.integers(-9, -1).map(lambda i: [i]),
                    st.just(np.array([1.0])))


@FUZZ
@given(ids=BAD_IDS, which=st.sampled_from(["set_joint_state", "set_root_pose", "reset", "target", "cube"]))
def test_bad_env_ids_are_refused_and_change_nothing(worlds, ids, which) -> None:
    w = worlds[0]
    calls = {"set_joint_state": lambda: w["cart"].set_joint_state(np.zeros((1, 2)), env_ids=ids),
             "set_root_pose": lambda: w["floater"].set_root_pose(np.tile([0, 0, 1, 1, 0, 0, 0.0], (1, 1)), env_ids=ids),
             "reset": lambda: w["cart"].reset(env_ids=ids),
             "target": lambda: w["cart"].set_joint_position_target(np.zeros((1, 2)), env_ids=ids),
             "cube": lambda: w["cube"].set_pose(np.tile([0, 0, 1, 1, 0, 0, 0.0], (1, 1)), env_ids=ids)}
    refused(w, calls[which], "env_ids")


@FUZZ
@given(ids=st.one_of(st.lists(st.integers(2, 40), min_size=1, max_size=2), st.just([1, 1]), st.just([0.0]),
                     st.just("0"), st.just([-1])))
def test_bad_joint_ids_are_refused_and_change_nothing(worlds, ids) -> None:
    w = worlds[0]
    refused(w, lambda: w["cart"].set_joint_position_target(np.zeros((N, 1)), joint_ids=ids), "joint_ids")


SCALARS = st.one_of(st.booleans(), st.text(max_size=3), st.none(), st.just(float("nan")), st.just(float("inf")),
                    st.just(-1.0), st.just(0), st.just(1e300), st.just([1.0]), st.just(2**70))


@FUZZ
@given(value=SCALARS, arg=st.sampled_from(["mass_scale", "scale", "collision_enabled", "visual_only",
                                           "disable_gravity"]))
def test_bad_robot_arguments_are_refused_by_name(value, arg) -> None:
    if arg in ("collision_enabled", "visual_only", "disable_gravity") and isinstance(value, bool):
        return  # a bool is what these take
    asset = simulo.Asset.from_registry("simulo/robot/cartpole:v1")
    with pytest.raises(SimuloError, match=f"Robot.{arg}") as info:
        simulo.Robot(asset, **{arg: value})
    assert repr(value) in str(info.value)


@FUZZ
@given(value=SCALARS, arg=st.sampled_from(["num_envs", "env_spacing", "per_environment"]))
def test_bad_scene_arguments_are_refused_by_name(value, arg) -> None:
    if arg == "per_environment":
        if isinstance(value, bool):
            return
        scene = simulo.Scene()
        with pytest.raises(SimuloError, match="per_environment") as info:
            scene.add(simulo.Cuboid(name="box", size=(0.1, 0.1, 0.1)), at="/World", per_environment=value)
        assert scene.get_items() == []
    else:
        if arg == "env_spacing" and value == 0:
            return  # zero spacing is allowed
        with pytest.raises(SimuloError, match=arg) as info:
            simulo.Scene(**{arg: value})
    assert repr(value) in str(info.value) or str(value) in str(info.value)


@FUZZ
@given(value=SCALARS, arg=st.sampled_from(["dt", "gravity", "envs_per_world", "num_envs", "use_torch", "visuals"]))
def test_bad_simulation_arguments_are_refused_before_building(value, arg) -> None:
    if arg in ("use_torch", "visuals") and isinstance(value, bool):
        return
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1")), at="/World/Robot")
    with pytest.raises(SimuloError, match=arg):
        simulo.Simulation(scene, **{arg: value})
    assert scene.runtime_simulation is None and scene.num_envs == 1


@FUZZ
@given(value=SCALARS, which=st.sampled_from(["friction", "step", "width"]))
def test_bad_scalars_of_running_calls_are_refused(worlds, value, which) -> None:
    w = worlds[0]
    if (value == 0 and which in ("step", "friction")) or (which == "step" and value == 2**70):
        return  # zero steps and zero friction are allowed; 2**70 steps is a (very long) valid request
    calls = {"friction": (lambda: w["cart"].set_body_friction("cart", value), "friction"),
             "step": (lambda: w["sim"].step(value), "step count"),
             "width": (lambda: w["sim"].render(width=value), "width")}
    call, named = calls[which]
    refused(w, call, named)


def test_after_the_refused_calls_the_world_steps_as_its_untouched_twin(worlds) -> None:
    """Runs last in this module: the first world has taken every refused call above, the twin none."""
    for world in worlds:
        world["cart"].set_joint_effort_target(np.array([[3.0, 0.0], [-2.0, 0.5]]))
        world["floater"].set_joint_position_target(np.array([[0.4], [-0.4]]))
        world["cube"].apply_external_force(np.full((N, 1, 3), 0.2), np.zeros((N, 1, 3)))
        world["sim"].step(40)
    assert fingerprint(worlds[0]) == fingerprint(worlds[1])
