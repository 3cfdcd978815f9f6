"""``RayLearningEnv``: one batch of ``num_envs`` environments, stepped in lock step by Ray actors.

The batch is cut into coarse shards of whole PyBullet worlds (``envs_per_world`` environments each, the
same layout a single process uses), one shard per actor; never one actor per environment. Each actor
holds a :class:`~simulo.rl.local_env.LocalEnv` built with ``shard=(first_env, num_envs)``, so its environments have
the global indices, origins, worlds and random streams they have in one process. ``step`` sends every
actor its slice of the actions and concatenates the answers in environment order: the trainer sees
one batch, as before.

Same seed, same numbers. With the same task, seed and actions, observations, rewards, dones and the
``info`` entries (finished episodes in environment order, ``final_env_ids`` as global indices) equal a
single-process ``LearningEnv``'s bit for bit, as long as the task draws its randomness from
``task.random_uniform`` (one stream per environment). Process-wide generators (``random``,
``torch.manual_seed``) are seeded with the same seed in every actor, so a task that draws from them
gets the same numbers in every shard instead of one continuing stream: those draws differ from a
single-process run.

Transport. Ray places, builds and supervises the actors; the per-step traffic then goes over one direct
TCP connection per actor (``multiprocessing.connection``, authenticated with a random key sent through
Ray), because a Ray call costs milliseconds per step on a small machine and a socket round trip a tenth of
one. The driver must be able to open a TCP connection to each actor's node (as Ray's own workers do).
Every ``step`` still waits for the slowest shard: sharding pays off when a shard's step costs clearly more
than the round trip (heavy physics, or many environments per worker). Light tasks at small batches run
faster in one process.

Training. A trainer does not step a ``RayLearningEnv`` in lock step: it asks for
:meth:`RayLearningEnv.rollout_collector`, and the actors become env runners that hold a copy of the
policy and return whole rollouts (:mod:`simulo.scale.env_runners`). The batch is laid out in rollout
shards (``rollout_shards``); each actor steps a run of whole shards.

A lost worker. The actor's process is killed or its node is lost: the next call that needs it (``step``, a
trainer's rollout or update) raises :class:`~simulo.errors.WorkerError` naming the worker, its process and its
shard, and the other actors are stopped first (:meth:`RayLearningEnv.close`). The shard is not rebuilt
elsewhere, as a sweep's shard is (:func:`~simulo.scale.sweep.run_sweep`): its simulations' state lived in the
lost process, and a rebuilt shard would not continue with the bytes of a run without the fault. The run
resumes from its last checkpoint instead: under ``simulo run`` the job's ``retries`` do it, or ``simulo run
APP --workers N --from latest:latest`` continues the newest run's ``latest.pt``. The driver never waits on a
dead actor: while it waits for an answer on a direct channel, it checks every :data:`LIVENESS_POLL_S` seconds
that the actor still serves it (Ray reports a lost node's actors as dead).
"""

from __future__ import annotations

import copy
import inspect
import os
import secrets
from multiprocessing.connection import Client, Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np

from simulo.checks import check_int
from simulo.errors import SimuloValueError, TaskError, WorkerError
from simulo.rl.env import BackendFactory, LearningEnv
from simulo.rl.env_streams import MAX_SEED
from simulo.rl.task import Task, task_uses_torch
from simulo.scale.cluster import Cluster, ship_by_value
from simulo.scale.env_shard import EnvShard, no_delay
from simulo.scale.settings import check_workers
from simulo.scale.sweep import Shard, group_shards, plan_shards
from simulo.sim.scene import Scene
from simulo.sim.simulation import grid_origins
from simulo.sim.tensors import Tensors

_SIGNATURE = inspect.signature(LearningEnv.__init__)

DEFAULT_ROLLOUT_SHARDS = 8
"""Rollout shards (groups of whole worlds) when ``rollout_shards`` is not given, or ``workers`` if more: env
runners draw one random stream per shard, so the layout, not the worker count, fixes the collected data."""
ENV_ROLLOUT_SHARDS = "SIMULO_ROLLOUT_SHARDS"
"""Environment variable: ``rollout_shards`` of the environments :func:`backend_factory` builds."""
LIVENESS_POLL_S = 1.0
"""Seconds between the driver's checks that an actor it waits on over a direct channel is still alive."""
RESUME_HINT = ("resume from the last checkpoint: under simulo run the job's retries do it, or run the job again "
               "with --from latest:latest (the newest run's checkpoints/latest.pt: weights, optimizer state and "
               "iteration) or --from RUN_DIR:latest")
"""What a :class:`~simulo.errors.WorkerError` for a lost actor tells the user to do."""

class RayLearningEnv:
    """A :class:`simulo.LearningEnv` whose environments are sharded over Ray actors.

    Takes the arguments of :class:`simulo.LearningEnv`, plus:

    Args:
        workers: Actors to spread the batch over (at most one per PyBullet world; fewer when there are
            fewer worlds).
        address: An existing Ray cluster (``HOST:6379`` or ``ray://HOST:10001``), or ``None`` to use the
            process's Ray session or start a local one with ``workers`` CPUs.
        rollout_shards: Rollout shards of whole worlds (at most one per world); each actor steps a run of
            whole shards, so there are at most this many actors. A trainer's env runners draw one random
            stream per shard: with the same seed and shards, the collected data is the same bytes for any
            ``workers``. ``None``: ``max(8, workers)``.

    Under ``simulo run --workers N`` the job runner installs :func:`backend_factory`, so every
    ``simulo.LearningEnv(...)`` of the job steps its environments through one of these, and an app file
    runs unchanged with and without the flag.

    Attributes:
        shards: The shard of each actor, in environment order.

    Raises:
        SimuloValueError: A bad argument (the message names it).
        TaskError: The task failed while an actor built it.
        MissingDependencyError: Ray is not installed.
    """

    def __init__(self, task: Task, num_envs: int = 1, *args: Any, workers: int = 2, address: str | None = None,
                 rollout_shards: int | None = None, **kwargs: Any) -> None:
        if not isinstance(task, Task):
            raise SimuloValueError(f"RayLearningEnv needs a simulo.Task instance, got {task!r}")
        check_int(num_envs, "num_envs", 1)
        check_workers(workers)
        try:
            bound = _SIGNATURE.bind(None, task, num_envs, *args, **kwargs)
        except TypeError as exc:
            raise SimuloValueError(f"RayLearningEnv takes LearningEnv's arguments: {exc}") from None
        options = {k: v for k, v in bound.arguments.items() if k not in ("self", "task", "num_envs")}
        if options.get("shard") is not None:
            raise SimuloValueError(f"shard={options['shard']!r}: RayLearningEnv makes the shards itself; "
                                   "pass shard only to a LearningEnv")
        options.pop("shard", None)
        if options.get("tensor_library", "auto") == "auto":  # decided here: the actors see a shipped copy
            options["tensor_library"] = "torch" if task_uses_torch(task) else "numpy"
        if options.get("seed") is not None:  # checked here, before any actor starts
            check_int(options["seed"], "seed", 0, MAX_SEED)
        if options.get("seed", 0) is None:
            options["seed"] = secrets.randbits(63)  # one draw for every shard, so the streams do not repeat
        self.task = task  # the driver's copy; each actor builds and runs a shipped copy
        self.num_envs = num_envs
        self.rollout_layout: list[Shard] = plan_shards(
            num_envs, options.get("envs_per_world"), engine=options.get("engine"),
            parts=max(DEFAULT_ROLLOUT_SHARDS, workers) if rollout_shards is None
            else check_int(rollout_shards, "rollout_shards", 1))
        self.shards: list[Shard] = group_shards(self.rollout_layout, workers)
        self._cluster = Cluster(workers, address)
        ray = self._cluster.ray
        self._ray = ray
        self._actors: list[Any] = []
        self._channels: list[Connection] = []
        self._serving: list[Any] = []
        self._pids: list[int] = []
        self._failure: WorkerError | None = None
        try:
            ship_by_value(task)
            remote = ray.remote(num_cpus=1, max_concurrency=2)(EnvShard)  # serve() and collect() apart
            self._actors = [remote.remote() for _ in self.shards]
            facts = self._gather([a.build.remote(task, s.count, s.first, num_envs, options)
                                  for a, s in zip(self._actors, self.shards)], "building the environments")
            key = secrets.token_bytes(32)
            addresses = self._gather([a.listen.remote(key) for a in self._actors], "opening the channels")
            self._serving = [a.serve.remote() for a in self._actors]
            try:
                self._channels = [no_delay(Client(address, family="AF_INET", authkey=key)) for address in addresses]
            except OSError as exc:
                raise WorkerError(f"cannot connect to the rollout actors at {addresses}: {exc}. This process must "
                                  "reach every worker node over TCP (see docs/scale-out.md)") from exc
        except BaseException:
            self.close()
            raise
        self._pids = [int(f["pid"]) for f in facts]
        first = facts[0]
        self.observation_dim: int = first["observation_dim"]
        self.action_dim: int = first["action_dim"]
        self._device: str = first["device"]
        self.dt: float = first["dt"]
        self.physics_dt: float = first["physics_dt"]
        self.physics_steps_per_action: int = first["physics_steps_per_action"]
        self.max_episode_length: int = first["max_episode_length"]
        self.tensors = Tensors(first["uses_torch"])
        self.step_count = 0
        self._return_final_observation = False
        self._spacing = options.get("env_spacing")
        self._scene: Scene | None = None

    # -- the LearningEnv surface ------------------------------------------------------------------------
    @property
    def scene(self) -> Scene:
        """The scene the task builds, described on the driver: its items and ``env_origins``.

        The actors simulate their own copies; this one is built (once, on first read) by a copy of the task, so
        the driver's task gains no unbound robots. Nothing in it is simulated.
        """
        if self._scene is None:
            builder = copy.deepcopy(self.task)
            spacing = builder.env_spacing if self._spacing is None else self._spacing
            scene = Scene(num_envs=self.num_envs, env_spacing=spacing)
            try:
                builder.build(scene)
            except Exception as exc:
                raise TaskError(f"{type(self.task).__name__}.build() failed while describing the scene on the "
                                f"driver: {type(exc).__name__}: {exc}") from exc
            scene.runtime_set_origins(self.tensors.out(grid_origins(self.num_envs, float(spacing))))
            self._scene = scene
        return self._scene

    @property
    def device(self) -> str:
        """Compute device of the batch tensors (the CPU)."""
        return self._device

    @property
    def workers(self) -> int:
        """Actors in use (one per shard)."""
        return len(self.shards)

    @property
    def return_final_observation(self) -> bool:
        """Put finished environments' last observations in ``info["final_observation"]``."""
        return self._return_final_observation

    @return_final_observation.setter
    def return_final_observation(self, flag: bool) -> None:
        self._request([("set_return_final_observation", bool(flag))] * len(self.shards), "configuring")
        self._return_final_observation = bool(flag)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset every environment; returns ``(observations, info)``. ``seed`` reseeds the generators."""
        if seed is not None:
            check_int(seed, "seed", 0, MAX_SEED)
        parts = self._request([("reset", seed)] * len(self.shards), "reset()")
        return self.tensors.out(np.concatenate(parts)), {}

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Advance every shard one policy step; returns ``(obs, rewards, terminated, truncated, info)``.

        Raises:
            ShapeError / NonFiniteError: the actions are not (num_envs, action_dim) finite numbers.
            TaskError: a task method failed in a shard.
            WorkerError: an actor died (the others are then stopped; see the module's notes), or the actors
                are stopped.
        """
        checked = self.tensors.floats(actions, (self.num_envs, self.action_dim), "actions")
        parts = self._request([("step", checked[s.first:s.stop]) for s in self.shards],
                              f"step() at env step {self.step_count}")
        self.step_count += 1
        out = self.tensors.out
        obs, rewards, terminated, truncated = (np.concatenate([p[k] for p in parts]) for k in range(4))
        return out(obs), out(rewards), out(terminated), out(truncated), self._merge_info([p[4] for p in parts])

    def observations(self) -> Any:
        """The current observations (num_envs, observation_dim), e.g. after :meth:`seeded_reset`."""
        return self.tensors.out(np.concatenate(self._request([("observations",)] * len(self.shards), "observations()")))

    def seeded_reset(self, env_id: int, episode_number: int) -> None:
        """Reset one environment with generators seeded from ``(seed, episode_number)``."""
        ids = self.tensors.env_ids([env_id], self.num_envs)
        check_int(episode_number, "episode_number", 0, MAX_SEED)
        requests: list[tuple[Any, ...] | None] = [None] * len(self.shards)
        index = next(k for k, s in enumerate(self.shards) if s.first <= ids[0] < s.stop)
        requests[index] = ("seeded_reset", int(ids[0]) - self.shards[index].first, episode_number)
        self._request(requests, "seeded_reset()")

    def add_pre_reset_hook(self, hook: Any) -> None:
        """Not available: the environments reset inside the Ray actors, away from this process."""
        raise NotImplementedError("pre-reset hooks run next to the environments; a RayLearningEnv resets them "
                                  "in Ray actors. Evaluate in one process (without --workers)")

    def rollout_collector(self, package: Any, seed: int) -> Any:
        """Env runners on this environment's actors (:class:`~simulo.scale.env_runners.RayCollector`).

        The trainer calls it (:func:`simulo.rl.training.collector.open_collector`): each actor then holds a copy
        of the policy and returns whole rollouts of its rollout shards.
        """
        from simulo.scale.env_runners import RayCollector  # noqa: PLC0415 - training only

        return RayCollector(self, package, seed)

    def put(self, value: Any) -> Any:
        """``ray.put(value)`` in this environment's Ray session: one copy for every actor to read."""
        return self._ray.put(value)

    def call_channels(self, name: str, args: list[tuple[Any, ...]], what: str) -> list[Any]:
        """Call method ``name`` of every actor with its own ``args`` over the direct channels (a fraction of a
        Ray call's cost); the answers in shard order. ``name`` must be one the actors serve there. Actors
        given the same ``args`` object get one message, pickled once.

        Raises:
            WorkerError: An actor died (every actor is then stopped), or the actors are stopped. The task's own
                exceptions are raised as themselves.
        """
        requests: dict[int, tuple[Any, ...]] = {}
        return self._request([requests.setdefault(id(arg), (name, *arg)) for arg in args], what)

    def call_actors(self, name: str, args: list[tuple[Any, ...]], what: str) -> list[Any]:
        """Call Ray method ``name`` on every actor with its own ``args``; the answers in shard order.

        Raises:
            WorkerError: An actor died (every actor is then stopped), or the actors are stopped. The task's own
                exceptions are raised as themselves.
        """
        return self._gather([getattr(a, name).remote(*arg) for a, arg in zip(self._actors, args)], what)

    def worker_pids(self) -> list[int]:
        """Process ids of the actors, in shard order (as they reported them when built)."""
        return list(self._pids)

    def close(self) -> None:
        """Stop the actors (and Ray, if this environment started it). Idempotent."""
        for channel in self._channels:
            try:
                channel.send(("close",))
                channel.close()
            except OSError:
                pass
        self._channels = []
        if self._serving:  # let the actors close their simulations before they are stopped
            self._ray.wait(self._serving, num_returns=len(self._serving), timeout=2.0)
        self._serving = []
        for actor in self._actors:
            try:
                self._ray.kill(actor)
            except Exception:  # noqa: BLE001 - an actor that is already gone is fine
                pass
        self._actors = []
        self._cluster.close()

    def __enter__(self) -> RayLearningEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------------------------------------
    def _gather(self, futures: list[Any], what: str) -> list[Any]:
        """``ray.get`` of one future per actor, in shard order, with the original exception of a failed task.

        Each answer is checked as it arrives, so a dead actor is reported (:meth:`_lost`) as soon as Ray knows,
        not after the others finish their work.
        """
        self._check_open(self._actors)
        exceptions = self._ray.exceptions
        position = {ref: k for k, ref in enumerate(futures)}
        pending = list(futures)
        while pending:
            done, pending = self._ray.wait(pending, num_returns=1)
            try:
                self._ray.get(done)
            except exceptions.RayTaskError as exc:
                cause = exc.cause if isinstance(exc.cause, BaseException) else exc
                raise cause from exc
            except (exceptions.RayActorError, exceptions.WorkerCrashedError, exceptions.NodeDiedError,
                    exceptions.ObjectLostError) as exc:
                raise self._lost(position[done[0]], what, exc) from exc
        return list(self._ray.get(futures))

    def _request(self, requests: list[tuple[Any, ...] | None], what: str) -> list[Any]:
        """Send each shard its request (``None``: nothing), then collect every answer, in shard order.

        A request object sent to several shards is pickled once. Every answer is read before a task's error is
        raised, so the channels stay in step; a dead actor stops them all (:meth:`_lost`).
        """
        self._check_open(self._channels)
        messages: dict[int, Any] = {}  # id of a request -> its pickle, as Connection.send makes it
        for k, request in enumerate(requests):
            if request is not None:
                if id(request) not in messages:
                    messages[id(request)] = ForkingPickler.dumps(request)
                try:
                    self._channels[k].send_bytes(messages[id(request)])
                except OSError as exc:
                    raise self._lost(k, what, exc) from exc
        answers: list[tuple[str, Any]] = [self._receive(k, what) if request is not None else ("ok", None)
                                          for k, request in enumerate(requests)]
        for status, value in answers:
            if status == "error":
                raise value
        return [value for _, value in answers]

    def _receive(self, k: int, what: str) -> tuple[str, Any]:
        """Actor ``k``'s answer on its channel, checking every :data:`LIVENESS_POLL_S` seconds that the actor
        still serves it (a lost node closes no socket; Ray reports its actors dead).

        Raises:
            WorkerError: The actor died (or stopped serving) before it answered.
        """
        channel = self._channels[k]
        while not channel.poll(LIVENESS_POLL_S):
            done, _ = self._ray.wait([self._serving[k]], timeout=0)
            if done:
                try:
                    self._ray.get(done)
                except self._ray.exceptions.RayError as exc:
                    raise self._lost(k, what, exc) from exc
                raise self._lost(k, what, EOFError("the actor stopped serving its channel"))
        try:
            answer: tuple[str, Any] = channel.recv()
        except (EOFError, OSError) as exc:
            raise self._lost(k, what, exc) from exc
        return answer

    def _check_open(self, links: list[Any]) -> None:
        """Refuse a call once the actors are stopped (after :meth:`close` or a lost worker): ``links``, the
        actors or their channels, is then empty.

        Raises:
            WorkerError: The actors are stopped.
        """
        if not links:
            raise WorkerError(str(self._failure) if self._failure is not None else
                              "this RayLearningEnv is closed: its Ray workers are stopped; make a new one")

    def _lost(self, k: int, what: str, exc: BaseException) -> WorkerError:
        """Stop every actor (the batch cannot go on without actor ``k``'s shard) and describe the loss."""
        others = len(self.shards) - 1
        pid = self._pids[k] if k < len(self._pids) else None
        process = "" if pid is None else f" (pid {pid})"
        self._failure = WorkerError(
            f"Ray worker {k}{process} of this RayLearningEnv died during {what} ({type(exc).__name__}): its "
            f"{self.shards[k].describe()} is lost with its simulations' state, so the batch cannot go on; "
            f"the other {others} worker{'s were' if others != 1 else ' was'} stopped. To continue, {RESUME_HINT}")
        self.close()
        return self._failure

    def _merge_info(self, infos: list[dict[str, Any]]) -> dict[str, Any]:
        """One ``info`` dict for the whole batch, entries in environment order (global ids)."""
        out = self.tensors.out
        merged: dict[str, Any] = {"time_outs": out(np.concatenate([i["time_outs"] for i in infos]))}
        names = infos[0].get("terminations")
        if names:
            merged["terminations"] = {k: out(np.concatenate([i["terminations"][k] for i in infos])) for k in names}
        finished = [(i, s) for i, s in zip(infos, self.shards) if "episode" in i]
        if finished:
            keys = finished[0][0]["episode"].keys()
            if self._return_final_observation:
                merged["final_observation"] = out(np.concatenate([i["final_observation"] for i, _ in finished]))
                merged["final_env_ids"] = np.concatenate([i["final_env_ids"] + s.first for i, s in finished])
            merged["episode"] = {k: out(np.concatenate([i["episode"][k] for i, _ in finished])) for k in keys}
        return merged


def backend_factory(workers: int, address: str | None) -> BackendFactory:
    """What ``simulo run --workers N [--address A]`` installs with :func:`simulo.rl.env.env_backend`.

    Args:
        workers: Actors per batch.
        address: The Ray cluster, or ``None`` for the process's own.

    Returns:
        A factory building a :class:`RayLearningEnv` from :class:`simulo.LearningEnv`'s arguments, with
        ``rollout_shards`` from :data:`ENV_ROLLOUT_SHARDS` when it is set.

    Raises:
        SimuloValueError: ``workers`` or :data:`ENV_ROLLOUT_SHARDS` is not a positive integer.
    """
    check_workers(workers)
    shards = os.environ.get(ENV_ROLLOUT_SHARDS)
    if shards is not None and not shards.strip().isdigit():
        raise SimuloValueError(f"{ENV_ROLLOUT_SHARDS}={shards!r}: expected a positive integer")
    rollout_shards = None if shards is None else check_int(int(shards), ENV_ROLLOUT_SHARDS, 1)

    def build(task: Task, num_envs: int, **options: Any) -> RayLearningEnv:
        return RayLearningEnv(task, num_envs, workers=workers, address=address, rollout_shards=rollout_shards,
                              **options)

    return build
