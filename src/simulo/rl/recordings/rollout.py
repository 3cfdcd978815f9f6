"""Record a rollout as it runs: the MCAP (VizStream layout) and the video of a :class:`RecordingPlan`.

:class:`RolloutRecorder` is driven by the loop that steps the environment: :meth:`~RolloutRecorder.begin`
after the reset, :meth:`~RolloutRecorder.step` after every batched step with what it returned, and
:meth:`~RolloutRecorder.close` at the end. Log times are simulated time (policy step ``k`` is at
``k * dt``), so the same rollout gives the same file. What goes in follows the plan's ``include_*`` flags:

* ``/vizstream/scene`` once; ``/vizstream/poses`` and the joints of ``/vizstream/step`` with
  ``robot_state``; the step's actions and rewards with ``policy_actions`` and ``rewards``;
* ``/vizstream/events`` (episode starts and ends) with ``events``;
* ``/vizstream/foxglove/tf`` (every link as a Foxglove frame) with ``tf`` or ``per_link_tf``;
* the scene's camera images with ``video``, each camera at its ``update_period`` (each frame for 0).

The video shows the first recorded environment (``env_ids[0]``, environment 0 by default): through the
scene's first camera, else the engine's CPU renderer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from simulo.rl.recordings import schemas
from simulo.rl.recordings.config import RecordingPlan
from simulo.rl.recordings.frames import frame_transforms
from simulo.rl.recordings.layout import SceneLayout, camera_name, numpy_rows
from simulo.rl.recordings.mcap_file import McapFile
from simulo.rl.recordings.video import FrameStream
from simulo.sim.simulation import Simulation

VIDEO_SIZE = (320, 240)


def simulation_of(env: Any) -> Simulation | None:
    """The :class:`~simulo.sim.simulation.Simulation` behind an environment, or ``None``."""
    sim = getattr(env, "sim", None)
    return sim if isinstance(sim, Simulation) else None


class RolloutRecorder:
    """Writes one rollout of ``env`` as ``plan`` says.

    Args:
        env: The batched environment (a :class:`simulo.LearningEnv` records its scene; another environment
            records actions, rewards and episodes).
        plan: What and where to record.
        scene_id: Names the run in the recording.
        sink: Where the VizStream messages go instead of the plan's MCAP file: an object with
            :class:`~simulo.rl.recordings.mcap_file.McapFile`'s ``write``, ``write_image`` and ``close``.

    Raises:
        SimuloValueError: A video is asked for and the environment has no simulation to draw.
        MissingDependencyError: mcap, protobuf or imageio-ffmpeg is not installed (nothing is created).
    """

    def __init__(self, env: Any, plan: RecordingPlan, scene_id: str, sink: Any = None) -> None:
        from simulo.errors import SimuloValueError  # noqa: PLC0415

        self.plan = plan
        self.env = env
        self.sim = simulation_of(env)
        num_envs = int(env.num_envs)
        self.dt = float(getattr(env, "dt", 1.0))
        self.layout = SceneLayout(self.sim, num_envs, plan.env_ids)
        if plan.video_path is not None and self.sim is None:
            raise SimuloValueError(f"cannot film {plan.video_path}: the environment {type(env).__name__} has no "
                                   "simulation to draw (record a simulo.LearningEnv)")
        if plan.video_path is not None and self.sim is not None and not self.layout.cameras:
            self.sim.check_drawn(plan.env_ids[0])  # refused before any file is made, not at the first frame
        self.video = None if plan.video_path is None else FrameStream(plan.video_path, plan.fps)
        self.mcap: McapFile | None = sink  # a sink with McapFile's write methods (a live stream)
        if sink is None and plan.mcap_path is not None:
            self.mcap = McapFile(plan.mcap_path, plan.compression,
                                 {"scene_id": scene_id, "schema_version": "simulo.vizstream.v1",
                                  "env_ids": ",".join(str(i) for i in plan.env_ids)})
        self.scene_id = scene_id
        self.steps = 0
        self._episode = {i: 0 for i in plan.env_ids}
        self._episode_step = {i: 0 for i in plan.env_ids}
        self._return = {i: 0.0 for i in plan.env_ids}
        self._sequence = {topic: 0 for topic in schemas.BY_TOPIC}
        self._view: tuple[list[float], list[float]] | None = None
        self._action_dim = int(getattr(env, "action_dim", 0))
        self._film = plan.env_ids[0]
        self._at_s: float | None = None  # the time of a capture()
        self.scene_message: Any = None  # the Scene begin() wrote
        self._camera_times: dict[int, float] = {}  # when each camera's last image went in

    def _sim_time_s(self) -> float:
        return self.steps * self.dt if self._at_s is None else self._at_s

    def _time_ns(self) -> int:
        return round(self._sim_time_s() * 1e9)

    def _next(self, topic: str) -> int:
        self._sequence[topic] += 1
        return self._sequence[topic] - 1

    def begin(self) -> None:
        """Record the scene and the state after the reset (step 0)."""
        if self.mcap is not None:
            names = [f"action_{k}" for k in range(self._action_dim)]
            self.scene_message = self.layout.scene(self.scene_id, self.dt, names)
            self.mcap.write(schemas.SCENE_TOPIC, self.scene_message, self._time_ns())
            for env in self.plan.env_ids:
                self._event(env, "episode_start")
        if self.sim is not None and self.video is not None and not self.layout.cameras:
            self._view = self.layout.camera_view(self._film)
        self._frame(None, None)

    def step(self, actions: Any, rewards: Any, terminated: Any, truncated: Any) -> None:
        """Record what one batched step did (``rewards``, ``terminated``, ``truncated``: (num_envs,))."""
        self.steps += 1
        reward = numpy_rows(rewards).reshape(-1)
        ended = numpy_rows(terminated).reshape(-1) > 0
        cut = numpy_rows(truncated).reshape(-1) > 0
        for env in self.plan.env_ids:
            self._episode_step[env] += 1
            self._return[env] += float(reward[env])
        if self.steps % self.plan.every_n_steps == 0:
            self._frame(numpy_rows(actions).reshape(len(reward), -1), reward)
        for env in self.plan.env_ids:
            if ended[env] or cut[env]:
                if self.mcap is not None:
                    self._event(env, "episode_end", terminated=bool(ended[env]), truncated=bool(cut[env]))
                self._episode[env] += 1
                self._episode_step[env] = 0
                self._return[env] = 0.0
                if self.mcap is not None:
                    self._event(env, "episode_start")

    def capture(self, time_s: float, global_step: int) -> None:
        """Record the state now as the frame at ``time_s`` simulated seconds, ``global_step`` physics steps in.

        For rollouts that step the physics themselves (a preview's checks) instead of through :meth:`step`.
        """
        self.steps, self._at_s = int(global_step), float(time_s)
        try:
            self._frame(None, None)
        finally:
            self._at_s = None

    def _frame(self, actions: np.ndarray | None, rewards: np.ndarray | None) -> None:
        time_ns = self._time_ns()
        if self.mcap is not None:
            self._write_frame(time_ns, actions, rewards)
        if self.video is not None and (self.plan.video_frames is None
                                       or self.video.frame_count < self.plan.video_frames):
            self.video.send(self._video_frame())

    def _write_frame(self, time_ns: int, actions: np.ndarray | None, rewards: np.ndarray | None,
                     with_images: bool = True) -> None:
        assert self.mcap is not None
        plan, sim_time = self.plan, self._sim_time_s()
        state = plan.wants("robot_state") and self.sim is not None
        if state:
            poses = schemas.new(schemas.POSE_FRAME, sequence=self._next(schemas.POSES_TOPIC), sim_time_s=sim_time,
                                global_step=self.steps)
            for env in plan.env_ids:
                self.layout.fill_poses(poses.focused.add(copy_id=env, episode_index=self._episode[env]), env)
            self.mcap.write(schemas.POSES_TOPIC, poses, time_ns)
            if plan.wants("tf") or plan.wants("per_link_tf"):
                self.mcap.write(schemas.FOXGLOVE_TF_TOPIC, self._transforms(poses, time_ns), time_ns)
        step = schemas.new(schemas.STEP_FRAME, sequence=self._next(schemas.STEP_TOPIC), sim_time_s=sim_time,
                           global_step=self.steps)
        for env in plan.env_ids:
            copy = step.copies.add(copy_id=env, episode_index=self._episode[env],
                                   episode_step=self._episode_step[env])
            if state:
                self.layout.fill_joints(copy, env)
            if actions is not None and plan.wants("policy_actions"):
                for k, value in enumerate(actions[env]):
                    copy.actions.add(name=f"action_{k}", value=float(value))
            if rewards is not None and plan.wants("rewards") and np.isfinite(rewards[env]):
                copy.reward = float(rewards[env])
        self.mcap.write(schemas.STEP_TOPIC, step, time_ns)
        if with_images and plan.wants("video"):
            for camera in self.layout.cameras:
                if not self._camera_due(camera, sim_time):
                    continue
                images = _pixels(camera.read_rgb())
                if len(images) == 1:  # a camera shared by every environment
                    self.mcap.write_image(camera_name(camera), images[0], time_ns)
                    continue
                for env in plan.env_ids:
                    name = camera_name(camera) if len(plan.env_ids) == 1 else f"{camera_name(camera)}/copy_{env}"
                    self.mcap.write_image(name, images[env], time_ns)

    def _camera_due(self, camera: Any, sim_time: float) -> bool:
        """Whether ``camera`` has a new image at ``sim_time``: one each ``update_period`` (each frame for 0)."""
        period = float(getattr(camera, "update_period", 0.0) or 0.0)
        last = self._camera_times.get(id(camera))
        if last is not None and sim_time - last < period - 1e-9:
            return False
        self._camera_times[id(camera)] = sim_time
        return True

    def _video_frame(self) -> np.ndarray:
        assert self.sim is not None
        if self.layout.cameras:
            images = _pixels(self.layout.cameras[0].read_rgb())
            return images[min(self._film, len(images) - 1)]  # one row: a shared camera
        assert self._view is not None
        return self.sim.render(self._film, *VIDEO_SIZE, eye=self._view[0], target=self._view[1])

    def _transforms(self, poses: Any, time_ns: int) -> Any:
        paths = self.layout.link_paths + [path for path, _ in self.layout.props]
        return frame_transforms(poses, self.layout.origins, paths, time_ns)

    def _event(self, env: int, kind: str, terminated: bool = False, truncated: bool = False) -> None:
        assert self.mcap is not None
        if not self.plan.wants("events"):
            return
        event = schemas.new(schemas.EVENT, sequence=self._next(schemas.EVENTS_TOPIC), sim_time_s=self._sim_time_s(),
                            global_step=self.steps, copy_id=env)
        if kind == "episode_start":
            event.episode_start.SetInParent()
            event.episode_start.episode_index = self._episode[env]
        else:
            end = event.episode_end
            end.SetInParent()
            end.episode_index, end.terminated, end.truncated = self._episode[env], terminated, truncated
            end.length_steps, end.total_return = self._episode_step[env], self._return[env]
        self.mcap.write(schemas.EVENTS_TOPIC, event, self._time_ns())

    def close(self) -> list[Path]:
        """Finish the files; returns their paths (MCAP first). Idempotent."""
        paths = []
        if self.mcap is not None:
            paths.append(self.mcap.close())
        if self.video is not None and self.video.frame_count:
            paths.append(self.video.close())
        return paths


def _pixels(value: Any) -> np.ndarray:
    """Camera images (numpy array or torch tensor) as a uint8 numpy array."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=np.uint8)
