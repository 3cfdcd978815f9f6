"""What a robot's model file asks of the scene and the engine beyond its URDF (a USD stage's
:class:`~simulo.authoring.model_physics.ModelPhysics`): the solver's iterations and the bodies' contact materials."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from simulo.authoring.model_physics import engine_friction
from simulo.engine.base import ArticulationBatch
from simulo.sim.robot import Robot


def solver_iterations(robots: Iterable[Robot], given: int | None, engine_default: int) -> int | None:
    """The scene's solver iterations: ``given`` when the simulation names them, else the most any robot asks for
    (its ``ArticulationConfig.solver_position_iterations``, else its model file's) when that is above the engine's
    default, else None (the engine's default). A request is a floor: the engines' own counts (PyBullet 50, MuJoCo
    100) are already above most files' (PhysX's 4 to 32), and a lower count would only loosen the solve."""
    if given is not None:
        return given
    asked = [robot.articulation.solver_position_iterations or robot.asset.physics.solver_iterations or 0
             for robot in robots]
    most = max(asked, default=0)
    return most if most > engine_default else None


def apply_surfaces(batch: ArticulationBatch, robot: Robot, friction_rule: str) -> None:
    """Give the robot's bodies the contact materials of its model file, in every environment.

    ``friction_rule`` is the engine's (``"multiply"`` or ``"max"``): a body's coefficient is chosen so that the
    engine's contacts come nearest to the file's combine mode
    (:func:`~simulo.authoring.model_physics.engine_friction`). Restitution is set only when some material has one
    above 0; the robot's other bodies then get 0, both engines' default.
    """
    surfaces = robot.asset.physics.surfaces
    if not surfaces:
        return
    names = list(batch.body_names)
    for surface in surfaces:
        batch.set_body_friction(names.index(surface.body), engine_friction(surface, friction_rule))
    if any(surface.restitution > 0 for surface in surfaces):
        restitution = np.zeros((batch.num_envs, len(names)))
        for surface in surfaces:
            restitution[:, names.index(surface.body)] = surface.restitution
        batch.set_link_surface(range(batch.num_envs), None, restitution)
