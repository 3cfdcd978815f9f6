"""What the MuJoCo Warp engine does not do (yet): the one place that says so.

Every engine call listed in :data:`UNSUPPORTED` raises :class:`WarpUnsupportedError` through :func:`unsupported`,
with the reason given here, instead of behaving differently from the MuJoCo engine.
"""

from __future__ import annotations

from typing import NoReturn

from simulo.errors import SimuloError

#: Feature -> why the MuJoCo Warp engine refuses it.
UNSUPPORTED: dict[str, str] = {
    "heightfield": "height fields: mujoco_warp's height-field collision (one GJK/EPA test per terrain prism) returns "
                   "phantom contacts for a box resting flush on the field (as deep as the box is tall, normal "
                   "pointing down), which throw the box off where MuJoCo keeps it at rest (a 0.2 m box settled on a "
                   "flat field over a grid vertex, or dropped onto a 10% slope, is thrown metres away)",
    "model_layout": "this model edit: the field it changes is laid out differently in mujoco_warp than in MuJoCo",
    "grow_after_step": "the scene is final after the first step (the Warp model and data are built then): no new "
                       "objects or joint couplings",
}


class WarpUnsupportedError(SimuloError, NotImplementedError):
    """The MuJoCo Warp engine does not support a feature the simulation asked for."""


def unsupported(feature: str) -> NoReturn:
    """Raise :class:`WarpUnsupportedError` for ``feature`` (a key of :data:`UNSUPPORTED`).

    Raises:
        WarpUnsupportedError: Always.
    """
    raise WarpUnsupportedError(f"the 'mujoco_warp' engine does not support {feature}: {UNSUPPORTED[feature]}; "
                               "use engine='mujoco' for it")
