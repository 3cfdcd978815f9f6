"""The pick-and-place app against the seed's own program, and batched trials against sequential runs.

(a) Whole processes, in the same run: ``simulo pick-place`` (the app through the contract) against the
seed's program rebuilt from ``../shared/seeds/000_e63e4e11bcdcc457.txt`` next to the repository (skipped
when that file is absent; the seed's code is never committed). Both are started as fresh interpreters,
with bytecode cached in a temporary folder as for an installed package, alternately (app, seed, seed,
app, ...) so that machine load hits both alike; the table gives each one's
median and minimum wall time and CPU time (user + system, which other work on a shared machine disturbs
less), the ratio app/seed of the medians and the medians of the pair-by-pair ratios. Goal: ratio <= 1.0.
The script also checks that both print the same lines (whitespace normalised).

With ``--imports``, two more processes run in the same rounds: a fresh interpreter that imports every module
the app has loaded when it ends, and one that imports every module the seed's program has (each list read
from a run of that program). The pair-by-pair differences, app minus seed, of the whole runs and of the
imports alone split the gap into the imports and the rest (set-up, stepping and the process's end).

(b) In this process: ``N`` random-start trials (``--seed``) batched as ``N`` environments of one
simulation, against the same ``N`` trials run one after another, each as a one-environment simulation.
Prints both times, the ratio batched/sequential and both pass counts (environments sharing a PyBullet
world are not bit-identical to lone ones, so the counts may differ by a trial or so).

Run::

    python benchmarks/pick_place.py            # 10 pairs of processes; 50 trials
    python benchmarks/pick_place.py --quick    # 1 run of each, 4 trials (used by the tests)
    python benchmarks/pick_place.py --skip-trials --baseline /tmp/before/src  # and an earlier tree's app
    python benchmarks/pick_place.py --skip-trials --imports  # and the imports alone of each
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _seed_program import build_seed_program

from simulo.apps.pick_place.experiments.trials import run_trial_set, sample_trials

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT.parent / "shared" / "seeds" / "000_e63e4e11bcdcc457.txt"
PROCESS_GOAL = 1.0


def app_command() -> list[str]:
    """The installed ``simulo pick-place`` command (or the module form when no script is installed)."""
    script = Path(sys.executable).parent / "simulo"
    return [str(script), "pick-place"] if script.is_file() else [sys.executable, "-m", "simulo.cli.main", "pick-place"]


def _children_cpu() -> float:
    """User + system seconds of this process's finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_process(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, list[str]]:
    """Wall and CPU time (s) of one process and its stdout lines, whitespace normalised."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {done.returncode}:\n{done.stderr}")
    return elapsed, _children_cpu() - cpu, [" ".join(line.split()) for line in done.stdout.splitlines()]


#: Runs the app (argument ``app``) or a program file, then writes the names of the modules loaded by then, one a
#: line, to the file named by its second argument (the program runs before anything else is imported).
MODULES_PROBE = """import sys
if sys.argv[1] == "app":
    from simulo.cli.main import main
    main(["pick-place"])
else:
    exec(compile(open(sys.argv[1], encoding="utf-8").read(), sys.argv[1], "exec"), {"__name__": "__main__"})
names = sorted(sys.modules)
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.write("\\n".join(names))
"""

#: Imports every module named in the file given as its argument, one a line (those already loaded cost a lookup).
IMPORTS_ONLY = """import sys
for name in open(sys.argv[1], encoding="utf-8").read().split():
    if name != "__main__":
        try:
            __import__(name)
        except ImportError:  # a placeholder entry some modules leave in sys.modules
            pass
"""


def import_commands(folder: Path, program: Path, env: dict[str, str]) -> dict[str, list[str]]:
    """The two import-only commands: each imports what the app (``app-imports``) or the seed's program
    (``seed-imports``) has loaded when it ends, as one run of each lists it."""
    probe = folder / "modules_probe.py"
    probe.write_text(MODULES_PROBE, encoding="utf-8")
    importer = folder / "imports_only.py"
    importer.write_text(IMPORTS_ONLY, encoding="utf-8")
    commands = {}
    for name, target in (("app", "app"), ("seed", str(program))):
        listing = folder / f"{name}_modules.txt"
        subprocess.run([sys.executable, str(probe), target, str(listing)], cwd=folder, env=env, check=True,
                       capture_output=True, timeout=600)
        commands[f"{name}-imports"] = [sys.executable, str(importer), str(listing)]
    return commands


def processes(runs: int, baseline: Path | None = None, imports: bool = False) -> None:
    """Part (a): the app process against the seed's program (and the app from ``baseline``, a ``src`` folder;
    with ``imports``, each one's imports alone)."""
    print("(a) whole process: simulo pick-place against the seed's program")
    if not SEED.is_file():
        print(f"skipped: the seed text is not at {SEED}")
        return
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "pick_place.py"
        program.write_text(build_seed_program(SEED), encoding="utf-8")
        commands = {"app": app_command(), "seed": [sys.executable, str(program)]}
        # Cache bytecode (in the temporary folder, not in the tree) as an installed package would.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "pycache")
        envs = {"app": env, "seed": env}
        if baseline is not None:  # the same command with another simulo first on the path
            commands["base"] = app_command()
            envs["base"] = {**env, "PYTHONPATH": str(baseline.resolve())}
        if imports:
            for name, command in import_commands(Path(folder), program, env).items():
                commands[name], envs[name] = command, env
        names = list(commands)
        times: dict[str, list[float]] = {name: [] for name in names}
        cpus: dict[str, list[float]] = {name: [] for name in names}
        outputs: dict[str, list[str]] = {}
        for name in names:  # warm-up: file caches, bytecode
            time_process(commands[name], Path(folder), envs[name])
        for k in range(runs):
            order = names[k % len(names):] + names[:k % len(names)]  # each one first in turn
            for name in order if k % 2 == 0 else order[::-1]:
                elapsed, cpu, outputs[name] = time_process(commands[name], Path(folder), envs[name])
                times[name].append(elapsed)
                cpus[name].append(cpu)
    print(f"{'process':<12} {'median s':>9} {'min s':>7} {'runs':>5} {'cpu median s':>13} {'cpu min s':>10}")
    for name in names:
        print(f"{name:<12} {statistics.median(times[name]):9.3f} {min(times[name]):7.3f} {len(times[name]):5d} "
              f"{statistics.median(cpus[name]):13.3f} {min(cpus[name]):10.3f}")
    for name in [n for n in names if n in ("app", "base")]:
        ratio = statistics.median(times[name]) / statistics.median(times["seed"])
        verdict = "met" if ratio <= PROCESS_GOAL else "MISSED"
        print(f"ratio {name}/seed (medians) {ratio:.2f}; goal <= {PROCESS_GOAL:.1f}: {verdict}")
        wall_pairs = statistics.median(a / b for a, b in zip(times[name], times["seed"]))
        cpu_pairs = statistics.median(a / b for a, b in zip(cpus[name], cpus["seed"]))
        print(f"{'' if name == 'app' else 'base '}pair by pair (median): wall {wall_pairs:.2f}, cpu {cpu_pairs:.2f}; "
              f"cpu medians {statistics.median(cpus[name]) / statistics.median(cpus['seed']):.2f}")
    if baseline is not None:
        cpu_pairs = statistics.median(a / b for a, b in zip(cpus["app"], cpus["base"]))
        print(f"app/base pair by pair (median): cpu {cpu_pairs:.2f}")
    if imports:
        whole = statistics.median(a - b for a, b in zip(times["app"], times["seed"])) * 1000
        alone = statistics.median(a - b for a, b in zip(times["app-imports"], times["seed-imports"])) * 1000
        print(f"app minus seed, pair by pair (median): whole run {whole:+.1f} ms, imports alone {alone:+.1f} ms, "
              f"the rest {whole - alone:+.1f} ms")
    same = all(outputs[name] == outputs["seed"] for name in names if name in ("app", "base"))
    print(f"same lines: {'yes' if same else 'NO'}")


def trials(num: int, seed: int) -> None:
    """Part (b): ``num`` trials batched against the same trials run one by one."""
    print(f"\n(b) {num} random-start trials (seed {seed}): one batched simulation against {num} single runs")
    true, est = sample_trials(num, seed)
    start = time.perf_counter()
    batched = run_trial_set(true, est, seed=seed)
    batched_s = time.perf_counter() - start
    start = time.perf_counter()
    single_passed = sum(run_trial_set(true[i:i + 1], est[i:i + 1], seed=seed).passed for i in range(num))
    sequential_s = time.perf_counter() - start
    print(f"{'mode':<11} {'seconds':>8} {'passed':>7} {'env-steps/s':>12}")
    steps = batched.steps * num
    print(f"{'batched':<11} {batched_s:8.2f} {batched.passed:>4}/{num:<2} {steps / batched_s:12.0f}")
    print(f"{'sequential':<11} {sequential_s:8.2f} {single_passed:>4}/{num:<2} {steps / sequential_s:12.0f}")
    print(f"ratio batched/sequential {batched_s / sequential_s:.2f} ({batched.worlds} PyBullet "
          f"world{'s' if batched.worlds != 1 else ''} for the batch)")


def main(argv: list[str] | None = None) -> int:
    """Run both parts; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of each process (alternating pairs) in part (a)")
    parser.add_argument("--trials", type=int, default=50, help="trials in part (b)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the trials")
    parser.add_argument("--quick", action="store_true", help="1 run of each process and 4 trials")
    parser.add_argument("--skip-trials", action="store_true", help="part (a) only")
    parser.add_argument("--baseline", type=Path, default=None, metavar="SRC",
                        help="also time the app from this folder holding another simulo package (e.g. the src of "
                             "'git archive' of an earlier commit), in the same rounds")
    parser.add_argument("--imports", action="store_true",
                        help="also time each program's imports alone, in the same rounds, and split the gap")
    args = parser.parse_args(argv)
    runs, num = (1, 4) if args.quick else (args.runs, args.trials)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    processes(runs, args.baseline, args.imports)
    if not args.skip_trials:
        trials(num, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
