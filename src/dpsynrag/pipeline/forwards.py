"""The model forwards a DP-SynRAG build runs per stage, counted from sizes (issue 44): the planner
(:func:`dpsynrag.commands.plan.estimate_work`) calls these with public, declared sizes; tests/test_plan_counts.py
calls them with the sizes a small build met and checks them against the forwards it counted, so the plan
follows the build.

Each function mirrors the batching of its stage: keyword extraction
(:func:`~dpsynrag.pipeline.keywords.extract_keyword_sets` over
:meth:`~dpsynrag.models.LanguageModel.generate_greedy`), private prediction
(:func:`~dpsynrag.pipeline.build.private_prediction`) and the embeddings of the outlier removal
(:func:`~dpsynrag.models.embedder.embed_to_file`). A change to one of them that changes the forwards it runs
must change its function here.
"""

from __future__ import annotations

import math


def keyword_forwards(documents: int, *, max_new_tokens: int, step_rows: int, batch_size: int | None = None,
                     chunk: int | None = None) -> tuple[int, int]:
    """``(prompt forwards, decode forwards)`` of LLM keyword extraction (:func:`~dpsynrag.pipeline.keywords.
    extract_keyword_sets`) over ``documents`` distinct documents whose every answer runs ``max_new_tokens`` tokens.

    One prompt forward per document, plus one for the public prefix of the prompt (computed once, kept for the
    stage). The documents go to :meth:`~dpsynrag.models.LanguageModel.generate_greedy` ``chunk`` at a time
    (:data:`~dpsynrag.pipeline.keywords.EXTRACT_CHUNK`); a chunk's prompts run in batches, each decoded in
    ``max_new_tokens − 1`` steps (the first token comes from the prompt forward) of forwards of ``step_rows``
    rows. Without ``batch_size`` a batch holds a multiple of ``step_rows`` prompts
    (:func:`~dpsynrag.models.lm.greedy_batch_rows`, when the memory budget holds ``step_rows`` rows at all), so a
    chunk of c prompts takes ⌈c / step_rows⌉ forwards a step whatever the budget; with it, batches of ``batch_size`` take ⌈batch_size / min(batch_size,
    step_rows)⌉ each. Answers that end early (EOS) and repeated documents (computed once) make it less.
    """
    from dpsynrag.pipeline.keywords import EXTRACT_CHUNK

    chunk = chunk or EXTRACT_CHUNK
    rows = step_rows if batch_size is None else min(batch_size, step_rows)
    batch = rows if batch_size is None else batch_size  # any multiple of the rows counts the same
    per_step = 0
    for start in range(0, documents, chunk):
        full, rest = divmod(min(chunk, documents - start), batch)
        per_step += full * math.ceil(batch / rows) + math.ceil(rest / rows)
    return (documents + 1 if documents else 0), per_step * (max_new_tokens - 1)


def prediction_forwards(member_rows: list[int], *, public_row: bool, public_per_cluster: bool, batches: int,
                        steps: int, step_rows: int, distinct_prompts: int | None = None) -> tuple[int, int]:
    """``(prompt forwards, decode forwards)`` of private prediction (:func:`~dpsynrag.pipeline.build.
    private_prediction`) when no text ends before ``steps`` tokens.

    Args:
        member_rows: per text (cluster or member group), in order, its distinct member prompts (identical
            prompts of a cluster are one row, :class:`~dpsynrag.models.decoding.RowLayout`).
        public_row: each text also has a row continuing a public prompt.
        public_per_cluster: each text's public prompt is its own (``{keyword}``), else one for all.
        batches: ``prediction_checkpoints``: the texts run in about this many batches of ⌈texts / batches⌉
            (:meth:`~dpsynrag.pipeline.checkpoint.BuildCheckpoint.predict`).
        steps: tokens per text (T); the first comes from the prompt forwards.
        step_rows: rows of every decode forward.
        distinct_prompts: the most distinct member prompts the collection can give, when known (owner-only, from
            :class:`~dpsynrag.commands.input_profile.InputProfile`): a batch computes an identical prompt once, so
            its member prompt forwards are at most this many. None: every member prompt distinct.

    A batch runs one prompt forward per member prompt (an upper bound: a document in two clusters of a batch
    is read once) and per distinct public prompt, and ``steps − 1`` steps of ⌈rows / step_rows⌉ forwards; the
    stage adds one forward for the public prefix of the members' prompts. A batch wider than the memory budget
    is split again by the decoder (:meth:`~dpsynrag.models.PrivatePredictionDecoder.generate_ids`); not
    counted here.
    """
    size = max(1, math.ceil(len(member_rows) / max(1, batches)))
    prefills = decode = 0
    for start in range(0, len(member_rows), size):
        part = member_rows[start:start + size]
        publics = len(part) if public_row else 0
        rows = sum(part) + publics
        if rows:
            members = sum(part) if distinct_prompts is None else min(sum(part), distinct_prompts)
            prefills += members + (publics if public_per_cluster else min(1, publics))
            decode += (steps - 1) * math.ceil(rows / step_rows)
    return prefills + (1 if any(member_rows) else 0), decode


def embedding_forwards(texts: int, *, rows: int, chunk: int | None = None) -> int:
    """Forwards of :func:`~dpsynrag.models.embedder.embed_to_file` over ``texts`` texts of one bucket width:
    ⌈c / rows⌉ per chunk of c (:data:`~dpsynrag.models.embedder.PRIVATE_EMBED_CHUNK`); texts of several widths
    take up to one more forward per width and chunk (each of fewer tokens)."""
    from dpsynrag.models.embedder import PRIVATE_EMBED_CHUNK

    chunk = chunk or PRIVATE_EMBED_CHUNK
    return sum(math.ceil(min(chunk, texts - start) / rows) for start in range(0, texts, chunk))
