"""``dpsynrag eval --corpus DIR``: score a corpus folder made by ``dpsynrag build`` as it is, beside the other
methods of the run, instead of building a seeded corpus of its method.

The folder is opened (and verified) before any model loads; its manifest says which method built it, and that
method's row is its answers, at its own ε (its privacy report's), under the same retrieval, answer mode,
questions and scoring as every other row. Its index was built with an embedder, so the evaluation's embedder
(``--embedder``, else the offline default) must be that one: otherwise the run is refused before anything is
answered. The answering model is the evaluation's (the same for every method), and the run says when it is not
the one the corpus was built with.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from dpsynrag.errors import ConfigError
from dpsynrag.methods import get_method

if TYPE_CHECKING:
    from dpsynrag.corpus import SyntheticCorpus

__all__ = ["check_embedder", "describe", "given_epsilon", "load_given"]


def load_given(path: Path) -> "SyntheticCorpus":
    """The corpus folder of ``--corpus``, verified (:meth:`~dpsynrag.corpus.SyntheticCorpus.load`).

    Raises:
        CorpusError: not a corpus folder, or a damaged one. ConfigError: its manifest names no registered
            corpus method.
    """
    from dpsynrag.corpus import SyntheticCorpus

    corpus = SyntheticCorpus.load(path)
    method = corpus.manifest.get("method")
    try:
        impl = get_method(str(method))
    except ConfigError:
        raise ConfigError(f"--corpus {path}: its manifest names the method {method!r}, which is not registered here.") from None
    if impl.kind != "corpus":
        raise ConfigError(f"--corpus {path}: {method} is not a corpus method.")
    return corpus


def given_epsilon(corpus: "SyntheticCorpus") -> float:
    """The ε the corpus was built for (its config's target, else its privacy report's ε)."""
    eps = (corpus.manifest.get("config") or {}).get("epsilon")
    return float(eps) if eps is not None else float(corpus.privacy_report.epsilon)


def _same(saved: dict[str, Any], model) -> bool:
    """Whether the model the manifest describes (``saved``: name, optional SHA-256 of its files) is ``model``:
    the file hashes when both sides know them, else the names."""
    from dpsynrag.corpus.writer import model_fingerprint

    mine, theirs = model_fingerprint(model).get("sha256"), saved.get("sha256")
    if mine and theirs:
        return mine == theirs
    return saved.get("name") == getattr(model, "name", None)


def check_embedder(corpus: "SyntheticCorpus", embedder) -> None:
    """Check that the evaluation's ``embedder`` is the one the corpus's index was built with (checked before the
    language model loads).

    Raises:
        ConfigError: another embedder (another dimension, other weight files, or another name where the
            files are unknown); the message names the corpus's and how to evaluate with it.
    """
    saved = corpus.manifest.get("embedder") or {}
    if embedder.dim != corpus.index.dim or not _same(saved, embedder):
        spec = saved.get("spec")
        hint = f"--embedder {spec}" if spec else "no --embedder (the offline default)"
        raise ConfigError(
            f"--corpus {corpus.path} was built with the embedder {saved.get('name', '?')!r} ({corpus.index.dim} "
            f"dimensions), but this evaluation retrieves with {embedder.name!r} ({embedder.dim} dimensions): its index "
            f"answers only questions embedded by its own embedder. Evaluate it with {hint}."
        )


def describe(corpus: "SyntheticCorpus", lm, *, answer_mode: str, answer_model: str | None = None) -> str:
    """One line for the log and the results: the folder scored, its method and ε, and what answers its
    questions (the evaluation's model, said when it is not the one the corpus was built with, or the
    best-matching sentence with ``answer_mode="extractive"``)."""
    built_with = (corpus.manifest.get("model") or {}).get("name", "?")
    if answer_mode == "extractive":
        answers = "extractive answers (the best-matching sentence of its retrieved texts; no model answers)"
    elif answer_model is not None:
        answers = f"answers by {answer_model} (--answer-endpoint), as every other method's"
    elif _same(corpus.manifest.get("model") or {}, lm):
        answers = f"answers by {lm.name}, the model it was built with"
    else:
        answers = f"answers by {lm.name} (this evaluation's model, as every other method's; it was built with {built_with})"
    return (f"--corpus {corpus.path.resolve()}: a {corpus.manifest.get('method')} corpus at epsilon "
            f"{given_epsilon(corpus):g}, scored as it is (not built here); {answers}")
