"""``EnvShard``: the Ray actor behind one shard of a :class:`~simulo.scale.ray_env.RayLearningEnv`.

It holds a :class:`~simulo.rl.local_env.LocalEnv` over its environments and serves two kinds of work:
lock-step requests over a direct TCP channel (:meth:`EnvShard.serve`: one ``step`` per request, and a
sharded update's gradients, one mini-batch per request), and,
for a trainer's env runners, whole rollouts with a copy of the policy (:meth:`EnvShard.open_runner`,
:meth:`EnvShard.collect`, called through Ray on a second actor thread) and, for a sharded update, each
rollout shard's gradients (:meth:`EnvShard.set_targets`, :meth:`EnvShard.gradients`).
"""

from __future__ import annotations

import os
import pickle
import socket
from collections.abc import Mapping
from multiprocessing.connection import Connection, Listener
from typing import Any

import numpy as np

from simulo.errors import SimuloError, SimuloValueError
from simulo.rl.local_env import LocalEnv
from simulo.rl.task import Task
from simulo.sim.tensors import to_numpy

_SERVED = frozenset({"reset", "step", "observations", "set_return_final_observation", "seeded_reset",
                     "set_targets", "gradients"})
"""The :class:`EnvShard` methods the direct channel serves."""


def no_delay(conn: Connection) -> Connection:
    """``conn`` with Nagle's algorithm off: ``multiprocessing.connection`` writes a message over 16 kB as a
    header and a body, and Nagle's algorithm then holds the body until the header's delayed ACK (about
    40 ms a message on Linux)."""
    with socket.fromfd(conn.fileno(), socket.AF_INET, socket.SOCK_STREAM) as sock:  # a dup of the same socket
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


def _portable(exc: Exception) -> Exception:
    """``exc`` if it pickles, else a :class:`~simulo.errors.SimuloError` carrying its type and message."""
    try:
        pickle.dumps(exc)
    except Exception:  # noqa: BLE001 - anything unpicklable is described instead
        return SimuloError(f"{type(exc).__name__}: {exc}")
    return exc


def _numpy_tree(value: Any) -> Any:
    """The same nested dict with every tensor as a numpy array (cheap to send, library-neutral)."""
    if isinstance(value, Mapping):
        return {k: _numpy_tree(v) for k, v in value.items()}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return to_numpy(value, "info")


class EnvShard:
    """The Ray actor behind one shard: a :class:`simulo.LearningEnv` over environments ``first .. first+n-1``.

    The environment is made by :meth:`build`, not by the constructor, so an error of the task reaches the
    caller as itself (an actor whose constructor fails only reports that it died).
    """

    env: LocalEnv

    def build(self, task: Task, num_envs: int, first: int, total: int, options: dict[str, Any]) -> dict[str, Any]:
        """Build the shard's environment and describe it.

        Args:
            task: The task (a fresh, unbuilt instance travels to each actor).
            num_envs: Environments of this shard.
            first: Global index of its first environment.
            total: Environments of the whole batch.
            options: The other :class:`simulo.LearningEnv` arguments.
        """
        self.env = LocalEnv(task, num_envs, shard=(first, total), **options)
        return self.describe()

    def describe(self) -> dict[str, Any]:
        """Sizes and timing of the shard's environment, and the actor's process id (``pid``)."""
        env = self.env
        return {"pid": os.getpid(), "observation_dim": env.observation_dim, "action_dim": env.action_dim,
                "device": env.device, "dt": env.dt, "physics_dt": env.physics_dt,
                "physics_steps_per_action": env.physics_steps_per_action,
                "max_episode_length": env.max_episode_length, "uses_torch": env.tensors.uses_torch}

    def reset(self, seed: int | None) -> np.ndarray:
        """Reset every environment of the shard; returns the observations as numpy."""
        obs, _ = self.env.reset(seed=seed)
        return to_numpy(obs, "observations")

    def step(self, actions: np.ndarray) -> tuple[Any, ...]:
        """Step the shard; the transition with every tensor as numpy."""
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        return (to_numpy(obs, "observations"), to_numpy(rewards, "rewards"), to_numpy(terminated, "terminated"),
                to_numpy(truncated, "truncated"), _numpy_tree(info))

    def observations(self) -> np.ndarray:
        """The shard's current observations as numpy."""
        return to_numpy(self.env.observations(), "observations")

    def set_return_final_observation(self, flag: bool) -> None:
        """Forward :attr:`simulo.LearningEnv.return_final_observation`."""
        self.env.return_final_observation = flag

    def seeded_reset(self, env_id: int, episode_number: int) -> None:
        """Forward :meth:`simulo.LearningEnv.seeded_reset` (``env_id`` local to the shard)."""
        self.env.seeded_reset(env_id, episode_number)

    def open_runner(self, package: Any, spans: list[tuple[int, int]], firsts: list[int], seed: int,
                    layout: tuple[int, int]) -> None:
        """Hold a copy of the policy for env-runner rollouts (:mod:`simulo.scale.env_runners`); ``layout``:
        the index of the shard's first rollout shard and the layout's number of them."""
        import torch  # noqa: PLC0415 - training only

        from simulo.rl.training.collector import ShardRunner  # noqa: PLC0415

        torch.set_num_threads(1)
        self.runner = ShardRunner(self.env, spans, firsts, package, seed, layout)

    def collect(self, weights: Any, iteration: int, steps: int) -> tuple[Any, Any]:
        """Collect one rollout of the shard with ``weights``: the
        :class:`~simulo.rl.training.collector.RolloutBatch` and what it cost here (``RunnerCost``)."""
        batch = self.runner.collect(weights, iteration, steps)
        return batch, self.runner.last_cost

    def set_targets(self, targets: dict[str, np.ndarray], settings: Any) -> None:
        """Keep the update's targets for the shard's rows (:meth:`ShardRunner.set_targets`)."""
        self.runner.set_targets(targets, settings)

    def gradients(self, weights: Any, start: int, stop: int, num_envs: int) -> list[Any]:
        """Each rollout shard's gradient for memory rows ``start .. stop - 1`` (:meth:`ShardRunner.gradients`).

        Served on the channel's thread, which sets torch's intra-op threads to 1 for itself (OpenMP keeps the
        setting per thread; two actors each running a second thread on 2 cores oversubscribe them).
        """
        import torch  # noqa: PLC0415 - training only

        torch.set_num_threads(1)  # get_num_threads() reads the process's value, not this thread's OpenMP one
        return self.runner.gradients(weights, start, stop, num_envs)

    def listen(self, authkey: bytes) -> Any:
        """Open the direct channel's listening socket on this node; returns its address."""
        import ray  # noqa: PLC0415 - inside a Ray actor

        self._listener = Listener((ray.util.get_node_ip_address(), 0), family="AF_INET", authkey=authkey)
        return self._listener.address

    def _accept_driver(self) -> Connection:
        """The first connection that passes the key handshake; strays that fail it are dropped."""
        from multiprocessing import AuthenticationError

        while True:
            try:
                return no_delay(self._listener.accept())
            except (AuthenticationError, EOFError, ConnectionError):
                continue

    def serve(self) -> None:
        """Answer the driver's requests on the channel until it says ``close`` or goes away.

        A request is ``(name, *args)`` naming one of :data:`_SERVED`; the answer is ``("ok", value)`` or
        ``("error", exception)``.
        """
        with self._listener, self._accept_driver() as conn:
            while True:
                try:
                    name, *args = conn.recv()
                except (EOFError, OSError):
                    break
                if name == "close":
                    break
                try:
                    if name not in _SERVED:
                        raise SimuloValueError(f"EnvShard cannot serve {name!r}")
                    conn.send(("ok", getattr(self, name)(*args)))
                except Exception as exc:  # noqa: BLE001 - every failure goes back to the driver
                    conn.send(("error", _portable(exc)))
        self.env.close()
