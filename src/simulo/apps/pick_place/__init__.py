"""The scripted pick-and-place app, run through the simulo contract (``simulo pick-place``).

A five-joint arm with a gear-coupled parallel gripper (the catalog's ``simulo/robot/pick_arm:v1``) picks a
40 mm, 0.1 kg cube rotated 0.3 rad at (0.42, -0.12) and places it at (0.25, 0.35), through the public
``simulo`` surface only. The modules, by concern:

* :mod:`.config`: the seed's constants, :class:`~.config.AppOptions`, cube starts and the seed plan.
* :mod:`.cell`: :class:`~.cell.PickPlaceCell`, ``N`` simulated cells in lock-step (:mod:`.control` gives
  its arm joint targets); :mod:`.sim_hardware` drives one of them through the hardware interface of
  :mod:`.hardware`.
* :mod:`.recorder` measures a pick phase by phase into the records of :mod:`.results`.
* :mod:`.experiments`: the single run, the batched (and sharded) trials and the friction sweep.
* :mod:`.report`: the printed lines.
* :mod:`.ik`, :mod:`.numeric_ik`, :mod:`.kinematics`, :mod:`.geometry`, :mod:`.motion`, :mod:`.safety`:
  the arm's maths, pure and numpy-only.

Nothing is imported here, so importing a submodule loads only what it needs.
"""
