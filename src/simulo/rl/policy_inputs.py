"""A task's ``policy_input_schema`` as the environment sees it (no torch).

With a schema, the SDK defines ``observation_dim`` as the width of the actor's numeric inputs (images and
critic-only inputs excluded), and every actor declares at least one numeric input. The environment's
observations are then those numeric inputs, flattened and concatenated in their declared order, read from
``task.get_policy_inputs()``; the trainer and the players read the images (and the critic's inputs) from the
task themselves.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from simulo.errors import SimuloValueError, TaskError
from simulo.sim.tensors import to_numpy


def task_schema(task: Any) -> Any:
    """The task's ``policy_input_schema`` checked (``None`` when it declares none).

    Raises:
        SimuloValueError: It is not a ``simulo.PolicyInputSchema``.
        TaskError: The actor declares no numeric input, or ``observation_dim`` is not their width.
    """
    schema = getattr(task, "policy_input_schema", None)
    if schema is None:
        return None
    from simulo.interfaces.authoring.policy_inputs import PolicyInputSchema  # noqa: PLC0415 - only with a schema

    name = type(task).__name__
    if not isinstance(schema, PolicyInputSchema):
        raise SimuloValueError(f"{name}.policy_input_schema={schema!r}: expected a simulo.PolicyInputSchema or None")
    numeric = [spec for spec in schema.actor if spec.kind == "numeric"]
    if not numeric:
        images = [s.name for s in schema.actor]
        raise TaskError(f"{name}.policy_input_schema: the actor declares no numeric input ({images} are all images); "
                        "declare at least one, as the SDK requires")
    width = sum(math.prod(spec.shape) for spec in numeric)
    if task.observation_dim != width:
        raise TaskError(f"{name}.observation_dim={task.observation_dim}: with a policy_input_schema it is the width of "
                        f"the actor's numeric inputs {[s.name for s in numeric]}, {width}")
    return schema


def numeric_actor_inputs(schema: Any, values: Any, num_envs: int, where: str) -> np.ndarray:
    """The actor's numeric inputs of ``values`` (what ``get_policy_inputs()`` returned), ``(num_envs, width)``.

    Raises:
        TaskError: ``values`` lacks or adds an input, or one has the wrong shape or is not numbers (``where``
            names the task and the step).
    """
    specs = schema.actor
    if not isinstance(values, Mapping):
        if len(specs) != 1:
            raise TaskError(f"{where}: get_policy_inputs() returned one tensor; the schema declares "
                            f"{[s.name for s in specs]}, so return a dict by name")
        values = {specs[0].name: values}
    unknown = sorted(set(values) - {s.name for s in specs})
    missing = [s.name for s in specs if s.name not in values]
    if unknown or missing:
        raise TaskError(f"{where}: get_policy_inputs() returned {sorted(values)}; the schema declares "
                        f"{[s.name for s in specs]} (missing {missing}, undeclared {unknown})")
    columns = []
    for spec in specs:
        if spec.kind != "numeric":
            continue
        try:
            arr = to_numpy(values[spec.name], spec.name)
        except SimuloValueError as exc:
            raise TaskError(f"{where}: get_policy_inputs()[{spec.name!r}] is not an array of numbers") from exc
        if arr.shape != (num_envs, *spec.shape):
            raise TaskError(f"{where}: get_policy_inputs()[{spec.name!r}] has shape {tuple(arr.shape)}; expected "
                            f"{(num_envs, *spec.shape)}")
        columns.append(arr.reshape(num_envs, -1))
    return np.concatenate(columns, axis=1)
