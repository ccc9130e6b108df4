"""Model engine: language-model and embedding backends, and the private-prediction decoder.

* :class:`LanguageModel` — a causal LM (hub id, folder, GGUF file or the offline SmolLM2 default).
* :mod:`dpsynrag.models.gguf` — your own model: :func:`~dpsynrag.models.gguf.convert_gguf` (a GGUF file into a
  model folder; ``dpsynrag models convert``), the cached conversion of ``--model FILE.gguf``, and the SHA-256
  fingerprints of a model's files that manifests record.
* :class:`Embedder` — sentence embeddings, unit-norm float32 (offline default all-MiniLM-L6-v2).
* :class:`PrivatePredictionDecoder` — one synthetic text per cluster by clipped-logit aggregation
  (METHOD.md §2d), charged to each cluster's accountant; its variants ("paper", "public-prior",
  "invisibleink") are the selectors of :mod:`dpsynrag.models.decoding`, the one decoding loop that
  greedy generation and sampling use too.
"""

from dpsynrag.models.decoder import PrivatePredictionDecoder
from dpsynrag.models.embedder import Embedder
from dpsynrag.models.lm import LanguageModel

__all__ = ["Embedder", "LanguageModel", "PrivatePredictionDecoder"]
