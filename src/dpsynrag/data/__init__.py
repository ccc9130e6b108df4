"""Data layer: loading private document collections, atomic JSON-lines writing, the public vocabulary."""

from dpsynrag.data.io import SUPPORTED_EXTENSIONS, DataFileNotFoundError, Document, load_documents
from dpsynrag.data.jsonl import read_jsonl, write_jsonl_atomic
from dpsynrag.data.vocabulary import public_vocabulary, vocabulary_fingerprint, vocabulary_source

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "DataFileNotFoundError",
    "Document",
    "load_documents",
    "public_vocabulary",
    "read_jsonl",
    "vocabulary_fingerprint",
    "vocabulary_source",
    "write_jsonl_atomic",
]
