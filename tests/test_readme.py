"""The README's contract example runs as written and does what its comments say."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_contract_example_runs() -> None:
    block = re.search(r"## Writing apps against the contract\n\n```python\n(.*?)```", README.read_text(), re.S)
    assert block is not None, "the README lost its contract example"
    namespace: dict = {"print": lambda *args: None}
    exec(compile(block.group(1), "README.md", "exec"), namespace)
    robot, arm = namespace["robot"], namespace["arm"]
    assert arm == [0, 1, 2, 3, 4]  # the five arm joints, in the robot's joint order
    assert robot.asset.name == "pick_arm" and robot.path == "/World/Robot"


def test_readme_golden_lines_match_the_app() -> None:
    from simulo.apps.pick_place.experiments.single import run_pick_place
    from simulo.apps.pick_place.report import report_lines

    text = README.read_text()
    lines: list[str] = []
    result = run_pick_place(on_line=lines.append)
    lines += report_lines(result)
    shown = text.split("$ simulo pick-place\n", 1)[1].split("```", 1)[0].strip().splitlines()
    assert shown == lines
    assert np.isclose(result.picks[0].final_position[0], 0.25055941, atol=1e-8)


def test_readme_task_example_runs_and_its_poses_are_world_frame() -> None:
    torch = pytest.importorskip("torch")
    block = re.search(r"### A Task, and the conventions a Task author needs\n\n.*?```python\n(.*?)```",
                      README.read_text(), re.S)
    assert block is not None, "the README lost its Task example"
    module = types.ModuleType("readme_task")  # a module, as a task file is: its torch import makes it a torch task
    sys.modules[module.__name__] = module
    namespace = vars(module)
    try:
        exec(compile(block.group(1), "README.md", "exec"), namespace)
    finally:
        del sys.modules[module.__name__]
    env = namespace["env"]
    try:
        assert namespace["obs"].dtype == torch.float32 and tuple(namespace["obs"].shape) == (4, 2)
        assert namespace["terminated"].dtype == torch.bool
        origins = np.asarray(env.scene.env_origins)
        pose = np.asarray(env.task.robot.state.pose)
        assert np.allclose(origins[1, :2], [0.0, 3.0])
        assert np.allclose(pose[:, :2], origins[:, :2])  # read poses include each environment's origin
    finally:
        env.close()
