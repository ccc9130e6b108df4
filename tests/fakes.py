"""Test doubles shared by several test modules (imported as ``from fakes import ...``; pytest puts
``tests/`` on ``sys.path``)."""

from __future__ import annotations

import hashlib

import numpy as np

NOTES = [
    f"{t} note{i}" for i, t in enumerate([
        "the patient has fever and cough", "the patient has fever and pain", "old patient has fever and rash",
        "the doctor has a blue skin test", "the patient has red skin and rash", "the blood test was bad",
    ] * 10)
]
"""60 distinct short notes in the tiny tokenizer's words (the note number is one unknown token to it), for
small builds."""


class HashEmbedder:
    """Deterministic bag-of-words embedder standing in for a sentence model: each word hashes to one of
    ``dim - 1`` coordinates, the last coordinate is a constant 0.1; rows are unit-norm float32 [n, dim].
    ``calls`` counts :meth:`encode` calls."""

    name = "hash-embedder"

    def __init__(self, dim: int = 16):
        self.dim = dim
        self.calls = 0

    def bucket_width(self, text):
        """Its words and two special tokens, rounded up to a multiple of 8 (as a sentence model's bucket width)."""
        return -(-(len(text.split()) + 2) // 8) * 8

    def encode(self, texts, batch_size=64, progress=False):
        self.calls += 1
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % (self.dim - 1)] += 1.0
            out[i, -1] += 0.1
            out[i] /= np.linalg.norm(out[i])
        return out
