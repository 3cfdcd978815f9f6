"""Arm joint targets for tcp points with the hand pointing down, for every environment of a cell.

Two solvers, chosen by :attr:`~simulo.apps.pick_place.config.AppOptions.ik`: the closed-form IK of
:mod:`simulo.apps.pick_place.ik` with a wrist roll kept continuous from step to step, or one damped-least-
squares step (:mod:`simulo.apps.pick_place.numeric_ik`) on the tcp pose and Jacobian the robot reports. The
numeric solver's module (and :mod:`simulo.math.batched`) loads only for a cell that uses it.
"""

from __future__ import annotations

import numpy as np

import simulo
from simulo.apps.pick_place.config import QUARTER_TURN, TCP_BODY, AppOptions
from simulo.apps.pick_place.ik import solve_ik


class ArmControl:
    """Joint targets (N, 5) of the arm joints of ``N`` environments for tcp points in each environment's frame.

    Args:
        robot: The robot of the cell's simulation.
        origins: Environment origins (N, 3), world frame.
        arm_ids: Joint indices of the five arm joints, base to wrist roll.
        tcp_index: Body index of the tcp.
        options: The cell's options (solver, DLS damping).
    """

    def __init__(self, robot: simulo.Robot, origins: np.ndarray, arm_ids: list[int], tcp_index: int,
                 options: AppOptions) -> None:
        self.robot = robot
        self.origins = origins
        self.arm_ids = arm_ids
        self.tcp_index = tcp_index
        self.options = options
        self.hand_yaw = np.zeros(origins.shape[0])
        self.roll = np.zeros(origins.shape[0])

    def start(self, tcp: np.ndarray, yaw: np.ndarray) -> np.ndarray:
        """Arm joints (N, 5) of the start pose: the tcp at ``tcp`` (N, 3) with the fingers across ``yaw`` (N,).

        The numeric solver takes DLS steps on teleported joint states (no physics step is taken). The wrist
        roll (and, for the numeric solver, the hand yaw) of the start pose become the references later targets
        stay near.
        """
        if self.options.ik == "closed-form":
            q = np.array([solve_ik(tcp[i, 0], tcp[i, 1], tcp[i, 2], yaw[i]) for i in range(tcp.shape[0])])
        else:
            from simulo.apps.pick_place.numeric_ik import hand_yaw  # noqa: PLC0415 (the numeric solver's module)

            self.hand_yaw = hand_yaw(tcp[:, 0], tcp[:, 1], yaw)
            q = self._numeric_start(tcp, yaw)
        self.roll = q[:, 4].copy()
        return q

    def _numeric_start(self, tcp: np.ndarray, yaw: np.ndarray, iterations: int = 200) -> np.ndarray:
        q = np.zeros((tcp.shape[0], self.robot.num_joints))
        q[:, self.arm_ids] = [0.0, 0.6, 1.6, 0.9, 0.0]  # elbow up, hand roughly down
        for _ in range(iterations):
            self.robot.set_joint_state(q)
            q[:, self.arm_ids] += self._dls(tcp, yaw)
        return q[:, self.arm_ids]

    def _dls(self, points: np.ndarray, yaw: np.ndarray) -> np.ndarray:
        """One DLS correction (N, 5) of the arm joints towards tcp ``points`` with the hand down at ``yaw``.

        The hand yaw aimed at is the equivalent of ``yaw`` (mod 90 degrees) nearest to the last one aimed
        at, so the wrist never flips mid-move (see :meth:`targets`).
        """
        from simulo.apps.pick_place.numeric_ik import (  # noqa: PLC0415 (loaded for the numeric solver only)
            dls_step,
            down_rotation,
            hand_yaw,
            pose_error,
            quat_to_matrix,
        )

        pose = np.asarray(self.robot.get_body_pose(TCP_BODY), dtype=np.float64)
        jac = np.asarray(self.robot.get_jacobians([self.tcp_index]), dtype=np.float64)[:, 0][:, :, self.arm_ids]
        self.hand_yaw = hand_yaw(points[:, 0], points[:, 1], yaw, self.hand_yaw)
        err = pose_error(pose[:, :3] - self.origins, quat_to_matrix(pose[:, 3:]), points, down_rotation(self.hand_yaw))
        return dls_step(jac, err, self.options.dls_damping)

    def targets(self, points: np.ndarray, yaw: np.ndarray) -> np.ndarray:
        """This step's arm joint targets (N, 5) for tcp ``points`` (N, 3) with the fingers across ``yaw`` (N,).

        A cube looks the same every 90 degrees, so the closed-form IK wraps the wrist roll into +-45
        degrees. Along a move that would flip the roll by 90 degrees where the wrap boundary is crossed
        (whipping a held cube around), so the roll returned is the equivalent nearest to the last one.
        The numeric solver adds one DLS step to the measured joint positions.
        """
        if self.options.ik == "closed-form":
            return self.path_targets(points[None], yaw)[0]
        return np.asarray(self.robot.state.joint_positions)[:, self.arm_ids] + self._dls(points, yaw)

    def path_targets(self, points: np.ndarray, yaw: np.ndarray) -> np.ndarray:
        """The closed-form targets (K, N, 5) of ``K`` consecutive steps at tcp ``points`` (K, N, 3), ``yaw`` (N,).

        The same numbers as :meth:`targets` called step after step (the closed-form solution depends only on
        the point and the last roll, not on the physics), solved in one pass before the steps are taken.
        """
        count, num = points.shape[0], points.shape[1]
        rolls = self.roll.tolist()
        yaws = yaw.tolist()
        rows: list[list[float]] = []
        append = rows.append
        # per point in Python floats (the same IEEE arithmetic): numpy's per-call cost dominates here
        for step_points in points.tolist():
            for i, (x, y, z) in enumerate(step_points):
                row = list(solve_ik(x, y, z, yaws[i]))
                turns = round((rolls[i] - row[4]) / QUARTER_TURN)  # half to even, as np.round
                if turns:
                    row[4] += turns * QUARTER_TURN
                rolls[i] = row[4]
                append(row)
        self.roll = np.array(rolls, dtype=np.float64)
        return np.array(rows, dtype=np.float64).reshape(count, num, 5)
