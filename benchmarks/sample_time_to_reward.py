"""Wall time for a training app run by ``simulo run`` to reach a ``best_reward``, read from its progress lines.

Starts ``simulo run FILE [ARGS...]`` in its own process group (from ``--cwd``, where an SDK sample's ``task``
module resolves), reads the trainer's progress bar as it goes (``i/N [elapsed<...] reward R best B steps/s S``)
and stops the run once ``best`` reaches ``--target`` (or when the run ends, or after ``--timeout`` seconds).
It prints the time to the target twice: from the launch of the command (start-up and the build of the
environments included) and on the trainer's own clock, with the iteration, the env-steps/s of the training so
far and the machine's load average at the start and at the end (the figures depend on what else runs). It also
reads the CPU seconds of the run's process tree (``/proc``, Linux) at each progress update: at the target, and
between the first update and the target (the iterations after the first: what the load does not inflate).
``--csv`` writes every progress update (seconds since launch, trainer seconds, iteration, reward, best,
steps/s).

    python benchmarks/sample_time_to_reward.py --cwd /tmp/simulo-samples samples/cartpole/train.py
    python benchmarks/sample_time_to_reward.py --cwd /tmp/simulo-samples samples/cartpole/train.py --engine mujoco
    python benchmarks/sample_time_to_reward.py samples/cartpole/train.py --num-envs 256 --target 270 --timeout 900
    python benchmarks/sample_time_to_reward.py --quick        # the repository's cartpole, 8 environments, 2 iterations

Arguments after FILE go to ``simulo run`` unchanged (``--engine``, ``--num-envs``, ...).
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: One update of the trainer's progress bar (simulo.rl.training.progress).
PROGRESS = re.compile(r"(?P<it>\d+)/(?P<total>\d+) \[(?P<elapsed>[\d:]+)<[^\]]*?reward (?P<reward>\S+) "
                      r"best (?P<best>\S+) steps/s (?P<rate>[\d,]+)")


@dataclass(frozen=True)
class Update:
    """One progress update: when it was read, and what it said."""

    wall: float
    trainer: float
    cpu: float
    iteration: int
    reward: float | None
    best: float | None
    steps_per_s: float


def _clock(text: str) -> float:
    """Seconds of a tqdm clock, ``MM:SS`` or ``H:MM:SS``."""
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + int(part)
    return seconds


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None  # "-" before any episode has finished


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds (user and system) so far of process ``root`` and its live descendants (0.0 without /proc)."""
    parent: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended meanwhile
        pid = int(stat.parent.name)  # fields after the name: state, ppid, ..., utime (12th), stime (13th)
        parent[pid], ticks[pid] = int(fields[1]), int(fields[11]) + int(fields[12])
    total = 0
    for pid, own in ticks.items():
        ancestor = pid
        while ancestor not in (root, 0, 1) and ancestor in parent:
            ancestor = parent[ancestor]
        if ancestor == root:
            total += own
    return total / os.sysconf("SC_CLK_TCK")


def parse(chunk: str, wall: float, cpu: float = 0.0) -> Update | None:
    """The progress update in one carriage-return-separated chunk of output, if there is one."""
    matches = list(PROGRESS.finditer(chunk))
    if not matches:
        return None
    match = matches[-1]
    rate = _number(match["rate"])
    return Update(wall, _clock(match["elapsed"]), cpu, int(match["it"]), _number(match["reward"]),
                  _number(match["best"]), rate if rate is not None else 0.0)


def watch(command: list[str], cwd: Path, target: float, timeout: float) -> tuple[list[Update], str, float, int]:
    """Run ``command`` until ``best`` reaches ``target``; returns the updates, how it ended, its wall time, rc."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    assert proc.stdout is not None
    os.set_blocking(proc.stdout.fileno(), False)
    updates: list[Update] = []
    pending, ended = "", "run ended"
    while True:
        data = proc.stdout.read()
        wall = time.perf_counter() - start
        if data:
            pending += data.decode(errors="replace")
            *chunks, pending = re.split(r"[\r\n]", pending)
            cpu = tree_cpu_seconds(proc.pid)
            for chunk in chunks:
                update = parse(chunk, wall, cpu)
                if update is not None and (not updates or update.iteration != updates[-1].iteration):
                    updates.append(update)
        if updates and updates[-1].best is not None and updates[-1].best >= target:
            ended = "target reached"
            break
        if proc.poll() is not None and not data:
            break
        if wall > timeout:
            ended = f"timed out after {timeout:.0f} s"
            break
        time.sleep(0.05)
    wall = time.perf_counter() - start
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return updates, ended, wall, proc.returncode


def main() -> None:
    """Run the app, print the time to the target."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", help="the training app (a path from --cwd)")
    parser.add_argument("--cwd", type=Path, default=Path.cwd(), help="where to run it (default: here)")
    parser.add_argument("--target", type=float, default=270.0, help="best_reward to reach (default 270)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds before giving up (default 900)")
    parser.add_argument("--csv", type=Path, help="write every progress update to this file")
    parser.add_argument("--quick", action="store_true", help="the repository's cartpole, 8 environments, 2 iterations")
    args, rest = parser.parse_known_args()
    if args.quick:
        args.file, args.cwd, rest = "samples/cartpole/train.py", ROOT, ["--num-envs", "8", "--max-iterations", "2"]
    if args.file is None:
        parser.error("FILE is required (or --quick)")
    with tempfile.TemporaryDirectory() as runs:
        command = [str(Path(sys.executable).with_name("simulo")), "run", args.file, "--runs-dir", runs, *rest]
        load_start = os.getloadavg()
        updates, ended, wall, rc = watch(command, args.cwd, args.target, args.timeout)
        load_end = os.getloadavg()
    print(f"command: simulo run {args.file} {' '.join(rest)}  (from {args.cwd})")
    print(f"load average (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in load_start)} at the start, "
          f"{' '.join(f'{x:.2f}' for x in load_end)} at the end; {os.cpu_count()} CPUs")
    print(f"ended: {ended} after {wall:.1f} s (exit status {rc}); {len(updates)} progress updates read")
    if updates:
        last = updates[-1]
        best = "-" if last.best is None else f"{last.best:.1f}"
        print(f"{'':<24}{'wall s':>8}{'trainer s':>11}{'iteration':>11}{'best':>10}{'steps/s':>10}")
        print(f"{'last update':<24}{last.wall:8.1f}{last.trainer:11.0f}{last.iteration:11d}{best:>10}"
              f"{last.steps_per_s:10.0f}")
    reached = next((u for u in updates if u.best is not None and u.best >= args.target), None)
    if reached is None:
        print(f"best_reward >= {args.target:g}: not reached")
    else:
        print(f"best_reward >= {args.target:g}: {reached.wall:.1f} s from launch, {reached.trainer:.0f} s of training "
              f"(iteration {reached.iteration}, {reached.steps_per_s:.0f} env-steps/s)")
        first = updates[0]
        print(f"CPU seconds of the run: {reached.cpu:.1f} from launch to the target; {reached.cpu - first.cpu:.1f} for "
              f"iterations {first.iteration + 1}-{reached.iteration} ({reached.wall - first.wall:.1f} s of wall time)")
    if args.csv is not None:
        with args.csv.open("w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(["wall_s", "trainer_s", "cpu_s", "iteration", "reward", "best", "steps_per_s"])
            for u in updates:
                writer.writerow([f"{u.wall:.2f}", u.trainer, f"{u.cpu:.2f}", u.iteration, u.reward, u.best,
                                 u.steps_per_s])


if __name__ == "__main__":
    main()
