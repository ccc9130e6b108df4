"""The planner counts the forwards a build runs (issue 44): a small real build with the tiny Llama, its
forwards counted by a hook on the model, stage by stage, against :mod:`dpsynrag.pipeline.forwards` fed with
the sizes the build met, and against :func:`~dpsynrag.commands.plan.estimate_work` where those sizes are public.

The tiny model's EOS is switched off, so every keyword answer and every text runs its full length (the
planner's count; an answer that ends early only makes the build do less). Fast: tiny Llama, hash embedder."""

from __future__ import annotations

import collections
import itertools
import json
import math

import pytest
from fakes import HashEmbedder

from dpsynrag.commands.plan import estimate_work
from dpsynrag.models.engine import default_step_rows
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.pipeline.forwards import embedding_forwards, keyword_forwards, prediction_forwards
from dpsynrag.pipeline.prompts import KEYWORD_PUBLIC_PROMPT

WORDS = "fever cough rash flu pain drug dose rest blood heart lung skin".split()
# 40 distinct notes of 8 words each (the tiny tokenizer reads one token per word)
DOCS = [f"the patient has {a} and {b} on {c}" for a, b, c in itertools.islice(itertools.permutations(WORDS, 3), 40)]
CONFIG = dict(epsilon=10.0, delta=1e-3, K=2, R=4, L=2, k=6, T=5, extractor="llm", decoding="public-prior",
              public_weight=0.25, self_filter=False, fluency_threshold=-1000.0, prediction_checkpoints=3,
              max_document_tokens=32, seed=0)


def _counted_build(tmp_path, lm, monkeypatch, docs, **overrides):
    """Build ``docs``; returns (config, forwards per stage, the clusters' member prompts as decoded, every text
    written, kept or not).
    A forward is ("prefill", width) for one prompt, ("decode", rows) for one token per row."""
    from dpsynrag.models.decoder import PrivatePredictionDecoder
    from dpsynrag.pipeline.display import BuildDisplay

    lm.eos_token_ids = ()  # no text ends early
    lm.runner.prefix = None  # no public prefix kept from an earlier build of the shared model
    stage = ["setup"]
    start = BuildDisplay.start

    def started(self, name, **kw):
        stage[0] = name
        return start(self, name, **kw)

    monkeypatch.setattr(BuildDisplay, "start", started)
    forwards: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)

    def count(module, args, kwargs):
        ids = kwargs.get("input_ids", args[0] if args else None)
        rows, width = ids.shape
        forwards[stage[0]]["prefill" if rows == 1 else "decode"] += 1
        if rows > 1:
            assert width == 1  # a decode forward feeds one token per row

    hook = lm.model.register_forward_pre_hook(count, with_kwargs=True)
    clusters: list[list[str]] = []
    generate = PrivatePredictionDecoder.generate_ids

    def generate_ids(self, batch, *args, **kwargs):
        clusters.extend(list(c) for c in batch)
        return generate(self, batch, *args, **kwargs)

    monkeypatch.setattr(PrivatePredictionDecoder, "generate_ids", generate_ids)
    config = BuildConfig(**{**CONFIG, **overrides})
    try:
        build_corpus(docs, tmp_path / "c", config, lm=lm, embedder=HashEmbedder())
    finally:
        hook.remove()
    texts = [json.loads(line)["text"] for line in (tmp_path / "c" / "texts.jsonl").read_text().splitlines()]
    return config, forwards, clusters, texts


# the paper's decoding: no public row, the self-filter (one prompt forward per distinct text) instead of the fluency one
PAPER = dict(decoding="paper", public_weight=0.0, self_filter=True, filter_prompt="is it good : {document}",
             fluency_threshold=None)


@pytest.mark.parametrize("batch_size, variant", [(None, {}), (7, dict(public_prompt=KEYWORD_PUBLIC_PROMPT)),
                                                 (None, PAPER)], ids=["public-prior", "own-public-prompts", "paper"])
def test_the_planner_counts_the_forwards_of_a_build(tmp_path, tiny_lm, monkeypatch, batch_size, variant):
    config, forwards, clusters, texts = _counted_build(tmp_path, tiny_lm, monkeypatch, DOCS, batch_size=batch_size,
                                                       **variant)
    n = len(DOCS)
    # keyword extraction: one prompt forward per document and one for the public prefix; 6K - 1 steps of
    # forwards of 32 rows (CPU), or of min(7, 32) rows per batch of 7
    kw_prefills, kw_decode = keyword_forwards(n, max_new_tokens=6 * config.K, step_rows=default_step_rows(tiny_lm.device),
                                              batch_size=batch_size)
    assert forwards["keywords"] == {"prefill": kw_prefills, "decode": kw_decode}
    assert (kw_prefills, kw_decode) == ((41, 11 * 2) if batch_size is None else (41, 11 * math.ceil(40 / 7)))
    # the plan of a declared 40 documents is the build's: the keyword work depends on N alone
    work = estimate_work(config, n)
    assert (work.keyword_prefills, work.keyword_decode_forwards) == (kw_prefills, kw_decode)

    # private prediction: the R clusters the public vocabulary releases, each with its distinct member prompts and
    # one public row (the rephrase instruction, one prompt for all; or its own, with the cluster's keyword);
    # T - 1 steps of forwards of 32 rows per batch of ceil(R / 3) clusters
    assert len(clusters) == config.R
    member_rows = [len(set(c)) for c in clusters]
    public = variant is not PAPER
    prefills, decode = prediction_forwards(member_rows, public_row=public, public_per_cluster="public_prompt" in variant,
                                           batches=config.prediction_checkpoints, steps=config.T,
                                           step_rows=default_step_rows(tiny_lm.device, expected_rows=config.R * config.k))
    assert forwards["private prediction"] == {"prefill": prefills, "decode": decode}
    # 2 batches of 2 clusters: 1 forward a step each, none for a batch without a row (empty clusters, no public row)
    assert sum(member_rows) > 0 and decode == (config.T - 1) * sum(public or any(b) for b in (member_rows[:2], member_rows[2:]))
    # the plan's upper bound: the most member rows min(R·k, N·L), every document distinct
    assert work.member_rows >= sum(member_rows)
    assert (work.prediction_prefills, work.prediction_decode_forwards) >= (prefills, decode)

    # the fluency filter: one forward per text with a token; the self-filter: one per distinct text
    filtered = sum(1 for t in texts if t) if public else len(set(texts))
    assert forwards["fluency filter" if public else "self-filter"] == {"prefill": filtered} == {"prefill": len(texts)}
    assert work.filter_forwards == len(texts)
    assert set(forwards) == {"keywords", "private prediction", "fluency filter" if public else "self-filter"}


@pytest.mark.filterwarnings("ignore:40 document\\(s\\) repeat the exact text")
def test_repeated_documents_are_computed_once(tmp_path, tiny_lm, monkeypatch):
    """Each distinct note three times: the keyword stage reads each once (the plan, from a declared size,
    counts every document: an upper bound)."""
    docs = DOCS[:20] * 3
    config, forwards, _, _ = _counted_build(tmp_path, tiny_lm, monkeypatch, docs)
    assert forwards["keywords"] == dict(zip(("prefill", "decode"),
                                            keyword_forwards(20, max_new_tokens=6 * config.K, step_rows=32)))
    work = estimate_work(config, len(docs))
    assert (work.keyword_prefills, work.keyword_decode_forwards) == keyword_forwards(60, max_new_tokens=12, step_rows=32)
    assert work.keyword_prefills == 61 > forwards["keywords"]["prefill"] == 21


def test_forward_counts_in_closed_form():
    # keywords: chunks of 512, a batch a multiple of the rows (auto) or batch_size prompts
    assert keyword_forwards(0, max_new_tokens=60, step_rows=32) == (0, 0)
    assert keyword_forwards(1000, max_new_tokens=60, step_rows=32) == (1001, 59 * (16 + math.ceil(488 / 32)))
    assert keyword_forwards(1000, max_new_tokens=60, step_rows=128) == (1001, 59 * (4 + 4))
    assert keyword_forwards(100, max_new_tokens=6, step_rows=32, batch_size=40) == (101, 5 * (2 + 2 + 1))
    assert keyword_forwards(100, max_new_tokens=6, step_rows=32, batch_size=20, chunk=30) == (101, 5 * (2 + 2 + 2 + 1))
    # prediction: batches of ceil(texts / batches) texts; a batch with no row runs nothing
    assert prediction_forwards([3, 0, 5, 2], public_row=False, public_per_cluster=False, batches=2, steps=4,
                               step_rows=4) == (3 + 5 + 2 + 1, 3 * 1 + 3 * 2)
    assert prediction_forwards([3, 0, 5, 2], public_row=True, public_per_cluster=False, batches=2, steps=4,
                               step_rows=4) == (3 + 1 + 5 + 2 + 1 + 1, 3 * 2 + 3 * 3)
    assert prediction_forwards([0, 0], public_row=False, public_per_cluster=False, batches=1, steps=9,
                               step_rows=4) == (0, 0)
    assert prediction_forwards([1] * 10, public_row=True, public_per_cluster=True, batches=20, steps=2,
                               step_rows=64) == (10 + 10 + 1, 10)
    # embeddings: chunks of 2048, forwards of `rows`
    assert embedding_forwards(0, rows=8) == 0
    assert embedding_forwards(8000, rows=8) == 3 * 256 + math.ceil(1856 / 8)
    assert embedding_forwards(8000, rows=256) == 3 * 8 + math.ceil(1856 / 256)


@pytest.mark.slow
def test_embedding_forwards_of_texts_of_one_width(offline_embedder, tmp_path):
    """The outlier removal's embedder forwards (:func:`embed_to_file`, MiniLM): texts of one bucket width fill
    forwards of 8 rows, chunk by chunk."""
    from dpsynrag.models import embedder as embedder_module

    calls = []
    hook = offline_embedder.model.register_forward_pre_hook(lambda m, args: calls.append(args[0]["input_ids"].shape))
    texts = [f"the patient has {a} and {b}" for a, b in itertools.permutations(WORDS, 2)][:100]
    widths = {offline_embedder.model.tokenize([t])["input_ids"].shape[1] for t in texts}
    assert len(widths) == 1  # one bucket width
    try:
        old = embedder_module.PRIVATE_EMBED_CHUNK
        embedder_module.PRIVATE_EMBED_CHUNK = 30
        emb, _ = embedder_module.embed_to_file(offline_embedder, iter(texts), folder=tmp_path, total=len(texts))
        emb.close()
    finally:
        embedder_module.PRIVATE_EMBED_CHUNK = old
        hook.remove()
    assert len(calls) == embedding_forwards(100, rows=8, chunk=30) == 3 * 4 + 2
    assert {tuple(s)[0] for s in calls} == {8}


# ------------------------------------------------------------------- counted on INPUT (--measure-input)


@pytest.mark.filterwarnings("ignore:40 document\\(s\\) repeat the exact text")
def test_the_plan_counted_on_input_follows_a_build_of_repeated_documents(tmp_path, tiny_lm, monkeypatch):
    """Each distinct note three times (issue 44: Medical Synth's 8,000 notes are 96 texts once names are redacted).
    Counted on the input, the keyword plan is the build's exactly, and the private-prediction plan still bounds the
    build's forwards from above while counting fewer than the declared plan (member rows at most D·L)."""
    from dpsynrag.commands.input_profile import InputProfile, measure_input
    from dpsynrag.data.io import as_documents

    docs = DOCS[:20] * 3
    config, forwards, clusters, _ = _counted_build(tmp_path, tiny_lm, monkeypatch, docs, k=15)
    profile = measure_input(as_documents(docs), config, tiny_lm)
    assert profile == InputProfile(documents=60, distinct=20, chunk_distinct=(20,), embed_width_ratio=1.0, cut=0)
    work = estimate_work(config, None, profile=profile)
    declared = estimate_work(config, len(docs))
    assert (work.keyword_prefills, work.keyword_decode_forwards) == tuple(forwards["keywords"][k] for k in
                                                                          ("prefill", "decode")) == (21, 11)
    assert declared.keyword_prefills == 61
    # member rows: min(R·k, D·L) = min(60, 40), the declared plan min(R·k, N·L) = 60; the build's distinct prompts
    assert (work.member_rows, work.member_rows_max, declared.member_rows) == (40, 40, 60)
    assert sum(len(set(c)) for c in clusters) <= work.member_rows
    built = forwards["private prediction"]
    assert (built["prefill"], built["decode"]) <= (work.prediction_prefills, work.prediction_decode_forwards)
    assert (work.prediction_prefills, work.prediction_decode_forwards) <= (declared.prediction_prefills,
                                                                           declared.prediction_decode_forwards)
    # 2 batches of 2 clusters, 20 member rows each: a batch's member prompts at most D = 20, then its public prompt
    assert work.prediction_prefills == 2 * (20 + 1) + 1 < declared.prediction_prefills == 2 * (30 + 1) + 1


def test_the_input_profile_counts_texts_after_redaction_and_the_cut(tiny_lm):
    """Notes that differ only in the patient's name are one text once redacted; the cut makes two long notes one;
    the LLM extractor's chunks count their own distinct texts; the embedder's widths are the texts' own."""
    from dpsynrag.commands.input_profile import measure_input, probe_filler
    from dpsynrag.data.io import Document
    from dpsynrag.pipeline.keywords import EXTRACT_CHUNK

    names = [f"Name{i}" for i in range(EXTRACT_CHUNK + 3)]
    docs = [Document(i, f"{name} has fever and cough", (name,)) for i, name in enumerate(names)]
    long = " ".join(["dose"] * 40)
    docs += [Document(1000, long + " rest", ()), Document(1001, long + " pain", ())]
    redacting = BuildConfig(**{**CONFIG, "redact_identifiers": True, "max_document_tokens": 16})
    profile = measure_input(docs, redacting, tiny_lm, HashEmbedder())
    # chunk 1: the first EXTRACT_CHUNK notes, one text; chunk 2: 3 notes (the same text) and the two cut ones (one)
    assert (profile.documents, profile.distinct, profile.chunk_distinct, profile.cut) == (
        len(docs), 2, (1, 2), 2)
    redacted = "[REDACTED] has fever and cough"
    widths = [HashEmbedder().bucket_width(redacted)] * len(names) + [HashEmbedder().bucket_width(" ".join(["dose"] * 16))] * 2
    assert profile.embed_width_ratio == pytest.approx(
        sum(widths) / len(widths) / HashEmbedder().bucket_width(probe_filler(tiny_lm, 16)))
    plain = measure_input(docs, BuildConfig(**{**CONFIG, "max_document_tokens": 16}), tiny_lm)
    assert plain.distinct == len(names) + 1 and plain.embed_width_ratio == 1.0  # no embedder: widths not read
