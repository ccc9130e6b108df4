"""Issue 15, item 3 (flat memory): the input read as a stream, keyword sets as integer ids, embeddings in
an owner-only temporary file, and a build from a file path that writes the same corpus as a build from
the documents in memory. (The peak-memory figures are measured by benchmarks/bench_memory.py, not here:
no timed or memory-threshold unit tests.)"""

from __future__ import annotations

import json
import os
import stat
import string

import numpy as np
import pytest
from fakes import HashEmbedder

from dpsynrag.data.io import Document, iter_documents, load_documents
from dpsynrag.data.preparation import DocumentPreparer, ReadingTally
from dpsynrag.data.spool import DocumentSpool
from dpsynrag.data.streaming import DocumentFile, open_documents
from dpsynrag.errors import DataError
from dpsynrag.models.embedder import EMBED_CHUNK, EmbeddingFile, embed_to_file
from dpsynrag.pipeline.clustering import soft_cluster
from dpsynrag.pipeline.keywords import EXTRACT_CHUNK, KeywordSets, RarityKeywordExtractor, extract_keyword_sets
from dpsynrag.privacy.mechanisms import cap_keywords


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_iter_documents_streams_rows_before_a_later_error(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"text": "a"}\n{"text": "b"}\n{"text": \n', encoding="utf-8")
    stream = iter_documents(path)
    assert next(stream) == Document("0", "a") and next(stream) == Document("1", "b")  # read before line 3
    with pytest.raises(DataError, match=r"line 3: malformed JSON"):
        next(stream)


def test_duplicate_ids_found_through_their_hashes(tmp_path):
    rows = [{"id": f"p{i}", "text": f"t{i}"} for i in range(50)] + [{"id": "p7", "text": "again"}]
    path = write_jsonl(tmp_path / "d.jsonl", rows)
    with pytest.raises(DataError, match=r"line 51 \(row 50\): id field 'id' repeats the id of line 8 \(row 7\)"):
        load_documents(path, id_field="id")
    assert len(load_documents(path, id_field="id", limit=50)) == 50


def test_document_file_is_re_read_at_each_pass_and_refuses_a_changed_file(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [{"text": f"note {i}"} for i in range(5)])
    docs = DocumentFile(path)
    assert len(docs) == 5
    assert list(docs) == list(docs) == load_documents(path)
    assert isinstance(open_documents(path), DocumentFile) and open_documents(["x"]) == [Document("0", "x")]
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"text": "appended while a build reads the file"}\n')
    with pytest.raises(DataError, match="changed while it was being read"):
        list(docs)


def test_document_file_checks_every_row_when_opened(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("id,text\n1,x\n2,\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"line 3 \(row 1\): field 'text' is empty"):
        DocumentFile(path)
    path.write_text("text\nsame\nother\nsame\n", encoding="utf-8")
    with pytest.warns(UserWarning, match=r"^1 document\(s\) repeat"):
        assert len(DocumentFile(path)) == 3


def test_document_spool_texts_passes_and_rows(tmp_path):
    docs = [Document(str(i), "word " * i + "end") for i in range(10)]
    tally = ReadingTally()
    texts = DocumentSpool(tally.documents(map(DocumentPreparer(None, lambda t: t[:12]), docs)), folder=tmp_path,
                          memory_bytes=0).texts
    assert list(texts) == [d.text[:12] for d in docs]
    assert tally.changed == 8  # i >= 2: "word word end" and longer, over 12 characters
    assert list(texts.rows(np.array([1, 4, 9]))) == [(1, docs[1].text[:12]), (4, docs[4].text[:12]), (9, docs[9].text[:12])]
    assert list(texts.rows([])) == []
    with pytest.raises(DataError, match="strictly increasing"):
        list(texts.rows([3, 3]))
    with pytest.raises(DataError, match="past the end"):
        list(texts.rows([2, 10]))
    upper = ReadingTally()
    DocumentSpool(upper.documents(map(DocumentPreparer(None, str.upper), docs)), folder=tmp_path)
    assert upper.changed == 10


def test_keyword_sets_hold_ids_and_read_back_as_tuples():
    sets = KeywordSets()
    for words in [("fever", "rash"), (), ("rash",), ("cough", "fever")]:
        sets.append(words)
    assert len(sets) == 4 and sets.words == ["fever", "rash", "cough"]
    assert list(sets) == [("fever", "rash"), (), ("rash",), ("cough", "fever")]
    assert sets[3] == ("cough", "fever") and sets[-2] == ("rash",) and sets[1:3] == [(), ("rash",)]
    with pytest.raises(IndexError):
        sets[4]


def test_extract_keyword_sets_equals_extracting_all_at_once():
    """Chunked extraction (EXTRACT_CHUNK documents per call) gives each document the capped keywords it
    gets when every document is extracted in one call."""
    words = [f"zq{a}{b}" for a in string.ascii_lowercase for b in string.ascii_lowercase]
    texts = [f"fever {words[i % 600]} {words[(7 * i) % 600]} {words[i % 600]}" for i in range(EXTRACT_CHUNK + 77)]
    extractor = RarityKeywordExtractor()
    vocabulary = frozenset(words[:300])
    expected = [cap_keywords(r, max_keywords=2, vocabulary=vocabulary) for r in extractor.extract(texts)]
    got = extract_keyword_sets(extractor, iter(texts), max_keywords=2, vocabulary=vocabulary)
    assert list(got) == expected and len(got) == len(texts)


def test_soft_cluster_reads_a_stream_of_texts():
    texts = ["fever rash", "rash only", "cough", "fever and cough"]
    keywords = [("x",)] * 4
    from_list = soft_cluster(keywords, ["fever", "rash", "cough"], L=1, texts=texts)
    assert soft_cluster(keywords, ["fever", "rash", "cough"], L=1, texts=iter(texts)) == from_list
    assert from_list == [[], [0, 1], [2, 3]]  # least frequent keyword first: cough, rash, then fever
    with pytest.raises(Exception, match=r"`texts` \(3\) and `doc_keywords` \(4\)"):
        soft_cluster(keywords, ["fever"], L=1, texts=iter(texts[:3]))


def test_embedding_file_is_owner_only_unlinked_and_reads_rows_back(tmp_path):
    emb = HashEmbedder(dim=8)
    texts = [f"patient {i} fever {i % 7}" for i in range(EMBED_CHUNK + 10)]
    table, cut = embed_to_file(emb, iter(texts), folder=tmp_path)
    assert cut is None  # the fake reports no truncation
    assert emb.calls == 2  # two chunks
    expected = HashEmbedder(dim=8).encode(texts)
    rows = [5, 0, EMBED_CHUNK + 9, 5]
    np.testing.assert_array_equal(table.take(rows), expected[rows])
    assert table.take([]).shape == (0, 8) and table.take(np.array([3])).dtype == np.float32
    with pytest.raises(IndexError):
        table.take([EMBED_CHUNK + 10])
    if os.name == "posix":  # unlinked at creation: nothing in the folder, even while open
        assert list(tmp_path.iterdir()) == []
        mode = os.fstat(table._file.fileno()).st_mode
        assert stat.S_IMODE(mode) == 0o600
    table.close()
    table.close()  # idempotent
    assert list(tmp_path.iterdir()) == []


def test_embedding_file_without_unlink_is_deleted_at_close(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "name", "nt")  # the non-POSIX path: the file stays until close
    table = EmbeddingFile(4, tmp_path)
    table.append(np.eye(4, dtype=np.float32))
    (path,) = tmp_path.iterdir()
    assert path.name.startswith(".dpsynrag-embeddings-") and stat.S_IMODE(path.stat().st_mode) == 0o600
    np.testing.assert_array_equal(table.take([2]), [[0, 0, 1, 0]])
    table.close()
    assert list(tmp_path.iterdir()) == []


DOCS = [f"fever fever rash rash patient zq{a}{b}x" for a in string.ascii_lowercase for b in "abcde"][:120]
CONFIG = dict(epsilon=10.0, delta=1e-3, K=3, R=8, L=2, k=5, T=3, open_vocabulary=True, extractor="rarity",
              self_filter=False, seed=0)


@pytest.mark.parametrize("match_text", [False, True])
def test_build_from_a_file_writes_the_corpus_of_the_same_documents_in_memory(tmp_path, tiny_lm, match_text):
    """The streamed build (a file path: re-read at each pass, texts fetched again by row) and the build
    from the documents in memory write the same texts and index, byte for byte, and the same owner-only
    counts; no temporary embedding file is left beside the corpus."""
    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    config = BuildConfig(**CONFIG, match_text=match_text)
    path = write_jsonl(tmp_path / "docs.jsonl", [{"text": t} for t in DOCS])
    build_corpus(DOCS, tmp_path / "mem" / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    build_corpus(str(path), tmp_path / "file" / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    for name in ("texts.jsonl", "index.faiss", "index_ids.json"):
        assert (tmp_path / "mem" / "c" / name).read_bytes() == (tmp_path / "file" / "c" / name).read_bytes()
    owner = [json.loads((tmp_path / d / "c.owner.json").read_text()) for d in ("mem", "file")]
    assert owner[0]["input_fingerprint"] == owner[1]["input_fingerprint"]
    assert owner[0]["truncation"] == owner[1]["truncation"]
    assert sorted(p.name for p in (tmp_path / "file").iterdir()) == ["c", "c.owner.json"]
