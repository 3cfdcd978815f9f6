"""The process-wide speed settings: the collector paused only for the block asked, and a user's BLAS thread count
kept."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

import pytest

from simulo.platform.process_settings import BLAS_THREADS_VARIABLE, CollectorPause, use_one_blas_thread


@pytest.fixture
def collector_state() -> Iterator[None]:
    """Leave the collector as the test found it."""
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.usefixtures("collector_state")
@pytest.mark.parametrize(("pause", "inside"), [(True, False), (False, True)])
def test_the_collector_is_paused_for_the_block_alone(pause: bool, inside: bool) -> None:
    gc.enable()
    with CollectorPause(pause):
        assert gc.isenabled() is inside
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_state")
def test_a_collector_paused_before_stays_paused() -> None:
    gc.disable()
    with CollectorPause(True):
        assert not gc.isenabled()
    assert not gc.isenabled()


@pytest.mark.usefixtures("collector_state")
def test_the_collector_runs_again_after_an_error_in_the_block() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), CollectorPause(True):
        raise RuntimeError("the run failed")
    assert gc.isenabled()


@pytest.mark.parametrize(("given", "kept"), [(None, "1"), ("3", "3")])
def test_one_blas_thread_unless_the_user_chose(monkeypatch: pytest.MonkeyPatch, given: str | None, kept: str) -> None:
    monkeypatch.setenv(BLAS_THREADS_VARIABLE, "unset below")  # restored, or removed, after the test
    if given is None:
        monkeypatch.delenv(BLAS_THREADS_VARIABLE)
    else:
        monkeypatch.setenv(BLAS_THREADS_VARIABLE, given)
    use_one_blas_thread()
    assert os.environ[BLAS_THREADS_VARIABLE] == kept
