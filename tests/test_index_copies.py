"""Index copies (``index_copy_size``): each kept text indexed once per G documents of its cluster's
released noisy count, so retrieval sees a frequent topic about as often as the private collection holds
it. Post-processing of released values; closed forms, the corpus format, and a build on the tiny Llama."""

from __future__ import annotations

import json
import string

import pytest
from fakes import HashEmbedder
from test_corpus_integrity import OnesEmbedder, _corpus

from dpsynrag.corpus import CorpusWriter, SyntheticCorpus
from dpsynrag.corpus.format import INDEX_IDS, TEXTS, index_entries
from dpsynrag.errors import CorpusError
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig

BASE = dict(epsilon=10.0, delta=1e-3, K=3, R=8, L=8, k=200, T=3, open_vocabulary=True, extractor="rarity",
            self_filter=False, seed=0)


@pytest.mark.parametrize(("count", "size", "most", "expected"), [
    (108, 10, 8, 8),    # round(10.8) = 11, capped at 8
    (108, 15, 8, 7),    # round(7.2)
    (44, 10, 8, 4),     # round(4.4)
    (45, 10, 8, 4),     # round(4.5): Python rounds half to even
    (46, 15, 8, 3),     # round(3.07)
    (4, 10, 8, 1),      # at least once
    (-3, 10, 8, 1),     # a negative noisy count (discrete Gaussian) is still indexed once
    (60, 10, 3, 3),
])
def test_index_copies_closed_form(count, size, most, expected):
    config = BuildConfig(**BASE, index_copy_size=size, max_index_copies=most)
    assert config.index_copies(count) == expected


def test_without_index_copy_size_every_text_is_indexed_once():
    assert BuildConfig(**BASE).index_copies(500) == 1
    with pytest.raises(ValueError, match="index_copy_size"):
        BuildConfig(**BASE, max_index_copies=3)
    # a dumped config lists every field (the default 8 included) and must load again
    assert BuildConfig.model_validate_json(BuildConfig(**BASE).model_dump_json()) == BuildConfig(**BASE)
    with pytest.raises(ValueError):
        BuildConfig(**BASE, index_copy_size=0)


def test_copies_leave_the_plan_unchanged_and_are_noted():
    plain, copied = BuildConfig(**BASE), BuildConfig(**BASE, index_copy_size=10)
    assert copied.calibrate() == plain.calibrate()
    assert copied.plan().rho == pytest.approx(plain.plan().rho, rel=1e-15)
    assert any("indexed once per 10 documents" in note for note in copied.plan_notes)


RECORDS = [
    {"id": 0, "keyword": "fever", "noisy_count": 31, "copies": 3, "text": "a synthetic note", "kept": True},
    {"id": 1, "keyword": "rash", "noisy_count": 22, "copies": 2, "text": "", "kept": False},
    {"id": 2, "keyword": "cough", "noisy_count": 7, "copies": 1, "text": "another synthetic note", "kept": True},
]


def test_index_entries_repeat_kept_records():
    assert index_entries(RECORDS) == [0, 0, 0, 2]
    assert index_entries([{**r, "copies": 1} for r in RECORDS]) == [0, 2]
    assert index_entries([{k: v for k, v in r.items() if k != "copies"} for r in RECORDS]) == [0, 2]


def test_writer_indexes_each_copy_and_retrieval_returns_them(tmp_path):
    import test_corpus_integrity as integrity

    old = integrity.RECORDS
    integrity.RECORDS = RECORDS
    try:
        corpus = _corpus(tmp_path / "c")
    finally:
        integrity.RECORDS = old
    assert json.loads((tmp_path / "c" / INDEX_IDS).read_text()) == [0, 0, 0, 2]
    assert len(corpus.index) == 4 and corpus.manifest["num_kept"] == 2
    assert corpus.texts == ["a synthetic note"] * 3 + ["another synthetic note"]
    # the copies are rows of identical vectors: a top-3 search of the index returns the frequent text three times
    _, ids = corpus.index.search(OnesEmbedder().encode(["a question"]), 3)
    assert sorted(corpus.index_ids[i] for i in ids[0]) == [0, 0, 0]
    # retrieval gives distinct texts with their copies, unless asked to repeat them (tests/test_retrieval_distinct.py)
    from dpsynrag.corpus.retrieval import CorpusRetriever

    retriever = CorpusRetriever(corpus, OnesEmbedder())
    hits = retriever.search(["a question"], 3)[0]
    assert sorted((h.id, h.metadata["copies"]) for h in hits) == [(0, 3), (2, 1)]
    assert sorted(h.id for h in retriever.search(["a question"], 3, repeat_copies=True)[0]) == [0, 0, 0]
    assert corpus.content_warning is None  # counts kept texts (2 of 3), not index rows


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "2"])
def test_a_record_with_bad_copies_is_refused(tmp_path, bad):
    records = [{**RECORDS[0], "copies": bad}]
    manifest = {"method": "toy"}
    with CorpusWriter(tmp_path / "c") as w:
        with pytest.raises((CorpusError, TypeError, ValueError)):
            w.finish(records, manifest, OnesEmbedder())


def test_index_ids_that_ignore_the_copies_are_refused(tmp_path):
    corpus_dir = tmp_path / "c"
    import test_corpus_integrity as integrity

    old = integrity.RECORDS
    integrity.RECORDS = RECORDS
    try:
        _corpus(corpus_dir)
    finally:
        integrity.RECORDS = old
    from dpsynrag.corpus.format import CHECKSUMS, MANIFEST, file_sha256, manifest_sha256

    (corpus_dir / INDEX_IDS).write_text(json.dumps([0, 2]))  # a tampered index list, checksum fixed
    m = json.loads((corpus_dir / MANIFEST).read_text())
    m[CHECKSUMS]["files"][INDEX_IDS] = file_sha256(corpus_dir / INDEX_IDS)
    m[CHECKSUMS]["manifest"] = manifest_sha256(m)
    (corpus_dir / MANIFEST).write_text(json.dumps(m, indent=2))
    with pytest.raises(CorpusError, match="copies"):
        SyntheticCorpus.load(corpus_dir)


UNIQUE = [f"zq{a}{b}x" for a in string.ascii_lowercase for b in string.ascii_lowercase[:5]][:120]
DOCS = [f"fever fever rash rash patient {w}" for w in UNIQUE]


def test_build_records_copies_from_the_released_counts(tmp_path, tiny_model):
    """Two released keywords with noisy counts near 120: with G = 40 each record carries
    round(noisy count / 40) copies, and its text has that many rows in the index."""
    from conftest import make_tiny_tokenizer

    from dpsynrag.models import LanguageModel

    lm = LanguageModel(tiny_model, make_tiny_tokenizer(), name="tiny-llama")
    config = BuildConfig(**BASE, index_copy_size=40, fluency_threshold=None)
    corpus = build_corpus(DOCS, tmp_path / "c", config, lm=lm, embedder=HashEmbedder())
    records = [json.loads(line) for line in (tmp_path / "c" / TEXTS).read_text().splitlines()]
    assert [r["keyword"] for r in records] == ["fever", "rash"]
    for r in records:
        assert r["copies"] == config.index_copies(r["noisy_count"]) == round(r["noisy_count"] / 40)
    assert corpus.index_ids == index_entries(records)
    assert len(corpus.index) == sum(r["copies"] for r in records if r["kept"])
    # the same seeded build without copies releases the same records and spends the same budget
    plain = build_corpus(DOCS, tmp_path / "p", BuildConfig(**BASE), lm=lm, embedder=HashEmbedder())
    assert [{k: v for k, v in r.items() if k != "copies"} for r in records] == plain.records
    assert corpus.privacy_report.epsilon == plain.privacy_report.epsilon <= 10.0
    # the human-readable report prints the privacy notes (here: the copies)
    from typer.testing import CliRunner

    from dpsynrag.cli import app

    result = CliRunner().invoke(app, ["report", str(tmp_path / "c")])
    assert result.exit_code == 0 and "note: each kept text is indexed once per 40 documents" in " ".join(result.output.split())


def test_a_redacted_build_records_its_identifier_fields(tmp_path, tiny_model):
    from conftest import make_tiny_tokenizer

    from dpsynrag.data.io import Document
    from dpsynrag.models import LanguageModel

    lm = LanguageModel(tiny_model, make_tiny_tokenizer(), name="tiny-llama")
    docs = [Document(str(i), f"{d} Zed{w}", (f"Zed{w}",)) for i, (d, w) in enumerate(zip(DOCS, UNIQUE))]
    config = BuildConfig(**BASE, redact_identifiers=True)
    corpus = build_corpus(docs, tmp_path / "c", config, lm=lm, embedder=HashEmbedder(), identifier_fields=["name"])
    assert corpus.manifest["redaction"] == {"identifier_fields": ["name"], "placeholder": "[REDACTED]"}
    assert any("identifiers were replaced" in note for note in corpus.privacy_report.notes)
    assert "Zed" not in (tmp_path / "c" / TEXTS).read_text()
