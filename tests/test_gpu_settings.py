"""Issue 44, item 4: the settings a CUDA build runs under (deterministic kernels, cuBLAS workspace, no TF32,
math attention), the memory budget by device, and the --device / --dtype / --memory-budget-gb config fields.
Checked on CPU: the functions take the device as an argument, and torch accepts these settings without a GPU."""

from __future__ import annotations

import pytest
import torch
from pydantic import ValidationError

from dpsynrag.models import loading
from dpsynrag.models.loading import DETERMINISTIC_SETTINGS, enforce_deterministic, memory_budget
from dpsynrag.pipeline.config import BuildConfig


@pytest.fixture
def restored(monkeypatch):
    """Put back every process-wide setting enforce_deterministic changes."""
    saved = (torch.are_deterministic_algorithms_enabled(), torch.backends.cuda.matmul.allow_tf32,
             torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
             torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction, torch.backends.cudnn.benchmark,
             torch.backends.cudnn.deterministic, torch.backends.cuda.flash_sdp_enabled(),
             torch.backends.cuda.mem_efficient_sdp_enabled(), torch.backends.cuda.math_sdp_enabled())
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    yield
    torch.use_deterministic_algorithms(saved[0])
    (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32,
     torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
     torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction, torch.backends.cudnn.benchmark,
     torch.backends.cudnn.deterministic) = saved[1:7]
    torch.backends.cuda.enable_flash_sdp(saved[7])
    torch.backends.cuda.enable_mem_efficient_sdp(saved[8])
    torch.backends.cuda.enable_math_sdp(saved[9])


def test_cpu_changes_nothing(restored):
    before = torch.are_deterministic_algorithms_enabled()
    assert enforce_deterministic(torch.device("cpu")) is None
    assert torch.are_deterministic_algorithms_enabled() == before


def test_cuda_settings_are_applied_and_stated(restored):
    import os

    assert enforce_deterministic(torch.device("cuda")) == DETERMINISTIC_SETTINGS
    assert torch.are_deterministic_algorithms_enabled()
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    assert not torch.backends.cuda.matmul.allow_tf32 and not torch.backends.cudnn.allow_tf32
    assert not torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction
    assert not torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction
    assert torch.backends.cudnn.deterministic and not torch.backends.cudnn.benchmark
    assert not torch.backends.cuda.flash_sdp_enabled() and not torch.backends.cuda.mem_efficient_sdp_enabled()
    assert torch.backends.cuda.math_sdp_enabled()


def test_a_workspace_the_user_set_is_kept(restored, monkeypatch):
    import os

    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":16:8")
    enforce_deterministic(torch.device("cuda"))
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"


@pytest.mark.parametrize("free_gib, expected", [(80, 40.0), (300, 64.0), (1, 2.0)])
def test_memory_budget_by_device(monkeypatch, free_gib, expected):
    assert memory_budget(None, torch.device("cpu")) == loading.CPU_MEMORY_BUDGET_GB == 2.0
    assert memory_budget(5, torch.device("cuda")) == 5.0
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (free_gib * 2**30, 141 * 2**30))
    assert memory_budget(None, torch.device("cuda")) == expected


def test_device_dtype_and_budget_fields():
    budget = dict(epsilon=10, delta=1e-3)
    config = BuildConfig(**budget, device="cuda:1", dtype="bfloat16", memory_budget_gb=3)
    assert (config.device, config.dtype, config.memory_budget_gb) == ("cuda:1", "bfloat16", 3.0)
    default = BuildConfig(**budget)
    assert (default.device, default.dtype, default.memory_budget_gb) == (None, None, None)
    with pytest.raises(ValidationError):
        BuildConfig(**budget, dtype="int8")
    with pytest.raises(ValidationError):
        BuildConfig(**budget, memory_budget_gb=0)


def test_build_run_loads_the_models_on_the_configured_device(monkeypatch, tmp_path):
    from dpsynrag.models import Embedder, LanguageModel
    from dpsynrag.pipeline.run import BuildRun

    seen = []
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, name=None, *, device=None: seen.append(device)))
    monkeypatch.setattr(LanguageModel, "load",
                        classmethod(lambda cls, name=None, *, device=None, dtype=None: seen.append((device, dtype))))
    run = BuildRun("dp-synrag", ["a note"], tmp_path / "out", BuildConfig(epsilon=10, delta=1e-3, device="cpu",
                                                                          dtype="bfloat16", self_filter=False),
                   plan=lambda cal: None)
    run.load_models()
    assert seen == ["cpu", ("cpu", "bfloat16")]
