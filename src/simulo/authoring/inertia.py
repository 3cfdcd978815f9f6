"""The ``<inertia>`` rule: the matrix must be symmetric positive semi-definite (no negative principal moment).

A rotational inertia matrix has principal moments (its eigenvalues) that are all >= 0. The check uses the
principal minors of the matrix divided by its largest entry, so huge but finite values neither overflow nor
lose the test, with a tolerance of 1e-9 of that entry for rounding in exported files. A zero matrix (a massless
link) is accepted. :func:`usable_from_file` says, in addition, whether an engine may take the tensor from the
file rather than computing it from the collision shapes. Pure Python.
"""

from __future__ import annotations

import math

_TOLERANCE = 1e-9


def inertia_problem(ixx: float, ixy: float, ixz: float, iyy: float, iyz: float, izz: float) -> str | None:
    """Why the inertia matrix is not physical, or None when it is symmetric positive semi-definite.

    Args:
        ixx: The matrix entries as a URDF writes them (kg·m², finite).
        ixy: See ``ixx``.
        ixz: See ``ixx``.
        iyy: See ``ixx``.
        iyz: See ``ixx``.
        izz: See ``ixx``.

    Returns:
        A message naming the values, or None.
    """
    written = f"ixx={ixx:g} iyy={iyy:g} izz={izz:g} ixy={ixy:g} ixz={ixz:g} iyz={iyz:g}"
    negative = [name for name, value in (("ixx", ixx), ("iyy", iyy), ("izz", izz)) if value < 0]
    if negative:
        return (f"{', '.join(negative)} < 0 ({written}): moments of inertia on the diagonal must be >= 0")
    scale = max(abs(v) for v in (ixx, ixy, ixz, iyy, iyz, izz))
    if scale == 0:
        return None
    a, b, c, d, e, f = (v / scale for v in (ixx, ixy, ixz, iyy, iyz, izz))
    minors = (
        a * d - b * b,
        a * f - c * c,
        d * f - e * e,
        a * (d * f - e * e) - b * (b * f - e * c) + c * (b * e - d * c),
    )
    if min(minors) < -_TOLERANCE:
        return (f"is not positive semi-definite ({written}): a principal moment of inertia would be negative; the "
                "off-diagonal products of inertia are too large for the moments on the diagonal")
    return None


def usable_from_file(ixx: float, ixy: float, ixz: float, iyy: float, iyz: float, izz: float) -> bool:
    """Whether an engine may take this tensor from the file for a link of positive mass.

    It must be positive definite and its principal moments must satisfy the triangle inequality
    (each <= the sum of the other two), within 1e-6 of the largest. Measured on PyBullet 3.2.7 with
    ``URDF_USE_INERTIA_FROM_FILE``: a free two-link robot of 1 kg links with a zero tensor, a zero moment, or
    moments (1, 1, 5) steps to NaN poses within 240 steps (``tests/authoring/hostile/test_inertia.py``); the
    same robots step finitely when PyBullet computes inertia from the collision shapes (its default).

    Args:
        ixx: The matrix entries (finite, and :func:`inertia_problem` found nothing).
        ixy: See ``ixx``.
        ixz: See ``ixx``.
        iyy: See ``ixx``.
        iyz: See ``ixx``.
        izz: See ``ixx``.
    """
    scale = max(abs(v) for v in (ixx, ixy, ixz, iyy, iyz, izz))
    if scale == 0:
        return False
    a, b, c, d, e, f = (v / scale for v in (ixx, ixy, ixz, iyy, iyz, izz))
    determinant = a * (d * f - e * e) - b * (b * f - e * c) + c * (b * e - d * c)
    if min(a, d, f, a * d - b * b, determinant) <= _TOLERANCE:
        return False
    moments = sorted(_eigenvalues(a, b, c, d, e, f))
    return moments[0] + moments[1] >= moments[2] * (1 - 1e-6)


def _eigenvalues(a: float, b: float, c: float, d: float, e: float, f: float) -> tuple[float, float, float]:
    """Eigenvalues of the symmetric matrix [[a, b, c], [b, d, e], [c, e, f]] (the trigonometric closed form)."""
    off = b * b + c * c + e * e
    if off == 0:
        return (a, d, f)
    mean = (a + d + f) / 3
    spread = math.sqrt(((a - mean) ** 2 + (d - mean) ** 2 + (f - mean) ** 2 + 2 * off) / 6)
    if spread == 0:
        return (mean, mean, mean)
    p_a, p_d, p_f = (a - mean) / spread, (d - mean) / spread, (f - mean) / spread
    p_b, p_c, p_e = b / spread, c / spread, e / spread
    half_det = (p_a * (p_d * p_f - p_e * p_e) - p_b * (p_b * p_f - p_e * p_c) + p_c * (p_b * p_e - p_d * p_c)) / 2
    phi = math.acos(max(-1.0, min(1.0, half_det))) / 3
    largest = mean + 2 * spread * math.cos(phi)
    smallest = mean + 2 * spread * math.cos(phi + 2 * math.pi / 3)
    return (largest, 3 * mean - largest - smallest, smallest)
