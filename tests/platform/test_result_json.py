"""A job's result JSON cannot hold is a JobError naming the path of the offending value, not a traceback."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from simulo.errors import JobError
from simulo.platform._child import result_json


def _circular() -> dict[str, Any]:
    inner: dict[str, Any] = {"level": 1}
    inner["again"] = inner
    return {"stats": {"inner": inner}}


class Opaque:
    def __repr__(self) -> str:
        return "Opaque()"


@pytest.mark.parametrize(("result", "message"), [
    ({"ok": 1, "nested": {(1, 2): 3}},
     "result['nested'] has the key (1, 2), a tuple: keys must be str, int, float, bool or None"),
    (_circular(), "result['stats']['inner']['again'] contains itself (a circular structure)"),
    ({"rows": [1, 2, {"x": Opaque()}]}, "result['rows'][2]['x'] is a Opaque, which JSON cannot hold: Opaque()"),
], ids=["tuple_key", "circular", "object"])
def test_an_unsaveable_result_names_its_path(result: Any, message: str) -> None:
    with pytest.raises(JobError) as caught:
        result_json(result)
    assert str(caught.value) == f"the job's result cannot be saved as JSON: {message}"


def test_a_shared_value_is_not_circular_and_arrays_are_lists() -> None:
    shared = [1.0, 2.0]
    saved = json.loads(result_json({"a": shared, "b": shared, "c": np.arange(3), "d": (1, float("nan"))}))
    assert saved == {"a": [1.0, 2.0], "b": [1.0, 2.0], "c": [0, 1, 2], "d": [1, None]}
