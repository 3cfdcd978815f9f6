"""simulo.App, @app.job options, @app.success and SystemType."""

from __future__ import annotations

import inspect

import pytest

import simulo
from simulo.errors import JobError
from simulo.platform.app import JobFunction
from simulo.platform.context import current_app


def test_job_records_options_and_call_runs_body() -> None:
    app = simulo.App("demo")

    @app.job(type="train", timeout=30, retries=2, system=simulo.SystemType.TIER_2, gpu="T4")
    def train(num_envs: int = 4) -> dict:
        return {"num_envs": num_envs, "app": current_app().name}

    assert isinstance(train, JobFunction)
    spec = app.jobs["train"]
    assert (spec.job_type, spec.timeout, spec.retries, spec.system, spec.gpu) == (
        simulo.JobType.TRAIN,
        30,
        2,
        simulo.SystemType.TIER_2,
        "T4",
    )
    assert train(num_envs=7) == {"num_envs": 7, "app": "demo"}
    assert current_app() is None
    assert train.__name__ == "train" and train.app is app


def test_bare_decorator_and_system_values() -> None:
    app = simulo.App("demo")

    @app.job
    def plain() -> None:
        return None

    assert app.jobs["plain"].job_type is None and app.jobs["plain"].retries == 0
    assert [m.value for m in simulo.SystemType] == ["tier1", "tier2", "tier3", "tier4"]
    assert [m.name for m in simulo.SystemType] == ["TIER_1", "TIER_2", "TIER_3", "TIER_4"]

    @app.job(system="tier3")
    def by_value() -> None:
        return None

    assert app.jobs["by_value"].system is simulo.SystemType.TIER_3


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"produces": ["ckpt"]}, "produces=...) is not supported"),
        ({"consumes": "policy"}, "consumes=...) is not supported"),
        ({"type": "training"}, "type='training') is not a job type"),
        ({"timeout": 0}, "timeout=0"),
        ({"timeout": True}, "timeout=True"),
        ({"retries": -1}, "retries=-1"),
        ({"retries": 1.5}, "retries=1.5"),
        ({"system": "tier9"}, "system='tier9'"),
        ({"gpu": 1.5}, "gpu=1.5"),
        ({"callbacks": [object()]}, "has none of the hooks"),
        ({"callbacks": "x"}, "callbacks='x'"),
    ],
)
def test_bad_job_options_are_refused(options: dict, needle: str) -> None:
    app = simulo.App("demo")
    with pytest.raises(JobError) as info:
        app.job(**options)
    assert needle in str(info.value)
    assert app.jobs == {}


def test_job_has_the_sdks_signature_and_records_extra_keywords() -> None:
    params = [(p.name, p.kind.name, p.default) for p in inspect.signature(simulo.App.job).parameters.values()]
    assert params[:7] == [("self", "POSITIONAL_OR_KEYWORD", inspect.Parameter.empty),
                          ("fn", "POSITIONAL_OR_KEYWORD", None), ("type", "KEYWORD_ONLY", None),
                          ("callbacks", "KEYWORD_ONLY", ()), ("system", "KEYWORD_ONLY", None),
                          ("timeout", "KEYWORD_ONLY", None), ("retries", "KEYWORD_ONLY", 0)]
    assert params[7][:2] == ("extra", "VAR_KEYWORD")
    app = simulo.App("demo")

    def train() -> None:
        return None

    job = app.job(train, type="train", memory="8Gi", gpu="T4")  # the function and options together, as the SDK's
    assert job.spec.job_type is simulo.JobType.TRAIN
    assert job.spec.resources == {"memory": "8Gi", "gpu": "T4"} and job.spec.gpu == "T4"


def test_job_declarations_list_every_job_in_order() -> None:
    app = simulo.App("demo")
    assert app.job_declarations == ()

    @app.job(type="train")
    def train() -> None:
        return None

    @app.job(type="eval")
    def evaluate() -> None:
        return None

    assert [(name, spec.job_type) for name, spec in app.job_declarations] == [
        ("train", simulo.JobType.TRAIN), ("evaluate", simulo.JobType.EVAL)]
    assert app.job_declarations[0][1] is app.jobs["train"]


def test_duplicate_job_names_and_non_functions_are_refused() -> None:
    app = simulo.App("demo")

    @app.job
    def train() -> None:
        return None

    with pytest.raises(JobError, match="already has a job named 'train'"):

        @app.job(type="eval")
        def train() -> None:
            return None

    with pytest.raises(JobError, match="decorates a function"):
        app.job(print)


def test_app_name_and_runtime_validation() -> None:
    with pytest.raises(JobError, match="non-empty name"):
        simulo.App("  ")
    with pytest.raises(JobError, match="simulo.Runtime"):
        simulo.App("x", runtime="gpu")  # type: ignore[arg-type]
    runtime = simulo.Runtime.from_registry("simulo/gpu-rl:2026.06").env({"A": "1"}).pip_install("wandb==0.17.0")
    app = simulo.App("x", runtime=runtime)
    assert app.runtime.runtime_env == {"A": "1"}
    assert app.runtime.pip_dependencies == [{"packages": ["wandb==0.17.0"], "pre": False}]
    with pytest.raises(JobError, match="plain PyPI"):
        runtime.pip_install("git+https://example.com/x.git")
    assert simulo.App("y").runtime is not simulo.App("z").runtime
    assert simulo.App("y").runtime.runtime_id == "local"  # an App's own runtime, named as the SDK requires
    with pytest.raises(TypeError, match="runtime_id"):
        simulo.Runtime()  # type: ignore[call-arg]


def test_success_rules_are_kept_in_order() -> None:
    app = simulo.App("demo")

    @app.success
    def first(task: object) -> bool:
        return True

    @app.success
    def second(task: object) -> bool:
        return False

    assert app.success_functions == (first, second)
    assert first(None) is True
    with pytest.raises(JobError, match="taking the task"):
        app.success(3)  # type: ignore[arg-type]


def test_callbacks_are_recorded() -> None:
    class Recorder:
        def on_job_start(self, job_id: str) -> None:
            pass

    app = simulo.App("demo")
    callback = Recorder()

    @app.job(callbacks=[callback])
    def train() -> None:
        return None

    assert app.jobs["train"].callbacks == (callback,)


def test_spawn_is_not_available_locally() -> None:
    app = simulo.App("demo")

    @app.job
    def train() -> None:
        return None

    with pytest.raises(NotImplementedError, match="simulo run FILE --job train"):
        train.spawn()
