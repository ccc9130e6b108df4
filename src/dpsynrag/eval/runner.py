"""Running the methods of an evaluation: :class:`MethodSpec` and :class:`Harness` (corpora, answers,
retrieval, caching), and every method-specific rule of the harness.

Methods (``--methods``, comma-separated): ``non-rag``, ``rag`` (the private documents, no DP), ``dp-rag``
(query-time DP, ε per query), ``dp-synth``, ``aug-pe``, ``dp-synrag``, and the DP-SynRAG ablations
``dp-synrag-l1`` (L = 1, hard clustering), ``dp-synrag-no-outlier-removal`` and
``dp-synrag-no-self-filter``; aliases ``ablations`` (the three), ``baselines`` and ``all``
(:func:`~dpsynrag.eval.config.expand_methods`).

The harness orchestrates and scores only: a DP method sees the private documents through its own API
(:func:`~dpsynrag.pipeline.build.build_corpus`, ``DPRAGSession``, ``build_dp_synth``, ``build_aug_pe``);
the no-self-filter ablation is post-processing of the DP-SynRAG release (its synthetic texts, all kept).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dpsynrag import __version__
from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.eval.cache import AnswerCache, cache_key, write_json
from dpsynrag.eval.presets import for_task
from dpsynrag.eval.scoring import context_hits
from dpsynrag.methods import Method, get_method
from dpsynrag.tasks import Query

if TYPE_CHECKING:
    from dpsynrag.eval.config import EvalConfig
    from dpsynrag.eval.data import EvalData

__all__ = ["Harness", "MethodSpec"]

ANSWER_CHUNK = 25


def _progress_bar(total: int, desc: str, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        return None
    return tqdm(total=total, desc=desc, unit="q")


@dataclass
class MethodSpec:
    """One method at one configuration.

    Attributes:
        method: a registered method name (:func:`dpsynrag.methods.method_names`).
        epsilon: its ε (DP-RAG: per query; None for Non-RAG and RAG).
        params: the method's own parameters (ε, δ, seed, task and models are added from the run).
        corpus: the folder of a corpus scored as it is (``--corpus``; ``params`` are then its build's
            config); None: the method builds (or the cache holds) its corpus.
    """

    method: str
    epsilon: float | None
    params: dict[str, Any]
    corpus: str | None = None

    @property
    def impl(self) -> Method:
        """The registered :class:`~dpsynrag.methods.Method`."""
        return get_method(self.method)

    @property
    def label(self) -> str:
        label = self.impl.eval_label(self.epsilon, self.params)
        return label if self.corpus is None else f"{label}, {os.path.basename(self.corpus)}"


class Harness:
    """Runs methods on :class:`~dpsynrag.eval.data.EvalData` with one language model and embedder, with
    caching under ``out/cache``. Used by :func:`~dpsynrag.eval.experiments.run_eval`; exposed for notebooks.

    Args:
        config: the run configuration.
        data: the loaded data.
        lm, embedder: loaded models.
        progress: show progress bars.
        log: a function printing one status line.
    """

    def __init__(self, config: EvalConfig, data: EvalData, lm, embedder, *, progress: bool = True,
                 log: Callable[[str], None] = print):
        self.config, self.data, self.lm, self.embedder = config, data, lm, embedder
        self.answer_lm = lm  # the answering model: the local one, or an OpenAI-compatible endpoint
        if config.answer_endpoint is not None:
            from dpsynrag.models.endpoint import OpenAIChatModel

            self.answer_lm = OpenAIChatModel(config.answer_endpoint, config.answer_model,
                                             api_key=os.environ.get("DPSYNRAG_ANSWER_API_KEY"))
        self.progress, self.log = progress, log
        self.cache_dir = config.out / "cache"
        p = config.preset
        self.top_k = p.top_k if p.top_k is not None else data.task.rag_top_k
        self.common = {
            "task": data.task.name,
            "model": getattr(lm, "name", str(lm)),
            "embedder": getattr(embedder, "name", str(embedder)),
            "documents_sha256": data.info["documents_sha256"],
            "delta": p.delta,
            "seed": p.seed,
        }
        self.answering = {
            "top_k": self.top_k,
            "answer_tokens": p.answer_tokens,
            "system_prompt": data.task.answer_system_prompt,
            "answer_mode": p.answer_mode,  # RAG over the documents (and the corpora, unless corpus_answer_mode)
            "corpus_answer_mode": p.corpus_answer_mode or p.answer_mode,
        }
        if config.answer_endpoint is not None:
            self.answering["answer_model"] = self.answer_lm.name
        self.new_work: list[str] = []  # what this run computed (empty on a full resume)
        self._rag_answerer = None
        self.given = None  # the corpus of --corpus (SyntheticCorpus), scored as it is
        self.given_note: str | None = None

    # -------------------------------------------------------------- specs

    def specs(self, method: str, epsilon: float | None) -> MethodSpec:
        """The :class:`MethodSpec` of ``method`` at ``epsilon`` (None for a method without DP) with the
        preset's parameters (:meth:`~dpsynrag.methods.Method.eval_params`) for the run's task
        (:func:`~dpsynrag.eval.presets.for_task`)."""
        impl = get_method(method)
        epsilon = epsilon if impl.dp else None
        return MethodSpec(method, epsilon, for_task(impl.eval_params(self.config.preset, epsilon), self.data.task))

    def given_spec(self) -> MethodSpec:
        """The :class:`MethodSpec` of the ``--corpus`` folder (:attr:`given`): its manifest's method at the ε it
        was built for, its build's config as parameters."""
        from dpsynrag.eval.given import given_epsilon

        c = self.given
        return MethodSpec(str(c.manifest["method"]), given_epsilon(c), dict(c.manifest.get("config") or {}),
                          corpus=str(c.path.resolve()))

    def answer_mode(self, spec: MethodSpec) -> str:
        """How ``spec``'s answers are made: for a synthetic corpus the preset's ``corpus_answer_mode`` (else its
        ``answer_mode``), for RAG over the documents its ``answer_mode``, ``"generate"`` for the methods that
        retrieve no texts to extract from (Non-RAG, DP-RAG)."""
        if not spec.impl.retrieves:
            return "generate"
        return self.answering["corpus_answer_mode" if spec.impl.kind == "corpus" else "answer_mode"]

    # -------------------------------------------------------------- corpora

    def corpus_identity(self, spec: MethodSpec) -> dict[str, Any]:
        return {"method": spec.method, "epsilon": spec.epsilon, "params": spec.params, **self.common,
                "dpsynrag_version": __version__}

    def corpus(self, spec: MethodSpec):
        """The synthetic corpus of a corpus method: loaded from the cache, else built (and cached).

        Returns:
            ``(corpus, info)`` with info = ``{"path", "built": bool, "build_seconds", "note"}``.
        """
        from dpsynrag.corpus import SyntheticCorpus

        if spec.corpus is not None:  # --corpus: scored as it is, never built
            return self.given, {"path": spec.corpus, "built": False, "build_seconds": None, "note": self.given_note}
        key = cache_key(self.corpus_identity(spec))
        folder = self.cache_dir / "corpora" / f"{spec.method}-eps{spec.epsilon:g}-{key}"
        info_path = folder.with_name(folder.name + ".info.json")
        if folder.is_dir() and info_path.is_file():
            try:
                corpus = SyntheticCorpus.load(folder)
                info = json.loads(info_path.read_text(encoding="utf-8"))
                return corpus, {**info, "built": False}
            except DpsynragError:
                pass
        self.log(f"building {spec.label} corpus")
        t = time.time()
        if spec.impl.kind != "corpus":
            raise ConfigError(f"{spec.method} has no corpus.")
        corpus, note = spec.impl.eval_corpus(self, spec, folder)
        info = {"path": str(folder.resolve()), "build_seconds": time.time() - t, "note": note}
        write_json(info_path, info)
        self.new_work.append(f"build {spec.method}")
        return corpus, {**info, "built": True}

    # -------------------------------------------------------------- answering

    def answer_identity(self, spec: MethodSpec) -> dict[str, Any]:
        answering = {k: v for k, v in self.answering.items() if k not in ("answer_mode", "corpus_answer_mode")}
        if self.answer_mode(spec) == "extractive":  # generated answers keep the cache keys they had before the mode
            answering["answer_mode"] = "extractive"
        identity = {"method": spec.method, "epsilon": spec.epsilon, "params": spec.params, **self.common,
                    "answering": answering}
        if not spec.impl.reads_private:  # e.g. Non-RAG: no documents, no retrieval
            identity["answering"] = {k: v for k, v in identity["answering"].items() if k != "top_k"}
            identity.pop("documents_sha256")
            identity.pop("embedder")
        return identity

    def answers(self, spec: MethodSpec, queries: Sequence[Query], *, prefix: str, corpus=None) -> tuple[list[str], dict]:
        """Answers to ``queries`` (cached per question), and information on how they were made.

        Args:
            spec: the method.
            queries: questions or attack prompts.
            prefix: namespace of the query ids in the cache (``"q"`` questions, ``"a"`` attacks).
            corpus: the corpus of a corpus method.

        Returns:
            ``(texts, info)``; info has ``answered_now`` (questions answered by this call), ``seconds``,
            ``context_hits`` (RAG-style methods on questions: per query, whether its gold answer was among
            the retrieved texts; else None), and for DP-RAG ``spent`` (the privacy spent by the sessions
            that answered).
        """
        identity = self.answer_identity(spec)
        if corpus is not None:
            identity["corpus"] = corpus.path.name
            if spec.corpus is not None:  # --corpus: the folder and its content
                identity["corpus_path"] = spec.corpus
                identity["corpus_manifest"] = (corpus.manifest.get("checksums") or {}).get("manifest")
        key = cache_key(identity)
        tag = f"-eps{spec.epsilon:g}" if spec.epsilon is not None else ""
        cache = AnswerCache(self.cache_dir / "answers" / f"{spec.method}{tag}-{key}.jsonl", identity)
        missing = [q for q in queries if cache.get(f"{prefix}:{q.id}", q.question) is None]
        scored = prefix == "q" and spec.impl.retrieves
        t = time.time()
        if missing:
            self.new_work.append(f"answer {spec.method} {prefix} x{len(missing)}")
            answer_fn, finish = self._answer_fn(spec, corpus)
            bar = _progress_bar(len(missing), f"{spec.method} {'questions' if prefix == 'q' else 'attacks'}", self.progress)
            try:
                for start in range(0, len(missing), ANSWER_CHUNK):
                    chunk = missing[start:start + ANSWER_CHUNK]
                    answered = answer_fn(chunk)
                    hits = (context_hits([a.context for a in answered], chunk, self.data.task) if scored
                            else [None] * len(chunk))
                    cache.add([(f"{prefix}:{q.id}", q.question, _text(a), hit)
                               for q, a, hit in zip(chunk, answered, hits)])
                    if bar is not None:
                        bar.update(len(chunk))
            finally:
                if bar is not None:
                    bar.close()
                extra = finish()
                if extra:
                    meta = cache.meta()
                    meta.setdefault("sessions", []).append(extra)
                    cache.set_meta(meta)
        if scored:
            self._fill_context_hits(spec, corpus, cache, [q for q in queries
                                                          if cache.hit(f"{prefix}:{q.id}", q.question) is None], prefix)
        texts = [cache.get(f"{prefix}:{q.id}", q.question) or "" for q in queries]
        spent_now = time.time() - t
        meta = cache.meta()
        if missing:
            meta.setdefault("seconds", {})
            meta["seconds"][prefix] = meta["seconds"].get(prefix, 0.0) + spent_now
            cache.set_meta(meta)
        # compute time: what answering these queries took when it was done (this run or an earlier one)
        info = {"answered_now": len(missing), "seconds": meta.get("seconds", {}).get(prefix, spent_now),
                "seconds_this_run": spent_now, "cache": cache.path.name,
                "context_hits": [bool(cache.hit(f"{prefix}:{q.id}", q.question)) for q in queries] if scored else None}
        if "sessions" in cache.meta():  # what the answering spent (DP-RAG)
            info["sessions"] = cache.meta()["sessions"]
        return texts, info

    def _fill_context_hits(self, spec: MethodSpec, corpus, cache: AnswerCache, queries: Sequence[Query],
                           prefix: str) -> None:
        """Score context recall of answers cached before it was recorded: retrieval only (deterministic
        for the cached configuration), no generation."""
        if not queries:
            return
        contexts = self.retriever(spec, corpus).retrieve([q.question for q in queries])
        hits = context_hits(contexts, queries, self.data.task)
        cache.add([(f"{prefix}:{q.id}", q.question, cache.get(f"{prefix}:{q.id}", q.question) or "", hit)
                   for q, hit in zip(queries, hits)])

    def retriever(self, spec: MethodSpec, corpus):
        """The :class:`~dpsynrag.rag.RAGAnswerer` of a retrieving method: over ``corpus``'s kept texts, or
        with ``corpus=None`` over the private documents (plain RAG, no DP; made once). A corpus is
        searched with its index copies repeated (``repeat_copies=True``): the context the harness has
        always given its answerer, so measured numbers stay comparable (the library's default is
        distinct texts). Answers as the preset says (:meth:`answer_mode`)."""
        task, p = self.data.task, self.config.preset
        mode = self.answer_mode(spec)
        if corpus is None:
            if self._rag_answerer is None:
                from dpsynrag.rag.answer import RAGAnswerer

                self._rag_answerer = RAGAnswerer(self.lm, self.embedder, [d.text for d in self.data.documents],
                                                 top_k=self.top_k, system_prompt=task.answer_system_prompt,
                                                 max_new_tokens=p.answer_tokens, answer_mode=mode)
            return self._rag_answerer
        return corpus.answerer(lm=self.answer_lm, embedder=self.embedder, top_k=self.top_k,
                               system_prompt=task.answer_system_prompt, max_new_tokens=p.answer_tokens, repeat_copies=True,
                               answer_mode=mode)

    def _answer_fn(self, spec: MethodSpec, corpus):
        """``(answer_fn, finish)``: an online method's own (:meth:`~dpsynrag.methods.OnlineMethod.answerer`),
        or RAG over a corpus method's texts."""
        if spec.impl.kind == "online":
            return spec.impl.answerer(self, spec)
        if not corpus.texts and self.answer_mode(spec) == "extractive":  # no text kept: no sentence to answer with
            from dpsynrag.rag.answer import Answer

            return (lambda qs: [Answer(q.question, "", ()) for q in qs]), (lambda: None)
        answerer = self.retriever(spec, corpus)
        return (lambda qs: answerer.answer([q.question for q in qs])), (lambda: None)


def _text(answer) -> str:
    return answer if isinstance(answer, str) else str(getattr(answer, "text", answer))
