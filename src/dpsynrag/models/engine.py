"""Batched incremental decoding over a key/value cache: the machinery under greedy generation,
YES/NO scoring and private prediction, **batch-invariant**.

A *row* is one sequence being decoded; several rows may continue the same *prompt* (in private
prediction, a document's prompt is continued once per cluster it belongs to).

Batch invariance. The privacy proofs treat a document's keywords, embedding and next-token logits
as a function of that document alone (plus public values). Floating-point kernels round a row
differently depending on the *shapes* they run on (on CPU, a float32 matrix product of 3 rows and
one of 32 rows give different bits for the same row), so :class:`RowBatch` makes every number a row
computes — :attr:`RowBatch.first_logits` and each :meth:`RowBatch.step` — a function of its own
prompt, the tokens fed to it and public constants only:

1. **Public prefix only.** Keys/values are shared between prompts only for a prefix the caller
   declares public (``public_prefix``: the token ids of the chat template and instruction before
   the private text, :meth:`~dpsynrag.models.lm.LanguageModel.public_prefix`), and only for a prompt
   that starts with exactly those ids (checked per prompt). The prefix is computed alone (batch 1)
   and kept for the next batch (:class:`PrefixCache`). Nothing is derived from the private prompts
   jointly (no common prefix of the batch).
2. **One prompt per prefill forward**: ``[1, bucket_width(len(prompt) - len(prefix))]``, left-padded.
3. **Widths from the prompt alone.** A prompt's keys/values are stored left-padded to
   :func:`bucket_width` (its length rounded up to a multiple of ``BUCKET_TOKENS``): the layout
   ``[padding | prompt | generated tokens]``. Padding is masked; explicit positions number the real
   tokens 0, 1, 2, … without gaps.
4. **A fixed row count.** Every decode forward holds exactly ``step_rows`` rows (a public constant,
   :func:`default_step_rows`); the rows of a step are cut into such forwards and the last one is
   completed with dummy rows, whose outputs are discarded.
5. **Fixed attention groups** (shared engine): a stored prompt has a fixed number
   ``rows_per_group`` of query slots (``GROUP_ROWS`` by default); a prompt continued by more rows
   is stored once per group of that many rows.

6. **Row-independent attention kernels.** Decode-step attention is plain matrix products
   (``_attend`` in :mod:`dpsynrag.models.attention`), or torch's math SDPA backend on CPU for the
   fast and generic engines: torch's CPU flash-attention kernel, with several threads, rounds a
   batch entry differently depending on the thread that computes it, i.e. on its position and on
   the batch count (observed on ``[32, 2, 2, 33]`` queries/keys).

What still varies with the batch is which other rows share a tensor, a row's position in it, and
the batch count of the attention over stored prompts; the kernels used compute each row (each
batch entry) on its own, with no reduction across rows. Guaranteed and tested bit for bit in
float32 and bfloat16 on CPU, with and without other documents in the batch, for every engine
(tests/test_batch_invariance.py; ``benchmarks/check_invariance_gpu.py --device cpu`` checks it
with the real default model). On CUDA it is unmeasured — cuBLAS and SDPA may choose kernels by
batch count — and ``benchmarks/check_invariance_gpu.py`` checks it there.

Three engines (``ModelRunner.mode``):

* ``"shared"`` (default for the architectures in ``SHARED_ATTENTION_MODEL_TYPES``): each prompt's
  keys/values are stored once per group, in per-width buckets; a row stores only its generated
  tokens. At a decode step
  :func:`~dpsynrag.models.attention.shared_prompt_attention` attends each stored prompt once with its
  rows' queries stacked, and merges that exactly with each row's attention over its own tokens
  (log-sum-exp merge). Memory: stored prompts × width + rows × T, instead of rows × (width + T).
* ``"fast"``: preallocated per-row buffers (each row holds a copy of its prompt's keys/values),
  rows grouped by width into *tiles* of ``step_rows`` rows, one forward per tile and step. Needs a
  model whose cache layers are plain full-attention ``DynamicLayer``.
* ``"generic"`` (sliding-window or hybrid models, e.g. Gemma-2): tiles as in ``"fast"`` with
  transformers' ``DynamicCache``; each tile is prefilled as one ``[step_rows, width]`` forward (a
  prompt continued by several rows is prefilled once per row; the public prefix is not reused).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
import torch
from transformers import DynamicCache
from transformers.cache_utils import Cache

from dpsynrag.models.attention import (
    Bucket,
    BufferLayer,
    ModelRunner,
    PrefixCache,
    PromptPart,
    SharedPromptContext,
    buffer_cache,
    num_layers,
)

# Public shape constants (see the module docstring). A prompt's stored width is its length rounded up
# to a multiple of BUCKET_TOKENS; a stored prompt has GROUP_ROWS query slots by default.
BUCKET_TOKENS = 32
GROUP_ROWS = 4


def bucket_width(n: int) -> int:
    """The stored width of a prompt of ``n`` tokens: ``n`` rounded up to a multiple of BUCKET_TOKENS."""
    return -(-int(n) // BUCKET_TOKENS) * BUCKET_TOKENS


WIDE_ROWS = 256  # from this many expected rows per batch, CPU decode forwards hold 64 rows


def default_step_rows(device: torch.device, expected_rows: int | None = None) -> int:
    """Rows of every decode forward unless the caller fixes it: 32 on CPU, 128 on an accelerator.

    ``expected_rows``: a *public* estimate of the rows of a batch (e.g. R·k clusters × target size
    in a build; never counted from the data). From ``WIDE_ROWS`` on, CPU forwards hold 64 rows: a
    64-row forward of SmolLM2-135M costs about 0.8 times per row what a 32-row one does (the matrix
    products of 32 rows run well below the machine's rate; issue 16), but the last forward of a batch
    may hold up to 63 dummy rows, which only large batches amortise.
    """
    if device.type != "cpu":
        return 128
    return 64 if expected_rows is not None and expected_rows >= WIDE_ROWS else 32


@dataclass
class _Tile:
    """Up to ``step_rows`` rows of one bucket width decoded by one forward per step (fast and
    generic engines). ``slot_row[j]`` is the row in slot j, -1 for a dummy or dropped slot."""

    width: int
    slot_row: np.ndarray
    mask: torch.Tensor
    pos: torch.Tensor
    length: int
    buffers: tuple[list[torch.Tensor], list[torch.Tensor]] | None = None
    cache: Cache | None = None


def _row_independent_sdpa(device: torch.device):
    """Context for forwards of several rows through the model's own attention (fast and generic
    tiles): on CPU, torch's math SDPA backend, which computes each batch entry alike wherever it
    sits (the CPU flash kernel does not, with several threads; see ``_attend`` in
    :mod:`dpsynrag.models.attention`)."""
    if device.type != "cpu":
        return nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel(SDPBackend.MATH)


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"internal: RowBatch `{name}` must be an integer >= 1. Found {value!r}.")
    return int(value)


class RowBatch:
    """Rows continuing prompts, with their cache; batch-invariant (see the module docstring).

    Args:
        runner: the model runner.
        prompts: distinct prompts as token ids (each non-empty).
        row_prompt: ``[rows]`` index into ``prompts`` of the prompt each row continues.
        max_new_tokens: how many tokens may still be fed to every row by :meth:`step`.
        public_prefix: token ids of a *public* prefix (template and instruction before the private
            part, :meth:`~dpsynrag.models.lm.LanguageModel.public_prefix`); its keys/values are
            computed once and reused by every prompt that starts with exactly these ids and is
            longer. Never pass ids derived from private text.
        step_rows: rows of every decode forward (a public constant; None: :func:`default_step_rows`).
        rows_per_group: query slots per stored prompt in the shared engine (a public constant;
            1 when every prompt has one row, e.g. greedy decoding of distinct prompts).
        on_prefill: called as ``on_prefill(done, total)`` after each prefill forward (one per distinct
            prompt; one per tile in the generic engine): a progress display of the prefill.

    Attributes:
        rows: the number of rows.
        first_logits: FloatTensor ``[rows, model_vocab]`` (float32): next-token logits after each
            row's prompt.
    """

    def __init__(
        self,
        runner: ModelRunner,
        prompts: Sequence[Sequence[int]],
        row_prompt: Sequence[int],
        *,
        max_new_tokens: int,
        public_prefix: Sequence[int] | None = None,
        step_rows: int | None = None,
        rows_per_group: int = GROUP_ROWS,
        on_prefill: Callable[[int, int], object] | None = None,
    ):
        self.runner = runner
        self.rows = len(row_prompt)
        if self.rows == 0:
            raise ValueError("internal: RowBatch needs at least one row.")
        self.step_rows = default_step_rows(runner.device) if step_rows is None else _positive_int("step_rows", step_rows)
        self.groups = _positive_int("rows_per_group", rows_per_group)
        self.capacity_new = int(max_new_tokens)
        self.generated = 0
        self.mode = runner.mode
        prompts = [tuple(int(t) for t in p) for p in prompts]
        src = [int(p) for p in row_prompt]
        if self.mode == "generic":
            self._init_generic(prompts, src, on_prefill)
            return
        prefix = None
        if public_prefix:
            pre = tuple(int(t) for t in public_prefix)
            if any(len(p) > len(pre) and p[: len(pre)] == pre for p in prompts):
                prefix = runner.prefix_kv(pre)
        copy_kv = None  # nothing to store when no token will be fed
        if self.capacity_new > 0:
            copy_kv = (self._plan_shared if self.mode == "shared" else self._plan_tiles)(prompts, src)
        first = None
        distinct = sorted(set(src))
        for done, p in enumerate(distinct, start=1):
            logits, kv = self._prefill_one(prompts[p], prefix)
            first = logits.new_empty((len(prompts), logits.shape[-1])) if first is None else first
            first[p] = logits[0]
            if copy_kv is not None:
                copy_kv(p, kv)
            if on_prefill is not None:
                on_prefill(done, len(distinct))
        if copy_kv is not None and self.mode == "shared":
            self._layout()
        self.first_logits = first.index_select(0, torch.as_tensor(src, device=first.device)).float()

    # -- prefill: one prompt per forward -------------------------------------------------------

    def _prefill_one(self, ids: tuple[int, ...], prefix: PrefixCache | None):
        """Logits ``[1, model_vocab]`` after ``ids`` and its keys/values ``[(k, v)]`` per layer, each
        ``[1, kv_heads, len(ids), dim]``, computed alone: after the public prefix when ``ids`` starts
        with it, the rest left-padded to :func:`bucket_width` (one input shape per bucket, so the
        kernels' set-up for a shape is reused: a shape of its own per prompt length costs more)."""
        dev = self.runner.device
        n = len(ids)
        p = len(prefix.ids) if prefix is not None and n > len(prefix.ids) and ids[: len(prefix.ids)] == prefix.ids else 0
        r = n - p
        wr = bucket_width(r)
        width = p + wr
        if p:
            layers = []
            for k, v in prefix.kv:
                bk = k.new_empty((1, k.shape[1], width, k.shape[3]))
                bv = v.new_empty((1, v.shape[1], width, v.shape[3]))
                bk[:, :, :p] = k
                bv[:, :, :p] = v
                layers.append(BufferLayer(width, bk, bv, p))
        else:
            layers = [BufferLayer(width) for _ in range(num_layers(self.runner.model))]
        cache = buffer_cache(layers)
        tokens = torch.zeros((1, wr), dtype=torch.long)
        mask = torch.zeros((1, width), dtype=torch.long)
        pos = torch.full((1, wr), p, dtype=torch.long)
        tokens[0, wr - r :] = torch.as_tensor(ids[p:])
        mask[0, :p] = 1
        mask[0, width - r :] = 1
        pos[0, wr - r :] = torch.arange(p, n)
        logits = self.runner.forward(tokens.to(dev), mask.to(dev), pos.to(dev), cache)
        keep = lambda x: torch.cat([x[:, :, :p], x[:, :, width - r :]], dim=2)  # noqa: E731 - drop the padding
        return logits, [(keep(layer.buf_k), keep(layer.buf_v)) for layer in cache.layers]

    # -- shared engine --------------------------------------------------------------------------

    def _plan_shared(self, prompts, src):
        """Assign every row a stored prompt (one per ``groups`` rows of a prompt, in buckets by
        width) and a slot; returns the function that copies a prefilled prompt into its stores."""
        dev = self.runner.device
        g = self.groups
        rows_of: list[list[int]] = [[] for _ in prompts]
        for r, p in enumerate(src):
            rows_of[p].append(r)
        widths = sorted({bucket_width(len(prompts[p])) for p in set(src)})
        index = {w: b for b, w in enumerate(widths)}
        count = [0] * len(widths)
        stores: list[list[tuple[int, int]]] = [[] for _ in prompts]
        self._row_bucket = np.zeros(self.rows, dtype=np.int64)
        self._row_stored = np.zeros(self.rows, dtype=np.int64)
        self._row_slot = np.zeros(self.rows, dtype=np.int64)
        for p, rows in enumerate(rows_of):
            b = index.get(bucket_width(len(prompts[p])))
            for i in range(0, len(rows), g):
                stores[p].append((b, count[b]))
                for s, r in enumerate(rows[i : i + g]):
                    self._row_bucket[r], self._row_stored[r], self._row_slot[r] = b, count[b], s
                count[b] += 1
        self.next_pos = torch.as_tensor([len(prompts[p]) for p in src], dtype=torch.long, device=dev)
        self._buckets: list[Bucket] = []

        def copy_kv(p: int, kv) -> None:
            if not self._buckets:
                for w, c in zip(widths, count):
                    keys = [k.new_zeros((c, k.shape[1], w, k.shape[3])) for k, _ in kv]
                    values = [v.new_zeros((c, v.shape[1], w, v.shape[3])) for _, v in kv]
                    self._buckets.append(Bucket(w, keys, values, torch.zeros((c, w), dtype=torch.bool, device=dev)))
            n = len(prompts[p])
            for b, i in stores[p]:
                bucket = self._buckets[b]
                for layer, (k, v) in enumerate(kv):
                    bucket.keys[layer][i, :, bucket.width - n :] = k[0]
                    bucket.values[layer][i, :, bucket.width - n :] = v[0]
                bucket.padding[i, : bucket.width - n] = True

        self._suffix: tuple[list[torch.Tensor], list[torch.Tensor]] | None = None
        return copy_kv

    def _layout(self) -> None:
        """Order the rows by (bucket, stored prompt, slot) and cut them into forwards of
        ``step_rows`` rows, the last one completed with dummy rows (shared engine)."""
        dev = self.runner.device
        self._order = np.lexsort((self._row_slot, self._row_stored, self._row_bucket))  # physical -> row
        self._chunks: list[list[PromptPart]] = []
        for c in range(0, self.rows, self.step_rows):
            sel = self._order[c : c + self.step_rows]
            parts = []
            for b in np.unique(self._row_bucket[sel]):
                local = np.flatnonzero(self._row_bucket[sel] == b)
                stored = self._row_stored[sel[local]]
                lo, hi = int(stored.min()), int(stored.max()) + 1
                slots = (stored - lo) * self.groups + self._row_slot[sel[local]]
                parts.append(PromptPart(self._buckets[int(b)], lo, hi, torch.as_tensor(local, device=dev),
                                         torch.as_tensor(slots, device=dev)))
            self._chunks.append(parts)
        self._order_t = torch.as_tensor(self._order, dtype=torch.long, device=dev)

    def _step_shared(self, tokens: torch.Tensor) -> torch.Tensor:
        if self.generated >= self.capacity_new:
            raise RuntimeError(f"internal: more than {self.capacity_new} tokens fed to a RowBatch.")
        dev, R = self.runner.device, self.step_rows
        n_phys = len(self._chunks) * R
        first_k = self._buckets[0].keys
        if self._suffix is None:
            shape = lambda x: (n_phys, x.shape[1], self.capacity_new, x.shape[3])  # noqa: E731
            self._suffix = ([k.new_zeros(shape(k)) for k in first_k],
                            [v.new_zeros(shape(v)) for v in self._buckets[0].values])
        sk, sv = self._suffix
        ids = torch.zeros(n_phys, dtype=torch.long, device=dev)
        pos = torch.zeros(n_phys, dtype=torch.long, device=dev)
        ids[: self.rows] = tokens[self._order_t]
        pos[: self.rows] = self.next_pos[self._order_t]
        total = max(b.width for b in self._buckets) + self.generated + 1
        out = None
        for c, parts in enumerate(self._chunks):
            s = slice(c * R, (c + 1) * R)
            cache = buffer_cache([BufferLayer(self.capacity_new, k[s], v[s], self.generated) for k, v in zip(sk, sv)])
            ctx = SharedPromptContext(parts, self.groups, total_length=total)
            logits = self.runner.forward(ids[s, None], None, pos[s, None], cache, dpsynrag_ctx=ctx)
            out = logits.new_empty((self.rows, logits.shape[-1])) if out is None else out
            real = min(R, self.rows - c * R)
            out[self._order_t[c * R : c * R + real]] = logits[:real]
        self.generated += 1
        self.next_pos = self.next_pos + 1
        return out.float()

    # -- fast and generic engines: tiles --------------------------------------------------------

    def _tiles_of(self, prompts, src) -> list[tuple[int, list[int]]]:
        """Rows grouped by bucket width, in tiles of at most ``step_rows`` rows: ``(width, rows)``."""
        by_width: dict[int, list[int]] = {}
        for r in sorted(range(self.rows), key=lambda r: (src[r], r)):
            by_width.setdefault(bucket_width(len(prompts[src[r]])), []).append(r)
        R = self.step_rows
        return [(w, by_width[w][i : i + R]) for w in sorted(by_width) for i in range(0, len(by_width[w]), R)]

    def _plan_tiles(self, prompts, src):
        """Fast engine: per-row buffers ``[step_rows, kv_heads, width + max_new_tokens, dim]`` per
        tile; returns the function that copies a prefilled prompt into the slots of its rows."""
        dev, R = self.runner.device, self.step_rows
        self._tiles: list[_Tile] = []
        self._where: list[tuple[int, int]] = [(0, 0)] * self.rows
        slots_of: list[list[tuple[int, int]]] = [[] for _ in prompts]
        for t, (w, rows) in enumerate(self._tiles_of(prompts, src)):
            slot_row = np.full(R, -1, dtype=np.int64)
            pos = torch.zeros(R, dtype=torch.long, device=dev)
            for j, r in enumerate(rows):
                slot_row[j] = r
                self._where[r] = (t, j)
                slots_of[src[r]].append((t, j))
                pos[j] = len(prompts[src[r]])
            mask = torch.zeros((R, w + self.capacity_new), dtype=torch.long, device=dev)
            self._tiles.append(_Tile(w, slot_row, mask, pos, w))

        def copy_kv(p: int, kv) -> None:
            n = len(prompts[p])
            for t, j in slots_of[p]:
                tile = self._tiles[t]
                if tile.buffers is None:
                    cap = tile.width + self.capacity_new
                    tile.buffers = ([k.new_zeros((R, k.shape[1], cap, k.shape[3])) for k, _ in kv],
                                    [v.new_zeros((R, v.shape[1], cap, v.shape[3])) for _, v in kv])
                for layer, (k, v) in enumerate(kv):
                    tile.buffers[0][layer][j, :, tile.width - n : tile.width] = k[0]
                    tile.buffers[1][layer][j, :, tile.width - n : tile.width] = v[0]
                tile.mask[j, tile.width - n : tile.width] = 1

        return copy_kv

    def _init_generic(self, prompts, src, on_prefill=None) -> None:
        """Generic engine: each tile prefilled as one ``[step_rows, width]`` forward into a
        ``DynamicCache`` (left padding; a dummy slot holds one token)."""
        dev, R = self.runner.device, self.step_rows
        self._tiles = []
        self._where = [(0, 0)] * self.rows
        first = None
        tiles = self._tiles_of(prompts, src)
        for t, (w, rows) in enumerate(tiles):
            ids = torch.zeros((R, w), dtype=torch.long)
            mask = torch.zeros((R, w), dtype=torch.long)
            pos = torch.zeros((R, w), dtype=torch.long)
            mask[:, -1] = 1
            slot_row = np.full(R, -1, dtype=np.int64)
            for j, r in enumerate(rows):
                p = prompts[src[r]]
                ids[j, w - len(p) :] = torch.as_tensor(p)
                mask[j, w - len(p) :] = 1
                pos[j, w - len(p) :] = torch.arange(len(p))
                slot_row[j] = r
                self._where[r] = (t, j)
            cache = DynamicCache(config=self.runner.model.config)
            with _row_independent_sdpa(dev):
                logits = self.runner.forward(ids.to(dev), mask.to(dev), pos.to(dev), cache)
            first = logits.new_empty((self.rows, logits.shape[-1])) if first is None else first
            first[torch.as_tensor(rows, device=dev)] = logits[: len(rows)]
            self._tiles.append(_Tile(w, slot_row, mask.to(dev), pos[:, -1].to(dev) + 1, w, cache=cache))
            if on_prefill is not None:
                on_prefill(t + 1, len(tiles))
        self.first_logits = first.float()

    def _step_tiles(self, tokens: torch.Tensor) -> torch.Tensor:
        if self.mode == "fast" and self.generated >= self.capacity_new:
            raise RuntimeError(f"internal: more than {self.capacity_new} tokens fed to a RowBatch.")
        dev, R = self.runner.device, self.step_rows
        out = None
        for tile in self._tiles:
            live = np.flatnonzero(tile.slot_row >= 0)
            live_t = torch.as_tensor(live, device=dev)
            rows_t = torch.as_tensor(tile.slot_row[live], device=dev)
            ids = torch.zeros((R, 1), dtype=torch.long, device=dev)
            ids[live_t, 0] = tokens[rows_t]
            if tile.cache is None:  # fast: preallocated buffers
                tile.mask[:, tile.length] = 1
                mask = tile.mask[:, : tile.length + 1]
                cap = tile.width + self.capacity_new
                cache = buffer_cache([BufferLayer(cap, k, v, tile.length) for k, v in zip(*tile.buffers)])
            else:
                tile.mask = torch.cat([tile.mask, tile.mask.new_ones((R, 1))], dim=1)
                mask, cache = tile.mask, tile.cache
            with _row_independent_sdpa(dev):
                logits = self.runner.forward(ids, mask, tile.pos[:, None], cache)
            tile.length += 1
            tile.pos = tile.pos + 1
            out = logits.new_empty((self.rows, logits.shape[-1])) if out is None else out
            out[rows_t] = logits.index_select(0, live_t)
        self.generated += 1
        return out.float()

    # -- decoding -------------------------------------------------------------------------------

    def step(self, tokens: torch.Tensor) -> torch.Tensor:
        """Feed one token per row; returns the next-token logits ``[rows, model_vocab]`` (float32)."""
        tokens = tokens.to(device=self.runner.device, dtype=torch.long).reshape(-1)
        if self.mode == "shared":
            return self._step_shared(tokens)
        return self._step_tiles(tokens)

    def keep(self, rows: torch.Tensor) -> None:
        """Keep only ``rows`` (LongTensor of row indices, in the new order); the others are dropped."""
        idx = rows.cpu().numpy().astype(np.int64).reshape(-1)
        if self.mode == "shared":
            physical = np.empty(self.rows, dtype=np.int64)
            physical[self._order] = np.arange(self.rows)
            self._row_bucket, self._row_stored, self._row_slot = (
                self._row_bucket[idx], self._row_stored[idx], self._row_slot[idx])
            self.next_pos = self.next_pos.index_select(0, torch.as_tensor(idx, device=self.runner.device))
            self.rows = len(idx)
            self._layout()
            if self._suffix is not None:
                src = np.zeros(len(self._chunks) * self.step_rows, dtype=np.int64)
                src[: self.rows] = physical[idx][self._order]
                src_t = torch.as_tensor(src, device=self.runner.device)
                sk, sv = self._suffix
                self._suffix = ([k.index_select(0, src_t) for k in sk], [v.index_select(0, src_t) for v in sv])
            return
        where = [self._where[int(r)] for r in idx]
        for tile in self._tiles:
            tile.slot_row[:] = -1
        for r, (t, j) in enumerate(where):
            self._tiles[t].slot_row[j] = r
        alive = [t for t, tile in enumerate(self._tiles) if (tile.slot_row >= 0).any()]
        renumber = {t: i for i, t in enumerate(alive)}
        self._tiles = [self._tiles[t] for t in alive]
        self._where = [(renumber[t], j) for t, j in where]
        self.rows = len(idx)
