"""Privacy units (issue 30, deliver 1): a build per person (``privacy_unit_field``, ``--privacy-unit-field``).

Neighbouring collections differ by all documents of one person. The property tests add one whole person
(1 to 50 documents, interleaved anywhere in the file) to a collection and check that every statistic a
mechanism releases moves by at most the sensitivity that mechanism states per document, with the public
keywords W held fixed (they are a release; the clusters' mechanisms are analysed given W):

* keyword histogram: L2 ≤ √K (``gaussian_histogram``, the same seeded noise on both sides);
* cluster embedding sums: L2 ≤ 1 in each of at most L clusters, the other clusters unchanged
  (``noisy_unit_vector_sum``, same seeded noise);
* threshold utility u(θ) = −|#{s ≥ θ} − k| (METHOD.md §1c): ≤ 1 for every θ, scores against a fixed
  released direction;
* private-prediction score z = Σ clip(l_d) (``clip_logits``): ≤ c in every coordinate.

Hypothesis runs each property on 25 random collections (deterministic: ``derandomize``), so a failure
is a reproducible counter-example, never a flake.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from fakes import HashEmbedder
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsynrag.data.io import Document, as_documents, load_documents
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.pipeline.clustering import soft_cluster
from dpsynrag.pipeline.keywords import RarityKeywordExtractor, extract_keyword_sets, unit_keyword_sets
from dpsynrag.pipeline.units import PrivacyUnits
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.mechanisms import gaussian_histogram, noisy_unit_vector_sum
from dpsynrag.privacy.prediction import clip_logits
from dpsynrag.rng import make_random

POOL = ["fever", "rash", "cough", "headache", "nausea", "fatigue", "dizziness", "insomnia", "anemia", "asthma",
        "migraine", "arthritis", "eczema", "bronchitis", "gastritis", "tonsillitis", "sinusitis", "dermatitis",
        "hepatitis", "pneumonia", "aspirin", "ibuprofen", "penicillin", "insulin", "morphine", "cortisone",
        "antacid", "vitamin", "zinc", "iron"]
K, L, k_TARGET, CLIP = 3, 2, 4, 0.25
W = POOL[:12]  # the released keywords, most frequent first (held fixed: a release)
EMBEDDER = HashEmbedder(dim=16)
PROPERTY = settings(max_examples=25, deadline=None, derandomize=True)


def _note(rng: random.Random) -> str:
    words = rng.sample(POOL, 5) + rng.sample(POOL, 2)  # repeats make in-document counts differ
    return "the patient reports " + " ".join(words) + " today"


def _collection(seed: int, base_units: int) -> list[Document]:
    rng = random.Random(seed)
    docs = []
    for u in range(base_units):
        for _ in range(rng.randint(1, 6)):
            docs.append(Document(id=str(len(docs)), text=_note(rng), unit=f"p{u}"))
    rng.shuffle(docs)  # a person's documents anywhere in the file
    return docs


def _with_person(docs: list[Document], n: int, seed: int) -> list[Document]:
    """``docs`` plus one new person with ``n`` documents, each at a random position."""
    rng = random.Random(seed + 1)
    out = list(docs)
    for j in range(n):
        out.insert(rng.randint(0, len(out)), Document(id=f"new{j}", text=_note(rng), unit="new-person"))
    return out


def _pipeline(docs: list[Document], *, match_text: bool = False, rule: str = "paper"):
    """(unit keyword sets, clusters as lists of document ids): stages 1a-1b per person."""
    texts = [d.text for d in docs]
    doc_kw = extract_keyword_sets(RarityKeywordExtractor(), texts, max_keywords=K, vocabulary=frozenset(POOL))
    persons = PrivacyUnits.from_documents(docs, "person")
    unit_kw = unit_keyword_sets(doc_kw, persons, max_keywords=K)
    clusters = soft_cluster(doc_kw, W, L=L, texts=texts if match_text else None, rule=rule, units=persons, unit_keywords=unit_kw)
    by_id = {d.id: d for d in docs}
    return unit_kw, [[docs[i].id for i in c] for c in clusters], by_id


def _neighbours(seed: int, base_units: int, new_docs: int, **kw):
    small = _collection(seed, base_units)
    return _pipeline(small, **kw), _pipeline(_with_person(small, new_docs, seed), **kw)


COLLECTIONS = dict(seed=st.integers(0, 10**6), base_units=st.integers(1, 12), new_docs=st.integers(1, 50))


# --------------------------------------------------------------------------- properties


@PROPERTY
@given(**COLLECTIONS)
def test_histogram_moves_by_at_most_sqrt_K(seed, base_units, new_docs):
    (kw_a, _, _), (kw_b, _, _) = _neighbours(seed, base_units, new_docs)
    assert all(len(s) <= K for s in kw_b)
    noisy = [gaussian_histogram(kw, POOL, max_keywords=K, sigma=2.0, accountant=ZCDPAccountant(),
                                random=make_random(seed)) for kw in (kw_a, kw_b)]
    change = np.linalg.norm(noisy[1].astype(np.float64) - noisy[0].astype(np.float64))
    assert 1.0 <= change ** 2 <= K  # one person: between 1 and K distinct words, each counted once


@PROPERTY
@given(**COLLECTIONS, match_text=st.booleans())
def test_one_member_per_person_in_at_most_L_clusters(seed, base_units, new_docs, match_text):
    (_, ca, _), (_, cb, _) = _neighbours(seed, base_units, new_docs, match_text=match_text)
    new_in = [[i for i in c if i.startswith("new")] for c in cb]
    assert all(len(m) <= 1 for m in new_in)  # one member per cluster
    assert sum(len(m) for m in new_in) <= L  # at most L clusters
    for a, b in zip(ca, cb):  # everyone else's members unchanged
        assert a == [i for i in b if not i.startswith("new")]


@PROPERTY
@given(**COLLECTIONS)
def test_cluster_sums_move_by_at_most_1_in_at_most_L_clusters(seed, base_units, new_docs):
    (_, ca, da), (_, cb, db) = _neighbours(seed, base_units, new_docs)
    changed = 0
    for r, (a, b) in enumerate(zip(ca, cb)):
        sums = []
        for members, docs in ((a, da), (b, db)):
            e = EMBEDDER.encode([docs[i].text for i in members]) if members else np.zeros((0, 16), np.float32)
            sums.append(noisy_unit_vector_sum(e, sigma=1.0, accountant=ZCDPAccountant(),
                                              random=make_random(seed).child(f"cluster-{r}")))
        move = float(np.linalg.norm(sums[1] - sums[0]))
        assert move <= 1.0 + 1e-6
        changed += move > 1e-9
    assert changed <= L


@PROPERTY
@given(**COLLECTIONS)
def test_threshold_utility_moves_by_at_most_1(seed, base_units, new_docs):
    (_, ca, da), (_, cb, db) = _neighbours(seed, base_units, new_docs)
    direction = np.random.default_rng(seed).standard_normal(16)
    direction /= np.linalg.norm(direction)  # a released noisy sum's direction: the same on both sides
    for a, b in zip(ca, cb):
        scores = []
        for members, docs in ((a, da), (b, db)):
            e = EMBEDDER.encode([docs[i].text for i in members]) if members else np.zeros((0, 16), np.float32)
            # row by row: a member's score is a function of its own embedding (a matrix product's rounding
            # may depend on the number of rows)
            scores.append(np.clip([float(np.dot(row.astype(np.float64), direction)) for row in e], 0.0, 1.0))
        grid = np.unique(np.concatenate([np.linspace(0.0, 1.0, 101), *scores]))
        u = [-np.abs((s[None, :] >= grid[:, None]).sum(axis=1) - k_TARGET) for s in scores]
        assert np.max(np.abs(u[1] - u[0])) <= 1


def _logits(text: str, vocab: int = 40) -> torch.Tensor:
    """A member's next-token logits: a fixed function of its document (any real values)."""
    g = torch.Generator().manual_seed(int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big"))
    return 4.0 * torch.randn(vocab, generator=g)


@PROPERTY
@given(**COLLECTIONS)
def test_private_prediction_z_moves_by_at_most_c(seed, base_units, new_docs):
    (_, ca, da), (_, cb, db) = _neighbours(seed, base_units, new_docs)
    for a, b in zip(ca, cb):
        z = [clip_logits(torch.stack([_logits(docs[i].text) for i in members]), CLIP).sum(dim=0) if members
             else torch.zeros(40) for members, docs in ((a, da), (b, db))]
        assert float((z[1] - z[0]).abs().max()) <= CLIP * (1 + 1e-6)


# --------------------------------------------------------------------------- rules


@pytest.mark.parametrize("unit_of, position", [
    ([1, 0], 0),        # does not start at 0
    ([0, 2, 1], 1),     # a gap, then another order
    ([0, 0, -1], 2),    # a negative
    ([0, 1, 0, 3], 3),  # a gap after a repeat
])
def test_privacy_units_refuse_ids_not_numbered_by_first_appearance(unit_of, position):
    with pytest.raises(ConfigError, match=rf"document {position} breaks it"):
        PrivacyUnits(np.array(unit_of), "person")


@pytest.mark.parametrize("unit_of", [np.array([0.0, 1.0]), np.array([True, False]), np.array([[0, 1]]), ["0", "1"]])
def test_privacy_units_refuse_ids_that_are_not_a_1d_integer_array(unit_of):
    with pytest.raises(ConfigError, match="1-D array of integers"):
        PrivacyUnits(unit_of, "person")


def test_privacy_units_accept_first_appearance_numbering():
    units = PrivacyUnits(np.array([0, 0, 1, 0, 2, 1], dtype=np.int32), "person")
    assert len(units) == 3 and units.num_documents == 6
    assert [list(units.documents(u)) for u in range(3)] == [[0, 1, 3], [2, 5], [4]]
    assert len(PrivacyUnits(np.array([], dtype=np.int64), "person")) == 0


def test_unit_keywords_prefer_words_the_person_repeats():
    docs = [["fever", "rash", "cough"], ["asthma", "fever", "zinc"], ["iron", "cough", "fever"]]
    persons = PrivacyUnits(np.array([0, 0, 0]), "person")
    # fever: 3 documents; cough: 2 (best position 1 < 2); then by best position, then first appearance
    assert unit_keyword_sets(docs, persons, max_keywords=4)[0] == ("fever", "cough", "asthma", "iron")


def test_one_document_per_unit_equals_the_per_document_path():
    docs = [Document(id=str(i), text=d.text, unit=str(i)) for i, d in enumerate(_collection(5, 12))]
    texts = [d.text for d in docs]
    doc_kw = extract_keyword_sets(RarityKeywordExtractor(), texts, max_keywords=K, vocabulary=frozenset(POOL))
    persons = PrivacyUnits.from_documents(docs, "person")
    unit_kw = unit_keyword_sets(doc_kw, persons, max_keywords=K)
    assert list(unit_kw) == list(doc_kw)
    for rule in ("paper", "primary"):
        assert soft_cluster(doc_kw, W, L=L, rule=rule, units=persons, unit_keywords=unit_kw) == soft_cluster(doc_kw, W, L=L, rule=rule)
    assert soft_cluster(doc_kw, W, L=L, texts=texts, units=persons, unit_keywords=unit_kw) == soft_cluster(doc_kw, W, L=L, texts=texts)


def test_member_is_the_document_where_the_keyword_ranks_best():
    doc_kw = [("rash", "fever"), ("fever", "cough"), ("cough",)]
    persons = PrivacyUnits(np.array([0, 0, 1]), "person")
    unit_kw = unit_keyword_sets(doc_kw, persons, max_keywords=3)
    assert list(unit_kw) == [("fever", "rash", "cough"), ("cough",)]
    clusters = soft_cluster(doc_kw, ["fever", "cough"], L=2, units=persons, unit_keywords=unit_kw)
    assert clusters == [[1], [1, 2]]  # fever: first in document 1 (second in 0); cough: person 0's only holder is 1


# --------------------------------------------------------------------------- refusals


SECRET = "Zorblax Quuxington has flibberflamosis"


@pytest.mark.parametrize("row", [{"text": SECRET}, {"text": SECRET, "person": None}, {"text": SECRET, "person": "  "},
                                 {"text": SECRET, "person": ["a"]}])
def test_missing_or_empty_unit_is_refused_without_quoting(tmp_path, row):
    path = tmp_path / "notes.jsonl"
    path.write_text(json.dumps({"text": "fine", "person": "p1"}) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="privacy unit field 'person'") as info:
        load_documents(path, unit_field="person")
    assert "line 2" in str(info.value) and "Zorblax" not in str(info.value) and "p1" not in str(info.value)


def test_csv_empty_unit_is_refused(tmp_path):
    path = tmp_path / "notes.csv"
    path.write_text(f'text,person\n"{SECRET}",\n', encoding="utf-8")
    with pytest.raises(DataError, match="is empty") as info:
        load_documents(path, unit_field="person")
    assert "Zorblax" not in str(info.value)


def test_clustering_per_person_refuses_inconsistent_inputs_without_quoting_a_keyword():
    doc_kw = [("rash",), ("fever",)]
    persons = PrivacyUnits(np.array([0, 0]), "person")
    unit_kw = unit_keyword_sets(doc_kw, persons, max_keywords=2)
    for kw, match in (({"units": persons}, "give each unit's keyword set"), ({"unit_keywords": unit_kw}, "goes with `units`"),
                      ({"units": [0, 0], "unit_keywords": unit_kw}, "must be a PrivacyUnits")):
        with pytest.raises(ConfigError, match=match):
            soft_cluster(doc_kw, ["rash"], L=1, **kw)
    with pytest.raises(ConfigError, match="differ in length"):
        soft_cluster(doc_kw[:1], ["rash"], L=1, units=persons, unit_keywords=unit_kw)
    with pytest.raises(ConfigError, match="sequences of words, not strings"):
        soft_cluster(["rash fever", "cough"], ["rash"], L=1)
    with pytest.raises(ConfigError, match="sequences of words, not strings"):
        soft_cluster(doc_kw, "rash", L=1)
    with pytest.raises(ConfigError, match="unit 0's keyword set holds a released keyword that none") as info:
        soft_cluster(doc_kw, ["cough"], L=1, units=persons, unit_keywords=[("cough",)])  # not from doc_kw
    assert "cough" not in str(info.value)
    # with texts the unit sets come from the texts: no unit_keywords needed
    assert soft_cluster(doc_kw, ["rash"], L=1, texts=["a rash", "fever"], units=persons) == [[0]]


def test_in_memory_documents_need_a_unit():
    with pytest.raises(DataError, match=r"documents\[1\] has no privacy unit") as info:
        as_documents([Document(id="a", text="ok", unit="p"), Document(id="b", text=SECRET)], unit_field="person")
    assert "Zorblax" not in str(info.value)
    with pytest.raises(DataError, match="no privacy unit"):
        as_documents([SECRET], unit_field="person")
    with pytest.raises(DataError, match="document 1 has no privacy unit value") as info:
        PrivacyUnits.from_documents([Document(id="a", text="x", unit="p"), Document(id="b", text=SECRET, unit="")],
                                    "person")
    assert "Zorblax" not in str(info.value)


def test_units_are_read_from_every_format(tmp_path):
    rows = [{"text": "a b c", "person": 7}, {"text": "d e f", "person": "x"}, {"text": "g h i", "person": 7}]
    jsonl = tmp_path / "n.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    csv = tmp_path / "n.csv"
    csv.write_text("text,person\n" + "\n".join(f"{r['text']},{r['person']}" for r in rows), encoding="utf-8")
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = tmp_path / "n.parquet"
    pq.write_table(pa.table({"text": [r["text"] for r in rows], "person": [str(r["person"]) for r in rows]}), parquet)
    for path in (jsonl, csv, parquet):
        docs = load_documents(path, unit_field="person")
        assert [d.unit for d in docs] == ["7", "x", "7"]
        assert "7" not in repr(docs[0])  # private: out of repr
        assert PrivacyUnits.from_documents(docs, "person").unit_of.tolist() == [0, 1, 0]
    assert [d.unit for d in load_documents(jsonl)] == [None, None, None]  # no field: no units


# --------------------------------------------------------------------------- end to end (tiny model)

sys.path.insert(0, str(Path(__file__).parent / "golden"))
from make_golden import documents as golden_documents  # noqa: E402

SYNRAG = dict(epsilon=10.0, delta=1e-3, K=2, R=6, L=2, k=12, T=5, extractor="rarity", open_vocabulary=True,
              max_document_tokens=24, self_filter=False, seed=3)


def _build(tiny_lm, tmp_path, docs, name, **overrides):
    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    return build_corpus(docs, tmp_path / name, BuildConfig(**{**SYNRAG, **overrides}), lm=tiny_lm,
                        embedder=HashEmbedder())


def test_one_document_per_person_releases_what_the_per_document_build_does(tiny_lm, tmp_path):
    texts = golden_documents()
    per_doc = _build(tiny_lm, tmp_path, texts, "doc")
    per_person = _build(tiny_lm, tmp_path, [Document(id=str(i), text=t, unit=f"p{i}") for i, t in enumerate(texts)],
                        "person", privacy_unit_field="patient")
    assert [r["text"] for r in per_person.records] == [r["text"] for r in per_doc.records]
    assert [r["noisy_count"] for r in per_person.records] == [r["noisy_count"] for r in per_doc.records]
    a, b = per_doc.privacy_report, per_person.privacy_report
    assert (a.rho_total, a.epsilon, a.delta) == (b.rho_total, b.epsilon, b.delta)  # same guarantee, per person
    assert b.neighbouring_relation == "add/remove all documents of one person (privacy unit = per person (patient))"
    assert "each person (patient) in at most L clusters" in b.composition
    assert "per person (patient)" in " ".join(b.notes)


def test_a_person_with_50_documents(tiny_lm, tmp_path, monkeypatch):
    import dpsynrag.pipeline.build as build_module

    texts = golden_documents()
    rng = random.Random(0)
    heavy = set(rng.sample(range(len(texts)), 50))  # one person's 50 notes, spread over the file
    units, person = [], 0
    for i in range(len(texts)):
        if i in heavy:
            units.append("heavy")
        else:
            units.append(f"p{person}")
            person += rng.random() < 0.4  # 1 to a few notes per other person
    docs = [Document(id=str(i), text=t, unit=u) for i, (t, u) in enumerate(zip(texts, units))]
    seen = {}
    histogram, cluster = build_module.gaussian_sparse_histogram, build_module.soft_cluster

    def spy_histogram(keyword_sets, **kw):
        seen["sets"] = list(keyword_sets)
        return histogram(keyword_sets, **kw)

    def spy_cluster(*args, **kw):
        seen["clusters"] = cluster(*args, **kw)
        return seen["clusters"]

    monkeypatch.setattr(build_module, "gaussian_sparse_histogram", spy_histogram)
    monkeypatch.setattr(build_module, "soft_cluster", spy_cluster)
    corpus = _build(tiny_lm, tmp_path, docs, "heavy", privacy_unit_field="patient")
    assert len(seen["sets"]) == len(set(units)) and max(len(s) for s in seen["sets"]) <= SYNRAG["K"]
    memberships = [sum(i in heavy for i in members) for members in seen["clusters"]]
    assert max(memberships) <= 1 and sum(memberships) <= SYNRAG["L"]
    assert corpus.privacy_report.epsilon <= SYNRAG["epsilon"]
    manifest = json.loads((tmp_path / "heavy" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["privacy_unit_field"] == "patient"
    assert "per person (patient)" in manifest["privacy"]["neighbouring_relation"]


def test_a_file_without_the_unit_field_stops_before_any_model(tmp_path):
    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    path = tmp_path / "notes.jsonl"
    path.write_text(json.dumps({"text": SECRET}) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="missing privacy unit field 'patient'") as info:
        build_corpus(path, tmp_path / "out", BuildConfig(**SYNRAG, privacy_unit_field="patient"))  # no model given
    assert "Zorblax" not in str(info.value)
    assert not (tmp_path / "out").exists()


def test_budget_says_per_person():
    from typer.testing import CliRunner

    from dpsynrag.cli import app

    args = ["budget", "--epsilon", "10", "--delta", "1e-3", "--preset", "paper", "--json"]
    per_doc = json.loads(CliRunner().invoke(app, args).output)
    result = CliRunner().invoke(app, [*args, "--privacy-unit-field", "patient_id"])
    assert result.exit_code == 0, result.output
    per_person = json.loads(result.output)
    assert per_person["neighbouring_relation"].endswith("per person (patient_id))")
    assert math.isclose(per_person["epsilon"], per_doc["epsilon"]) and per_person["rho_total"] == per_doc["rho_total"]


def test_audit_per_person_makes_each_canary_a_person(tiny_lm, tmp_path, monkeypatch):
    import dpsynrag.pipeline.build as build_module
    from dpsynrag.audit import run_audit
    from dpsynrag.pipeline.config import BuildConfig

    seen = {}
    original = build_module.build_corpus

    def spy(documents, *args, **kw):
        seen["documents"] = list(documents)
        return original(documents, *args, **kw)

    monkeypatch.setattr(build_module, "build_corpus", spy)
    docs = [Document(id=str(i), text=t, unit=f"p{i // 3}") for i, t in enumerate(golden_documents(60))]
    config = BuildConfig(**{**SYNRAG, "privacy_unit_field": "patient"})
    result = run_audit(docs, tmp_path / "a", config, canaries=4, template="the patient {secret} .", lm=tiny_lm,
                       embedder=HashEmbedder())
    canaries = [d for d in seen["documents"] if d.id.startswith("audit-canary-")]
    assert len(canaries) == result.included and all(d.unit == d.id for d in canaries)
    assert [d.unit for d in seen["documents"][:60]] == [d.unit for d in docs]
    manifest = json.loads((Path(result.corpus) / "manifest.json").read_text(encoding="utf-8"))
    assert "per person (patient)" in manifest["privacy"]["neighbouring_relation"]


def test_eval_reads_the_unit_field_of_a_database_file(tmp_path):
    from dpsynrag.errors import ConfigError
    from dpsynrag.eval.config import EvalConfig
    from dpsynrag.eval.data import load_eval_data
    from dpsynrag.tasks import get_task

    MEDICAL = get_task("medical").default_data_dir  # the project's shared/data/medical_synth
    if MEDICAL is None or not (MEDICAL / "validation.jsonl").is_file():
        pytest.skip("Medical Synth data not present")

    db = tmp_path / "notes.jsonl"
    db.write_text("\n".join(json.dumps({"id": i, "text": f"note {i} about fever", "patient_id": f"p{i // 2}"})
                            for i in range(6)), encoding="utf-8")
    common = dict(task="medical", out=tmp_path / "out", methods="dp-synrag", preset="cpu", documents=0, questions=2,
                  synrag={"privacy_unit_field": "patient_id"})
    data = load_eval_data(EvalConfig.create(database=db, queries=MEDICAL / "validation.jsonl", **common))
    assert [d.unit for d in data.documents] == ["p0", "p0", "p1", "p1", "p2", "p2"]
    with pytest.raises(ConfigError, match="--privacy-unit-field patient_id: the task's data folder"):
        load_eval_data(EvalConfig.create(database=MEDICAL, **common))


def test_a_copy_within_one_person_is_no_repeat():
    import warnings

    from dpsynrag.data.io import warn_duplicate_texts

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert warn_duplicate_texts([Document(id="a", text="same", unit="p"), Document(id="b", text="same", unit="p")]) == 0
    with pytest.warns(UserWarning, match=r"^1 document\(s\) repeat the exact text"):
        assert warn_duplicate_texts([Document(id="a", text="same", unit="p"), Document(id="b", text="same", unit="q")]) == 1
    with pytest.warns(UserWarning, match="--privacy-unit-field"):
        assert warn_duplicate_texts([Document(id="a", text="same"), Document(id="b", text="same")]) == 1


def test_cli_build_refuses_a_row_without_its_person_before_any_model(tmp_path):
    from typer.testing import CliRunner

    from dpsynrag.cli import app

    path = tmp_path / "notes.jsonl"
    path.write_text(json.dumps({"text": "fine", "patient_id": "p1"}) + "\n" + json.dumps({"text": SECRET, "patient_id": ""})
                    + "\n", encoding="utf-8")
    args = ["build", str(path), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3", "--preset", "cpu",
            "--model", str(tmp_path / "no-such-model"), "--privacy-unit-field", "patient_id"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "line 2" in result.output and "'patient_id' is empty" in result.output
    assert "Zorblax" not in result.output and "no-such-model" not in result.output  # stopped before any model loads
    other = CliRunner().invoke(app, [*args[:-2], "--method", "dp-synth", "--privacy-unit-field", "patient_id"])
    assert other.exit_code != 0 and "--privacy-unit-field" in other.output


def test_a_regrouping_is_another_input_for_resume():
    """--resume compares input_fingerprint: changing a person key (same texts) must change it; without units it
    is the (id, text) hash it always was."""
    from dpsynrag.corpus.format import input_fingerprint

    a = [Document(id=str(i), text=f"note {i}", unit=f"p{i // 2}") for i in range(6)]
    b = [Document(id=d.id, text=d.text, unit="p9" if d.id == "3" else d.unit) for d in a]
    plain = [Document(id=d.id, text=d.text) for d in a]
    assert input_fingerprint(a) != input_fingerprint(b)
    assert input_fingerprint(a)["documents"] == input_fingerprint(b)["documents"] == 6
    h = hashlib.sha256()
    for d in plain:
        h.update(d.id.encode() + b"\x00" + d.text.encode() + b"\x01")
    assert input_fingerprint(plain)["sha256"] == h.hexdigest()


def test_one_person_written_several_ways_is_one_key(tmp_path):
    """Whitespace and whole numbers written as floats (a pandas export's 1.0) do not split a person."""
    from dpsynrag.data.io import load_documents

    rows = [{"text": f"note {i}", "u": v} for i, v in enumerate([1, 1.0, "1.0", " 1 ", "1", "01", 2.5, "a b"])]
    path = tmp_path / "keys.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    units = [d.unit for d in load_documents(path, unit_field="u")]
    assert units == ["1", "1", "1", "1", "1", "01", "2.5", "a b"]
    csv = tmp_path / "keys.csv"
    csv.write_text("text,u\nnote a,1\nnote b,1.0\nnote c, 1\n")
    assert [d.unit for d in load_documents(csv, unit_field="u")] == ["1", "1", "1"]
