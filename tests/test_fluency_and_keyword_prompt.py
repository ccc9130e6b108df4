"""The fluency filter (post-processing of the released texts) and per-cluster public prompts that hold
the cluster's released keyword (``{keyword}`` in ``public_prompt``)."""

import json

import numpy as np
import pytest
import torch
from fakes import HashEmbedder
from test_decoding import TINY_DOCS

import dpsynrag.models.decoder as decoder_module
from dpsynrag.pipeline.build import KEYWORD_SLOT, REPHRASE_PROMPT, build_corpus
from dpsynrag.pipeline.config import BuildConfig

BASE = dict(epsilon=4.0, delta=1e-3, K=3, R=3, L=2, k=10, T=4, extractor="rarity", open_vocabulary=True,
            self_filter=False, max_document_tokens=16, seed=1)


def test_reply_logprobs_is_the_mean_token_log_probability(tiny_lm):
    texts = ["the patient has fever", "blue skin", ""]
    got = tiny_lm.reply_logprobs(texts)
    prefix = tiny_lm.encode(tiny_lm.chat_prompt(""))
    for text, value in zip(texts[:2], got[:2]):
        ids = tiny_lm.tokenizer(text, add_special_tokens=False)["input_ids"]
        total = 0.0
        for j, t in enumerate(ids):  # one full forward per token: the reference
            with torch.no_grad():
                logits = tiny_lm.model(torch.tensor([prefix + ids[:j]])).logits[0, -1, : tiny_lm.vocab_size].double()
            total += float(torch.log_softmax(logits, dim=-1)[t])
        assert value == pytest.approx(total / len(ids), abs=1e-5)
        assert value < 0
    assert got[2] == -np.inf  # no tokens: never kept by a threshold


def test_fluency_threshold_only_changes_kept(tmp_path, tiny_lm):
    plain = build_corpus(TINY_DOCS, tmp_path / "a", BuildConfig(**BASE), lm=tiny_lm, embedder=HashEmbedder())
    fluency = tiny_lm.reply_logprobs([r["text"] for r in plain.records])
    cut = float(np.median(fluency))
    filtered = build_corpus(TINY_DOCS, tmp_path / "b", BuildConfig(**BASE, fluency_threshold=cut), lm=tiny_lm,
                            embedder=HashEmbedder())
    # same release (seeded): same texts and privacy report; only `kept` follows the threshold
    assert [r["text"] for r in filtered.records] == [r["text"] for r in plain.records]
    assert [r["kept"] for r in filtered.records] == [bool(k and f >= cut) for k, f in
                                                      zip((r["kept"] for r in plain.records), fluency)]
    assert 0 < sum(r["kept"] for r in filtered.records) < len(filtered.records) or len(set(fluency)) == 1
    a = json.loads((tmp_path / "a" / "manifest.json").read_text())["privacy"]
    b = json.loads((tmp_path / "b" / "manifest.json").read_text())["privacy"]
    assert a["mechanisms"] == b["mechanisms"] and a["epsilon"] == b["epsilon"]
    with pytest.raises(ValueError):
        BuildConfig(**BASE, fluency_threshold=0.5)  # a mean log-probability is < 0


def test_keyword_title_prefixes_the_released_keyword_after_the_filters(tmp_path, tiny_lm):
    plain = build_corpus(TINY_DOCS, tmp_path / "a", BuildConfig(**BASE), lm=tiny_lm, embedder=HashEmbedder())
    cut = float(np.median(tiny_lm.reply_logprobs([r["text"] for r in plain.records])))
    raw = build_corpus(TINY_DOCS, tmp_path / "b", BuildConfig(**BASE, fluency_threshold=cut), lm=tiny_lm,
                       embedder=HashEmbedder())
    titled = build_corpus(TINY_DOCS, tmp_path / "c", BuildConfig(**BASE, fluency_threshold=cut, keyword_title=True),
                          lm=tiny_lm, embedder=HashEmbedder())
    assert len(titled.records) == len(raw.records) > 0
    for t, r in zip(titled.records, raw.records):
        assert t["keyword"] == r["keyword"] and t["text"] == f"{r['keyword']}: {r['text']}"
    # the fluency filter read the generated text alone: the same texts kept
    assert [r["kept"] for r in titled.records] == [r["kept"] for r in raw.records]
    a = json.loads((tmp_path / "b" / "manifest.json").read_text())["privacy"]
    c = json.loads((tmp_path / "c" / "manifest.json").read_text())["privacy"]
    assert a["mechanisms"] == c["mechanisms"] and a["epsilon"] == c["epsilon"]


def test_keyword_slot_gives_each_cluster_its_released_keyword(tmp_path, tiny_lm, monkeypatch):
    seen = []  # the public prompts of each call (one call per checkpointed batch of clusters, in order)
    original = decoder_module.PrivatePredictionDecoder.generate_ids

    def spy(self, clusters, accountants, **kw):
        seen.extend(kw.get("public_prompts") or [None] * len(clusters))
        return original(self, clusters, accountants, **kw)

    monkeypatch.setattr(decoder_module.PrivatePredictionDecoder, "generate_ids", spy)
    template = REPHRASE_PROMPT.format(document=KEYWORD_SLOT)
    config = BuildConfig(**BASE, decoding="public-prior", public_weight=0.5, public_prompt=template)
    corpus = build_corpus(TINY_DOCS, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    keywords = [r["keyword"] for r in corpus.records]
    assert seen == [tiny_lm.chat_prompt(template.replace(KEYWORD_SLOT, w)) for w in keywords]
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert manifest["decoding"]["public_prompt"] == template  # the template, as configured
    assert manifest["privacy"]["epsilon"] <= 4.0


def test_public_prompt_that_cannot_apply_is_refused():
    with pytest.raises(ValueError, match="runs no public prompt"):
        BuildConfig(**BASE, public_prompt="hello {keyword}")  # paper decoding, weight 0: it would be ignored
    with pytest.raises(ValueError, match="never sees a document"):
        BuildConfig(**BASE, decoding="public-prior", public_prompt="Rephrase: {document}")
    BuildConfig(**BASE, public_weight=0.5, public_prompt="hello {keyword}")  # paper with omega > 0 runs it


def test_a_build_whose_histogram_releases_nothing_leaves_no_private_intermediate(tmp_path, tiny_lm):
    """Two documents cannot pass the open-vocabulary threshold: the build fails, and neither a corpus
    folder nor its checkpoint folder (which held each document's keywords) is left behind."""
    from dpsynrag.errors import DataError
    from dpsynrag.pipeline.checkpoint import work_folder

    out = tmp_path / "c"
    with pytest.raises(DataError, match="released no keyword"):
        build_corpus(["secretword one", "secretword two"], out, BuildConfig(**BASE), lm=tiny_lm, embedder=HashEmbedder())
    assert not out.exists() and not work_folder(out).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []
