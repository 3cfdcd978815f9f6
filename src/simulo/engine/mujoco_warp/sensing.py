"""What the device computed in the last step, read for the contact and joint-wrench sensors of a MuJoCo Warp engine.

Contacts: ``mujoco_warp.Data`` holds the contacts of every world in one list (the first ``nacon`` entries, each
with its ``worldid``), found at the state the step started from, as ``mj_step`` leaves ``MjData.contact``; their
forces come from the step's constraint forces through ``mujoco_warp.contact_force``. Joint wrenches: right after a
step, ``mujoco_warp.rne_postconstraint`` turns that step's constraint and applied forces into ``cfrc_int``, as the
MuJoCo engine's ``mj_rnePostConstraint`` does. The conventions (a contact force is its first geom's on its second;
``cfrc_int`` is ``[torque, force]`` about the subtree's centre of mass) and the arithmetic that turns these into
simulo's values are the MuJoCo engine's, :mod:`simulo.engine.mujoco.sensing`.

Before the first step there is no device data: no contacts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import mujoco_warp as mjw
import numpy as np
import warp as wp

from simulo.engine.mujoco import sensing
from simulo.engine.mujoco_warp.worlds import WarpWorlds

#: ``mujoco_warp``'s ``ContactType.CONSTRAINT`` bit (not exported): a contact of the constraint solver, as
#: ``MjData.contact`` holds (not a collision sensor's).
_CONSTRAINT = 1


class StepContacts(NamedTuple):
    """The last step's contacts in every world.

    Attributes:
        ids: Each contact's index in the device's contact list (C,).
        bodies: The bodies of each contact's two geoms (C, 2).
        envs: Each contact's environment (C,).
    """

    ids: np.ndarray
    bodies: np.ndarray
    envs: np.ndarray


def step_contacts(worlds: WarpWorlds) -> StepContacts:
    """The contacts of the last step in every world (none before the first step)."""
    data, model = worlds.data, worlds.model
    if data is None or model is None:
        empty = np.zeros(0, dtype=np.int64)
        return StepContacts(empty, np.zeros((0, 2), dtype=np.int64), empty)
    count = min(int(data.nacon.numpy()[0]), int(data.naconmax))  # (nacon counts past an overflow)
    kept = np.flatnonzero(data.contact.type[:count].numpy() & _CONSTRAINT)
    geoms = data.contact.geom[:count].numpy()[kept]
    envs = data.contact.worldid[:count].numpy()[kept].astype(np.int64)
    return StepContacts(kept, model.geom_bodyid[geoms].reshape(-1, 2).astype(np.int64), envs)


def contact_counts(worlds: WarpWorlds, groups: Sequence[np.ndarray], other: int) -> np.ndarray:
    """Contact points between body ``other`` and each group of bodies in the last step, per environment
    (num_envs, len(groups))."""
    contacts = step_contacts(worlds)
    return sensing.count_contacts(contacts.bodies, contacts.envs, worlds.num_envs, groups, other)


def contact_forces(worlds: WarpWorlds, body_ids: np.ndarray, other: int | None) -> np.ndarray:
    """Net contact force (num_envs, len(body_ids), 3) on each body, world axes, from the last step's contacts
    with body ``other`` (any body when ``None``)."""
    contacts = step_contacts(worlds)
    rows = np.flatnonzero(sensing.touching(contacts.bodies, body_ids, other))
    forces = np.zeros((len(rows), 3))
    if rows.size:
        assert worlds.warp_model is not None and worlds.data is not None
        with wp.ScopedDevice(worlds.device):
            out = wp.zeros(len(rows), dtype=wp.spatial_vectorf)
            ids = contacts.ids[rows].astype(np.int32)
            # in world axes (True): the first geom's force on the second
            mjw.contact_force(worlds.warp_model, worlds.data, wp.array(ids, dtype=wp.int32), True, out)
            forces = np.asarray(out.numpy()[:, :3], dtype=np.float64)
    return sensing.net_contact_forces(contacts.bodies[rows], contacts.envs[rows], forces, worlds.num_envs,
                                      body_ids, other)


def run_rne_postconstraint(worlds: WarpWorlds) -> None:
    """Compute every world's ``cfrc_int`` for the step just taken (call before anything changes the data)."""
    assert worlds.warp_model is not None and worlds.data is not None
    with wp.ScopedDevice(worlds.device):
        mjw.rne_postconstraint(worlds.warp_model, worlds.data)


def joint_wrenches(worlds: WarpWorlds, body_ids: np.ndarray) -> np.ndarray:
    """Parent-on-body wrenches (num_envs, len(body_ids), 6) ``[force, torque]`` in body axes about the body
    origins, after :func:`run_rne_postconstraint`."""
    assert worlds.data is not None and worlds.model is not None
    d = worlds.data
    roots = worlds.model.body_rootid[body_ids]
    cfrc_int, centre, xpos, xmat = (np.asarray(array, dtype=np.float64) for array in (
        d.cfrc_int.numpy()[:, body_ids], d.subtree_com.numpy()[:, roots], d.xpos.numpy()[:, body_ids],
        d.xmat.numpy()[:, body_ids]))
    return sensing.parent_wrenches(cfrc_int, centre, xpos, xmat)
