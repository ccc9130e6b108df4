"""Batch invariance (issue 12, item 1): a document's keywords, embedding and next-token logits are a
function of that document alone, bit for bit, whatever other documents share its batch — the DP
proofs assume it (one document must not change another's computation).

Every check compares a document computed alone with the same document computed among 40 others
that differ in length (other padding buckets) and first tokens (one document starts "a", the
others "the patient doctor", as in the issue), with exact equality (``torch.equal`` /
``np.array_equal``), in float32 and bfloat16 on CPU, on the tiny models of tests/conftest.py.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from fakes import HashEmbedder
from test_embedder import tiny_st_folder  # noqa: F401 - a fixture: the tiny sentence-transformers model

from conftest import TINY_WORDS, make_tiny_tokenizer
from dpsynrag.models import Embedder, LanguageModel, PrivatePredictionDecoder
from dpsynrag.models.engine import RowBatch, default_step_rows
from dpsynrag.pipeline.keywords import LLMKeywordExtractor
from dpsynrag.rng import SeededRandom

TEMPLATE = "rephrase the following document : {document}"
_BODY = [w for w in TINY_WORDS if w not in ("rephrase", ":", "the", "a")]


def documents(n: int, seed: int) -> list[str]:
    """``n`` documents starting "the patient doctor", 1 to 70 more words (several padding buckets)."""
    rng = np.random.default_rng(seed)
    return ["the patient doctor " + " ".join(rng.choice(_BODY, size=int(rng.integers(1, 71)))) for _ in range(n)]


LONE = "a " + " ".join(_BODY[:6])  # the odd one out: another first token, another length
MATES = documents(40, seed=0)


@pytest.fixture(scope="module", params=[torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def model(request, tiny_model):
    return copy.deepcopy(tiny_model).to(request.param)


def make_lm(model, engine=None) -> LanguageModel:
    return LanguageModel(model, make_tiny_tokenizer(), name="tiny-llama", engine=engine)


def prompt(lm: LanguageModel, doc: str) -> str:
    return lm.chat_prompt(TEMPLATE.replace("{document}", doc))


# ---------------------------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------------------------


def watched_logits(lm, docs, rows_per_doc, watched, rows_per_group, step_rows=None):
    """First logits and three decode steps of the rows of ``docs[watched]``; the watched rows are fed
    tokens 9, 14, 3, the others other tokens; before the last step every other document's first row
    is dropped (``keep``)."""
    prompts = [lm.encode(prompt(lm, d)) for d in docs]
    row_doc = [i for i, k in enumerate(rows_per_doc) for _ in range(k)]
    batch = RowBatch(lm.runner, prompts, row_doc, max_new_tokens=3, public_prefix=lm.public_prefix(TEMPLATE),
                     rows_per_group=rows_per_group, step_rows=step_rows)
    mine = torch.as_tensor([d == watched for d in row_doc])
    out = [batch.first_logits[mine]]
    for step, token in enumerate([9, 14, 3]):
        if step == 2:
            first_row = {}
            for r, d in enumerate(row_doc):
                first_row.setdefault(d, r)
            keep = [r for r, d in enumerate(row_doc) if d == watched or r != first_row[d]]
            batch.keep(torch.as_tensor(keep))
            row_doc, mine = [row_doc[r] for r in keep], mine[keep]
        tokens = torch.as_tensor([token if d == watched else 20 + (r % 30) for r, d in enumerate(row_doc)])
        out.append(batch.step(tokens)[mine])
    return out


@pytest.mark.parametrize("engine", ["shared", "fast", "generic"])
@pytest.mark.parametrize("rows_per_group", [1, 4])
def test_engine_rows_do_not_depend_on_batch_mates(model, engine, rows_per_group):
    lm = make_lm(model, engine)
    if rows_per_group == 1:  # as greedy decoding: one row per prompt
        alone = watched_logits(lm, [LONE], [1], 0, 1)
        among = watched_logits(lm, MATES[:17] + [LONE] + MATES[17:], [1] * 41, 17, 1)
    else:  # as private prediction: a document continued once per cluster it is in
        alone = watched_logits(lm, [LONE], [3], 0, 4)
        among = watched_logits(lm, MATES[:17] + [LONE] + MATES[17:], [1 + i % 6 for i in range(17)] + [3]
                               + [1 + i % 5 for i in range(23)], 17, 4)
    assert len(alone) == len(among) == 4
    for a, b in zip(alone, among):
        assert a.dtype == torch.float32 and torch.isfinite(a).all()
        assert torch.equal(a, b)
    # and the other way round: a long "the patient doctor" document with and without the odd one
    alone = watched_logits(lm, [MATES[5]], [2], 0, rows_per_group)
    among = watched_logits(lm, MATES + [LONE], [2] * 41, 5, rows_per_group)
    assert all(torch.equal(a, b) for a, b in zip(alone, among))


@pytest.mark.parametrize("engine", ["shared", "fast"])
def test_wide_forwards_do_not_depend_on_batch_mates(model, engine):
    """The forwards of a large build on CPU (64 rows, default_step_rows(cpu, expected_rows >= 256)),
    with one query slot per stored prompt (L = 1): the 41-document batch needs more than one."""
    lm = make_lm(model, engine)
    assert default_step_rows(torch.device("cpu"), expected_rows=256) == 64
    assert default_step_rows(torch.device("cpu"), expected_rows=255) == default_step_rows(torch.device("cpu")) == 32
    rows = [1 + i % 3 for i in range(41)]  # 82 rows: two forwards, the second completed with dummies
    alone = watched_logits(lm, [LONE], [2], 0, 1, step_rows=64)
    among = watched_logits(lm, MATES[:17] + [LONE] + MATES[17:], rows[:17] + [2] + rows[18:], 17, 1, step_rows=64)
    assert all(torch.equal(a, b) for a, b in zip(alone, among))
    narrow = watched_logits(lm, [LONE], [2], 0, 1)  # 32-row forwards: the same law, within rounding
    assert all(torch.allclose(a, b, atol=1e-2) for a, b in zip(alone, narrow))


def test_engine_still_computes_the_model(tiny_lm):
    """Batch invariance is not bought with wrong numbers: the watched rows equal a direct forward."""
    ids = tiny_lm.encode(prompt(tiny_lm, LONE))
    with torch.no_grad():
        direct = [tiny_lm.model(torch.tensor([ids + [9, 14, 3][:k]])).logits[0, -1] for k in range(4)]
    among = watched_logits(tiny_lm, MATES[:17] + [LONE] + MATES[17:], [1] * 41, 17, 1)
    for d, b in zip(direct, among):
        assert torch.allclose(b[0], d, atol=1e-4)


def test_public_prefix_is_the_template_before_the_document(tiny_lm):
    prefix = tiny_lm.public_prefix(TEMPLATE)
    ids = tiny_lm.encode(prompt(tiny_lm, LONE))
    # "<|user|> rephrase the following document" (":" dropped: it could merge with the document)
    assert prefix == ids[:5] and tiny_lm.tokenizer.decode(prefix) == "<|user|> rephrase the following document"
    system = tiny_lm.public_prefix("the question", system="document : {document}")
    assert system == tiny_lm.encode(tiny_lm.chat_prompt("the question", system="document : a"))[:2]
    assert tiny_lm.public_prefix("no placeholder here") == []


# ---------------------------------------------------------------------------------------------
# what the build releases through mechanisms: keywords, embeddings, private prediction
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("batch_size", [None, 3])
def test_keywords_of_a_document_do_not_depend_on_batch_mates(model, batch_size, monkeypatch):
    lm = make_lm(model)
    extractor = LLMKeywordExtractor(lm, K=3, batch_size=batch_size)
    seen = []
    greedy = lm.generate_greedy
    monkeypatch.setattr(lm, "generate_greedy", lambda *a, **k: seen.append(k["public_prefix"]) or greedy(*a, **k))
    alone = extractor.extract([LONE]) + extractor.extract([MATES[3]])
    among = extractor.extract(MATES[:20] + [LONE] + MATES[20:])
    assert alone == [among[20], among[3]]
    assert any(alone) and len({tuple(k) for k in among}) > 5  # real, varied keyword lists
    # only the public template is shared: the prefix ends before the document
    assert seen[0] == lm.public_prefix("Extract 3 single words from the following document that represent key "
                                       "information specific to the content.\nDocument: {document}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_embedding_of_a_document_does_not_depend_on_batch_mates(tiny_st_folder, dtype):  # noqa: F811
    emb = Embedder.load(tiny_st_folder, device="cpu")
    emb.model.to(dtype)
    lone = "a patient with red skin"
    mates = ["the patient doctor " + " ".join(["fever cough rash"] * k) for k in range(1, 15)]
    alone = emb.encode([lone])[0]
    among = emb.encode(mates[:5] + [lone] + mates[5:])
    assert np.array_equal(alone, among[5])
    for i, m in enumerate(mates):
        assert np.array_equal(emb.encode([m])[0], among[i if i < 5 else i + 1])


@pytest.mark.parametrize("engine", ["shared", "fast", "generic"])
@pytest.mark.parametrize("public_weight", [0.0, 0.5])
def test_private_prediction_scores_do_not_depend_on_other_clusters(model, engine, public_weight):
    lm = make_lm(model, engine)
    dec = PrivatePredictionDecoder(
        lm, clip=0.3, temperature=1.0, max_new_tokens=4, random=SeededRandom(0),
        public_prompt=lm.chat_prompt("rephrase the following document :"), public_weight=public_weight,
        prompt_prefix=lm.public_prefix(TEMPLATE),
    )
    lone, big = [prompt(lm, LONE)], [prompt(lm, d) for d in MATES]
    for suffix in [(), (9, 14, 3)]:
        z_lone = dec.aggregated_logits([lone], suffix)[0]
        z_big = dec.aggregated_logits([big], suffix)[0]
        together = dec.aggregated_logits([big[:7], lone, big, big[30:] + lone], suffix)
        assert torch.equal(together[1], z_lone)
        assert torch.equal(together[2], z_big)  # the 40-member cluster: the lone document is not in it
        assert not torch.equal(z_lone, z_big)


def test_dp_rag_answer_does_not_depend_on_other_questions_documents(model):
    """One decoder call serves all questions of a DP-RAG call (public weight 0): the documents
    retrieved for another question share the batch. Question 1's scores z at every step — recorded
    where they are sampled — are the same with and without question 2."""
    from dpsynrag.baselines import DPRAGConfig, DPRAGSession

    class Recording(SeededRandom):  # deterministic draws (the argmax), recording each step's log-weights
        def __init__(self):
            super().__init__(0)
            self.steps = []

        def categorical(self, log_weights):
            self.steps.append(np.array(log_weights, copy=True))
            return np.asarray(log_weights).argmax(axis=-1)

    docs = [LONE, *MATES[:12]]
    cfg = DPRAGConfig(epsilon_per_query=50.0, delta=1e-3, utility="top-k", top_k=3, max_new_tokens=4,
                      max_document_tokens=60, public_weight=0.0)
    runs = []
    for questions in (["a patient with flu"], ["a patient with flu", "the doctor and the blood test"]):
        session = DPRAGSession(docs, cfg, lm=make_lm(model), embedder=HashEmbedder(dim=32), seed=0)
        session._sampling_random = Recording()
        answers = session.answer(questions)
        runs.append((answers, session._sampling_random.steps))
    (alone, z_alone), (both, z_both) = runs
    assert alone[0].text == both[0].text
    assert len(z_alone) == len(z_both) == 4 and all(z.shape[0] == 2 for z in z_both)
    for a, b in zip(z_alone, z_both):
        assert np.array_equal(a[0], b[0])
    assert not np.array_equal(z_both[0][0], z_both[0][1])  # question 2 retrieved other documents
