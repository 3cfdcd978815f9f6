"""``simulo.ObservationComponent``, ``simulo.RewardComponent`` and ``simulo.TerminationCondition``.

The bases a task's terms subclass, with the members of simulo-interfaces' component Protocols
(``runtime/components.py``): each term is initialized once with the robot it reads, the device and the number of
environments, then computed every step for every environment at once. A :class:`simulo.Task` lists its terms in
``observation_components``, ``reward_components`` and ``termination_conditions`` (see
:mod:`simulo.rl.task_components` for how they combine)::

    class PoleAngle(simulo.ObservationComponent):
        def initialize(self, robot, device, num_envs):
            super().initialize(robot, device, num_envs)
            self.pole = robot.find_joints("cart_to_pole")[0]

        def dim(self, robot):
            return 1

        def compute(self, prev_actions):
            return self.robot.state.joint_positions[:, self.pole:self.pole + 1]

This module imports neither torch nor the engine.
"""

from __future__ import annotations

from typing import Any

from simulo._sdk_protocols import ObservationComponentBase, RewardComponentBase, TerminationConditionBase


class _Term:
    """What the three bases share: :meth:`initialize` keeps its arguments as attributes."""

    robot: Any = None
    """The robot given to :meth:`initialize`, else ``None``."""
    device: str = "cpu"
    """The device given to :meth:`initialize`."""
    num_envs: int = 0
    """The number of environments given to :meth:`initialize`, else 0."""

    def initialize(self, robot: Any, device: str, num_envs: int) -> None:
        """One-time setup: keeps ``robot``, ``device`` and ``num_envs`` as attributes.

        Subclasses that override it call ``super().initialize(robot, device, num_envs)``, then resolve joints
        and size their buffers.

        Args:
            robot: The robot the term reads (the task's ``component_robot()``).
            device: The environments' device (``"cpu"`` here).
            num_envs: The number of environments computed at once.
        """
        self.robot, self.device, self.num_envs = robot, device, num_envs

    def _missing(self, member: str, what: str) -> NotImplementedError:
        return NotImplementedError(f"{type(self).__name__}.{member} must be overridden: {what}")


class ObservationComponent(_Term, ObservationComponentBase):
    """One term of a task's observation vector: ``dim(robot)`` values per environment, computed every step.

    Subclasses override :meth:`dim` and :meth:`compute` (and :meth:`initialize` to resolve joints).
    """

    def dim(self, robot: Any) -> int:
        """The number of values this term contributes per environment."""
        raise self._missing("dim(robot)", "return the number of values per environment")

    def compute(self, prev_actions: Any) -> Any:
        """This term's slice of the observations, shape ``(num_envs, dim)``.

        Args:
            prev_actions: The last action batch, ``(num_envs, action_dim)`` (zeros before the first step).
        """
        raise self._missing("compute(prev_actions)", "return a (num_envs, dim) batch")


class RewardComponent(_Term, RewardComponentBase):
    """One term of a task's reward; the task's reward is the sum of its terms.

    Subclasses override :meth:`compute` (a weight, if any, is the term's own).
    """

    def compute(self, prev_actions: Any, terminated: Any | None) -> Any:
        """This term's reward, shape ``(num_envs,)``.

        Args:
            prev_actions: The last action batch, ``(num_envs, action_dim)``.
            terminated: The environments whose episode the task ended this step (a boolean ``(num_envs,)``
                batch), or ``None`` when it is not known.
        """
        raise self._missing("compute(prev_actions, terminated)", "return a (num_envs,) batch")


class TerminationCondition(_Term, TerminationConditionBase):
    """One condition that ends an episode; a task's episode ends when any of its conditions holds.

    Attributes:
        name: The condition's plain-language name, reported with the episodes it ends (the class name when
            ``None``).
    """

    name: str | None = None

    def check(self) -> Any:
        """A boolean batch, shape ``(num_envs,)``: ``True`` ends that environment's episode."""
        raise self._missing("check()", "return a boolean (num_envs,) batch")
