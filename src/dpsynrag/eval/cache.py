"""The evaluation cache under ``out/cache/``: what each method computed, keyed by its configuration.

``cache/corpora/<method>-<key>/`` holds built synthetic corpora and ``cache/answers/<method>-<key>.jsonl``
one line per answered question (:class:`AnswerCache`). Answers are appended in chunks as they are produced,
corpora are written atomically, so an interrupted run resumes where it stopped; rerunning the same command
does no new work, and changing a parameter of a method reruns only that method (its key changes).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["AnswerCache", "cache_key", "write_json"]


def cache_key(identity: dict[str, Any]) -> str:
    blob = json.dumps(identity, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    os.replace(tmp, path)


def _qhash(question: str) -> str:
    return hashlib.sha256(question.encode("utf-8")).hexdigest()[:16]


class AnswerCache:
    """Answers of one method configuration: ``<path>.jsonl`` with a header line (the identity) and one
    line per answered question ``{"id", "qhash", "text"}``, with ``"context_hit"`` (bool: the gold answer
    is in the retrieved texts) for RAG-style methods; lines are appended per chunk and flushed, a later
    line of the same question replaces an earlier one.

    A header that differs from ``identity`` (or a torn last line) discards the file's content.

    Owner-only (folder 0700, file 0600): a baseline's answers come from the private documents (RAG over the
    raw file, DP-RAG before its release), so every answer file is kept as the private data is.
    """

    def __init__(self, path: Path, identity: dict[str, Any]):
        self.path = path
        self.identity = json.loads(json.dumps(identity, default=str))
        self.answers: dict[tuple[str, str], str] = {}
        self.hits: dict[tuple[str, str], bool] = {}
        self.meta_path = path.with_suffix(".meta.json")
        if path.is_file():
            lines = path.read_text(encoding="utf-8").splitlines()
            try:
                header = json.loads(lines[0]) if lines else None
            except json.JSONDecodeError:
                header = None
            if header == {"identity": self.identity}:
                for line in lines[1:]:
                    try:
                        rec = json.loads(line)
                    except json.JSONDecodeError:
                        break  # torn last line of an interrupted run
                    self.answers[(rec["id"], rec["qhash"])] = rec["text"]
                    if "context_hit" in rec:
                        self.hits[(rec["id"], rec["qhash"])] = bool(rec["context_hit"])
            else:
                path.unlink()
                if self.meta_path.exists():
                    self.meta_path.unlink()
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            path.parent.chmod(0o700)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(json.dumps({"identity": self.identity}, ensure_ascii=False) + "\n")
        else:
            # rewrite cleanly (drops a torn line)
            self._rewrite()

    def _rewrite(self) -> None:
        tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as f:
            f.write(json.dumps({"identity": self.identity}, ensure_ascii=False) + "\n")
            for (qid, qh), text in self.answers.items():
                f.write(json.dumps(self._record(qid, qh, text), ensure_ascii=False) + "\n")
        os.replace(tmp, self.path)

    def _record(self, qid: str, qh: str, text: str) -> dict[str, Any]:
        rec: dict[str, Any] = {"id": qid, "qhash": qh, "text": text}
        if (qid, qh) in self.hits:
            rec["context_hit"] = self.hits[(qid, qh)]
        return rec

    def get(self, qid: str, question: str) -> str | None:
        return self.answers.get((qid, _qhash(question)))

    def hit(self, qid: str, question: str) -> bool | None:
        """Whether the question's retrieved texts held its gold answer (None: not recorded)."""
        return self.hits.get((qid, _qhash(question)))

    def add(self, items: Sequence[tuple]) -> None:
        """Append ``(id, question, answer)`` or ``(id, question, answer, context_hit)`` entries
        (``context_hit`` None or absent: not scored)."""
        with open(self.path, "a", encoding="utf-8") as f:
            for qid, question, text, *rest in items:
                hit = rest[0] if rest else None
                qh = _qhash(question)
                self.answers[(qid, qh)] = text
                if hit is not None:
                    self.hits[(qid, qh)] = bool(hit)
                f.write(json.dumps(self._record(qid, qh, text), ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def meta(self) -> dict[str, Any]:
        if self.meta_path.is_file():
            return json.loads(self.meta_path.read_text(encoding="utf-8"))
        return {}

    def set_meta(self, data: dict[str, Any]) -> None:
        write_json(self.meta_path, data)
