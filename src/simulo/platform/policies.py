"""``simulo.PolicyCheckpoint``: a trained policy handed to an eval or play job with ``--policy``.

A job parameter annotated ``policy: simulo.PolicyCheckpoint`` becomes the flag ``--policy REF``.
``simulo run`` resolves ``REF`` in the job's process, against the runs folder of the job's app
(``RUNS/<app>/``), into a :class:`PolicyCheckpoint`:

=================================  ==============================================================
``REF``                            checkpoint file
=================================  ==============================================================
``policy_<stem>:best``             ``best.pt`` of the training run that registered that policy ID
``policy_<stem>:latest``           its ``latest.pt``
``policy_<stem>``                  its ``best.pt`` (``latest.pt`` if there is no best)
``path/to/file.pt``                that file
``RUN_DIR``                        ``RUN_DIR/checkpoints/best.pt`` (``latest.pt`` if there is no best)
``RUN_DIR:best``, ``RUN_DIR:latest``  ``RUN_DIR/checkpoints/best.pt``, ``.../latest.pt``
``latest``, ``latest:best``        ``best.pt`` of the newest run of the app that saved a checkpoint
``latest:latest``                  ``latest.pt`` of that run
=================================  ==============================================================

Policy IDs (see :mod:`simulo.platform.policy_registry`) are looked up in the whole runs root
(``RUNS``, the parent of the app's runs folder; ``$SIMULO_RUNS_DIR`` or ``./runs`` outside ``simulo run``),
so an eval app may use a policy another app trained. ``RUN_DIR`` is a folder as written
(``runs/cartpole/train/0003``), or relative to the app's runs folder (``train/0003``) or to the runs
root (``cartpole/train/0003``); a ``checkpoints`` folder works too. "Newest" is the run that started
last (its ``params.json`` was written last). Eval runs save no checkpoint, so ``latest`` finds the
newest training run.

Resolving reads the checkpoint file (torch is imported then) to fill :attr:`PolicyCheckpoint.meta`,
so a file that is not a trainer checkpoint is refused before the job starts work. Importing this
module imports only the standard library.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulo.errors import SimuloValueError
from simulo.platform import policy_registry

if TYPE_CHECKING:
    from simulo.rl.training.player import PolicyPlayer

KINDS = ("best", "latest")
LATEST_RUN = "latest"
CHECKPOINT_FOLDER = "checkpoints"
UNKNOWN = "unknown"  # task_name/task_digest of a checkpoint that records none, as the SDK's sidecar says
REFERENCE_HELP = ("a policy ID policy_<stem>[:best|:latest], a .pt checkpoint file, a run folder "
                  "RUN_DIR[:best|:latest], or latest[:best|:latest]")


@dataclass(frozen=True)
class PolicyCheckpoint:
    """A resolved policy checkpoint, as a play or eval job receives it.

    It is path-like (``os.fspath(checkpoint)`` is the file), so APIs that take a checkpoint path,
    such as ``simulo.RLPlayer(env, policy=checkpoint)``, accept it directly.

    Attributes:
        checkpoint: The reference: ``"<policy_id>:best"`` / ``":latest"``, or the file path for a
            file that is neither.
        policy_id: The policy ID of the run that trained it (``"policy_quiet-cedar-7k3m4q"``); for a run
            without one (trained before IDs existed) the run folder (``"cartpole/train/0003"``, relative to
            the runs root when it lies there); the file path for a file outside any run.
        kind: ``"best"``, ``"latest"`` or ``"file"``.
        path: The checkpoint file.
        meta: What the checkpoint says about itself: ``completed_iterations``, ``reward``,
            ``best_reward``, ``obs_dim``, ``act_dim``, ``algorithm``, ``env_steps``, ``seed``;
            ``max_iterations`` when the training run's parameters name it; ``task_name`` and
            ``task_digest`` when the checkpoint names its task (see :attr:`task_digest`).
    """

    checkpoint: str
    policy_id: str
    kind: str
    path: Path
    meta: Mapping[str, Any]

    def __fspath__(self) -> str:
        return str(self.path)

    @property
    def iteration(self) -> int:
        """Training iterations completed when the checkpoint was saved."""
        return int(self.meta["completed_iterations"])

    @property
    def max_iterations(self) -> int | None:
        """The training run's ``max_iterations`` parameter, or ``None`` when its run folder records none."""
        value = self.meta.get("max_iterations")
        return None if value is None else int(value)

    @property
    def reward(self) -> float | None:
        """The training reward at this checkpoint (the best reward for ``best``), or ``None``."""
        value = self.meta.get("reward")
        return None if value is None else float(value)

    @property
    def obs_dim(self) -> int:
        """Observation width the policy was trained on."""
        return int(self.meta["obs_dim"])

    @property
    def act_dim(self) -> int:
        """Action width the policy produces."""
        return int(self.meta["act_dim"])

    @property
    def task_name(self) -> str:
        """Class name of the task the policy was trained on, or ``"unknown"`` (as the SDK's) when not recorded."""
        return str(self.meta.get("task_name", UNKNOWN))

    @property
    def task_digest(self) -> str:
        """Digest of the file that defined the training task, or ``"unknown"`` (as the SDK's) when not recorded.

        ``sha256:<hex>`` of the task class's file (:func:`simulo.rl.preview.task_digest`), taken when the
        checkpoint was written, so an evaluation can tell whether the task changed since training.
        """
        return str(self.meta.get("task_digest", UNKNOWN))

    def load(self, device: str = "cuda", *, seed: int = 0) -> PolicyPlayer:
        """Load the policy as a :class:`~simulo.rl.training.player.PolicyPlayer`: the SDK's policy network.

        The player is a ``simulo.interfaces`` ``PolicyNetworkProtocol`` (``input_dim``, ``output_dim``,
        ``player(observation) -> actions``), as the SDK's ``load`` returns.

        Args:
            device: Device of the policy; the SDK's default, ``"cuda"``, warns once and uses the CPU where
                there is no CUDA.
            seed: Seed of the player's sampling generator (``deterministic=False`` calls).

        Raises:
            SimuloValueError: The file is no longer a usable checkpoint.
            MissingDependencyError: torch is not installed.
        """
        from simulo.rl.training.player import PolicyPlayer  # noqa: PLC0415 - torch-heavy

        return PolicyPlayer.from_checkpoint(self.path, device=device, seed=seed)

    @classmethod
    def resolve(cls, reference: str | os.PathLike[str], app_runs_dir: str | os.PathLike[str] | None = None,
                *, root: str | os.PathLike[str] | None = None) -> PolicyCheckpoint:
        """Resolve a ``--policy`` reference (see the module docstring) into a checkpoint.

        Args:
            reference: The reference text or a path.
            app_runs_dir: The app's runs folder (``RUNS/<app>``); needed for ``latest`` and for run
                folders given relative to the runs folder.
            root: The runs root, when there is no app (``simulo export``); by default the parent of
                ``app_runs_dir``, else ``$SIMULO_RUNS_DIR``, else ``./runs``. Policy IDs and run folders
                relative to the root are looked up there.

        Returns:
            The checkpoint, with :attr:`meta` read from the file.

        Raises:
            SimuloValueError: Nothing matches the reference (the message says what was looked for),
                or the file is not a trainer checkpoint.
        """
        file, kind = locate(reference, app_runs_dir, root=root)
        if kind == "latest" and split_reference(os.fspath(reference).strip())[1] == "best":
            sys.stderr.write(f"simulo: policy {os.fspath(reference)!r}: no episode finished during training, so "
                             "there is no best.pt; using latest.pt\n")
        return _build(file, kind, None if app_runs_dir is None else Path(app_runs_dir))


def locate(reference: str | os.PathLike[str], app_runs_dir: str | os.PathLike[str] | None = None,
           *, root: str | os.PathLike[str] | None = None) -> tuple[Path, str]:
    """The checkpoint file a reference names, and its kind, without reading the file (no torch).

    The arguments are those of :meth:`PolicyCheckpoint.resolve`.

    Raises:
        SimuloValueError: Nothing matches the reference (the message says what was looked for).
    """
    text = os.fspath(reference).strip() if isinstance(reference, (str, os.PathLike)) else None
    if not text:
        raise SimuloValueError(f"policy {reference!r}: expected {REFERENCE_HELP}")
    runs = None if app_runs_dir is None else Path(app_runs_dir)
    base = Path(root) if root is not None else _runs_root(runs)
    target, kind = split_reference(text)
    if policy_registry.looks_like_id(target) and not Path(text).exists():
        if kind is None and ":" in target:
            raise SimuloValueError(f"policy {text!r}: the kind after ':' must be best or latest, "
                                   "such as policy_quiet-cedar-7k3m4q:best")
        entry = policy_registry.find_policy(base, target)
        file, kind = _run_file(text, entry.run_dir / CHECKPOINT_FOLDER, kind)
    elif target == LATEST_RUN and not Path(text).exists():
        run_dir = _newest_run(text, runs)
        file, kind = _run_file(text, run_dir / CHECKPOINT_FOLDER, kind)
    else:
        found = _find_path(text, target, runs, base)
        if found.is_file():
            if kind is not None:
                raise SimuloValueError(
                    f"policy {text!r}: {str(found)!r} is a file; ':{kind}' goes after a run folder, "
                    f"such as runs/cartpole/train/0001:{kind}"
                )
            file, kind = found, found.stem if found.stem in KINDS else "file"
        else:
            folder = found / CHECKPOINT_FOLDER if (found / CHECKPOINT_FOLDER).is_dir() else found
            file, kind = _run_file(text, folder, kind)
    return file, kind


def split_reference(text: str) -> tuple[str, str | None]:
    """Split ``"RUN_DIR:best"`` into ``("RUN_DIR", "best")``; text without a kind suffix gives ``(text, None)``.

    The kind of a policy ID is matched as the SDK matches it (outer spaces and letter case do not matter).
    """
    target, sep, kind = text.rpartition(":")
    if sep and target and policy_registry.looks_like_id(target):
        kind = policy_registry.normalize(kind)
    if sep and target and kind in KINDS:
        return target, kind
    return text, None


def _runs_root(runs: Path | None) -> Path:
    """The runs root: the parent of the app's runs folder, else ``$SIMULO_RUNS_DIR``, else ``./runs``."""
    if runs is not None:
        return runs.parent
    return Path(os.environ.get("SIMULO_RUNS_DIR") or "runs")


def _find_path(text: str, target: str, runs: Path | None, root: Path) -> Path:
    """The file or folder ``target`` names: as written, then under the app's runs folder or the runs root."""
    candidates = [Path(text).expanduser(), Path(target).expanduser()]
    if not Path(target).is_absolute():
        candidates += ([] if runs is None else [runs / target]) + [root / target]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    where = ", ".join(dict.fromkeys(str(c) for c in candidates[1:]))
    raise SimuloValueError(f"policy {text!r}: no such checkpoint file or run folder (looked for {where}); "
                           f"expected {REFERENCE_HELP}")


def _run_file(text: str, folder: Path, kind: str | None) -> tuple[Path, str]:
    """The ``best.pt``/``latest.pt`` in a checkpoint folder (``best`` first when no kind was named; a ``best`` asked
    for in a folder with only ``latest.pt``, where no finished episode ranked one, is the ``latest``)."""
    for name in (kind,) if kind is not None else KINDS:
        file = folder / f"{name}.pt"
        if file.is_file():
            return file, name
    latest = folder / "latest.pt"
    if kind == "best" and latest.is_file():
        # no episode finished while it trained, so no reward ranked a checkpoint: the latest is the best there is
        return latest, "latest"
    present = sorted(p.name for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    wanted = f"{kind}.pt" if kind is not None else "best.pt or latest.pt"
    listing = ", ".join(present) if present else "nothing"
    raise SimuloValueError(f"policy {text!r}: {str(folder)!r} has no {wanted} (it holds {listing}); "
                           "train first (simulo run train.py) or name another checkpoint")


def _has_checkpoint(run_dir: Path) -> bool:
    return any((run_dir / CHECKPOINT_FOLDER / f"{name}.pt").is_file() for name in KINDS)


def _started(run_dir: Path) -> int:
    params = run_dir / "params.json"
    return (params if params.is_file() else run_dir).stat().st_mtime_ns


def _newest_run(text: str, runs: Path | None) -> Path:
    """The run folder (``runs/<job>/<NNNN>``) that started last among those holding a checkpoint."""
    if runs is None:
        raise SimuloValueError(
            f"policy {text!r}: 'latest' means the newest training run of this app, which needs the app's runs "
            "folder; run the job with simulo run, or name a checkpoint file or run folder"
        )
    runs_list = [d for d in runs.glob("*/*") if d.is_dir() and d.name.isdigit() and _has_checkpoint(d)]
    if not runs_list:
        raise SimuloValueError(
            f"policy {text!r}: no run under {str(runs)!r} has saved a checkpoint; train first "
            "(simulo run train.py) or name a checkpoint file"
        )
    return max(runs_list, key=lambda d: (_started(d), d.parent.name, d.name))


def _policy_id(file: Path, runs: Path | None) -> str | None:
    """The run folder that holds ``file`` in its ``checkpoints`` folder, as text; ``None`` if none."""
    if file.parent.name != CHECKPOINT_FOLDER:
        return None
    run_dir = file.parent.parent.resolve()
    if runs is not None:
        root = runs.resolve().parent
        if run_dir.is_relative_to(root):
            return run_dir.relative_to(root).as_posix()
    return str(run_dir)


def _run_params(file: Path) -> Mapping[str, Any]:
    params = file.parent.parent / "params.json" if file.parent.name == CHECKPOINT_FOLDER else None
    if params is None or not params.is_file():
        return {}
    try:
        data = json.loads(params.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _build(file: Path, kind: str, runs: Path | None) -> PolicyCheckpoint:
    from simulo.rl.training.checkpoints import read_checkpoint  # noqa: PLC0415 - torch-heavy

    payload = read_checkpoint(file)
    try:
        history = list(payload.get("reward_history") or [])
        meta: dict[str, Any] = {
            "completed_iterations": int(payload["iteration"]),
            "best_reward": payload.get("best_reward"),
            "reward": payload.get("best_reward") if kind == "best" else (history[-1] if history else None),
            "obs_dim": int(payload["observation_dim"]),
            "act_dim": int(payload["action_dim"]),
            "algorithm": payload.get("algorithm"),
            "env_steps": payload.get("env_steps"),
            "seed": payload.get("seed"),
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise SimuloValueError(f"checkpoint {str(file)!r} is incomplete: {exc!r}") from exc
    max_iterations = _run_params(file).get("max_iterations")
    if isinstance(max_iterations, int):
        meta["max_iterations"] = max_iterations
    meta.update({key: payload[key] for key in ("task_name", "task_digest") if isinstance(payload.get(key), str)})
    registered = policy_registry.read_record(file.parent.parent) if file.parent.name == CHECKPOINT_FOLDER else None
    run_id = str(registered["policy_id"]) if registered is not None else _policy_id(file, runs)
    policy_id = run_id if run_id is not None else str(file)
    reference = f"{policy_id}:{kind}" if run_id is not None and kind in KINDS else str(file)
    return PolicyCheckpoint(checkpoint=reference, policy_id=policy_id, kind=kind, path=file, meta=meta)
