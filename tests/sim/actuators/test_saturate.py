"""Efforts are clipped at their limits with np.clip's exact bits, signed zeros included, through the ufunc
np.clip itself ends in."""

from __future__ import annotations

import numpy as np
import pytest

from simulo.sim.drives import Saturation

EDGES = np.array([[-0.0, 0.0, -0.0], [0.0, -0.0, 0.0], [-5.0, -5.0, -1e300], [5.0, 5.0, 1e300], [-400.0, 400.0, 3.0],
                  [-3.0, 3.0, -400.0]])


@pytest.mark.parametrize("limit", [[400.0, np.inf, 3.0], [0.0, 5.0, np.inf], [0.0, 0.0, 0.0]])
def test_saturate_gives_np_clips_bits(limit: list[float]) -> None:
    bound = np.array(limit)
    saturate = Saturation(bound)
    values = np.concatenate([np.random.default_rng(0).normal(0.0, 10.0, (50, 3)), EDGES])
    expected = np.clip(values, -bound, bound)
    assert saturate(values).tobytes() == expected.tobytes()
    inplace = values.copy()
    assert saturate(inplace, out=inplace) is inplace
    assert inplace.tobytes() == expected.tobytes()
    if not bound.all():  # np.clip turns -0.0 into 0.0 at a zero limit
        assert not np.signbit(saturate(np.array([[-0.0, -1.0, -2.0]]))[0, bound == 0]).any()
