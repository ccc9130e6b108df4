"""Distributed private prediction (issue 16, item 1): each cluster samples from its own named stream,
so its text does not depend on which clusters share its batch or its process; a build with
``--ray`` on a local 2-worker Ray cluster writes the single-process build's files byte for byte."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from fakes import HashEmbedder

from conftest import make_tiny_model, make_tiny_tokenizer
from fakes import NOTES
from dpsynrag.models import LanguageModel, PrivatePredictionDecoder
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.pipeline.checkpoint import TEXTS, BuildCheckpoint
from dpsynrag.pipeline.distributed import RayOptions, identity_mismatch, model_identity, plan_tasks
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.prediction import sample_private_tokens
from dpsynrag.rng import SeededRandom

DOCS = NOTES


def test_per_row_streams_draw_each_row_as_if_alone():
    z = np.random.default_rng(0).normal(size=(5, 40)) * 3
    accs = [ZCDPAccountant() for _ in range(5)]
    together = sample_private_tokens(z, clip=1.0, temperature=0.5, accountants=accs,
                                     random=[SeededRandom(7).child(f"cluster-{r}") for r in range(5)])
    alone = [int(sample_private_tokens(z[r:r + 1], clip=1.0, temperature=0.5, accountants=[ZCDPAccountant()],
                                       random=[SeededRandom(7).child(f"cluster-{r}")])[0]) for r in range(5)]
    assert together.tolist() == alone
    assert all(len(a.ledger) == 1 for a in accs)
    from dpsynrag.errors import ConfigError

    with pytest.raises(ConfigError, match="one RandomSource per row"):
        sample_private_tokens(z, clip=1.0, temperature=0.5, accountants=[ZCDPAccountant() for _ in range(5)],
                              random=[SeededRandom(1)] * 4)


def test_cluster_streams_make_the_texts_independent_of_batching(tiny_lm):
    """One batch of 6 clusters or 6 batches of one (a tiny memory budget): same tokens, when each
    cluster draws from its own stream. Without streams the shared stream is consumed in batch order,
    so the same seed gives other tokens (checked: the property is not vacuous)."""
    prompts = [tiny_lm.chat_prompt(f"rephrase the following document : {d}") for d in DOCS[:12]]
    clusters = [prompts[i:i + 3] for i in range(0, 12, 2)]  # overlapping members, 6 clusters

    def run(budget_gb, streams):
        dec = PrivatePredictionDecoder(tiny_lm, clip=4.0, temperature=1.0, max_new_tokens=8,
                                       random=SeededRandom(5).child("private-prediction"), memory_budget_gb=budget_gb)
        assert len(dec._plan(*dec._encode(clusters))) == (1 if budget_gb > 1 else 6)
        s = [SeededRandom(5).child("private-prediction").child(f"cluster-{r}") for r in range(6)] if streams else None
        return dec.generate_ids(clusters, [ZCDPAccountant() for _ in clusters], streams=s)

    one_batch = run(4.0, True)
    assert one_batch == run(1e-9, True)
    assert sum(len(t) for t in one_batch) > 6  # real texts, not all ended at once
    assert run(4.0, False) != run(1e-9, False)


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    """The tiny Llama and its tokenizer saved as a model folder, loadable by the Ray workers."""
    folder = tmp_path_factory.mktemp("tiny-llama")
    make_tiny_model().save_pretrained(folder)
    make_tiny_tokenizer().save_pretrained(folder)
    return folder


@pytest.fixture
def fakes_on_workers():
    """The tests' fakes (HashEmbedder) sent to Ray workers by value: they cannot import the tests' modules."""
    import ray

    import fakes

    ray.cloudpickle.register_pickle_by_value(fakes)
    yield
    ray.cloudpickle.unregister_pickle_by_value(fakes)


def test_ray_build_on_two_local_workers_writes_the_single_process_corpus_byte_for_byte(tmp_path, tiny_folder,
                                                                                       monkeypatch, fakes_on_workers):
    """The reading pass (identifier redaction, the PII pass, the cut, the fingerprint keys), keywords, embeddings
    (outlier removal) and private prediction all on 2 Ray workers: every corpus file but the manifest (its
    creation time) equal byte for byte to the local build's, the owner record too (but its wall times), and the
    driver redacted, cut and keyed no document itself."""
    import types

    import ray

    import dpsynrag.corpus.format as format_module
    import dpsynrag.data.preparation as preparation
    import dpsynrag.pipeline.build as build_module
    import dpsynrag.privacy.fingerprints as fingerprints
    from dpsynrag.data.io import Document
    from dpsynrag.data.redaction import RedactedDocuments
    from dpsynrag.pipeline.ray_stages import RayDocumentPool

    lm = LanguageModel.load(str(tiny_folder))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as in the Ray workers (one CPU each): same kernels, same rounding
    # public-prior with a per-cluster public prompt (its released keyword): member rows and public rows both travel
    config = BuildConfig(epsilon=4.0, delta=1e-3, K=3, R=6, L=2, k=10, T=8, extractor="rarity", open_vocabulary=True,
                         self_filter=False, max_document_tokens=16, seed=3, model=str(tiny_folder),
                         decoding="public-prior", public_prompt="rephrase the following document : {keyword}",
                         redact_identifiers=True, redact_pii=True)
    names = ("Ada Byron", "Alan Turing", "Grace Hopper")
    # every 4th names its person and a phone number, every 5th is longer than max_document_tokens (cut)
    docs = [Document(str(i), (f"{t} for {names[i % 3]} , call +44 20 7946 09{i:02d}" if i % 4 == 0 else t)
                     + (" with blood test and red skin rash" * 3 if i % 5 == 0 else ""), (names[i % 3],))
            for i, t in enumerate(DOCS)]
    on_workers, here = [], {"prepared": [], "redacted": [], "keyed": []}
    in_order, prepare, redact, key = (RayDocumentPool._in_order, preparation.DocumentPreparer.__call__,
                                      RedactedDocuments.redact, preparation.whole_text_keys)

    def spy(self, method, *args):
        on_workers.append(method)
        return in_order(self, method, *args)

    # what the driver does itself; the workers import their own (unpatched) modules
    monkeypatch.setattr(preparation.DocumentPreparer, "__call__",
                        lambda self, d: here["prepared"].append(d.id) or prepare(self, d))
    monkeypatch.setattr(RedactedDocuments, "redact", lambda self, d: here["redacted"].append(d.id) or redact(self, d))
    monkeypatch.setattr(preparation, "whole_text_keys", lambda text: here["keyed"].append(text) or key(text))
    for name in ("text_key", "nfc_text_key"):  # the fingerprints use the keys made in the preparation
        real = getattr(fingerprints, name)
        monkeypatch.setattr(fingerprints, name, lambda text, real=real: here["keyed"].append(text) or real(text))
    # the owner record's HMAC key, fixed for both builds (else a new random one each): fingerprints comparable
    monkeypatch.setattr(format_module, "secrets", types.SimpleNamespace(token_bytes=lambda n: bytes(range(n))))
    try:
        single = build_corpus(docs, tmp_path / "one" / "c", config, lm=lm, embedder=HashEmbedder())
        assert {k: len(v) for k, v in here.items()} == {"prepared": 60, "redacted": 60, "keyed": 60}
        for calls in here.values():
            calls.clear()
        monkeypatch.setattr(RayDocumentPool, "_in_order", spy)
        monkeypatch.setattr(build_module, "shard_keyword_sets", None)  # the driver extracts no keyword itself
        distributed = build_corpus(docs, tmp_path / "ray" / "c", config, lm=lm, embedder=HashEmbedder(),
                                   ray=RayOptions(workers=2, chunks_per_worker=2))
    finally:
        torch.set_num_threads(threads)
    assert on_workers == ["prepare", "keywords", "embed"]
    assert here == {"prepared": [], "redacted": [], "keyed": []}  # no document redacted, cut or keyed by the driver
    assert not ray.is_initialized()  # the build stopped the local cluster it started
    texts = [r["text"] for r in single.records]
    assert len(texts) >= 3 and sum(bool(t.strip()) for t in texts) >= 2
    files = sorted(p.name for p in (tmp_path / "one" / "c").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "ray" / "c").iterdir()) and "texts.jsonl" in files
    for name in files:
        if name != "manifest.json":
            assert (tmp_path / "ray" / "c" / name).read_bytes() == (tmp_path / "one" / "c" / name).read_bytes(), name
    one, other = (json.loads((tmp_path / d / "c" / "manifest.json").read_text()) for d in ("one", "ray"))
    assert one["privacy"] == other["privacy"]  # the workers' token charges reached the driver's ledgers
    assert one.keys() == other.keys() and one["checksums"]["files"] == other["checksums"]["files"]
    assert all(one[k] == other[k] for k in one if k not in ("created", "checksums"))  # "created": the build's time
    assert distributed.privacy_report.epsilon == single.privacy_report.epsilon <= 4.0
    # the owner record: counts of the cut and of the redaction, input fingerprint, keyed fingerprints
    one, other = (json.loads((tmp_path / d / "c.owner.json").read_text()) for d in ("one", "ray"))
    assert one["timings"].keys() == other["timings"].keys() and "read_and_redact_s" in one["timings"]
    assert {k: v for k, v in one.items() if k != "timings"} == {k: v for k, v in other.items() if k != "timings"}
    spans = one["redaction_counts"]["spans"]
    assert spans["IDENTIFIER"] >= 15 and spans["PHONE_NUMBER"] == 15 and one["truncation"][0]["documents_cut"] == 12
    assert one["fingerprints"]["fingerprints"] == sorted(
        keyed.hex() for keyed in fingerprints.unit_fingerprints(docs, bytes(range(32))))  # the input's own


def test_ray_workers_must_load_the_drivers_model(tmp_path, tiny_folder, tiny_lm, fakes_on_workers):
    import ray

    from dpsynrag.errors import ConfigError

    config = BuildConfig(epsilon=4.0, delta=1e-3, K=3, R=2, L=2, k=10, T=2, extractor="rarity", open_vocabulary=True,
                         self_filter=False, max_document_tokens=16, seed=0, model=str(tiny_folder))
    with pytest.raises(ConfigError, match="--model"):  # tiny_lm is named "tiny-llama", the workers' model the folder
        build_corpus(DOCS, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder(), ray=RayOptions(workers=1))
    assert not ray.is_initialized()


def test_llm_keywords_on_ray_shards_equal_the_local_extraction(tiny_folder, tiny_lm, monkeypatch):
    """The paper's LLM extractor on 2 Ray workers, 3 shards of 5 documents: each document's capped set as
    extracted in one local pass; an actor whose model is not the driver's is refused."""
    import dpsynrag.pipeline.ray_stages as stages
    from dpsynrag.errors import ConfigError
    from dpsynrag.pipeline.distributed import ray_session

    monkeypatch.setattr(stages, "SHARD_DOCUMENTS", 5)
    lm = LanguageModel.load(str(tiny_folder), device="cpu", dtype="float32")
    spec = stages.KeywordSpec("llm", 3, 4, "en", "[REDACTED]", frozenset({"redacted"}), None)
    pairs = [(text, ("alice",) if i % 3 == 0 else ()) for i, text in enumerate(DOCS[:13])]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as in the Ray workers
    try:
        local = list(stages.shard_keyword_sets(spec, iter(pairs), lm=lm))
        with ray_session(RayOptions(workers=2)):
            pool = stages.RayDocumentPool(RayOptions(workers=2), model=str(tiny_folder), lm=lm)
            done = []
            on_ray = list(pool.keyword_sets(spec, iter(pairs), on_progress=done.append))
            pool.close()
            wrong = stages.RayDocumentPool(RayOptions(workers=1), model=str(tiny_folder), lm=tiny_lm)
            with pytest.raises(ConfigError, match="driver's 'tiny-llama': name"):
                wrong.keyword_sets(spec, iter(pairs))
            wrong.close()
    finally:
        torch.set_num_threads(threads)
    assert on_ray == local and done == [5, 5, 3]
    assert sum(map(len, local)) > 0


def test_cli_build_passes_ray_and_threads_options_and_checks_them(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import dpsynrag.pipeline.build as build_module
    import dpsynrag.threads as threads_module
    from dpsynrag.cli import app
    from dpsynrag.errors import DataError

    seen = {}

    def fake_build(documents, out, config, **kw):
        seen.update(kw)
        raise DataError("stop here")

    monkeypatch.setattr(build_module, "build_corpus", fake_build)
    monkeypatch.setattr(threads_module, "configure_threads", lambda n=None: seen.setdefault("threads", n))
    data = tmp_path / "docs.jsonl"
    data.write_text("".join(json.dumps({"text": t}) + "\n" for t in DOCS))
    base = ["build", str(data), "--out", str(tmp_path / "c"), "--epsilon", "4", "--delta", "1e-3", "--no-self-filter",
            "--R", "4"]
    runner = CliRunner()
    result = runner.invoke(app, [*base, "--ray-address", "auto", "--ray-workers", "3", "--threads", "2"])
    assert result.exit_code == 2 and "stop here" in result.output
    assert seen["ray"] == RayOptions(address="auto", workers=3, threads=2) and seen["threads"] == 2
    seen.clear()
    result = runner.invoke(app, base)
    assert result.exit_code == 2 and "ray" not in seen and seen["threads"] is None
    result = runner.invoke(app, [*base, "--ray-workers", "2"])
    assert result.exit_code != 0 and "--ray-workers needs --ray" in result.output
    result = runner.invoke(app, [*base[:-2], "--ray", "--method", "dp-synth"])
    assert result.exit_code != 0 and "does not apply to --method dp-synth" in result.output
    result = runner.invoke(app, [*base, "--ray", "--ray-workers", "0"])
    assert result.exit_code != 0 and "--ray-workers must be an integer >= 1" in result.output


def tiny_lm_prompt(lm, document: str) -> str:
    return lm.chat_prompt(f"rephrase the following document : {document}")


def test_ray_tasks_fill_whole_forwards_in_cluster_order():
    # 10 clusters of 3 rows, 4 tasks wanted, 8-row forwards: target ceil(ceil(30 / 4) / 8) * 8 = 8 rows a task
    assert plan_tasks([3] * 10, tasks=4, step_rows=8) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    # 64-row forwards, 7 clusters of 10 rows, 14 tasks wanted: one task of 70 rows (not 7 tasks padded to 64 rows)
    assert plan_tasks([10] * 7, tasks=14, step_rows=64) == [list(range(7))]
    # a cluster larger than the target is a task of its own; every cluster once, in order
    assert plan_tasks([1, 40, 1, 1, 1], tasks=4, step_rows=4) == [[0, 1], [2, 3, 4]]
    from dpsynrag.errors import ConfigError

    with pytest.raises(ConfigError, match="plan_tasks"):
        plan_tasks([3], tasks=0, step_rows=8)


def test_worker_identity_holds_device_dtype_and_the_manifests_weight_hashes(tiny_folder):
    from dpsynrag.corpus.writer import model_fingerprint

    lm = LanguageModel.load(str(tiny_folder), device="cpu", dtype="float32")
    me = model_identity(lm)
    assert me["device"] == "cpu" and me["dtype"] == "torch.float32" and me["vocab_size"] == lm.vocab_size
    assert me["sha256"] == model_fingerprint(lm)["sha256"] and "model.safetensors" in me["sha256"]
    assert identity_mismatch(dict(me), me) is None
    assert identity_mismatch({**me, "dtype": "torch.bfloat16"}, me) == "dtype 'torch.bfloat16' where the driver has 'torch.float32'"
    assert identity_mismatch({**me, "device": "cuda"}, me) == "device 'cuda' where the driver has 'cpu'"
    other = {**me, "sha256": {**me["sha256"], "model.safetensors": "0" * 64}}
    assert identity_mismatch(other, me) == "model files differ (SHA-256 of model.safetensors)"
    half = LanguageModel.load(str(tiny_folder), device="cpu", dtype="bfloat16")
    assert identity_mismatch(model_identity(half), me) == "dtype 'torch.bfloat16' where the driver has 'torch.float32'"


def test_prediction_tasks_are_checkpointed_as_each_comes_back(tmp_path):
    """Tasks arrive out of order; each is on disk before the next; a build stopped after two tasks keeps
    exactly those, and the resumed one asks only for the rest."""
    checkpoint = BuildCheckpoint(tmp_path / "c")
    seen_on_disk = []

    def tasks(left):
        assert left == list(range(6))
        for chunk in ([4, 5], [0, 1]):
            yield chunk, [[10 * r, r] for r in chunk]
            seen_on_disk.append(sorted(json.loads((checkpoint.path / TEXTS).read_text())))
        raise KeyboardInterrupt  # the worker of [2, 3] was lost: the build stops

    with pytest.raises(KeyboardInterrupt):
        checkpoint.predict_tasks(tasks, 6)
    assert seen_on_disk == [["4", "5"], ["0", "1", "4", "5"]]
    asked = []

    def rest(left):
        asked.append(list(left))
        yield [3, 2], [[30, 3], [20, 2]]

    assert checkpoint.predict_tasks(rest, 6) == [[10 * r, r] for r in range(6)]
    assert asked == [[2, 3]]
    from dpsynrag.errors import CheckpointError

    with pytest.raises(CheckpointError, match="left 1 clusters"):
        BuildCheckpoint(tmp_path / "d").predict_tasks(lambda left: iter([([0], [[1]])]), 2)


def test_a_lost_ray_worker_loses_only_its_tasks(tiny_folder):
    """8 tasks on 2 workers; one worker process is killed after the first task comes back: its queued tasks run
    on the other, every cluster gets the tokens of a local run and each accountant is charged once per token."""
    import os
    import signal

    import psutil
    import ray

    from dpsynrag.pipeline.distributed import ray_prediction_tasks, ray_session

    lm = LanguageModel.load(str(tiny_folder), device="cpu", dtype="float32")
    prompts = [tiny_lm_prompt(lm, d) for d in DOCS[:16]]
    clusters = [prompts[i:i + 2] for i in range(16)]  # overlapping members, the last alone
    args = dict(clip=4.0, temperature=1.0, max_new_tokens=4, random=SeededRandom(5))

    def streams():
        return [SeededRandom(5).child(f"cluster-{r}") for r in range(len(clusters))]

    def own_processes():  # the local Ray cluster this test starts runs under this process
        children = psutil.Process().children(recursive=True)
        for p in children:
            try:
                p.info = p.as_dict(["name", "cmdline"])
            except psutil.Error:
                p.info = {"name": None, "cmdline": None}
        return children

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        local = PrivatePredictionDecoder(lm, **args).generate_ids(clusters, [ZCDPAccountant() for _ in clusters],
                                                                  streams=streams())
        accountants = [ZCDPAccountant() for _ in clusters]
        out, killed = {}, []
        with ray_session(RayOptions(workers=2)):
            for chunk, ids in ray_prediction_tasks(RayOptions(workers=2), str(tiny_folder), model_identity(lm), args,
                                                   clusters, accountants, streams()):
                out.update(zip(chunk, ids))
                if not killed:
                    victims = [p for p in own_processes()  # this session's workers, not another job's
                               if "_PredictionWorker" in " ".join(p.info["cmdline"] or [p.info["name"] or ""])]
                    assert len(victims) == 2
                    os.kill(victims[0].pid, signal.SIGKILL)
                    killed.append(victims[0].pid)
            assert len([p for p in own_processes()
                        if "_PredictionWorker" in " ".join(p.info["cmdline"] or [])]) <= 1
        assert not ray.is_initialized()
    finally:
        torch.set_num_threads(threads)
    assert [out[r] for r in range(len(clusters))] == local
    assert [len(a.ledger) for a in accountants] == [4] * len(clusters)  # 4 tokens each, charged once


def test_a_lost_ray_worker_of_the_document_stages_loses_only_its_shards(monkeypatch):
    """Rarity keywords of 16 documents in 8 shards on 2 workers, one worker killed after the first shard comes
    back: its shards run on the other; every set as extracted locally, in document order."""
    import os
    import signal

    import psutil

    import dpsynrag.pipeline.ray_stages as stages
    from dpsynrag.pipeline.distributed import ray_session

    monkeypatch.setattr(stages, "SHARD_DOCUMENTS", 2)
    spec = stages.KeywordSpec("rarity", 3, None, "en", None, frozenset(), None)
    pairs = [(text, ()) for text in DOCS[:16]]
    local = list(stages.shard_keyword_sets(spec, iter(pairs)))
    killed = []

    def kill_one(size):
        if not killed:
            victims = []  # this test's Ray cluster runs under this process (another job's workers are not its)
            for p in psutil.Process().children(recursive=True):
                try:
                    if "_DocumentWorker" in " ".join(p.cmdline()):
                        victims.append(p)
                except psutil.Error:
                    pass
            assert len(victims) == 2
            os.kill(victims[0].pid, signal.SIGKILL)
            killed.append(size)

    with ray_session(RayOptions(workers=2)):
        pool = stages.RayDocumentPool(RayOptions(workers=2))
        on_ray = list(pool.keyword_sets(spec, iter(pairs), on_progress=kill_one))
        assert len(pool._actors) == 1  # the lost one is gone from the pool
        pool.close()
    assert killed == [2] and on_ray == local and len(local) == 16
