"""Micro-batching of the query service's questions (see :mod:`dpsynrag.serve`): request bounds, the
batch policy, and one batcher per embedding model whose queue is bounded (503 beyond it)."""

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from dpsynrag.errors import ConfigError, DpsynragError


@dataclass(frozen=True)
class ServiceLimits:
    """Bounds on every request (a request outside them gets a 4xx answer before any model runs).

    Attributes:
        max_question_chars: longest question, in characters (422 beyond).
        max_top_k: largest ``top_k`` (422 beyond).
        max_answer_tokens: largest ``max_tokens`` of ``/v1/query`` (422 beyond); default_answer_tokens: when not given.
        max_body_bytes: largest request body, in bytes (413 beyond; 411 without a Content-Length); None: room for
            a question of ``max_question_chars`` characters JSON-escaped at 12 bytes each (``\\ud83d\\ude00``, as
            Python's ``json.dumps`` writes an emoji) plus 4 KiB (:attr:`body_limit`).
        request_timeout_s: seconds a ``/v1/retrieve`` or ``/v1/query`` request may wait for its retrieval (and
            a ``/v1/query`` for the answering model) before it gets 504 (> 0). An answer already being
            generated is not interrupted.
    """

    max_question_chars: int = 2000
    max_top_k: int = 50
    max_answer_tokens: int = 256
    default_answer_tokens: int = 64
    max_body_bytes: int | None = None
    request_timeout_s: float = 30.0

    def __post_init__(self):
        for name in ("max_question_chars", "max_top_k", "max_answer_tokens", "default_answer_tokens", "max_body_bytes"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ConfigError(f"`{name}` (--{name.replace('_', '-')}) must be >= 1. Found {getattr(self, name)}.")
        if self.default_answer_tokens > self.max_answer_tokens:
            raise ConfigError("`default_answer_tokens` must be <= `max_answer_tokens`.")
        if not self.request_timeout_s > 0 or not math.isfinite(self.request_timeout_s):
            raise ConfigError(f"`request_timeout_s` (--request-timeout) must be a finite number > 0. Found {self.request_timeout_s}.")

    @property
    def body_limit(self) -> int:
        """The largest request body accepted, in bytes: ``max_body_bytes``, or 12 × ``max_question_chars`` + 4096."""
        return self.max_body_bytes if self.max_body_bytes is not None else 12 * self.max_question_chars + 4096


@dataclass(frozen=True)
class BatchPolicy:
    """How concurrent questions are micro-batched (public settings: questions are not private).

    Attributes:
        max_batch: most questions per forward pass of the embedder (>= 1; 1: one question per pass, the
            unbatched service).
        max_wait_ms: longest a batch waits for more questions, in milliseconds (>= 0), counted from the
            later of its first question's arrival and the end of the batch before it; a batch closes earlier
            when ``max_batch`` questions wait. Counting from the end of a busy batch keeps concurrent clients
            in one batch: without it, the questions that arrived during a forward pass run at once, alone,
            while the clients just answered send theirs, and the clients stay split in two alternating
            batches (measured: benchmarks/results/bench_serve.md).
        queue_size: most questions waiting for a batch (>= 1); one more gets 503 with ``Retry-After``.
    """

    max_batch: int = 32
    max_wait_ms: float = 5.0
    queue_size: int = 256

    def __post_init__(self):
        for name in ("max_batch", "queue_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"`{name}` (--{name.replace('_', '-')}) must be an integer >= 1. Found {value!r}.")
        if not 0 <= self.max_wait_ms < math.inf:
            raise ConfigError(f"`max_wait_ms` (--max-wait-ms) must be a finite number >= 0. Found {self.max_wait_ms}.")


def check_wait_below_timeout(batching: BatchPolicy, limits: ServiceLimits) -> None:
    """Raises ConfigError if ``batching.max_wait_ms`` is not below ``limits.request_timeout_s``: a question
    arriving alone would wait out its timeout and every lone question would get 504."""
    if batching.max_wait_ms / 1000 >= limits.request_timeout_s:
        raise ConfigError(f"`max_wait_ms` (--max-wait-ms, {batching.max_wait_ms:g}) must be below `request_timeout_s` "
                          f"(--request-timeout, {limits.request_timeout_s:g} s = {limits.request_timeout_s * 1000:g} ms): "
                          f"a question alone would wait out its timeout (504).")


class ServiceUnavailable(DpsynragError):
    """The service cannot take a request now (its queue is full, or it is shutting down): HTTP 503.

    Attributes:
        retry_after: whole seconds after which a retry may succeed (>= 1; the ``Retry-After`` header).
    """

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class MicroBatcher:
    """Calls ``fn`` on batches of items submitted concurrently, from one worker thread.

    A batch opens with the oldest waiting item and closes when ``max_batch`` items wait or ``max_wait_ms``
    after the later of that item's submission and the end of the previous batch, whichever comes first
    (:class:`BatchPolicy`). An item thus waits at most the batch running when it arrived plus
    ``max_wait_ms`` before its own batch starts. Items wait in a bounded FIFO queue; the worker starts on
    the first :meth:`submit`.

    Args:
        fn: ``items -> results``, one result per item, in order. When it raises, every item of the batch
            gets the exception.
        policy: batch size, wait and queue bound.
        name: the worker thread's name.

    Raises:
        ConfigError: a bad policy (from :class:`BatchPolicy`).
    """

    def __init__(self, fn: Callable[[list], Sequence], policy: BatchPolicy = BatchPolicy(), *, name: str = "batcher"):
        self.fn, self.policy, self.name = fn, policy, name
        self._queue: deque[tuple[float, Any, Future]] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._free_since = 0.0  # time.monotonic() at the end of the last batch
        self._batch_s = 0.0  # exponential moving average of a batch's seconds (for Retry-After)

    def __len__(self) -> int:
        """Items waiting for a batch (not counting the batch running, nor cancelled items)."""
        with self._cond:
            return sum(not future.cancelled() for _, _, future in self._queue)

    def retry_after(self) -> int:
        """Whole seconds to drain the queue at the recent pace, at least 1 (``Retry-After``)."""
        batches = math.ceil(len(self._queue) / self.policy.max_batch) + 1
        return max(1, math.ceil(batches * self._batch_s))

    def submit(self, item) -> Future:
        """Queue ``item``; the future gets ``fn``'s result for it (or its exception).

        Cancel the future (``Future.cancel``) to drop an item that no batch has taken yet.

        Raises:
            ServiceUnavailable: the queue holds ``queue_size`` items, or :meth:`close` was called.
        """
        with self._cond:
            if self._closed:
                raise ServiceUnavailable("the service is shutting down.", retry_after=self.retry_after())
            if len(self._queue) >= self.policy.queue_size:  # cancelled items (timed out) free their places
                self._queue = deque(entry for entry in self._queue if not entry[2].cancelled())
            if len(self._queue) >= self.policy.queue_size:
                raise ServiceUnavailable(f"the service is at capacity ({self.policy.queue_size} questions wait); "
                                         "retry later.", retry_after=self.retry_after())
            future: Future = Future()
            self._queue.append((time.monotonic(), item, future))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify()
        return future

    def close(self, timeout: float | None = None) -> bool:
        """Refuse new items, finish every queued one, stop the worker.

        Args:
            timeout: seconds to wait for the queue to drain (None: as long as it takes).

        Returns:
            True when the worker has finished (every queued item answered) within ``timeout``.
        """
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def _next_batch(self) -> list[tuple[Any, Future]] | None:
        """The next batch, up to ``max_batch`` items not cancelled (None: closed and drained)."""
        with self._cond:
            while not self._queue and not self._closed:
                self._cond.wait()
            if not self._queue:
                return None
            deadline = max(self._queue[0][0], self._free_since) + self.policy.max_wait_ms / 1000
            while len(self._queue) < self.policy.max_batch and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            batch = []
            while self._queue and len(batch) < self.policy.max_batch:
                _, item, future = self._queue.popleft()
                if future.set_running_or_notify_cancel():  # False: cancelled (timed out) while waiting
                    batch.append((item, future))
        return batch

    def _run(self) -> None:
        while (batch := self._next_batch()) is not None:
            if not batch:
                continue
            start = time.monotonic()
            try:
                results = list(self.fn([item for item, _ in batch]))
                if len(results) != len(batch):
                    raise RuntimeError(f"{self.name}: {len(results)} results for {len(batch)} items.")
            except Exception as exc:  # noqa: BLE001 - handed to every caller of the batch
                for _, future in batch:
                    future.set_exception(exc)
            else:
                for (_, future), result in zip(batch, results):
                    future.set_result(result)
            self._free_since = time.monotonic()
            elapsed = self._free_since - start
            self._batch_s = 0.8 * self._batch_s + 0.2 * elapsed if self._batch_s else elapsed
