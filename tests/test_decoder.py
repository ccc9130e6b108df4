"""The private-prediction decoder (METHOD.md §2d) on a tiny in-code Llama: clipping bounds,
sensitivity, the exact next-token law, uniform sampling of empty clusters, batching invariance,
EOS and accounting, the public prompt, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.stats import chisquare

from dpsynrag.errors import ConfigError, DataError, PrivacyBudgetExceededError
from dpsynrag.models import LanguageModel, PrivatePredictionDecoder
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import PrivatePredictionTokenEvent
from dpsynrag.privacy.prediction import clip_logits
from dpsynrag.rng import SeededRandom

VOCAB = 59  # tokenizer size; the model has 64 output rows

DOCS = [
    "the patient has fever",
    "the doctor was good and the drug dose was new",
    "blue skin",
    "old patient with cough and rash and pain in the head and the arm",
    "the test of the blood was bad",
]

# The false-failure rate of each chi-square test: a correct implementation gives p < ALPHA with
# probability ALPHA over the randomness (the seeds are fixed, so a run is reproducible).
ALPHA = 1e-3


def prompt(lm: LanguageModel, doc: str) -> str:
    return lm.chat_prompt(f"rephrase the following document : {doc}")


def direct_logits(lm: LanguageModel, text: str, suffix=()) -> torch.Tensor:
    """Next-token logits of one unpadded sequence, full forward without cache (the reference)."""
    ids = lm.encode(text) + list(suffix)
    with torch.no_grad():
        return lm.model(torch.tensor([ids])).logits[0, -1, :VOCAB].float()


def direct_z(lm, docs, clip, suffix=()) -> torch.Tensor:
    z = torch.zeros(VOCAB)
    for d in docs:
        z += clip_logits(direct_logits(lm, prompt(lm, d), suffix)[None, :], clip)[0]
    return z


def decoder(lm, **kw) -> PrivatePredictionDecoder:
    args = dict(clip=1.0, temperature=0.5, max_new_tokens=4, random=SeededRandom(0))
    args.update(kw)
    return PrivatePredictionDecoder(lm, **args)


def binned_chisquare(counts: np.ndarray, probs: np.ndarray, min_expected: float = 5.0) -> float:
    """p-value of a chi-square goodness-of-fit test; categories with expected count < min_expected
    are pooled into one bin so the chi-square approximation holds."""
    n = counts.sum()
    expected = probs * n
    big = expected >= min_expected
    obs = list(counts[big]) + ([counts[~big].sum()] if (~big).any() else [])
    exp = list(expected[big]) + ([expected[~big].sum()] if (~big).any() else [])
    return float(chisquare(obs, exp).pvalue)


# ---------------------------------------------------------------------------------------------
# clipping and sensitivity, through the decoder's own aggregation
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("clip", [0.05, 0.3, 2.0])
def test_each_member_contribution_lies_in_minus_c_c(tiny_lm, clip):
    dec = decoder(tiny_lm, clip=clip)
    singles = [[prompt(tiny_lm, d)] for d in DOCS]
    for suffix in [(), (9, 10), (3, 3, 40)]:
        z = dec.aggregated_logits(singles, suffix)
        assert z.shape == (len(DOCS), VOCAB) and z.dtype == torch.float32
        assert float(z.abs().max()) <= clip  # every clipped vector lies in [-c, c]
        # the bound is reached: clipping is active (centred exp-logits span ~[-1/2, 1/2] > c here,
        # except for c = 2, where the vector is only centred, so its sup-norm is (1 - min)/2 < c)
        if clip < 0.5:
            assert torch.allclose(z.abs().amax(dim=1), torch.full((len(DOCS),), clip), atol=1e-6)


@pytest.mark.parametrize("suffix", [(), (12, 8)])
def test_adding_one_member_moves_every_coordinate_by_at_most_c(tiny_lm, suffix):
    clip = 0.2
    dec = decoder(tiny_lm, clip=clip)
    base = [prompt(tiny_lm, d) for d in DOCS[:3]]
    clusters = [base] + [base + [prompt(tiny_lm, d)] for d in DOCS[3:]] + [base[:2]]
    z = dec.aggregated_logits(clusters, suffix)
    for row in range(1, len(clusters)):
        assert float((z[row] - z[0]).abs().max()) <= clip + 1e-5  # float32 sums of <= 4 terms


def test_aggregation_equals_direct_computation(tiny_lm):
    clip = 0.7
    dec = decoder(tiny_lm, clip=clip)
    clusters = [[prompt(tiny_lm, d) for d in DOCS[:3]], [prompt(tiny_lm, d) for d in DOCS[2:]]]
    for suffix in [(), (9,), (9, 14, 3)]:
        z = dec.aggregated_logits(clusters, suffix)
        assert torch.allclose(z[0], direct_z(tiny_lm, DOCS[:3], clip, suffix), atol=1e-5)
        assert torch.allclose(z[1], direct_z(tiny_lm, DOCS[2:], clip, suffix), atol=1e-5)


def tiny_config_model(model_type: str):
    """Tiny random models of the other architectures the shared-prompt engine accepts."""
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.for_model(
        model_type, vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128, initializer_range=0.5,
        bos_token_id=2, eos_token_id=3, pad_token_id=0, tie_word_embeddings=False,
        **({"head_dim": 8} if model_type == "qwen3" else {}),
        **({"sliding_window": None} if model_type in ("mistral", "phi3", "qwen2", "qwen3") else {}),
    )
    torch.manual_seed(1)
    return AutoModelForCausalLM.from_config(config).eval()


@pytest.mark.parametrize("model_type", ["llama", "qwen2", "qwen3", "mistral", "phi3"])
def test_every_engine_gives_the_direct_scores(tiny_lm_factory, model_type):
    model = None if model_type == "llama" else tiny_config_model(model_type)
    default = tiny_lm_factory(model=model)
    assert default.runner.mode == "shared"
    p = [prompt(default, d) for d in DOCS]
    clusters = [[p[0], p[1], p[3]], [p[1], p[2]], [p[3], p[4], p[0], p[2]], [], [p[4], p[4]]]
    for engine in ["shared", "fast", "generic"]:
        lm = tiny_lm_factory(model=model, engine=engine)
        for suffix in [(), (20, 21, 9)]:
            z = decoder(lm).aggregated_logits(clusters, suffix)
            for r, c in enumerate(clusters):
                ref = torch.zeros(VOCAB)
                for text in c:
                    ref += clip_logits(direct_logits(lm, text, suffix)[None, :], 1.0)[0]
                # float32 kernels (flash vs math attention) differ in rounding: ~1e-5 on sums of
                # up to four clipped vectors of size <= c = 1
                assert torch.allclose(z[r], ref, atol=1e-4), (model_type, engine, suffix, r)


def test_sliding_window_model_takes_the_generic_engine(tiny_lm_factory):
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.for_model(
        "mistral", vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128, initializer_range=0.5,
        bos_token_id=2, eos_token_id=3, pad_token_id=0, sliding_window=6,  # shorter than the prompts
    )
    torch.manual_seed(2)
    model = AutoModelForCausalLM.from_config(config).eval()
    lm = tiny_lm_factory(model=model)
    assert lm.runner.mode == "generic"
    with pytest.raises(ConfigError, match="not supported by this model"):
        tiny_lm_factory(model=model, engine="shared")
    p = [prompt(lm, d) for d in DOCS]
    clusters = [[p[0], p[3]], [p[1], p[2], p[3]]]
    for suffix in [(), (9, 10, 11)]:
        z = decoder(lm).aggregated_logits(clusters, suffix)
        for r, c in enumerate(clusters):
            ref = sum(clip_logits(direct_logits(lm, t, suffix)[None, :], 1.0)[0] for t in c)
            assert torch.allclose(z[r], ref, atol=1e-4)


@pytest.mark.parametrize("decoding", ["paper", "invisibleink"])
def test_identical_members_are_one_weighted_row_with_the_same_scores(tiny_lm_factory, decoding, monkeypatch):
    """A cluster holding the same prompt m times (near-duplicate documents) gives the z of m separate
    members (sum of m equal clipped vectors), computed from one row: the decode forwards hold one row
    per distinct prompt (+ the public row), whatever m is."""
    lm = tiny_lm_factory(engine="shared")
    clip = 0.4
    p = [prompt(lm, d) for d in DOCS]
    kw = dict(clip=clip, decoding=decoding)
    if decoding == "invisibleink":
        kw["public_prompt"] = lm.chat_prompt("rephrase the following document : ")
    dec = decoder(lm, **kw)
    clusters = [[p[0]] * 5 + [p[1], p[0]], [p[2], p[3]], [p[4]] * 3]
    for suffix in [(), (9, 14)]:
        z = dec.aggregated_logits(clusters, suffix)
        if decoding == "paper":
            assert torch.allclose(z[0], direct_z(lm, [DOCS[0]] * 6 + [DOCS[1]], clip, suffix), atol=1e-5)
            assert torch.allclose(z[2], 3 * direct_z(lm, [DOCS[4]], clip, suffix), atol=1e-5)
        one_by_one = torch.zeros_like(z[0])
        for member in clusters[0]:
            one_by_one += dec.aggregated_logits([[member]], suffix)[0] - dec.aggregated_logits([[]], suffix)[0]
        assert torch.allclose(z[0] - dec.aggregated_logits([[]], suffix)[0], one_by_one, atol=1e-5)
    # rows: one per distinct prompt of each cluster (2 + 2 + 1), plus one public row per cluster if any
    import dpsynrag.models.decoder as decoder_module

    rows = []

    class Recording(decoder_module.RowBatch):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            rows.append(self.rows)

    monkeypatch.setattr(decoder_module, "RowBatch", Recording)
    lm.eos_token_ids = ()
    decoder(lm, max_new_tokens=2, **kw).generate(clusters, [ZCDPAccountant() for _ in clusters])
    assert rows == [5 + (3 if decoding == "invisibleink" else 0)]


@pytest.mark.parametrize("engine", ["shared", "fast"])
def test_shared_prefix_and_shared_documents_are_computed_once(tiny_lm_factory, engine, monkeypatch):
    from dpsynrag.models.engine import bucket_width, default_step_rows

    lm = tiny_lm_factory(engine=engine)
    calls = []
    forward = lm.runner.forward

    def recording(ids, *args, **kwargs):
        calls.append(tuple(ids.shape))
        return forward(ids, *args, **kwargs)

    monkeypatch.setattr(lm.runner, "forward", recording)
    lm.eos_token_ids = ()  # no row leaves early: every step has one row per membership
    p = [prompt(lm, d) for d in DOCS]
    prefix = lm.public_prefix("rephrase the following document : {document}")
    assert prefix == lm.encode(prompt(lm, ""))[:5]  # "<|user|> rephrase the following document", no ":"
    clusters = [[p[0], p[1], p[2]], [p[1], p[2], p[3]], [p[2], p[3], p[4]], [p[0], p[4]]]
    T = 3
    decoder(lm, max_new_tokens=T, prompt_prefix=prefix).generate(clusters, [ZCDPAccountant() for _ in clusters])
    prefills = [c for c in calls if c[1] > 1]
    steps = [c for c in calls if c[1] == 1]
    # one forward for the public prefix (batch 1), then every distinct document exactly once, alone,
    # its rest left-padded to a public bucket width
    assert prefills[0] == (1, len(prefix))
    assert prefills[1:] == [(1, bucket_width(len(lm.encode(t)) - len(prefix))) for t in p]
    # T - 1 decode steps (the first token comes from the prefill), each one forward of the fixed
    # public row count (the 11 memberships and dummy rows)
    assert len(steps) == T - 1 and all(c[0] == default_step_rows(lm.device) == 32 for c in steps)
    # a second call with the same public prefix reuses its keys/values
    calls.clear()
    decoder(lm, max_new_tokens=1, prompt_prefix=prefix).generate([[p[3], p[1]]], [ZCDPAccountant()])
    assert calls == [(1, bucket_width(len(lm.encode(p[3])) - len(prefix))),
                     (1, bucket_width(len(lm.encode(p[1])) - len(prefix)))]


# ---------------------------------------------------------------------------------------------
# the sampled law
# ---------------------------------------------------------------------------------------------


def test_first_token_distribution_matches_softmax_of_direct_sum(tiny_lm):
    clip, tau, n = 1.0, 0.5, 4000
    docs = DOCS[:3]
    probs = torch.softmax(direct_z(tiny_lm, docs, clip).double() / tau, dim=0).numpy()
    assert probs.max() < 0.9  # a law worth testing: not a point mass
    dec = decoder(tiny_lm, clip=clip, temperature=tau, max_new_tokens=1, random=SeededRandom(1))
    cluster = [prompt(tiny_lm, d) for d in docs]
    tiny_lm.eos_token_ids = ()  # count every first token, EOS included
    ids = dec.generate_ids([cluster] * n, [ZCDPAccountant() for _ in range(n)])
    first = np.array([t[0] for t in ids])
    assert first.max() < VOCAB
    counts = np.bincount(first, minlength=VOCAB)
    assert binned_chisquare(counts, probs) > ALPHA


def test_empty_cluster_samples_uniformly_without_calling_the_model(tiny_lm, monkeypatch):
    def no_model(*a, **k):
        raise AssertionError("an empty cluster must not run the model")

    monkeypatch.setattr(tiny_lm.runner, "forward", no_model)
    tiny_lm.eos_token_ids = ()
    n, T = 1500, 2
    accountants = [ZCDPAccountant() for _ in range(n)]
    ids = decoder(tiny_lm, max_new_tokens=T, random=SeededRandom(2)).generate_ids([[]] * n, accountants)
    tokens = np.array(ids).reshape(-1)
    assert tokens.size == n * T and tokens.max() < VOCAB  # padded output rows are never sampled
    counts = np.bincount(tokens, minlength=VOCAB)
    assert binned_chisquare(counts, np.full(VOCAB, 1.0 / VOCAB)) > ALPHA
    assert all(len(a.ledger) == T for a in accountants)  # still charged T tokens


@pytest.mark.parametrize("engine", ["shared", "fast", "generic"])
def test_batched_clusters_decode_like_one_at_a_time(tiny_lm_factory, engine):
    """Near-greedy temperature makes decoding deterministic, so token sequences must agree exactly
    whether clusters share a batch (shared documents, padding, rows dropped at EOS) or run alone."""
    tiny_lm = tiny_lm_factory(engine=engine)
    p = [prompt(tiny_lm, d) for d in DOCS]
    clusters = [[p[0], p[1], p[3]], [], [p[1], p[2]], [p[3], p[4], p[0], p[2]], [p[4]]]
    kw = dict(clip=1.0, temperature=1e-4, max_new_tokens=6)
    batched = decoder(tiny_lm, random=SeededRandom(3), **kw).generate_ids(
        clusters[:1] + clusters[2:], [ZCDPAccountant() for _ in range(4)]
    )
    alone = [decoder(tiny_lm, random=SeededRandom(3), **kw).generate_ids([c], [ZCDPAccountant()])[0]
             for c in clusters[:1] + clusters[2:]]
    assert batched == alone
    # and the scores agree for any suffix, including the empty cluster (zero)
    dec = decoder(tiny_lm)
    z_all = dec.aggregated_logits(clusters, (9, 10))
    for r, c in enumerate(clusters):
        assert torch.allclose(z_all[r], dec.aggregated_logits([c], (9, 10))[0], atol=1e-5)
    assert float(z_all[1].abs().max()) == 0.0


def test_rows_per_group_and_step_rows_change_storage_not_the_scores(tiny_lm):
    """One query slot per stored prompt (a build with L = 1) stores a prompt once per row: the plan
    counts those copies; with it, or with 64-row forwards, the scores are those of the defaults up to
    float rounding."""
    p = [prompt(tiny_lm, d) for d in DOCS]
    clusters = [[p[0], p[1]], [p[0], p[2]], [p[0], p[3]]]  # p[0] continued by 3 rows
    one, four = decoder(tiny_lm, rows_per_group=1), decoder(tiny_lm)
    assert four.rows_per_group == 4
    z1, z4 = one.aggregated_logits(clusters, (9, 10)), four.aggregated_logits(clusters, (9, 10))
    assert torch.allclose(z1, z4, atol=1e-5) and float(z1.abs().max()) > 0.1
    assert torch.allclose(decoder(tiny_lm, step_rows=64).aggregated_logits(clusters, (9, 10)), z4, atol=1e-5)
    # a budget that holds the 4 distinct prompts once (4 slots) but not p[0] three times (1 slot)
    prompts, members, public_of = four._encode(clusters)
    assert tiny_lm.runner.mode == "shared"
    width = max(len(t) for t in prompts)
    kvb = tiny_lm.kv_bytes_per_token()
    per_row = 4 * kvb + 3 * 4 * tiny_lm.model_vocab_size
    gb = (4 * width * kvb + 6 * per_row) / 2**30
    assert decoder(tiny_lm, memory_budget_gb=gb)._plan(prompts, members, public_of) == [[0, 1, 2]]
    assert decoder(tiny_lm, memory_budget_gb=gb, rows_per_group=1)._plan(prompts, members, public_of) == [[0, 1], [2]]
    for bad in (0, 1.5, True):
        for name in ("rows_per_group", "step_rows"):
            with pytest.raises(ConfigError, match=name):
                decoder(tiny_lm, **{name: bad})


def test_memory_budget_splits_batches_without_changing_results(tiny_lm):
    p = [prompt(tiny_lm, d) for d in DOCS]
    clusters = [[p[0], p[1]], [p[1], p[2], p[3]], [p[4]], [p[0], p[4]]]
    kw = dict(clip=1.0, temperature=1e-4, max_new_tokens=5)
    big = decoder(tiny_lm, random=SeededRandom(0), **kw)
    small = decoder(tiny_lm, random=SeededRandom(0), memory_budget_gb=1e-9, **kw)
    prompts, members, public_of = small._encode(clusters)
    assert small._plan(prompts, members, public_of) == [[0], [1], [2], [3]]  # every cluster alone, none dropped
    assert big._plan(prompts, members, public_of) == [[0, 1, 2, 3]]
    accs = [ZCDPAccountant() for _ in clusters]
    assert big.generate_ids(clusters, [ZCDPAccountant() for _ in clusters]) == small.generate_ids(clusters, accs)
    assert all(len(a.ledger) == 5 for a in accs)


@pytest.mark.parametrize("engine", ["shared", "generic"])
def test_progress_callbacks_advance_every_step_and_every_prefill(tiny_lm_factory, engine):
    """issue 43: private prediction talks. One on_step call per decoding step of a batch, with the batch's
    number of texts, so the calls add up to texts x T (every step charged); one on_prefill call per prefill
    forward of a batch, counting up to its total."""
    tiny_lm = tiny_lm_factory(engine=engine)
    p = [prompt(tiny_lm, d) for d in DOCS]
    clusters = [[p[0], p[1]], [p[1], p[2], p[3]], [p[4]], [p[0], p[4]]]
    T = 5
    for budget, batches in ((2.0, [4]), (1e-9, [1, 1, 1, 1])):  # one batch of 4 clusters, or each alone
        steps, prefills = [], []
        decoder(tiny_lm, max_new_tokens=T, memory_budget_gb=budget).generate_ids(
            clusters, [ZCDPAccountant() for _ in clusters], on_step=steps.append,
            on_prefill=lambda done, total: prefills.append((done, total)))
        assert steps == [n for n in batches for _ in range(T)] and sum(steps) == len(clusters) * T
        starts = [i for i, (done, _) in enumerate(prefills) if done == 1]
        assert len(starts) == len(batches)  # every batch shows its prefill, counted 1..total
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else len(prefills)
            total = prefills[start][1]
            assert prefills[start:end] == [(d, total) for d in range(1, total + 1)]
        if engine == "shared":  # one forward per distinct prompt: all 5 in one batch
            assert prefills[-1] == (2, 2) if budget < 1 else prefills == [(d, 5) for d in range(1, 6)]


# ---------------------------------------------------------------------------------------------
# EOS and accounting
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["shared", "fast", "generic"])
def test_eos_ends_the_text_but_all_T_tokens_are_charged(tiny_lm_factory, engine):
    tiny_lm = tiny_lm_factory(engine=engine)
    clip, tau, T = 1.0, 1e-4, 5
    p = [prompt(tiny_lm, d) for d in DOCS]
    stopping, running = [p[0], p[1]], [p[2], p[3]]
    dec = decoder(tiny_lm, clip=clip, temperature=tau, max_new_tokens=T)
    first_of_stopping = int(dec.aggregated_logits([stopping])[0].argmax())
    tiny_lm.eos_token_ids = ()
    reference = dec.generate_ids([running], [ZCDPAccountant()])[0]
    assert len(reference) == T and first_of_stopping != reference[0]
    if first_of_stopping in reference:  # the running cluster then ends there too
        reference = reference[: reference.index(first_of_stopping)]
    tiny_lm.eos_token_ids = (first_of_stopping,)  # the stopping cluster samples EOS first (near-greedy)
    accs = [ZCDPAccountant() for _ in range(3)]
    ids = decoder(tiny_lm, clip=clip, temperature=tau, max_new_tokens=T).generate_ids(
        [stopping, running, []], accs
    )
    assert ids[0] == []
    assert ids[1] == reference  # unaffected by its neighbour stopping (its rows are dropped)
    for acc in accs:
        assert len(acc.ledger) == T
        assert all(e.event == PrivatePredictionTokenEvent("private prediction token", clip, tau) for e in acc.ledger)
        assert acc.rho == pytest.approx(T * 0.5 * (clip / tau) ** 2, rel=1e-12)


def test_budget_overrun_raises_before_sampling(tiny_lm):
    clip, tau, T = 0.5, 1.0, 3
    per_token = 0.5 * (clip / tau) ** 2
    ok = ZCDPAccountant(rho_budget=T * per_token)
    short = ZCDPAccountant(rho_budget=(T - 1) * per_token)
    p = [prompt(tiny_lm, d) for d in DOCS]
    dec = decoder(tiny_lm, clip=clip, temperature=tau, max_new_tokens=T)
    assert len(dec.generate([[p[0]]], [ok])) == 1 and ok.rho == pytest.approx(T * per_token)
    with pytest.raises(PrivacyBudgetExceededError):
        dec.generate([[p[0]], [p[1]]], [ZCDPAccountant(), short])
    assert len(short.ledger) == T - 1  # paid up to the step it could afford, nothing beyond


def test_generate_returns_decoded_text_per_cluster(tiny_lm):
    p = [prompt(tiny_lm, d) for d in DOCS]
    dec = decoder(tiny_lm, temperature=1e-4, max_new_tokens=4)
    ids = dec.generate_ids([[p[0], p[1]], []], [ZCDPAccountant(), ZCDPAccountant()])
    texts = decoder(tiny_lm, temperature=1e-4, max_new_tokens=4).generate(
        [[p[0], p[1]], []], [ZCDPAccountant(), ZCDPAccountant()], progress=True
    )
    assert len(texts) == 2
    assert texts[0] == tiny_lm.tokenizer.decode(ids[0], skip_special_tokens=True)


# ---------------------------------------------------------------------------------------------
# public prompt
# ---------------------------------------------------------------------------------------------


def test_public_prompt_adds_weighted_log_softmax(tiny_lm):
    clip, omega = 0.4, 0.75
    public = tiny_lm.chat_prompt("rephrase the following document :")
    dec = decoder(tiny_lm, clip=clip, public_prompt=public, public_weight=omega)
    docs = DOCS[:2]
    for suffix in [(), (9, 12)]:
        z = dec.aggregated_logits([[prompt(tiny_lm, d) for d in docs], []], suffix)
        pub = omega * torch.log_softmax(direct_logits(tiny_lm, public, suffix), dim=0)
        assert torch.allclose(z[0], direct_z(tiny_lm, docs, clip, suffix) + pub, atol=1e-5)
        assert torch.allclose(z[1], pub, atol=1e-5)  # an empty cluster samples from the public term
    # weight 0 (the default): the public prompt is ignored
    z0 = decoder(tiny_lm, clip=clip, public_prompt=public).aggregated_logits([[]])
    assert float(z0.abs().max()) == 0.0


def test_per_cluster_public_prompts_replace_the_shared_one(tiny_lm):
    """Each cluster's public term reads its own public prompt (e.g. with its released keyword), in any
    batch; a cluster whose public prompt is the shared one gets exactly the shared term."""
    clip, omega = 0.4, 0.75
    shared = tiny_lm.chat_prompt("rephrase the following document :")
    own = [tiny_lm.chat_prompt(f"rephrase the following document : {w}") for w in ("fever", "blue skin")]
    dec = decoder(tiny_lm, clip=clip, public_prompt=shared, public_weight=omega)
    docs = DOCS[:2]
    suffix = (9, 12)
    z = dec.aggregated_logits([[prompt(tiny_lm, d) for d in docs], [], []], suffix, public_prompts=[own[0], own[1], shared])
    pubs = [omega * torch.log_softmax(direct_logits(tiny_lm, t, suffix), dim=0) for t in (*own, shared)]
    assert not torch.allclose(pubs[0], pubs[1], atol=1e-3)  # the prompts do differ
    assert torch.allclose(z[0], direct_z(tiny_lm, docs, clip, suffix) + pubs[0], atol=1e-5)
    assert torch.allclose(z[1], pubs[1], atol=1e-5)
    assert torch.allclose(z[2], pubs[2], atol=1e-5)
    # generation: a cluster's text is the same alone and next to clusters with other public prompts
    kw = dict(clip=clip, temperature=0.5, max_new_tokens=4, public_prompt=shared, public_weight=omega)
    members = [[prompt(tiny_lm, d) for d in docs], [prompt(tiny_lm, DOCS[2])]]
    streams = [SeededRandom(1), SeededRandom(2)]
    both = decoder(tiny_lm, random=SeededRandom(0), **kw).generate_ids(
        members, [ZCDPAccountant(), ZCDPAccountant()], streams=streams, public_prompts=own)
    alone = decoder(tiny_lm, random=SeededRandom(0), **kw).generate_ids(
        members[1:], [ZCDPAccountant()], streams=[SeededRandom(2)], public_prompts=own[1:])
    assert both[1] == alone[0]
    with pytest.raises(ConfigError, match="one non-empty rendered prompt per cluster"):
        dec.aggregated_logits([[], []], public_prompts=[own[0]])
    with pytest.raises(ConfigError, match="`public_prompts` need a decoding"):
        decoder(tiny_lm).aggregated_logits([[]], public_prompts=[own[0]])


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------


def test_bad_input_gets_clear_errors(tiny_lm):
    p = prompt(tiny_lm, DOCS[0])
    dec = decoder(tiny_lm)
    with pytest.raises(DataError, match="`clusters` is empty"):
        dec.generate([], [])
    with pytest.raises(ConfigError, match="one accountant per cluster"):
        dec.generate([[p], [p]], [ZCDPAccountant()])
    with pytest.raises(DataError, match=r"clusters\[0\]\[1\]"):
        dec.generate([[p, ""]], [ZCDPAccountant()])
    with pytest.raises(DataError, match=r"clusters\[0\] must be a sequence"):
        dec.generate(["just a string"], [ZCDPAccountant()])
    with pytest.raises(ConfigError, match="accountants"):
        dec.generate([[p]], ["not an accountant"])
    with pytest.raises(DataError, match="positions") as too_long:  # the tiny model has 512 positions
        dec.generate([[prompt(tiny_lm, " ".join(["fever"] * 600))]], [ZCDPAccountant()])
    too_long_ids = tiny_lm.encode(prompt(tiny_lm, " ".join(["fever"] * 600)))
    assert str(len(too_long_ids)) not in str(too_long.value)  # a private prompt's length is never printed
    for kw, match in [
        (dict(clip=0.0), "`clip`"),
        (dict(clip=float("inf")), "`clip`"),
        (dict(temperature=-1.0), "`temperature`"),
        (dict(max_new_tokens=0), "`max_new_tokens`"),
        (dict(public_weight=-0.5, public_prompt=p), "`public_weight`"),
        (dict(public_weight=1.0), "no `public_prompt`"),
        (dict(memory_budget_gb=0), "`memory_budget_gb`"),
        (dict(random=np.random.default_rng(0)), "`random`"),
    ]:
        with pytest.raises(ConfigError, match=match):
            decoder(tiny_lm, **kw)
