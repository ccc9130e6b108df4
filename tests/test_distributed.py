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
from dpsynrag.pipeline.distributed import RayOptions
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


def test_ray_build_on_two_local_workers_writes_the_single_process_corpus_byte_for_byte(tmp_path, tiny_folder):
    import ray

    lm = LanguageModel.load(str(tiny_folder))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as in the Ray workers (one CPU each): same kernels, same rounding
    # public-prior with a per-cluster public prompt (its released keyword): member rows and public rows both travel
    config = BuildConfig(epsilon=4.0, delta=1e-3, K=3, R=6, L=2, k=10, T=8, extractor="rarity", open_vocabulary=True,
                         self_filter=False, max_document_tokens=16, seed=3, model=str(tiny_folder),
                         decoding="public-prior", public_prompt="rephrase the following document : {keyword}")
    try:
        single = build_corpus(DOCS, tmp_path / "one", config, lm=lm, embedder=HashEmbedder())
        distributed = build_corpus(DOCS, tmp_path / "ray", config, lm=lm, embedder=HashEmbedder(),
                                   ray=RayOptions(workers=2, chunks_per_worker=2))
    finally:
        torch.set_num_threads(threads)
    assert not ray.is_initialized()  # the build stopped the local cluster it started
    texts = [r["text"] for r in single.records]
    assert len(texts) >= 3 and sum(bool(t.strip()) for t in texts) >= 2
    assert (tmp_path / "ray" / "texts.jsonl").read_bytes() == (tmp_path / "one" / "texts.jsonl").read_bytes()
    assert (tmp_path / "ray" / "index_ids.json").read_bytes() == (tmp_path / "one" / "index_ids.json").read_bytes()
    one, other = (json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("one", "ray"))
    assert one["privacy"] == other["privacy"]  # the workers' token charges reached the driver's ledgers
    assert distributed.privacy_report.epsilon == single.privacy_report.epsilon <= 4.0


def test_ray_workers_must_load_the_drivers_model(tmp_path, tiny_folder, tiny_lm):
    from dpsynrag.errors import ConfigError

    config = BuildConfig(epsilon=4.0, delta=1e-3, K=3, R=2, L=2, k=10, T=2, extractor="rarity", open_vocabulary=True,
                         self_filter=False, max_document_tokens=16, seed=0, model=str(tiny_folder))
    with pytest.raises(ConfigError, match="--model"):  # tiny_lm is named "tiny-llama", the workers' model the folder
        build_corpus(DOCS, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder(), ray=RayOptions(workers=1))


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
