"""Rotations and rigid transforms, w-first, in one tested home.

Quaternions are ``(qw, qx, qy, qz)`` and poses ``[x, y, z, qw, qx, qy, qz]`` everywhere in simulo.
:mod:`simulo.math.scalar` works on plain tuples (no numpy, for authoring values);
:mod:`simulo.math.batched` works on numpy arrays with any leading batch shape.
"""
