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
loads (all, and simulo's own), how many of them the seed's program does not load (when the seed text is
next to the repository) and their self time, and the modules with the largest self time (least of the
three runs), so that each millisecond of its start-up has a name.

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
# simulo pick-place as its console script runs it, every import logged by -X importtime, sys.modules printed last
FLAGSHIP_CODE = """
import contextlib, importlib, io, json, sys
by_name = importlib.import_module
def logged(name, package=None):
    if package is not None or name.startswith('.'):
        return by_name(name, package)
    __import__(name)
    return sys.modules[name]
importlib.import_module = logged
from simulo.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(['pick-place'])
print(json.dumps(sorted(sys.modules)))
"""
SEED_CODE = """
import contextlib, io, json, sys
with open({path!r}) as file:
    code = compile(file.read(), {path!r}, 'exec')
with contextlib.redirect_stdout(io.StringIO()):
    exec(code, {{'__name__': '__main__'}})
print(json.dumps(sorted(sys.modules)))
"""
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


def parse_importtime(stderr: str, *, keep_indent: bool = False) -> list[tuple[int, int, str]]:
    """The rows of ``-X importtime`` output, in the order they appear.

    Args:
        stderr: What an interpreter run with ``-X importtime`` wrote to its standard error; lines that are
            not ``import time:`` rows (the program's own output, warnings) and the header row are skipped.
        keep_indent: Keep the leading spaces of each module name (they show how deep it was imported);
            otherwise names are stripped.

    Returns:
        ``(self µs, cumulative µs, module)`` for every module the run imported.
    """
    rows = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum_us, name = line[len("import time:"):].split("|")
        rows.append((int(self_us), int(cum_us), name.rstrip() if keep_indent else name.strip()))
    return rows


def slowest(rows: list[tuple[int, int, str]], top: int) -> list[tuple[int, int, str]]:
    """The ``top`` rows of ``rows`` with the largest cumulative time, largest first.

    Args:
        rows: ``(self µs, cumulative µs, module)`` rows, as :func:`parse_importtime` gives them.
        top: How many rows to keep.

    Returns:
        At most ``top`` rows, sorted by cumulative time, largest first (ties keep their order in ``rows``).
    """
    return sorted(rows, key=lambda r: r[1], reverse=True)[:top]


def _importtime_rows(command: list[str]) -> list[tuple[int, int, str]]:
    """``(self µs, cumulative µs, module)`` of every module ``command`` (run with ``-X importtime``) imports."""
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=ENV)
    return parse_importtime(done.stderr, keep_indent=True)


def importtime_breakdown(top: int) -> list[tuple[int, int, str]]:
    """``(self µs, cumulative µs, module)`` of the ``top`` slowest modules by cumulative time."""
    return slowest(_importtime_rows([sys.executable, "-X", "importtime", "-c", IMPORT]), top)


def _module_rows(code: str) -> tuple[list[tuple[int, int, str]], list[str]]:
    """-X importtime rows of ``python -c code`` and the ``sys.modules`` names it prints (a JSON list) at its end."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], check=True, capture_output=True,
                          text=True, env=ENV)
    return parse_importtime(done.stderr), json.loads(done.stdout.strip().splitlines()[-1])


def flagship(top: int, runs: int = 3) -> None:
    """Print what ``simulo pick-place`` imports, against the seed's program when its text is there.

    Module counts come from ``sys.modules`` at the end of the run; self times from ``-X importtime`` (least of
    ``runs``), with ``importlib.import_module`` routed through ``__import__`` so that the modules loaded by
    name (``simulo``'s lazy attributes) are timed too.
    """
    least: dict[str, int] = {}
    modules: list[str] = []
    for _ in range(runs):
        rows, modules = _module_rows(FLAGSHIP_CODE)
        for self_us, _cum, name in rows:
            least[name] = min(least.get(name, self_us), self_us)
    own = [m for m in modules if m == "simulo" or m.startswith("simulo.")]
    print(f"\nsimulo pick-place ends with {len(modules)} modules loaded, {len(own)} of them simulo's; self time in "
          f"-X importtime (least of {runs} runs; the flag adds overhead): all {sum(least.values()) / 1000:.1f} ms, "
          f"simulo's {sum(least.get(m, 0) for m in own) / 1000:.1f} ms")
    seed = _seed_modules()
    if seed is not None:
        extra = [m for m in modules if m not in seed]
        extra_own = [m for m in extra if m in own]
        others = sorted(m for m in extra if m not in own)
        print(f"not loaded by the seed's program ({len(seed)} modules): {len(extra)} modules, "
              f"{sum(least.get(m, 0) for m in extra) / 1000:.1f} ms of self time ({len(extra_own)} simulo's, "
              f"{sum(least.get(m, 0) for m in extra_own) / 1000:.1f} ms); the others: {', '.join(others)}")
    layers: dict[str, list[str]] = {}
    for m in own:
        parts = 3 if m.startswith(("simulo.engine.pybullet", "simulo.engine.mujoco")) else 2
        layers.setdefault(".".join(m.split(".")[:parts]), []).append(m)
    print("simulo's by package: " + ", ".join(
        f"{name} {len(ms)} ({sum(least.get(m, 0) for m in ms) / 1000:.1f} ms)"
        for name, ms in sorted(layers.items(), key=lambda kv: -sum(least.get(m, 0) for m in kv[1]))))
    print(f"{'self us':>8}  module")
    for name, self_us in sorted(least.items(), key=lambda kv: kv[1], reverse=True)[:top]:
        print(f"{self_us:>8}  {name}")


def _seed_modules() -> set[str] | None:
    """The modules loaded at the end of the seed's program (rebuilt from the seed text), or None without it."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _seed_program import build_seed_program  # noqa: PLC0415 (the benchmarks' folder, only for --flagship)

    seed = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "seeds",
                        "000_e63e4e11bcdcc457.txt")
    if not os.path.isfile(seed):
        return None
    with tempfile.TemporaryDirectory() as folder:
        program = os.path.join(folder, "pick_place.py")
        with open(program, "w", encoding="utf-8") as file:
            file.write(build_seed_program(seed))
        _, modules = _module_rows(SEED_CODE.format(path=program))
    return set(modules)


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
