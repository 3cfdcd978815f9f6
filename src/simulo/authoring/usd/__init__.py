"""USD robot assets: a UsdPhysics articulation read with usd-core and turned into URDF.

Both engines load robots through the URDF pipeline, so a USD asset becomes URDF text (and OBJ collision and visual
meshes in a cache folder) and is then checked and loaded exactly as a URDF string is: every URDF rule applies unchanged.
What is read and what is refused: :mod:`simulo.authoring.usd.physics` and :mod:`simulo.authoring.usd.colliders`.

``pxr`` is imported only when a USD asset is loaded (:func:`urdf_from_usd`), never by ``import simulo``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from simulo.authoring.model_physics import ModelPhysics
from simulo.authoring.pose import Pose
from simulo.authoring.usd.stage import USD_SUFFIXES
from simulo.frozen import frozen_dataclass

__all__ = ["USD_SUFFIXES", "UsdUrdf", "urdf_from_usd"]


@frozen_dataclass
class UsdUrdf:
    """A USD articulation as URDF.

    Attributes:
        urdf_text: The URDF document.
        name: The robot name.
        base_dir: The folder its collision meshes were written to (relative mesh paths start there), or None
            when it has none.
        fixed_base: Whether a fixed joint bolts the root body to the world.
        spawn_pose: Where the stage places the root link (m, Z up), or None at the origin.
        engine_inertia: Whether the engine computes the links' inertia from their collision shapes (some body
            has no ``diagonalInertia``).
        physics: What the stage gives beyond the URDF: drive gains, contact materials, solver iterations, the
            self-collision setting, and the reader's notes.
    """

    urdf_text: str
    name: str
    base_dir: str | None
    fixed_base: bool
    spawn_pose: Pose | None
    engine_inertia: bool
    physics: ModelPhysics = ModelPhysics()


def _mesh_folder(path: str) -> Path:
    from simulo.authoring.engine_urdf import cache_folder  # noqa: PLC0415 (tempfile: only for a USD with meshes)

    key = hashlib.sha256(os.path.realpath(path).encode("utf-8")).hexdigest()[:16]
    return cache_folder() / "usd" / f"{Path(path).stem[:40]}-{key}"


def urdf_from_usd(path: str | os.PathLike[str]) -> UsdUrdf:
    """Read a USD file's articulation and write it as URDF (collision meshes as OBJ files in a cache folder).

    Raises:
        MissingDependencyError: usd-core is not installed (``pip install 'simulo-local[usd]'``).
        AssetError: The file cannot be opened.
        UsdError: Its physics breaks rules of :mod:`simulo.authoring.usd.physics`: every problem, each naming its
            prim.
    """
    from simulo.authoring.usd.physics import read_articulation  # noqa: PLC0415
    from simulo.authoring.usd.stage import open_stage  # noqa: PLC0415
    from simulo.authoring.usd.to_urdf import mesh_files, urdf_text, write_meshes  # noqa: PLC0415

    file = os.path.realpath(os.path.expanduser(os.fspath(path)))
    px, stage = open_stage(file, os.fspath(path))
    articulation = read_articulation(px, stage, f"USD file {file!r}")
    folder: str | None = None
    if mesh_files(articulation):
        target = _mesh_folder(file)
        write_meshes(articulation, target)
        folder = str(target)
    xyz, quat = articulation.root_xyz, articulation.root_quat
    at_origin = max(abs(v) for v in xyz) < 1e-12 and abs(abs(quat[0]) - 1.0) < 1e-12
    gains = tuple((j.name, j.stiffness, j.damping) for j in articulation.joints if j.stiffness > 0 or j.damping > 0)
    physics = ModelPhysics(gains, tuple(link.surface for link in articulation.links if link.surface is not None),
                           articulation.solver_iterations, articulation.self_collision, articulation.notes)
    return UsdUrdf(urdf_text(articulation, file), articulation.name, folder, articulation.fixed_base,
                   None if at_origin else Pose(xyz, quat), articulation.engine_inertia, physics)
