"""Surface materials of primitive shapes (the SDK's ``Material`` and ``SurfaceMaterial``).

PyBullet's DIRECT mode draws nothing, so a material only colours recordings; ``roughness`` and ``opacity``
are kept as given.
"""

from __future__ import annotations

from simulo.checks import check_real
from simulo.errors import SimuloValueError
from simulo.frozen import frozen_dataclass


def _check_unit(owner: str, **values: float) -> None:
    for key, value in values.items():
        check_real(value, f"{owner}.{key}", low=0, high=1)


@frozen_dataclass
class Material:
    """The visual attributes every material has.

    Attributes:
        color: RGB in 0..1.
        opacity: Opacity in 0..1.
    """

    color: tuple[float, float, float] = (0.8, 0.8, 0.8)
    opacity: float = 1.0

    def __post_init__(self) -> None:
        name = type(self).__name__
        if not hasattr(self.color, "__len__") or len(self.color) != 3:
            raise SimuloValueError(f"{name}.color must be (r, g, b), got {self.color!r}")
        _check_unit(name, opacity=self.opacity, **{f"color[{i}]": c for i, c in enumerate(self.color)})

    @classmethod
    def surface(
        cls,
        color: tuple[float, float, float] = (0.8, 0.8, 0.8),
        roughness: float = 0.5,
        opacity: float = 1.0,
    ) -> SurfaceMaterial:
        """A :class:`SurfaceMaterial` (the SDK's ``Material.surface`` shortcut)."""
        return SurfaceMaterial(color=color, roughness=roughness, opacity=opacity)


@frozen_dataclass
class SurfaceMaterial(Material):
    """A material with a surface roughness.

    Attributes:
        color: RGB in 0..1.
        opacity: Opacity in 0..1.
        roughness: Surface roughness in 0..1.
    """

    roughness: float = 0.5

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_unit("SurfaceMaterial", roughness=self.roughness)
