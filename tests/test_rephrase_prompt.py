"""A per-task rephrase prompt (``rephrase_prompt``, ``--rephrase-prompt``): public text each member's
document is put into, with the cluster's released keyword in ``{keyword}``."""

import json
import re

import pytest
from fakes import HashEmbedder
from test_context import CONFIG, POSITIONS, _template, small_lm  # noqa: F401 (fixture)
from test_decoding import TINY_DOCS

import dpsynrag.models.decoder as decoder_module
from dpsynrag.pipeline.build import build_corpus, resolve_public_prompt
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.errors import ConfigError
from dpsynrag.pipeline.context import BOUNDARY_TOKENS, check_context, prompt_bounds
from dpsynrag.pipeline.prompts import (
    REPHRASE_PROMPT,
    render_rephrase,
    rephrase_prefix_template,
    rephrase_public_prompt,
)

BASE = dict(epsilon=4.0, delta=1e-3, K=3, R=3, L=2, k=10, T=4, extractor="rarity", open_vocabulary=True,
            self_filter=False, max_document_tokens=16, seed=1)
TEMPLATE = "Topic {keyword} . Text : {document}"


def test_render_fills_both_slots_in_one_pass():
    assert render_rephrase(TEMPLATE, "a b", keyword="fever") == "Topic fever . Text : a b"
    # a document holding the slot's text is inserted as written, never rendered again
    assert render_rephrase(TEMPLATE, "see {keyword} and {document}", keyword="k") == \
        "Topic k . Text : see {keyword} and {document}"
    # other braces stay literal; keyword None keeps its slot for a later per-cluster fill
    assert render_rephrase("{x} {keyword}: {document}", "d", keyword=None) == "{x} {keyword}: d"
    assert rephrase_public_prompt(TEMPLATE) == "Topic {keyword} . Text : "
    assert rephrase_public_prompt(REPHRASE_PROMPT) == REPHRASE_PROMPT.format(document="")
    assert rephrase_prefix_template(TEMPLATE) == "Topic {document} . Text : {document}"


@pytest.mark.parametrize("bad", ["no slot here", "{document} twice {document}", "only {keyword}"])
def test_a_rephrase_prompt_needs_its_document_slot_exactly_once(bad):
    with pytest.raises(ValueError, match="exactly once"):
        BuildConfig(**BASE, rephrase_prompt=bad)
    with pytest.raises(ValueError):
        BuildConfig(**BASE, rephrase_prompt="")
    assert BuildConfig(**BASE, rephrase_prompt=TEMPLATE).rephrase_prompt == TEMPLATE
    # a misspelt placeholder would reach the model as written: refused, named
    with pytest.raises(ValueError, match=r"holds \{keywords\}: only \{document\}"):
        BuildConfig(**BASE, rephrase_prompt="About {keywords}: {document}")
    assert BuildConfig(**BASE, rephrase_prompt='JSON {"a": 1} {document}').rephrase_prompt  # other braces stay literal


def test_default_public_prompt_follows_the_rephrase_prompt():
    config = BuildConfig(**BASE, decoding="public-prior", rephrase_prompt=TEMPLATE)
    assert resolve_public_prompt(config) == "Topic {keyword} . Text : "
    assert resolve_public_prompt(BuildConfig(**BASE, decoding="public-prior")) == REPHRASE_PROMPT.format(document="")
    given = BuildConfig(**BASE, decoding="public-prior", rephrase_prompt=TEMPLATE, public_prompt="hello")
    assert resolve_public_prompt(given) == "hello"  # an explicit public prompt wins


def _spy(monkeypatch):
    seen = {"members": [], "public": []}
    original = decoder_module.PrivatePredictionDecoder.generate_ids

    def spy(self, clusters, accountants, **kw):
        seen["members"].extend(clusters)
        seen["public"].extend(kw.get("public_prompts") or [None] * len(clusters))
        return original(self, clusters, accountants, **kw)

    monkeypatch.setattr(decoder_module.PrivatePredictionDecoder, "generate_ids", spy)
    return seen


def test_each_member_reads_its_cluster_keyword_and_the_release_costs_the_same(tmp_path, tiny_lm, monkeypatch):
    seen = _spy(monkeypatch)
    config = BuildConfig(**BASE, decoding="public-prior", public_weight=0.5, rephrase_prompt=TEMPLATE)
    corpus = build_corpus(TINY_DOCS, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    keywords = [r["keyword"] for r in corpus.records]
    assert len(seen["members"]) == len(keywords) == 3
    head, rest = tiny_lm.chat_prompt("Topic \0 . Text : \1").split("\0")
    middle, tail = rest.split("\1")
    pattern = re.compile(f"{re.escape(head)}(.*){re.escape(middle)}(.*){re.escape(tail)}", re.S)
    docs_with = {}  # document text -> the keywords it was read with
    for keyword, prompts in zip(keywords, seen["members"]):
        assert prompts, "every released cluster has members here"
        for prompt in prompts:
            match = pattern.fullmatch(prompt)
            assert match is not None, prompt
            assert match.group(1) == keyword  # the cluster's released keyword, not another's
            assert match.group(2) in TINY_DOCS and keyword in match.group(2)
            docs_with.setdefault(match.group(2), set()).add(keyword)
    # L = 2: a document in two clusters is read twice, once with each cluster's keyword
    assert any(len(ws) == 2 for ws in docs_with.values())
    assert seen["public"] == [tiny_lm.chat_prompt(f"Topic {w} . Text : ") for w in keywords]
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert manifest["prompt"] == TEMPLATE and manifest["decoding"]["public_prompt"] == "Topic {keyword} . Text : "
    # public text only: the same mechanisms and epsilon as the paper's prompt
    monkeypatch.undo()
    plain = build_corpus(TINY_DOCS, tmp_path / "p", BuildConfig(**BASE, decoding="public-prior", public_weight=0.5),
                         lm=tiny_lm, embedder=HashEmbedder())
    other = json.loads((tmp_path / "p" / "manifest.json").read_text())
    assert other["prompt"] == REPHRASE_PROMPT
    assert manifest["privacy"]["mechanisms"] == other["privacy"]["mechanisms"]
    assert manifest["privacy"]["epsilon"] == other["privacy"]["epsilon"] <= 4.0
    assert [r["keyword"] for r in plain.records] == keywords  # stage 1 draws are the same


def test_the_context_bound_counts_the_keyword_in_the_rephrase_prompt(small_lm):  # noqa: F811
    vocabulary = ["fever", "cough", "feverfever"]
    longest = max(len(small_lm.tokenizer(w, add_special_tokens=False)["input_ids"]) for w in vocabulary)
    config = BuildConfig(**{**CONFIG, "rephrase_prompt": "about {keyword} and {keyword} : {document}"})
    bound = {b.stage: b for b in prompt_bounds(small_lm, config, public_prompt=None, filter_prompt=None,
                                               vocabulary=vocabulary)}["private prediction (rephrase prompt)"]
    assert bound.template_tokens == _template(small_lm, "about  and  : ")
    assert bound.keyword_tokens == 2 * (longest + 2 * BOUNDARY_TOKENS)
    assert bound.inserted_tokens == config.max_document_tokens and bound.template_by == "--rephrase-prompt"
    assert bound.total == bound.template_tokens + bound.keyword_tokens + 256 + 2 * BOUNDARY_TOKENS + config.T


def _refused(lm, config) -> str:
    with pytest.raises(ConfigError) as refused:
        check_context(lm, config, public_prompt=None, filter_prompt=None, vocabulary=None)
    return " ".join(str(refused.value).split())


def test_a_refusal_counts_the_keyword_apart_and_its_advice_fits(small_lm):  # noqa: F811
    """Open vocabulary: a keyword is bounded by --max-document-tokens, so the advised value must leave room for
    the document and the keyword (64 positions, T = 6): m + (m + 4) + 4 + template + 6 <= 64."""
    template = "about {keyword} : {document}"
    config = BuildConfig(**{**CONFIG, "rephrase_prompt": template, "max_document_tokens": 40})
    message = _refused(small_lm, config)
    fixed = _template(small_lm, "about  : ")
    room = (POSITIONS - fixed - 6 - 2 * 2 * BOUNDARY_TOKENS) // 2  # the largest m that fits, in closed form
    assert f"needs up to {fixed} (template) + {40 + 2 * BOUNDARY_TOKENS} ({{keyword}}: the longest keyword) + 40 " \
           f"(--max-document-tokens)" in message
    assert message.endswith(f"lower --max-document-tokens to at most {room}, shorten --rephrase-prompt, or use a "
                            "model with a longer context.")
    check_context(small_lm, BuildConfig(**{**CONFIG, "rephrase_prompt": template, "max_document_tokens": room}),
                  public_prompt=None, filter_prompt=None, vocabulary=None)  # the advice fits
    assert "at most" in _refused(small_lm, BuildConfig(**{**CONFIG, "rephrase_prompt": template,
                                                            "max_document_tokens": room + 1}))
    # a template too long for any document: only the prompt and the model can change
    long = BuildConfig(**{**CONFIG, "rephrase_prompt": "word " * 80 + "{document}"})
    assert _refused(small_lm, long).endswith("No document went through the model and nothing was drawn; shorten "
                                             "--rephrase-prompt, or use a model with a longer context.")
