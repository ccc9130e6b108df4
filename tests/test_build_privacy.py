"""What a DP-SynRAG build reports (issue 12): the guarantee is the plan fixed before any data is read,
never the data-dependent realised spend; integer noisy counts; truncation counted only in the owner-only
file. Fast: the tiny Llama and the hash embedder, seeded."""

from __future__ import annotations

import io
import json
import string

import pytest
from fakes import HashEmbedder
from rich.console import Console

from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.privacy.conversions import epsilon_from_rho
from dpsynrag.privacy.report import REALISED_LABEL

# Every document holds "fever" and "rash" twice and one word of its own: with K = 3 the open-vocabulary
# histogram releases fever and rash (counts ~120) and none of the 120 count-1 words (threshold 16).
UNIQUE = [f"zq{a}{b}x" for a in string.ascii_lowercase for b in string.ascii_lowercase[:5]][:120]
DOCS = [f"fever fever rash rash patient {w}" for w in UNIQUE]
OPEN = dict(epsilon=10.0, delta=1e-3, K=3, R=8, L=8, k=5, T=3, open_vocabulary=True, extractor="rarity",
            self_filter=False, seed=0)


@pytest.fixture(scope="module")
def open_build(tmp_path_factory, tiny_model):
    from conftest import make_tiny_tokenizer

    from dpsynrag.models import LanguageModel

    lm = LanguageModel(tiny_model, make_tiny_tokenizer(), name="tiny-llama")
    out = tmp_path_factory.mktemp("open") / "c"
    return build_corpus(DOCS, out, BuildConfig(**OPEN), lm=lm, embedder=HashEmbedder()), out


def test_report_is_the_plan_when_fewer_keywords_than_L_are_released(open_build):
    """`--K 3 --R 8 --L 8 --open-vocabulary`: the histogram releases 2 keywords, fewer than the 3 clusters a
    document may join (min(L, R, K)), so the run pays for 2 clusters. That spend depends on the data; the
    report's epsilon is the plan's (3 clusters), and the smaller spend is labelled as not the guarantee."""
    corpus, _ = open_build
    assert [r["keyword"] for r in corpus.records] == ["fever", "rash"]  # fewer than L_effective = 3
    privacy = corpus.manifest["privacy"]
    config = BuildConfig(**OPEN)
    plan = config.plan()
    assert privacy["rho_total"] == plan.rho and privacy["delta_terms"] == plan.delta
    assert privacy["epsilon"] == epsilon_from_rho(plan.rho, 1e-3 - plan.delta)
    assert 9.99 < privacy["epsilon"] <= 10.0  # planned; below 10 only by the integer threshold's delta slack
    clusters = privacy["mechanisms"][1]
    assert clusters["num_branches"] == 8 and clusters["multiplier"] == 3
    realised = privacy["realised_spend"]
    assert realised["label"] == REALISED_LABEL == "realised spend (not the guarantee)"
    assert realised["mechanisms"][1]["num_branches"] == 2 and realised["mechanisms"][1]["multiplier"] == 2
    assert realised["epsilon"] < 8.0 < privacy["epsilon"]
    assert corpus.privacy_report.epsilon == privacy["epsilon"]
    console = Console(width=200, file=io.StringIO(), record=True)
    console.print(corpus.privacy_report.table())
    assert REALISED_LABEL in console.export_text()


def test_noisy_counts_are_integers(open_build):
    corpus, out = open_build
    lines = (out / "texts.jsonl").read_text().splitlines()
    counts = [json.loads(line)["noisy_count"] for line in lines]
    assert all(type(c) is int for c in counts) and all(abs(c - 120) <= 6 * 3.873 + 2 for c in counts)


def test_truncation_is_counted_only_in_the_owner_file(tmp_path, tiny_lm):
    """Issue 12 (6): how many documents were cut (to max_document_tokens, and by the embedder) is a
    data-dependent count: it goes to DIR.owner.json, never into the published folder."""

    class CuttingEmbedder(HashEmbedder):
        """Reads at most 9 words of a text (a stand-in for sentence-transformers' max_seq_length)."""

        max_tokens = 9

        def count_truncated(self, texts):
            return sum(len(t.split()) > self.max_tokens for t in texts)

    words = "the patient has fever and cough with pain in the head and a rash on the skin".split()
    docs = [" ".join(words[: 6 + i]) for i in range(12)]  # 6 ... 17 words
    config = BuildConfig(epsilon=10.0, delta=1e-3, K=3, R=4, L=2, k=5, T=3, vocabulary_size=2000,
                         max_document_tokens=12, extractor="rarity", self_filter=False, seed=1)
    corpus = build_corpus(docs, tmp_path / "c", config, lm=tiny_lm, embedder=CuttingEmbedder())
    owner = json.loads((tmp_path / "c.owner.json").read_text())
    assert (tmp_path / "c.owner.json").stat().st_mode & 0o777 == 0o600  # owner-only, whatever the umask
    lm_stage, embed_stage = owner["truncation"]
    assert lm_stage["max_tokens"] == 12 and lm_stage["documents_cut"] == 5  # 13 ... 17 words (one token each)
    # the embedder sees the texts already cut to 12 words, and only those of documents in some cluster
    assert embed_stage["max_tokens"] == 9 and 0 < embed_stage["documents_cut"] <= 9
    published = corpus.manifest["truncation"]
    assert [s["max_tokens"] for s in published] == [12, 9]
    assert all(s["documents_cut"] == "owner-only: see c.owner.json" for s in published)
    assert "truncation counts" in owner["note"]
