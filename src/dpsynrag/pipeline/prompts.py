"""Public prompts of the build (no private data): the rephrase instruction of private prediction and the
public prompts of its decoding."""

from __future__ import annotations

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


KEYWORD_SLOT = "{keyword}"
"""In a public prompt, replaced by each cluster's released keyword (a DP output: public)."""

KEYWORD_PUBLIC_PROMPT = REPHRASE_PROMPT.format(document=KEYWORD_SLOT)
"""The rephrase instruction with the cluster's released keyword in place of the document: a public
prompt that knows each cluster's topic (the demo's and the cpu presets' decoding prior)."""
