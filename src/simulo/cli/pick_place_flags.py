"""The flags of ``simulo pick-place``: the argparse parser, its value types and the checks across flags.

Imported only when the command is given flags: the plain ``simulo pick-place`` takes
:data:`simulo.cli.pick_place_defaults.FLAG_DEFAULTS` as they are and never builds a parser (argparse, gettext and
locale stay unimported).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from simulo.checks import MAX_NUM_ENVS, check_num_envs
from simulo.cli._usage import OneLineParser, json_usage_error, parse
from simulo.cli.pick_place_defaults import FLAG_DEFAULTS
from simulo.engine.registry import ENGINE_VARIABLE, available_engines
from simulo.errors import SimuloValueError

#: The largest ``--noise`` levels: a metre of position noise (twice the arm's reach) and a full turn of yaw
#: noise. Beyond them every estimate is out of reach anyway, and 1e300 overflows the plan's timing.
MAX_NOISE_MM, MAX_NOISE_DEG = 1000.0, 360.0


def _noise(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        mm, deg = (float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MM,DEG such as 3,2 (position noise in mm, yaw noise in degrees), "
                                         f"got {text!r}") from None
    if not (0 <= mm <= MAX_NOISE_MM and 0 <= deg <= MAX_NOISE_DEG):
        raise argparse.ArgumentTypeError(f"noise levels must be finite numbers >= 0, at most {MAX_NOISE_MM:g} mm "
                                         f"and {MAX_NOISE_DEG:g} degrees, got {text!r}")
    return mm, deg


def _whole_number(minimum: int, maximum: int | None = None) -> Any:
    """An argparse type: a whole number >= ``minimum`` (and <= ``maximum`` when given)."""
    def parse(text: str) -> int:
        try:
            value: int | None = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"expected a whole number <= {maximum}, got {text!r}")
        return value
    return parse


_positive_int = _whole_number(1)
_trial_count = _whole_number(1, MAX_NUM_ENVS)
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
    parser.add_argument("--friction", type=_number(0.0, 10.0, "a friction coefficient between 0 and 10"),
                        metavar="MU", help="lateral friction of the cube and the fingers (default 1.0)")
    parser.add_argument("--friction-sweep", action="store_true",
                        help="find the friction at which the cube slips during the lift; compare with Coulomb")
    parser.add_argument("--ik", choices=("closed-form", "numeric"),
                        help="IK solver: the analytic one or damped least squares on the tcp Jacobian "
                             "(numeric also reports the closed-form run's approach error)")
    parser.add_argument("--speed", type=_number(0.1, 8.0, "a speed factor between 0.1 and 8"),
                        metavar="K", help="every move K times faster, with the arm's position gain raised to match")
    parser.add_argument("--stack", action="store_true", help="then place a second cube on the first, 40 mm higher")
    parser.add_argument("--trials", type=_trial_count, metavar="N",
                        help="N random cube starts, batched as N environments of one simulation")
    parser.add_argument("--seed", type=_seed, metavar="S",
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
    parser.add_argument("--engine", choices=available_engines(),
                        help=f"the physics engine (default: ${ENGINE_VARIABLE}, else pybullet); each engine has "
                             "its own numbers")
    parser.add_argument("--record", metavar="FILE",
                        help="write a video of the run (.gif or .mp4), drawn headless on the CPU; needs imageio "
                             "(pip install 'simulo-local[video]')")
    parser.set_defaults(**FLAG_DEFAULTS)
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


def _gave_friction(argv: Sequence[str]) -> bool:
    """Whether ``argv`` sets ``--friction`` (even to its default); argparse refuses abbreviations of it as ambiguous."""
    return any(token == "--friction" or token.startswith("--friction=") for token in argv)


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace, gave_friction: bool) -> None:
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
    if args.trials is not None and args.workers is None and args.address is None:
        try:  # the trials are environments of one simulation here: as many as this machine's memory holds
            check_num_envs(args.trials, "--trials")
        except SimuloValueError as exc:
            parser.error(str(exc))
    if args.friction_sweep and (args.trials is not None or args.stack or gave_friction):
        parser.error("--friction-sweep runs its own frictions; it cannot be combined with --friction, --stack "
                     "or --trials")
    if args.record is not None:
        why = _writable(args.record)
        if why is not None:
            parser.error(f"--record: {why}")


def parse_flags(argv: Sequence[str]) -> SimpleNamespace | int:
    """The flags of ``argv`` checked together, or the exit status (0 after ``--help``, 2 on a usage error).

    Every flag is an attribute of the namespace, named as
    :data:`~simulo.cli.pick_place_defaults.FLAG_DEFAULTS` names it.
    """
    parser = _parser()
    args = parse(parser, argv)
    if isinstance(args, int):
        return json_usage_error(parser, argv, args)
    try:
        _check(parser, args, _gave_friction(argv))
    except SystemExit as exc:  # parser.error: one line on stderr
        return json_usage_error(parser, argv, exc.code if isinstance(exc.code, int) else 2)
    return SimpleNamespace(**vars(args))
