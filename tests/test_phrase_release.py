"""Phrase synthesis (issue 41, deliverable 2): the per-document phrase sets, the DP phrase release (sensitivity,
threshold, δ), its calibration and plan (Theorem 1 with m/(2σ_p²) in place of T/2·(c/τ)², cross-checked with
dp-accounting), and builds with the tiny model: shared phrases come out, a phrase of one document does not,
the report and ledger are the plan, one member row per person."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest
from fakes import HashEmbedder
from scipy.stats import binom

import dpsynrag.pipeline.phrase_synthesis as synthesis_module
from dpsynrag.data.io import Document
from dpsynrag.errors import ConfigError, InfeasibleBudgetError
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.pipeline.phrases import document_phrases, phrase_spans, phrase_text, segment_tokens
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.calibration import calibrate
from dpsynrag.privacy.conversions import epsilon_from_rho
from dpsynrag.privacy.discrete import discrete_gaussian_tail
from dpsynrag.privacy.phrase_release import phrase_noise, release_phrases
from dpsynrag.rng import SeededRandom

FACT = "The international transfer fee is 15 EUR for every payment abroad."


# ------------------------------------------------------------------------------------- phrase sets


def test_tokens_keep_numbers_currency_case_and_commas():
    assert segment_tokens("Fee: €15.00, or 20% off!\nCall Ann's line; done.") == [
        ["Fee"], ["€15.00,", "or", "20%", "off"], ["Call", "Ann's", "line"], ["done"]]
    # issue 51: a unit suffix stays on its number ("45p", "10GB", "5G"); canonical: one form per figure
    assert segment_tokens("45p a mile, 10GB, 5G") == [["45p", "a", "mile,", "10GB,", "5G"]]
    assert segment_tokens("It is forty-five pounds, or GBP 45, or £45.00.", canonical=True) == [
        ["It", "is", "£45,", "or", "£45,", "or", "£45"]]


def test_phrases_are_the_documents_own_ngrams_capped_and_ranked():
    text = "Dear bank, the transfer fee is 15 EUR. I am Ann from Leeds and I want the card."
    every = document_phrases(text, n=3, max_phrases=1000)
    # all distinct 3-grams inside each sentence (none across the full stop), minus stop-word-only ones; the
    # figure written in one form ("15 EUR" is "€15", so "is 15 EUR" is "fee is €15")
    assert set(every) == {"Dear bank, the", "bank, the transfer", "the transfer fee", "transfer fee is", "fee is €15",
                          "I am Ann", "am Ann from", "Ann from Leeds", "from Leeds and",
                          "Leeds and I", "and I want", "I want the", "want the card"}
    for m in (1, 4, 7):
        capped = document_phrases(text, n=3, max_phrases=m)
        assert capped == every[:m] and len(set(capped)) == m  # the first m of one public order
    # the released keyword's phrases first, then rarity (wordfreq), then the earlier position
    first = document_phrases(text, n=3, max_phrases=3, keyword="Fee")
    assert set(first) == {"the transfer fee", "transfer fee is", "fee is €15"}
    # a stated figure first (a number in under half of the words), then rarity: "leeds" is the rarest word
    assert document_phrases(text, n=3, max_phrases=3) == ("fee is €15", "Ann from Leeds", "the transfer fee")
    digits = document_phrases("Call 44 20 7946 0000 or Leeds", n=3, max_phrases=9)
    assert digits[0] == "0000 or Leeds" and len(digits) == 5  # the others are numbers in half or more words


def test_ordinals_are_one_token_and_public_strings_are_one_unit():
    assert segment_tokens("Invoices go out on the 1st of each month, by the 10th; not 3 rd") == [
        ["Invoices", "go", "out", "on", "the", "1st", "of", "each", "month,", "by", "the", "10th"], ["not", "3", "rd"]]
    # issue 51: a public string is one token wherever and however it is written, as the allow-list writes it,
    # and it carries content: "call 0800 123 4567 to bar the phone" is a releasable fact; e-mails and web
    # addresses are one token too; no phrase spans the redaction placeholder
    u = "\u00a0"
    text = "Call us on +44 (0)20 7946 0000. The fee is 15 EUR. Mail help@x.example.com or www.x.example.com/fees."
    public = document_phrases(text, n=3, max_phrases=100, public=["+44 20 7946 0000"])
    assert f"us on +44{u}20{u}7946{u}0000" in public  # "Call us on": stop words only
    assert segment_tokens(text, public=["+44 20 7946 0000"])[0] == ["Call", "us", "on", f"+44{u}20{u}7946{u}0000"]
    assert segment_tokens(text)[2] == ["Mail", "help@x.example.com", "or", "www.x.example.com/fees"]
    assert segment_tokens("I am [REDACTED] from Leeds", placeholder="[REDACTED]") == [["I", "am"], ["from", "Leeds"]]
    # contact phrases rank after the stated figure, before rarity alone
    assert document_phrases(text, n=3, max_phrases=3, public=["+44 20 7946 0000"]) == (
        "fee is €15", "help@x.example.com or www.x.example.com/fees", "Mail help@x.example.com or")


def test_phrases_are_a_function_of_the_document_alone():
    """The same document gives the same set whatever other documents were read before (no corpus statistic,
    no state carried between calls), and a placeholder-only or stop-word-only n-gram is never a phrase."""
    rng = random.Random(0)
    words = FACT.split() + ["alpha", "beta", "gamma", "[REDACTED]", "of", "the", "and"]
    docs = [" ".join(rng.choice(words) for _ in range(rng.randint(3, 30))) for _ in range(60)]
    alone = {d: document_phrases(d, n=4, max_phrases=5, placeholder="[REDACTED]") for d in docs}
    for order in range(3):
        rng.shuffle(docs)
        assert all(document_phrases(d, n=4, max_phrases=5, placeholder="[REDACTED]") == alone[d] for d in docs)
    assert document_phrases("of the [REDACTED] and [REDACTED] the of", n=2, max_phrases=9,
                            placeholder="[REDACTED]") == ()


def test_text_chains_overlapping_phrases_in_count_order():
    released = {"the fee is": 30, "fee is 15": 20, "is 15 eur": 12, "card arrives in": 40, "in 5 days": 9}
    assert phrase_spans(released, n=3) == [["card", "arrives", "in"], ["the", "fee", "is", "15", "eur"],
                                           ["in", "5", "days"]]
    # a cluster's text keeps its spans' words as released (the collection's texts are trimmed to clauses)
    assert phrase_text(released, n=3) == "Card arrives in. The fee is 15 eur. In 5 days."
    assert phrase_text(released, n=3, keyword="FEE") == "The fee is 15 eur. Card arrives in. In 5 days."
    assert phrase_text({"the fee is 15": 9, "The fee is 15,": 5}, n=4) == "The fee is 15."  # said once
    assert phrase_text({}, n=3) == ""


# ----------------------------------------------------------------------------------- the mechanism


def _counts(sets, m):
    return Counter(p for s in sets for p in dict.fromkeys(list(s)[:m]))


@pytest.mark.parametrize("seed", range(5))
def test_one_member_moves_the_counts_by_at_most_sqrt_m(seed):
    """Add/remove one member: the count vector moves by exactly sqrt(|P(d)|) <= sqrt(m) in L2, whatever the
    others hold (each of its at most m distinct phrases moves one count by 1)."""
    rng = random.Random(seed)
    m = 6
    vocab = FACT.lower().split() + [f"w{i}" for i in range(12)]
    docs = [" ".join(rng.choice(vocab) for _ in range(rng.randint(4, 25))) for _ in range(30)]
    sets = [document_phrases(d, n=2, max_phrases=m) for d in docs]
    for i in range(len(docs)):
        a, b = _counts(sets, m), _counts(sets[:i] + sets[i + 1:], m)
        diff = np.array([a[p] - b[p] for p in set(a) | set(b)])
        assert set(diff.tolist()) <= {0, 1} and math.sqrt((diff**2).sum()) == math.sqrt(len(sets[i])) <= math.sqrt(m)


def test_release_caps_each_member_and_charges_the_event_first():
    acc = ZCDPAccountant()
    many = [[f"p{i}" for i in range(50)]] * 40  # 40 members with 50 phrases each: only the first 4 count
    out = release_phrases(many, max_phrases=4, sigma=1.0, threshold=10.0, accountant=acc, random=SeededRandom(0))
    assert set(out) == {"p0", "p1", "p2", "p3"} and all(abs(v - 40) < 8 for v in out.values())
    (entry,) = acc.ledger
    assert entry.event.name == "phrase release" and entry.event.rho == 4 / 2
    assert entry.event.delta == pytest.approx(4 * discrete_gaussian_tail(1.0, 10), rel=1e-12)
    broke = ZCDPAccountant(rho_budget=1.0)
    with pytest.raises(Exception, match="budget"):
        release_phrases(many, max_phrases=4, sigma=1.0, threshold=10.0, accountant=broke, random=SeededRandom(0))


def test_threshold_and_delta_closed_form():
    """τ_p is the smallest integer with m · P[Z >= τ_p] <= δ_p (Z the discrete Gaussian), σ_p = sqrt(m/(2ρ))."""
    for m, rho, delta in ((16, 0.4, 5e-5), (4, 2.0, 1e-4), (64, 0.1, 1e-6)):
        sigma, tau = phrase_noise(m, rho, delta)
        assert sigma == pytest.approx(math.sqrt(m / (2 * rho)), rel=1e-15) and tau == int(tau) >= 1
        assert m * discrete_gaussian_tail(sigma, int(tau)) <= delta < m * discrete_gaussian_tail(sigma, int(tau) - 1)


def test_a_phrase_of_one_document_is_not_released_at_the_planned_delta():
    """1,000 seeded releases of a cluster where one member holds m = 16 phrases nobody else has (the demo's
    plan: σ_p = 2.006, τ_p = 9). Each such phrase passes with p = P[Z >= 9] (δ_p/m = 9.3e-6), so the 16,000
    draws release one with mean 0.15; the test fails at 3 or more, which a correct mechanism does with
    probability binom.sf(2, 16000, p) < 6e-4 (asserted below). The 20 shared phrases (count 30) always pass."""
    cal = BuildConfig(**DEMO_PHRASES).calibrate()
    m, sigma, tau = cal.phrase_max, cal.phrase_sigma, cal.phrase_threshold
    assert (m, round(sigma, 3), tau) == (16, 2.006, 9.0)
    p = discrete_gaussian_tail(sigma, int(tau))
    assert binom.sf(2, 1000 * m, p) < 6e-4
    shared = [f"shared {j}" for j in range(20)]
    members = [shared[:16]] * 30 + [[f"own {j}" for j in range(16)]]
    leaked = released_shared = 0
    rng = SeededRandom(2024)
    for run in range(1000):
        out = release_phrases(members, max_phrases=m, sigma=sigma, threshold=tau, accountant=ZCDPAccountant(),
                              random=rng.child(f"run-{run}"))
        leaked += sum(k.startswith("own") for k in out)
        released_shared += sum(k.startswith("shared") for k in out)
    assert leaked <= 2 and released_shared == 1000 * 16


# ---------------------------------------------------------------------------------- calibration, plan

DEMO_PHRASES = dict(epsilon=10.0, delta=1e-3, K=1, R=48, L=1, k=40, extractor="rarity", open_vocabulary=True,
                    synthesis="phrases", phrase_max=16, phrase_n=4, threshold_excess_weight=0.25)


@pytest.mark.parametrize("K, L, m, share", [(10, 5, 16, 2.5e-4), (1, 1, 8, 1e-4), (3, 2, 32, 5e-4)])
def test_plan_is_theorem_1_with_the_phrase_release(K, L, m, share):
    cal = calibrate(epsilon=10.0, delta=1e-3, K=K, L=L, phrase_max=m, phrase_delta=share)
    rho = K / (2 * cal.sigma_hist**2) + L * (cal.epsilon_theta**2 / 8 + 1 / (2 * cal.sigma_embed**2)
                                             + m / (2 * cal.phrase_sigma**2))
    plan = cal.plan(num_clusters=500)
    assert plan.rho == pytest.approx(rho, rel=1e-12) and rho == pytest.approx(cal.rho_total, rel=1e-9)
    assert cal.rho_total == pytest.approx(epsilon_rho(10.0, 1e-3 - share), rel=1e-12)  # δ share out first
    # δ terms: L clusters' δ_p, each m · P[Z >= τ_p] <= share / L
    assert plan.delta == pytest.approx(L * m * discrete_gaussian_tail(cal.phrase_sigma, int(cal.phrase_threshold)))
    assert plan.delta <= share and cal.delta_terms == pytest.approx(plan.delta, rel=1e-12)
    assert epsilon_from_rho(plan.rho, 1e-3 - plan.delta) <= 10.0
    assert cal.clip is None and "clip" not in cal.to_dict() and cal.to_dict()["phrase_max"] == m


def epsilon_rho(epsilon, delta):
    from dpsynrag.privacy.conversions import rho_from_epsilon

    return rho_from_epsilon(epsilon, delta)


def test_plan_converts_like_dp_accounting():
    """The phrase plan's ρ through Google's dp-accounting (RDP accountant on a ZCDpEvent) at the δ left after
    the δ terms: within 1% of the tight conversion, below Bun–Steinke, below the target."""
    import dp_accounting

    config = BuildConfig(**DEMO_PHRASES)
    plan = config.plan()
    rest = 1e-3 - plan.delta
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.ZCDpEvent(plan.rho))
    rdp = accountant.get_epsilon(rest)
    assert rdp == pytest.approx(epsilon_from_rho(plan.rho, rest, conversion="cks"), rel=0.01)
    assert rdp <= epsilon_from_rho(plan.rho, rest) <= 10.0


def test_bad_phrase_parameters_are_refused():
    with pytest.raises(ConfigError, match="phrase_delta"):
        calibrate(epsilon=10.0, delta=1e-3, phrase_max=8)
    with pytest.raises(ConfigError, match="phrase_max"):
        calibrate(epsilon=10.0, delta=1e-3, phrase_delta=1e-4)
    with pytest.raises(ConfigError, match="smaller than `delta`"):
        calibrate(epsilon=10.0, delta=1e-3, phrase_max=8, phrase_delta=1e-3)
    with pytest.raises(ConfigError, match="svt_max_paid"):
        calibrate(epsilon=10.0, delta=1e-3, phrase_max=8, phrase_delta=1e-4, svt_max_paid=3)
    with pytest.raises(InfeasibleBudgetError):
        calibrate(epsilon=0.05, delta=1e-3, phrase_max=8, phrase_delta=1e-4)
    with pytest.raises(ValueError, match="synthesis"):
        BuildConfig(epsilon=10.0, delta=1e-3, phrase_max=12)
    with pytest.raises(ValueError, match="group_size"):
        BuildConfig(epsilon=10.0, delta=1e-3, synthesis="phrases", group_size=4)
    assert BuildConfig(epsilon=10.0, delta=1e-3, synthesis="phrases").phrase_share == 2.5e-4


# ------------------------------------------------------------------------------------ builds (tiny)

SHARED = "the replacement card arrives in 5 working days"
BUILD = dict(epsilon=10.0, delta=1e-3, K=1, R=4, L=1, k=40, extractor="rarity", open_vocabulary=True,
             synthesis="phrases", phrase_max=8, phrase_n=4, self_filter=False, seed=0, max_document_tokens=48,
             threshold_excess_weight=0.25)


def _docs(n=60, seed=0):
    rng = random.Random(seed)
    openers = ["Hello,", "Hi team,", "Dear support,", "Good morning,"]
    return [f"{rng.choice(openers)} my card zorblecard broke. I read that {SHARED}. My code is q{i}x{i * 7}y "
            f"and my street is Street{i}." for i in range(n)]


def test_build_releases_shared_phrases_not_own_ones_and_reports_the_plan(tmp_path, tiny_lm):
    corpus = build_corpus(_docs(), tmp_path / "c", BuildConfig(**BUILD), lm=tiny_lm, embedder=HashEmbedder())
    texts = [r["text"] for r in corpus.records]
    assert any("replacement card arrives in 5" in t for t in texts)  # shared by all 60: released, chained
    assert not any("street" in t.lower() or "q1x" in t for t in texts)  # one document's own words
    privacy = corpus.manifest["privacy"]
    plan = BuildConfig(**BUILD).plan()
    assert privacy["rho_total"] == plan.rho and privacy["delta_terms"] == plan.delta
    assert privacy["epsilon"] == epsilon_from_rho(plan.rho, 1e-3 - plan.delta) <= 10.0
    branch = privacy["mechanisms"][1]["branch"]["events"]
    assert [e["name"] for e in branch] == ["cluster embedding sum", "similarity threshold", "phrase release"]
    assert branch[2]["l2_sensitivity"] == math.sqrt(8) and branch[2]["threshold"] == plan.events[1].branch.events[2].threshold
    assert corpus.manifest["decoding"]["decoding"] == "phrase release"


def test_one_member_row_per_person_gives_the_phrase_sets(tmp_path, tiny_lm, monkeypatch):
    """Per person: each cluster's phrase sets come from one member row per person (its one document), so the
    m cap (and √m) holds per person although persons have 3 documents each."""
    calls = []
    real = synthesis_module.document_phrases

    def spy(text, **kw):
        calls.append((kw["keyword"], text))
        return real(text, **kw)

    monkeypatch.setattr(synthesis_module, "document_phrases", spy)
    texts = _docs(90)
    docs = [Document(id=str(i), text=t, unit=f"p{i % 30}") for i, t in enumerate(texts)]
    unit_of = {t: d.unit for t, d in zip(texts, docs)}
    build_corpus(docs, tmp_path / "p", BuildConfig(**BUILD, privacy_unit_field="person"), lm=tiny_lm,
                 embedder=HashEmbedder())
    assert calls
    for keyword in {k for k, _ in calls}:
        units = [unit_of[t] for k, t in calls if k == keyword]
        assert len(units) == len(set(units)) <= 30


def test_ledger_charge_is_the_plan(tmp_path, tiny_lm):
    from dpsynrag.privacy.ledger import PrivacyLedger

    ledger = PrivacyLedger(tmp_path / "ledger")
    build_corpus(_docs(), tmp_path / "c", BuildConfig(**BUILD), lm=tiny_lm, embedder=HashEmbedder(), ledger=ledger)
    plan = BuildConfig(**BUILD).plan()
    (release,) = [r for d in ledger.datasets() for r in ledger.releases(d)]
    assert release.rho == plan.rho and release.delta_terms == plan.delta


# ------------------------------------------------------------------------- the audit's broken control


@pytest.fixture()
def broken_phrase_release(monkeypatch):
    """The control: the phrase release with its threshold removed (every observed phrase released with its noisy
    count), while the accountant is charged as usual and the report still claims the configured ε. Injected
    here, never a switch of the shipped code. Returns the list of its calls."""
    real = synthesis_module.release_phrases
    calls = []

    def broken(phrase_sets, **kwargs):
        real(phrase_sets, **kwargs)  # the honest mechanism's accounting, output discarded
        calls.append(1)
        return {p: 1 for s in phrase_sets for p in list(s)[:kwargs["max_phrases"]]}

    monkeypatch.setattr(synthesis_module, "release_phrases", broken)
    return calls


def _audit_documents(n=80):
    """Medical Synth-like records of distinct patients, two invented diseases (as tests/test_audit.py)."""
    from dpsynrag.tasks.medical_source import medical_document_text

    names = [f"{a} {b}" for a in ("Anna", "Peter", "Maria", "Lucas", "Emma", "Noah", "Julia", "Felix")
             for b in ("Miller", "Rossi", "Keller", "Weber", "Costa", "Novak", "Larsen", "Dubois", "Jansen", "Moreau")]
    symptoms = [["Fatigue", "Dizziness", "Fever"], ["Cough", "Headache", "Nausea"]]
    diseases, treatments = ["Flibberflux", "Snurfleosis"], ["Giggle Drops", "Tummy Tickle Therapy"]
    return [medical_document_text(names[i % len(names)], diseases[i % 2], symptoms[i % 2], treatments[i % 2])
            for i in range(n)]


AUDIT_PHRASES = dict(K=8, R=400, L=1, k=5, outlier_removal=False, match_text=True, open_vocabulary=True, extractor="rarity", self_filter=False,
                     task="medical", seed=0, max_document_tokens=64, synthesis="phrases", phrase_max=8)


def test_audit_catches_the_phrase_release_without_threshold(tmp_path, tiny_lm, broken_phrase_release):
    """With the threshold removed, the secret of every included canary in a cluster (its rarest word, so in its
    phrases) comes out in that cluster's text, and the one-run bound exceeds the claim ε = 1."""
    from dpsynrag.audit import run_audit

    config = BuildConfig(epsilon=1.0, delta=1e-3, split="fractions", **AUDIT_PHRASES)
    result = run_audit(_audit_documents(400), tmp_path / "a", config, canaries=40, seed=1, lm=tiny_lm,
                       embedder=HashEmbedder())
    assert broken_phrase_release
    # K = 8 releases template words ("diagnosis") and match_text puts every canary in a cluster; an included
    # canary's secret comes out verbatim unless its rarer symptom phrases fill its 8 (3 of 20 here)
    assert result.guesses == 20 and result.correct == 19
    included = [d for d in result.details if d["included"]]
    assert not any(d["exact"] for d in result.details if not d["included"])
    assert len(included) == 20 and sum(d["exact"] >= 1 for d in included) == 17  # secrets of one document, out
    assert result.refuted and result.epsilon_lower_bound > 1.0


def test_audit_passes_the_honest_phrase_release(tmp_path, tiny_lm):
    """The same design on the honest phrase release at ε = 10: no secret comes out, the claim stands (seeded;
    a bound above the claim has probability at most 5% over the audit's coins for a correct build)."""
    from dpsynrag.audit import run_audit

    config = BuildConfig(epsilon=10.0, delta=1e-3, **AUDIT_PHRASES)
    result = run_audit(_audit_documents(), tmp_path / "a", config, canaries=40, seed=1, lm=tiny_lm,
                       embedder=HashEmbedder())
    assert all(d["exact"] == 0 for d in result.details) and not result.refuted


def test_work_plan_counts_no_prediction_for_phrases():
    from dpsynrag.commands.plan import estimate_work

    config = dict(epsilon=10.0, delta=1e-3, K=1, R=48, L=1, k=40, extractor="rarity", open_vocabulary=True)
    prediction = estimate_work(BuildConfig(**config), 2000)
    phrases = estimate_work(BuildConfig(**config, synthesis="phrases"), 2000)
    assert prediction.member_token_evaluations == 1920 * 70 and prediction.prediction_prefills == 1920 + 1
    assert (phrases.member_token_evaluations, phrases.prediction_prefills, phrases.decode_forwards) == (0, 0, 0)
    assert phrases.embeddings == prediction.embeddings == 2048 and phrases.filter_forwards == 48


# ------------------------------------------------------------------ one release over the whole collection


def _bun_steinke_rho(epsilon: float, delta: float) -> float:
    """The ρ with ρ + 2·sqrt(ρ·log(1/δ)) = ε (Bun–Steinke), solved by hand."""
    log = math.log(1 / delta)
    return (math.sqrt(log + epsilon) - math.sqrt(log)) ** 2


@pytest.mark.parametrize("L, outlier_removal", [(1, False), (1, True), (3, True), (5, False), (5, True)])
def test_collection_scope_takes_all_the_histogram_leaves_in_one_release(L, outlier_removal):
    """phrase_scope="collection": the release reads every document, never a cluster, so no outlier removal runs
    or is charged (even with a split that has one) and no cluster mechanism is left: σ_p = sqrt(m/(2(ρ − ρ_hist))),
    τ_p the least integer with m·P[Z >= τ_p] <= the whole δ share (not δ/L); the plan is the histogram, then the
    release, and its ρ is the target's. Per cluster, each of the L releases gets (ρ − ρ_hist)/L less the outlier
    removal's ε_θ²/8 + 1/(2σ_μ²) when it runs."""
    fields = dict(epsilon=10.0, delta=1e-3, K=5, L=L, phrase_max=8, phrase_delta=2.5e-4, open_vocabulary_delta=1e-4)
    from dpsynrag.privacy.budget_split import make_split

    split = make_split("paper", L=L, outlier_removal=outlier_removal)
    per_cluster = calibrate(**fields, split=split)
    pooled = calibrate(**fields, split=split, phrase_scope="collection")
    rho = _bun_steinke_rho(10.0, 1e-3 - 1e-4 - 2.5e-4)  # δ less the histogram's and the phrases' δ shares
    assert pooled.rho_total == pytest.approx(rho, rel=1e-12) == per_cluster.rho_total
    assert pooled.phrase_sigma == pytest.approx(math.sqrt(8 / (2 * (rho - 0.1))), rel=1e-9)
    assert (pooled.epsilon_theta, pooled.sigma_embed, pooled.rho_embed, pooled.rho_branch) == (None, None, 0.0, 0.0)
    outliers = 0.4 ** 2 / 8 + 0.009 if outlier_removal else 0.0
    assert per_cluster.phrase_sigma == pytest.approx(math.sqrt(8 / (2 * ((rho - 0.1) / L - outliers))), rel=1e-9)
    assert (per_cluster.epsilon_theta is not None) == outlier_removal
    tau = int(pooled.phrase_threshold)
    assert tau == pooled.phrase_threshold
    assert 8 * discrete_gaussian_tail(pooled.phrase_sigma, tau) <= 2.5e-4
    assert 8 * discrete_gaussian_tail(pooled.phrase_sigma, tau - 1) > 2.5e-4
    for cal in (per_cluster, pooled):
        plan = cal.plan(num_clusters=L)
        assert plan.rho == pytest.approx(cal.rho_total, rel=1e-8)
        assert epsilon_from_rho(plan.rho, 1e-3 - plan.delta) <= 10.0
    plan = pooled.plan(num_clusters=48)
    assert [e.name for e in plan.events] == ["keyword histogram (open vocabulary)", "phrase release"]
    assert plan.events[1].rho == pytest.approx(8 / (2 * pooled.phrase_sigma ** 2))
    assert plan.rho == pytest.approx(rho, rel=1e-9)
    assert pooled.delta_terms == pytest.approx(1e-4 + plan.events[1].delta) and plan.delta <= pooled.delta_terms
    described = pooled.to_dict()
    assert "rho_branch" not in described and described["phrase_rho"] == plan.events[1].rho
    with pytest.raises(ConfigError, match="phrase_scope"):
        calibrate(**fields, phrase_scope="cluster-ish")
    with pytest.raises(ValueError, match="phrase_scope"):
        BuildConfig(epsilon=10.0, delta=1e-3, phrase_scope="collection")


def test_own_cpu_release_and_the_outlier_removal_share_by_hand():
    """The own-cpu preset at ε = 10, δ = 1e-3 (K = 5, L = 1, m = 4, open vocabulary: δ/10 for the histogram,
    δ/4 for the phrases, ρ = 2.11698): σ_p = sqrt(4/(2(ρ − 0.1))) = 0.99578, τ_p = 5, as before (the preset
    already had no outlier removal). Asked for outlier removal (BuildConfig's default), the collection scope
    neither runs nor charges it: the ε_θ²/8 + 1/(2σ_μ²) = 0.029 it was charged (σ_p was then
    sqrt(4/(2(ρ − 0.129))) = 1.00302) is the release's, the same plan. With the paper's defaults (K = 10,
    L = 5, m = 8, public vocabulary, ρ = 2.14419) 5 × 0.029 = 0.145 moves: σ_p 1.45126 → 1.39884, τ_p 7 → 6."""
    from dpsynrag.commands.plan import preset_fields
    from dpsynrag.eval.presets import PRESETS
    from dpsynrag.methods import get_method

    fields = preset_fields(get_method("dp-synrag"), PRESETS["own-cpu"])
    own = BuildConfig(epsilon=10.0, delta=1e-3, **fields)
    asked = BuildConfig(**{**own.model_dump(), "outlier_removal": True})
    rho = _bun_steinke_rho(10.0, 1e-3 - 1e-4 - 2.5e-4)
    assert rho == pytest.approx(2.1169767, abs=1e-7)
    for config in (own, asked):
        cal = config.calibrate()
        assert not config.runs_outlier_removal and cal.rho_total == pytest.approx(rho, rel=1e-12)
        assert cal.phrase_sigma == pytest.approx(math.sqrt(4 / (2 * (rho - 0.1))), rel=1e-9)
        assert cal.phrase_sigma == pytest.approx(0.9957827, abs=1e-7) and cal.phrase_threshold == 5
        assert [e.name for e in config.plan().events] == ["keyword histogram (open vocabulary)", "phrase release"]
        assert config.plan().rho == pytest.approx(rho, rel=1e-9)
    assert asked.calibrate() == own.calibrate()
    assert math.sqrt(4 / (2 * (rho - 0.1 - 0.4 ** 2 / 8 - 0.009))) == pytest.approx(1.0030195, abs=1e-7)  # formerly
    paper = BuildConfig(epsilon=10.0, delta=1e-3, synthesis="phrases", phrase_scope="collection").calibrate()
    rho = _bun_steinke_rho(10.0, 1e-3 - 2.5e-4)
    assert paper.phrase_sigma == pytest.approx(math.sqrt(8 / (2 * (rho - 0.1))), rel=1e-9)
    assert paper.phrase_sigma == pytest.approx(1.3988426, abs=1e-7) and paper.phrase_threshold == 6
    assert math.sqrt(8 / (2 * (rho - 0.1 - 5 * 0.029))) == pytest.approx(1.4512601, abs=1e-7)  # formerly, τ_p 7
    assert 8 * discrete_gaussian_tail(1.4512601, 6) > 2.5e-4 >= 8 * discrete_gaussian_tail(1.4512601, 7)


def test_collection_texts_group_figures_then_keywords():
    """Spans stating a common figure form one text; a span stating none joins the figure group it shares a word
    pair with, else its least counted keyword's cluster, else stands alone; with ``reuse`` a span may continue
    through a phrase a more counted span used."""
    from dpsynrag.pipeline.phrases import collection_texts

    released = {"the card arrives in": 30, "card arrives in 5": 28, "arrives in 5 days": 25,  # one span
                "cash limit is £500": 20, "we add 2.75% abroad": 12, "card and cash limit": 9,
                "up to 500 a": 11, "a new pin letter": 10, "new pin letter arrives": 8, "pin letter arrives in": 8,
                "letter arrives in 5": 7,  # continues through "arrives in 5 days", which the card span used
                "kept for 5 years": 6,  # another figure: 5 years, not 5 days
                "loan terms are fixed": 5, "thanks for your message": 4}
    keywords = [("card", 90.0), ("cash", 40.0), ("loan", 5.0), ("pin", 3.0)]
    texts = collection_texts(released, keywords, n=4)
    assert texts == [
        (0, "", 90.0),
        (1, "", 40.0),
        (2, "Loan terms are fixed.", 5),  # no figure, no shared pair: its keyword's cluster, its own count
        (3, "", 3.0),
        (3, "The card arrives in 5 days. A new pin letter arrives in 5 days.", 30),  # figure 5; pin (3) least
        # "£500" and "500" are one figure; "card and cash limit" states none and shares "cash limit" with it
        (1, "Cash limit is £500. Card and cash limit.", 20),  # "Up to 500 a": cut before its unit, another says it
        (None, "We add 2.75% abroad.", 12),
        (None, "Kept for 5 years.", 6),
        (None, "Thanks for your message.", 4),
    ]


def test_collection_texts_drop_fragments_without_figure():
    """With ``min_phrases`` a text stating no figure needs that many distinct released phrases: a lone n-gram
    goes, a chained span of three phrases stays, a text stating a figure stays whatever its size; a cluster's
    dropped text is ""."""
    from dpsynrag.pipeline.phrases import _figures, collection_texts, span_phrases

    released = {"loan terms are fixed": 5, "thanks for your message": 4, "within 10 working days": 3,
                "your new card has": 7, "new card has a": 6, "card has a chip": 6,  # one span, 3 phrases
                "pin letter is posted": 2, "mailbox limit is 50": 1}  # cut before its unit: no figure
    keywords = [("loan", 5.0), ("pin", 1.0)]
    assert span_phrases("your new card has a chip".split(), released, n=4) == [
        "your new card has", "new card has a", "card has a chip"]
    assert span_phrases("thanks for".split(), {"thanks for": 1}, n=4) == ["thanks for"]
    every = collection_texts(released, keywords, n=4)
    assert [t for _, t, _ in every] == ["Loan terms are fixed.", "Pin letter is posted.", "Within 10 working days.",
                                        "Your new card has a chip.", "Thanks for your message.",
                                        "Mailbox limit is 50."]
    assert collection_texts(released, keywords, n=4, min_phrases=1) == every
    assert collection_texts(released, keywords, n=4, min_phrases=3) == [
        (0, "", 5), (1, "", 2), (None, "Within 10 working days.", 3), (None, "Your new card has a chip.", 7)]
    assert [t for _, t, _ in collection_texts(released, keywords, n=4, min_phrases=4)] == [
        "", "", "Within 10 working days."]
    empty = {"is", "a", "the"}
    assert _figures("mailbox limit is 50".split(), empty) == set()  # a bare number ends the span
    assert _figures("limit is 50 gb".split(), empty) == {("50", "gb")}
    assert _figures("the limit is £500".split(), empty) == {("500", None)}  # the sign is its unit
    assert _figures("costs 19.9%".split(), empty) == {("19.9", None)}
    assert _figures("paid on the 1st".split(), empty) == {("1", None)}
    with pytest.raises(ValueError, match="phrase_min_phrases"):
        BuildConfig(epsilon=10.0, delta=1e-3, synthesis="phrases", phrase_min_phrases=3)
    with pytest.raises(ValueError, match="phrase_min_phrases"):
        BuildConfig(epsilon=10.0, delta=1e-3, phrase_min_phrases=3)


COLLECTION = {**BUILD, "phrase_scope": "collection", "R": 6}


def test_collection_build_releases_shared_phrases_and_reports_one_release(tmp_path, tiny_lm, monkeypatch):
    """COLLECTION asks for outlier removal (BuildConfig's default): the collection's release reads every document,
    so no cluster is formed, nothing is embedded or drawn per cluster, and the report, the accountant and the
    ledger are the histogram then the release: the plan, fixed before any data was read."""
    import dpsynrag.pipeline.build as build_module
    from dpsynrag.privacy.ledger import PrivacyLedger

    for name in ("soft_cluster", "noisy_unit_vector_sum", "exponential_threshold"):
        monkeypatch.setattr(build_module, name, lambda *a, _n=name, **k: pytest.fail(f"{_n} ran"))
    ledger = PrivacyLedger(tmp_path / "ledger")
    corpus = build_corpus(_docs(), tmp_path / "c", BuildConfig(**COLLECTION), lm=tiny_lm, embedder=HashEmbedder(),
                          ledger=ledger)
    texts = [r["text"] for r in corpus.records]
    assert any("replacement card arrives in 5" in t for t in texts)
    assert not any("street" in t.lower() or "q1x" in t for t in texts)
    privacy = corpus.manifest["privacy"]
    config = BuildConfig(**COLLECTION)
    plan, cal = config.plan(), config.calibrate()
    assert config.outlier_removal and not config.runs_outlier_removal
    assert privacy["rho_total"] == plan.rho and privacy["delta_terms"] == plan.delta
    assert [m["name"] for m in privacy["mechanisms"]] == ["keyword histogram (open vocabulary)", "phrase release"]
    assert privacy["mechanisms"][-1]["l2_sensitivity"] == math.sqrt(8)
    assert privacy["realised_spend"] is None  # the accountant spent the plan (more would have stopped the build)
    assert plan.rho == pytest.approx(cal.rho_total, rel=1e-9)  # all of ρ: histogram + release, nothing else
    assert privacy["parameters"]["epsilon_theta"] is None and "rho_branch" not in privacy["parameters"]
    (release,) = [r for d in ledger.datasets() for r in ledger.releases(d)]
    assert release.rho == plan.rho and release.delta_terms == plan.delta
    log = (tmp_path / "c" / "build.log").read_text()
    assert "stage 1c: outlier removal not run: one phrase release over the collection, no clusters" in log
    assert corpus.manifest["decoding"]["phrase_scope"] == "collection"
    # each text holds one fact's phrasings: the corpus answers from its top text unless asked otherwise
    assert corpus.default_top_k == 1 and corpus.answerer(lm=tiny_lm, embedder=HashEmbedder()).top_k == 1
    monkeypatch.undo()  # a release per cluster clusters
    per_cluster = build_corpus(_docs(), tmp_path / "k", BuildConfig(**BUILD), lm=tiny_lm, embedder=HashEmbedder())
    assert per_cluster.default_top_k == 10  # no task: the library's 10


def test_collection_release_counts_each_person_once(tmp_path, tiny_lm, monkeypatch):
    """Per person: the collection's release gets one set of at most m phrases per person (30 persons of 3
    documents each), whatever the number of their documents."""
    seen = []
    real = synthesis_module.release_phrases

    def spy(phrase_sets, **kw):
        seen.append([tuple(s) for s in phrase_sets])
        return real(phrase_sets, **kw)

    monkeypatch.setattr(synthesis_module, "release_phrases", spy)
    texts = _docs(90)
    docs = [Document(id=str(i), text=t, unit=f"p{i % 30}") for i, t in enumerate(texts)]
    build_corpus(docs, tmp_path / "p", BuildConfig(**COLLECTION, privacy_unit_field="person"), lm=tiny_lm,
                 embedder=HashEmbedder())
    (sets,) = seen
    assert len(sets) == 30 and all(0 < len(s) <= 8 == COLLECTION["phrase_max"] for s in sets)


def test_audit_catches_the_collection_release_without_threshold(tmp_path, tiny_lm, broken_phrase_release):
    """The broken control with ``phrase_scope="collection"``: with the threshold removed, included canaries'
    secrets come out and the one-run bound exceeds the claim ε = 1."""
    from dpsynrag.audit import run_audit

    config = BuildConfig(epsilon=1.0, delta=1e-3, split="fractions", phrase_scope="collection", **AUDIT_PHRASES)
    result = run_audit(_audit_documents(400), tmp_path / "a", config, canaries=40, seed=1, lm=tiny_lm,
                       embedder=HashEmbedder())
    assert broken_phrase_release
    included = [d for d in result.details if d["included"]]
    assert not any(d["exact"] for d in result.details if not d["included"])
    assert result.guesses == 20 and result.correct == 19
    assert len(included) == 20 and sum(d["exact"] >= 1 for d in included) == 19  # secrets of one document, out
    assert result.refuted and result.epsilon_lower_bound > 1.0


def test_audit_passes_the_honest_collection_release(tmp_path, tiny_lm):
    """The same design on the honest collection release at ε = 10: no secret comes out, the claim stands."""
    from dpsynrag.audit import run_audit

    config = BuildConfig(epsilon=10.0, delta=1e-3, phrase_scope="collection", **AUDIT_PHRASES)
    result = run_audit(_audit_documents(), tmp_path / "a", config, canaries=40, seed=1, lm=tiny_lm,
                       embedder=HashEmbedder())
    assert all(d["exact"] == 0 for d in result.details) and not result.refuted


def test_collection_texts_read_as_statements():
    """Issue 51: a public contact string is a figure of its own and keeps its allow-list form; a span in the
    first person is a customer's story, not a fact; a figure that another text states on the same topic and
    measure with at least 3 times its count is dropped; "claim 45p" joins "45p per mile" (the only unit of 45);
    a sentence said twice is said once; a clause does not end on a stop word."""
    from dpsynrag.pipeline.phrases import UNIT_SPACE, collection_texts

    u = UNIT_SPACE
    released = {f"bar it on 0800{u}123{u}4567": 30, f"call 0800{u}123{u}4567 today": 25,  # a contact fact
                "mileage paid at 45p": 40, "paid at 45p per": 38, "at 45p per mile": 36, "you can claim 45p": 12,
                "mileage paid at 30p": 9,  # another figure on the same topic and measure, 4x rarer: dropped
                "i was told £40 again": 20,  # first person: a customer's story
                "the fee is £7 and": 8, "the fee is £7,": 7}  # the same sentence twice, a dangling "and"
    texts = collection_texts(released, [], n=4, public=["0800 123 4567"])
    assert sorted(t for _, t, _ in texts) == [
        "Bar it on 0800 123 4567. Call 0800 123 4567 today.",
        "Mileage paid at 45p per mile. You can claim 45p.",
        "The fee is £7.",
    ]
