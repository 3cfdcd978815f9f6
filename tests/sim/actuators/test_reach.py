"""What a suction cup can reach: distances from a point to each primitive's surface, and the nearest prop."""

from __future__ import annotations

import numpy as np
import pytest

from simulo.sim.actuators.reach import surface_distance


@pytest.mark.parametrize(("kind", "dims", "point", "expected"), [
    ("box", (0.025, 0.025, 0.025), (0.0, 0.0, 0.05), 0.025),  # above the top face
    ("box", (0.025, 0.025, 0.025), (0.05, 0.05, 0.0), 0.025 * 2 ** 0.5),  # off a vertical edge
    ("box", (0.025, 0.025, 0.025), (0.01, 0.0, 0.0), 0.0),  # inside
    ("sphere", (0.1,), (0.0, 0.3, 0.0), 0.2),
    ("cylinder", (0.1, 0.2), (0.0, 0.0, 0.3), 0.2),  # above the flat end
    ("cylinder", (0.1, 0.2), (0.2, 0.0, 0.0), 0.1),  # beside the curved side
    ("cylinder", (0.1, 0.2), (0.2, 0.0, 0.2), 0.1 * 2 ** 0.5),  # off the rim
    ("cone", (0.1, 0.2), (0.0, 0.0, 0.3), 0.2),  # above the apex
    ("cone", (0.1, 0.2), (0.0, 0.0, -0.2), 0.1),  # below the base
    ("cone", (0.1, 0.2), (0.0, 0.0, 0.0), 0.0),  # inside
    ("cone", (0.1, 0.2), (0.1, 0.0, 0.1), 0.1 * 2 / 5 ** 0.5),  # off the slanted side: (r, z) to the line
])
def test_surface_distances_of_the_primitives(kind, dims, point, expected) -> None:
    got = surface_distance(kind, dims, np.array([point]))
    np.testing.assert_allclose(got, [expected], atol=1e-12)
