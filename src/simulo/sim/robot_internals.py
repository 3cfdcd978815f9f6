"""``Robot.internals``: the engine escape hatch, answering also the Isaac Lab names the cloud's apps read.

The contract leaves ``internals`` untyped on purpose: it is the engine's own object, unstable, with no
promises. In the cloud that engine is Isaac Lab, so apps written for the cloud read Isaac Lab's
``ArticulationData`` vocabulary from it (the SDK's samples reset from ``robot.internals.default_joint_pos``,
``default_joint_vel`` and ``default_root_state``). Here the escape hatch is the PyBullet engine's batch;
:class:`RobotInternals` hands every attribute of that batch through unchanged and answers, besides, those
default-state names with Isaac Lab's meaning. Nothing else of ``ArticulationData`` is mirrored: live state
is ``robot.state``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from simulo.sim.robot_data import RobotData


class RobotInternals:
    """The engine's articulation batch (every attribute reads through), plus Isaac Lab's default-state names.

    Args:
        data: The attached robot's data (its ``batch`` is the engine batch).
        env_origins: Environment origins (num_envs, 3) to take out of the default root poses, for a robot
            spawned in every environment; None for one placed once in world coordinates.
    """

    def __init__(self, data: RobotData, env_origins: np.ndarray | None) -> None:
        self._data = data
        self._origins = None if env_origins is None else np.array(env_origins, dtype=np.float64)

    def __getattr__(self, name: str) -> Any:
        # only called for names not found on this object: the engine batch's own members
        if name in ("_data", "_origins"):
            raise AttributeError(name)
        return getattr(self._data.batch, name)

    def __repr__(self) -> str:
        return f"RobotInternals({self._data.batch!r})"

    @property
    def default_joint_pos(self) -> Any:
        """Joint positions ``reset`` writes (num_envs, num_joints), as ``robot.default_joint_positions``; a copy."""
        return self._data.tensors.out(self._data.default_q.copy())

    @property
    def default_joint_vel(self) -> Any:
        """Joint velocities ``reset`` writes (num_envs, num_joints), as ``robot.default_joint_velocities``; a copy."""
        return self._data.tensors.out(self._data.default_qd.copy())

    @property
    def default_root_state(self) -> Any:
        """Root state ``reset`` writes (num_envs, 13), Isaac Lab's layout; a copy.

        ``[x, y, z, qw, qx, qy, qz, vx, vy, vz, wx, wy, wz]``: the default base pose relative to each
        environment's origin (Isaac Lab adds ``scene.env_origins`` itself when it resets), then zero
        linear and angular velocity (``reset`` starts the base at rest).
        """
        state = np.zeros((self._data.num_envs, 13))
        state[:, :7] = self._data.default_pose
        if self._origins is not None:
            state[:, :3] -= self._origins
        return self._data.tensors.out(state)
