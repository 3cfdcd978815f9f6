"""``simulo.SensorOffset``: where a sensor sits relative to the frame it is attached to.

Plain Python (no numpy), so that naming ``simulo.Camera`` stays cheap. Quaternions are w-first.

A camera's rotation is read in one of three axis conventions (Isaac Lab's):

* ``"world"``: the camera looks along its +x axis, +z up (the convention of a body frame);
* ``"ros"``: looks along +z, +y down, +x right (the optical frame of ROS);
* ``"opengl"``: looks along -z, +y up, +x right.

Other sensors use the rotation as their own frame and ignore the convention.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from simulo.errors import SimuloValueError
from simulo.frozen import frozen_dataclass

#: Camera axis conventions -> (viewing direction, up direction) in the camera's own frame.
CONVENTIONS: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "world": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
    "ros": ((0.0, 0.0, 1.0), (0.0, -1.0, 0.0)),
    "opengl": ((0.0, 0.0, -1.0), (0.0, 1.0, 0.0)),
}

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]


def _vector(value: Any, size: int, what: str) -> tuple[float, ...]:
    try:
        out = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        out = ()
    if len(out) != size or not all(math.isfinite(v) for v in out):
        raise SimuloValueError(f"{what} must be {size} finite numbers, got {value!r}")
    return out


def _cross(a: Sequence[float], b: Sequence[float]) -> Vec3:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _unit(v: Sequence[float]) -> Vec3:
    n = math.sqrt(sum(c * c for c in v))
    return (v[0] / n, v[1] / n, v[2] / n)


def quat_from_axes(x: Sequence[float], y: Sequence[float], z: Sequence[float]) -> Quat:
    """The w-first unit quaternion of the rotation whose matrix columns are ``x``, ``y``, ``z``."""
    m = ((x[0], y[0], z[0]), (x[1], y[1], z[1]), (x[2], y[2], z[2]))
    trace = m[0][0] + m[1][1] + m[2][2]
    if trace > 0:
        s = 2.0 * math.sqrt(trace + 1.0)
        q = (0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s)
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = 2.0 * math.sqrt(1.0 + m[0][0] - m[1][1] - m[2][2])
        q = ((m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s)
    elif m[1][1] > m[2][2]:
        s = 2.0 * math.sqrt(1.0 + m[1][1] - m[0][0] - m[2][2])
        q = ((m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + m[2][2] - m[0][0] - m[1][1])
        q = ((m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s)
    n = math.sqrt(sum(c * c for c in q))
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def quat_multiply(a: Sequence[float], b: Sequence[float]) -> Quat:
    """The w-first product ``a * b``."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


@frozen_dataclass
class SensorOffset:
    """A sensor's position and rotation in the frame it is attached to (a robot body, an environment's origin,
    or the world for a shared sensor).

    Args:
        pos: Position ``(x, y, z)`` in m.
        rot: Rotation, a w-first quaternion ``(w, x, y, z)``; normalised.
        convention: How a camera reads ``rot``: ``"ros"`` (default, Isaac Lab's), ``"opengl"`` or ``"world"``
            (see the module docstring).

    Raises:
        SimuloValueError: A bad position, a zero or non-finite quaternion, or an unknown convention.
    """

    pos: Vec3 = (0.0, 0.0, 0.0)
    rot: Quat = (1.0, 0.0, 0.0, 0.0)
    convention: str = "ros"

    def __post_init__(self) -> None:
        pos = _vector(self.pos, 3, "SensorOffset.pos")
        rot = _vector(self.rot, 4, "SensorOffset.rot")
        norm = math.sqrt(sum(c * c for c in rot))
        if norm < 1e-9:
            raise SimuloValueError(f"SensorOffset.rot must be a non-zero quaternion (w, x, y, z), got {self.rot!r}")
        if self.convention not in CONVENTIONS:
            raise SimuloValueError(f"SensorOffset.convention must be one of {sorted(CONVENTIONS)}, got "
                                   f"{self.convention!r}")
        object.__setattr__(self, "pos", pos)
        object.__setattr__(self, "rot", tuple(c / norm for c in rot))

    @classmethod
    def look_at(cls, pos: Sequence[float], target: Sequence[float],
                up: Sequence[float] = (0.0, 0.0, 1.0)) -> SensorOffset:
        """A camera at ``pos`` looking at ``target``, its image upright with respect to ``up``.

        Returns an offset in the ``"world"`` convention.

        Raises:
            SimuloValueError: ``pos`` equals ``target``, or bad numbers.
        """
        p = _vector(pos, 3, "look_at pos")
        t = _vector(target, 3, "look_at target")
        u = _vector(up, 3, "look_at up")
        direction = (t[0] - p[0], t[1] - p[1], t[2] - p[2])
        if math.sqrt(sum(c * c for c in direction)) < 1e-9:
            raise SimuloValueError(f"look_at needs a target away from the camera, got pos={pos!r} target={target!r}")
        forward = _unit(direction)
        left = _cross(u, forward)
        if math.sqrt(sum(c * c for c in left)) < 1e-6:  # looking straight along ``up``: any upright roll will do
            left = _cross((1.0, 0.0, 0.0) if abs(forward[0]) < 0.9 else (0.0, 1.0, 0.0), forward)
        left = _unit(left)
        return cls(pos=p, rot=quat_from_axes(forward, left, _cross(forward, left)), convention="world")  # type: ignore[arg-type]

    def camera_rotation(self) -> Quat:
        """The rotation in the ``"world"`` convention: its x axis is the viewing direction, z the image's up."""
        forward, up = CONVENTIONS[self.convention]
        return quat_multiply(self.rot, quat_from_axes(forward, _cross(up, forward), up))

    def pose(self, camera: bool = False) -> tuple[float, ...]:
        """``(x, y, z, qw, qx, qy, qz)``: the sensor frame (``camera``: in the ``"world"`` convention)."""
        return (*self.pos, *(self.camera_rotation() if camera else self.rot))
