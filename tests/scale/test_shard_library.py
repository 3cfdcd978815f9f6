"""A Ray shard's environment keeps the tensor library chosen when it is built and sends plain numpy arrays: the
same transitions, byte for byte, as a LearningEnv over the same environments in this process."""

from __future__ import annotations

import numpy as np
import pytest

from simulo.rl.local_env import LocalEnv
from simulo.scale.env_shard import EnvShard
from simulo.sim.tensors import to_numpy

torch = pytest.importorskip("torch")

from tests.rl.training.slider_tasks import Slider  # noqa: E402 (needs torch)


@pytest.mark.parametrize(("library", "kind"), [("numpy", np.ndarray), ("torch", torch.Tensor)])
def test_a_shard_steps_in_the_library_it_was_built_with_and_sends_the_same_bytes_as_numpy(library: str,
                                                                                         kind: type) -> None:
    options = {"seed": 3, "tensor_library": library, "envs_per_world": 2}
    shard = EnvShard()
    facts = shard.build(Slider(), 2, 2, 4, options)
    one = LocalEnv(Slider(), 2, shard=(2, 4), **options)
    try:
        assert facts["uses_torch"] == (library == "torch")
        np.testing.assert_array_equal(shard.reset(None), to_numpy(one.reset()[0], "obs"))
        for push in (1.0, -0.5, 0.25):
            actions = np.array([[push], [-push]])
            sent = shard.step(actions)
            expected = one.step(actions)
            for got, want in zip(sent[:4], expected[:4], strict=True):
                assert type(got) is np.ndarray and isinstance(want, kind)
                assert got.dtype == to_numpy(want, "want").dtype and got.tobytes() == to_numpy(want, "want").tobytes()
        assert isinstance(shard.env.observations(), kind)  # the shard's own outputs never switched library
        assert float(np.abs(sent[0][:, 0]).max()) > 0.0  # the pushes moved the carts
    finally:
        shard.env.close()
        one.close()
