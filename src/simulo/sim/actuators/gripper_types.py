"""``simulo.GripperCommand`` and ``simulo.GripperState``: the values gripper actuators take and report.

The SDK 0.34.0 names both without defining them (they live in its cloud backend); the values are Isaac Lab's
surface gripper's (``isaaclab.assets.SurfaceGripper``): commands -1 open, 0 idle, 1 close, where a command
value in ``[-1, -0.3]`` opens, one in ``]-0.3, 0.3[`` does nothing and one in ``[0.3, 1]`` closes; states -1
open, 0 closing, 1 closed. Both are ``IntEnum``, so a plain number or a float array compares with them.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING, Any

import numpy as np

from simulo.errors import SimuloValueError

if TYPE_CHECKING:
    from simulo.sim.tensors import Tensors

#: A command value at or below this opens a gripper (Isaac Lab's threshold).
OPEN_BELOW = -0.3

#: A command value at or above this closes a gripper.
CLOSE_ABOVE = 0.3


class GripperCommand(IntEnum):
    """What a gripper is told to do (Isaac Lab's surface gripper command values)."""

    #: Open: release what is held.
    OPEN = -1
    #: Do nothing: keep the current state.
    IDLE = 0
    #: Close: grip.
    CLOSE = 1


class GripperState(IntEnum):
    """What a gripper reports (Isaac Lab's surface gripper states)."""

    #: Open: nothing is held.
    OPEN = -1
    #: Closing: commanded to close, not yet holding (fingers moving, or a suction cup searching).
    CLOSING = 0
    #: Closed: holding (fingers stopped, or a suction cup welded to an object).
    CLOSED = 1


def split_commands(tensors: Tensors, commands: Any, env_ids: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    """The environments of ``env_ids`` that ``commands`` opens and those it closes (the rest: do nothing).

    Args:
        tensors: The simulation's tensor converter.
        commands: A :class:`GripperCommand` or a number for every environment of ``env_ids``, or one value per
            environment (len(env_ids),); each in [-1, 1].
        env_ids: The validated environment indices.
        what: The command's name in messages.

    Raises:
        ShapeError, NonFiniteError, SimuloValueError: A malformed command (the message names it).
    """
    if isinstance(commands, (bool, np.bool_)):
        raise SimuloValueError(f"{what} must be a GripperCommand or a number in [-1, 1], got {commands!r}")
    if isinstance(commands, (int, float, np.integer, np.floating)):
        commands = np.full(len(env_ids), float(commands))
    values = tensors.floats(commands, (len(env_ids),), what)
    bad = np.flatnonzero(np.abs(values) > 1.0)
    if bad.size:
        first = int(bad[0])
        raise SimuloValueError(f"{what} must be in [-1, 1] (-1 open, 0 idle, 1 close), got {float(values[first])!r} "
                               f"at index {first}")
    return env_ids[values <= OPEN_BELOW], env_ids[values >= CLOSE_ABOVE]
