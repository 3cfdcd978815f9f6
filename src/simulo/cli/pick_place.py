"""``simulo pick-place``: the scripted pick-and-place app, with every "thing to try" one flag away.

With no flags it prints the seed program's lines and numbers. Exit status: 0 on PASS (for ``--trials``:
every trial passed; for ``--friction-sweep``: a threshold was found), 1 on FAIL (including a move the
collision check refused, or a Ray cluster that does not answer at ``--address``), 2 on bad arguments (one
line on stderr: a bad value, flags that do not go together, a ``--record`` file that cannot be written).

``--trials`` and ``--record`` say on stderr what they are doing before the app loads, and ``--trials``
reports each phase as every trial has done it, so a long run is never silent.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import simulo
from simulo.cli._usage import OneLineParser, parse
from simulo.engine.registry import ENGINE_VARIABLE, available_engines
from simulo.errors import CollisionError, SimuloError, SimuloValueError

if TYPE_CHECKING:
    from simulo.apps.pick_place.config import AppOptions
    from simulo.scale.sweep import Shard


def _noise(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        mm, deg = (float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MM,DEG such as 3,2 (position noise in mm, yaw noise in degrees), "
                                         f"got {text!r}") from None
    if not (math.isfinite(mm) and math.isfinite(deg) and mm >= 0 and deg >= 0):
        raise argparse.ArgumentTypeError(f"noise levels must be finite numbers >= 0, got {text!r}")
    return mm, deg


def _whole_number(minimum: int) -> Any:
    """An argparse type: a whole number >= ``minimum``."""
    def parse(text: str) -> int:
        try:
            value: int | None = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}")
        return value
    return parse


_positive_int = _whole_number(1)
_seed = _whole_number(0)


def _number(low: float, high: float, what: str) -> Any:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not (math.isfinite(value) and low <= value <= high):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="simulo pick-place",
        description="A five-joint arm picks a 40 mm cube and places it, through the simulo contract "
                    "(exit 0: PASS, 1: FAIL, 2: bad arguments).")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object instead of lines")
    parser.add_argument("--uncoupled", action="store_true", help="no gear coupling between the fingers")
    parser.add_argument("--friction", type=_number(0.0, 10.0, "a friction coefficient between 0 and 10"), default=1.0,
                        metavar="MU", help="lateral friction of the cube and the fingers (default 1.0)")
    parser.add_argument("--friction-sweep", action="store_true",
                        help="find the friction at which the cube slips during the lift; compare with Coulomb")
    parser.add_argument("--ik", choices=("closed-form", "numeric"), default="closed-form",
                        help="IK solver: the analytic one or damped least squares on the tcp Jacobian "
                             "(numeric also reports the closed-form run's approach error)")
    parser.add_argument("--speed", type=_number(0.1, 8.0, "a speed factor between 0.1 and 8"), default=1.0,
                        metavar="K", help="every move K times faster, with the arm's position gain raised to match")
    parser.add_argument("--stack", action="store_true", help="then place a second cube on the first, 40 mm higher")
    parser.add_argument("--trials", type=_positive_int, metavar="N",
                        help="N random cube starts, batched as N environments of one simulation")
    parser.add_argument("--seed", type=_seed, default=None, metavar="S",
                        help="with --trials: seed of the random starts (default 0)")
    parser.add_argument("--noise", type=_noise, metavar="MM,DEG",
                        help="with --trials: plan from a cube pose estimate with this much Gaussian noise "
                             "(standard deviation of x and y in mm, of the yaw in degrees)")
    parser.add_argument("--workers", type=_positive_int, metavar="N",
                        help="with --trials: run the trials as shards of whole worlds on N Ray workers (the same "
                             "numbers for every N; 1 runs the shards here, without Ray); see docs/scale-out.md")
    parser.add_argument("--address", metavar="ADDR",
                        help="with --trials: the Ray cluster to use (HOST:6379, or ray://HOST:10001 with "
                             "ray[client]) instead of a local one")
    parser.add_argument("--engine", choices=available_engines(), default=None,
                        help=f"the physics engine (default: ${ENGINE_VARIABLE}, else pybullet); each engine has "
                             "its own numbers")
    parser.add_argument("--record", metavar="FILE", default=None,
                        help="write a video of the run (.gif or .mp4), drawn headless on the CPU; needs imageio "
                             "(pip install 'simulo-local[video]')")
    return parser


def _writable(path: str) -> str | None:
    """Why a video cannot be written at ``path`` (a suffix other than .gif/.mp4, no such folder), or None."""
    if Path(path).suffix.lower() not in (".gif", ".mp4"):
        return f"{path!r} must end in .gif or .mp4"
    target = Path(path).expanduser()
    existed = target.exists()
    try:
        with open(target, "ab"):
            pass
    except OSError as exc:
        return f"cannot write {path!r}: {exc.strerror or exc}"
    if not existed:
        target.unlink(missing_ok=True)
    return None


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.seed is not None and args.trials is None:
        parser.error("--seed seeds the random cube starts of --trials N; it needs --trials N")
    if args.address is not None:
        from simulo.scale.settings import check_address  # noqa: PLC0415 (sockets only for a cluster address)

        try:
            check_address(args.address)
        except SimuloValueError as exc:
            parser.error(f"--address: {exc}")
    if args.noise is not None and args.trials is None:
        parser.error("--noise needs --trials N (the noise is drawn per trial from the seeded generator)")
    if (args.workers is not None or args.address is not None) and args.trials is None:
        parser.error("--workers and --address shard a sweep: they need --trials N")
    if args.stack and args.trials is not None:
        parser.error("--stack and --trials cannot be combined")
    if args.record is not None and (args.trials is not None or args.friction_sweep):
        parser.error("--record films one run; it cannot be combined with --trials or --friction-sweep")
    if args.friction_sweep and (args.trials is not None or args.stack or args.friction != 1.0):
        parser.error("--friction-sweep runs its own frictions; it cannot be combined with --friction, --stack "
                     "or --trials")
    if args.record is not None:
        why = _writable(args.record)
        if why is not None:
            parser.error(f"--record: {why}")


def main(argv: list[str]) -> int:
    """Run the app as the flags say; return the exit status."""
    parser = _parser()
    args = parse(parser, argv)
    if isinstance(args, int):
        return args
    try:
        _check(parser, args)
    except SystemExit as exc:  # parser.error: one line on stderr
        return exc.code if isinstance(exc.code, int) else 2
    if args.engine is not None:  # the cell's Simulation and any Ray worker take the engine from the environment
        os.environ[ENGINE_VARIABLE] = args.engine
    _announce(args)
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


def _friction_sweep(args: argparse.Namespace, options: AppOptions) -> int:
    """``--friction-sweep``: each sample's line as it runs, then the threshold and Coulomb's estimate."""
    from simulo.apps.pick_place import report  # noqa: PLC0415
    from simulo.apps.pick_place.experiments import friction  # noqa: PLC0415

    on_sample = None if args.json else (lambda mu, slipped, sink: print(report.sample_line(mu, slipped, sink)))
    sweep = friction.friction_sweep(options, on_sample=on_sample)
    _emit(args.json, sweep.to_json(), report.sweep_lines(sweep)[len(sweep.samples):])
    return 0


def _trials(args: argparse.Namespace, options: AppOptions) -> int:
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


def _announce(args: argparse.Namespace) -> None:
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


def _single_run(args: argparse.Namespace, options: AppOptions) -> int:
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
