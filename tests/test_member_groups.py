"""Member groups (``group_size``): a cluster split into disjoint groups by a hash of each member's own
text, one text per group, at the cost of one text. Fast: closed forms, the tiny Llama and the hash
embedder, seeded."""

from __future__ import annotations

import json
import math
import string

import pytest
from fakes import HashEmbedder

from dpsynrag.errors import ConfigError, PrivacyBudgetExceededError
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.clustering import group_count, group_of, split_into_groups
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import PrivatePredictionTokenEvent

UNIQUE = [f"zq{a}{b}x" for a in string.ascii_lowercase for b in string.ascii_lowercase[:5]][:120]
DOCS = [f"fever fever rash rash patient {w}" for w in UNIQUE]
BASE = dict(epsilon=10.0, delta=1e-3, K=3, R=8, L=8, k=200, T=3, open_vocabulary=True, extractor="rarity",
            self_filter=False, seed=0)


@pytest.mark.parametrize(("count", "size", "most", "cap", "expected"), [
    (108, 15, 8, None, 7),      # floor(108 / 15)
    (108, 15, 5, None, 5),      # capped by max_groups
    (108, 15, 8, 40, 2),        # outlier removal keeps about k = 40: floor(40 / 15)
    (10, 15, 8, None, 1),       # at least one text per cluster
    (-3, 15, 8, None, 1),       # a negative noisy count (discrete Gaussian) still writes one text
    (45, 15, 8, None, 3),
    (44, 15, 8, None, 2),
])
def test_group_count_closed_form(count, size, most, cap, expected):
    assert group_count(count, group_size=size, max_groups=most, cap=cap) == expected


@pytest.mark.parametrize("bad", [dict(group_size=0, max_groups=8), dict(group_size=15, max_groups=0),
                                 dict(group_size=True, max_groups=8)])
def test_group_count_refuses_bad_sizes(bad):
    with pytest.raises(ConfigError):
        group_count(50, **bad)


def test_groups_partition_the_members_and_depend_on_each_member_alone():
    """Every member is in exactly one group; adding or removing one document moves no other member
    (a member's group is a function of its own text and public values), so one document changes one
    group's text — the condition of parallel composition over the groups."""
    texts = {i: f"document number {i}" for i in range(300)}
    members = list(range(300))
    groups = split_into_groups(members, texts, cluster=4, num_groups=5)
    assert sorted(i for g in groups for i in g) == members
    assert all(g == sorted(g) for g in groups)
    where = {i: j for j, g in enumerate(groups) for i in g}
    for removed in (0, 17, 299):
        rest = [i for i in members if i != removed]
        smaller = split_into_groups(rest, texts, cluster=4, num_groups=5)
        assert all(where[i] == j for j, g in enumerate(smaller) for i in g)
        changed = [j for j in range(5) if smaller[j] != groups[j]]
        assert changed == [where[removed]]
    texts[300] = "a new document"
    larger = split_into_groups(members + [300], texts, cluster=4, num_groups=5)
    assert [g for j, g in enumerate(larger) if j != group_of("a new document", cluster=4, num_groups=5)] == [
        g for j, g in enumerate(groups) if j != group_of("a new document", cluster=4, num_groups=5)]


def test_groups_are_balanced_like_uniform_assignment():
    """SHA-256 spreads 6,000 fixed texts over 3 groups like a uniform assignment: each count within 5
    binomial standard deviations of 2,000 (deterministic texts, so the check cannot flake; a uniform
    assignment would fail it with probability < 2e-6)."""
    texts = {i: f"patient {i} has fever" for i in range(6000)}
    sizes = [len(g) for g in split_into_groups(list(texts), texts, cluster=0, num_groups=3)]
    sd = math.sqrt(6000 * (1 / 3) * (2 / 3))
    assert all(abs(s - 2000) <= 5 * sd for s in sizes), sizes


def test_cluster_salt_gives_other_groups():
    texts = {i: f"t{i}" for i in range(200)}
    a = split_into_groups(list(texts), texts, cluster=0, num_groups=4)
    b = split_into_groups(list(texts), texts, cluster=1, num_groups=4)
    assert a != b and split_into_groups(list(texts), texts, cluster=0, num_groups=4) == a


def test_groups_cost_one_text_in_the_plan():
    """The plan with groups has the same rho as one text per cluster: the groups' tokens are a parallel
    composition with one branch per document."""
    plain, grouped = BuildConfig(**BASE), BuildConfig(**BASE, group_size=30, max_groups=3)
    assert grouped.calibrate() == plain.calibrate()
    assert grouped.plan().rho == pytest.approx(plain.plan().rho, rel=1e-12)
    tokens = grouped.plan().events[1].branch.events[-1].describe()
    assert tokens["mechanism"] == "overlapping_parallel_composition" and tokens["name"] == "member groups"
    assert (tokens["num_branches"], tokens["max_branches_per_unit"], tokens["multiplier"]) == (3, 1, 1)
    assert any("disjoint groups" in note for note in grouped.plan_notes)


def test_max_groups_needs_group_size():
    with pytest.raises(ValueError, match="group_size"):
        BuildConfig(**BASE, max_groups=3)


def test_a_group_cannot_spend_more_than_one_text():
    """Each group's accountant is a branch of the cluster's 'member groups' composition, capped at T
    tokens: a group that tried to draw a T+1-th token is refused before the draw."""
    cal = BuildConfig(**BASE, group_size=30, max_groups=3).calibrate()
    cluster = ZCDPAccountant(rho_budget=cal.branch_plan(groups=3).rho)
    groups = cluster.open_parallel(cal.token_plan(), num_branches=3, max_branches_per_unit=1)
    token = PrivatePredictionTokenEvent(name="private prediction token", clip=cal.clip, temperature=cal.temperature)
    for j in range(3):
        groups.branch(j).compose(token, cal.T)
    with pytest.raises(PrivacyBudgetExceededError):
        groups.branch(1).compose(token)
    assert cluster.rho == pytest.approx(cal.token_plan().rho)


@pytest.fixture(scope="module")
def grouped_build(tmp_path_factory, tiny_model):
    from conftest import make_tiny_tokenizer

    from dpsynrag.models import LanguageModel

    lm = LanguageModel(tiny_model, make_tiny_tokenizer(), name="tiny-llama")
    out = tmp_path_factory.mktemp("groups") / "c"
    config = BuildConfig(**BASE, group_size=30, max_groups=3)
    return build_corpus(DOCS, out, config, lm=lm, embedder=HashEmbedder()), out, config


def test_build_writes_one_text_per_group(grouped_build):
    """Two released keywords with noisy counts near 120 and groups of 30 capped at 3: three texts each,
    records numbered in order with their cluster's keyword, noisy count and group index."""
    corpus, out, _ = grouped_build
    records = [json.loads(line) for line in (out / "texts.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == list(range(len(records)))
    assert [(r["keyword"], r["group"]) for r in records] == [(w, j) for w in ("fever", "rash") for j in range(3)]
    assert len({r["noisy_count"] for r in records if r["keyword"] == "fever"}) == 1
    assert corpus.manifest["num_texts"] == 6


def test_grouped_build_reports_the_plan(grouped_build):
    corpus, _, config = grouped_build
    privacy = corpus.manifest["privacy"]
    assert privacy["rho_total"] == config.plan().rho
    assert 9.99 < privacy["epsilon"] <= 10.0
    groups = privacy["mechanisms"][1]["branch"]["events"][-1]
    assert groups["name"] == "member groups" and groups["multiplier"] == 1
    assert any("disjoint groups" in note for note in privacy["notes"])


# ------------------------------------------------------------------------------- response prefix


def test_response_prefix_refuses_a_document_slot():
    with pytest.raises(ValueError, match="response_prefix"):
        BuildConfig(**BASE, response_prefix="Record: {document}")
    with pytest.raises(ValueError):
        BuildConfig(**BASE, response_prefix="")


def test_response_prefix_opens_every_prompt_and_text(tmp_path, tiny_lm, monkeypatch):
    """The public prefix is appended to every member prompt and to the public prompt after the opened
    assistant turn (so all continue it), and written before the sampled tokens of every text."""
    from dpsynrag.models.decoder import PrivatePredictionDecoder

    seen = {}
    original = PrivatePredictionDecoder.generate_ids

    def spy(self, clusters, accountants, **options):
        seen["members"] = [p for c in clusters for p in c]
        seen["public"] = [self.public_prompt, *(options.get("public_prompts") or [])]
        return original(self, clusters, accountants, **options)

    monkeypatch.setattr(PrivatePredictionDecoder, "generate_ids", spy)
    config = BuildConfig(**BASE, response_prefix="Symptoms:", decoding="public-prior", public_weight=0.25,
                         public_prompt="Write about {keyword}.")
    corpus = build_corpus(DOCS, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    assert seen["members"] and all(p.endswith("<|assistant|>Symptoms:") for p in seen["members"])
    assert all(p.endswith("Symptoms:") for p in seen["public"] if p is not None)
    assert all(r["text"].startswith("Symptoms:") for r in corpus.records)
    assert corpus.manifest["decoding"]["response_prefix"] == "Symptoms:"
