"""Fail fast on a hub id that cannot load: no network, or the hub switched off, and not in the cache.

Without this, ``from_pretrained`` on an unreachable hub retries each file with back-off (about 75 s per
model) before it reports that the files are not cached. :func:`local_files_only` decides, before any
weights are read, whether a hub id (not a local path) loads from the local Hugging Face cache only, and
raises :class:`~dpsynrag.errors.ModelLoadError` at once when it cannot load at all.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from urllib.parse import urlparse

from dpsynrag.errors import ModelLoadError

__all__ = ["PROBE_TIMEOUT_S", "hub_folder", "hub_offline", "hub_reachable", "in_hub_cache", "local_files_only"]

PROBE_TIMEOUT_S = 3.0
"""Seconds the one connection attempt to the hub may take before the hub counts as unreachable."""

_TRUE = {"1", "ON", "YES", "TRUE"}
_PROXY_VARS = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
_reachable: dict[str, bool] = {}


def hub_offline() -> bool:
    """Whether the environment switches the hub off (``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` is
    1/ON/YES/TRUE), read now (huggingface_hub reads it once, at import)."""
    return any(os.environ.get(v, "").strip().upper() in _TRUE for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def _endpoint() -> str:
    from huggingface_hub import constants

    return os.environ.get("HF_ENDPOINT") or constants.ENDPOINT


def hub_reachable(timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether one TCP connection to the hub's host opens within ``timeout`` seconds (name lookup
    included; asked once per process and endpoint). Behind a proxy (``HTTPS_PROXY``, …) no probe is made
    and the hub counts as reachable: the proxy decides."""
    endpoint = _endpoint()
    if any(os.environ.get(v) for v in _PROXY_VARS):
        return True
    if endpoint not in _reachable:
        url = urlparse(endpoint)
        host, port = url.hostname, url.port or (443 if url.scheme == "https" else 80)
        result: list[bool] = []

        def probe() -> None:
            try:
                socket.create_connection((host, port), timeout=timeout).close()
                result.append(True)
            except OSError:
                result.append(False)

        thread = threading.Thread(target=probe, name="dpsynrag-hub-probe", daemon=True)
        thread.start()
        thread.join(timeout)  # the name lookup is not bounded by the socket timeout: the join is
        _reachable[endpoint] = bool(result and result[0])
    return _reachable[endpoint]


def _cache_dir() -> Path:
    from huggingface_hub import constants

    return Path(os.environ.get("HF_HUB_CACHE") or constants.HF_HUB_CACHE)


def in_hub_cache(repo_id: str) -> bool:
    """Whether the local Hugging Face cache holds a downloaded revision of model ``repo_id``."""
    snapshots = _cache_dir() / ("models--" + repo_id.replace("/", "--")) / "snapshots"
    return snapshots.is_dir() and any(snapshots.iterdir())


def hub_folder(repo_id: str) -> Path | None:
    """The local snapshot folder of ``repo_id``'s cached ``main`` revision (what a load of the hub id read;
    its files are fingerprinted in the manifest), or None when the cache does not hold it. Never uses the
    network."""
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id, local_files_only=True))
    except Exception:  # noqa: BLE001 - not cached, or an id the cache cannot resolve: no fingerprint
        return None


def local_files_only(repo_id: str, *, what: str, flag: str) -> bool:
    """Whether hub id ``repo_id`` must load from the local cache only (``local_files_only=True``).

    True when the hub is off (:func:`hub_offline`) or unreachable (:func:`hub_reachable`) and the cache
    holds the model; False when the hub is reachable (a normal load).

    Args:
        repo_id: a hub id such as ``"Qwen/Qwen2.5-1.5B-Instruct"`` (not a local path).
        what: what it is, for the message ("language model", "embedding model").
        flag: the command-line flag that names it ("--model", "--embedder").

    Raises:
        ModelLoadError: the hub is off or unreachable and the cache does not hold ``repo_id``: it cannot
            load (raised at once, instead of after the download retries).
    """
    cached = in_hub_cache(repo_id)
    if hub_offline():
        why = "HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) is set"
    elif hub_reachable():
        return False
    else:
        why = f"the hub ({_endpoint()}) cannot be reached"
    if cached:
        return True
    raise ModelLoadError(
        f"{what} {repo_id!r} ({flag}) is neither a local path nor in the local Hugging Face cache "
        f"({_cache_dir()}), and {why}. Give a model folder (or a .gguf file), or download it once where the "
        f"hub is reachable (`hf download {repo_id}`)."
    )
