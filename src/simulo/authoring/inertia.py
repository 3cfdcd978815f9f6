"""The ``<inertia>`` rule: the matrix must be symmetric positive semi-definite (no negative principal moment).

A rotational inertia matrix has principal moments (its eigenvalues) that are all >= 0. The check uses the
principal minors of the matrix divided by its largest entry, so huge but finite values neither overflow nor
lose the test, with a tolerance of 1e-9 of that entry for rounding in exported files. A zero matrix (a massless
link) is accepted. Pure Python.
"""

from __future__ import annotations

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
