"""``verify.py`` of an ONNX policy bundle: replay its golden vectors here, with onnxruntime and numpy only.

This file is copied into every bundle :mod:`simulo.platform.export_bundle` writes, and runs there on its own
(``python verify.py`` in the bundle folder): it imports neither simulo nor torch. It reads the graph inputs and
the tolerance from ``manifest.json``, feeds ``test_vectors.npz``'s inputs to ``model.onnx``, and compares the
actions with the expected ones per element: ``|actual - expected| <= absolute + relative * |expected|``.

Exit status: 0 every vector agreed, 1 one did not or the replay could not run (``export_local_validation_failed``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

FAILED_REASON = "export_local_validation_failed"


def replay(folder: Path) -> dict[str, Any]:
    """Replay the golden vectors of the bundle in ``folder``; returns the SDK's ``PolicyExportValidation`` data.

    Raises:
        ImportError: onnxruntime or numpy is not installed.
        OSError, ValueError, KeyError: A bundle file is missing or malformed.
    """
    import numpy as np  # noqa: PLC0415 - kept inside, so the module imports without them
    import onnxruntime  # type: ignore[import-untyped]  # noqa: PLC0415

    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    equivalence = manifest["equivalence"]
    absolute, relative = float(equivalence["absolute_tolerance"]), float(equivalence["relative_tolerance"])
    inputs = manifest["inputs"]
    single = manifest["schema_version"] == "simulo.policy-bundle.v1" and len(inputs) == 1
    with np.load(folder / "test_vectors.npz") as vectors:
        feeds = {spec["name"]: np.asarray(vectors["inputs" if single else f"inputs.{spec['name']}"],
                                          dtype=spec["dtype"]) for spec in inputs}
        expected = np.asarray(vectors["expected_outputs"], dtype=np.float32)
    session = onnxruntime.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    actual = np.asarray(session.run([manifest["outputs"][0]["name"]], feeds)[0], dtype=np.float32)
    if actual.shape != expected.shape:
        raise ValueError(f"model.onnx gave actions of shape {actual.shape}, expected {expected.shape}")
    difference = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    within = (difference <= absolute + relative * np.abs(expected.astype(np.float64))).reshape(len(expected), -1)
    passed = int(within.all(axis=1).sum())
    compared = len(expected)
    ok = passed == compared and compared > 0
    return {"schema_version": manifest["schema_version"], "verdict": "passed" if ok else "failed",
            "vectors_compared": compared, "vectors_passed": passed,
            "max_absolute_difference": float(difference.max()) if difference.size else 0.0,
            "absolute_tolerance": absolute, "failure_reason": None if ok else FAILED_REASON}


def main(argv: list[str]) -> int:
    """Verify the bundle in the folder given (default: this file's folder); returns the exit status."""
    folder = Path(argv[0]) if argv else Path(__file__).resolve().parent
    try:
        result = replay(folder)
    except (ImportError, OSError, ValueError, KeyError) as exc:
        print(f"✗ Local verification could not run: {type(exc).__name__}: {exc}", file=sys.stderr)
        print(f"Failure reason: {FAILED_REASON}", file=sys.stderr)
        return 1
    difference = f"Maximum action difference: {result['max_absolute_difference']:.1e}"
    if result["verdict"] == "passed":
        print(f"✓ {result['vectors_passed']} golden inference vectors passed")
        print(f"✓ {difference}")
        return 0
    print(f"✗ {result['vectors_passed']} of {result['vectors_compared']} golden inference vectors passed")
    print(f"✗ {difference} (tolerance {result['absolute_tolerance']:.1e})")
    print(f"Failure reason: {FAILED_REASON}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
