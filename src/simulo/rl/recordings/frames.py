"""A ``PoseFrame``'s poses as Foxglove frame transforms (``foxglove.FrameTransforms``).

Each recorded copy is a frame ``copy_<id>`` at its origin in ``world``; each link and body is a frame
``copy_<id><path>`` in its copy's frame. Recording (:mod:`simulo.rl.recordings.rollout`) and the Foxglove
export (:mod:`simulo.rl.recordings.foxglove`) build them the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from simulo.rl.recordings import schemas


def frame_transforms(poses: Any, origins: np.ndarray, paths: Sequence[str], time_ns: int) -> Any:
    """The ``foxglove.FrameTransforms`` of a ``simulo.vizstream.v1.PoseFrame``.

    Args:
        poses: The ``PoseFrame``: per copy, its link poses then its body poses, 7 numbers each (xyz, wxyz).
        origins: Every copy's origin, ``(num_copies, 3)``.
        paths: The scene paths of the packed poses, links first (the Scene's ``pose_layout``).
        time_ns: The transforms' timestamp.
    """
    out = schemas.new(schemas.FOXGLOVE_FRAME_TRANSFORMS)
    sec, nsec = divmod(int(time_ns), 1_000_000_000)
    for copy in poses.focused:
        frame = f"copy_{copy.copy_id}"
        rows = [(np.asarray(origins[copy.copy_id]).tolist(), [1.0, 0.0, 0.0, 0.0], "world", frame)]
        packed = np.array([*copy.link_poses, *copy.body_poses]).reshape(-1, 7)
        rows += [(row[:3].tolist(), row[3:].tolist(), frame, f"{frame}{path}") for row, path in zip(packed, paths)]
        for xyz, wxyz, parent, child in rows:
            t = out.transforms.add(parent_frame_id=parent, child_frame_id=child)
            t.timestamp.seconds, t.timestamp.nanos = sec, nsec
            t.translation.x, t.translation.y, t.translation.z = xyz
            t.rotation.w, t.rotation.x, t.rotation.y, t.rotation.z = wxyz
    return out
