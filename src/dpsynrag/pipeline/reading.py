"""The one pass of a DP-SynRAG build over its input (issue 44): each document read, redacted (its own identifier
values, and the PII pass with ``redact_pii``), cut to ``max_document_tokens`` and keyed once
(:class:`~dpsynrag.data.preparation.DocumentPreparer`), into the :class:`~dpsynrag.data.spool.DocumentSpool` every
later stage reads.

Where: in the build's process, or with ``--ray`` on the actors of the build's
:class:`~dpsynrag.pipeline.ray_stages.RayDocumentPool` (the driver reads the rows, checks them and cuts them at
read time, :func:`~dpsynrag.data.io.max_document_chars`, and ships shards of consecutive documents; the actors
redact, cut and key them; the driver spools the results in document order). Every document's result is a
function of that document and the public configuration alone, computed by the same code either way, so the spool,
the owner-only counts and the fingerprint keys are the local build's, byte for byte.
"""

from __future__ import annotations

from dpsynrag.data.preparation import DocumentPreparer, ReadingTally
from dpsynrag.data.spool import DocumentSpool
from dpsynrag.pipeline.display import end_reading, reading_pass
from dpsynrag.pipeline.ray_stages import PrepareSpec, RayDocumentPool


def read_once(run, pool: RayDocumentPool | None, *, name: str, shown: bool) -> tuple[DocumentSpool, ReadingTally]:
    """The build's one pass over ``run.input_documents``, timed as ``read_and_redact_s`` (owner-only).

    Args:
        run: the :class:`~dpsynrag.pipeline.run.BuildRun` (its models loaded); its ``redaction_spec`` says what
            is redacted, its language model cuts (``config.max_document_tokens``); its ``span_counts`` are set
            here (the owner record's ``redaction_counts``, from this pass).
        pool: the Ray actors that prepare the documents (``--ray``); None: in this process.
        name: the reading stage's name on the owner's console.
        shown: show the stage (its bar, then how many documents were cut and the advice).

    Returns:
        ``(spool, tally)``: the prepared documents (each carrying its whole input text's key, ``text_key``) and
        the pass's owner-only counts (``tally.changed``: documents cut, never which).

    Raises:
        DataError: a row of the input (raised as it is read). ConfigError: the PII pass cannot be built on a
            Ray actor, or the cluster is too small.
    """
    lm, max_tokens = run.lm, run.config.max_document_tokens
    tally = ReadingTally()
    with run.timed("read_and_redact_s"):
        read = reading_pass(run.display, name, run.input_documents) if shown else run.input_documents
        if pool is None:  # run.documents: the run's own redaction (its RedactedDocuments) when it redacts
            prepared = map(DocumentPreparer(None if run.redaction_spec is None else run.documents,
                                            lambda text: lm.truncate(text, max_tokens)), read)
        else:
            prepared = pool.prepared(PrepareSpec(run.redaction_spec, max_tokens), read)
        spool = DocumentSpool(tally.documents(prepared), folder=run.writer.out.parent)
    run.span_counts = tally.spans.counts()
    if shown:
        end_reading(run.display, tally.changed, len(spool), max_tokens)
    return spool, tally
