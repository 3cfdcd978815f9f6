"""Cost of ``import simulo`` above a bare interpreter, and what ``simulo pick-place`` imports.

Starts fresh interpreters (``sys.executable``) in turn, ``-c "pass"`` and ``-c "import simulo"``,
interleaved so that machine load hits both alike, and prints the median and minimum wall time of each and
their difference. Goal: the difference is at most 30 ms. Bytecode is cached (in a temporary folder, not in
the tree) as for an installed package: ``pip install .`` compiles it, while this machine sets
``PYTHONDONTWRITEBYTECODE=1``, which would otherwise compile every changed module at every start. It also
checks, in a fresh interpreter, that ``import simulo`` pulls in none of ``pybullet``, ``numpy`` and
``torch`` (exit status 1 if one is loaded), and with ``--importtime`` prints the largest entries of
``python -X importtime -c "import simulo"``.

``--flagship`` adds ``simulo pick-place`` (run three times under ``-X importtime``): how many modules it
loads (all, and simulo's own) and the modules with the largest self time (least of the three runs), so
that each millisecond of its start-up has a name.

Run::

    python benchmarks/import_time.py              # 40 runs of each command
    python benchmarks/import_time.py --importtime # plus the per-module breakdown
    python benchmarks/import_time.py --flagship   # plus simulo pick-place's imports
    python benchmarks/import_time.py --quick      # 3 runs of each (used by the tests)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

GOAL_MS = 30.0
HEAVY = ("pybullet", "numpy", "torch")
BARE = "pass"
IMPORT = "import simulo"
PROBE = "import json, sys, simulo; print(json.dumps([m for m in {heavy!r} if m in sys.modules]))"
FLAGSHIP = [sys.executable, "-X", "importtime", "-m", "simulo.cli.main", "pick-place"]
# bytecode cached as an installed package has it (see the module docstring)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), f"simulo-bench-pycache-{os.getuid()}")


def time_command(code: str) -> float:
    """Wall time in ms of one fresh interpreter running ``code``."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL, env=ENV)
    return (time.perf_counter() - start) * 1000.0


def measure(runs: int) -> dict[str, list[float]]:
    """Interleaved timings (ms) of the bare and the importing interpreter, ``runs`` each, after one warm-up."""
    time_command(BARE)
    time_command(IMPORT)
    out: dict[str, list[float]] = {BARE: [], IMPORT: []}
    for k in range(runs):
        order = (BARE, IMPORT) if k % 2 == 0 else (IMPORT, BARE)
        for code in order:
            out[code].append(time_command(code))
    return out


def heavy_modules() -> list[str]:
    """The heavy modules present in ``sys.modules`` right after ``import simulo``."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY)], check=True, capture_output=True,
                          text=True, env=ENV)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _importtime_rows(command: list[str]) -> list[tuple[int, int, str]]:
    """``(self µs, cumulative µs, module)`` of every module ``command`` (run with ``-X importtime``) imports."""
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=ENV)
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum_us, name = line[len("import time:"):].split("|")
        rows.append((int(self_us), int(cum_us), name.rstrip()))
    return rows


def importtime_breakdown(top: int) -> list[tuple[int, int, str]]:
    """``(self µs, cumulative µs, module)`` of the ``top`` slowest modules by cumulative time."""
    rows = _importtime_rows([sys.executable, "-X", "importtime", "-c", IMPORT])
    return sorted(rows, key=lambda r: r[1], reverse=True)[:top]


def flagship(top: int, runs: int = 3) -> None:
    """Print what ``simulo pick-place`` imports: module counts and the largest self times (least of ``runs``)."""
    least: dict[str, int] = {}
    for _ in range(runs):
        for self_us, _cum, name in _importtime_rows(FLAGSHIP):
            key = name.strip()
            least[key] = min(least.get(key, self_us), self_us)
    own = [m for m in least if m == "simulo" or m.startswith("simulo.")]
    print(f"\nsimulo pick-place imports {len(least)} modules, {len(own)} of them simulo's; self time in -X importtime "
          f"(least of {runs} runs; the flag adds overhead): all {sum(least.values()) / 1000:.1f} ms, simulo's "
          f"{sum(least[m] for m in own) / 1000:.1f} ms")
    print(f"{'self us':>8}  module")
    for name, self_us in sorted(least.items(), key=lambda kv: kv[1], reverse=True)[:top]:
        print(f"{self_us:>8}  {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="interpreter starts per command (default 40)")
    parser.add_argument("--quick", action="store_true", help="3 runs per command (for the tests)")
    parser.add_argument("--importtime", action="store_true", help="also print a -X importtime breakdown")
    parser.add_argument("--flagship", action="store_true", help="also print what simulo pick-place imports")
    args = parser.parse_args(argv)
    runs = 3 if args.quick else args.runs

    times = measure(runs)
    print(f"python {sys.version.split()[0]} at {sys.executable}; {runs} interleaved runs per command")
    print(f"{'command':<28} {'median ms':>10} {'min ms':>8} {'max ms':>8}")
    for code, ms in times.items():
        print(f"{'python -c ' + repr(code):<28} {statistics.median(ms):>10.1f} {min(ms):>8.1f} {max(ms):>8.1f}")
    cost_median = statistics.median(times[IMPORT]) - statistics.median(times[BARE])
    cost_min = min(times[IMPORT]) - min(times[BARE])
    verdict = "met" if cost_median <= GOAL_MS else "MISSED"
    print(f"import simulo costs {cost_median:.1f} ms (median) / {cost_min:.1f} ms (min) above a bare interpreter; "
          f"goal <= {GOAL_MS:.0f} ms: {verdict}")

    loaded = heavy_modules()
    for name in HEAVY:
        print(f"{name} in sys.modules after import simulo: {'yes' if name in loaded else 'no'}")

    if args.importtime:
        print("\n-X importtime, slowest by cumulative time (one run; the flag itself adds overhead)")
        print(f"{'self us':>8} {'cumul us':>9}  module")
        for self_us, cum_us, name in importtime_breakdown(15):
            print(f"{self_us:>8} {cum_us:>9}  {name}")
    if args.flagship:
        flagship(20)
    return 1 if loaded else 0


if __name__ == "__main__":
    sys.exit(main())
