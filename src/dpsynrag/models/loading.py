"""Loading a causal language model: the torch device and dtype from user settings, whether a model
name that does not exist on disk was meant as a local path (shared with the embedder), and the
loading of a hub id, model folder, GGUF file or the offline default.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path

import torch

from dpsynrag.errors import ConfigError, ModelLoadError
from dpsynrag.models import _defaults
from dpsynrag.threads import configure_threads

logger = logging.getLogger(__name__)

_DTYPES = {
    "float32": torch.float32,
    "fp32": torch.float32,
    "float": torch.float32,
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
    "float16": torch.float16,
    "fp16": torch.float16,
    "half": torch.float16,
}

def resolve_device(device: str | torch.device | None) -> torch.device:
    """``device`` as a torch.device; None picks ``cuda`` when available, else ``cpu``.

    Raises:
        ConfigError: on an unknown device string or an unavailable CUDA device.
    """
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ConfigError(f"`device` must be a torch device such as 'cpu' or 'cuda:0'. Found {device!r}.") from exc
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"`device` is {device!r} but CUDA is not available on this machine; use 'cpu'.")
    return dev


def resolve_dtype(dtype: str | torch.dtype | None, device: torch.device) -> torch.dtype:
    """``dtype`` as a floating torch.dtype; None picks float32 on CPU and bfloat16 on CUDA (float16
    where the GPU has no bfloat16).

    Raises:
        ConfigError: on an unknown name or a non-floating dtype.
    """
    if dtype is None:
        if device.type == "cuda":
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    if isinstance(dtype, torch.dtype):
        if not dtype.is_floating_point:
            raise ConfigError(f"`dtype` must be a floating-point dtype. Found {dtype}.")
        return dtype
    if isinstance(dtype, str) and dtype.lower().removeprefix("torch.") in _DTYPES:
        return _DTYPES[dtype.lower().removeprefix("torch.")]
    raise ConfigError(f"`dtype` must be one of {sorted(_DTYPES)} or a torch.dtype. Found {dtype!r}.")


DETERMINISTIC_SETTINGS = {
    "torch.use_deterministic_algorithms": True,
    "CUBLAS_WORKSPACE_CONFIG": ":4096:8",
    "torch.backends.cuda.matmul.allow_tf32": False,
    "torch.backends.cudnn.allow_tf32": False,
    "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction": False,
    "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction": False,
    "torch.backends.cudnn.benchmark": False,
    "torch.backends.cudnn.deterministic": True,
    "scaled_dot_product_attention": "math backend only (flash and memory-efficient off)",
}
"""What :func:`enforce_deterministic` sets on an accelerator (docs/gpu.md)."""


def enforce_deterministic(device: torch.device) -> dict | None:
    """On a CUDA device, the process-wide settings that make a seeded build reproducible and its kernels
    independent of tuning (:data:`DETERMINISTIC_SETTINGS`): deterministic algorithms (an operation without
    a deterministic CUDA kernel raises instead of running), cuBLAS's fixed workspace (the variable is set
    here unless the user set it; it must be before the first cuBLAS call, so before any model runs), TF32
    and reduced-precision reductions off, cuDNN without autotuning, and scaled-dot-product attention on the
    math backend only. Nothing on CPU (its kernels are deterministic; the batch-invariant engine handles
    the rest).

    Returns:
        The settings applied (a copy of :data:`DETERMINISTIC_SETTINGS`), None on CPU.
    """
    if device.type != "cuda":
        return None
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", DETERMINISTIC_SETTINGS["CUBLAS_WORKSPACE_CONFIG"])
    torch.use_deterministic_algorithms(True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    torch.backends.cuda.enable_flash_sdp(False)
    torch.backends.cuda.enable_mem_efficient_sdp(False)
    torch.backends.cuda.enable_math_sdp(True)
    return dict(DETERMINISTIC_SETTINGS)


CPU_MEMORY_BUDGET_GB = 2.0
"""The memory budget (GB) of a batch of private prediction on CPU unless given (``--memory-budget-gb``)."""


def memory_budget(gb: float | None, device: torch.device) -> float:
    """The memory budget (GB) of one batch of private prediction's keys/values and logits: ``gb`` when given,
    else :data:`CPU_MEMORY_BUDGET_GB` on CPU and, on CUDA, half the device's free memory now (at most 64
    GB), so that batches fill a large GPU. A size, never a privacy parameter: with the batch-invariant
    engine a seeded build writes the same texts at any budget."""
    if gb is not None:
        return float(gb)
    if device.type != "cuda":
        return CPU_MEMORY_BUDGET_GB
    free, _ = torch.cuda.mem_get_info(device)
    return min(64.0, max(CPU_MEMORY_BUDGET_GB, free / 2 / 2**30))


def decoding_row_bytes(lm, prompt_tokens: int, new_tokens: int) -> int:
    """Bytes of one private-prediction decoding row, as the decoder's batch planner counts it: the keys/values of
    ``prompt_tokens + new_tokens`` tokens of ``lm`` and its float32 logits and temporaries (3 · 4 · vocabulary)."""
    return (prompt_tokens + new_tokens) * lm.kv_bytes_per_token() + 3 * 4 * lm.model_vocab_size


def small_budget_warning(gb: float, row_bytes: float) -> str | None:
    """The owner's warning when a private-prediction memory budget of ``gb`` GB cannot hold one decoding row
    at the build's shapes (``row_bytes``: its keys/values over the longest prompt and T new tokens, plus its
    float32 logits and temporaries, as the decoder's batch planner counts them; public sizes only). Each
    batch then holds a single cluster, and a build runs several times slower (4x in a CPU trial at 0.001 GB).
    None when the budget holds a row. Never a privacy parameter: the texts are the same."""
    if gb * 2**30 >= row_bytes:
        return None
    return (f"--memory-budget-gb {gb:g} cannot hold one decoding row at this build's shapes "
            f"({row_bytes / 2**30:.3g} GB): every batch will hold a single cluster, several times slower. "
            f"Hint: give at least {row_bytes / 2**30:.2g} GB, or leave the option out (default 2 GB on CPU).")


def looks_like_path(text: str) -> bool:
    """Whether a string that does not exist on disk was meant as a local path rather than a hub id."""
    if text.startswith(("/", "./", "../", "~", "\\")) or (len(text) > 1 and text[1] == ":"):
        return True
    if text.lower().endswith((".gguf", ".safetensors", ".bin", ".pt", ".json")):
        return True
    return text.count("/") > 1 or "\\" in text


# Files that mark a folder as a transformers model folder.
_MODEL_FILES = ("config.json",)


def load_language_model(build, model: str | os.PathLike | None, *, device: str | None,
                        dtype: str | torch.dtype | None):
    """A causal LM and its tokenizer loaded as :meth:`~dpsynrag.models.lm.LanguageModel.load`
    documents (arguments and errors there), wrapped by ``build(model, tokenizer, name=...)``."""
    dev = resolve_device(device)
    dt = resolve_dtype(dtype, dev)
    enforce_deterministic(dev)
    configure_threads()  # once per process: the cores free to it (dpsynrag.threads)
    if model is None:
        return _load_default(build, dev, dt)
    if isinstance(model, os.PathLike) or (isinstance(model, str) and (os.path.exists(os.path.expanduser(model))
                                                                      or looks_like_path(model))):
        path = Path(os.path.expanduser(os.fspath(model)))
        if not path.exists():
            raise ModelLoadError(f"`model` (--model) path {str(path)!r} does not exist.")
        if path.is_file():
            if path.suffix.lower() != ".gguf":
                raise ModelLoadError(
                    f"`model` {str(path)!r} is a file but not a GGUF file (*.gguf); pass a model folder "
                    "(with config.json), a .gguf file or a hub id."
                )
            return _with_source(_load_gguf(build, path, dev, dt), path)
        if not any((path / f).is_file() for f in _MODEL_FILES):
            raise ModelLoadError(
                f"`model` folder {str(path)!r} is not a transformers model folder (no config.json)."
            )
        return _with_source(_from_pretrained(build, str(path), dev, dt, name=str(path)), path)
    if not isinstance(model, str) or not model.strip():
        raise ModelLoadError(f"`model` must be a hub id, a path or None. Found {model!r}.")
    from dpsynrag.models.hub import hub_folder, local_files_only

    offline = local_files_only(model, what="language model", flag="--model")  # fails at once if it cannot load
    return _with_source(_from_pretrained(build, model, dev, dt, name=model, local_files_only=offline), hub_folder(model))


def _with_source(lm, source: Path | None):
    """``lm`` with :attr:`~dpsynrag.models.lm.LanguageModel.source`: the file or folder it was loaded from."""
    lm.source = source
    return lm


def _load_gguf(build, path: Path, device: torch.device, dtype: torch.dtype):
    """A GGUF file's model from its converted folder in the cache (:func:`~dpsynrag.models.gguf.cached_conversion`:
    converted at the first load only); a damaged cache folder is converted again."""
    from dpsynrag.models.gguf import cached_conversion

    start = time.perf_counter()
    folder, converted = cached_conversion(path)
    if converted:
        logger.info("converted %s once into %s in %.1f s", path, folder, time.perf_counter() - start)
    try:
        return _from_pretrained(build, str(folder), device, dtype, name=str(path))
    except ModelLoadError:
        if converted:
            raise
        _discard(folder)
        folder, _ = cached_conversion(path)
        return _from_pretrained(build, str(folder), device, dtype, name=str(path))


def _discard(folder: Path) -> None:
    """Move a damaged cache folder away (atomically) and delete it."""
    broken = folder.with_name(folder.name + f".broken-{os.getpid()}")
    os.rename(folder, broken)
    shutil.rmtree(broken, ignore_errors=True)


def _from_pretrained(build, source: str, device: torch.device, dtype: torch.dtype, *, name: str,
                     local_files_only: bool = False):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    extra = {"local_files_only": True} if local_files_only else {}
    # On an accelerator, load the weights straight onto it (no full copy in host memory).
    placement = {"device_map": {"": str(device)}} if device.type != "cpu" else {}
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **extra)
        model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype, **extra, **placement)
    except Exception as exc:  # noqa: BLE001 - transformers raises many types; all mean "cannot load"
        raise ModelLoadError(
            f"could not load a causal language model from {name!r}: {type(exc).__name__}: {exc}"
        ) from exc
    model.to(device)
    return build(model, tokenizer, name=name)


def _load_default(build, device: torch.device, dtype: torch.dtype):
    from dpsynrag.models.gguf import convert_gguf

    target = _defaults.smollm2_cache_dir()
    name = _defaults.smollm2_name()
    if not target.is_dir():
        start = time.perf_counter()
        logger.info("converting the offline default model once into %s", target)
        convert_gguf(_defaults.smollm2_gguf_path(), target)
        logger.info("converted in %.1f s", time.perf_counter() - start)
    try:
        lm = _from_pretrained(build, str(target), device, dtype, name=name)
    except ModelLoadError:
        _discard(target)  # a damaged cache folder (e.g. edited by hand): convert again
        convert_gguf(_defaults.smollm2_gguf_path(), target)
        lm = _from_pretrained(build, str(target), device, dtype, name=name)
    return _with_source(lm, _defaults.smollm2_gguf_path())
