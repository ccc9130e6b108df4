"""The query-time rivals of DP-RAG (issue 45): each method's accounting against its closed form, MuRAG's
per-document filter inside a session (loss only when retrieved, dropped past the budget), the per-query
methods' refusal past their planned questions, the registry (eval answerer) and ``query --method NAME``."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
from fakes import NOTES, HashEmbedder
from typer.testing import CliRunner

from dpsynrag.baselines.common import SAFETY
from dpsynrag.baselines.dp_ksa import DPKSAConfig, DPKSASession
from dpsynrag.baselines.dp_vote import DPSparseVoteConfig, DPSparseVoteSession, DPVoteConfig, DPVoteSession
from dpsynrag.baselines.murag import MuRAGAdaConfig, MuRAGAdaSession, MuRAGConfig, MuRAGSession
from dpsynrag.baselines.query_time import shard_of
from dpsynrag.errors import PrivacyBudgetExceededError
from dpsynrag.methods import get_method
from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon

EPS, DELTA = 10.0, 1e-3


def rho_total(eps=EPS, delta=DELTA):
    return rho_from_epsilon(eps, delta) * (1 - SAFETY)


# ------------------------------------------------------------------------------ closed forms


@pytest.mark.parametrize("R, T, tau", [(10, 16, 1.0), (3, 70, 0.7), (50, 4, 2.0)])
def test_murag_costs_closed_form(R, T, tau):
    cal = MuRAGConfig(epsilon=EPS, delta=DELTA, max_retrievals=R, max_new_tokens=T, temperature=tau).calibrate()
    B = rho_total()
    assert cal.rho_budget == pytest.approx(B, rel=1e-12)
    assert cal.rho_generation == pytest.approx(T * (cal.clip / tau) ** 2 / 2, rel=1e-12)  # T (c/tau)^2 / 2
    assert cal.rho_generation == pytest.approx(B / R, rel=1e-9) and cal.rho_generation <= B / R
    assert epsilon_from_rho(cal.rho_budget, DELTA) <= EPS


def test_murag_ada_splits_a_use_between_histogram_and_generation():
    cal = MuRAGAdaConfig(epsilon=EPS, delta=DELTA, max_retrievals=8, histogram_fraction=0.25).calibrate()
    use = rho_total() / 8
    assert cal.rho_histogram == pytest.approx(0.25 * use) == pytest.approx(1 / (2 * cal.sigma_histogram**2))
    assert cal.rho_histogram + cal.rho_generation == pytest.approx(use, rel=1e-9)


@pytest.mark.parametrize("m, T", [(1, 16), (100, 8), (1000, 24)])
def test_dp_vote_rag_closed_form(m, T):
    cfg = DPVoteConfig(epsilon=EPS, delta=DELTA, queries=m, max_new_tokens=T)
    cal = cfg.calibrate()
    assert T * cal.epsilon_token**2 / 8 == pytest.approx(rho_total() / m, rel=1e-12)  # T eps_tok^2 / 8
    plan = DPVoteSession.plan_of(cfg)
    assert plan.rho == pytest.approx(rho_total(), rel=1e-12)
    assert epsilon_from_rho(plan.rho, DELTA) <= EPS


@pytest.mark.parametrize("m, C, f", [(10, 4, 0.5), (500, 2, 0.3)])
def test_dp_sparse_vote_rag_closed_form(m, C, f):
    cfg = DPSparseVoteConfig(epsilon=EPS, delta=DELTA, queries=m, max_paid=C, svt_fraction=f)
    cal = cfg.calibrate()
    svt = (cal.epsilon1 + cal.epsilon2) ** 2 / 2  # AboveThreshold: (eps1 + eps2)-DP -> (eps1 + eps2)^2 / 2
    assert C * (svt + cal.epsilon_token**2 / 8) == pytest.approx(rho_total() / m, rel=1e-12)
    assert svt == pytest.approx(f * rho_total() / m / C, rel=1e-12)
    assert DPSparseVoteSession.plan_of(cfg).rho == pytest.approx(rho_total(), rel=1e-12)


@pytest.mark.parametrize("m, frac", [(10, 0.5), (1000, 0.2)])
def test_dp_ksa_closed_form(m, frac):
    cfg = DPKSAConfig(epsilon=EPS, delta=DELTA, queries=m, ptr_delta_fraction=frac)
    cal = cfg.calibrate()
    assert cal.delta_ptr == pytest.approx(frac * DELTA / m)
    plan = DPKSASession.plan_of(cfg)
    assert plan.delta == pytest.approx(frac * DELTA)
    assert plan.rho == pytest.approx(m * cal.epsilon_ptr**2 / 2, rel=1e-12)  # m eps_ptr^2 / 2
    # the accountant converts rho at delta minus the PTR delta terms: exactly the target
    assert epsilon_from_rho(plan.rho, DELTA - plan.delta) == pytest.approx(EPS, rel=1e-8)
    assert epsilon_from_rho(plan.rho, DELTA - plan.delta) <= EPS


@pytest.mark.parametrize("m, t", [(1, 10), (10, 32), (100, 116), (1000, 433)])
def test_dp_ksa_default_voters_can_pass_the_test(m, t):
    """Issue 53: at 16 voters the test needed a gap of 116 votes at m = 100 and never passed. The default M
    is now max(16, t), t the least gap at which the test passes with probability 1/2 (t = 2 + z0 with
    P[Lap_Z(2/eps_ptr) >= z0] <= delta_ptr), and each voter holds k keywords, so a unanimous ensemble's gap is M."""
    cfg = DPKSAConfig(epsilon=EPS, delta=DELTA, queries=m)
    cal = cfg.calibrate()
    r = math.exp(-cal.epsilon_ptr / 2)
    assert r ** (t - 2) / (1 + r) <= cal.delta_ptr < r ** (t - 3) / (1 + r)  # t is the least such gap
    assert (cal.pass_gap, cfg.voters, cfg.keywords_per_voter) == (t, max(16, t), cfg.keywords)
    assert cal.can_pass
    few = DPKSAConfig(epsilon=EPS, delta=DELTA, queries=m, voters=t - 1, keywords_per_voter=5)
    assert (few.voters, few.keywords_per_voter, few.calibrate().can_pass) == (t - 1, 5, False)


def test_dp_ksa_warns_when_its_voters_cannot_pass(tiny_lm, emb):
    cfg = DPKSAConfig(epsilon=EPS, delta=DELTA, queries=100, voters=16, max_new_tokens=2, voter_tokens=3)
    with pytest.warns(UserWarning, match="needs a gap of 116 votes and 16 voters cannot reach it"):
        DPKSASession(NOTES, cfg, lm=tiny_lm, embedder=emb, seed=0)


def test_shards_depend_on_each_document_alone():
    texts = [f"note {i}" for i in range(200)]
    before = [shard_of(t, 8, "salt") for t in texts]
    assert before == [shard_of(t, 8, "salt") for t in texts[::-1]][::-1]  # no dependence on the others
    assert np.bincount(before, minlength=8).min() >= 10  # a roughly even split (200 / 8 = 25 expected)
    assert before != [shard_of(t, 8, "other salt") for t in texts]


# ------------------------------------------------------------------------------ sessions


@pytest.fixture()
def emb():
    return HashEmbedder()


def test_murag_filter_charges_only_retrieved_documents_and_drops_them_past_the_budget(tiny_lm, emb):
    cfg = MuRAGConfig(epsilon=EPS, delta=DELTA, relevance_threshold=0.9, max_retrievals=2, max_new_tokens=2)
    s = MuRAGSession(NOTES, cfg, lm=tiny_lm, embedder=emb, seed=0)
    q = "the patient has fever and cough"
    scores = s._scores(q)
    relevant = np.flatnonzero(scores >= 0.9)
    assert 0 < relevant.size < len(NOTES)
    rho_gen = s.calibration.rho_generation
    for asked in range(1, 4):
        s.answer([q])
        losses = np.array([s._filter.loss(i) for i in range(len(NOTES))])
        assert np.all(losses[scores < 0.9] == 0.0)  # never retrieved: never charged
        assert losses[relevant] == pytest.approx(min(asked, 2) * rho_gen)  # dropped after R = 2 uses
    assert s.queries == 3 and s.spent()["rho"] == pytest.approx(rho_total())
    assert s.report().epsilon <= EPS


@pytest.mark.parametrize("session, config", [
    (MuRAGSession, MuRAGConfig(epsilon=EPS, delta=DELTA, relevance_threshold=0.5, max_retrievals=2, max_new_tokens=2)),
    (MuRAGAdaSession, MuRAGAdaConfig(epsilon=EPS, delta=DELTA, top_k=3, floor=0.0, max_retrievals=3, max_new_tokens=2)),
])
def test_murag_spend_charges_as_answering_does_and_generates_nothing(tiny_lm, emb, monkeypatch, session, config):
    """The multi-query curve's warm-up: ``spend`` leaves every document's loss where answering the same
    questions (same seed) leaves it, and draws no token."""
    qs = ["the patient has fever and cough", "a rash on the skin", "the patient has fever and cough"]
    answered = session(NOTES, config, lm=tiny_lm, embedder=emb, seed=4)
    answered.answer(qs)
    from dpsynrag.models import PrivatePredictionDecoder

    def no_generation(*args, **kwargs):
        raise AssertionError("spend must not generate")

    monkeypatch.setattr(PrivatePredictionDecoder, "generate", no_generation)
    spent = session(NOTES, config, lm=tiny_lm, embedder=emb, seed=4)
    spent.spend(qs)
    losses = lambda s: [s._filter.loss(i) for i in range(len(NOTES))]
    assert losses(spent) == pytest.approx(losses(answered)) and max(losses(spent)) > 0
    assert spent.queries == 3


def test_murag_ada_threshold_reaches_top_k_and_charges_the_histogram(tiny_lm, emb):
    cfg = MuRAGAdaConfig(epsilon=1e4, delta=DELTA, top_k=5, floor=0.0, bin_width=0.05, max_retrievals=1,
                         max_new_tokens=1)  # a huge budget: the histogram is almost exact
    s = MuRAGAdaSession(NOTES, cfg, lm=tiny_lm, embedder=emb, seed=0)
    q = "the doctor has a blue skin test"
    scores = s._scores(q)
    theta = s._threshold(scores)
    edges = s.edges()
    above = lambda t: int(np.sum(scores >= t))
    assert above(theta) >= 5  # the highest edge with at least k documents at or above it
    higher = edges[edges > theta]
    assert higher.size == 0 or above(higher[0]) < 5
    counted = np.flatnonzero(scores >= 0.0)
    assert [s._filter.loss(i) for i in counted] == pytest.approx([s.calibration.rho_histogram] * counted.size)


@pytest.mark.parametrize("session, config", [
    (DPVoteSession, DPVoteConfig(epsilon=EPS, delta=DELTA, queries=2, voters=3, max_new_tokens=2)),
    (DPSparseVoteSession, DPSparseVoteConfig(epsilon=EPS, delta=DELTA, queries=2, voters=3, max_new_tokens=2)),
    (DPKSASession, DPKSAConfig(epsilon=EPS, delta=DELTA, queries=2, voters=3, max_new_tokens=2, voter_tokens=3)),
])
def test_per_query_rivals_refuse_past_their_planned_questions(tiny_lm, emb, session, config):
    s = session(NOTES, config, lm=tiny_lm, embedder=emb, seed=0)
    answers = s.answer(["the patient has fever", "blood test"])
    assert len(answers) == 2 and all(isinstance(a.text, str) and a.context == () for a in answers)
    spent = s.spent()
    assert spent["rho_spent"] == pytest.approx(s.plan.rho) and spent["queries"] == 2
    with pytest.raises(PrivacyBudgetExceededError):
        s.answer(["one more"])
    assert s.queries == 2 and s.spent()["rho_spent"] == pytest.approx(s.plan.rho)  # nothing charged
    assert s.report().epsilon <= EPS


def test_eval_answerer_plans_the_questions_and_reports_the_session(tiny_lm, emb):
    data = SimpleNamespace(documents=NOTES, queries=[SimpleNamespace(question=q) for q in ("fever?", "rash?", "test?")],
                           attacks=[], task=None)
    harness = SimpleNamespace(data=data, lm=tiny_lm, embedder=emb,
                              config=SimpleNamespace(model=None, preset=SimpleNamespace(delta=DELTA, seed=0)))
    spec = SimpleNamespace(epsilon=EPS, params={"voters": 2, "max_new_tokens": 2})
    answer, finish = get_method("dp-vote-rag").answerer(harness, spec)
    assert len(answer(data.queries[:2])) == 2 and len(answer(data.queries[2:])) == 1
    spent = finish()
    assert spent["queries"] == 3 and spent["rho_spent"] == pytest.approx(rho_total(), rel=1e-9)


# ------------------------------------------------------------------------------ command line


@pytest.fixture()
def tiny_models(monkeypatch, tiny_lm, emb):
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: emb))


@pytest.mark.parametrize("method", ["murag", "murag-ada", "dp-vote-rag", "dp-sparse-vote-rag", "dp-ksa"])
def test_query_method_rival_answers_and_reports(tmp_path, tiny_models, method):
    from dpsynrag.cli import app

    docs = tmp_path / "notes.jsonl"
    docs.write_text("".join(json.dumps({"text": t}) + "\n" for t in NOTES[:20]), encoding="utf-8")
    base = ["query", "--method", method, "--documents", str(docs), "--total-epsilon", "10", "--delta", "1e-3",
            "--T", "2", "--seed", "0", "--ledger", str(tmp_path / "ledger")]
    result = CliRunner().invoke(app, [*base, "the patient has fever", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output[result.output.index("{"):])
    assert out["spent"]["queries"] == 1 and out["privacy"]["epsilon"] <= 10.0
    assert out["ledger"] is not None
    qfile = tmp_path / "q.txt"
    qfile.write_text("fever?\nrash?\n", encoding="utf-8")
    result = CliRunner().invoke(app, [*base, "--questions", str(qfile), "--out", str(tmp_path / "a.jsonl")])
    assert result.exit_code == 0, result.output
    assert len((tmp_path / "a.jsonl").read_text().splitlines()) == 2 and "2 question(s)" in result.output


@pytest.mark.parametrize("args, message", [
    (["query", "--method", "murag", "q"], "--total-epsilon"),
    (["query", "--method", "dp-ksa", "--documents", "x.jsonl", "--total-epsilon", "1", "--delta", "1e-3",
      "--epsilon-per-query", "1", "q"], "--epsilon-per-query"),
    (["query", "--method", "dp-vote-rag", "--documents", "x.jsonl", "--total-epsilon", "1", "--delta", "1e-3",
      "--top-k", "3", "q"], "--top-k"),
    (["query", "--method", "murag", "--documents", "x.jsonl", "--total-epsilon", "-1", "--delta", "1e-3", "q"], "epsilon"),
])
def test_query_rival_bad_options_exit_2(tmp_path, monkeypatch, args, message):
    from dpsynrag.cli import app

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_rho_total_helper_matches_bun_steinke():
    rho = rho_total()
    assert rho + 2 * math.sqrt(rho * math.log(1 / DELTA)) == pytest.approx(EPS, rel=1e-8)


# ------------------------------------------------------------------------------ neighbouring collections


def test_murag_output_does_not_depend_on_a_document_it_does_not_retrieve(tiny_lm, emb):
    """Individual loss 0 for an unused document: adding a note below the threshold leaves the seeded answers
    and every other note's loss exactly as they were."""
    cfg = MuRAGConfig(epsilon=EPS, delta=DELTA, relevance_threshold=0.8, max_new_tokens=3)
    q = ["the patient has fever and cough", "the blood test was bad"]
    extra = "zebra quartz violin"  # shares no word with the questions: cosine well below 0.8
    assert max(float(emb.encode([extra])[0] @ emb.encode([x])[0]) for x in q) < 0.8
    a = MuRAGSession(NOTES, cfg, lm=tiny_lm, embedder=emb, seed=5)
    b = MuRAGSession([*NOTES, extra], cfg, lm=tiny_lm, embedder=emb, seed=5)
    assert [x.text for x in a.answer(q)] == [x.text for x in b.answer(q)]
    assert [a._filter.loss(i) for i in range(len(NOTES))] == [b._filter.loss(i) for i in range(len(NOTES))]
    assert b._filter.loss(len(NOTES)) == 0.0


def test_adding_a_document_changes_one_voter_only(tiny_lm, emb):
    cfg = DPVoteConfig(epsilon=EPS, delta=DELTA, voters=4, documents_per_voter=2)
    a = DPVoteSession(NOTES, cfg, lm=tiny_lm, embedder=emb, seed=0)
    changed = 0
    for extra in ("the patient has fever and cough today", "a new note on skin rash", "blood test"):
        b = DPVoteSession([*NOTES, extra], cfg, lm=tiny_lm, embedder=emb, seed=0)
        for q in ("the patient has fever and cough", "skin rash"):
            pa, pb = a._voter_prompts(q, a._scores(q)), b._voter_prompts(q, b._scores(q))
            assert sum(x != y for x, y in zip(pa, pb)) <= 1
            changed += pa != pb
    assert changed >= 1  # the closest new note does reach its voter's context