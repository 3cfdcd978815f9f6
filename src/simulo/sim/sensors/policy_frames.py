"""The SDK's ``PolicyFrameSource`` over a scene's policy cameras (``purpose="policy"``).

An environment that steps a scene mixes :class:`PolicyFrames` in; it needs ``scene`` and ``tensors``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simulo.errors import NameNotFoundError
from simulo.sim.sensors.attach import cameras
from simulo.sim.sensors.camera import Camera

if TYPE_CHECKING:
    from simulo.sim.scene import Scene
    from simulo.sim.tensors import Tensors


class PolicyFrames:
    """RGB uint8 (N, H, W, 3) frames of the policy cameras, drawn after physics (``PolicyFrameSource``)."""

    tensors: Tensors

    if TYPE_CHECKING:
        @property
        def scene(self) -> Scene:
            """The scene whose policy cameras are served."""

    def _policy_cameras(self) -> dict[str, Camera]:
        return {c.name or "": c for c in cameras(self.scene) if isinstance(c, Camera) and c.purpose == "policy"}

    @property
    def camera_names(self) -> tuple[str, ...]:
        """Scene names of the policy cameras (``purpose="policy"``), in scene order."""
        return tuple(self._policy_cameras())

    def _camera(self, camera: str) -> Camera:
        found = self._policy_cameras().get(camera)
        if found is None:
            raise NameNotFoundError(f"no policy camera named {camera!r}; policy cameras: {list(self.camera_names)} "
                                    "(a camera serves policy frames with purpose='policy')")
        return found

    def read_policy_frames(self, camera: str, env_ids: Any = None) -> Any:
        """A new contiguous RGB uint8 (N, H, W, 3) snapshot of ``camera``, rows in ``env_ids`` order (all: None).

        Raises:
            NameNotFoundError: ``camera`` is not a policy camera. EnvIdError: bad ``env_ids``.
        """
        cam = self._camera(camera)
        ids = None if env_ids is None else self.tensors.env_ids(env_ids, cam.count)
        return self.tensors.out(cam.runtime_rgb_rows(ids))

    def refresh_policy_frames(self, env_ids: Any) -> None:
        """Redraw the policy cameras' rows of ``env_ids`` now (reset environments); other rows are kept as they are."""
        for cam in self._policy_cameras().values():
            cam.runtime_refresh(self.tensors.env_ids(env_ids, cam.count))
