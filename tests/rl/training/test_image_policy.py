"""Image policies: images in skrl's states, the CNN encoder, checkpoints, replay, evaluation and export."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from camera_tasks import camera_cartpole
from skrl.resources.preprocessors.torch import RunningStandardScaler

import simulo
from simulo.errors import ShapeError, SimuloValueError
from simulo.rl.evaluation import evaluate
from simulo.rl.training import PolicyPlayer, RLPlayer, RLTrainer
from simulo.rl.training.actors import ImageActor
from simulo.rl.training.agent import NumericScaler, PackedNet
from simulo.rl.training.encoders import default_encoder, pack_image, packed_width, unpack_image
from simulo.rl.training.export import export_checkpoint

CFG = {"rollouts": 4, "mini_batches": 2, "learning_epochs": 1}


def test_images_ride_in_float_states_bit_for_bit() -> None:
    gen = torch.Generator().manual_seed(0)
    images = torch.randint(0, 256, (5, 7, 5, 3), generator=gen, dtype=torch.uint8)
    images[0] = 255  # four 0xFF bytes are a float32 NaN: copies must keep them as they are
    packed = pack_image(images)
    assert packed.dtype == torch.float32 and packed.shape == (5, packed_width((7, 5, 3))) == (5, 27)
    states = torch.cat([torch.ones(5, 2), packed, torch.zeros(5, 1)], dim=1)
    copy = states[torch.tensor([4, 3, 2, 1, 0])].clone()[torch.tensor([4, 3, 2, 1, 0])]
    assert torch.equal(unpack_image(copy[:, 2:29], (7, 5, 3)), images)


def test_numeric_scaler_standardises_numbers_and_passes_image_bytes() -> None:
    scaler = NumericScaler(size=6, columns=[0, 5], device="cpu")
    x = torch.zeros(4, 6)
    x[:, 0] = torch.tensor([1.0, 2.0, 3.0, 4.0])
    x[:, 5] = torch.tensor([10.0, 10.0, 20.0, 20.0])
    x[:, 1:5] = pack_image(torch.full((4, 4, 1, 4), 255, dtype=torch.uint8))[:, :4]
    out = scaler(x, train=True)
    assert torch.equal(out[:, 1:5].view(torch.uint8), x[:, 1:5].view(torch.uint8))
    plain = RunningStandardScaler(size=2, device="cpu")
    assert torch.equal(out[:, [0, 5]], plain(x[:, [0, 5]], train=True))  # skrl's standardisation of those columns
    assert torch.equal(scaler.running_mean, plain.running_mean) and scaler.running_mean.shape == (2,)


def test_default_encoder_shrinks_each_size_to_a_map() -> None:
    assert default_encoder((100, 100, 3)).convs == ((16, 8, 4), (32, 4, 2), (32, 3, 1))
    assert default_encoder((32, 32, 3)).convs[0] == (16, 5, 2)
    assert default_encoder((8, 8, 3)).convs == ((16, 3, 1), (32, 3, 2))


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Two iterations on a 16x16 camera cartpole; its checkpoint; the frames the policy's CNN received."""
    folder = tmp_path_factory.mktemp("image-policy")
    task = camera_cartpole(16)()
    env = simulo.LearningEnv(task, num_envs=3, seed=0, enable_cameras=True)
    trainer = RLTrainer(env, device="cpu", seed=0, checkpoint_dir=folder, progress=False, agent_cfg=CFG)
    seen: list[torch.Tensor] = []
    encoder = trainer.agent.policy.net.core.encoders[0]
    hook = encoder.register_forward_pre_hook(lambda _, args: seen.append(args[0].clone()))
    stats = trainer.train(2)
    hook.remove()
    trainer.save(folder / "image.pt")
    inputs = task.get_policy_inputs()
    yield {"env": env, "task": task, "trainer": trainer, "stats": stats, "seen": seen, "path": folder / "image.pt",
           "inputs": inputs, "folder": folder}
    trainer.close()
    env.close()


def test_policy_cnn_sees_the_camera_frames_and_the_critic_is_an_mlp(trained: dict[str, Any]) -> None:
    trainer, seen = trained["trainer"], trained["seen"]
    assert isinstance(trainer.agent.policy.net, PackedNet)
    assert isinstance(trainer.agent.value.net, torch.nn.Sequential)  # the critic's inputs are numbers only
    assert trainer.observation_dim == 2 and trained["stats"]["iterations"] == 2
    assert all(x.dtype == torch.uint8 and x.shape[1:] == (16, 16, 3) for x in seen)
    assert int(seen[-1].max()) > int(seen[-1].min())  # a picture, not a constant
    assert isinstance(trainer.agent._state_preprocessor, NumericScaler)
    assert trainer.agent._state_preprocessor.running_mean.shape == (2 + 4,)  # velocities, then the critic's state


def test_checkpoint_rebuilds_the_image_actor(trained: dict[str, Any]) -> None:
    trainer, inputs = trained["trainer"], trained["inputs"]
    player = PolicyPlayer.from_checkpoint(trained["path"])
    assert player.input_names == ("image", "velocities") and player.observation_dim == 2
    assert torch.equal(player(inputs), trainer.act(inputs))
    single = player({"image": inputs["image"][1], "velocities": inputs["velocities"][1]})
    assert single.shape == (1,) and torch.allclose(single, player(inputs)[1], atol=1e-6)
    payload = torch.load(trained["path"], weights_only=True)
    assert payload["policy_architecture"] == "simulo.cnn-numeric.v1"
    assert payload["image_preprocessing"] == {"image": "center"}
    assert payload["policy_input_fingerprint"] == trained["task"].policy_input_schema.fingerprint
    assert payload["policy_architecture_config"]["encoder"]["convs"] == [[16, 3, 1], [32, 3, 2]]


def test_image_actor_actions_follow_the_picture(trained: dict[str, Any]) -> None:
    actor = PolicyPlayer.from_checkpoint(trained["path"])._actor
    assert isinstance(actor, ImageActor)
    inputs = trained["inputs"]
    dark = {"image": torch.zeros_like(inputs["image"]), "velocities": inputs["velocities"]}
    with torch.no_grad():
        assert not torch.allclose(actor.gaussian_mean(*inputs.values()), actor.gaussian_mean(*dark.values()))


def test_image_policy_inputs_are_checked(trained: dict[str, Any]) -> None:
    player, inputs = PolicyPlayer.from_checkpoint(trained["path"]), trained["inputs"]
    with pytest.raises(ShapeError, match=r"named inputs \['image', 'velocities'\]"):
        player(torch.zeros(3, 2))
    with pytest.raises(ShapeError, match=r"missing \['velocities'\]"):
        player({"image": inputs["image"]})
    with pytest.raises(ShapeError, match="dtype torch.float32: expected uint8"):
        player({"image": inputs["image"].float(), "velocities": inputs["velocities"]})
    with pytest.raises(ShapeError, match=r"shape \(3, 8, 8, 3\)"):
        player({"image": inputs["image"][:, :8, :8], "velocities": inputs["velocities"]})


def test_replay_and_evaluation_feed_the_task_policy_inputs(trained: dict[str, Any]) -> None:
    player = PolicyPlayer.from_checkpoint(trained["path"])
    result = RLPlayer(trained["env"], player).play(num_steps=3)
    assert result["steps"] == 3
    task = camera_cartpole(16)()
    report = evaluate(task, player, episodes=2, num_envs=2, success=lambda t: t.survived())
    assert report["result"]["episodes"] == 2


@pytest.mark.filterwarnings("ignore:`torch.jit.load` is deprecated:DeprecationWarning")
def test_image_policy_exports_with_named_inputs(trained: dict[str, Any]) -> None:
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    inputs, folder = trained["inputs"], trained["folder"]
    expected = PolicyPlayer.from_checkpoint(trained["path"])(inputs).numpy()
    onnx_file = export_checkpoint(trained["path"], folder / "image.onnx")
    session = ort.InferenceSession(onnx_file)
    assert [i.name for i in session.get_inputs()] == ["image", "velocities"]
    feed = {"image": inputs["image"].numpy(), "velocities": inputs["velocities"].numpy().astype(np.float32)}
    np.testing.assert_allclose(session.run(["actions"], feed)[0], expected, atol=1e-5)
    scripted = torch.jit.load(export_checkpoint(trained["path"], folder / "image.pt", "torchscript"))
    np.testing.assert_allclose(scripted(inputs["image"], inputs["velocities"]).detach().numpy(), expected, atol=1e-6)


def test_training_refuses_float_images_and_foreign_state_preprocessors(tmp_path: Path) -> None:
    class _FloatImage(camera_cartpole(8)):  # type: ignore[misc]
        def get_policy_inputs(self) -> Any:
            return {**super().get_policy_inputs(), "image": self.camera.read_rgb().float() / 255.0}

    env = simulo.LearningEnv(_FloatImage(), num_envs=2, seed=0, enable_cameras=True)
    try:
        trainer = RLTrainer(env, device="cpu", checkpoint_dir=tmp_path, progress=False, agent_cfg=CFG)
        with pytest.raises(ShapeError, match="input 'image' have dtype torch.float32: expected uint8"):
            trainer.train(1)

        class _Scaler(torch.nn.Module):
            def __init__(self, size: int, device: Any = None) -> None:
                super().__init__()

        with pytest.raises(SimuloValueError, match="image inputs takes skrl's RunningStandardScaler"):
            RLTrainer(env, device="cpu", checkpoint_dir=tmp_path, progress=False,
                      agent_cfg={**CFG, "state_preprocessor": _Scaler})
        plain = RLTrainer(env, device="cpu", checkpoint_dir=tmp_path, progress=False,
                          agent_cfg={**CFG, "state_preprocessor": RunningStandardScaler})
        assert isinstance(plain.agent._state_preprocessor, NumericScaler)
    finally:
        env.close()
