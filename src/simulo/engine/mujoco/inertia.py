"""Link inertias computed from the collision shapes, as PyBullet computes them when it does not read the file's.

PyBullet loads a URDF without ``URDF_USE_INERTIA_FROM_FILE`` by keeping each link's mass and inertial frame and
replacing its inertia tensor with that of a solid box filling the axis-aligned bounding box of the link's
collision shapes (Bullet's ``btCompoundShape::calculateLocalInertia``). simulo loads the catalog models whose
files carry placeholder tensors that way (:attr:`simulo.authoring.catalog.CatalogEntry.engine_inertia`; e.g.
pybullet_data's Panda gives every link 0.1 kg·m², a wrist of 12 N·m could not turn its hand), so the MuJoCo
engine does the same before it compiles the robot into the scene.
"""

from __future__ import annotations

import itertools

import mujoco
import numpy as np

#: The eight corners of a unit box, as signs.
_CORNERS = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))


def box_inertia(mass: float, extents: np.ndarray) -> np.ndarray:
    """Principal moments (3,) of a solid box of ``mass`` kg with edge lengths ``extents`` (3,) m."""
    sq = np.asarray(extents, dtype=float) ** 2
    return mass / 12.0 * np.array([sq[1] + sq[2], sq[0] + sq[2], sq[0] + sq[1]])


def use_shape_inertia(spec: mujoco.MjSpec) -> None:
    """Give every body of ``spec`` with mass and collision shapes the box inertia of its shapes' bounding box.

    The box is aligned with the body's axes and centred on nothing in particular: its extents alone set the
    moments, taken about the body's centre of mass (the file's). A massless body gets none; bodies without
    collision shapes keep their file inertia, as in PyBullet.
    """
    model = spec.compile()
    for body in spec.bodies[1:]:  # the world body first
        bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body.name)
        geoms = np.flatnonzero((model.geom_bodyid == bid) & ((model.geom_contype | model.geom_conaffinity) != 0))
        if body.mass <= 0.0:  # a massless link has no inertia either (the compiler bounds both)
            body.fullinertia = [0.0] * 6
            continue
        if len(geoms) == 0:
            continue
        points = []
        for g in geoms:
            rotation = np.empty(9)
            mujoco.mju_quat2Mat(rotation, model.geom_quat[g])
            mesh = model.geom_dataid[g] if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH else -1
            if mesh >= 0:  # a mesh's own vertices (its frame is its principal axes, its box would be too big)
                start = model.mesh_vertadr[mesh]
                local = model.mesh_vert[start:start + model.mesh_vertnum[mesh]]
            else:
                local = model.geom_aabb[g, :3] + _CORNERS * model.geom_aabb[g, 3:]
            points.append(model.geom_pos[g] + local @ rotation.reshape(3, 3).T)
        cloud = np.concatenate(points)
        moments = box_inertia(float(body.mass), cloud.max(axis=0) - cloud.min(axis=0))
        body.fullinertia = [*moments.tolist(), 0.0, 0.0, 0.0]
        body.iquat = [1.0, 0.0, 0.0, 0.0]
