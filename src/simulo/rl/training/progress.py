"""The trainer's progress bar on stderr: tqdm when installed, else one updating line.

Its figures: ``reward R best B steps/s S lr L | physics P% task T% learner L%``, the last part the last
iteration's time split (:mod:`simulo.rl.training.time_split`). Scripts read the line up to ``steps/s``
(``benchmarks/sample_time_to_reward.py``): those fields keep their order and format.
"""

from __future__ import annotations

import sys
from typing import Any

from simulo.rl.training.time_split import IterationTimes


class Progress:
    """A progress bar over ``total`` iterations (nothing is shown when ``enabled`` is false or ``total`` is 0)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self._enabled = enabled and total > 0
        self._total = total
        self._done = 0
        self._bar: Any = None
        if self._enabled:
            try:
                from tqdm import tqdm  # noqa: PLC0415 - optional

                self._bar = tqdm(total=total, desc="PPO", unit="it", file=sys.stderr, dynamic_ncols=True)
            except ImportError:
                self._bar = None

    def update(self, reward: float | None, best: float | None, fps: float, learning_rate: float,
               times: IterationTimes) -> None:
        """Advance by one iteration and show its figures, with where its time went (``times``)."""
        if not self._enabled:
            return
        self._done += 1
        text = progress_text(reward, best, fps, learning_rate, times)
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=False)
            self._bar.update(1)
        else:
            sys.stderr.write(f"\rPPO {self._done}/{self._total} {text}")
            sys.stderr.flush()

    def close(self) -> None:
        """End the bar (a newline without tqdm)."""
        if not self._enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            sys.stderr.write("\n")
            sys.stderr.flush()


def progress_text(reward: float | None, best: float | None, fps: float, learning_rate: float,
                  times: IterationTimes) -> str:
    """The bar's figures: ``reward R best B steps/s S lr L | <the iteration's time split>``."""
    return (f"reward {_fmt(reward)} best {_fmt(best)} steps/s {fps:,.0f} lr {learning_rate:.1e} "
            f"| {times.shares()}")


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"
