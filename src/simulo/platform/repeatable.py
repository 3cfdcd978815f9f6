"""``simulo run eval.py --repeatable``: the evaluation runs the same way every time on this machine.

Episode ``k`` of an evaluation always starts from the state seeded by ``(seed, k)``, and sampled actions
come from a seeded generator. ``--repeatable`` also removes what a task or policy could still vary: before
the job's function is called, Python's, numpy's and torch's global generators are seeded with 0, torch
uses deterministic algorithms and one thread (slower, as the SDK warns its repeatable mode is). The eval
report then says ``"repeatable_episodes": true``. As in the SDK, this promises nothing across machines or
devices.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from simulo.platform.context import RunContext

SEED = 0
EVAL_SCHEMA = "simulo.evaluation_report.v1"


def enter_repeatable_mode() -> None:
    """Seed the global generators and make torch (when installed) deterministic and single-threaded."""
    random.seed(SEED)
    np.random.seed(SEED)
    torch = sys.modules.get("torch")
    if torch is None and importlib.util.find_spec("torch") is not None:
        import torch  # noqa: PLC0415 - only a repeatable run pays for it
    if torch is not None:
        torch.manual_seed(SEED)
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.set_num_threads(1)


def call_job(fn: Callable[..., Any], kwargs: Mapping[str, Any], run: RunContext) -> Any:
    """Call the job's function; under ``--repeatable``, in repeatable mode, marking its evaluation report."""
    if not run.flags.repeatable:
        return fn(**kwargs)
    enter_repeatable_mode()
    result = fn(**kwargs)
    if isinstance(result, dict) and result.get("report_schema_version") == EVAL_SCHEMA:
        result["repeatable_episodes"] = True
    return result
