"""Batched incremental decoding over a key/value cache: the machinery under greedy generation,
YES/NO scoring and private prediction.

A *row* is one sequence being decoded; several rows may continue the same *prompt* (in private
prediction, a document's prompt is continued once per cluster it belongs to). :class:`RowBatch`

1. finds the longest token prefix shared by all prompts (the chat template and instruction) and
   computes its keys/values once (kept for the next batch: :class:`PrefixCache`);
2. prefills each *distinct* prompt once, in chunks, after that prefix;
3. runs one forward pass per step for all rows (:meth:`RowBatch.step`).

Layout of a prompt's cache: ``[prefix | left padding | prompt rest]``, then the generated tokens.
Padding sits *between* the shared prefix and the rest of the prompt; it is masked, and explicit
``position_ids`` number the real tokens 0, 1, 2, … without gaps, so a padded prompt computes exactly
what it computes alone (checked against unpadded full forwards in tests/test_decoder.py).

Three engines (``ModelRunner.mode``):

* ``"shared"`` (default for the architectures in ``SHARED_ATTENTION_MODEL_TYPES``): each distinct
  prompt's keys/values are stored once; a row stores only its generated tokens. At a decode step
  :func:`shared_prompt_attention` attends each prompt once with all its rows stacked as queries, and
  merges that exactly with each row's attention over its own tokens (log-sum-exp merge). Memory per
  batch: distinct prompts × prompt length + rows × T, instead of rows × (prompt length + T).
* ``"fast"``: preallocated per-row buffers (each row holds a copy of its prompt's keys/values), no
  ``torch.cat`` per step. Needs a model whose cache layers are plain full-attention ``DynamicLayer``.
* ``"generic"`` (sliding-window or hybrid models, e.g. Gemma-2): transformers' ``DynamicCache``, one
  prefill forward per batch, no prefix reuse.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch
from transformers import DynamicCache
from transformers.cache_utils import Cache, DynamicLayer

# Architectures whose attention is exactly softmax(q·kᵀ·scaling)·v with grouped key/value heads and
# no extra term (no soft-capping, sinks or position bias), checked against the plain path in
# tests/test_decoder.py. Only these use the shared-prompt attention below.
SHARED_ATTENTION_MODEL_TYPES = frozenset({"llama", "mistral", "qwen2", "qwen3", "phi3"})
_SHARED_ATTENTION = "dpsynrag_shared_prompt"


class _BufferLayer(DynamicLayer):
    """A full-attention cache layer writing into a preallocated ``[batch, heads, capacity, dim]`` buffer.

    ``update`` copies the new keys/values in place and returns views of the filled part, so a decode
    step costs no reallocation of the whole cache (``DynamicLayer`` concatenates).
    """

    def __init__(self, capacity: int, keys: torch.Tensor | None = None, values: torch.Tensor | None = None, length: int = 0):
        super().__init__()
        self.capacity = capacity
        self.buf_k = keys
        self.buf_v = values
        self.length = length
        if keys is not None:
            self.is_initialized = True
            self.device = keys.device
            self.keys = keys[:, :, :length]
            self.values = values[:, :, :length]

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        b, h, _, d = key_states.shape
        self.device = key_states.device
        self.buf_k = key_states.new_zeros((b, h, self.capacity, d))
        self.buf_v = value_states.new_zeros((b, value_states.shape[1], self.capacity, value_states.shape[-1]))
        self.is_initialized = True

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        end = self.length + key_states.shape[-2]
        if end > self.capacity:
            raise RuntimeError(f"internal: KV buffer of capacity {self.capacity} overflows ({end} positions).")
        self.buf_k[:, :, self.length : end] = key_states
        self.buf_v[:, :, self.length : end] = value_states
        self.length = end
        self.keys = self.buf_k[:, :, :end]
        self.values = self.buf_v[:, :, :end]
        return self.keys, self.values

    def get_seq_length(self) -> int:
        return self.length

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        return self.length + query_length, 0


def _buffer_cache(layers: list[_BufferLayer]) -> Cache:
    return Cache(layers=layers)


# -- shared-prompt attention (decode steps of the shared mode) ----------------------------------


@dataclass
class SharedPromptContext:
    """What a decode step's attention needs besides the rows' own generated tokens.

    Rows are grouped by the prompt they continue: ``flat[r] = prompt[r] * groups + slot[r]`` where
    ``slot`` numbers the rows of one prompt 0, 1, …, ``groups - 1``.

    Attributes:
        keys, values: per layer, ``[prompts, kv_heads, width, dim]`` keys/values of each distinct prompt.
        padding: BoolTensor ``[prompts, width]``, True on padding slots.
        flat: LongTensor ``[rows]``.
        groups: the most rows continuing one prompt.
        total_length: prompt width + generated tokens (checked against a sliding window).
    """

    keys: list[torch.Tensor]
    values: list[torch.Tensor]
    padding: torch.Tensor
    flat: torch.Tensor
    groups: int
    total_length: int = 0
    _bias: torch.Tensor | None = None

    def bias(self, dtype: torch.dtype) -> torch.Tensor:
        """Additive mask ``[prompts, 1, 1, width]``: 0, or -inf on padding (built once per step)."""
        if self._bias is None or self._bias.dtype != dtype:
            b = torch.zeros(self.padding.shape, dtype=dtype, device=self.padding.device)
            self._bias = b.masked_fill(self.padding, float("-inf"))[:, None, None, :]
        return self._bias


def shared_prompt_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """Attention of one new token per row over [its prompt's keys (shared) | its own suffix keys].

    The prompt part runs once per *distinct* prompt, with that prompt's rows stacked as extra
    queries; the suffix part runs per row; the two partial softmaxes are merged exactly with their
    running maxima and sums (the log-sum-exp merge of flash attention). Registered with transformers'
    ``AttentionInterface``; ``key``/``value`` are the rows' suffix keys/values returned by the cache.

    Shapes: query ``[rows, heads, 1, dim]``, key/value ``[rows, kv_heads, t, dim]``; returns
    ``([rows, 1, heads, dim], None)``.
    """
    ctx: SharedPromptContext = kwargs["dpsynrag_ctx"]
    if kwargs.get("softcap") is not None or kwargs.get("sinks") is not None or kwargs.get("s_aux") is not None:
        raise RuntimeError("internal: shared-prompt attention does not support soft-capping or attention sinks.")
    window = kwargs.get("sliding_window")
    if window is not None and window < ctx.total_length:
        raise RuntimeError("internal: shared-prompt attention does not support a sliding window.")
    rows, heads, q_len, dim = query.shape
    if q_len != 1:
        raise RuntimeError("internal: shared-prompt attention decodes one token per row.")
    kv_heads = key.shape[1]
    rep = heads // kv_heads
    scale = scaling if scaling is not None else dim**-0.5
    layer = module.layer_idx
    pk, pv = ctx.keys[layer], ctx.values[layer]
    n_prompts = pk.shape[0]
    g = ctx.groups
    q = query.reshape(rows, kv_heads, rep, dim)

    # prompt part, grouped by prompt: queries [prompts, kv_heads, g*rep, dim]
    qg = q.new_zeros((n_prompts * g, kv_heads, rep, dim))
    qg[ctx.flat] = q
    qg = qg.view(n_prompts, g, kv_heads, rep, dim).transpose(1, 2).reshape(n_prompts, kv_heads, g * rep, dim)

    def to_rows(x: torch.Tensor) -> torch.Tensor:  # [prompts, kv_heads, g*rep, k] -> [rows, kv_heads, rep, k]
        k = x.shape[-1]
        x = x.view(n_prompts, kv_heads, g, rep, k).transpose(1, 2).reshape(n_prompts * g, kv_heads, rep, k)
        return x[ctx.flat]

    if _cpu_flash is not None and query.device.type == "cpu":
        # CPU flash kernel: normalised outputs and log-sum-exps of each part, merged exactly.
        o_p, lse_p = _cpu_flash(qg, pk, pv, attn_mask=ctx.bias(query.dtype), scale=scale)
        o_s, lse_s = _cpu_flash(q, key, value, scale=scale)
        o_p, lse_p = to_rows(o_p.float()), to_rows(lse_p[..., None])
        lse = torch.logaddexp(lse_p, lse_s[..., None])
        out = o_p * torch.exp(lse_p - lse) + o_s.float() * torch.exp(lse_s[..., None] - lse)
        return out.to(query.dtype).reshape(rows, 1, heads, dim), None

    s_p = torch.matmul(qg, pk.transpose(-1, -2)).float() * scale
    s_p = s_p.masked_fill(ctx.padding[:, None, None, :], float("-inf"))
    m_p = s_p.amax(dim=-1, keepdim=True)
    e_p = torch.exp(s_p - m_p)
    l_p = e_p.sum(dim=-1, keepdim=True)
    o_p = torch.matmul(e_p.to(pv.dtype), pv).float()
    m_p, l_p, o_p = to_rows(m_p), to_rows(l_p), to_rows(o_p)

    # suffix part, per row: [rows, kv_heads, rep, t]
    s_s = torch.matmul(q, key.transpose(-1, -2)).float() * scale
    m_s = s_s.amax(dim=-1, keepdim=True)
    e_s = torch.exp(s_s - m_s)
    l_s = e_s.sum(dim=-1, keepdim=True)
    o_s = torch.matmul(e_s.to(value.dtype), value).float()

    m = torch.maximum(m_p, m_s)
    a_p, a_s = torch.exp(m_p - m), torch.exp(m_s - m)
    out = (o_p * a_p + o_s * a_s) / (l_p * a_p + l_s * a_s)
    return out.to(query.dtype).reshape(rows, 1, heads, dim), None


def _find_cpu_flash():
    """torch's CPU flash-attention op, which also returns the log-sum-exp (None if unavailable or
    if it does not match the reference on a small case)."""
    op = getattr(torch.ops.aten, "_scaled_dot_product_flash_attention_for_cpu", None)
    if op is None:
        return None
    try:
        gen = torch.Generator().manual_seed(0)
        q, k, v = (torch.randn(2, 2, 3, 8, generator=gen) for _ in range(3))
        bias = torch.zeros(2, 1, 1, 3)
        bias[0, ..., 1] = float("-inf")
        out, lse = op(q, k, v, attn_mask=bias, scale=0.5)
        scores = q @ k.transpose(-1, -2) * 0.5 + bias
        ok = torch.allclose(out, torch.softmax(scores, -1) @ v, atol=1e-5) and torch.allclose(
            lse.reshape(2, 2, 3), torch.logsumexp(scores, -1), atol=1e-5
        )
    except Exception:  # noqa: BLE001 - signature changed: use the matmul path
        return None
    return op if ok else None


_cpu_flash = _find_cpu_flash()


_registered = False


def _register_shared_attention() -> None:
    global _registered
    if not _registered:
        from transformers import AttentionInterface

        AttentionInterface.register(_SHARED_ATTENTION, shared_prompt_attention)
        _registered = True


@contextmanager
def _attention_implementation(model, name: str):
    config = model.config
    old = config._attn_implementation
    config._attn_implementation = name
    try:
        yield
    finally:
        config._attn_implementation = old


@dataclass
class PrefixCache:
    """Keys/values of one token prefix, batch 1: ``[(k, v)]`` per layer, each ``[1, heads, P, dim]``."""

    ids: tuple[int, ...]
    kv: list[tuple[torch.Tensor, torch.Tensor]]


def longest_common_prefix(seqs: Sequence[Sequence[int]]) -> int:
    """Length of the longest common prefix of non-empty integer sequences."""
    first = seqs[0]
    n = min(len(s) for s in seqs)
    for s in seqs[1:]:
        i = 0
        while i < n and s[i] == first[i]:
            i += 1
        n = i
        if n == 0:
            break
    return n


class ModelRunner:
    """Forward passes of a causal LM with explicit masks, positions and a cache.

    Args:
        model: a transformers causal LM (eval mode).
        device: where the model lives.
        fast: use the preallocated-buffer path; None decides from the model's cache layer types.
        shared: in decode steps, attend to each distinct prompt's keys/values once for all rows
            continuing it (:func:`shared_prompt_attention`); None enables it for the fast path on the
            architectures of ``SHARED_ATTENTION_MODEL_TYPES``.
    """

    def __init__(self, model, device: torch.device, *, fast: bool | None = None, shared: bool | None = None):
        self.model = model
        self.device = device
        params = inspect.signature(model.forward).parameters
        self.cache_kwarg = "cache" if "cache" in params else "past_key_values"
        self.logits_to_keep = "logits_to_keep" in params or any(
            p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values()
        )
        try:
            probe = DynamicCache(config=model.config)
            fast_ok = bool(probe.layers) and all(type(layer) is DynamicLayer for layer in probe.layers)
        except Exception:  # noqa: BLE001 - unknown cache structure: only the generic path
            fast_ok = False
        shared_ok = fast_ok and getattr(model.config, "model_type", None) in SHARED_ATTENTION_MODEL_TYPES
        # A request for an unsupported path falls back (LanguageModel reports it as an error).
        self.fast = fast_ok if fast is None else bool(fast and fast_ok)
        self.shared = self.fast and (shared_ok if shared is None else bool(shared and shared_ok))
        if self.shared:
            _register_shared_attention()
        self.prefix: PrefixCache | None = None

    @property
    def mode(self) -> str:
        """``"shared"``, ``"fast"`` or ``"generic"`` (see the module docstring)."""
        return "shared" if self.shared else "fast" if self.fast else "generic"

    @torch.inference_mode()
    def forward(self, ids: torch.Tensor, mask: torch.Tensor | None, positions: torch.Tensor, cache: Cache,
                **extra) -> torch.Tensor:
        """Last-position logits ``[batch, model_vocab]`` (model dtype) after feeding ``ids`` ``[batch, q]``."""
        kwargs = {
            **extra,
            "input_ids": ids,
            "attention_mask": mask,
            "position_ids": positions,
            self.cache_kwarg: cache,
            "use_cache": True,
        }
        if self.logits_to_keep:
            kwargs["logits_to_keep"] = 1
        if "dpsynrag_ctx" in extra:
            with _attention_implementation(self.model, _SHARED_ATTENTION):
                out = self.model(**kwargs)
        else:
            out = self.model(**kwargs)
        return out.logits[:, -1, :]

    def prefix_kv(self, ids: Sequence[int]) -> PrefixCache:
        """Keys/values of ``ids`` (batch 1), computed once and kept until another prefix is asked for."""
        ids = tuple(int(i) for i in ids)
        if self.prefix is None or self.prefix.ids != ids:
            cache = _buffer_cache([_BufferLayer(len(ids)) for _ in range(_num_layers(self.model))])
            t = torch.tensor([ids], dtype=torch.long, device=self.device)
            self.forward(t, torch.ones_like(t), torch.arange(len(ids), device=self.device)[None, :], cache)
            self.prefix = PrefixCache(ids, [(layer.buf_k, layer.buf_v) for layer in cache.layers])
        return self.prefix


def _num_layers(model) -> int:
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    return int(config.num_hidden_layers)


class RowBatch:
    """Rows continuing prompts, with their cache; see the module docstring.

    Args:
        runner: the model runner.
        prompts: distinct prompts as token ids (each non-empty).
        row_prompt: ``[rows]`` index into ``prompts`` of the prompt each row continues.
        max_new_tokens: how many tokens may still be fed to every row by :meth:`step`.
        prefill_tokens: about how many (padded) tokens one prefill forward may hold.

    Attributes:
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
        prefill_tokens: int = 1024,
    ):
        self.runner = runner
        dev = runner.device
        self.rows = len(row_prompt)
        src = torch.as_tensor(list(row_prompt), dtype=torch.long)
        lengths = [len(p) for p in prompts]
        if self.rows == 0:
            raise ValueError("internal: RowBatch needs at least one row.")
        self.mode = runner.mode
        if self.mode == "shared":
            # Prefill and keep each distinct prompt once; rows only own their generated tokens.
            identity = torch.arange(len(prompts))
            self._prefill_fast(prompts, lengths, identity, 0, prefill_tokens)
            self.prompt_k, self.prompt_v = self._buffers
            self._buffers = None
            self.padding = self.mask == 0
            self.first_logits = self.first_logits.index_select(0, src.to(dev))
            self.next_pos = self.next_pos.index_select(0, src.to(dev))
            self.row_prompt = src
            self._group_rows()
            self.generated = 0
            self.capacity_new = max_new_tokens
            self._suffix: tuple[list[torch.Tensor], list[torch.Tensor]] | None = None
        elif self.mode == "fast":
            self._prefill_fast(prompts, lengths, src, max_new_tokens, prefill_tokens)
        else:
            self._prefill_generic(prompts, lengths, src)
        self.first_logits = self.first_logits.float()

    def _group_rows(self) -> None:
        """``flat[r] = prompt * groups + slot`` with slots numbering each prompt's rows (shared mode)."""
        rp = self.row_prompt.numpy()
        order = np.argsort(rp, kind="stable")
        counts = np.bincount(rp, minlength=int(self.prompt_k[0].shape[0]))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        slot = np.empty_like(rp)
        slot[order] = np.arange(len(rp)) - starts[rp[order]]
        self.groups = int(counts.max())
        self.flat = torch.as_tensor(rp * self.groups + slot, dtype=torch.long, device=self.runner.device)

    # -- fast path ------------------------------------------------------------------------------

    def _prefill_fast(self, prompts, lengths, src, max_new_tokens, prefill_tokens):
        dev = self.runner.device
        n_rows = len(src)
        # Shared prefix: at least one token of every prompt is left to the per-prompt pass, which
        # gives its last-position logits.
        p_len = longest_common_prefix(prompts) if len(prompts) > 1 else 0
        p_len = min(p_len, min(lengths) - 1)
        prefix = self.runner.prefix_kv(prompts[0][:p_len]) if p_len > 0 else None
        rests = [p[p_len:] for p in prompts]
        rest_max = max(len(r) for r in rests)
        rest_min = min(len(r) for r in rests)
        width = p_len + rest_max  # cache positions holding prompts
        capacity = width + max_new_tokens
        n_layers = _num_layers(self.runner.model)

        # Chunks of distinct prompts, sorted by length so that a chunk pads little.
        order = sorted(range(len(prompts)), key=lambda i: len(rests[i]))
        chunks: list[list[int]] = []
        cur: list[int] = []
        for i in order:
            cand = cur + [i]
            if cur and len(cand) * (p_len + len(rests[i])) > prefill_tokens:
                chunks.append(cur)
                cand = [i]
            cur = cand
        if cur:
            chunks.append(cur)

        rows_of = [[] for _ in prompts]
        for r, p in enumerate(src.tolist()):
            rows_of[p].append(r)

        row_k: list[torch.Tensor] = []
        row_v: list[torch.Tensor] = []
        first = None
        for chunk in chunks:
            lc = max(len(rests[i]) for i in chunk)
            n = len(chunk)
            ids = torch.zeros((n, lc), dtype=torch.long)
            mask = torch.zeros((n, p_len + lc), dtype=torch.long)
            mask[:, :p_len] = 1
            pos = torch.full((n, lc), p_len, dtype=torch.long)
            for j, i in enumerate(chunk):
                r = rests[i]
                ids[j, lc - len(r) :] = torch.as_tensor(r)
                mask[j, p_len + lc - len(r) :] = 1
                pos[j, lc - len(r) :] = torch.arange(p_len, p_len + len(r))
            if prefix is not None:
                layers = []
                for k, v in prefix.kv:
                    bk = k.new_empty((n, k.shape[1], p_len + lc, k.shape[3]))
                    bv = v.new_empty((n, v.shape[1], p_len + lc, v.shape[3]))
                    bk[:, :, :p_len] = k
                    bv[:, :, :p_len] = v
                    layers.append(_BufferLayer(p_len + lc, bk, bv, p_len))
            else:
                layers = [_BufferLayer(lc) for _ in range(n_layers)]
            cache = _buffer_cache(layers)
            logits = self.runner.forward(ids.to(dev), mask.to(dev), pos.to(dev), cache)
            if first is None:
                first = logits.new_empty((n_rows, logits.shape[-1]))
                for layer in cache.layers:
                    k, v = layer.buf_k, layer.buf_v
                    row_k.append(k.new_empty((n_rows, k.shape[1], capacity, k.shape[3])))
                    row_v.append(v.new_empty((n_rows, v.shape[1], capacity, v.shape[3])))
                    # Padding slots are masked, but a masked slot holding NaN garbage would still give
                    # 0 x NaN = NaN: zero every slot that may stay padding.
                    row_k[-1][:, :, p_len : width - rest_min] = 0
                    row_v[-1][:, :, p_len : width - rest_min] = 0
                    if prefix is not None:
                        row_k[-1][:, :, :p_len] = k[:1, :, :p_len]
                        row_v[-1][:, :, :p_len] = v[:1, :, :p_len]
            # Scatter the chunk's rest-of-prompt keys/values into every row continuing each prompt.
            local = [j for j, i in enumerate(chunk) for _ in rows_of[i]]
            targets = [r for i in chunk for r in rows_of[i]]
            if not targets:
                continue
            local_t = torch.as_tensor(local, device=dev)
            target_t = torch.as_tensor(targets, device=dev)
            first[target_t] = logits.index_select(0, local_t)
            for li, layer in enumerate(cache.layers):
                row_k[li][target_t, :, width - lc : width] = layer.buf_k[:, :, p_len:].index_select(0, local_t)
                row_v[li][target_t, :, width - lc : width] = layer.buf_v[:, :, p_len:].index_select(0, local_t)
            del cache, layers

        self.first_logits = first
        self._buffers = (row_k, row_v)
        self.length = width
        row_mask = torch.zeros((n_rows, capacity), dtype=torch.long)
        row_mask[:, :p_len] = 1
        rest_len = torch.as_tensor([len(rests[p]) for p in src.tolist()], dtype=torch.long)
        cols = torch.arange(capacity)[None, :]
        row_mask[(cols >= width - rest_len[:, None]) & (cols < width)] = 1
        self.mask = row_mask.to(dev)
        self.next_pos = (p_len + rest_len).to(dev)

    def _fast_cache(self) -> Cache:
        row_k, row_v = self._buffers
        cap = row_k[0].shape[2]
        return _buffer_cache([_BufferLayer(cap, k, v, self.length) for k, v in zip(row_k, row_v)])

    # -- generic path ---------------------------------------------------------------------------

    def _prefill_generic(self, prompts, lengths, src):
        dev = self.runner.device
        width = max(lengths)
        n = len(prompts)
        ids = torch.zeros((n, width), dtype=torch.long)
        mask = torch.zeros((n, width), dtype=torch.long)
        pos = torch.zeros((n, width), dtype=torch.long)
        for j, p in enumerate(prompts):
            ids[j, width - len(p) :] = torch.as_tensor(p)
            mask[j, width - len(p) :] = 1
            pos[j, width - len(p) :] = torch.arange(len(p))
        cache = DynamicCache(config=self.runner.model.config)
        logits = self.runner.forward(ids.to(dev), mask.to(dev), pos.to(dev), cache)
        src_dev = src.to(dev)
        for layer in cache.layers:
            if getattr(layer, "is_initialized", False):
                layer.batch_select_indices(src_dev)
        self._cache = cache
        self.first_logits = logits.index_select(0, src_dev)
        self.mask = mask.to(dev).index_select(0, src_dev)
        self.next_pos = torch.as_tensor(lengths, dtype=torch.long, device=dev).index_select(0, src_dev)
        self.length = width

    # -- decoding -------------------------------------------------------------------------------

    def step(self, tokens: torch.Tensor) -> torch.Tensor:
        """Feed one token per row; returns the next-token logits ``[rows, model_vocab]`` (float32)."""
        dev = self.runner.device
        ids = tokens.to(device=dev, dtype=torch.long).reshape(-1, 1)
        if self.mode == "shared":
            return self._step_shared(ids)
        if self.mode == "fast":
            self.mask[:, self.length] = 1
            mask = self.mask[:, : self.length + 1]
            cache = self._fast_cache()
        else:
            self.mask = torch.cat([self.mask, self.mask.new_ones((self.rows, 1))], dim=1)
            mask = self.mask
            cache = self._cache
        logits = self.runner.forward(ids, mask, self.next_pos[:, None], cache)
        self.length += 1
        self.next_pos = self.next_pos + 1
        return logits.float()

    def _step_shared(self, ids: torch.Tensor) -> torch.Tensor:
        if self.generated >= self.capacity_new:
            raise RuntimeError(f"internal: more than {self.capacity_new} tokens fed to a RowBatch.")
        if self._suffix is None:
            shape = lambda x: (self.rows, x.shape[1], self.capacity_new, x.shape[3])  # noqa: E731
            self._suffix = ([k.new_empty(shape(k)) for k in self.prompt_k], [v.new_empty(shape(v)) for v in self.prompt_v])
        sk, sv = self._suffix
        cache = _buffer_cache([_BufferLayer(self.capacity_new, k, v, self.generated) for k, v in zip(sk, sv)])
        ctx = SharedPromptContext(
            self.prompt_k, self.prompt_v, self.padding, self.flat, self.groups,
            total_length=int(self.prompt_k[0].shape[2]) + self.generated + 1,
        )
        logits = self.runner.forward(ids, None, self.next_pos[:, None], cache, dpsynrag_ctx=ctx)
        self.generated += 1
        self.next_pos = self.next_pos + 1
        return logits.float()

    def keep(self, rows: torch.Tensor) -> None:
        """Keep only ``rows`` (LongTensor of row indices, in the new order); the others are dropped."""
        dev = self.runner.device
        rows = rows.to(dev)
        if self.mode == "shared":
            if self._suffix is not None:
                sk, sv = self._suffix
                self._suffix = ([k.index_select(0, rows) for k in sk], [v.index_select(0, rows) for v in sv])
            self.row_prompt = self.row_prompt.index_select(0, rows.cpu())
            self.next_pos = self.next_pos.index_select(0, rows)
            self.rows = int(rows.numel())
            self._group_rows()
            return
        if self.mode == "fast":
            row_k, row_v = self._buffers
            self._buffers = ([k.index_select(0, rows) for k in row_k], [v.index_select(0, rows) for v in row_v])
        else:
            for layer in self._cache.layers:
                if getattr(layer, "is_initialized", False):
                    layer.batch_select_indices(rows)
        self.mask = self.mask.index_select(0, rows)
        self.next_pos = self.next_pos.index_select(0, rows)
        self.rows = int(rows.numel())
