"""Public prompts of the build (no private data): the rephrase instruction of private prediction and the
public prompts of its decoding."""

from __future__ import annotations

REPHRASE_PROMPT = (
    "Rephrase the following document without altering the important information contained within it.\n"
    "Document: {document}"
)
"""DP-SynRAG's rephrase prompt (App. A.2); ``{document}`` is one member's text."""

KEYWORD_SLOT = "{keyword}"
"""In a public prompt, replaced by each cluster's released keyword (a DP output: public)."""

KEYWORD_PUBLIC_PROMPT = REPHRASE_PROMPT.format(document=KEYWORD_SLOT)
"""The rephrase instruction with the cluster's released keyword in place of the document: a public
prompt that knows each cluster's topic (the demo's and the cpu presets' decoding prior)."""
