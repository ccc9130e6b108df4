"""Stage 2d with ``synthesis="phrases"`` (issue 41): the DP phrase releases of a build, per cluster
(:func:`phrase_synthesis`) or over the whole collection (:func:`collection_phrase_synthesis`)."""

from __future__ import annotations

from collections.abc import Sequence

from dpsynrag.data.spool import SpoolTexts
from dpsynrag.pipeline.display import READ_UPDATE
from dpsynrag.pipeline.keywords import unit_keyword_sets
from dpsynrag.pipeline.phrases import collection_texts, document_phrases, phrase_text
from dpsynrag.pipeline.run import BuildRun
from dpsynrag.privacy.phrase_release import release_phrases


def phrase_synthesis(run: BuildRun, texts: SpoolTexts, kept_members: Sequence[Sequence[int]], W: Sequence[str],
                     branches, noise) -> list[str]:
    """Stage 2d with ``synthesis="phrases"`` (issue 41): per cluster r, each kept member row contributes
    :func:`~dpsynrag.pipeline.phrases.document_phrases` of its own text (at most m, preferring the released
    keyword W[r]); :func:`~dpsynrag.privacy.phrase_release.release_phrases` releases the shared ones, charged
    to ``branches[r]`` (ρ_p = m/(2σ_p²), δ_p); the text is :func:`~dpsynrag.pipeline.phrases.phrase_text` of the
    release (post-processing). Per person, a cluster holds one member row per person, so the m cap is per
    person. Returns one text per cluster ("" when nothing passed the threshold)."""
    config, cal, display = run.config, run.cal, run.display
    placeholder = config.identifier_placeholder if config.redact_identifiers or config.redact_pii else None
    text_of = dict(texts.rows(sorted({i for members in kept_members for i in members})))  # kept members only
    display.start("phrase release", total=len(kept_members), unit="cluster")
    synthetic = []
    for r, members in enumerate(kept_members):
        sets = [document_phrases(text_of[i], n=config.phrase_n, max_phrases=config.phrase_max, keyword=W[r],
                                 public=config.pii_allow,
                                 language=config.language, placeholder=placeholder) for i in members]
        released = release_phrases(sets, max_phrases=cal.phrase_max, sigma=cal.phrase_sigma,
                                   threshold=cal.phrase_threshold, accountant=branches[r], random=noise)
        synthetic.append(phrase_text(released, n=config.phrase_n, keyword=W[r], public=config.pii_allow))
        display.update()
    display.end(f"{sum(bool(y) for y in synthetic)} of {len(synthetic)} clusters released phrases")
    return synthetic


def collection_phrase_synthesis(run: BuildRun, texts: SpoolTexts, keywords: Sequence[tuple[str, float]],
                                accountant, noise, persons) -> list[tuple[int | None, str, float]]:
    """Stage 2d with ``synthesis="phrases"``, ``phrase_scope="collection"``: one phrase release over the whole
    collection. Each document contributes :func:`~dpsynrag.pipeline.phrases.document_phrases` of its own text
    once (at most m, no keyword preferred: stated figures first, then rare words; a cluster's keyword may be
    a greeting word that most records hold, and its phrases would take a record's m places); per person, the person's at most m phrases of the union of its
    documents' (:func:`~dpsynrag.pipeline.keywords.unit_keyword_sets`, its own documents only). So the L2
    sensitivity is √m per unit; :func:`~dpsynrag.privacy.phrase_release.release_phrases` charges ``accountant``
    (the build's, outside the clusters' parallel composition) ρ_p = m/(2σ_p²) and δ_p once. The texts are
    :func:`~dpsynrag.pipeline.phrases.collection_texts` of the release (post-processing). The stage's bar
    advances every :data:`~dpsynrag.pipeline.display.READ_UPDATE` documents.

    Returns:
        ``(cluster index or None, text, released noisy count)`` per text.
    """
    config, cal, display = run.config, run.cal, run.display
    placeholder = config.identifier_placeholder if config.redact_identifiers or config.redact_pii else None
    display.start("phrase release", total=len(texts), unit="doc")
    sets = []
    for _, text in texts.rows(range(len(texts))):
        sets.append(document_phrases(text, n=config.phrase_n, max_phrases=config.phrase_max, public=config.pii_allow,
                                     keyword=None, language=config.language, placeholder=placeholder))
        if len(sets) % READ_UPDATE == 0:  # in chunks, as the reading bar: a piped log gets a line per update
            display.update(READ_UPDATE)
    display.reach(len(sets))
    if persons is not None:
        sets = unit_keyword_sets(sets, persons, max_keywords=config.phrase_max)
    released = release_phrases(sets, max_phrases=cal.phrase_max, sigma=cal.phrase_sigma,
                               threshold=cal.phrase_threshold, accountant=accountant, random=noise)
    produced = collection_texts(released, keywords, n=config.phrase_n, language=config.language,
                                min_phrases=config.phrase_min_phrases, public=config.pii_allow)
    display.end(f"{len(released)} phrases released, {len(produced)} texts")
    return produced
