"""The MuJoCo Warp engine (the ``gpu`` extra): MuJoCo models batched as Warp worlds, on a GPU or Warp's CPU device.

Only this package imports ``mujoco_warp`` and ``warp``. What it does not support yet is listed in one place,
:data:`simulo.engine.mujoco_warp.unsupported.UNSUPPORTED`.

Importing this package first imports :mod:`simulo.engine.mujoco`, which chooses MuJoCo's OpenGL back end (for the
cameras, drawn by MuJoCo's renderer) before ``mujoco_warp`` imports ``mujoco``, which reads the choice once.

Warp's log level is set to warnings before anything here uses it: left at its default, Warp prints a banner and a
line for every kernel module it loads or compiles (about a hundred for one model), which would bury an app's output.
"""

import warp

import simulo.engine.mujoco  # noqa: F401  (the OpenGL back end, chosen before mujoco is imported)

warp.config.log_level = warp.LOG_WARNING
