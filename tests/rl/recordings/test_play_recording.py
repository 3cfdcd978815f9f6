"""RLPlayer.play(record=...): an MCAP in the VizStream layout read back with ``mcap``, and an MP4 at the step rate."""

from __future__ import annotations

import base64
import io
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from recording_tasks import CameraCartpole, CubeCartpole, SharedCameraCartpole

import simulo
from simulo.errors import SimuloValueError
from simulo.rl.recordings import schemas
from simulo.rl.recordings.config import plan_recording
from simulo.rl.recordings.rollout import RolloutRecorder

mcap_reader = pytest.importorskip("mcap.reader")
imageio = pytest.importorskip("imageio")

STEPS = 12


def _record(tmp_path: Path, num_envs: int = 2, task: simulo.Task | None = None,
            last_images: list[np.ndarray] | None = None, **config) -> tuple[list[Path], float]:
    """Roll ``STEPS`` steps of pushes through the recorder; returns the files and the policy step dt.

    With ``last_images``, the cameras' last images of environment 0 are appended to it.
    """
    cameras = isinstance(task, (CameraCartpole, SharedCameraCartpole, SlowCameraCartpole))
    env = simulo.LearningEnv(task or CubeCartpole(), num_envs=num_envs, tensor_library="numpy",
                             enable_cameras=cameras)
    try:
        plan = plan_recording(simulo.RecordConfig(output_path=tmp_path / "run.mcap", **config), num_envs, env.dt)
        assert plan is not None
        recorder = RolloutRecorder(env, plan, scene_id="test")
        env.reset()
        recorder.begin()
        for k in range(STEPS):
            actions = np.full((num_envs, 1), np.sin(k / 3.0))
            _, rewards, terminated, truncated, _ = env.step(actions)
            recorder.step(actions, rewards, terminated, truncated)
        if last_images is not None:
            last_images += [np.asarray(camera.read_rgb())[0] for camera in recorder.layout.cameras]
        return recorder.close(), env.dt
    finally:
        env.close()


def _read(path: Path) -> list[tuple[object, object, object]]:
    with open(path, "rb") as stream:
        return list(mcap_reader.make_reader(stream).iter_messages(log_time_order=True))


def test_mcap_holds_the_vizstream_channels_with_their_schemas_counts_and_times(tmp_path: Path) -> None:
    files, dt = _record(tmp_path, include_tf=True)
    assert files == [tmp_path / "run.mcap"]
    messages = _read(files[0])
    channels = {channel.topic: (schema.name, schema.encoding, schema.data, channel.message_encoding)
                for schema, channel, _ in messages}
    expected = {schemas.SCENE_TOPIC: schemas.SCENE, schemas.POSES_TOPIC: schemas.POSE_FRAME,
                schemas.STEP_TOPIC: schemas.STEP_FRAME, schemas.EVENTS_TOPIC: schemas.EVENT,
                schemas.FOXGLOVE_TF_TOPIC: schemas.FOXGLOVE_FRAME_TRANSFORMS}
    assert set(channels) == set(expected)
    for topic, name in expected.items():
        assert channels[topic] == (name, "protobuf", schemas.schema_data(name), "protobuf")
    counts = Counter(channel.topic for _, channel, _ in messages)
    # the reset state and every step; one episode start, then two 5-step episodes end and the next ones start
    assert counts == {schemas.SCENE_TOPIC: 1, schemas.POSES_TOPIC: STEPS + 1, schemas.STEP_TOPIC: STEPS + 1,
                      schemas.FOXGLOVE_TF_TOPIC: STEPS + 1, schemas.EVENTS_TOPIC: 5}
    pose_times = [m.log_time for _, c, m in messages if c.topic == schemas.POSES_TOPIC]
    assert pose_times == [round(k * dt * 1e9) for k in range(STEPS + 1)]  # simulated time, dt per policy step


def test_scene_poses_and_joints_describe_the_robot_and_the_prop(tmp_path: Path) -> None:
    files, _ = _record(tmp_path, num_envs=2)
    decoded: dict[str, list[object]] = {}
    for schema, channel, message in _read(files[0]):
        decoded.setdefault(channel.topic, []).append(schemas.decode(schema.name, message.data))
    scene = decoded[schemas.SCENE_TOPIC][0]
    assert scene.copies_per_rank == 2 and list(scene.copy_origins)[3:] == [0.0, 4.0, 0.0]
    robot, cube = scene.bodies
    assert (robot.path, robot.kind, list(robot.joint_names)) == ("/World/Robot", 1, ["slider_to_cart", "cart_to_pole"])
    assert [link.path for link in robot.links] == ["/World/Robot/slider", "/World/Robot/cart", "/World/Robot/pole"]
    assert (cube.path, cube.kind) == ("/World/Cube", 2)
    assert list(scene.pose_layout.body_paths) == ["/World/Cube"]
    first, last = decoded[schemas.POSES_TOPIC][0], decoded[schemas.POSES_TOPIC][-1]
    assert [c.copy_id for c in last.focused] == [0]  # env_indices default to (0,)
    assert len(last.focused[0].link_poses) == 3 * 7 and len(last.focused[0].body_poses) == 7
    assert first.focused[0].body_poses[2] == pytest.approx(1.0, abs=1e-6)  # the cube starts 1 m up, copy frame
    assert last.focused[0].body_poses[2] < 1.0  # and falls
    step = decoded[schemas.STEP_TOPIC][3].copies[0]
    assert [j.name for j in step.joints] == ["slider_to_cart", "cart_to_pole"] and step.reward == 1.0
    assert step.actions[0].value == pytest.approx(np.sin(2 / 3.0))  # step 3 ran the action of k = 2
    ends = [e.episode_end for e in decoded[schemas.EVENTS_TOPIC] if e.WhichOneof("kind") == "episode_end"]
    assert [(e.episode_index, e.length_steps, e.truncated) for e in ends] == [(0, 5, True), (1, 5, True)]


def test_include_video_writes_an_mp4_at_the_step_rate(tmp_path: Path) -> None:
    files, dt = _record(tmp_path, include_video=True, record_every_n_steps=2)
    assert files == [tmp_path / "run.mcap", tmp_path / "run.mp4"]
    reader = imageio.v2.get_reader(files[1], format="FFMPEG")
    try:
        assert reader.count_frames() == STEPS // 2 + 1
        assert reader.get_meta_data()["fps"] == pytest.approx(1.0 / (2 * dt))
        frame = reader.get_data(0)
    finally:
        reader.close()
    assert frame.shape == (240, 320, 3) and frame.std() > 5  # the renderer drew something


def test_a_video_of_an_environment_without_visual_shapes_is_refused_before_any_file(tmp_path: Path) -> None:
    from simulo.sim.simulation import DRAWN_ENVS

    env = simulo.LearningEnv(CubeCartpole(), num_envs=DRAWN_ENVS + 1, tensor_library="numpy")
    try:
        plan = plan_recording(simulo.RecordConfig(output_path=tmp_path / "run.mcap", include_video=True,
                                                  env_indices=[DRAWN_ENVS]), DRAWN_ENVS + 1, env.dt)
        assert plan is not None
        with pytest.raises(SimuloValueError, match=f"render env {DRAWN_ENVS}: .*visuals=True"):
            RolloutRecorder(env, plan, scene_id="test")
    finally:
        env.close()
    assert list(tmp_path.iterdir()) == []


def test_camera_images_go_to_the_mcap_as_png_and_the_first_camera_films_the_mp4(tmp_path: Path) -> None:
    last: list[np.ndarray] = []
    files, _ = _record(tmp_path, task=CameraCartpole(), last_images=last, include_video=True)
    images = [(schema, message) for schema, channel, message in _read(files[0])
              if channel.topic == "/sensors/camera/side/image"]
    assert len(images) == STEPS + 1
    assert {(s.name, s.encoding) for s, _ in images} == {("foxglove.CompressedImage", "jsonschema")}
    payload = json.loads(images[-1][1].data)
    assert (payload["format"], payload["frame_id"]) == ("png", "side")
    assert payload["timestamp"]["sec"] * 10**9 + payload["timestamp"]["nsec"] == images[-1][1].log_time
    png = imageio.v3.imread(io.BytesIO(base64.b64decode(payload["data"])), extension=".png")
    np.testing.assert_array_equal(png, last[0])  # lossless: the camera's own pixels
    scene = next(schemas.decode(s.name, m.data) for s, c, m in _read(files[0]) if c.topic == schemas.SCENE_TOPIC)
    (camera,) = scene.cameras
    assert (camera.name, camera.width, camera.height, camera.cx, camera.cy) == ("side", 64, 48, 32.0, 24.0)
    reader = imageio.v2.get_reader(files[1], format="FFMPEG")
    try:
        assert reader.get_data(0).shape == (48, 64, 3) and reader.count_frames() == STEPS + 1
    finally:
        reader.close()


class SlowCameraCartpole(CubeCartpole):
    """The camera cartpole with a camera that takes a new image every third policy step (``update_period``)."""

    def build(self, scene):
        super().build(scene)
        scene.add(simulo.Camera(width=64, height=48, update_period=3 * 2 / 120.0,
                                offset=simulo.SensorOffset.look_at(pos=(3, -3, 3), target=(0, 0, 2))), at="/World/side")


def test_a_camera_image_goes_in_once_per_update_period(tmp_path: Path) -> None:
    files, dt = _record(tmp_path, task=SlowCameraCartpole(), include_video=True)
    times = [message.log_time for _, channel, message in _read(files[0])
             if channel.topic == "/sensors/camera/side/image"]
    assert times == [round(k * 3 * dt * 1e9) for k in range(STEPS // 3 + 1)]  # steps 0, 3, 6, 9, 12
    reader = imageio.v2.get_reader(files[1], format="FFMPEG")
    try:
        assert reader.count_frames() == STEPS + 1  # the film still has a frame per step
    finally:
        reader.close()


def test_core_profile_leaves_out_robot_state(tmp_path: Path) -> None:
    files, _ = _record(tmp_path, profile="core")
    topics = {channel.topic for _, channel, _ in _read(files[0])}
    assert topics == {schemas.SCENE_TOPIC, schemas.STEP_TOPIC, schemas.EVENTS_TOPIC}


def test_default_recordings_go_to_the_run_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMULO_RUN_DIR", str(tmp_path))
    (tmp_path / "recordings").mkdir()
    (tmp_path / "recordings" / "play-0001.mcap").write_bytes(b"")
    plan = plan_recording(simulo.RecordConfig(include_video=True), 4, 0.02)
    assert plan is not None and plan.mcap_path == tmp_path / "recordings" / "play-0002.mcap"
    assert plan.video_path == tmp_path / "recordings" / "play-0002.mp4" and plan.fps == pytest.approx(50.0)
    folder = plan_recording(str(tmp_path / "elsewhere"), 4, 0.02)
    assert folder is not None and folder.mcap_path == tmp_path / "elsewhere" / "play-0001.mcap"


@pytest.mark.parametrize(("record", "match"), [
    (42, "record=42"),
    (simulo.RecordConfig(env_indices=(5,)), "env_indices"),
    ("out.txt", "output_path"),
])
def test_bad_record_arguments_are_refused(record: object, match: str) -> None:
    with pytest.raises(SimuloValueError, match=match):
        plan_recording(record, 4, 0.02)


@pytest.mark.slow  # imports torch and trains one iteration (~15 s)
def test_play_with_record_writes_the_files_and_lists_them(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from simulo.rl.training import RLPlayer, RLTrainer

    env = simulo.LearningEnv(CubeCartpole(), num_envs=2, tensor_library="numpy")
    try:
        RLTrainer(env, device="cpu", seed=0, checkpoint_dir=tmp_path / "ckpt", progress=False,
                  agent_cfg={"rollouts": 4}).train(1)
        player = RLPlayer(env, tmp_path / "ckpt" / "latest.pt")
        result = player.play(num_episodes=2, record=simulo.RecordConfig(output_path=tmp_path / "rec",
                                                                         include_video=True))
        video = player.play(num_steps=4, video_path=str(tmp_path / "v.mp4"), video_length=3)
    finally:
        env.close()
    assert result["recordings"] == [str(tmp_path / "rec" / "play-0001.mcap"), str(tmp_path / "rec" / "play-0001.mp4")]
    steps = Counter(c.topic for _, c, _ in _read(Path(result["recordings"][0])))[schemas.STEP_TOPIC]
    assert steps == result["steps"] + 1
    assert video["recordings"] == [str(tmp_path / "v.mp4")]
    assert player.recorder is not None and player.recorder.plan.video_path == tmp_path / "v.mp4"
    reader = imageio.v2.get_reader(tmp_path / "v.mp4", format="FFMPEG")
    try:
        assert reader.count_frames() == 3  # video_length caps the film
    finally:
        reader.close()
    assert json.loads(json.dumps(result))["episodes"] >= 2


def test_the_same_rollout_gives_the_same_file(tmp_path: Path) -> None:
    first, _ = _record(tmp_path / "a", include_tf=True)
    second, _ = _record(tmp_path / "b", include_tf=True)
    assert first[0].read_bytes() == second[0].read_bytes()  # log times are simulated time


def test_a_shared_camera_is_recorded_once_per_step_whatever_the_copies(tmp_path: Path) -> None:
    files, _ = _record(tmp_path, num_envs=2, task=SharedCameraCartpole(), include_video=True, env_indices=(0, 1))
    topics = Counter(channel.topic for _, channel, _ in _read(files[0]))
    assert topics["/sensors/camera/overview/image"] == STEPS + 1
    reader = imageio.v2.get_reader(files[1], format="FFMPEG")
    try:
        assert reader.get_data(0).shape == (24, 32, 3)
    finally:
        reader.close()
