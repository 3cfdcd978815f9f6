"""What the MuJoCo Warp engine does not do (yet): the one place that says so.

Every engine call listed in :data:`UNSUPPORTED` raises :class:`WarpUnsupportedError` through :func:`unsupported`,
with the reason given here, instead of behaving differently from the MuJoCo engine.
"""

from __future__ import annotations

from typing import NoReturn

from simulo.errors import SimuloError

#: Feature -> why the MuJoCo Warp engine refuses it.
UNSUPPORTED: dict[str, str] = {
    "heightfield": "height fields are not wired up on this engine yet",
    "prop_enabled": "switching rigid props on and off (set_enabled) is not implemented on this engine yet",
    "scale": "rescaling rigid props (set_scale) is not implemented on this engine yet",
    "welds": "welds (suction grips) are not implemented on this engine yet",
    "render": "cameras and rendering are not implemented on this engine yet",
    "rays": "ray casts are not implemented on this engine yet",
    "contacts": "contact counts and contact forces are not implemented on this engine yet",
    "joint_wrenches": "joint wrench sensing is not implemented on this engine yet",
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
