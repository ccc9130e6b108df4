"""Questions at conversation speed for ``dpsynrag query`` (issue 43): one question, a file of them
(``--questions``) or questions typed one by one (``--interactive``), answered with models loaded once
(:class:`LocalAsker`) or by a running ``dpsynrag serve`` that already holds them (:class:`RemoteAsker`).

Every answer is one record (a dict, printed as JSON): ``question``, ``answer``, ``answer_mode``
(``generate``: the model's answer; ``extractive``: the best-matching sentence of the retrieved texts),
``covered`` (False: a ``--min-similarity`` floor that no retrieved text reached; the model was not asked),
``min_similarity``, ``corpus``, and ``contexts``: the retrieved texts, best first, each with its record ``id``, cosine
``score`` in [-1, 1], ``text``, its other released fields, and ``given`` (whether the model was given it).
All of it is post-processing of the released corpus: no privacy cost, the private documents never read.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from dpsynrag.commands.common import console, err_console
from dpsynrag.errors import ConfigError, CorpusError, DataError, DpsynragError

CHUNK = 16
"""Questions of a ``--questions`` file answered together (one retrieval and one batched generation), then
written: larger chunks batch more, smaller ones show answers sooner."""


def read_questions(path: str) -> list[str]:
    """The questions of ``--questions FILE`` (``-``: standard input): one per non-blank line, or, when the
    first non-blank line is a JSON object, JSON lines each with a non-empty string field ``question``
    (other fields ignored), or, for a ``.csv`` file, its ``question`` column (a header row first, as
    ``eval --queries`` reads). Surrounding whitespace is stripped.

    Raises:
        ConfigError: the file cannot be read. DataError: no question, or a JSON line without a question.
    """
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        line = exc.object[:exc.start].count(b"\n") + 1
        raise ConfigError(f"cannot read --questions {path}: line {line} is not UTF-8 (byte {exc.object[exc.start]:#04x}); "
                          "re-encode the file as UTF-8.") from None
    except OSError as exc:
        raise ConfigError(f"cannot read --questions {path}: {exc.strerror or type(exc).__name__}.") from None
    if path != "-" and Path(path).suffix.lower() == ".csv":
        return _csv_questions(path, text)
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise DataError(f"--questions {path} holds no question (one a line, or JSON lines with a `question` field).")
    if not lines[0][1].startswith("{"):
        return [line for _, line in lines]
    questions = []
    for n, line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        question = row.get("question") if isinstance(row, dict) else None
        if not isinstance(question, str) or not question.strip():
            raise DataError(f"--questions {path}, line {n}: not a JSON object with a non-empty string `question` (the "
                            "file's first line is JSON, so every line must be).")
        questions.append(question.strip())
    return questions


def _csv_questions(path: str, text: str) -> list[str]:
    """The ``question`` column of a CSV file with a header (other columns, e.g. ``answers``, ignored)."""
    import csv
    import io

    reader = csv.DictReader(io.StringIO(text))
    if "question" not in (reader.fieldnames or []):
        raise DataError(f"--questions {path}: a CSV file needs a header with a `question` column (found "
                        f"{', '.join(reader.fieldnames or []) or 'no header'}).")
    questions = []
    for n, row in enumerate(reader, start=2):
        question = (row.get("question") or "").strip()
        if not question:
            raise DataError(f"--questions {path}, line {n}: an empty `question`.")
        questions.append(question)
    if not questions:
        raise DataError(f"--questions {path} holds no question.")
    return questions


def _record(question: str, answer: str, covered: bool, contexts: list[dict], floor: Optional[float], corpus: str,
            mode: str = "generate") -> dict:
    return {"question": question, "answer": answer, "answer_mode": mode, "covered": covered, "min_similarity": floor,
            "corpus": corpus, "contexts": contexts}


class LocalAsker:
    """Answers from a corpus folder with its models loaded once.

    Args:
        corpus: a :class:`~dpsynrag.corpus.SyntheticCorpus` that keeps texts.
        lm: the answering model (a LanguageModel or an OpenAI-compatible endpoint). embedder: the index's.
        top_k: texts retrieved (None: the corpus's default). max_tokens: answer tokens (None:
        :data:`~dpsynrag.rag.answer.DEFAULT_ANSWER_TOKENS`). repeat_copies, min_similarity, answer_mode: as
        :meth:`~dpsynrag.corpus.SyntheticCorpus.answer_many` (answer_mode None: the corpus's default; with
        ``extractive``, ``lm`` may be None).
        contexts: also search for the contexts' ids and scores (False: records with no ``contexts``).
        name: the corpus as records name it.

    Raises:
        CorpusError: the corpus keeps no text (an answer would come from the model alone).
    """

    def __init__(self, corpus, *, lm, embedder, top_k: Optional[int], max_tokens: Optional[int],
                 repeat_copies: bool, min_similarity: Optional[float], contexts: bool, name: str,
                 answer_mode: Optional[str] = None):
        if not corpus.texts:
            raise CorpusError(f"corpus {corpus.path} keeps no synthetic text ({len(corpus.records)} released, 0 kept): "
                              "there is no context to retrieve, so an answer would come from the model alone.")
        from dpsynrag.corpus.retrieval import CorpusRetriever

        self.corpus, self.lm, self.embedder, self.name = corpus, lm, embedder, name
        self.top_k, self.max_tokens, self.repeat_copies, self.floor = top_k, max_tokens, repeat_copies, min_similarity
        self.answer_mode = answer_mode or corpus.default_answer_mode
        self.retriever = CorpusRetriever(corpus, embedder) if contexts else None

    def ask(self, questions: list[str]) -> list[dict]:
        """One record per question (see the module), in order. Raises DataError: a blank question."""
        answers = self.corpus.answer_many(questions, top_k=self.top_k, lm=self.lm, embedder=self.embedder,
                                          max_new_tokens=self.max_tokens, repeat_copies=self.repeat_copies,
                                          min_similarity=self.floor, answer_mode=self.answer_mode)
        hits = ([[] for _ in questions] if self.retriever is None else self.retriever.search(
            questions, self.top_k or self.retriever.resolve_top_k(None), repeat_copies=self.repeat_copies))
        out = []
        for answer, found in zip(answers, hits):
            # the same search of the same view as the answer's; with a floor, the texts under it too (not given)
            found = found if self.floor is not None else found[:len(answer.context)]
            contexts = [{**h.to_dict(), "given": self.floor is None or h.score >= self.floor} for h in found]
            out.append(_record(answer.question, answer.text, answer.covered, contexts, self.floor, self.name,
                               self.answer_mode))
        return out


class RemoteAsker:
    """Answers from a running ``dpsynrag serve`` (``POST /v1/query``; nothing loaded here).

    ``--min-similarity`` is applied here, as the local query does: each question is first retrieved
    (``POST /v1/retrieve``); one whose texts all score under the floor is answered
    :data:`~dpsynrag.rag.answer.NOT_COVERED` without asking the service's model, and otherwise the service
    answers from the top texts at or above the floor (its ``top_k`` set to their number: the same search
    again, equal up to the float rounding of the service's batched embedding, see
    :meth:`~dpsynrag.corpus.retrieval.CorpusRetriever.encode`).

    Args:
        url: the service root. corpus: a served corpus name (None: the only one served).
        api_key: sent as a Bearer token (None: none). top_k, max_tokens, repeat_copies, min_similarity:
        as :class:`LocalAsker` (max_tokens None: the service's default).

    Raises:
        ConfigError: ``url`` is not an http(s) URL.
    """

    def __init__(self, url: str, corpus: Optional[str], *, api_key: Optional[str], top_k: Optional[int],
                 max_tokens: Optional[int], repeat_copies: bool, min_similarity: Optional[float]):
        from dpsynrag.corpus.retrieval import RemoteRetriever

        # generous: a local answering model on a CPU may take minutes per answer (the service bounds its own wait)
        self.remote = RemoteRetriever(url, corpus=corpus, api_key=api_key, timeout=600.0)
        self.name = corpus or url
        self.top_k, self.max_tokens, self.repeat_copies, self.floor = top_k, max_tokens, repeat_copies, min_similarity

    def ask(self, questions: list[str]) -> list[dict]:
        """One record per question, in order.

        Raises:
            EndpointError: the service is unreachable or refuses (its message: e.g. HTTP 501 from a
                ``--retrieval-only`` service, which retrieves but answers nothing).
        """
        from dpsynrag.rag.answer import NOT_COVERED, check_questions

        out = []
        for question in check_questions(questions):
            under, top_k = [], self.top_k
            if self.floor is not None:
                hits = self.remote.search([question], self.top_k, repeat_copies=self.repeat_copies)[0]
                under = [{**h.to_dict(), "given": False} for h in hits if h.score < self.floor]
                top_k = len(hits) - len(under)
                if not top_k:
                    out.append(_record(question, NOT_COVERED, False, under, self.floor, self.name))
                    continue
            answer, given, _ = self.remote.answer(question, top_k, max_tokens=self.max_tokens,
                                                  repeat_copies=self.repeat_copies)
            out.append(_record(question, answer, True, [{**h.to_dict(), "given": True} for h in given] + under,
                               self.floor, self.name))
        return out


def print_answer(record: dict, *, show_context: bool, as_json: bool, indent: Optional[int] = None) -> None:
    """A record on stdout: JSON (``as_json``; ``indent`` as :func:`json.dumps`), or the contexts, each
    labelled with its similarity (and whether it was under the floor), then ``answer: ...``
    (``show_context``), or the answer alone."""
    if as_json:
        typer.echo(json.dumps(record, indent=indent))
        return
    if show_context:
        floor = record["min_similarity"]
        for i, c in enumerate(record["contexts"], start=1):
            under = "" if c["given"] else f", under the floor {floor:g}: not given to the model"
            console.print(f"context [{i}] (similarity {c['score']:.3f}{under}): {c['text']}", style="dim", markup=False,
                          highlight=False)
        if not record["contexts"]:
            console.print("no context retrieved.", style="dim")
        typer.echo(f"answer: {record['answer']}")
        return
    typer.echo(record["answer"])


def _writer(out: Optional[Path]):
    """``(write, close)``: JSON lines to ``out`` (created or replaced; flushed per line) or to stdout."""
    if out is None:
        return (lambda record: typer.echo(json.dumps(record))), (lambda: None)
    try:
        f = open(out, "w", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write --out {out}: {exc.strerror or type(exc).__name__}.") from None

    def write(record: dict) -> None:
        f.write(json.dumps(record) + "\n")
        f.flush()

    return write, f.close


def answer_file(asker, questions: list[str], out: Optional[Path], *, ready_s: float) -> None:
    """Answer ``questions`` in chunks of :data:`CHUNK`, writing each record as a JSON line to ``out`` (None:
    stdout) as its chunk is done, with progress and the time per question on stderr."""
    write, close = _writer(out)
    t0 = time.perf_counter()
    try:
        for start in range(0, len(questions), CHUNK):
            for record in asker.ask(questions[start:start + CHUNK]):
                write(record)
            done = min(start + CHUNK, len(questions))
            err_console.print(f"answered {done} of {len(questions)} questions "
                              f"({(time.perf_counter() - t0) / done:.2f} s per question)", highlight=False)
    finally:
        close()
    err_console.print(f"{len(questions)} answers in {time.perf_counter() - t0:.1f} s, after {ready_s:.1f} s loading"
                      + ("" if out is None else f"; written to {out}"), highlight=False)


def answer_typed(asker, out: Optional[Path], *, show_context: bool, as_json: bool, ready_s: float) -> None:
    """Ask for questions on stdin, one a line, and answer each as it comes (printed as
    :func:`print_answer`; also a JSON line to ``out`` when given), until an empty line, end of input or
    Ctrl-C. A question the library refuses (e.g. too long for the model) is said and the next one asked."""
    write, close = _writer(out) if out is not None else (None, lambda: None)
    err_console.print(f"ready in {ready_s:.1f} s. Ask a question, one a line (an empty line or Ctrl-D ends).",
                      highlight=False)
    try:
        while True:
            typer.echo("question> ", nl=False, err=True)
            try:
                line = input()
            except (EOFError, KeyboardInterrupt):
                typer.echo("", err=True)
                break
            if not line.strip():
                break
            t = time.perf_counter()
            try:
                record = asker.ask([line.strip()])[0]
            except DpsynragError as exc:
                err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
                continue
            print_answer(record, show_context=show_context, as_json=as_json)
            if write is not None:
                write(record)
            err_console.print(f"({time.perf_counter() - t:.1f} s)", style="dim", highlight=False)
    finally:
        close()
