"""How many CPU threads torch uses: chosen from the cores actually free to this process.

torch's default is one thread per core of the machine. When another process keeps one of them busy,
the team of threads waits on the descheduled one at every operation: on a 2-core machine with one
core busy, a SmolLM2-135M forward took 1.92 s with 2 threads and 0.087 s with 1 (issue 16). The
build therefore picks, once, when the first model is loaded (:func:`configure_threads`):

1. ``--threads N`` (``dpsynrag build``; ``configure_threads(N)``), else
2. the ``DPSYNRAG_THREADS`` environment variable, else
3. ``OMP_NUM_THREADS`` when it is set (torch already honours it; Ray sets it in its workers), else
4. the cores this process may run on (``os.sched_getaffinity``: a container or ``taskset`` limit)
   minus the cores other processes keep busy right now (the runnable count of ``/proc/loadavg``,
   the least of a few samples, minus this process's own thread), at least 1.

The command line also sets ``OMP_WAIT_POLICY=PASSIVE`` (unless already set) before torch is
imported, so OpenMP threads sleep rather than spin while they wait (:func:`passive_wait`).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping

from dpsynrag.errors import ConfigError

log = logging.getLogger(__name__)

ENV_VAR = "DPSYNRAG_THREADS"

_configured: int | None = None


def _positive_int(value, source: str) -> int:
    try:
        n = int(str(value).strip())
    except ValueError:
        n = 0
    if isinstance(value, bool) or n < 1:
        raise ConfigError(f"{source} must be an integer >= 1. Found {value!r}.")
    return n


def choose_threads(cores: int, *, busy: int = 0, env: Mapping[str, str] | None = None,
                   override: int | None = None) -> int:
    """The number of torch threads (a pure function; see the module docstring for the order).

    Args:
        cores: cores this process may run on (``len(os.sched_getaffinity(0))``), >= 1.
        busy: cores other processes keep busy (>= 0); ignored when ``override`` or the environment
            decides.
        env: the environment (``os.environ``); reads ``DPSYNRAG_THREADS`` and ``OMP_NUM_THREADS``.
        override: ``--threads``; None when not given.

    Returns:
        An integer >= 1; never more than ``cores`` unless asked for explicitly.

    Raises:
        ConfigError: ``override`` or ``DPSYNRAG_THREADS`` is not an integer >= 1 (the message names
            ``--threads`` or the variable).
    """
    env = {} if env is None else env
    if override is not None:
        return _positive_int(override, "--threads (threads=)")
    if env.get(ENV_VAR, "").strip():
        return _positive_int(env[ENV_VAR], f"the environment variable {ENV_VAR}")
    omp = env.get("OMP_NUM_THREADS", "").strip()
    if omp.isdigit() and int(omp) >= 1:
        return int(omp)
    cores = max(1, int(cores))
    return max(1, cores - max(0, int(busy)))


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity; ``os.cpu_count()`` where affinity is unknown)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def busy_cores(samples: int = 5, interval_s: float = 0.02) -> int:
    """Cores other processes keep busy now: the least, over ``samples`` reads of ``/proc/loadavg``,
    of its runnable-entity count minus one (the reading thread). 0 where the file is missing.

    A process that keeps a core busy is runnable at every read; a short-lived one rarely at all of
    them, so the least of several reads counts steady load only.
    """
    least = None
    for i in range(samples):
        try:
            with open("/proc/loadavg", encoding="ascii") as f:
                running = int(f.read().split()[3].split("/")[0])
        except (OSError, ValueError, IndexError):
            return 0
        least = running - 1 if least is None else min(least, running - 1)
        if i + 1 < samples:
            time.sleep(interval_s)
    return max(0, least or 0)


def configure_threads(override: int | None = None) -> int:
    """Set torch's intra-op thread count once per process (:func:`choose_threads`); returns it.

    Called by :meth:`~dpsynrag.models.LanguageModel.load` and :meth:`~dpsynrag.models.Embedder.load`,
    and by ``dpsynrag build --threads``. A later call without ``override`` keeps the first choice; an
    ``override`` always applies.

    Raises:
        ConfigError: as :func:`choose_threads`.
    """
    global _configured
    if _configured is not None and override is None:
        return _configured
    import torch

    cores = available_cores()
    decided_elsewhere = override is not None or os.environ.get(ENV_VAR, "").strip() or os.environ.get("OMP_NUM_THREADS")
    busy = 0 if decided_elsewhere else busy_cores()
    n = choose_threads(cores, busy=busy, env=os.environ, override=override)
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
    log.info("torch threads: %d (cores available to the process: %d, busy elsewhere: %d)", n, cores, busy)
    _configured = n
    return n


def passive_wait(env: dict | None = None) -> None:
    """Make OpenMP threads sleep, not spin, while waiting (``OMP_WAIT_POLICY=PASSIVE`` unless set).

    Takes effect only when called before torch (its OpenMP runtime) is loaded: the command line
    calls it first thing.
    """
    (os.environ if env is None else env).setdefault("OMP_WAIT_POLICY", "PASSIVE")
