"""Numbers the runtime cannot honour are refused with a SimuloError naming the value (issue 28, item 4).

Each refusal comes before anything changes: a refused call leaves the object as a twin that never got it.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.cli.pick_place import _flags
from simulo.errors import SimuloValueError

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "cartpole"


@pytest.mark.parametrize(("argv", "message"), [
    (["--trials", str(10**12)], "argument --trials: expected a whole number <= 1048576, got '1000000000000'"),
    (["--trials", "1000000"], "--trials=1000000 needs about"),  # more environments than this machine's memory holds
    (["--trials", "2", "--noise", "1e300,0"], "noise levels must be finite numbers >= 0, at most 1000 mm and "
                                              "360 degrees, got '1e300,0'"),
    (["--trials", "2", "--noise", "3,nan"], "got '3,nan'"),
    (["--friction-sweep", "--friction", "1.0"], "--friction-sweep runs its own frictions; it cannot be combined "
                                                "with --friction"),
    (["--friction-sweep", "--friction=0.5"], "it cannot be combined with --friction"),
], ids=["trials_huge", "trials_beyond_memory", "noise_huge", "noise_nan", "sweep_with_default_friction",
        "sweep_with_friction"])
def test_pick_place_numbers_it_cannot_honour_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert _flags(argv) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simulo pick-place: error: ") and message in lines[0], err


@pytest.mark.parametrize("value", [-1, 0, "50", math.nan, 2**40, 2.5, True], ids=repr)
def test_simulation_refuses_solver_iterations_it_cannot_honour(value: object) -> None:
    scene = simulo.Scene()
    with pytest.raises(SimuloValueError, match=r"solver_iterations must be an integer from 1 to 10000, or None, "
                                               rf"got {re.escape(repr(value))}$"):
        simulo.Simulation(scene, solver_iterations=value)  # type: ignore[arg-type]
    assert scene.runtime_simulation is None  # nothing attached: the scene can still be simulated
    with simulo.Simulation(scene, solver_iterations=10_000):
        pass


def test_simulation_refuses_dt_as_text() -> None:
    with pytest.raises(SimuloValueError, match=r"dt must be a finite number of seconds > 0 \(at most 1\), got '0.01'"):
        simulo.Simulation(simulo.Scene(), dt="0.01")  # type: ignore[arg-type]


def _cartpole_task() -> simulo.Task:
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("cartpole_sample_task", SAMPLES / "task.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["cartpole_sample_task"] = module
    spec.loader.exec_module(module)
    task: simulo.Task = module.CartpoleTask()
    return task


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"seed": -1}, "seed must be an integer from 0 to 2**63 - 1, or None, got -1"),
    ({"seed": 2**63}, "got 9223372036854775808"),
    ({"dt": "0.01"}, "dt must be a number of seconds > 0 (at most 1), got '0.01'"),
    ({"dt": "fast"}, "got 'fast'"),
], ids=["negative_seed", "seed_beyond_int64", "dt_text", "dt_word"])
def test_learning_env_refuses_seeds_and_dt_it_cannot_honour(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(SimuloValueError) as caught:
        simulo.LearningEnv(_cartpole_task(), num_envs=2, **kwargs)  # type: ignore[arg-type]
    assert message in str(caught.value)


def _draws(env: simulo.LearningEnv) -> np.ndarray:
    return np.asarray(env.task.random_uniform(0.0, 1.0, (3,), [0, 1]))


def test_refused_seeds_and_bounds_change_nothing() -> None:
    env, twin = (simulo.LearningEnv(_cartpole_task(), num_envs=2, seed=3) for _ in range(2))
    try:
        for env_ in (env, twin):
            env_.reset()
        with pytest.raises(SimuloValueError, match=r"seed must be an integer >= 0|seed must be an integer from 0"):
            env.reset(seed=-1)
        with pytest.raises(SimuloValueError, match="episode_number must be an integer from 0 to 9223372036854775807"
                                                   ", got -5"):
            env.seeded_reset(0, -5)
        for low, high in ((math.nan, 1.0), (0.0, math.inf), (-1e300, 1e300), ("a", 1.0), (0.0, [1.0, math.nan])):
            with pytest.raises(SimuloValueError, match="random_uniform (low|high) must be finite numbers of "
                                                       "magnitude at most 1e"):
                env.task.random_uniform(low, high, (3,), [0, 1])  # type: ignore[arg-type]
        np.testing.assert_array_equal(_draws(env), _draws(twin))  # the streams were not touched
        env.seeded_reset(0, 2**63 - 1)  # the largest episode number is honoured
    finally:
        env.close()
        twin.close()


def test_an_env_id_beyond_int64_is_reported_as_given() -> None:
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1"))
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene) as sim:
        before = np.asarray(robot.state.joint_positions).copy()
        with pytest.raises(simulo.errors.EnvIdError, match=r"env_ids \[18446744073709551615\] out of range"):
            robot.set_joint_state(np.zeros((1, 2)), env_ids=np.array([2**64 - 1], dtype=np.uint64))
        sim.step()
        assert np.asarray(robot.state.joint_positions).shape == before.shape


@pytest.mark.parametrize("path", ["/World/Ro\nbot", "/World/Robot\t", "/Wor\x7fld/Robot", "/World/\x00"])
def test_a_scene_path_with_a_control_character_is_refused(path: str) -> None:
    scene = simulo.Scene()
    with pytest.raises(simulo.errors.SceneError, match="holds a control character"):
        scene.add(simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1")), at=path)
    assert scene.get_items() == []


def test_sharded_env_refuses_a_negative_seed_before_any_worker_starts() -> None:
    pytest.importorskip("ray")
    from simulo.scale.ray_env import RayLearningEnv  # noqa: PLC0415 (needs Ray)

    with pytest.raises(SimuloValueError, match="seed must be an integer from 0 to 9223372036854775807, got -1"):
        RayLearningEnv(_cartpole_task(), 4, workers=2, seed=-1)
