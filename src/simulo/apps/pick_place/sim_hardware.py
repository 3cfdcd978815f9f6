"""The hardware interface of :mod:`simulo.apps.pick_place.hardware`, implemented by a one-environment cell.

:class:`SimulatedArm` and :class:`SimulatedGripper` give one environment of a
:class:`~simulo.apps.pick_place.cell.PickPlaceCell` the shape of a vendor driver, so
:func:`~simulo.apps.pick_place.hardware.run_pick_and_place` runs on the simulation unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simulo.apps.pick_place.cell import PickPlaceCell
from simulo.apps.pick_place.config import GRIP_FORCE, OPENING
from simulo.errors import SimuloValueError


class SimulatedArm:
    """The :class:`~simulo.apps.pick_place.hardware.RobotArm` of a one-environment cell.

    Moves are named for the collision check's errors from ``move_names`` in order (``"move N"`` after that).
    A move to where the tcp already is does nothing (the seed starts at the hover pose).
    """

    def __init__(self, cell: PickPlaceCell, move_names: Sequence[str] = ()) -> None:
        if cell.num_envs != 1:
            raise SimuloValueError(f"SimulatedArm drives a one-environment cell, got {cell.num_envs} environments")
        self.cell = cell
        self.move_names = list(move_names)
        self.moves = 0

    def move_linear(self, x: float, y: float, z: float, yaw: float, speed: float) -> None:
        """Move the tcp in a straight line to (x, y, z) with the fingers across ``yaw`` at ``speed`` m/s."""
        name = self.move_names[self.moves] if self.moves < len(self.move_names) else f"move {self.moves + 1}"
        self.moves += 1
        self.cell.move(name, np.array([[x, y, z]]), np.array([yaw]), np.array([speed]))


class SimulatedGripper:
    """The :class:`~simulo.apps.pick_place.hardware.Gripper` of a one-environment cell.

    ``open`` on an open gripper does nothing; ``close`` squeezes towards the centre line; both settle
    240 steps (1 s). ``holding_object`` is :meth:`PickPlaceCell.holding`.
    """

    def __init__(self, cell: PickPlaceCell) -> None:
        if cell.num_envs != 1:
            raise SimuloValueError(f"SimulatedGripper drives a one-environment cell, got {cell.num_envs} environments")
        self.cell = cell

    def open(self) -> None:
        """Open the fingers to 35 mm each and wait for them."""
        if not self.cell.gripper_open[0]:
            self.cell.grip(OPENING, GRIP_FORCE)

    def close(self, force: float) -> None:
        """Drive the fingers past the cube faces so they squeeze it with ``force`` N each."""
        self.cell.grip(0.0, force)

    def holding_object(self) -> bool:
        """Finger gap about the cube size and contact on both fingers."""
        return bool(self.cell.holding()[0])
