"""The private prediction of a build (METHOD.md §2d) on a Ray cluster (``dpsynrag build --ray``).

What runs where:

* the driver (the ``dpsynrag build`` process) reads the data, extracts keywords, draws every DP
  release before private prediction (keyword histogram, noisy embedding sums, thresholds), pays
  for the clusters, and writes the corpus;
* each Ray worker is one actor holding one model (loaded from ``BuildConfig.model``: a path every
  node can read, a hub id in its cache, or the offline default; one GPU per actor where the cluster
  has GPUs) and runs private prediction for the chunks of clusters it is sent.

Why the result does not depend on the cluster: a cluster's next-token logits are a function of its
members' prompts alone (the batch-invariant engine, :mod:`dpsynrag.models.engine`), and its
tokens are drawn from its own named stream (``sampling.child(f"cluster-{r}")``, T uniforms each),
whichever worker or batch it lands in. A seeded build therefore writes the same texts on one
process or N workers — given the same model files, dtype, hardware kind and per-process thread
count (floating-point kernels may round differently with another thread count or another GPU).

Accounting: each task receives copies of its clusters' branch accountants (with the budget left to
each), charges them before every draw exactly as the single-process decoder does, and returns
their ledgers; the driver composes the new entries onto its own branch accountants before anything
is written. Private prompts travel to the workers: the Ray cluster must sit inside the data
owner's trust boundary, as the single machine does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.rng import RandomSource


@dataclass(frozen=True)
class RayOptions:
    """Where and how wide private prediction runs on Ray.

    Attributes:
        address: a running cluster (``ray://host:10001``, ``host:6379`` or ``"auto"``); None starts
            a local cluster for the build and stops it afterwards (``--ray``; ``--ray-address``).
        workers: model actors; None: one per GPU of the cluster, else one per ``threads`` CPUs
            (``--ray-workers``).
        threads: CPUs (torch threads) per actor on CPU (``--threads``; default 1).
        chunks_per_worker: clusters are sent in about ``workers × chunks_per_worker`` tasks.
    """

    address: str | None = None
    workers: int | None = None
    threads: int | None = None
    chunks_per_worker: int = 4

    def __post_init__(self):
        for flag, value in (("--ray-workers", self.workers), ("--threads", self.threads),
                            ("chunks_per_worker", self.chunks_per_worker)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigError(f"{flag} must be an integer >= 1. Found {value!r}.")


class _PredictionWorker:
    """One Ray actor: one model, private prediction of the clusters it is sent."""

    def __init__(self, model: str | None):
        from dpsynrag.models import LanguageModel

        self.lm = LanguageModel.load(model)

    def describe(self) -> tuple[str, int, str]:
        return self.lm.name, self.lm.vocab_size, str(self.lm.device)

    def generate(self, decoder_args: dict, clusters, accountants, streams, public_prompts):
        from dpsynrag.models import PrivatePredictionDecoder

        decoder = PrivatePredictionDecoder(self.lm, **decoder_args)
        ids = decoder.generate_ids(clusters, accountants, streams=streams, public_prompts=public_prompts)
        return ids, [acc.ledger for acc in accountants]


def _import_ray():
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(
            "--ray / --ray-address need the optional dependency Ray: pip install 'dpsynrag[ray]'."
        ) from exc
    return ray


def ray_generate_ids(
    options: RayOptions,
    model: str | None,
    expected: tuple[str, int],
    decoder_args: dict,
    clusters: Sequence[Sequence[str]],
    accountants: Sequence[ZCDPAccountant],
    streams: Sequence[RandomSource],
    *,
    public_prompts: Sequence[str] | None = None,
    progress: bool = False,
) -> list[list[int]]:
    """Token ids of every cluster, computed by Ray actors; charges ``accountants`` on the driver.

    Args:
        options: the cluster and its width.
        model: what each actor loads (``BuildConfig.model``; None: the offline default).
        expected: (name, vocabulary size) of the driver's model; the actors' must match.
        decoder_args: keyword arguments of :class:`~dpsynrag.models.PrivatePredictionDecoder` (all
            but the model; picklable: rendered prompts and token ids, not the model).
        clusters, accountants, streams: as :meth:`~dpsynrag.models.PrivatePredictionDecoder.generate`
            (``streams`` required: one named stream per cluster).
        public_prompts: each cluster's own rendered public prompt, as in ``generate``; None: the
            decoder's ``public_prompt``.
        progress: a progress bar over tasks.

    Returns:
        ``len(clusters)`` lists of token ids (EOS excluded).

    Raises:
        ConfigError: Ray missing, a bad option, or actors that load another model than the driver.
        PrivacyBudgetExceededError: a cluster cannot pay a token (from the worker, or on the driver).
    """
    ray = _import_ray()
    if len(accountants) != len(clusters) or len(streams) != len(clusters):
        raise ConfigError("internal: one accountant and one stream per cluster are needed.")
    started = False
    if not ray.is_initialized():
        try:
            if options.address is None:
                from dpsynrag.threads import available_cores

                cpus = max(available_cores(), (options.workers or 0) * (options.threads or 1))
                ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=options.address, log_to_driver=False)
        except Exception as exc:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ValueError, ...
            where = "a local Ray cluster (--ray)" if options.address is None else f"Ray at {options.address!r} (--ray-address)"
            raise ConfigError(f"could not start or reach {where}: {type(exc).__name__}: {exc}") from exc
        started = True
    try:
        resources = ray.cluster_resources()
        gpus = int(resources.get("GPU", 0))
        threads = options.threads or 1
        cpus = int(resources.get("CPU", 1))
        workers = options.workers or (gpus if gpus else max(1, cpus // threads))
        if workers * (0 if gpus else threads) > cpus or (gpus and workers > gpus):
            have = f"{gpus} GPUs" if gpus else f"{cpus} CPUs"
            raise ConfigError(f"--ray-workers {workers} (x --threads {threads} CPUs) does not fit the Ray cluster ({have}).")
        actor_cls = ray.remote(num_cpus=threads, num_gpus=1 if gpus else 0)(_PredictionWorker)
        actors = [actor_cls.remote(model) for _ in range(workers)]
        for name, vocab, _ in ray.get([a.describe.remote() for a in actors]):
            if (name, vocab) != tuple(expected):
                raise ConfigError(
                    f"the Ray workers loaded the model {name!r} ({vocab} tokens) but the build uses "
                    f"{expected[0]!r} ({expected[1]} tokens): pass the model as --model (a path every node can read)."
                )
        n = len(clusters)
        size = max(1, math.ceil(n / (workers * options.chunks_per_worker)))
        chunks = [list(range(lo, min(n, lo + size))) for lo in range(0, n, size)]
        pending = {}
        for c, chunk in enumerate(chunks):
            actor = actors[c % workers]
            ref = actor.generate.remote(decoder_args, [clusters[r] for r in chunk], [accountants[r] for r in chunk],
                                        [streams[r] for r in chunk],
                                        None if public_prompts is None else [public_prompts[r] for r in chunk])
            pending[ref] = chunk
        out: list[list[int]] = [[] for _ in clusters]
        bar = None
        if progress:
            try:
                from tqdm.auto import tqdm

                bar = tqdm(total=len(chunks), desc="private prediction on Ray (tasks)")
            except ImportError:  # pragma: no cover
                bar = None
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                chunk = pending.pop(done[0])
                try:
                    ids, ledgers = ray.get(done[0])
                except ray.exceptions.RayTaskError as exc:
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, DpsynragError):
                        raise cause from None
                    raise
                for r, t, ledger in zip(chunk, ids, ledgers):
                    acc = accountants[r]
                    for entry in ledger[len(acc.ledger):]:
                        acc.compose(entry.event)  # the worker's spend, charged on the driver's ledger
                    out[r] = t
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
        return out
    finally:
        if started:
            ray.shutdown()
