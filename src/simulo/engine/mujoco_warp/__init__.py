"""The MuJoCo Warp engine (the ``gpu`` extra): MuJoCo models batched as Warp worlds, on a GPU or Warp's CPU device.

Only this package imports ``mujoco_warp`` and ``warp``. What it does not support yet is listed in one place,
:data:`simulo.engine.mujoco_warp.unsupported.UNSUPPORTED`.
"""
