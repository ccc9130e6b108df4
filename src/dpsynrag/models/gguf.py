"""Your own language model from a GGUF file, and the SHA-256 fingerprints that name a model in a manifest.

* :func:`convert_gguf`: dequantise a GGUF causal LM into a float32 safetensors model folder (what
  ``dpsynrag models convert FILE.gguf --out DIR`` runs). transformers 5.x loads a GGUF file but refuses
  ``save_pretrained`` on the result ("quantized with gguf and is not serializable"); this converter copies
  the config without its ``quantization_config``, builds a clean model from it and gives it the state dict.
* :func:`cached_conversion`: ``--model FILE.gguf`` converts the file once into the dpsynrag cache
  (:func:`~dpsynrag.models._defaults.cache_root`), in a folder keyed by the file's SHA-256, and later loads
  read that folder (a file with other contents gets a folder of its own; a renamed copy finds the same one).
* :func:`file_sha256`, :func:`model_file_hashes`: the SHA-256 of a model's weight, tokenizer and config files,
  which the manifest records (``model.sha256``, ``embedder.sha256``); a file's digest is remembered in the
  cache under its path, size and modification time, so a large file is read once, not at every build.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from dpsynrag.errors import ModelLoadError
from dpsynrag.models._defaults import _CONVERSION_VERSION, cache_root

__all__ = ["cached_conversion", "convert_gguf", "file_sha256", "gguf_cache_dir", "model_file_hashes"]

MODEL_FILES = (
    "config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json", "tokenizer.model",
    "special_tokens_map.json", "added_tokens.json", "vocab.json", "vocab.txt", "merges.txt", "chat_template.jinja",
    "modules.json", "sentence_bert_config.json", "config_sentence_transformers.json",
)
"""Configuration and tokenizer files of a model folder that :func:`model_file_hashes` fingerprints (with
every weight file, :data:`WEIGHT_SUFFIXES`)."""

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth")
"""Suffixes of weight files in a model folder."""

_CHUNK = 1 << 20


def file_sha256(path: str | os.PathLike) -> str:
    """The hex SHA-256 of a file's bytes, remembered in ``CACHE/sha256/`` under the file's resolved path,
    size, modification time and inode (a file changed in place gets a new entry, so it is read again).

    Raises:
        OSError: the file cannot be read.
    """
    path = Path(path).resolve()
    st = path.stat()
    key = hashlib.sha256(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}".encode()).hexdigest()
    memo = cache_root() / "sha256" / key
    try:
        digest = memo.read_text(encoding="ascii").strip()
        if len(digest) == 64:
            return digest
    except OSError:
        pass
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    digest = h.hexdigest()
    try:  # the memo is an optimisation: a read-only cache folder only means hashing again next time
        memo.parent.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_name(f".{key}.{os.getpid()}")
        tmp.write_text(digest, encoding="ascii")
        os.replace(tmp, memo)
    except OSError:
        pass
    return digest


def model_file_hashes(source: str | os.PathLike) -> dict[str, str]:
    """``{file name: hex SHA-256}`` of the files that make a model: ``source`` itself when it is a file (a
    GGUF file holds weights and tokenizer); for a folder, its weight files (:data:`WEIGHT_SUFFIXES`) and
    its config and tokenizer files (:data:`MODEL_FILES`), top level only, sorted by name. Check one with
    ``sha256sum FILE``.

    Raises:
        OSError: a file cannot be read.
    """
    source = Path(source)
    if source.is_file():
        return {source.name: file_sha256(source)}
    names = sorted(p.name for p in source.iterdir()
                   if p.is_file() and (p.name in MODEL_FILES or p.suffix.lower() in WEIGHT_SUFFIXES))
    return {name: file_sha256(source / name) for name in names}


def convert_gguf(gguf_path: str | os.PathLike, target: str | os.PathLike) -> Path:
    """Dequantise a GGUF causal LM into a float32 safetensors model folder at ``target``, atomically.

    The folder holds ``config.json`` (without ``quantization_config``), ``model.safetensors``, the
    tokenizer files and ``dpsynrag_conversion.json`` (source file, its size and the converter version); any
    transformers code or ``--model DIR`` loads it. It is written to a temporary folder next to ``target``
    and renamed into place, so a crash or a concurrent conversion never leaves a half-written ``target``: it
    exists complete or not at all. If another process finished first, its folder is kept and ours is
    discarded. Takes about 20 s and 0.6 GB of disk for a 135M-parameter model (float32: 4 bytes a weight).

    Args:
        gguf_path: a GGUF file of a causal language model that transformers can read (llama, mistral,
            qwen2, phi3, gemma, ... architectures).
        target: the folder to create (its parent is created).

    Returns:
        ``target`` as a Path.

    Raises:
        ModelLoadError: the file cannot be read as a GGUF causal language model.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf_path, target = Path(gguf_path), Path(target)
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


def gguf_cache_dir(gguf_path: str | os.PathLike) -> Path:
    """The cache folder of ``gguf_path``'s conversion: ``CACHE/models/gguf-<first 16 hex digits of its
    SHA-256>-v<converter version>`` (:func:`file_sha256`)."""
    return cache_root() / "models" / f"gguf-{file_sha256(gguf_path)[:16]}-v{_CONVERSION_VERSION}"


def cached_conversion(gguf_path: str | os.PathLike) -> tuple[Path, bool]:
    """``(folder, converted)``: the float32 model folder of ``gguf_path`` in the cache
    (:func:`gguf_cache_dir`), converted now (``converted`` True, :func:`convert_gguf`) unless an earlier
    load made it.

    Raises:
        ModelLoadError: the file cannot be read as a GGUF causal language model.
    """
    target = gguf_cache_dir(gguf_path)
    if (target / "config.json").is_file():
        return target, False
    return convert_gguf(gguf_path, target), True
