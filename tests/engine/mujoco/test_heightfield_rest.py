"""Objects on a flat MuJoCo height field, against the same objects on a plane.

MuJoCo collides a geom with a height field prism by prism: each cell is two triangular prisms (split along the
cell's (+x, +y) diagonal) reaching down to the field's base, and each prism the geom overlaps gives a contact
from a convex penetration query, as if the prisms were separate solids. What that means on a flat field, measured
here at 1/240 s with the engine's stiff contacts (a 5 x 3 m field, 0.1 m cells):

* boxes and cylinders set down on it stay where they are (under 0.1 mm in 10 s) and rest at a plane's height;
  spheres rest at a plane's height too (checked below: the field's pose, height and row/column order);
* a sphere set down within about 3 mm of a prism edge (a grid line or a cell diagonal) rolls away from it at about
  10 mm/s: that prism's contact normal points from its edge to the sphere's centre, tilted off vertical;
* an object that lands, so that one step takes it a millimetre or so into the field, is thrown sideways wherever
  its footprint clips a prism by less than that depth: the prism's side is then the shortest way out and its
  contact is horizontal. Dropped 1 cm at the 48 spots below, 9 boxes, 9 spheres and 3 cylinders moved over 1 mm
  (up to 26 mm); dropped 0.5 m, the median box moved 0.57 m, sphere 0.22 m, cylinder 0.37 m. On a plane no box
  or sphere moves 0.01 mm (3 of the cylinders dropped 0.5 m on a plane bounce off too: a separate matter).

Neither comes from how the field is built (``SceneSpec.add_heightfield``): plain MuJoCo 4.0.0 with its own
defaults, built from XML, does the same, and neither base thickness, elevation scale, cell size nor MuJoCo's
collision tolerances change it. See google-deepmind/mujoco#689, #236 and #2883, and the MuJoCo developers' note
in google-deepmind/mujoco_warp#831 that the contacts made for deep height field penetrations are not meaningful.
The two tests marked ``xfail(strict=True)`` keep those limitations on record: they fail, asking for this note
to change, once MuJoCo keeps the objects in place.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulo.engine.mujoco.engine import MuJoCoEngine

pytest.importorskip("mujoco")

DT = 1.0 / 240.0
CELL = 0.1
ROWS, COLS = 31, 51  # y from -1.5 to 1.5 m, x from -2.5 to 2.5 m around the centre
#: The field's centre (a grid vertex) and the height of its flat surface.
CENTRE = np.array([0.4, -0.3])
LEVEL = 0.3
#: Spots relative to the centre: on a vertex, mid-cell, on a cell edge, and seeded ones over the whole field
#: (past y = +-1.5 m only if columns run along x).
SPOTS = np.vstack([[[0.0, 0.0], [0.05, 0.05], [0.05, 0.0], [0.337, -0.213]],
                   np.random.default_rng(7).uniform([-2.2, -1.2], [2.2, 1.2], (44, 2))])
#: (kind, dims, half height when upright) of each shape, as ``Engine.add_rigid`` takes them.
SHAPES = {"box": ("box", [0.1, 0.1, 0.1], 0.1), "sphere": ("sphere", [0.1], 0.1),
          "cylinder": ("cylinder", [0.1, 0.2], 0.1)}
#: Lateral drift allowed after 2 s, m.
DRIFT = 1e-3
#: Allowed difference of a resting height from the same object's on a plane, m.
HEIGHT = 1e-4


def _settle(ground: str, shape: str, spots: np.ndarray, drop: float = 0.0) -> np.ndarray:
    """Final poses (len(spots), 7) after 2 s of ``shape`` let go ``drop`` m above the ground at ``spots``
    (relative to :data:`CENTRE`), each turned by its own yaw."""
    kind, dims, half = SHAPES[shape]
    n = len(spots)
    engine = MuJoCoEngine(n, DT)
    try:
        if ground == "plane":
            engine.add_plane(LEVEL, None, None)
        else:  # the heights and the pose each give part of the surface's height
            engine.add_heightfield(np.full((ROWS, COLS), LEVEL - 0.05), CELL,
                                   np.array([*CENTRE, 0.05, 1.0, 0.0, 0.0, 0.0]), None, None)
        yaw = 0.37 * np.arange(n)
        starts = np.column_stack([CENTRE + spots, np.full(n, LEVEL + half + drop),
                                  np.cos(yaw / 2), np.zeros(n), np.zeros(n), np.sin(yaw / 2)])
        body = engine.add_rigid(kind, dims, 1.0, starts)
        for _ in range(round(2.0 / DT)):
            engine.step()
        pose = np.zeros((n, 7))
        body.read(pose, np.zeros((n, 3)), np.zeros((n, 3)))
        return pose
    finally:
        engine.close()


def _drift(pose: np.ndarray, spots: np.ndarray) -> np.ndarray:
    return np.linalg.norm(pose[:, :2] - (CENTRE + spots), axis=1)


def _edge_distance(spots: np.ndarray) -> np.ndarray:
    """Distance of each spot from the nearest prism edge: grid lines and the cells' (+x, +y) diagonals."""
    frac = np.mod(spots / CELL, 1.0)
    to_lines = np.minimum(frac, 1.0 - frac).min(axis=1)
    return CELL * np.minimum(to_lines, np.abs(frac[:, 0] - frac[:, 1]) / np.sqrt(2.0))


@pytest.mark.parametrize("shape", ["box", "cylinder"])
def test_boxes_and_cylinders_set_down_on_a_flat_field_stay_put_at_a_planes_height(shape: str) -> None:
    on_field, on_plane = _settle("field", shape, SPOTS), _settle("plane", shape, SPOTS)
    drift = _drift(on_field, SPOTS)
    assert drift.max() < DRIFT, f"{shape}: drift up to {drift.max() * 1e3:.3f} mm on a flat height field"
    np.testing.assert_allclose(on_field[:, 2], on_plane[:, 2], atol=HEIGHT)
    np.testing.assert_allclose(_drift(on_plane, SPOTS), 0.0, atol=DRIFT)


def test_spheres_set_down_on_a_flat_field_rest_at_a_planes_height_and_away_from_edges_stay_put() -> None:
    on_field, on_plane = _settle("field", "sphere", SPOTS), _settle("plane", "sphere", SPOTS)
    np.testing.assert_allclose(on_field[:, 2], on_plane[:, 2], atol=HEIGHT)
    clear = _edge_distance(SPOTS) > 5e-3
    assert clear.sum() >= 30
    drift = _drift(on_field, SPOTS)[clear]
    assert drift.max() < DRIFT, f"sphere: drift up to {drift.max() * 1e3:.3f} mm, 5 mm or more from any edge"


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="MuJoCo: a sphere next to a prism edge gets a tilted normal and rolls off (module doc)")
def test_spheres_set_down_next_to_a_prism_edge_stay_put() -> None:
    offsets = np.array([1e-4, 5e-4, 1e-3, 2e-3])  # from the grid line x = 0, and across a cell's diagonal
    spots = np.vstack([np.column_stack([offsets, np.full(4, 0.037)]),
                       np.column_stack([0.03 + offsets / np.sqrt(2.0), 0.03 - offsets / np.sqrt(2.0)])])
    drift = _drift(_settle("field", "sphere", spots), spots)
    assert drift.max() < DRIFT, f"drift, mm: {np.round(drift * 1e3, 2).tolist()}"


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="MuJoCo: landings make horizontal contacts with clipped prisms (module docstring)")
@pytest.mark.parametrize("drop", [0.01, 0.5])
def test_objects_dropped_on_a_flat_field_stay_where_they_land(drop: float) -> None:
    drifts = {shape: float(_drift(_settle("field", shape, SPOTS, drop), SPOTS).max()) for shape in SHAPES}
    assert max(drifts.values()) < DRIFT, f"largest drift after a {drop} m drop, m: {drifts}"
