"""Issue 44, item 2: private texts embedded in full batches (Embedder.encode_private), each embedding still a
function of its own text alone, bit for bit (the batch-invariance promise of tests/test_batch_invariance.py),
and equal to the one-text-per-forward encoding up to float32 rounding."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_embedder import tiny_st_folder  # noqa: F401 - a fixture: the tiny sentence-transformers model

from dpsynrag.errors import ConfigError
from dpsynrag.models import Embedder
from dpsynrag.models.embedder import EMBED_BUCKET_TOKENS, embed_rows, embed_to_file

LONE = "a patient with red skin"
MATES = ["the patient doctor " + " ".join(["fever cough rash"] * (k % 9 + 1)) + " red" * (k % 3) for k in range(40)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_batched_embedding_of_a_document_does_not_depend_on_batch_mates(tiny_st_folder, dtype):  # noqa: F811
    emb = Embedder.load(tiny_st_folder, device="cpu")
    emb.model.to(dtype)
    alone = emb.encode_private([LONE], rows=4)[0]
    # among 40 others, at other positions, with other row counts of its width's forwards filled
    for mates in (MATES, MATES[::-1][:7], [LONE] * 3 + MATES[:5]):
        for at in (0, 3, len(mates)):
            among = emb.encode_private(mates[:at] + [LONE] + mates[at:], rows=4)
            assert np.array_equal(among[at], alone)
    together = emb.encode_private(MATES, rows=4)
    for i in (0, 7, 39):
        assert np.array_equal(emb.encode_private([MATES[i]], rows=4)[0], together[i])
    # one text per forward (encode) gives the same up to rounding; real, unit, varied rows
    one = emb.encode(MATES)
    tol = 1e-5 if dtype == torch.float32 else 2e-2
    np.testing.assert_allclose(together, one, rtol=0, atol=tol)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-6)
    assert len({r.tobytes() for r in together}) == len(set(MATES)) == 9


def test_rows_are_public_constants(tiny_st_folder):  # noqa: F811
    emb = Embedder.load(tiny_st_folder, device="cpu")
    assert embed_rows(torch.device("cpu")) == 8 and embed_rows(torch.device("cuda")) == 256
    assert emb.encode_private([]).shape == (0, emb.dim) and EMBED_BUCKET_TOKENS == 8
    with pytest.raises(ConfigError, match="rows"):
        emb.encode_private(["x"], rows=0)


def test_embed_to_file_uses_the_batched_encoding(tiny_st_folder, tmp_path, monkeypatch):  # noqa: F811
    emb = Embedder.load(tiny_st_folder, device="cpu")
    calls = []
    batched = emb.encode_private
    monkeypatch.setattr(emb, "encode_private", lambda texts: calls.append(len(texts)) or batched(texts))
    out, cut = embed_to_file(emb, iter(MATES), folder=tmp_path)
    assert calls == [40] and cut == 0
    assert np.array_equal(out.take(np.arange(40)), batched(MATES))
    out.close()
