"""The MuJoCo engine (the ``mujoco`` extra).

Importing this package chooses MuJoCo's OpenGL back end (:mod:`simulo.engine.mujoco.gl_backend`) before any of
its modules imports ``mujoco``, which reads the choice once, at import.
"""

from simulo.engine.mujoco.gl_backend import select_backend

select_backend()
