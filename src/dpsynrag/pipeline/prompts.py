"""Public prompts of the build (no private data): the rephrase instruction of private prediction and the
public prompts of its decoding."""

from __future__ import annotations

import re

REPHRASE_PROMPT = (
    "Rephrase the following document without altering the important information contained within it.\n"
    "Document: {document}"
)
"""DP-SynRAG's rephrase prompt (App. A.2); ``{document}`` is one member's text."""

ECHOED_LABEL = "Document:"
"""The rephrase prompt's field label, which small models often echo at the start of their rephrasing."""


def strip_echoed_label(text: str) -> str:
    """``text`` without :data:`ECHOED_LABEL` (and the whitespace around it) at its start, else ``text``.

    A released synthetic text that opens with "Document: " makes a small answering model copy the
    document format instead of answering (MovieLens at 24 answer tokens: every answer was the context's
    first sentence cut before any film title). Post-processing of a released text with a public constant:
    free under differential privacy.
    """
    stripped = text.lstrip()
    if stripped.startswith(ECHOED_LABEL):
        return stripped[len(ECHOED_LABEL):].lstrip()
    return text


_CLOSING = frozenset(".!?)]\"'…。！？）」』")
"""Characters that end a complete text (Latin and CJK sentence ends, closing brackets and quotes)."""

_CLAUSE_END = re.compile(r"[.;:!?)\],。，、；：！？）]")
"""Characters after which a text may be cut: the end of a sentence, clause or bracket (Latin and CJK)."""

_TRAILING_SEPARATORS = ",;: \t\n，、；："


def trim_partial_ending(text: str, *, min_kept: float = 1 / 3) -> str:
    """``text`` cut after its last complete clause when it stops mid-clause, else ``text``.

    A text that ends (after trailing whitespace) with a sentence end, closing bracket or quote (``.``, ``!``,
    ``?``, ``)``, ``]``, quotes, ``…`` and the CJK ``。！？）」』``) is returned without the trailing
    whitespace. Otherwise it is cut after the last ``.;:!?)],`` (or CJK ``。，、；：！？）``) and the separators
    ``,;:`` and whitespace before the cut are removed — unless the kept part would be shorter than
    ``min_kept`` × the text's length (characters), or no such character occurs: then ``text`` is returned.

    Private prediction stops after T tokens (or C paid ones), mostly mid-word: "…, The Godfather (1972),
    The Shaw". A small answering model completes such a fragment into a wrong answer ("The Shrew (2004)"
    on MovieLens; benchmarks/results/movielens_cpu_3seeds.md). Post-processing of a released text by a
    public rule: free under differential privacy.

    Raises:
        ValueError: ``min_kept`` not in [0, 1].
    """
    if not 0.0 <= min_kept <= 1.0:
        raise ValueError(f"min_kept must be in [0, 1]. Found {min_kept!r}.")
    stripped = text.rstrip()
    if not stripped or stripped[-1] in _CLOSING:
        return stripped
    ends = [m.end() for m in _CLAUSE_END.finditer(stripped)]
    if not ends:
        return text
    kept = stripped[: ends[-1]].rstrip(_TRAILING_SEPARATORS)
    return kept if len(kept) >= min_kept * len(stripped) else text


KEYWORD_SLOT = "{keyword}"
"""In a public prompt or a rephrase prompt, replaced by each cluster's released keyword (a DP output: public)."""

DOCUMENT_SLOT = "{document}"
"""In a rephrase prompt, replaced by one member's (private) text."""

KEYWORD_PUBLIC_PROMPT = REPHRASE_PROMPT.format(document=KEYWORD_SLOT)
"""The rephrase instruction with the cluster's released keyword in place of the document: a public
prompt that knows each cluster's topic (the demo's and the cpu presets' decoding prior)."""


_SLOTS = re.compile(r"\{(document|keyword)\}")


def render_rephrase(template: str, document: str, keyword: str | None = None) -> str:
    """``template`` with :data:`DOCUMENT_SLOT` replaced by ``document`` and :data:`KEYWORD_SLOT` by ``keyword``.

    One pass over the template (a document that contains the text ``{keyword}`` is inserted as written,
    never rendered again). Other braces in the template stay literal. ``keyword`` None leaves
    :data:`KEYWORD_SLOT` in place (e.g. for a public prompt rendered per cluster later).

    Args:
        template: a rephrase prompt (``REPHRASE_PROMPT`` or ``BuildConfig.rephrase_prompt``).
        document: the member's text (empty for a public prompt).
        keyword: the cluster's released keyword (public), or None.
    """
    def fill(match: re.Match) -> str:
        if match.group(1) == "document":
            return document
        return match.group(0) if keyword is None else keyword

    return _SLOTS.sub(fill, template)


def rephrase_public_prompt(template: str) -> str:
    """The public prompt made from a rephrase prompt: the instruction with an empty document (its
    ``{keyword}`` kept, to be filled with each cluster's released keyword). No private data."""
    return render_rephrase(template, "", keyword=None)


def rephrase_prefix_template(template: str) -> str:
    """``template`` with :data:`KEYWORD_SLOT` read as :data:`DOCUMENT_SLOT`: the part of every member's
    prompt shared by all clusters ends at the first slot (for
    :meth:`~dpsynrag.models.lm.LanguageModel.public_prefix`)."""
    return template.replace(KEYWORD_SLOT, DOCUMENT_SLOT)
