"""The private prediction of a build (METHOD.md §2d) on a Ray cluster (``dpsynrag build --ray``).

What runs where:

* the driver (the ``dpsynrag build`` process) reads the data, draws every DP release
  before private prediction (keyword histogram, noisy embedding sums, thresholds), pays for the
  clusters, and writes the corpus (the redaction and cut of the reading pass, keywords and embeddings
  run on Ray too: :mod:`dpsynrag.pipeline.ray_stages`);
* each Ray worker is one actor holding one model (loaded from ``BuildConfig.model``: a path every
  node can read, a hub id in its cache, or the offline default; on the driver's device kind and in
  its dtype, one GPU per actor when the driver's model is on CUDA) and runs private prediction for the
  tasks of clusters it is sent. Before any task, each worker's model is checked against the
  driver's (:func:`model_identity`: name, vocabulary, device kind, dtype and the SHA-256 of its files,
  the manifest's ``model.sha256``).

Tasks (:func:`plan_tasks`): consecutive clusters whose member rows fill whole decode forwards
(``step_rows``), about ``chunks_per_worker`` per worker. Each finished task is handed back at once
(:func:`ray_prediction_tasks` yields it), so the build checkpoints it before the next one arrives. A lost
worker loses only its unfinished tasks: they run again on the live workers (nothing of them had reached
the driver: no text, no charge), and when no worker is left the build stops and ``--resume`` runs them.

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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
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


def model_identity(lm) -> dict:
    """What a Ray worker's model must share with the driver's: ``{"name", "vocab_size", "device"
    (the device kind: "cpu", "cuda", ...), "dtype" (e.g. "torch.float32"), "sha256" ({file name: hex
    SHA-256} of the files it was loaded from, as the manifest's ``model.sha256``; ``{}`` when its source
    is unknown)}``.

    Raises:
        OSError: a model file cannot be read.
    """
    from dpsynrag.models.gguf import model_file_hashes

    source = getattr(lm, "source", None)
    dtype = getattr(getattr(lm, "model", None), "dtype", None)
    return {"name": lm.name, "vocab_size": int(lm.vocab_size), "device": lm.device.type, "dtype": str(dtype),
            "sha256": model_file_hashes(source) if source is not None else {}}


def identity_mismatch(worker: dict, driver: dict) -> str | None:
    """The first field of :func:`model_identity` where ``worker`` differs from ``driver``, described
    (file hashes: the differing file names only); None when they agree."""
    for key in ("name", "vocab_size", "device", "dtype", "sha256"):
        if worker.get(key) != driver.get(key):
            if key == "sha256":
                a, b = worker.get(key) or {}, driver.get(key) or {}
                files = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
                return f"model files differ (SHA-256 of {', '.join(files)})"
            return f"{key} {worker.get(key)!r} where the driver has {driver.get(key)!r}"
    return None


def plan_tasks(rows: Sequence[int], *, tasks: int, step_rows: int) -> list[list[int]]:
    """Split clusters into Ray tasks of consecutive clusters whose rows fill whole decode forwards.

    Each task gathers clusters in order until its rows reach the target ``ceil(sum(rows) / tasks)``
    rounded up to a multiple of ``step_rows`` (at least ``step_rows``), so that only a task's last
    forward may hold dummy rows. Public sizes only (the caller passes member counts, which the
    decoder's batching sees anyway; nothing released depends on the split: the batch-invariant engine).

    Args:
        rows: ``[n_clusters]`` decode rows of each cluster (its members, plus its public row if any).
        tasks: the number of tasks wanted (e.g. workers × chunks per worker), >= 1.
        step_rows: rows of one decode forward, >= 1.

    Returns:
        Lists of cluster indices, in order, covering ``range(len(rows))`` once; at most ``tasks`` of them
        when no cluster alone exceeds the target.

    Raises:
        ConfigError: ``tasks`` or ``step_rows`` < 1, or a negative row count.
    """
    if tasks < 1 or step_rows < 1 or any(r < 0 for r in rows):
        raise ConfigError(f"plan_tasks: tasks and step_rows must be >= 1 and rows >= 0. Found {tasks}, {step_rows}.")
    target = max(1, math.ceil(math.ceil(sum(rows) / tasks) / step_rows)) * step_rows
    out: list[list[int]] = []
    current: list[int] = []
    filled = 0
    for r, n in enumerate(rows):
        current.append(r)
        filled += n
        if filled >= target:
            out.append(current)
            current, filled = [], 0
    if current:
        out.append(current)
    return out


class _PredictionWorker:
    """One Ray actor: one model, private prediction of the clusters it is sent."""

    def __init__(self, model: str | None, device: str, dtype: str):
        from dpsynrag.models import LanguageModel

        self.lm = LanguageModel.load(model, device=device, dtype=dtype.removeprefix("torch."))

    def describe(self) -> dict:
        return model_identity(self.lm)

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


@contextmanager
def ray_session(options: RayOptions):
    """Ray, initialised for the block: a local cluster started for it and stopped after it when
    ``options.address`` is None (at least ``workers × threads`` CPUs), else the running cluster at
    ``options.address``; a Ray already initialised in this process is used as it is and left running.

    Raises:
        ConfigError: Ray missing, or the cluster cannot be started or reached.
    """
    ray = _import_ray()
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
        yield ray
    finally:
        if started:
            ray.shutdown()


def ray_prediction_tasks(
    options: RayOptions,
    model: str | None,
    expected: dict,
    decoder_args: dict,
    clusters: Sequence[Sequence[str]],
    accountants: Sequence[ZCDPAccountant],
    streams: Sequence[RandomSource],
    *,
    public_prompts: Sequence[str] | None = None,
    progress: bool = False,
) -> Iterator[tuple[list[int], list[list[int]]]]:
    """Private prediction of every cluster on Ray actors, one finished task at a time; charges
    ``accountants`` on the driver as each task comes back.

    Args:
        options: the cluster and its width.
        model: what each actor loads (``BuildConfig.model``; None: the offline default), on
            ``expected["device"]`` in ``expected["dtype"]``.
        expected: :func:`model_identity` of the driver's model; every actor's must be equal.
        decoder_args: keyword arguments of :class:`~dpsynrag.models.PrivatePredictionDecoder` (all
            but the model; picklable: rendered prompts and token ids, not the model); its
            ``step_rows`` sizes the tasks (:func:`plan_tasks`).
        clusters, accountants, streams: as :meth:`~dpsynrag.models.PrivatePredictionDecoder.generate`
            (``streams`` required: one named stream per cluster).
        public_prompts: each cluster's own rendered public prompt, as in ``generate``; None: the
            decoder's ``public_prompt``.
        progress: a progress bar over tasks.

    Yields:
        (positions in ``clusters``, their token ids, EOS excluded), in the order tasks finish, each
        after its clusters' accountants were charged with the worker's spend. A caller that stops
        iterating cancels nothing already charged; the tasks not yet handed back were never released.

    Raises:
        ConfigError: Ray missing, a bad option, actors whose model differs from the driver's, or every
            worker lost.
        PrivacyBudgetExceededError: a cluster cannot pay a token (from the worker, or on the driver).
    """
    if len(accountants) != len(clusters) or len(streams) != len(clusters):
        raise ConfigError("internal: one accountant and one stream per cluster are needed.")
    with ray_session(options) as ray:
        resources = ray.cluster_resources()
        on_gpu = expected["device"] != "cpu"
        gpus = int(resources.get("GPU", 0)) if on_gpu else 0
        threads = options.threads or 1
        cpus = int(resources.get("CPU", 1))
        workers = options.workers or (gpus if on_gpu else max(1, cpus // threads))
        if (on_gpu and workers > gpus) or (not on_gpu and workers * threads > cpus):
            have = f"{gpus} GPUs" if on_gpu else f"{cpus} CPUs"
            raise ConfigError(f"--ray-workers {workers} (x --threads {threads} CPUs) does not fit the Ray cluster ({have}).")
        actor_cls = ray.remote(num_cpus=0 if on_gpu else threads, num_gpus=1 if on_gpu else 0)(_PredictionWorker)
        actors = [actor_cls.remote(model, expected["device"], expected["dtype"]) for _ in range(workers)]
        for identity in ray.get([a.describe.remote() for a in actors]):
            wrong = identity_mismatch(identity, expected)
            if wrong is not None:
                raise ConfigError(
                    f"a Ray worker loaded another model than the driver's {expected['name']!r}: {wrong}. Pass the "
                    "model as --model (a path every node can read, holding the same files)."
                )
        public_rows = 1 if decoder_args.get("public_prompt") or public_prompts is not None else 0
        chunks = plan_tasks([len(c) + public_rows for c in clusters], tasks=workers * options.chunks_per_worker,
                            step_rows=decoder_args.get("step_rows") or 1)
        live = list(actors)
        pending = {}

        def submit(chunk: list[int], actor) -> None:
            # the driver's accountants and streams as they are now (uncharged, unconsumed for these clusters)
            ref = actor.generate.remote(decoder_args, [clusters[r] for r in chunk], [accountants[r] for r in chunk],
                                        [streams[r] for r in chunk],
                                        None if public_prompts is None else [public_prompts[r] for r in chunk])
            pending[ref] = (chunk, actor)

        for c, chunk in enumerate(chunks):
            submit(chunk, actors[c % workers])
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
                chunk, actor = pending.pop(done[0])
                try:
                    ids, ledgers = ray.get(done[0])
                except ray.exceptions.RayActorError:
                    # a lost worker: nothing of this task reached the driver (no text, no charge, nothing
                    # written), as for a task cut short by a kill before its checkpoint; it runs again on a
                    # live worker, from the driver's uncharged accountants and unconsumed streams
                    if actor in live:
                        live.remove(actor)
                    if not live:
                        raise ConfigError("every Ray worker was lost during private prediction; the finished "
                                          "tasks are checkpointed: continue with --resume.") from None
                    submit(chunk, live[len(pending) % len(live)])
                    continue
                except ray.exceptions.RayTaskError as exc:
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, DpsynragError):
                        raise cause from None
                    raise
                for r, ledger in zip(chunk, ledgers):
                    acc = accountants[r]
                    for entry in ledger[len(acc.ledger):]:
                        acc.compose(entry.event)  # the worker's spend, charged on the driver's ledger
                if bar is not None:
                    bar.update(1)
                yield chunk, ids
        finally:
            if bar is not None:
                bar.close()
