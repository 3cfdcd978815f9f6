"""Sharded sweeps: cut a batch into whole worlds, run the shards on Ray workers, gather them in order.

A sweep of ``total`` environments (trials) is cut into shards of whole PyBullet worlds
(:func:`plan_shards`). :func:`run_sweep` calls ``fn(shard)`` for every shard, in this process
(``workers=1``) or as Ray tasks with at most ``workers`` in flight, and returns the shards' results in
shard order, whatever order they finish in. The layout never depends on ``workers``: a shard is the
same environments in the same worlds either way, so the numbers are the same for any number of workers
as long as ``fn(shard)`` depends only on the shard.

Faults: a shard whose worker dies (the process is killed, its node is lost) is submitted again, up to
``max_retries`` times; a line above the progress bar says so. Each shard's result is kept once, so
every trial is reported exactly once. An exception raised by ``fn`` itself is not retried (it would
fail again): the sweep stops and raises it.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from simulo.checks import check_int
from simulo.errors import SimuloValueError, WorkerError
from simulo.scale.progress import Progress
from simulo.scale.settings import ENV_ADDRESS, ENV_WORKERS, ScaleSettings

R = TypeVar("R")


@dataclass(frozen=True)
class Shard:
    """A slice of a batch: environments ``first .. first + count - 1`` of ``total``.

    Attributes:
        index: Position of the shard in the batch (results are gathered in this order).
        first: Global index of the first environment; a multiple of the world size.
        count: Environments in the shard (whole worlds; the last shard may end in a partial world).
        total: Environments in the whole batch.
    """

    index: int
    first: int
    count: int
    total: int

    @property
    def stop(self) -> int:
        """One past the last environment."""
        return self.first + self.count

    def describe(self) -> str:
        """``"shard 2 (3 envs: 32..34 of 35)"``-style text for messages."""
        return f"shard {self.index} ({self.count} envs: {self.first}..{self.stop - 1} of {self.total})"


def default_envs_per_world(engine: str | None = None) -> int:
    """The engine's bound on environments per world (what :class:`simulo.Simulation` uses by default)."""
    from simulo.engine.registry import engine_factory  # noqa: PLC0415 - the engine loads on use

    return engine_factory(engine).default_envs_per_world


def plan_shards(total: int, envs_per_world: int | None = None, parts: int | None = None,
                engine: str | None = None) -> list[Shard]:
    """Cut ``total`` environments into shards of whole worlds of ``envs_per_world``.

    Args:
        total: Environments in the batch (>= 1).
        envs_per_world: Environments per PyBullet world (>= 1); environment ``i`` is in world
            ``i // envs_per_world``. ``None``: the engine's default (:func:`default_envs_per_world`).
        parts: ``None`` for one shard per world (sweeps); else at most this many shards of contiguous
            worlds, as even as whole worlds allow (one per rollout actor).
        engine: The engine whose default bound applies when ``envs_per_world`` is ``None``.

    Returns:
        The shards, in environment order.

    Raises:
        SimuloValueError: A count is not a positive integer.
    """
    if envs_per_world is None:
        envs_per_world = default_envs_per_world(engine)
    for name, value in (("total", total), ("envs_per_world", envs_per_world), ("parts", 1 if parts is None else parts)):
        check_int(value, name, 1)
    worlds = -(-total // envs_per_world)
    groups = worlds if parts is None else min(parts, worlds)
    bounds = [(k * worlds) // groups for k in range(groups + 1)]
    shards = []
    for k in range(groups):
        first = bounds[k] * envs_per_world
        stop = min(total, bounds[k + 1] * envs_per_world)
        shards.append(Shard(index=k, first=first, count=stop - first, total=total))
    return shards


def group_shards(layout: list[Shard], parts: int) -> list[Shard]:
    """Join consecutive shards of ``layout`` into at most ``parts`` groups, as even as whole shards allow.

    Each group is one rollout actor's share: a union of whole rollout shards, so the layout (which fixes
    the random streams) does not change with the number of actors.

    Raises:
        SimuloValueError: ``parts`` is not a positive integer.
    """
    check_int(parts, "parts", 1)
    groups = min(parts, len(layout))
    bounds = [(k * len(layout)) // groups for k in range(groups + 1)]
    return [Shard(index=k, first=layout[bounds[k]].first,
                  count=layout[bounds[k + 1] - 1].stop - layout[bounds[k]].first, total=layout[0].total)
            for k in range(groups)]


def run_shard(fn: Callable[[Shard], Any], shard: Shard) -> Any:
    """What a Ray task runs: one shard, in-process (a shard never shards again)."""
    os.environ.pop(ENV_WORKERS, None)
    os.environ.pop(ENV_ADDRESS, None)
    return fn(shard)


def run_sweep(fn: Callable[[Shard], R], shards: list[Shard], *, workers: int = 1, address: str | None = None,
              max_retries: int = 3, progress: bool = True, desc: str = "sweep", unit: str = "trial") -> list[R]:
    """Run ``fn`` on every shard and return the results in shard order.

    Args:
        fn: Computes one shard. It goes to the workers pickled (by value if it comes from the app's own
            files; see :func:`~simulo.scale.cluster.ship_by_value`), and must depend only on the shard.
        shards: From :func:`plan_shards`.
        workers: Shards computed at once. 1 with no ``address``: in this process, without Ray.
        address: An existing Ray cluster, or ``None`` to use the process's Ray session or start a local one.
        max_retries: Times a shard is run again after its worker died.
        progress: Draw one progress bar (units: environments of the finished shards).
        desc: Label of the bar.
        unit: Unit name of the bar.

    Returns:
        ``[fn(shard) for shard in shards]``.

    Raises:
        WorkerError: A shard's worker died more than ``max_retries`` times.
        SimuloValueError: A bad argument.
        MissingDependencyError: Ray is needed and not installed.
        Exception: Whatever ``fn`` raised (on a worker or here).
    """
    settings = ScaleSettings(workers, address)
    check_int(max_retries, "max_retries", 0)
    if not shards or [s.index for s in shards] != list(range(len(shards))):
        raise SimuloValueError(f"shards must be a non-empty list numbered 0, 1, ... (from plan_shards), got {shards!r}")
    bar = Progress(sum(s.count for s in shards), desc, unit, enabled=progress)
    try:
        if not settings.uses_ray:
            results = []
            for shard in shards:
                results.append(fn(shard))
                bar.update(shard.count)
            return results
        return _run_on_ray(fn, shards, settings, max_retries, bar)
    finally:
        bar.close()


def _run_on_ray(fn: Callable[[Shard], R], shards: list[Shard], settings: ScaleSettings, max_retries: int,
                bar: Progress) -> list[R]:
    from simulo.scale.cluster import Cluster, ship_by_value  # noqa: PLC0415 - Ray only when asked for

    with Cluster(settings.workers, settings.address) as cluster:
        ray = cluster.ray
        lost = (ray.exceptions.WorkerCrashedError, ray.exceptions.RayActorError, ray.exceptions.NodeDiedError,
                ray.exceptions.ObjectLostError, ray.exceptions.OwnerDiedError)
        ship_by_value(fn)
        task = ray.remote(num_cpus=1, max_retries=0)(run_shard)
        fn_ref = ray.put(fn)
        queue: deque[tuple[Shard, int]] = deque((s, 1) for s in shards)
        pending: dict[Any, tuple[Shard, int]] = {}
        results: dict[int, R] = {}
        try:
            while queue or pending:
                while queue and len(pending) < settings.workers:
                    shard, attempt = queue.popleft()
                    pending[task.remote(fn_ref, shard)] = (shard, attempt)
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    shard, attempt = pending.pop(ref)
                    try:
                        value = ray.get(ref)
                    except ray.exceptions.RayTaskError as exc:
                        cause = exc.cause if isinstance(exc.cause, BaseException) else exc
                        raise cause from exc
                    except lost as exc:
                        if attempt > max_retries:
                            raise WorkerError(f"{shard.describe()}: its worker died {attempt} times "
                                              f"({type(exc).__name__}); giving up (max_retries={max_retries})") from exc
                        bar.write(f"sweep: {shard.describe()}: worker lost ({type(exc).__name__}); "
                                  f"running it again (attempt {attempt + 1}/{max_retries + 1})")
                        queue.appendleft((shard, attempt + 1))
                        continue
                    results[shard.index] = value
                    bar.update(shard.count)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
        return [results[s.index] for s in shards]
