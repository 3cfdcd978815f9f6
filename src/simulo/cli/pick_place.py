"""``simulo pick-place``: the scripted pick-and-place app, with every "thing to try" one flag away.

With no flags it prints the seed program's lines and numbers. Exit status: 0 on PASS (for ``--trials``:
every trial passed; for ``--friction-sweep``: a threshold was found), 1 on FAIL (including a move the
collision check refused, or a Ray cluster that does not answer at ``--address``), 2 on bad arguments (one
line on stderr: a bad value, flags that do not go together, a ``--record`` file that cannot be written).

``--trials`` and ``--record`` say on stderr what they are doing before the app loads, and ``--trials``
reports each phase as every trial has done it, so a long run is never silent.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import simulo
from simulo.cli.pick_place_defaults import FLAG_DEFAULTS
from simulo.engine.registry import ENGINE_VARIABLE
from simulo.errors import CollisionError, SimuloError
from simulo.platform.process_settings import CollectorPause, use_one_blas_thread

if TYPE_CHECKING:
    from simulo.apps.pick_place.config import AppOptions
    from simulo.scale.sweep import Shard


def _flags(argv: Sequence[str]) -> SimpleNamespace | int:
    """The flags of ``argv``, or the exit status of a usage error (or ``--help``)."""
    if not argv:  # the plain run: no parser to build
        return SimpleNamespace(**FLAG_DEFAULTS)
    from simulo.cli.pick_place_flags import parse_flags  # noqa: PLC0415 (argparse only when there are flags)

    return parse_flags(argv)


def main(argv: list[str]) -> int:
    """Run the app as the flags say; return the exit status."""
    args = _flags(argv)
    if isinstance(args, int):
        return args
    if args.engine is not None:  # the cell's Simulation and any Ray worker take the engine from the environment
        os.environ[ENGINE_VARIABLE] = args.engine
    use_one_blas_thread()  # before numpy loads, which is next
    _announce(args)
    with CollectorPause(not args.friction_sweep and args.trials is None):  # a single run
        return _run(args)


def _run(args: SimpleNamespace) -> int:
    from simulo.apps.pick_place.config import AppOptions  # noqa: PLC0415 (the app loads once the flags are good)

    options = AppOptions(coupled=not args.uncoupled, friction=args.friction, ik=args.ik, speed=args.speed)
    try:
        if args.friction_sweep:
            return _friction_sweep(args, options)
        if args.trials is not None:
            return _trials(args, options)
        return _single_run(args, options)
    except CollisionError as exc:
        print(f"simulo pick-place: FAIL: {exc}", file=sys.stderr)
        return 1
    except SimuloError as exc:
        print(f"simulo pick-place: {exc}", file=sys.stderr)
        return 1


def _friction_sweep(args: SimpleNamespace, options: AppOptions) -> int:
    """``--friction-sweep``: each sample's line as it runs, then the threshold and Coulomb's estimate."""
    from simulo.apps.pick_place import report  # noqa: PLC0415
    from simulo.apps.pick_place.experiments import friction  # noqa: PLC0415

    on_sample = None if args.json else (lambda mu, slipped, sink: print(report.sample_line(mu, slipped, sink)))
    sweep = friction.friction_sweep(options, on_sample=on_sample)
    _emit(args.json, sweep.to_json(), report.sweep_lines(sweep)[len(sweep.samples):])
    return 0


def _trials(args: SimpleNamespace, options: AppOptions) -> int:
    """``--trials``: in one simulation, or (``--workers``/``--address``) as a sharded sweep; 0 if all passed."""
    from simulo.apps.pick_place import report  # noqa: PLC0415
    from simulo.apps.pick_place.experiments import trials  # noqa: PLC0415
    from simulo.scale.settings import probe_address  # noqa: PLC0415

    mm, deg = args.noise if args.noise is not None else (0.0, 0.0)
    seed = 0 if args.seed is None else args.seed
    probe_address(args.address)  # nothing answering there is one line in seconds, not Ray's minutes of retries
    if args.workers is None and args.address is None:
        result = trials.run_trials(args.trials, seed, mm, deg, options, on_phase=_phase_progress(args.trials))
    else:
        workers = args.workers or 1
        where = "here, without Ray" if workers == 1 and args.address is None else f"on {workers} Ray worker(s)"

        def on_plan(shards: Sequence[Shard]) -> None:
            plural = "" if len(shards) == 1 else "s"
            print(f"simulo pick-place: {args.trials} trials in {len(shards)} shard{plural} of up to "
                  f"{shards[0].count}, {where}", file=sys.stderr)

        result = trials.sweep_trials(args.trials, seed, mm, deg, options, workers=workers, address=args.address,
                                     on_plan=on_plan)
    _emit(args.json, result.to_json(), report.trial_lines(result))
    return 0 if result.passed == len(result.picks) else 1


def _phase_progress(count: int) -> Any:
    """A progress line on stderr as all ``count`` trials end each phase of the plan."""
    started = time.monotonic()

    def on_phase(phase: str) -> None:
        print(f"simulo pick-place: {phase} done in all {count} trial(s) ({time.monotonic() - started:.1f} s)",
              file=sys.stderr, flush=True)

    return on_phase


def _announce(args: SimpleNamespace) -> None:
    """The first line of a long run, on stderr before the app loads."""
    if args.trials is not None:
        seed = 0 if args.seed is None else args.seed
        where = ("one simulation" if args.workers is None and args.address is None
                 else f"shards on {args.workers or 1} worker(s){f' at {args.address}' if args.address else ''}")
        print(f"simulo pick-place: {args.trials} trial(s) from seed {seed} in {where}; loading the cell...",
              file=sys.stderr, flush=True)
    elif args.record is not None:
        print(f"simulo pick-place: recording {args.record} (drawn on the CPU: the run's phases print as they "
              "end, each takes several seconds)...", file=sys.stderr, flush=True)


def _single_run(args: SimpleNamespace, options: AppOptions) -> int:
    """The seed's run (``--stack``, ``--record``): phase lines as it goes, then the summary; 0 on PASS."""
    from simulo.apps.pick_place import report  # noqa: PLC0415
    from simulo.apps.pick_place.config import DT, FRAME_EVERY  # noqa: PLC0415
    from simulo.apps.pick_place.experiments import single  # noqa: PLC0415

    video = None if args.record is None else simulo.VideoWriter(args.record, fps=1.0 / (DT * FRAME_EVERY))
    # the lines show the tracking error only with a speed factor above 1 (against the seed's gain)
    result = single.run_pick_place(options, on_line=None if args.json else print, stack=args.stack, video=video,
                                   track=args.json or options.speed > 1.0)
    _emit(args.json, result.to_json(), report.report_lines(result))
    if video is not None:
        path = video.close()
        print(f"recorded {path} ({len(video.frames)} frames)", file=sys.stderr)
    return 0 if result.passed else 1


def _emit(as_json: bool, data: dict[str, Any], lines: list[str]) -> None:
    if as_json:
        import json  # noqa: PLC0415 (only for --json)

        print(json.dumps(data, allow_nan=False))
    else:
        for line in lines:
            print(line)
