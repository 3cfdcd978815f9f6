"""Inertia tensors: refused when unphysical; listed in ``UrdfModel.inertia_not_from_file`` when an engine must not
take them from the file (PyBullet's ``URDF_USE_INERTIA_FROM_FILE`` steps such links to NaN, measured here)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from simulo.authoring.inertia import _eigenvalues, usable_from_file
from simulo.authoring.urdf import check_urdf

from .files import revolute, robot

_BOX = '<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>'


def _two_links(moments: str, mass: str = "1") -> str:
    ixx, iyy, izz = moments.split()
    inertial = (f'<inertial><mass value="{mass}"/><inertia ixx="{ixx}" ixy="0" ixz="0" iyy="{iyy}" iyz="0" '
                f'izz="{izz}"/></inertial>')
    return robot(f'<link name="a">{inertial}{_BOX}</link>', f'<link name="b">{inertial}{_BOX}</link>',
                 revolute("j", "a", "b"))


@pytest.mark.parametrize(("moments", "mass", "listed"), [
    ("0.01 0.01 0.01", "1", ()),
    ("0 0 0", "1", ("a", "b")),
    ("0.01 0.01 0", "1", ("a", "b")),
    ("1 1 5", "1", ("a", "b")),
    ("1e-12 1e-12 1e-12", "1", ()),
])
def test_links_whose_tensor_an_engine_must_compute_are_listed(moments: str, mass: str, listed: tuple[str, ...]) -> None:
    assert check_urdf(_two_links(moments, mass)).inertia_not_from_file == listed


def test_the_closed_form_eigenvalues_match_numpy() -> None:
    rng = np.random.default_rng(7)
    for _ in range(500):
        a = rng.normal(size=(3, 3))
        m = a @ a.T
        got = sorted(_eigenvalues(m[0, 0], m[0, 1], m[0, 2], m[1, 1], m[1, 2], m[2, 2]))
        np.testing.assert_allclose(got, np.linalg.eigvalsh(m), atol=1e-9)
    assert usable_from_file(2, 1, 0, 2, 0, 2) and not usable_from_file(1, 0, 0, 1, 0, 2.5)


_MEASURE = textwrap.dedent("""
    import math, sys
    import pybullet as p
    p.connect(p.DIRECT)
    p.setGravity(0, 0, -10)
    out = []
    for file in sys.argv[1:]:
        body = p.loadURDF(file, flags=p.URDF_USE_INERTIA_FROM_FILE)
        p.setJointMotorControl2(body, 0, p.VELOCITY_CONTROL, force=0)
        for _ in range(240):
            p.stepSimulation()
        values = (*p.getBasePositionAndOrientation(body)[0], *p.getJointState(body, 0)[:2])
        out.append(str(all(map(math.isfinite, values))))
        p.removeBody(body)
    print("RESULT", " ".join(out))
""")


def test_the_listed_links_are_the_ones_pybullet_steps_to_nan_with_inertia_from_file(tmp_path: Path) -> None:
    cases = ["0.01 0.01 0.01", "0 0 0", "0.01 0.01 0", "1 1 5", "1e-12 1e-12 1e-12"]
    files = []
    for k, moments in enumerate(cases):
        files.append(tmp_path / f"r{k}.urdf")
        files[-1].write_text(_two_links(moments))
    done = subprocess.run([sys.executable, "-c", _MEASURE, *map(str, files)], capture_output=True, text=True,
                          timeout=120, check=False)
    finite = next(line for line in done.stdout.splitlines() if line.startswith("RESULT")).split()[1:]
    assert finite == [str(not check_urdf(_two_links(m)).inertia_not_from_file) for m in cases], done.stderr[-500:]
