"""Sparse-vector (SVT) decoding and the no-repeat n-gram constraint (dpsynrag.models.private_selectors,
dpsynrag.models.decoding): the query's sensitivity (property test), the exact discrete Laplace sampler, the
law of the free/paid decision against its closed form, the cap of paid tokens, the accounting of each run
and paid token, the n-gram mask on a model that wants to loop, batch invariance, and builds, configs and
CLI errors with SVT on."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
import torch
from fakes import HashEmbedder
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest, chisquare

from fakes import NOTES
from dpsynrag.errors import ConfigError
from dpsynrag.models import PrivatePredictionDecoder
from dpsynrag.models.decoding import RowLayout, decode, no_repeat_ngram_mask
from dpsynrag.models.private_selectors import InvisibleInkSelector, PaperSelector, PublicPriorSelector
from dpsynrag.models.svt_selector import SparseVectorSelector, disagreement_steps
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import PrivatePredictionTokenEvent, SparseVectorEvent
from dpsynrag.rng import SeededRandom

# False-failure rate of each statistical test (binomial, chi-square): a correct implementation fails one
# with probability ALPHA over the randomness (seeds are fixed, so a run is reproducible).
ALPHA = 1e-6


def _dl_pmf(y: np.ndarray, scale: float) -> np.ndarray:
    """P[Y = y] of the discrete Laplace with scale b: (1 − r)/(1 + r) · r^|y|, r = exp(−1/b)."""
    r = np.exp(-1.0 / scale)
    return (1 - r) / (1 + r) * r ** np.abs(y)


def _dl_at_least(k: np.ndarray, scale: float) -> np.ndarray:
    """P[Y >= k]: r^k/(1 + r) for k >= 1, 1 − r^(1−k)/(1 + r) for k <= 0."""
    r = np.exp(-1.0 / scale)
    k = np.asarray(k, dtype=np.float64)
    return np.where(k >= 1, r ** np.maximum(k, 1) / (1 + r), 1 - r ** (1 - np.minimum(k, 0)) / (1 + r))


def paid_probability(query: int, threshold_scale: float, query_scale: float) -> float:
    """P[Q + ν >= T̂] for T̂ ~ Lap_Z(threshold_scale), ν ~ Lap_Z(query_scale) independent, summed exactly
    over T̂ within 60 scales (the rest has mass < 2e-26)."""
    m = int(np.ceil(60 * threshold_scale)) + abs(query)
    t = np.arange(-m, m + 1)
    return float(np.sum(_dl_pmf(t, threshold_scale) * _dl_at_least(t - query, query_scale)))


def run_event(eps1=0.5, eps2=0.8, beta=0.3, gap=2.0, grid=10) -> SparseVectorEvent:
    return SparseVectorEvent("sparse-vector run", epsilon1=eps1, epsilon2=eps2, beta=beta, gap=gap, grid=grid)


def svt_selector(vocab, n_groups, run, *, max_paid=3, clip=1.0, tau=1.0, base="public-prior", per_group=True,
                 seed=0, no_repeat_ngram=0, accountants=None):
    random = [SeededRandom(seed).child(f"g{g}") for g in range(n_groups)] if per_group else SeededRandom(seed)
    accountants = accountants if accountants is not None else [ZCDPAccountant() for _ in range(n_groups)]
    common = dict(clip=clip, temperature=tau, random=random, accountants=accountants, no_repeat_ngram=no_repeat_ngram)
    cls = {"public-prior": lambda: PublicPriorSelector(vocab, **common),
           "paper": lambda: PaperSelector(vocab, **common, public_weight=0.5),
           "invisibleink": lambda: InvisibleInkSelector(vocab, **common),
           "public-prior-topk": lambda: PublicPriorSelector(vocab, **common, top_k=2)}[base]
    return SparseVectorSelector(cls(), max_paid=max_paid, run=run)


# ---------------------------------------------------------------------------------------------
# the query: sensitivity Δ = max(β, 1 − β) (in grid steps: max(βq, q − βq))
# ---------------------------------------------------------------------------------------------


def hand_query(members: np.ndarray, weights, public: np.ndarray, run: SparseVectorEvent) -> int:
    """q·Q by hand (float32 logits, the same float64 steps as the selector)."""
    v = int(np.argmax(public))
    total = 0
    for row, w in zip(members, weights):
        gap = np.float64(row.max()) - np.float64(row[v])
        a = min(max(gap / run.gap, 0.0), 1.0)
        total += int(w) * (int(np.floor(a * run.grid)) - run.beta_steps)
    return total


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 6), vocab=st.integers(2, 12),
       grid=st.sampled_from([2, 10, 1000]), beta_frac=st.floats(0.01, 0.99), gap=st.floats(0.05, 20.0),
       grow=st.booleans())
def test_adding_or_removing_one_member_moves_the_query_by_at_most_delta(seed, n, vocab, grid, beta_frac, gap, grow):
    """Group 0 holds S, group 1 holds S plus one member: a new row at a random position, or (``grow``) one
    more copy of an existing row (its weight + 1). The logits range from flat to extremely peaked."""
    rng = np.random.default_rng(seed)
    beta_steps = min(grid - 1, max(1, round(beta_frac * grid)))
    run = SparseVectorEvent("svt", 1.0, 1.0, beta=beta_steps / grid, gap=gap, grid=grid)
    scale = float(np.exp(rng.uniform(np.log(1e-3), np.log(50.0))))
    members = rng.normal(0, scale, size=(n + 1, vocab)).astype(np.float32)
    public = rng.normal(0, scale, size=vocab).astype(np.float32)
    weights = rng.integers(1, 4, size=n + 1)
    if grow and n > 0:
        j = int(rng.integers(0, n))
        rows_b, w_b = list(range(n)), [int(w) for w in weights[:n]]
        w_b[j] += 1
    else:
        pos = int(rng.integers(0, n + 1))
        rows_b = list(range(n))
        rows_b.insert(pos, n)
        w_b = [int(weights[r]) if r < n else 1 for r in rows_b]
    rows = [members[r] for r in range(n)] + [public] + [members[r] for r in rows_b] + [public]
    group = [0] * n + [0] + [1] * len(rows_b) + [1]
    pub = [False] * n + [True] + [False] * len(rows_b) + [True]
    weight = [int(w) for w in weights[:n]] + [1] + w_b + [1]
    layout = RowLayout.build(group, pub, 2, weight)
    sel = svt_selector(vocab, 2, run)
    v_pub, query = sel.queries(torch.as_tensor(np.stack(rows)), layout)
    assert v_pub.tolist() == [int(np.argmax(public))] * 2
    assert int(query[0]) == hand_query(members[:n], weights[:n], public, run)
    assert abs(int(query[1]) - int(query[0])) <= run.sensitivity_steps == max(beta_steps, grid - beta_steps)
    assert run.sensitivity == pytest.approx(max(run.beta, 1 - run.beta), abs=1e-12)


_INF, _NAN = float("inf"), float("nan")


@pytest.mark.parametrize("row, steps", [
    ([0.0, _NAN, 1.0, 2.0], 0),           # a NaN anywhere: degenerate
    ([_INF, _INF, 0.0, 0.0], 0),          # +inf at the top and at v_pub (inf - inf = NaN before the fix)
    ([-_INF, -_INF, -_INF, -_INF], 0),    # every token -inf (-inf - -inf = NaN before the fix)
    ([_INF, 0.0, 0.0, 0.0], 0),           # +inf at the top only: no finite maximum, degenerate
    ([5.0, -_INF, 0.0, 0.0], 10),         # finite top, v_pub impossible for this member: full disagreement
    ([0.0, 5.0, 0.0, 0.0], 0),            # agrees with v_pub = 1
])
def test_a_member_disagreement_is_finite_in_0_q_whatever_its_logits(row, steps):
    """Issue 42: one member with non-finite logits moved q·Q by ~9.2e18 (NaN cast to INT64_MIN) instead of at
    most qΔ. Its disagreement must be an integer in [0, q]; degenerate rows disagree by 0 (as clip_logits maps
    them to the zero vector). Group 0 holds one ordinary member, group 1 the same plus the odd one."""
    run = run_event()  # q = 10
    public = torch.tensor([0.0, 3.0, 1.0, 0.0])
    ordinary = torch.tensor([1.0, 2.0, 0.5, 0.0])
    odd = torch.tensor(row)
    logits = torch.stack([ordinary, public, ordinary, odd, public])
    layout = RowLayout.build([0, 0, 1, 1, 1], [False, True, False, False, True], 2)
    v, q = svt_selector(4, 2, run).queries(logits, layout)
    assert v.tolist() == [1, 1]
    assert int(q[1]) - int(q[0]) == steps - run.beta_steps
    assert abs(int(q[1]) - int(q[0])) <= run.sensitivity_steps


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_disagreement_steps_stay_in_the_grid_for_every_non_finite_pair(dtype):
    """Every pair of (top, at_pub) values from {finite, ±inf, NaN} gives an integer in [0, q]."""
    values = [-_INF, -3.0, 0.0, 2.5, _INF, _NAN]
    pairs = [(t, a) for t in values for a in values]
    top = torch.tensor([t for t, _ in pairs], dtype=dtype)
    at_pub = torch.tensor([a for _, a in pairs], dtype=dtype)
    steps = disagreement_steps(top, at_pub, gap=2.0, grid=7)
    assert steps.dtype == torch.long
    assert int(steps.min()) >= 0 and int(steps.max()) <= 7
    for (t, a), s in zip(pairs, steps.tolist()):
        if math.isfinite(t) and not math.isnan(a):
            assert s == math.floor(min(max((t - a) / 2.0, 0.0), 1.0) * 7)
        elif not math.isfinite(t):
            assert s == 0


def test_queries_follow_the_no_repeat_mask():
    """A banned token is neither the public prediction nor a member's maximum."""
    run = run_event()
    public = torch.tensor([[0.0, 5.0, 4.0, 0.0]])
    member = torch.tensor([[0.0, 3.0, 9.0, 0.0]])
    layout = RowLayout.build([0, 0], [False, True], 1)
    sel = svt_selector(4, 1, run)
    v, q = sel.queries(torch.cat([member, public]), layout)
    assert int(v[0]) == 1 and int(q[0]) == 10 - 3  # gap 6 >= g: a = 1
    banned = torch.tensor([[False, False, True, False]])
    v, q = sel.queries(torch.cat([member, public]), layout, banned)
    assert int(v[0]) == 1 and int(q[0]) == 0 - 3  # token 2 banned: the member agrees (a = 0)
    banned = torch.tensor([[False, True, False, False]])
    v, q = sel.queries(torch.cat([member, public]), layout, banned)
    assert int(v[0]) == 2 and int(q[0]) == 0 - 3


# ---------------------------------------------------------------------------------------------
# the noise: exact discrete Laplace
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [0.7, 3.0, Fraction(35, 2), 2])
@pytest.mark.parametrize("secure", [False, True])
def test_discrete_laplace_follows_its_law(scale, secure):
    from dpsynrag.rng import SecureRandom

    n = 20_000
    random = SecureRandom() if secure else SeededRandom(11)
    draws = np.asarray([random.discrete_laplace(scale) for _ in range(n)])
    b = float(scale)
    k = int(np.ceil(4 * b)) + 1  # cells -k..k, tails merged
    cells = np.clip(draws, -k - 1, k + 1)
    values = np.arange(-k - 1, k + 2)
    expected = _dl_pmf(values, b)
    expected[0] = _dl_at_least(np.array([k + 1]), b)[0]  # P[Y <= -k-1] = P[Y >= k+1]
    expected[-1] = expected[0]
    counts = np.array([(cells == v).sum() for v in values])
    assert expected.sum() == pytest.approx(1.0, abs=1e-12)
    assert chisquare(counts, expected * n).pvalue > ALPHA


def test_discrete_laplace_rejects_a_bad_scale():
    for bad in (0.0, -1.0, float("inf"), float("nan"), True, "1"):
        with pytest.raises(ValueError, match="scale"):
            SeededRandom(0).discrete_laplace(bad)


# ---------------------------------------------------------------------------------------------
# the free/paid decision: its law on hand-made logits, and what is charged
# ---------------------------------------------------------------------------------------------


def test_paid_frequency_matches_the_closed_form_and_each_run_is_charged():
    """Three kinds of group, N each, every group with its own stream (independent trials): q·Q = 11 (two
    copies of a disagreeing member, one agreeing), −12 (four agreeing) and 0 (no member: an empty cluster).
    Grid q = 10, β = 0.3 (3 steps), Δ = 7 steps, ε1 = 0.5, ε2 = 0.8: T̂ ~ Lap_Z(14), ν ~ Lap_Z(17.5)."""
    run = run_event()
    vocab, N = 5, 1500
    public = np.array([4.0, 1.0, 0.0, 0.0, 0.0], dtype=np.float32)  # v_pub = 0
    disagree = np.array([0.0, 2.5, 0.0, 0.0, 0.0], dtype=np.float32)  # 2.5 nats above token 0 >= g: a = 1
    agree = np.array([3.0, 0.0, 0.5, 0.0, 0.0], dtype=np.float32)  # token 0 is its maximum: a = 0
    rows, group, pub, weight = [], [], [], []
    for g in range(3 * N):
        kind = g % 3
        members = [(disagree, 2), (agree, 1)] if kind == 0 else [(agree, 4)] if kind == 1 else []
        for row, w in members:
            rows.append(row)
            group.append(g)
            pub.append(False)
            weight.append(w)
        rows.append(public)
        group.append(g)
        pub.append(True)
        weight.append(1)
    layout = RowLayout.build(group, pub, 3 * N, weight)
    accs = [ZCDPAccountant() for _ in range(3 * N)]
    sel = svt_selector(vocab, 3 * N, run, accountants=accs)
    logits = torch.as_tensor(np.stack(rows))
    _, q = sel.queries(logits, layout)
    assert q[:3].tolist() == [11, -12, 0]
    tokens = sel.select(logits, layout, np.zeros(3 * N, dtype=bool), [[] for _ in range(3 * N)])
    paid = np.array([d[0] for d in sel.decisions])
    assert np.array_equal(sel.paid, paid.astype(np.int64))
    assert np.all(tokens[~paid] == 0)  # free steps emit v_pub
    token_event = PrivatePredictionTokenEvent("private prediction token", 1.0, 1.0)
    for g, acc in enumerate(accs):  # a run is charged before its threshold; a token only when paid
        assert [e.event for e in acc.ledger] == [run] + ([token_event] if paid[g] else [])
    probabilities = []
    for kind, query in enumerate([11, -12, 0]):
        p = paid_probability(query, 7 / 0.5, 14 / 0.8)
        probabilities.append(p)
        assert binomtest(int(paid[kind::3].sum()), N, p).pvalue > ALPHA
    assert probabilities[0] > probabilities[2] > probabilities[1]  # more disagreement, more often paid
    assert 0.5 < probabilities[2] < 0.6  # Q = 0 >= T̂ = 0 breaks ties towards paying


# ---------------------------------------------------------------------------------------------
# the loop: the cap, free tokens, n-gram constraint
# ---------------------------------------------------------------------------------------------


class FnRows:
    """A RowBatch stand-in: row r's logits are ``fn(kind_r, tokens fed to row r)``."""

    def __init__(self, kinds, fn, vocab):
        self.kinds, self.fn, self.vocab = list(kinds), fn, vocab
        self.history = [[] for _ in self.kinds]
        self.rows = len(self.kinds)
        self.first_logits = self._logits()

    def _logits(self):
        return torch.as_tensor(np.stack([self.fn(k, h) for k, h in zip(self.kinds, self.history)]), dtype=torch.float32)

    def step(self, tokens):
        for r, t in enumerate(tokens.tolist()):
            self.history[r].append(int(t))
        return self._logits()

    def keep(self, rows):
        idx = rows.tolist()
        self.kinds = [self.kinds[i] for i in idx]
        self.history = [self.history[i] for i in idx]
        self.rows = len(idx)


def _cycle_fn(vocab):
    """Public rows write 0, 1, 2, 3, 0, ...; "disagree" members want token 4 + step % 4, "agree" members
    the public token."""
    def fn(kind, history):
        x = np.zeros(vocab, dtype=np.float32)
        step = len(history)
        x[step % 4 if kind in ("public", "agree") else 4 + step % 4] = 6.0
        return x
    return fn


def _groups(kinds_per_group):
    kinds, group, pub = [], [], []
    for g, kinds_g in enumerate(kinds_per_group):
        for k in kinds_g:
            kinds.append(k)
            group.append(g)
            pub.append(k == "public")
    return kinds, RowLayout.build(group, pub, len(kinds_per_group))


def test_cap_of_paid_tokens_is_enforced_and_agreeing_members_pay_nothing():
    """ε1 = ε2 = 1000 (noise scales 0.005 steps: the decisions are deterministic up to ~1e-80): ten
    disagreeing members pay every step, so the text stops after exactly C tokens; three agreeing members pay
    none, and the text is the public prediction for all T steps with one run charged."""
    vocab, T, C = 8, 12, 3
    run = run_event(eps1=1000.0, eps2=1000.0, beta=0.5)
    kinds, layout = _groups([["disagree"] * 10 + ["public"], ["agree"] * 3 + ["public"]])
    accs = [ZCDPAccountant(), ZCDPAccountant()]
    # "paper" with omega 0.5: ten members (+-0.5 each after clipping) outvote the public term (0.5 x 6 nats)
    sel = svt_selector(vocab, 2, run, max_paid=C, tau=0.01, base="paper", accountants=accs)
    out = decode(FnRows(kinds, _cycle_fn(vocab), vocab), layout, sel, steps=T, eos=())
    assert len(out[0]) == C and all(t >= 4 for t in out[0])  # the members' tokens, drawn and paid
    assert sel.decisions[0] == [True] * C and int(sel.paid[0]) == C
    assert out[1] == [s % 4 for s in range(T)] and sel.decisions[1] == [False] * T
    token = PrivatePredictionTokenEvent("private prediction token", 1.0, 0.01)
    assert [e.event for e in accs[0].ledger] == [run, token] * C
    assert [e.event for e in accs[1].ledger] == [run]
    assert accs[0].rho == pytest.approx(C * (run.rho + token.rho), rel=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_cap_holds_whatever_the_noise(seed):
    """Moderate noise, mixed members: never more than C paid tokens; a text that paid C ends with its C-th
    paid token; each group is charged one run per paid token (+1 for the run still open) and one token per
    paid token."""
    vocab, T, C = 8, 15, 2
    run = run_event(eps1=0.3, eps2=0.5, beta=0.5)
    kinds, layout = _groups([["disagree", "agree", "public"], ["public"], ["disagree"] * 2 + ["public"]])
    accs = [ZCDPAccountant() for _ in range(3)]
    sel = svt_selector(vocab, 3, run, max_paid=C, seed=seed, accountants=accs)
    out = decode(FnRows(kinds, _cycle_fn(vocab), vocab), layout, sel, steps=T, eos=())
    for g in range(3):
        d = sel.decisions[g]
        assert len(d) == len(out[g]) and sum(d) == int(sel.paid[g]) <= C
        if sum(d) == C:
            assert d[-1]  # ended at the C-th paid token
        else:
            assert len(out[g]) == T
        runs = sum(1 for e in accs[g].ledger if e.event == run)
        assert runs == sum(d) + (0 if sum(d) == C else 1)
        assert len(accs[g].ledger) - runs == sum(d)
        assert accs[g].rho <= C * (run.rho + PrivatePredictionTokenEvent("t", 1.0, 1.0).rho) * (1 + 1e-12)


LOOP = [1, 2, 3]  # "Document", ":", "The"


def _loop_fn(vocab):
    """Every row wants to continue the loop Document : The Document : The ... (by far)."""
    def fn(kind, history):
        x = np.zeros(vocab, dtype=np.float32)
        last = history[-1] if history else 3
        x[LOOP[(LOOP.index(last) + 1) % 3] if last in LOOP else 1] = 12.0
        return x
    return fn


def _repeats(tokens, n):
    grams = [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
    return len(grams) != len(set(grams))


@pytest.mark.parametrize("base", ["public-prior", "paper", "invisibleink", "public-prior-topk"])
@pytest.mark.parametrize("svt", [False, True])
def test_no_repeat_ngram_stops_loops(base, svt):
    vocab, T = 16, 12
    kinds, layout = _groups([["member", "member", "public"], ["public"]])
    for n in (0, 2, 3):
        accs = [ZCDPAccountant(), ZCDPAccountant()]
        if svt:
            sel = svt_selector(vocab, 2, run_event(), max_paid=T, base=base, tau=0.05, no_repeat_ngram=n,
                               accountants=accs)
        else:
            sel = svt_selector(vocab, 2, run_event(), base=base, tau=0.05, no_repeat_ngram=n, accountants=accs).base
        out = decode(FnRows(kinds, _loop_fn(vocab), vocab), layout, sel, steps=T, eos=())
        for text in out:
            assert len(text) == T
            if n == 0:
                assert _repeats(text, 2) and _repeats(text, 3)  # the model loops without the constraint
            else:
                assert not _repeats(text, n), (n, text)


def test_no_repeat_ngram_mask_by_hand():
    texts = [[1, 2, 3, 1, 2], [5, 5], [], [1, 2, 1]]
    m = no_repeat_ngram_mask(texts, 2, 6)
    assert [np.flatnonzero(r).tolist() for r in m.numpy()] == [[3], [5], [], [2]]
    m = no_repeat_ngram_mask(texts, 3, 6)
    assert [np.flatnonzero(r).tolist() for r in m.numpy()] == [[3], [], [], []]
    m = no_repeat_ngram_mask(texts, 1, 6)
    assert [np.flatnonzero(r).tolist() for r in m.numpy()] == [[1, 2, 3], [5], [], [1, 2]]
    assert no_repeat_ngram_mask(texts, 0, 6) is None
    assert no_repeat_ngram_mask([[0, 1, 2]], 1, 3) is None  # every token banned: no mask (a draw must exist)
    with pytest.raises(ConfigError, match="no_repeat_ngram"):
        no_repeat_ngram_mask(texts, -1, 6)


def test_sparse_vector_needs_a_public_row_and_checks_its_parameters():
    r = SeededRandom(0)
    with pytest.raises(ConfigError, match="public prompt"):
        SparseVectorSelector(PaperSelector(5, clip=1.0, temperature=1.0, random=r), max_paid=2, run=run_event())
    base = PublicPriorSelector(5, clip=1.0, temperature=1.0, random=r)
    with pytest.raises(ConfigError, match="max_paid"):
        SparseVectorSelector(base, max_paid=0, run=run_event())
    with pytest.raises(ConfigError, match="SparseVectorEvent"):
        SparseVectorSelector(base, max_paid=2, run=None)
    for bad, match in [(dict(beta=0.0), "beta"), (dict(beta=1.0), "beta"), (dict(beta=0.25, grid=10), "multiple"),
                       (dict(gap=0.0), "gap"), (dict(grid=0), "grid"), (dict(eps1=0.0), "epsilon1")]:
        with pytest.raises(ConfigError, match=match):
            run_event(**bad)
    e = run_event(eps1=0.2, eps2=0.3, beta=0.3)
    assert e.rho == pytest.approx(0.5 * 0.5**2, rel=1e-12) and e.sensitivity == pytest.approx(0.7)
    d = e.describe()
    assert d["mechanism"] == "sparse_vector" and d["threshold_noise_scale"] == pytest.approx(0.7 / 0.2)
    assert d["query_noise_scale"] == pytest.approx(2 * 0.7 / 0.3)


# ---------------------------------------------------------------------------------------------
# the decoder on the tiny model: accounting, batch invariance
# ---------------------------------------------------------------------------------------------


def _decoder(lm, C=2, T=6, **kw):
    return PrivatePredictionDecoder(lm, clip=0.5, temperature=1.0, max_new_tokens=T, random=SeededRandom(3),
                                    public_prompt=lm.chat_prompt("rephrase the following document :"),
                                    decoding="public-prior", svt_max_paid=C,
                                    svt_run=run_event(eps1=0.4, eps2=0.6, beta=0.5), **kw)


def test_decoder_with_svt_charges_at_most_C_runs_and_tokens(tiny_lm):
    p = [tiny_lm.chat_prompt(f"rephrase the following document : {d}") for d in ["the patient has fever", "blue skin"]]
    C, T = 2, 6
    tiny_lm.eos_token_ids = ()
    dec = _decoder(tiny_lm, C, T)
    accs = [ZCDPAccountant() for _ in range(3)]
    ids = dec.generate_ids([p, [], p[:1] * 3], accs)
    run = dec.svt_run
    token = PrivatePredictionTokenEvent("private prediction token", 0.5, 1.0)
    for t, acc in zip(ids, accs):
        events = [e.event for e in acc.ledger]
        paid = events.count(token)
        assert 1 <= events.count(run) <= C and paid <= C and len(t) <= T
        assert events.count(run) == paid + (0 if paid == C else 1)
        assert acc.rho <= C * (run.rho + token.rho) * (1 + 1e-12)
        assert len(t) == T or paid == C
    assert dec.selector.describe()["svt_max_paid"] == C
    with pytest.raises(ConfigError, match="public prompt"):
        PrivatePredictionDecoder(tiny_lm, clip=0.5, temperature=1.0, max_new_tokens=T, random=SeededRandom(0),
                                 svt_max_paid=C, svt_run=run)
    with pytest.raises(ConfigError, match="svt_max_paid"):
        _decoder(tiny_lm, C=T + 1, T=T)
    with pytest.raises(ConfigError, match="both"):
        PrivatePredictionDecoder(tiny_lm, clip=0.5, temperature=1.0, max_new_tokens=T, random=SeededRandom(0),
                                 public_prompt="x", decoding="public-prior", svt_max_paid=C)


@pytest.mark.parametrize("engine", ["shared", "fast", "generic"])
def test_svt_text_does_not_depend_on_other_clusters(tiny_lm_factory, engine):
    """A cluster's SVT text (own streams) is the same alone and among other clusters of the batch."""
    lm = tiny_lm_factory(engine=engine)
    lm.eos_token_ids = ()
    docs = ["the patient has fever", "blue skin and rash", "old red eye", "the doctor has a test", "bad blood"]
    p = [lm.chat_prompt(f"rephrase the following document : {d}") for d in docs]
    watched = [p[0], p[1], p[0]]
    mates = [[p[2], p[3]], [], p, [p[4]] * 3]

    def run(clusters, idx):
        dec = _decoder(lm, C=3, T=8)
        streams = [SeededRandom(5).child(f"cluster-{i}") for i in idx]
        return dec.generate_ids(clusters, [ZCDPAccountant() for _ in clusters], streams=streams)

    alone = run([watched], [7])[0]
    among = run(mates[:2] + [watched] + mates[2:], [0, 1, 7, 2, 3])[2]
    assert alone == among and len(alone) > 0


# ---------------------------------------------------------------------------------------------
# config, build, CLI
# ---------------------------------------------------------------------------------------------


def test_config_errors_name_the_option():
    from pydantic import ValidationError

    from dpsynrag.pipeline.config import BuildConfig

    base = dict(epsilon=10.0, delta=1e-3, T=20)
    for bad, match in [
        (dict(svt_max_paid=4), "public prompt"),
        (dict(decoding="public-prior", svt_max_paid=0), "svt_max_paid"),
        (dict(decoding="public-prior", svt_max_paid=21), "must be <= `T`"),
        (dict(decoding="public-prior", svt_max_paid=4, svt_fraction=1.0), "svt_fraction"),
        (dict(decoding="public-prior", svt_max_paid=4, svt_fraction=0.0), "svt_fraction"),
        (dict(decoding="public-prior", svt_max_paid=4, svt_beta=1.0), "svt_beta"),
        (dict(decoding="public-prior", svt_max_paid=4, svt_beta=1 / 3), "multiple of 1/1000"),
        (dict(decoding="public-prior", svt_max_paid=4, svt_gap=0.0), "svt_gap"),
        (dict(decoding="public-prior", svt_fraction=0.5), "set `svt_max_paid`"),
        (dict(decoding="public-prior", svt_gap=1.0), "set `svt_max_paid`"),
        (dict(no_repeat_ngram=-1), "no_repeat_ngram"),
    ]:
        with pytest.raises(ValidationError, match=match):
            BuildConfig(**base, **bad)
    cal = BuildConfig(**base, decoding="invisibleink", svt_max_paid=5, svt_fraction=0.4).calibrate()
    assert cal.svt_max_paid == 5 and cal.svt_fraction == 0.4 and cal.svt_grid == 1000
    assert "svt_max_paid" not in BuildConfig(**base).calibrate().to_dict()  # off: not listed


def _out(result) -> str:
    return " ".join(result.output.split())


@pytest.mark.parametrize("extra, message", [
    (["--svt-max-paid", "0"], "--svt-max-paid (`svt_max_paid`): Input should be greater than or equal to 1"),
    (["--svt-max-paid", "80", "--T", "70"], "--svt-max-paid (paid tokens per text) must be <= --T (70)"),
    (["--svt-max-paid", "4", "--svt-fraction", "1.5"], "--svt-fraction (`svt_fraction`): Input should be less than 1"),
    (["--svt-fraction", "0.5"], "--svt-fraction is a parameter of sparse-vector decoding: set --svt-max-paid too."),
    (["--svt-max-paid", "4", "--decoding", "paper", "--public-weight", "0"], "runs no public prompt"),
    (["--no-repeat-ngram", "-2"], "--no-repeat-ngram (`no_repeat_ngram`)"),
])
def test_budget_errors_name_the_svt_flag(extra, message):
    from typer.testing import CliRunner

    from dpsynrag.cli import app

    result = CliRunner().invoke(app, ["budget", "--epsilon", "10", "--delta", "1e-3", *extra])
    assert result.exit_code == 2 and message in _out(result), result.output


def test_budget_lists_the_sparse_vector_mechanism():
    """`dpsynrag budget --json` with and without --svt-max-paid: the same epsilon target, C runs and C paid
    tokens in the plan, and the paid tokens' clip from c/τ = sqrt(2 (1 − f) ρ_text / C) instead of
    sqrt(2 ρ_text / T)."""
    from typer.testing import CliRunner

    from dpsynrag.cli import app

    args = ["budget", "--epsilon", "10", "--delta", "1e-3", "--K", "1", "--L", "1", "--T", "64",
            "--decoding", "public-prior", "--json"]
    reports = []
    for extra in ([], ["--svt-max-paid", "16", "--svt-fraction", "0.25"]):
        result = CliRunner().invoke(app, [*args, *extra])
        assert result.exit_code == 0, result.output
        reports.append(json.loads(result.output[result.output.index("{"):]))
    off, on = reports
    assert off["epsilon"] <= 10 and on["epsilon"] <= 10
    assert on["rho_total"] == pytest.approx(off["rho_total"], rel=1e-9)
    tokens_off = off["mechanisms"][1]["branch"]["events"][-1]
    tokens_on = on["mechanisms"][1]["branch"]["events"][-1]
    assert tokens_on["name"] == "16 sparse-vector runs and paid tokens" and tokens_on["count"] == 16
    assert [e["mechanism"] for e in tokens_on["event"]["events"]] == ["sparse_vector", "private_prediction_token"]
    rho_text = tokens_off["rho"]
    assert tokens_on["rho"] == pytest.approx(rho_text, rel=1e-9)
    assert off["parameters"]["clip"] == pytest.approx(np.sqrt(2 * rho_text / 64), rel=1e-9)
    assert on["parameters"]["clip"] == pytest.approx(np.sqrt(2 * 0.75 * rho_text / 16), rel=1e-9)
    eps = on["parameters"]["svt_epsilon1"] + on["parameters"]["svt_epsilon2"]
    assert eps == pytest.approx(np.sqrt(2 * 0.25 * rho_text / 16), rel=1e-9)
    assert "svt_epsilon1" not in off["parameters"]


TINY_DOCS = NOTES


@pytest.mark.parametrize("extra", [dict(), dict(group_size=5, max_groups=2), dict(no_repeat_ngram=2)])
def test_build_with_svt_meets_its_epsilon_and_reports_the_mechanism(tmp_path, tiny_lm, extra):
    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    config = BuildConfig(epsilon=4.0, delta=1e-3, K=3, R=3, L=2, k=10, T=5, extractor="rarity", open_vocabulary=True,
                         self_filter=False, max_document_tokens=16, seed=1, decoding="public-prior", svt_max_paid=2,
                         **extra)
    corpus = build_corpus(TINY_DOCS, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    privacy = manifest["privacy"]
    assert privacy["epsilon"] <= 4.0 and corpus.privacy_report.epsilon <= 4.0
    assert manifest["decoding"]["svt_max_paid"] == 2 and privacy["decoding"]["svt_beta"] == 0.5
    assert manifest["config"]["svt_max_paid"] == 2
    params = privacy["parameters"]
    tokens = privacy["mechanisms"][1]["branch"]["events"][-1]
    if "group_size" in extra:
        tokens = tokens["branch"]
    assert tokens["mechanism"] == "self_composition" and tokens["count"] == 2
    kinds = [e["mechanism"] for e in tokens["event"]["events"]]
    assert kinds == ["sparse_vector", "private_prediction_token"]
    svt = tokens["event"]["events"][0]
    assert svt["epsilon1"] == pytest.approx(params["svt_epsilon1"]) and svt["sensitivity"] == 0.5
    assert svt["epsilon2"] == pytest.approx(svt["epsilon1"] * 2 ** (2 / 3), rel=1e-12)
    assert tokens["rho"] == pytest.approx(2 * ((svt["epsilon1"] + svt["epsilon2"]) ** 2 / 2 + params["rho_token"]))
    assert manifest["decoding"].get("no_repeat_ngram") == extra.get("no_repeat_ngram")


def test_privacy_verifier_recomputes_the_sparse_vector_runs():
    """A report's sparse-vector runs are rebuilt from their parameters: the stated rho must follow from
    epsilon1 + epsilon2."""
    from dpsynrag.pipeline.config import BuildConfig
    from dpsynrag.privacy.report import PrivacyReport
    from dpsynrag.privacy.verify import ReportMismatchError, verify_report

    config = BuildConfig(epsilon=10.0, delta=1e-3, T=30, decoding="public-prior", svt_max_paid=6)
    cal = config.calibrate()
    report = PrivacyReport.from_plan(config.plan(cal), delta=config.delta, parameters=cal.to_dict()).to_dict()
    totals = verify_report(report)
    assert totals["epsilon"] == pytest.approx(report["epsilon"]) and report["epsilon"] <= 10.0
    run = report["mechanisms"][1]["branch"]["events"][-1]["event"]["events"][0]
    assert run["mechanism"] == "sparse_vector"
    run["epsilon1"] *= 2  # the stated rho no longer follows
    with pytest.raises(ReportMismatchError, match="states rho"):
        verify_report(report)
