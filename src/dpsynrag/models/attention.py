"""The model side of the batch-invariant engine (:mod:`dpsynrag.models.engine`): preallocated
key/value cache layers, the shared-prompt attention of the shared engine's decode steps, and
:class:`ModelRunner`, which runs a causal LM's forwards with explicit masks, positions and a cache.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from transformers import DynamicCache
from transformers.cache_utils import Cache, DynamicLayer

# Architectures whose attention is exactly softmax(q·kᵀ·scaling)·v with grouped key/value heads and
# no extra term (no soft-capping, sinks or position bias), checked against the plain path in
# tests/test_decoder.py. Only these use the shared-prompt attention below.
SHARED_ATTENTION_MODEL_TYPES = frozenset({"llama", "mistral", "qwen2", "qwen3", "phi3"})
_SHARED_ATTENTION = "dpsynrag_shared_prompt"


class BufferLayer(DynamicLayer):
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


def buffer_cache(layers: list[BufferLayer]) -> Cache:
    """A transformers ``Cache`` over the given :class:`BufferLayer` layers, one per model layer."""
    return Cache(layers=layers)


# -- shared-prompt attention (decode steps of the shared mode) ----------------------------------


class Bucket:
    """Stored prompts of one width: keys/values ``[stored, kv_heads, width, dim]`` per layer, each
    prompt left-padded (``[padding | prompt]``), and the padding mask ``[stored, width]``."""

    def __init__(self, width: int, keys: list[torch.Tensor], values: list[torch.Tensor], padding: torch.Tensor):
        self.width = width
        self.keys = keys
        self.values = values
        self.padding = padding
        self._bias: dict[torch.dtype, torch.Tensor] = {}

    def bias(self, dtype: torch.dtype) -> torch.Tensor:
        """Additive mask ``[stored, 1, 1, width]``: 0, or -inf on padding (built once per dtype)."""
        if dtype not in self._bias:
            b = torch.zeros(self.padding.shape, dtype=dtype, device=self.padding.device)
            self._bias[dtype] = b.masked_fill(self.padding, float("-inf"))[:, None, None, :]
        return self._bias[dtype]


@dataclass
class PromptPart:
    """The rows of one decode forward that read stored prompts ``lo .. hi - 1`` of one bucket.

    Attributes:
        rows: LongTensor ``[m]``, the rows of the forward.
        slots: LongTensor ``[m]``, each row's query slot ``(stored - lo) * groups + slot``.
    """

    bucket: Bucket
    lo: int
    hi: int
    rows: torch.Tensor
    slots: torch.Tensor


@dataclass
class SharedPromptContext:
    """What a decode step's attention needs besides the rows' own generated tokens.

    Attributes:
        parts: the stored prompts the rows read, by bucket (rows with no part — dummy rows — attend
            only to their own tokens).
        groups: query slots per stored prompt (a public constant).
        total_length: widest prompt + generated tokens (checked against a sliding window).
    """

    parts: list[PromptPart]
    groups: int
    total_length: int = 0


def _attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: torch.Tensor | None, scale: float):
    """softmax(q·kᵀ·scale + bias)·v per batch entry and head, with its log-sum-exp.

    Shapes: q ``[b, h, m, d]``, k/v ``[b, h, n, d]``, bias None or ``[b, 1, 1, n]`` (0 or -inf, at
    least one 0 per entry). Returns ``(out [b, h, m, d], lse [b, h, m])``, both float32.

    Plain matrix products, not torch's CPU flash-attention kernel: with several threads that kernel
    rounds a batch entry differently depending on which thread computes it (i.e. on its position
    and on the batch count), which would make a row depend on its batch-mates.
    """
    s = torch.matmul(q, k.transpose(-1, -2)).float().mul_(scale)  # in place: a fresh tensor (same kernels)
    if bias is not None:
        s.add_(bias.float())
    m = s.amax(dim=-1, keepdim=True)
    e = s.sub_(m).exp_()
    total = e.sum(dim=-1, keepdim=True)
    out = torch.matmul(e.to(v.dtype), v).float().div_(total)
    return out, (m + torch.log(total)).squeeze(-1)


def shared_prompt_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """Attention of one new token per row over [its prompt's keys (stored once per group) | its own
    generated keys].

    The prompt part runs once per stored prompt, with the queries of its ``groups`` slots stacked
    (empty slots hold zeros); the generated part runs per row; the two partial softmaxes are merged
    exactly with their log-sum-exps (the merge of flash attention). Every shape is fixed by the
    bucket widths, ``groups`` and the forward's row count, so a row's output does not depend on
    which rows share its forward. Registered with transformers' ``AttentionInterface``;
    ``key``/``value`` are the rows' generated keys/values returned by the cache.

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
    g = ctx.groups
    q = query.reshape(rows, kv_heads, rep, dim)

    o_p = torch.zeros((rows, kv_heads, rep, dim), dtype=torch.float32, device=query.device)
    lse_p = torch.full((rows, kv_heads, rep), float("-inf"), dtype=torch.float32, device=query.device)
    for part in ctx.parts:
        b, n = part.bucket, part.hi - part.lo
        qg = q.new_zeros((n * g, kv_heads, rep, dim))
        qg[part.slots] = q[part.rows]
        qg = qg.view(n, g, kv_heads, rep, dim).transpose(1, 2).reshape(n, kv_heads, g * rep, dim)
        o, lse = _attend(qg, b.keys[layer][part.lo : part.hi], b.values[layer][part.lo : part.hi],
                         b.bias(query.dtype)[part.lo : part.hi], scale)
        o = o.view(n, kv_heads, g, rep, dim).transpose(1, 2).reshape(n * g, kv_heads, rep, dim)
        lse = lse.view(n, kv_heads, g, rep).transpose(1, 2).reshape(n * g, kv_heads, rep)
        o_p[part.rows] = o[part.slots]
        lse_p[part.rows] = lse[part.slots]

    o_s, lse_s = _attend(q, key, value, None, scale)
    lse = torch.logaddexp(lse_p, lse_s)
    out = o_p * torch.exp(lse_p - lse)[..., None] + o_s * torch.exp(lse_s - lse)[..., None]
    return out.to(query.dtype).reshape(rows, 1, heads, dim), None


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
        """``"shared"``, ``"fast"`` or ``"generic"`` (see :mod:`dpsynrag.models.engine`)."""
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
            cache = buffer_cache([BufferLayer(len(ids)) for _ in range(num_layers(self.model))])
            t = torch.tensor([ids], dtype=torch.long, device=self.device)
            self.forward(t, torch.ones_like(t), torch.arange(len(ids), device=self.device)[None, :], cache)
            self.prefix = PrefixCache(ids, [(layer.buf_k, layer.buf_v) for layer in cache.layers])
        return self.prefix


def num_layers(model) -> int:
    """The number of transformer layers of ``model`` (of its text model for a multimodal config)."""
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    return int(config.num_hidden_layers)
