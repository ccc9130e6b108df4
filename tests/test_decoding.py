"""The one decoding loop and its selectors (dpsynrag.models.decoding): the sensitivity of every
private selector (property test over seeded random cases), exact next-token laws on hand-made
logits, independence from the cluster's size, T tokens charged per cluster, the decoder on the tiny
in-code Llama, and builds with each variant (config, CLI, manifest and privacy report)."""

from __future__ import annotations

import json
import zlib

import numpy as np
import pytest
import torch
from fakes import HashEmbedder
from scipy.special import logsumexp
from scipy.stats import chisquare

from fakes import NOTES
from dpsynrag.errors import ConfigError
from dpsynrag.models import PrivatePredictionDecoder
from dpsynrag.models.decoding import GreedySelector, RowLayout, SamplingSelector, decode
from dpsynrag.models.private_selectors import (
    InvisibleInkSelector,
    PaperSelector,
    PublicPriorSelector,
    make_private_selector,
)
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import PrivatePredictionTokenEvent
from dpsynrag.privacy.prediction import clip_logit_differences, clip_logits
from dpsynrag.rng import SeededRandom

# False-failure rate of each chi-square test: a correct implementation gives p < ALPHA with
# probability ALPHA over the randomness (seeds are fixed, so a run is reproducible).
ALPHA = 1e-3
U32 = 2.0**-24  # unit roundoff of float32


def gamma(n: int) -> float:
    """Higham's γ_n = n·u / (1 − n·u): the relative error bound of a float32 recursive sum of n + 1 terms."""
    return n * U32 / (1 - n * U32)


def selectors(vocab: int, clip: float, tau: float = 1.0, random=None, accountants=(), **kw):
    """One instance of every private selector (each that runs a public prompt with and without a top-k+ set)."""
    random = random or SeededRandom(0)
    common = dict(clip=clip, temperature=tau, random=random, accountants=accountants)
    return {
        "paper": PaperSelector(vocab, **common),
        "paper+omega": PaperSelector(vocab, **common, public_weight=kw.get("omega", 0.7)),
        "public-prior": PublicPriorSelector(vocab, **common, public_weight=kw.get("omega", 1.0)),
        "paper+omega-topk": PaperSelector(vocab, **common, public_weight=kw.get("omega", 0.7), top_k=kw.get("k", 2),
                                          top_k_margin=kw.get("margin", 0.5)),
        "public-prior-topk": PublicPriorSelector(vocab, **common, public_weight=kw.get("omega", 1.0),
                                                 top_k=kw.get("k", 2), top_k_margin=kw.get("margin", 0.5)),
        "invisibleink": InvisibleInkSelector(vocab, **common, public_scale=kw.get("lam", 1.0)),
        "invisibleink-topk": InvisibleInkSelector(vocab, **common, public_scale=kw.get("lam", 1.0),
                                                  top_k=kw.get("k", 2), top_k_margin=kw.get("margin", 0.5)),
    }


def layout_of(clusters: list[list[int]], public: bool) -> tuple[list[int], RowLayout]:
    """Rows for clusters of member-row indices: members first (in order), then one public row per
    cluster; returns (source row of each layout row, layout). Source row -1 is the public row."""
    src, group, pub = [], [], []
    for g, members in enumerate(clusters):
        for m in members:
            src.append(m)
            group.append(g)
            pub.append(False)
        if public:
            src.append(-1)
            group.append(g)
            pub.append(True)
    return src, RowLayout.build(group, pub, len(clusters))


def rows_tensor(member_logits: np.ndarray, public_logits: np.ndarray, src: list[int]) -> torch.Tensor:
    return torch.as_tensor(np.stack([public_logits if s < 0 else member_logits[s] for s in src]), dtype=torch.float32)


# ---------------------------------------------------------------------------------------------
# references by hand, float64
# ---------------------------------------------------------------------------------------------


def grislain(l: np.ndarray, c: float) -> np.ndarray:
    e = np.exp(l - l.max())
    cent = e - (e.max() + e.min()) / 2
    return cent * min(1.0, c / np.abs(cent).max())


def log_softmax(l: np.ndarray) -> np.ndarray:
    return l - logsumexp(l)


def reference_z(name: str, members: np.ndarray, pub: np.ndarray, c: float, *, omega=0.7, lam=1.0, k=2, margin=0.5):
    """z by hand on the real vocabulary (inputs already sliced)."""
    p = log_softmax(pub)
    base = name.removesuffix("-topk")
    if base in ("paper", "paper+omega", "public-prior"):
        w = {"paper": 0.0, "paper+omega": omega, "public-prior": omega}[base]
        z = sum((grislain(m, c) for m in members), np.zeros_like(pub)) + w * p
    else:
        z = sum((np.clip(log_softmax(m) - p, -c, c) for m in members), np.zeros_like(pub)) + lam * p
    if name.endswith("-topk"):  # the k largest public log-probabilities and those within the margin
        kth = np.sort(p)[::-1][k - 1]
        z = np.where(p >= kth - margin, z, -np.inf)
    return z


# ---------------------------------------------------------------------------------------------
# sensitivity: adding or removing one member moves every coordinate of z by at most c
# ---------------------------------------------------------------------------------------------


def test_clipping_functions_bound_every_coordinate_by_c_exactly():
    """The per-member terms lie in [-c, c] with no tolerance, also where c is not a float32."""
    gen = np.random.default_rng(0)
    for case in range(300):
        c = float(np.exp(gen.uniform(np.log(1e-3), np.log(10.0)))) * (1 + 1e-9 * case)  # rarely a float32
        x = torch.as_tensor(gen.normal(0, gen.uniform(0.1, 40), size=(4, 30)), dtype=torch.float32)
        y = torch.as_tensor(gen.normal(0, gen.uniform(0.1, 40), size=(4, 30)), dtype=torch.float32)
        for out in (clip_logits(x, c), clip_logit_differences(x, y, c)):
            assert out.dtype == torch.float32 and float(out.abs().max()) <= c
    # non-finite scores never abort: an infinite difference clips to ±c, an undefined one is 0
    inf = float("inf")
    out = clip_logit_differences(torch.tensor([[0.0, -inf, -inf, inf, float("nan")]]),
                                 torch.tensor([[0.0, 0.0, -inf, 0.0, 0.0]]), 0.5)
    assert out.tolist() == [[0.0, -0.5, 0.0, 0.5, 0.0]]
    with pytest.raises(ConfigError, match="shape"):
        clip_logit_differences(torch.zeros(2, 3), torch.zeros(1, 3), 1.0)


@pytest.mark.parametrize("name", ["paper", "paper+omega", "public-prior", "paper+omega-topk", "public-prior-topk", "invisibleink",
                                  "invisibleink-topk"])
def test_adding_one_member_moves_every_coordinate_by_at_most_c(name):
    """Property test over 250 seeded random cases: random vocabulary, padding columns, cluster size
    0..6, logit scales from flat to extremely peaked, c from 1e-3 to 10, random weights. Group 0 is S,
    group 1 is S with one more member inserted at a random position (which also reorders the
    members). The float32 sums may round: each coordinate may move by c plus Higham's bound on the
    rounding of both recursive sums, γ_n · Σ|terms| — nothing looser."""
    gen = np.random.default_rng(zlib.crc32(name.encode()))
    largest = 0.0
    for _ in range(250):
        V = int(gen.integers(3, 40))
        pad = int(gen.integers(0, 4))
        n = int(gen.integers(0, 7))
        c = float(np.exp(gen.uniform(np.log(1e-3), np.log(10.0))))
        scale = float(np.exp(gen.uniform(np.log(0.05), np.log(60.0))))
        kw = dict(omega=float(gen.uniform(0.01, 3)), lam=float(gen.uniform(0, 3)), k=int(gen.integers(1, V + 1)),
                  margin=float(gen.uniform(0, 2)))
        sel = selectors(V, c, **kw)[name]
        member = gen.normal(0, scale, size=(n + 1, V + pad))
        member[:, V:] = 1e4  # padding columns of the output layer: must never matter
        public = gen.normal(0, scale, size=V + pad)
        public[V:] = -1e4
        pos = int(gen.integers(0, n + 1))
        S = list(range(n))
        S_plus = S[:pos] + [n] + S[pos:]
        src, layout = layout_of([S, S_plus], public=sel.uses_public)
        z = sel.scores(rows_tensor(member, public, src), layout).double()
        assert z.shape == (2, V)
        finite = torch.isfinite(z[0])
        assert torch.equal(finite, torch.isfinite(z[1]))  # the candidate set is public: the same for both
        assert bool(finite.any())
        moved = (z[1] - z[0])[finite].abs()
        pub_term = reference_z(name, np.zeros((0, V)), public[:V], c, **kw)
        pub_abs = torch.as_tensor(np.abs(np.where(np.isfinite(pub_term), pub_term, 0.0)))[finite]
        tol = gamma(n + 1) * (n * c + pub_abs) + gamma(n + 2) * ((n + 1) * c + pub_abs)
        assert bool((moved <= c + tol).all()), (V, n, c, float((moved - c - tol).max()))
        largest = max(largest, float((moved / c).max()))
    assert largest > 0.9  # the bound is reached in some case: the test can fail


def test_sensitivity_through_the_model_for_each_variant(tiny_lm):
    """The same property on the tiny Llama's real logits, through the decoder (every variant)."""
    public = tiny_lm.chat_prompt("rephrase the following document :")
    p = [tiny_lm.chat_prompt(f"rephrase the following document : {d}") for d in
         ["the patient has fever", "blue skin", "old patient with cough and rash", "the test of the blood was bad"]]
    clip = 0.3
    for kw in [dict(decoding="paper"), dict(decoding="paper", public_weight=0.5), dict(decoding="public-prior"),
               dict(decoding="public-prior", public_weight=0.25, top_k=5), dict(decoding="invisibleink"), dict(decoding="invisibleink", public_scale=2.0, top_k=5, top_k_margin=0.3)]:
        dec = PrivatePredictionDecoder(tiny_lm, clip=clip, temperature=1.0, max_new_tokens=3, random=SeededRandom(0),
                                       public_prompt=public, **kw)
        clusters = [p[:3], p[:3] + [p[3]], [p[3]] + p[:3], p[1:3]]
        for suffix in [(), (12, 8)]:
            z = dec.aggregated_logits(clusters, suffix).double()
            for a, b in [(0, 1), (0, 2), (0, 3)]:
                fin = torch.isfinite(z[a])
                assert torch.equal(fin, torch.isfinite(z[b]))
                pub = float(z[a][fin].abs().max()) + 4 * clip
                assert float((z[b] - z[a])[fin].abs().max()) <= clip + gamma(6) * pub * 2, (kw, suffix, a, b)


# ---------------------------------------------------------------------------------------------
# exact laws on hand-made logits
# ---------------------------------------------------------------------------------------------

V5 = 5
# 3 members and a public row over a 5-token vocabulary; columns 5 and 6 are padding of the output
# layer with huge values, which must be dropped before anything else.
HAND_MEMBERS = np.array([
    [2.0, 1.0, 0.0, -1.0, 0.5, 40.0, 40.0],
    [0.0, 3.0, 1.0, 0.0, -2.0, 40.0, 40.0],
    [1.0, 1.0, 1.0, 2.0, 0.0, 40.0, 40.0],
])
HAND_PUBLIC = np.array([0.5, 2.0, -1.0, 1.0, 0.0, 40.0, 40.0])


@pytest.mark.parametrize("name", ["paper", "paper+omega", "public-prior", "paper+omega-topk", "public-prior-topk", "invisibleink",
                                  "invisibleink-topk"])
@pytest.mark.parametrize("clip", [0.2, 1.5])
def test_scores_equal_the_hand_computed_z(name, clip):
    sel = selectors(V5, clip, omega=0.7, lam=1.3, k=2, margin=0.6)[name]
    src, layout = layout_of([[0, 1, 2], [], [2]], public=sel.uses_public)
    z = sel.scores(rows_tensor(HAND_MEMBERS, HAND_PUBLIC, src), layout).double().numpy()
    for g, members in enumerate([[0, 1, 2], [], [2]]):
        ref = reference_z(name, HAND_MEMBERS[members, :V5], HAND_PUBLIC[:V5], clip, omega=0.7, lam=1.3, k=2, margin=0.6)
        fin = np.isfinite(ref)
        assert np.array_equal(fin, np.isfinite(z[g]))
        np.testing.assert_allclose(z[g][fin], ref[fin], rtol=0, atol=2e-6)
    if name.endswith("-topk"):  # top-2 public tokens are 1 and 3; token 0 is 0.5 below token 3 (< 0.6)
        assert np.isfinite(z[0]).tolist() == [True, True, False, True, False]


@pytest.mark.parametrize("name", ["paper", "public-prior", "public-prior-topk", "invisibleink", "invisibleink-topk"])
def test_sampled_tokens_follow_softmax_of_z_over_tau(name):
    """4,000 groups holding the same cluster, one step: the token counts must fit softmax(z/τ) of the
    hand-computed z (chi-square, false-failure rate ALPHA); every group is charged one token."""
    clip, tau, n = 1.5, 0.7, 4000
    accountants = [ZCDPAccountant() for _ in range(n)]
    sel = selectors(V5, clip, tau, random=SeededRandom(11), accountants=accountants, omega=0.7, lam=1.3, k=2,
                    margin=0.6)[name]
    src, layout = layout_of([[0, 1, 2]] * n, public=sel.uses_public)
    tokens = sel.select(rows_tensor(HAND_MEMBERS, HAND_PUBLIC, src), layout, np.zeros(n, dtype=bool))
    ref = reference_z(name, HAND_MEMBERS[:, :V5], HAND_PUBLIC[:V5], clip, omega=0.7, lam=1.3, k=2, margin=0.6)
    probs = np.exp(ref / tau - logsumexp(ref / tau))
    assert probs.max() < 0.9  # a law worth testing
    counts = np.bincount(tokens, minlength=V5)
    assert len(counts) == V5  # padding columns are never drawn
    assert np.all(counts[probs == 0] == 0)  # outside the top-k+ set: never
    keep = probs > 0
    assert chisquare(counts[keep], probs[keep] * n).pvalue > ALPHA
    event = PrivatePredictionTokenEvent("private prediction token", clip, tau)
    assert all(a.ledger and [e.event for e in a.ledger] == [event] for a in accountants)


def test_ended_and_empty_groups_are_uniform_and_still_charged():
    """An ended group (its draw discarded) and a group with no row at all sample from z = 0."""
    n = 3000
    accountants = [ZCDPAccountant() for _ in range(2 * n)]
    sel = InvisibleInkSelector(V5, clip=1.0, temperature=0.5, random=SeededRandom(4), accountants=accountants, top_k=1)
    # groups 0..n-1: ended (rows still present), groups n..2n-1: no rows
    src, layout = layout_of([[0, 1]] * n, public=True)
    layout = RowLayout(layout.group, layout.public, 2 * n)
    finished = np.zeros(2 * n, dtype=bool)
    finished[:n] = True
    tokens = sel.select(rows_tensor(HAND_MEMBERS, HAND_PUBLIC, src), layout, finished)
    counts = np.bincount(tokens, minlength=V5)
    assert chisquare(counts, np.full(V5, 2 * n / V5)).pvalue > ALPHA
    assert all(len(a.ledger) == 1 for a in accountants)


# ---------------------------------------------------------------------------------------------
# nothing depends on the cluster's size
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["paper+omega", "public-prior", "invisibleink", "invisibleink-topk"])
def test_duplicated_public_rows_and_reordered_members_give_the_same_z(name):
    sel = selectors(V5, 0.8)[name]
    rows = [0, 1, 2, -1]
    base = sel.scores(rows_tensor(HAND_MEMBERS, HAND_PUBLIC, rows), RowLayout.build([0] * 4, [0, 0, 0, 1], 1))
    # the public row three times (e.g. one per member): read once
    dup_rows = [-1, 0, -1, 1, 2, -1]
    dup = sel.scores(rows_tensor(HAND_MEMBERS, HAND_PUBLIC, dup_rows), RowLayout.build([0] * 6, [1, 0, 1, 0, 0, 1], 1))
    assert torch.equal(base, dup)
    for order in ([2, 0, 1, -1], [-1, 1, 2, 0]):
        other = sel.scores(rows_tensor(HAND_MEMBERS, HAND_PUBLIC, order),
                           RowLayout.build([0] * 4, [s < 0 for s in order], 1))
        fin = torch.isfinite(base)
        assert torch.equal(fin, torch.isfinite(other))
        assert torch.allclose(base[fin], other[fin], rtol=0, atol=gamma(4) * 3 * float(base[fin].abs().max() + 3))


def test_invisibleink_sums_and_never_averages():
    """Members that agree with the public prompt add exactly 0, however many; a member that
    disagrees adds its clipped difference whatever the others (no division by the cluster size)."""
    sel = InvisibleInkSelector(V5, clip=0.4, temperature=1.0, random=SeededRandom(0), public_scale=1.3)
    agree = np.stack([HAND_PUBLIC + 3.0] * 4)  # the same log-probabilities, shifted logits
    members = np.concatenate([agree, HAND_MEMBERS[:1]])
    sizes = []
    for n_agree in range(5):
        rows = list(range(n_agree)) + [-1]
        sizes.append(sel.scores(rows_tensor(members, HAND_PUBLIC, rows), RowLayout.build([0] * len(rows), [s < 0 for s in rows], 1)))
    assert all(torch.equal(sizes[0], s) for s in sizes)
    np.testing.assert_allclose(sizes[0][0].double().numpy(), 1.3 * log_softmax(HAND_PUBLIC[:V5]), atol=1e-6)
    one = sel.scores(rows_tensor(members, HAND_PUBLIC, [4, -1]), RowLayout.build([0, 0], [0, 1], 1))
    many = sel.scores(rows_tensor(members, HAND_PUBLIC, [0, 1, 4, 2, -1]), RowLayout.build([0] * 5, [0, 0, 0, 0, 1], 1))
    assert torch.allclose(one, many, atol=1e-6)


def test_paper_sums_clipped_vectors_without_averaging():
    sel = PaperSelector(V5, clip=0.3, temperature=1.0, random=SeededRandom(0))
    for n in (1, 2, 5):
        z = sel.scores(rows_tensor(HAND_MEMBERS, HAND_PUBLIC, [0] * n), RowLayout.build([0] * n, None, 1))
        np.testing.assert_allclose(z[0].double().numpy(), n * grislain(HAND_MEMBERS[0, :V5], 0.3), atol=1e-6)


def test_paper_scores_are_todays_decoder_bit_for_bit():
    """The "paper" selector computes exactly what the decoder computed before the selectors existed:
    clipped rows summed in chunks with index_add_, then ω · log_softmax of the public row added."""
    gen = np.random.default_rng(3)
    logits = torch.as_tensor(gen.normal(0, 4, size=(150, 12)), dtype=torch.float32)
    group = torch.as_tensor(gen.integers(0, 7, size=150))
    public = torch.zeros(150, dtype=torch.bool)
    for g in range(7):  # one public row per group
        public[int(torch.nonzero(group == g)[0])] = True
    clip, omega, vocab = 0.37, 0.6, 10
    ref = torch.zeros((7, vocab), dtype=torch.float32)
    real = logits[:, :vocab]
    private = torch.nonzero(~public).flatten()
    for i in range(0, private.numel(), 64):
        idx = private[i : i + 64]
        ref.index_add_(0, group[idx], clip_logits(real.index_select(0, idx), clip))
    pub = torch.nonzero(public).flatten()
    ref.index_add_(0, group[pub], torch.log_softmax(real.index_select(0, pub).float(), dim=-1) * omega)
    sel = PaperSelector(vocab, clip=clip, temperature=1.0, random=SeededRandom(0), public_weight=omega)
    assert torch.equal(sel.scores(logits, RowLayout(group, public, 7)), ref)


# ---------------------------------------------------------------------------------------------
# the loop
# ---------------------------------------------------------------------------------------------


class _ScriptedRows:
    """A RowBatch stand-in: logits favour token (row's group + step) % vocab; records fed tokens."""

    def __init__(self, n_rows: int, vocab: int = 7):
        self.rows, self.vocab, self.t, self.fed, self.kept = n_rows, vocab, 0, [], []
        self.row_id = torch.arange(n_rows)
        self.first_logits = self._logits()

    def _logits(self):
        x = torch.zeros((self.rows, self.vocab))
        x[torch.arange(self.rows), (self.row_id + self.t) % self.vocab] = 5.0
        return x

    def step(self, tokens):
        self.fed.append(tokens.tolist())
        self.t += 1
        return self._logits()

    def keep(self, rows):
        self.kept.append(rows.tolist())
        self.row_id = self.row_id[rows]
        self.rows = int(rows.numel())


def test_greedy_loop_stops_at_eos_and_drops_ended_rows():
    rows = _ScriptedRows(3)
    out = decode(rows, RowLayout.one_row_per_group(3), GreedySelector(7), steps=5, eos={2})
    # row 0 emits 0, 1, then EOS 2; row 1 emits 1 then EOS; row 2 emits EOS at once
    assert out == [[0, 1], [1], []]
    assert rows.kept == [[0, 1], [0]]  # ended rows dropped before the next step
    assert rows.fed == [[0, 1], [1]]
    stop = decode(_ScriptedRows(2), RowLayout.one_row_per_group(2), GreedySelector(7), steps=6, eos=(),
                  stop=lambda g, toks: len(toks) == 2 + g)
    assert stop == [[0, 1], [1, 2, 3]]


def test_private_loop_charges_every_group_T_tokens_after_all_ended():
    T = 6
    accs = [ZCDPAccountant() for _ in range(3)]
    sel = PaperSelector(7, clip=1.0, temperature=1e-3, random=SeededRandom(0), accountants=accs)
    rows = _ScriptedRows(2)  # groups 0 and 1 one row each; group 2 empty (no row)
    layout = RowLayout(torch.tensor([0, 1]), torch.tensor([False, False]), 3)
    out = decode(rows, layout, sel, steps=T, eos={2})
    assert out[0] == [0, 1] and out[1] == [1]
    assert all(len(a.ledger) == T for a in accs)  # every group, every step, also after both ended


def test_sampling_selector_follows_softmax_over_the_real_vocabulary():
    n, tau = 6000, 0.8
    logits = torch.as_tensor(np.tile(HAND_PUBLIC, (n, 1)), dtype=torch.float32)
    tokens = SamplingSelector(V5, temperature=tau, random=SeededRandom(8)).select(
        logits, RowLayout.one_row_per_group(n), np.zeros(n, dtype=bool))
    probs = np.exp(HAND_PUBLIC[:V5] / tau - logsumexp(HAND_PUBLIC[:V5] / tau))
    counts = np.bincount(tokens, minlength=V5)
    assert len(counts) == V5 and chisquare(counts, probs * n).pvalue > ALPHA


def test_selector_parameters_are_checked():
    r = SeededRandom(0)
    with pytest.raises(ConfigError, match="`decoding`"):
        make_private_selector("greedy", 5, clip=1.0, temperature=1.0, random=r)
    with pytest.raises(ConfigError, match="needs `public_weight` > 0"):
        make_private_selector("paper", 5, clip=1.0, temperature=1.0, random=r, top_k=3)
    with pytest.raises(ConfigError, match="does not apply"):
        make_private_selector("public-prior", 5, clip=1.0, temperature=1.0, random=r, public_scale=2.0)
    with pytest.raises(ConfigError, match="needs `top_k`"):
        make_private_selector("public-prior", 5, clip=1.0, temperature=1.0, random=r, top_k_margin=1.0)
    with pytest.raises(ConfigError, match="does not apply"):
        make_private_selector("invisibleink", 5, clip=1.0, temperature=1.0, random=r, public_weight=1.0)
    with pytest.raises(ConfigError, match="must be > 0"):
        make_private_selector("public-prior", 5, clip=1.0, temperature=1.0, random=r, public_weight=0.0)
    with pytest.raises(ConfigError, match="`top_k`"):
        make_private_selector("invisibleink", 5, clip=1.0, temperature=1.0, random=r, top_k=0)
    with pytest.raises(ConfigError, match="`public_scale`"):
        make_private_selector("invisibleink", 5, clip=1.0, temperature=1.0, random=r, public_scale=-1.0)
    assert make_private_selector("public-prior", 5, clip=1.0, temperature=1.0, random=r).public_weight == 1.0
    assert make_private_selector("paper", 5, clip=1.0, temperature=1.0, random=r).uses_public is False


# ---------------------------------------------------------------------------------------------
# the decoder on the tiny model
# ---------------------------------------------------------------------------------------------


def _direct(lm, text, suffix=()):
    ids = lm.encode(text) + list(suffix)
    with torch.no_grad():
        return lm.model(torch.tensor([ids])).logits[0, -1, : lm.vocab_size].double().numpy()


@pytest.mark.parametrize("variant", [dict(decoding="public-prior", public_weight=0.8),
                                     dict(decoding="public-prior", public_weight=0.8, top_k=4, top_k_margin=0.2),
                                     dict(decoding="invisibleink", public_scale=1.5, top_k=4, top_k_margin=0.2)])
def test_decoder_scores_equal_the_direct_computation(tiny_lm, variant):
    public = tiny_lm.chat_prompt("rephrase the following document :")
    docs = [tiny_lm.chat_prompt(f"rephrase the following document : {d}") for d in ["the patient has fever", "blue skin"]]
    dec = PrivatePredictionDecoder(tiny_lm, clip=0.6, temperature=1.0, max_new_tokens=2, random=SeededRandom(0),
                                   public_prompt=public, **variant)
    name = variant["decoding"] + ("-topk" if "top_k" in variant else "")
    for suffix in [(), (9, 14)]:
        z = dec.aggregated_logits([docs, []], suffix).double().numpy()
        members = np.stack([_direct(tiny_lm, d, suffix) for d in docs])
        pub = _direct(tiny_lm, public, suffix)
        kw = dict(omega=0.8, lam=1.5, k=4, margin=0.2)
        for g, m in enumerate([members, members[:0]]):
            ref = reference_z(name, m, pub, 0.6, **kw)
            fin = np.isfinite(ref)
            assert np.array_equal(fin, np.isfinite(z[g]))
            np.testing.assert_allclose(z[g][fin], ref[fin], atol=1e-4)  # float32 kernels vs a direct forward


@pytest.mark.parametrize("decoding", ["paper", "public-prior", "invisibleink"])
def test_every_variant_charges_T_tokens_per_cluster_whatever_its_size_or_end(tiny_lm, decoding):
    public = tiny_lm.chat_prompt("rephrase the following document :")
    p = [tiny_lm.chat_prompt(f"rephrase the following document : {d}") for d in ["the patient has fever", "blue skin", "old red eye"]]
    T, clip, tau = 5, 0.5, 1.0
    tiny_lm.eos_token_ids = tuple(range(20, 40))  # many EOS tokens: most texts end early
    accs = [ZCDPAccountant() for _ in range(4)]
    dec = PrivatePredictionDecoder(tiny_lm, clip=clip, temperature=tau, max_new_tokens=T, random=SeededRandom(2),
                                   public_prompt=public, decoding=decoding)
    ids = dec.generate_ids([p, [p[0]], [], p[1:]], accs)
    assert len(ids) == 4 and all(len(t) <= T for t in ids)
    event = PrivatePredictionTokenEvent("private prediction token", clip, tau)
    for acc in accs:
        assert [e.event for e in acc.ledger] == [event] * T
        assert acc.rho == pytest.approx(T * 0.5 * (clip / tau) ** 2, rel=1e-12)


def test_empty_clusters_run_only_the_public_prompt_and_sample_its_term(tiny_lm, monkeypatch):
    """InvisibleInk on empty clusters: z = λ · log_softmax(l_pub) on the top-k+ set; the model sees
    the public prompt only (one distinct prompt prefilled, one public row per cluster)."""
    public = tiny_lm.chat_prompt("rephrase the following document :")
    calls = []
    forward = tiny_lm.runner.forward

    def recording(ids, *a, **k):
        calls.append(tuple(ids.shape))
        return forward(ids, *a, **k)

    monkeypatch.setattr(tiny_lm.runner, "forward", recording)
    tiny_lm.eos_token_ids = ()
    n, tau, lam = 3000, 0.9, 0.6
    dec = PrivatePredictionDecoder(tiny_lm, clip=0.5, temperature=tau, max_new_tokens=1, random=SeededRandom(6),
                                   public_prompt=public, decoding="invisibleink", public_scale=lam, top_k=6)
    ids = dec.generate_ids([[]] * n, [ZCDPAccountant() for _ in range(n)])
    assert [c[0] for c in calls if c[1] > 1] == [1]  # one prefill: the public prompt
    pub = log_softmax(_direct(tiny_lm, public))
    z = np.where(pub >= np.sort(pub)[::-1][5], lam * pub, -np.inf)
    probs = np.exp(z / tau - logsumexp(z / tau))
    counts = np.bincount([t[0] for t in ids], minlength=tiny_lm.vocab_size)
    assert np.all(counts[probs == 0] == 0)
    assert chisquare(counts[probs > 0], probs[probs > 0] * n).pvalue > ALPHA


def test_decoder_needs_a_public_prompt_for_the_public_variants(tiny_lm):
    for decoding in ("public-prior", "invisibleink"):
        with pytest.raises(ConfigError, match="needs a public prompt"):
            PrivatePredictionDecoder(tiny_lm, clip=1.0, temperature=1.0, max_new_tokens=2, random=SeededRandom(0),
                                     decoding=decoding)
    with pytest.raises(ConfigError, match="`decoding`"):
        PrivatePredictionDecoder(tiny_lm, clip=1.0, temperature=1.0, max_new_tokens=2, random=SeededRandom(0),
                                 decoding="nucleus")


# ---------------------------------------------------------------------------------------------
# config, build, CLI
# ---------------------------------------------------------------------------------------------


def test_config_checks_and_default_public_prompt():
    from pydantic import ValidationError

    from dpsynrag.pipeline.build import REPHRASE_PROMPT, resolve_public_prompt
    from dpsynrag.pipeline.config import BuildConfig

    base = dict(epsilon=10.0, delta=1e-3)
    assert BuildConfig(**base).decoding == "paper" and resolve_public_prompt(BuildConfig(**base)) is None
    default = REPHRASE_PROMPT.format(document="")
    assert resolve_public_prompt(BuildConfig(**base, decoding="public-prior")) == default
    assert resolve_public_prompt(BuildConfig(**base, decoding="invisibleink")) == default
    assert resolve_public_prompt(BuildConfig(**base, public_weight=0.5)) == default
    assert resolve_public_prompt(BuildConfig(**base, decoding="invisibleink", public_prompt="hi")) == "hi"
    for bad, match in [
        (dict(public_top_k=5), "runs none"),
        (dict(decoding="public-prior", invisibleink_lambda=2.0), "applies only to"),
        (dict(decoding="invisibleink", public_top_k_margin=1.0), "needs `public_top_k`"),
        (dict(decoding="invisibleink", public_weight=1.0), "does not apply"),
        (dict(decoding="public-prior", public_weight=0.0), "must be > 0"),
        (dict(decoding="greedy"), "decoding"),
    ]:
        with pytest.raises(ValidationError, match=match):
            BuildConfig(**base, **bad)


TINY_DOCS = NOTES


@pytest.mark.parametrize("variant", [dict(decoding="paper"), dict(decoding="public-prior"),
                                     dict(decoding="invisibleink", public_top_k=8, public_top_k_margin=0.5),
                                     dict(decoding="public-prior", public_weight=0.25, public_top_k=8)])
def test_build_with_each_variant_meets_its_epsilon_and_names_the_variant(tmp_path, tiny_lm, variant):
    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    config = BuildConfig(epsilon=4.0, delta=1e-3, K=3, R=3, L=2, k=10, T=4, extractor="rarity", open_vocabulary=True,
                         self_filter=False, max_document_tokens=16, seed=1, **variant)
    corpus = build_corpus(TINY_DOCS, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert manifest["privacy"]["epsilon"] <= 4.0 and corpus.privacy_report.epsilon <= 4.0
    assert manifest["num_texts"] == 3
    assert manifest["decoding"]["decoding"] == variant["decoding"]
    assert manifest["privacy"]["decoding"]["decoding"] == variant["decoding"]
    assert manifest["config"]["decoding"] == variant["decoding"]
    if variant["decoding"] == "paper":
        assert manifest["decoding"]["public_prompt"] is None and manifest["decoding"]["public_weight"] == 0.0
    else:
        assert manifest["decoding"]["public_prompt"].startswith("Rephrase the following document")
    if variant["decoding"] == "invisibleink":
        assert manifest["decoding"]["top_k"] == 8 and manifest["decoding"]["public_scale"] == 1.0
    assert manifest["decoding"].get("top_k") == variant.get("public_top_k")
    assert manifest["privacy"]["decoding"].get("top_k") == variant.get("public_top_k")
    # every cluster paid T tokens: the token mechanism's clip and tau are the calibrated ones
    tokens = manifest["privacy"]["mechanisms"][1]["branch"]["events"][-1]
    assert tokens["count"] == 4 and tokens["event"]["clip"] == pytest.approx(manifest["privacy"]["parameters"]["clip"])


def test_cli_build_takes_decoding_and_the_report_names_it(tmp_path, tiny_lm, monkeypatch):
    from typer.testing import CliRunner

    from dpsynrag.cli import app
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))
    data = tmp_path / "docs.jsonl"
    data.write_text("".join(json.dumps({"text": t}) + "\n" for t in TINY_DOCS))
    args = ["build", str(data), "--epsilon", "4", "--delta", "1e-3", "--K", "3", "--R", "2", "--L", "2", "--k", "10",
            "--T", "3", "--extractor", "rarity", "--open-vocabulary", "--no-self-filter", "--max-document-tokens", "16",
            "--seed", "0", "--preset", "paper"]
    runner = CliRunner()
    out = tmp_path / "ink"
    result = runner.invoke(app, [*args, "--out", str(out), "--decoding", "invisibleink", "--public-top-k", "5"])
    assert result.exit_code == 0, result.output
    assert "decoding" in result.output and "invisibleink" in result.output
    report = json.loads(runner.invoke(app, ["report", str(out), "--json"]).output)
    assert report["decoding"]["decoding"] == "invisibleink" and report["epsilon"] <= 4
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "x"), "--decoding", "nucleus"])
    assert result.exit_code == 2 and "decoding" in result.output
    result = runner.invoke(app, [*args[:2], "--out", str(tmp_path / "y"), "--epsilon", "4", "--delta", "1e-3",
                                 "--method", "dp-synth", "--decoding", "public-prior", "--no-self-filter"])
    assert result.exit_code == 2 and "--decoding" in result.output
