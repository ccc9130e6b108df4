"""Issue 29, item 3: a build whose prompts cannot fit the model's context window is refused up front,
before any document goes through a model or any mechanism draws, with an error that names only public
numbers (the template's tokens, --max-document-tokens, T, the model's positions); the bound is exact at
its edge (the largest --max-document-tokens it suggests passes, one more is refused)."""

from __future__ import annotations

import re

import pytest
from conftest import make_tiny_model, make_tiny_tokenizer
from fakes import HashEmbedder

import dpsynrag.pipeline.build as build
from dpsynrag.errors import ConfigError
from dpsynrag.models import LanguageModel
from dpsynrag.pipeline.build import build_corpus, resolve_public_prompt
from dpsynrag.pipeline.checkpoint import work_folder
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.pipeline.context import BOUNDARY_TOKENS, check_context, prompt_bounds
from dpsynrag.pipeline.keywords import KEYWORD_PROMPT
from dpsynrag.pipeline.prompts import REPHRASE_PROMPT
from dpsynrag.privacy.ledger import PrivacyLedger
from dpsynrag.rng import RandomSource

POSITIONS = 64
CONFIG = dict(epsilon=10.0, delta=1e-3, K=3, R=4, L=2, k=5, T=6, vocabulary_size=2000, extractor="rarity",
              self_filter=False, seed=3)
SHORT = [f"the patient has fever and cough number {i}" for i in range(12)]


@pytest.fixture(scope="module")
def small_lm():
    """The tiny test Llama told it has only 64 positions (a small-context model)."""
    model = make_tiny_model()
    model.config.max_position_embeddings = POSITIONS
    lm = LanguageModel(model, make_tiny_tokenizer(), name="tiny-64")
    assert lm.max_positions == POSITIONS
    return lm


def _template(lm, user: str, suffix: str = "") -> int:
    return len(lm.encode(lm.chat_prompt(user) + suffix))


def _refusal(lm, **fields) -> str:
    config = BuildConfig(**{**CONFIG, **fields})
    with pytest.raises(ConfigError) as refused:
        check_context(lm, config, public_prompt=resolve_public_prompt(config), filter_prompt=None, vocabulary=None)
    return " ".join(str(refused.value).split())


def test_the_rephrase_bound_is_exact_at_its_edge(small_lm):
    template = _template(small_lm, REPHRASE_PROMPT.format(document=""))
    room = POSITIONS - template - 2 * BOUNDARY_TOKENS - 6  # the largest --max-document-tokens that fits with T = 6
    assert room >= 1
    message = _refusal(small_lm, max_document_tokens=room + 1)
    assert message == (
        f"the prompts of this build do not fit the context window of tiny-64 ({POSITIONS} positions): private "
        f"prediction (rephrase prompt) needs up to {template} (template) + {room + 1} (--max-document-tokens) + "
        f"{2 * BOUNDARY_TOKENS} (where it meets the template) + 6 (generated) = {POSITIONS + 1} tokens. No document "
        f"went through the model and nothing was drawn; lower --max-document-tokens to at most {room}, or use a "
        "model with a longer context."
    )
    check_context(small_lm, BuildConfig(**{**CONFIG, "max_document_tokens": room}), public_prompt=None,
                  filter_prompt=None, vocabulary=None)  # fits: no error


def test_every_stage_is_bounded(small_lm):
    """The LLM extractor's prompt with its 6K generated tokens, the response prefix, a public prompt with the
    released keyword (bounded by the longest vocabulary word) and the self-filter prompt around T tokens."""
    config = BuildConfig(**{**CONFIG, "extractor": "llm", "K": 2, "response_prefix": "fever :", "T": 5,
                            "decoding": "public-prior", "public_prompt": "rephrase {keyword} .", "public_weight": 0.5})
    filter_prompt = "does {document} hold a diagnosis ?"
    vocabulary = ["fever", "cough", "feverfever"]
    bounds = {b.stage: b for b in prompt_bounds(small_lm, config, public_prompt=config.public_prompt,
                                                filter_prompt=filter_prompt, vocabulary=vocabulary)}
    longest = max(len(small_lm.tokenizer(w, add_special_tokens=False)["input_ids"]) for w in vocabulary)
    expected = {
        "keyword extraction (LLM extractor prompt)": (
            _template(small_lm, KEYWORD_PROMPT.format(K=2, document="")), 256, 12),
        "private prediction (rephrase prompt)": (_template(small_lm, REPHRASE_PROMPT.format(document=""), "fever :"),
                                                 256, 5),
        "private prediction (public prompt)": (_template(small_lm, "rephrase  .", "fever :"), longest, 5),
        "self-filter (filter prompt)": (_template(small_lm, "does fever : hold a diagnosis ?"), 5, 0),
    }
    assert {s: (b.template_tokens, b.inserted_tokens, b.new_tokens) for s, b in bounds.items()} == expected
    assert all(b.total == t + i + 2 * BOUNDARY_TOKENS + n for b, (t, i, n) in zip(bounds.values(), expected.values()))
    message = _refusal(small_lm, extractor="llm", K=2)  # the first stage that does not fit is named
    assert "keyword extraction (LLM extractor prompt) needs up to" in message and "+ 12 (generated)" in message


def test_a_small_context_build_is_refused_before_anything_is_read_or_drawn(tmp_path, monkeypatch, small_lm):
    """Through build_corpus: refused with the same message whatever the documents (a function of public
    numbers only), with no keyword extracted, no mechanism drawn, no ledger record and no folder left."""

    def used(*args, **kwargs):
        raise AssertionError("a document was read by a model, or a mechanism drawn, before the context check")

    for name in ("shard_keyword_sets", "gaussian_histogram", "gaussian_sparse_histogram", "noisy_unit_vector_sum",
                 "exponential_threshold"):
        monkeypatch.setattr(build, name, used)
    for draw in ("discrete_gaussian", "add_gaussian", "categorical"):
        monkeypatch.setattr(RandomSource, draw, used)
    ledger = PrivacyLedger(tmp_path / "ledger")
    messages = []
    for i, docs in enumerate((SHORT, [" ".join(["fever"] * (300 + j)) for j in range(12)])):
        out = tmp_path / f"c{i}"
        with pytest.raises(ConfigError) as refused:
            build_corpus(docs, out, BuildConfig(**CONFIG), lm=small_lm, embedder=HashEmbedder(), ledger=ledger)
        messages.append(" ".join(str(refused.value).split()))
        assert not out.exists() and not work_folder(out).exists()
    assert messages[0] == messages[1] == _refusal(small_lm)
    assert re.search(r"\+ 256 \(--max-document-tokens\)", messages[0]) and f"({POSITIONS} positions)" in messages[0]
    assert PrivacyLedger(tmp_path / "ledger").releases() == []


def test_a_small_context_dp_synth_build_is_refused_before_anything_is_drawn(tmp_path, monkeypatch, small_lm):
    """DP-Synth's private prediction has the same rephrase prompt: refused up front, with the same bound."""
    from dpsynrag.baselines import DPSynthConfig, build_dp_synth
    from dpsynrag.models import PrivatePredictionDecoder

    def drawn(*args, **kwargs):
        raise AssertionError("a draw before the context check")

    monkeypatch.setattr(PrivatePredictionDecoder, "generate", drawn)
    monkeypatch.setattr(RandomSource, "randbelow", drawn)
    monkeypatch.setattr(RandomSource, "uniform", drawn)
    ledger = PrivacyLedger(tmp_path / "ledger")
    config = DPSynthConfig(epsilon=10.0, delta=1e-3, num_batches=2, T=6, self_filter=False, seed=3)
    with pytest.raises(ConfigError) as refused:
        build_dp_synth(SHORT, tmp_path / "c", config, lm=small_lm, embedder=HashEmbedder(), ledger=ledger)
    message = " ".join(str(refused.value).split())
    template = _template(small_lm, REPHRASE_PROMPT.format(document=""))
    total = template + 256 + 2 * BOUNDARY_TOKENS + 6
    assert (f"private prediction (rephrase prompt) needs up to {template} (template) + 256 (--max-document-tokens) "
            f"+ {2 * BOUNDARY_TOKENS} (where it meets the template) + 6 (generated) = {total} tokens.") in message
    assert not (tmp_path / "c").exists() and PrivacyLedger(tmp_path / "ledger").releases() == []
