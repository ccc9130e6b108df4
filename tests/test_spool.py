"""Issue 44, item 1: the private documents read, redacted and cut once (DocumentSpool), kept in memory or
in an owner-only checksummed temporary file, and read back unchanged by every later pass."""

from __future__ import annotations

import json
import os

import pytest

from dpsynrag.data.io import Document
from dpsynrag.data.preparation import DocumentPreparer, ReadingTally
from dpsynrag.data.redaction import RedactedDocuments
from dpsynrag.data.spool import DocumentSpool
from dpsynrag.errors import DataError
from dpsynrag.textkeys import whole_text_keys


def _docs(n):
    return [Document(f"d{i}", f"Patient Ada Lovelace{i} note {i} " + "x" * (i % 7), (f"Ada Lovelace{i}",),
                     None if i % 3 else bytes([i]) * 32, None if i % 2 else f"u{i % 5}") for i in range(n)]


class _Counted(list):
    """A list that counts how many times it is iterated (the input's passes)."""

    passes = 0

    def __iter__(self):
        type(self).passes += 1
        return super().__iter__()


@pytest.mark.parametrize("memory_bytes", [0, 1_000, 10**9])  # always a file, spilled midway, in memory
def test_spool_gives_back_the_documents_it_read(tmp_path, memory_bytes):
    docs = _docs(40)
    spool = DocumentSpool(docs, folder=tmp_path, memory_bytes=memory_bytes)
    assert spool.in_memory == (memory_bytes == 10**9)
    assert len(spool) == 40 and list(spool) == docs and list(spool) == docs  # re-iterable
    assert list(spool.texts) == [d.text for d in docs]
    assert [r for r, _ in spool.rows([0, 7, 39])] == [0, 7, 39] and list(spool.texts.rows([3, 5])) == [
        (3, docs[3].text), (5, docs[5].text)]
    # two iterations at the same time (the keyword stage reads texts and identifiers side by side)
    assert [(a.id, b) for a, b in zip(spool, spool.texts)] == [(d.id, d.text) for d in docs]
    if not spool.in_memory:  # owner-only, unlinked at once on POSIX: nothing named is left in the folder
        assert not [p for p in os.listdir(tmp_path) if "dpsynrag-documents" in p]
    with pytest.raises(DataError, match="strictly increasing"):
        list(spool.rows([5, 5]))
    with pytest.raises(DataError, match="past the end"):
        list(spool.rows([40]))
    spool.close()
    spool.close()  # idempotent


def test_spool_redacts_cuts_and_keys_each_document_once(tmp_path):
    """One pass of DocumentPreparer (redact, cut, key) into the spool: the input read once, the owner-only
    counts (documents cut, spans replaced) as RedactedDocuments counts them, each document keyed by its whole
    input text (a cut one by the key read with it), its unit kept."""
    docs = _Counted(_docs(30))
    _Counted.passes = 0
    redacted = RedactedDocuments(docs, "[X]")
    tally = ReadingTally()
    cut = DocumentSpool(tally.documents(map(DocumentPreparer(redacted, lambda t: t[:15]), docs)), folder=tmp_path,
                        memory_bytes=500)
    for _ in range(3):  # the stages' passes read the spool, never the input again
        assert [d.text for d in cut] == [RedactedDocuments([d], "[X]")[0].text[:15] for d in _docs(30)]
    assert _Counted.passes == 1
    assert "[X]" in cut.texts.rows([4]).__next__()[1] and "Lovelace" not in " ".join(cut.texts)
    assert tally.spans.counts() == RedactedDocuments(_docs(30), "[X]").span_counts()
    assert tally.spans.counts()["documents_with_spans"] == 30 and tally.spans.counts()["spans"] == {"IDENTIFIER": 30}
    assert tally.changed == 30  # every text is longer than 15 characters (the 10 cut at read time among them)
    assert [(d.text_key, d.unit, d.text_sha256) for d in cut] == [
        (d.text_key or whole_text_keys(d.text), d.unit, d.text_sha256) for d in _docs(30)]
    kept = ReadingTally()  # no cut, no redaction: the 10 cut at read time are the changed ones
    plain = DocumentSpool(kept.documents(map(DocumentPreparer(None, None), _docs(30))), folder=tmp_path)
    assert kept.changed == 10 and [d.text for d in plain] == [d.text for d in _docs(30)]
    assert kept.spans.counts() == {"documents": 30, "documents_with_spans": 0, "spans": {}}


def test_a_damaged_spool_file_is_refused(tmp_path):
    spool = DocumentSpool(_docs(5), folder=tmp_path, memory_bytes=0)
    os.pwrite(spool._fd, b"#", 20)  # one byte inside the first record
    with pytest.raises(DataError, match="damaged"):
        list(spool)
    spool.close()
    with pytest.raises(DataError, match="closed"):
        list(spool)


def test_a_build_redacts_and_cuts_each_document_once(tiny_lm, tmp_path, monkeypatch):
    """The whole DP-SynRAG build (tiny Llama, hash embedder): one redaction and one cut per document, where
    the four passes of before (input fingerprint, keywords, embeddings, member texts) redacted each again."""
    import itertools

    from fakes import HashEmbedder

    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    words = "fever cough rash flu pain drug dose blood heart lung skin eye ear head arm leg".split()
    docs = [Document(str(i), f"Ada Byron{i} has {a} and {b} with {c}", (f"Ada Byron{i}",))
            for i, (a, b, c) in enumerate(list(itertools.combinations(words, 3))[::23][:24])]
    redactions, cuts = [], []
    redact = RedactedDocuments.redact
    monkeypatch.setattr(RedactedDocuments, "redact", lambda self, d: redactions.append(d.id) or redact(self, d))
    truncate = tiny_lm.truncate
    monkeypatch.setattr(tiny_lm, "truncate", lambda text, n: cuts.append(text) or truncate(text, n))
    config = BuildConfig(epsilon=10.0, delta=1e-3, K=3, R=4, L=2, k=5, T=6, vocabulary_size=2000,
                         extractor="rarity", self_filter=False, seed=3, redact_identifiers=True)
    corpus = build_corpus(docs, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder(dim=16))
    assert sorted(redactions, key=int) == [d.id for d in docs] and len(cuts) == len(docs)
    assert all("Byron" not in t for t in cuts)  # the cut reads redacted texts
    timings = json.loads((tmp_path / "c.owner.json").read_text())["timings"]
    assert {"read_and_redact_s", "keywords_s"} <= set(timings) and len(corpus.texts) > 0
