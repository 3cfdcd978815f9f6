"""Image policies: the CNN encoder, the ``simulo.cnn-numeric.v1`` network and its standalone actor (imports torch).

A task whose ``policy_input_schema`` declares image inputs trains a network of this architecture: each
image input goes through its own small CNN, whose features are concatenated with the numeric inputs (in
their declared order) and fed to an MLP head. Images arrive as RGB uint8 ``(N, H, W, 3)`` from the
cameras; inside the network they become channels-first floats in ``[0, 1]`` (``preprocessing="center"``
also subtracts 0.5), as the SDK's contract puts it (``simulo.interfaces.authoring.policy_inputs``).

skrl stores one float32 "states" tensor per step. An image rides in it as its raw bytes, four pixels'
channels to a float32 column (:func:`pack_image` / :func:`unpack_image`: a bit-for-bit reinterpretation,
not a conversion), so the rollout buffer keeps compact uint8 images: a 100x100 RGB image is 7500 columns.
Only copies and indexing ever touch those columns (the state preprocessor standardises the numeric
columns alone, :class:`~simulo.rl.training.agent.NumericScaler`).

:class:`ImageActor` is the trained policy without skrl, as checkpoints keep it for replay and export:
its inputs are the schema's actor inputs in their declared order, raw (uint8 images, float numeric
inputs), with the numeric standardisation folded in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from simulo.errors import SimuloValueError
from simulo.rl.training.networks import ACTIVATIONS, build_mlp

ARCHITECTURE = "simulo.cnn-numeric.v1"
"""The SDK's identifier of this network (``policy_architecture`` of a named-input checkpoint)."""


@dataclass(frozen=True)
class ImageInput:
    """One image input of a role.

    Attributes:
        name: The declared input name.
        shape: ``(H, W, 3)``.
        preprocessing: ``"none"`` (``x / 255``) or ``"center"`` (``x / 255 - 0.5``).
    """

    name: str
    shape: tuple[int, int, int]
    preprocessing: str = "none"


@dataclass(frozen=True)
class EncoderConfig:
    """The CNN of one image input.

    Attributes:
        convs: ``(out_channels, kernel, stride)`` of each convolution (no padding), each followed by the activation.
        features: Width of the linear layer after the convolutions (the encoder's output).
    """

    convs: tuple[tuple[int, int, int], ...]
    features: int = 64

    def to_dict(self) -> dict[str, Any]:
        """The configuration as plain data (for a checkpoint)."""
        return {"convs": [list(c) for c in self.convs], "features": self.features}

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> EncoderConfig:
        """Reverse :meth:`to_dict`."""
        return cls(tuple((int(c), int(k), int(s)) for c, k, s in value["convs"]), int(value["features"]))


def default_encoder(shape: tuple[int, int, int]) -> EncoderConfig:
    """The encoder this runtime picks for an ``(H, W, 3)`` image: larger kernels and strides for larger images.

    100x100 gets (16, 8, 4), (32, 4, 2), (32, 3, 1): a 9x9 map of 32 channels. 32x32 gets (16, 5, 2),
    (32, 3, 2), (32, 3, 1): 4x4. Images under 24 pixels get two 3x3 convolutions.
    """
    side = min(shape[0], shape[1])
    convs: tuple[tuple[int, int, int], ...]
    if side >= 64:
        convs = ((16, 8, 4), (32, 4, 2), (32, 3, 1))
    elif side >= 24:
        convs = ((16, 5, 2), (32, 3, 2), (32, 3, 1))
    else:
        convs = ((16, 3, 1), (32, 3, 2))
    return EncoderConfig(convs)


# -- images in skrl's float32 states ------------------------------------------------------------------------
def packed_width(shape: Sequence[int]) -> int:
    """float32 columns an image of ``shape`` (uint8) takes in the states."""
    return -(-math.prod(shape) // 4)


def pack_image(images: torch.Tensor) -> torch.Tensor:
    """uint8 ``(N, *shape)`` as float32 ``(N, packed_width(shape))`` holding the same bytes (zero-padded)."""
    flat = images.reshape(images.shape[0], -1).contiguous()
    pad = (-flat.shape[1]) % 4
    if pad:
        flat = torch.nn.functional.pad(flat, (0, pad))
    return flat.view(torch.float32)


def unpack_image(columns: torch.Tensor, shape: Sequence[int]) -> torch.Tensor:
    """Reverse :func:`pack_image`: float32 ``(N, packed_width(shape))`` to uint8 ``(N, *shape)``."""
    raw = columns.contiguous().view(torch.uint8)
    return raw[:, :math.prod(shape)].reshape(columns.shape[0], *shape)


def image_to_float(images: torch.Tensor, preprocessing: str) -> torch.Tensor:
    """uint8 NHWC to float32 NCHW in ``[0, 1]`` (``"center"``: ``[-0.5, 0.5]``)."""
    x = images.permute(0, 3, 1, 2).float() / 255.0
    return x - 0.5 if preprocessing == "center" else x


# -- the network ---------------------------------------------------------------------------------------------
class ImageEncoder(nn.Module):
    """uint8 NHWC images to ``config.features`` features: convolutions, flatten, linear, activation.

    Args:
        image: The input it encodes.
        config: Its convolutions and output width.
        activation: A key of :data:`~simulo.rl.training.networks.ACTIVATIONS`.

    Raises:
        SimuloValueError: The convolutions shrink the image below one pixel.
    """

    def __init__(self, image: ImageInput, config: EncoderConfig, activation: str) -> None:
        super().__init__()
        self.preprocessing = image.preprocessing
        layers: list[nn.Module] = []
        channels, height, width = image.shape[2], image.shape[0], image.shape[1]
        for out, kernel, stride in config.convs:
            height, width = (height - kernel) // stride + 1, (width - kernel) // stride + 1
            if height < 1 or width < 1:
                raise SimuloValueError(f"image input {image.name!r} of shape {image.shape} is too small for the "
                                       f"encoder's convolutions {config.convs}")
            conv = nn.Conv2d(channels, out, kernel, stride)
            nn.init.orthogonal_(conv.weight, gain=math.sqrt(2.0))
            assert conv.bias is not None  # Conv2d has a bias by default
            nn.init.zeros_(conv.bias)
            layers += [conv, ACTIVATIONS[activation]()]
            channels = out
        linear = nn.Linear(channels * height * width, config.features)
        nn.init.orthogonal_(linear.weight, gain=math.sqrt(2.0))
        nn.init.zeros_(linear.bias)
        self.net = nn.Sequential(*layers, nn.Flatten(), linear, ACTIVATIONS[activation]())

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """Features ``(N, features)`` of uint8 images ``(N, H, W, 3)``."""
        return self.net(image_to_float(images, self.preprocessing))


class CnnNumericNet(nn.Module):
    """The ``simulo.cnn-numeric.v1`` network: one CNN per image, concatenated with the numeric inputs, an MLP head.

    Args:
        images: The image inputs, in declared order.
        numeric_dim: Width of the numeric inputs (flattened, concatenated in declared order; may be 0).
        encoder: The CNN of every image input.
        hidden: Hidden layer sizes of the head.
        out_dim: Output width.
        activation: A key of :data:`~simulo.rl.training.networks.ACTIVATIONS`.
        out_gain: Orthogonal gain of the output layer.
    """

    def __init__(self, images: Sequence[ImageInput], numeric_dim: int, encoder: EncoderConfig,
                 hidden: tuple[int, ...], out_dim: int, activation: str, out_gain: float) -> None:
        super().__init__()
        self.encoders = nn.ModuleList([ImageEncoder(image, encoder, activation) for image in images])
        self.head = build_mlp(encoder.features * len(self.encoders) + numeric_dim, hidden, out_dim, activation,
                              out_gain)

    def forward(self, images: Sequence[torch.Tensor], numeric: torch.Tensor) -> torch.Tensor:
        """Outputs for uint8 images (one batch per image input) and the numeric inputs ``(N, numeric_dim)``."""
        features = [encode(image) for encode, image in zip(self.encoders, images, strict=True)]
        return self.head(torch.cat([*features, numeric], dim=1))


def architecture_config(images: Sequence[ImageInput], encoder: EncoderConfig, hidden: tuple[int, ...],
                        activation: str) -> dict[str, Any]:
    """The network's description as plain data (the SDK's ``policy_architecture_config``)."""
    return {"encoder": encoder.to_dict(), "hidden": list(hidden), "activation": activation,
            "images": [{"name": i.name, "shape": list(i.shape), "preprocessing": i.preprocessing} for i in images]}
