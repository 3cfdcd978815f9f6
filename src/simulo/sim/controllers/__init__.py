"""Task-space controllers on the Robot contract; ``simulo.DifferentialIKController`` and
``simulo.OperationalSpaceController`` resolve here."""

from simulo.sim.controllers.differential_ik import DifferentialIKController, DifferentialIKControllerCfg
from simulo.sim.controllers.operational_space import OperationalSpaceController, OperationalSpaceControllerCfg

__all__ = [
    "DifferentialIKController",
    "DifferentialIKControllerCfg",
    "OperationalSpaceController",
    "OperationalSpaceControllerCfg",
]
