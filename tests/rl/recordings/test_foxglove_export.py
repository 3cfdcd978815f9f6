"""``simulo recordings RUN NAME --format foxglove -o FILE``: a new MCAP for Foxglove, read back with ``mcap``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from recording_tasks import CubeCartpole

import simulo
from simulo.cli import main as cli_main
from simulo.rl.recordings import schemas
from simulo.rl.recordings.config import plan_recording
from simulo.rl.recordings.foxglove import RecordingExportError, export_foxglove
from simulo.rl.recordings.rollout import RolloutRecorder

mcap_reader = pytest.importorskip("mcap.reader")

STEPS = 6


def _record(path: Path, **config: object) -> Path:
    env = simulo.LearningEnv(CubeCartpole(), num_envs=2, tensor_library="numpy")
    try:
        plan = plan_recording(simulo.RecordConfig(output_path=path, env_indices=(0, 1), **config), 2, env.dt)
        assert plan is not None
        recorder = RolloutRecorder(env, plan, scene_id="test")
        env.reset()
        recorder.begin()
        for k in range(STEPS):
            actions = np.full((2, 1), np.sin(k / 3.0))
            _, rewards, terminated, truncated, _ = env.step(actions)
            recorder.step(actions, rewards, terminated, truncated)
        return recorder.close()[0]
    finally:
        env.close()


def _read(path: Path) -> tuple[list[tuple[object, object, object]], dict[str, dict[str, str]]]:
    with open(path, "rb") as stream:
        reader = mcap_reader.make_reader(stream)
        messages = list(reader.iter_messages(log_time_order=True))
        return messages, {m.name: dict(m.metadata) for m in reader.iter_metadata()}


def _run(root: Path) -> Path:
    folder = root / "runs" / "app" / "play" / "0001"
    (folder / "recordings").mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"status": "completed"}), encoding="utf-8")
    (folder / "request.json").write_text("{}", encoding="utf-8")
    return folder


def test_export_copies_every_message_and_adds_the_links_as_foxglove_frames(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    run = _run(tmp_path)
    source = _record(run / "recordings" / "play-0001.mcap")
    before = source.read_bytes()
    out = tmp_path / "out" / "cube.mcap"
    assert cli_main.main(["recordings", "app/play/0001", "play-0001", "--format", "foxglove", "-o", str(out),
                          "--runs-dir", str(tmp_path / "runs")]) == 0
    assert capsys.readouterr().out.startswith(f"{out} (")
    assert source.read_bytes() == before  # the recording is left unchanged
    original, _ = _read(source)
    exported, metadata = _read(out)
    assert metadata["simulo.recording"]["export_format"] == "foxglove"
    assert metadata["simulo.recording"]["exported_from"] == "play-0001.mcap"
    assert metadata["simulo.recording"]["scene_id"] == "test"
    copied = [(c.topic, s.name, m.log_time, m.data) for s, c, m in exported if c.topic != schemas.FOXGLOVE_TF_TOPIC]
    assert copied == [(c.topic, s.name, m.log_time, m.data) for s, c, m in original]
    counts = Counter(c.topic for _, c, _ in exported)
    assert counts[schemas.FOXGLOVE_TF_TOPIC] == counts[schemas.POSES_TOPIC] == STEPS + 1
    scene = next(schemas.decode(schemas.SCENE, m.data) for _, c, m in original if c.topic == schemas.SCENE_TOPIC)
    poses = [schemas.decode(schemas.POSE_FRAME, m.data) for _, c, m in original if c.topic == schemas.POSES_TOPIC]
    tf_schema, _, tf = next((s, c, m) for s, c, m in exported if c.topic == schemas.FOXGLOVE_TF_TOPIC)
    assert (tf_schema.name, tf_schema.data) == (schemas.FOXGLOVE_FRAME_TRANSFORMS,
                                                schemas.schema_data(schemas.FOXGLOVE_FRAME_TRANSFORMS))
    frames = schemas.decode(schemas.FOXGLOVE_FRAME_TRANSFORMS, tf.data).transforms
    paths = [*scene.pose_layout.link_paths, *scene.pose_layout.body_paths]
    assert [(t.parent_frame_id, t.child_frame_id) for t in frames] == [
        (parent, child) for copy in (0, 1) for parent, child in
        [("world", f"copy_{copy}"), *((f"copy_{copy}", f"copy_{copy}{path}") for path in paths)]]
    assert frames[1].translation.z == pytest.approx(poses[0].focused[0].link_poses[2])
    assert frames[len(paths) + 1].translation.y == pytest.approx(4.0)  # copy 1's origin


def test_a_recording_with_frames_keeps_them_and_the_default_file_is_beside(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    source = _record(tmp_path / "rec" / "tf.mcap", include_tf=True)
    monkeypatch.chdir(tmp_path)
    done = export_foxglove(source, tmp_path / "tf.foxglove.mcap")
    assert done.transforms == 0
    original, _ = _read(source)
    exported, _ = _read(done.path)
    assert [(c.topic, m.data) for _, c, m in exported] == [(c.topic, m.data) for _, c, m in original]


def test_bad_exports_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _run(tmp_path)
    _record(run / "recordings" / "play-0001.mcap")
    taken = tmp_path / "taken.mcap"
    taken.write_bytes(b"x")
    runs = ["--runs-dir", str(tmp_path / "runs")]
    for argv, needle in [
        (["--format", "foxglove", "-o", str(taken)], "exists; choose a new file path"),
        (["--format", "foxglove", "-o", str(tmp_path / "x.txt")], "name a new .mcap file"),
        (["--format", "obj"], "--format 'obj' is not an export format"),
        (["app/play/0001", "nope", "--format", "foxglove"], "has no recording 'nope'"),
        (["-o", str(tmp_path / "y.mcap")], "add --format foxglove"),
        (["--format"], "--format needs a value"),
    ]:
        assert cli_main.main(["recordings", *argv, *runs]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("simulo recordings: error: ") and needle in err and err.count("\n") == 1, err
    with pytest.raises(RecordingExportError, match="is not a readable MCAP"):
        bad = tmp_path / "bad.mcap"
        bad.write_bytes(b"not an mcap")
        export_foxglove(bad, tmp_path / "new.mcap")
