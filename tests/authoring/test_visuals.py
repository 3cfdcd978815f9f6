"""Collision-visual copies of models for recording."""

from __future__ import annotations

import simulo
from simulo.authoring.urdf import check_urdf


def test_every_link_with_collision_gets_a_visual_and_the_model_stays_valid():
    arm = simulo.Asset.from_registry("simulo/robot/pick_arm:v1")
    drawn = arm.with_collision_visuals()
    assert arm.urdf_text.count("<visual") == 1  # only base_link is drawn in the catalog model
    assert drawn.urdf_text.count("<visual") == 8  # every link with a collision shape now has one
    model = check_urdf(drawn.urdf_text)
    assert model.joint_names == arm.model.joint_names
    assert drawn.source_path is None and drawn.urdf_path().is_file()
    assert "<inertial" in drawn.urdf_text and drawn.urdf_text.count("<collision") == arm.urdf_text.count("<collision")


def test_drawable_copy_of_a_catalog_model_is_not_written_into_the_package():
    arm = simulo.Asset.from_registry("simulo/robot/pick_arm:v1")
    path = arm.with_collision_visuals().urdf_path()
    assert arm.source_path is not None and path.parent != arm.source_path.parent
