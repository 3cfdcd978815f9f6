"""Scene.add of a transform with a bad child adds nothing: no items, and the refused path does not become the root."""

from __future__ import annotations

import pytest

import simulo
from simulo.errors import SceneError


def test_transform_with_a_bad_child_is_not_half_added(cartpole):
    scene = simulo.Scene(num_envs=1)
    transform = simulo.Transform(name="t", pose=simulo.Pose.from_xyz(1, 0, 0))
    transform.add(simulo.Robot(asset=cartpole), at="Robot").add("not an item", at="x")
    with pytest.raises(SceneError, match="cannot add str"):
        scene.add(transform, at="/Stage/T")
    assert scene.get_items() == []
    assert scene.root == "/World"  # the refused path did not become the root
