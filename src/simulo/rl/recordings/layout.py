"""What a recording shows of a simulation: its bodies, links and joints, and their values each step.

:class:`SceneLayout` reads a :class:`~simulo.sim.simulation.Simulation` once (robots with their links
and joints, moving props, cameras, the environments' origins) and then builds the VizStream messages
of the recorded environments ("copies"): the static ``Scene``, and per step the ``PoseFrame`` (poses in
the copy frame, ``[x, y, z, qw, qx, qy, qz]``) and the joint values of a ``StepFrame``. Without a
simulation (an environment that is not a :class:`simulo.LearningEnv`) the layout is empty: the
recording keeps actions, rewards and episodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulo.rl.recordings import schemas
from simulo.sim.simulation import Simulation


def numpy_rows(value: Any) -> np.ndarray:
    """``value`` (numpy array or torch tensor, any device) as a float64 numpy array."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=np.float64)


@dataclass(frozen=True)
class _RobotEntry:
    path: str
    robot: Any
    links: tuple[str, ...]
    joints: tuple[str, ...]


def scene_cameras(sim: Simulation | None) -> list[Any]:
    """The simulation's cameras (its scene's and its robots'), in scene order; none without cameras support."""
    if sim is None:
        return []
    try:
        from simulo.sim.sensors.attach import cameras  # noqa: PLC0415 - cameras are optional in a scene
    except ImportError:
        return []
    return list(cameras(sim.scene))


class SceneLayout:
    """The bodies of a simulation as VizStream lays them out, for the copies ``copy_ids``.

    Args:
        sim: The simulation, or ``None`` for an environment without one.
        num_envs: Environments of the batch.
        copy_ids: Environments recorded.
    """

    def __init__(self, sim: Simulation | None, num_envs: int, copy_ids: Sequence[int]) -> None:
        self.sim = sim
        self.num_envs = num_envs
        self.copy_ids = tuple(copy_ids)
        self.robots: list[_RobotEntry] = []
        self.props: list[tuple[str, Any]] = []
        self.cameras = scene_cameras(sim)
        if sim is None:
            self.origins = np.zeros((num_envs, 3))
            return
        self.origins = numpy_rows(sim.env_origins).reshape(-1, 3)
        for entry in sim.scene.items_of("robot"):
            robot = entry.item
            self.robots.append(_RobotEntry(entry.path, robot, tuple(robot.get_body_names()),
                                           tuple(robot.get_joint_names())))
        self.props = [(entry.path, entry.item) for entry in sim.scene.items_of("prop")]

    @property
    def link_paths(self) -> list[str]:
        """Every robot link's scene path, in the order of the packed link poses."""
        return [f"{r.path}/{link}" for r in self.robots for link in r.links]

    def scene(self, scene_id: str, step_dt_s: float, action_names: Sequence[str]) -> Any:
        """The static ``simulo.vizstream.v1.Scene``."""
        scene = schemas.new(schemas.SCENE, scene_id=scene_id, scene_epoch=0, world_size=1,
                            copies_per_rank=self.num_envs, step_dt_s=float(step_dt_s))
        scene.copy_origins.extend(float(v) for v in self.origins.reshape(-1))
        first = self.copy_ids[0] if self.copy_ids else 0
        for r in self.robots:
            body = scene.bodies.add(name=r.path.rsplit("/", 1)[-1], path=r.path, kind=1,  # KIND_ROBOT
                                    fixed_base=bool(r.robot.is_fixed_base))
            body.joint_names.extend(r.joints)
            poses = self._link_poses(r, first)
            for k, link in enumerate(r.links):  # no parent_path: every link's pose is given in the copy frame
                _set_pose(body.links.add(name=link, path=f"{r.path}/{link}").pose, poses[k])
        for path, prop in self.props:
            body = scene.bodies.add(name=path.rsplit("/", 1)[-1], path=path, kind=2)  # KIND_PROP
            link = body.links.add(name=body.name, path=path)
            _set_pose(link.pose, self._prop_pose(prop, first))
        for camera in self.cameras:
            fx, fy, cx, cy = camera.intrinsics()
            near, far = camera.spawn.clipping_range
            scene.cameras.add(name=camera_name(camera), width=camera.width, height=camera.height,
                              purpose=2 if getattr(camera, "purpose", "") == "policy" else 1,
                              fx=fx, fy=fy, cx=cx, cy=cy, near_m=near, far_m=far)
        scene.pose_layout.link_paths.extend(self.link_paths)
        scene.pose_layout.body_paths.extend(path for path, _ in self.props)
        scene.pose_layout.root_paths.extend(f"{r.path}/{r.links[0]}" for r in self.robots if r.links)
        for index, name in enumerate(action_names):
            scene.action_channels.add(index=index, name=name)
        return scene

    def _link_poses(self, r: _RobotEntry, env: int) -> np.ndarray:
        rows = np.array([numpy_rows(r.robot.get_body_pose(link))[env] for link in r.links]).reshape(-1, 7)
        rows[:, :3] -= self.origins[env]
        return rows

    def _prop_pose(self, prop: Any, env: int) -> np.ndarray:
        row = numpy_rows(prop.state.pose)[env].copy()
        row[:3] -= self.origins[env]
        return row

    def fill_poses(self, copy: Any, env: int) -> None:
        """Set a ``CopyPoses``' link and body poses to environment ``env``'s, in its copy frame."""
        for r in self.robots:
            copy.link_poses.extend(float(v) for v in self._link_poses(r, env).reshape(-1))
        for _, prop in self.props:
            copy.body_poses.extend(float(v) for v in self._prop_pose(prop, env))

    def fill_joints(self, step: Any, env: int) -> None:
        """Add environment ``env``'s joint positions and velocities to a ``CopyStep``."""
        for r in self.robots:
            positions, velocities = (numpy_rows(v)[env] for v in r.robot.get_joint_state())
            for k, name in enumerate(r.joints):
                step.joints.add(body_path=r.path, name=name, position=float(positions[k]),
                                velocity=float(velocities[k]))

    def camera_view(self, env: int) -> tuple[list[float], list[float]]:
        """A viewpoint ``(eye, target)`` relative to the environment's origin that frames its bodies."""
        points = [self._link_poses(r, env)[:, :3] for r in self.robots]
        points += [self._prop_pose(prop, env)[None, :3] for _, prop in self.props]
        if not points:
            return [1.1, -0.9, 0.7], [0.3, 0.1, 0.1]
        cloud = np.concatenate(points)
        target = cloud.mean(axis=0)
        reach = max(float(np.linalg.norm(cloud - target, axis=1).max()), 0.8)  # link origins miss their extent
        eye = target + reach * 3.0 * np.array([0.75, -0.75, 0.5])
        return eye.tolist(), target.tolist()


def camera_name(camera: Any) -> str:
    """A camera's name in the recording: its scene path's last part."""
    path = str(getattr(camera, "path", None) or getattr(camera, "name", None) or "camera")
    return path.rstrip("/").rsplit("/", 1)[-1] or "camera"


def _set_pose(target: Any, row: np.ndarray) -> None:
    target.position.x, target.position.y, target.position.z = (float(v) for v in row[:3])
    quat = target.orientation
    quat.w, quat.x, quat.y, quat.z = (float(v) for v in row[3:7])
