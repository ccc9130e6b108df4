"""The owner's review of a redaction pass over a collection (``dpsynrag redact``), one document at a time:
the spans replaced per entity type, the strings replaced most often (a product name taken for a person's
name shows up there, to keep with ``--pii-allow``), and what the redacted texts still hold
(:func:`~dpsynrag.data.residue.residue_spans`: long digit runs, name-like pairs), with example snippets.

Everything here is the owner's private text and counts of it (not DP): printed for the owner or written to a
file the owner names, never logged, never published, never written into a corpus folder.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER, SpanTally, merge_spans
from dpsynrag.data.residue import RESIDUE_KINDS, residue_spans

__all__ = ["OWNER_ONLY", "MAX_STRINGS", "RedactionReview", "snippet"]

OWNER_ONLY = "owner-only: private strings of your file; do not publish"
"""The title of every part of the review that shows the file's own strings."""

MAX_STRINGS = 100_000
"""Most distinct redacted strings counted at once (memory); above it the least frequent half is dropped and
the counts may come out low by :attr:`RedactionReview.count_error` at most."""


def snippet(text: str, start: int, end: int, context: int = 40) -> str:
    """``text[start:end]`` between ``«`` and ``»``, with up to ``context`` characters either side, cut at white
    space where the text goes on (no half word or placeholder; ``…`` marks the cut), white space (line breaks
    too) written as one space."""
    def flat(part: str) -> str:
        return " ".join(part.split())

    before, after = text[max(0, start - context):start], text[end:end + context]
    lead = "…" if start > context else ""
    tail = "…" if end + context < len(text) else ""
    cut = [i for i, ch in enumerate(before) if ch.isspace()]
    if lead and cut:
        before = before[cut[0] + 1:]
    cut = [i for i, ch in enumerate(after) if ch.isspace()]
    if tail and cut:
        after = after[:cut[-1]]
    left = flat(before) + (" " if before[-1:].isspace() and before.strip() else "")
    right = (" " if after[:1].isspace() and after.strip() else "") + flat(after)
    return f"{lead}{left}«{flat(text[start:end])}»{right}{tail}"


class RedactionReview:
    """The owner-only review of a redaction pass, fed one document at a time (:meth:`add`); :meth:`record`
    is the result. Memory: the distinct redacted strings (at most :data:`MAX_STRINGS`) and the examples.

    Args:
        allow: the public strings the pass keeps (``--pii-allow``): the residue check skips them.
        placeholder: the text that replaced each span.
        examples: snippets kept per residue kind: the first match of each of the first documents holding one.
        max_strings: see :data:`MAX_STRINGS`.
    """

    def __init__(self, allow: Sequence[str] = (), placeholder: str = DEFAULT_PLACEHOLDER, *, examples: int = 5,
                 max_strings: int = MAX_STRINGS):
        self.allow, self.placeholder, self.examples = tuple(allow), placeholder, examples
        self.max_strings = max(2, max_strings)
        self.tally = SpanTally()
        self.strings: Counter = Counter()  # string -> places replaced
        self.string_documents: Counter = Counter()  # string -> documents
        self.string_entities: dict[str, Counter] = {}  # string -> {entity type: spans}
        self.count_error = 0
        self.residue = {kind: {"documents": 0, "matches": 0, "examples": []} for kind in RESIDUE_KINDS}

    def add(self, document_id: str, text: str, spans: Sequence[tuple[int, int, str]], redacted: str) -> None:
        """Count one document: its text, the ``(start, end, entity type)`` spans replaced in it and the
        redacted text (:meth:`~dpsynrag.data.redaction.RedactedDocuments.find`, ``redact``)."""
        self.tally.add(Counter(entity for _, _, entity in spans))
        ordered = sorted(spans)
        strings, at = [], 0
        for start, end in merge_spans((s, e) for s, e, _ in ordered):  # one place: what one placeholder replaced
            string = " ".join(text[start:end].split())
            entities = self.string_entities.setdefault(string, Counter())
            while at < len(ordered) and ordered[at][0] < end:
                entities[ordered[at][2]] += 1
                at += 1
            strings.append(string)
        self.strings.update(strings)
        self.string_documents.update(set(strings))
        if len(self.strings) > self.max_strings:
            self._prune()
        seen: set[str] = set()
        for start, end, kind in residue_spans(redacted, self.allow, self.placeholder):
            found = self.residue[kind]
            found["matches"] += 1
            if kind not in seen:
                seen.add(kind)
                found["documents"] += 1
                if len(found["examples"]) < self.examples:
                    found["examples"].append({"document": document_id, "match": " ".join(redacted[start:end].split()),
                                              "snippet": snippet(redacted, start, end)})

    def _prune(self) -> None:
        ranked = self.strings.most_common()
        keep = self.max_strings // 2
        self.count_error += ranked[keep][1]  # the most frequent string dropped: any count is low by at most this
        for key, _ in ranked[keep:]:
            del self.strings[key]
            self.string_documents.pop(key, None)
            self.string_entities.pop(key, None)

    def record(self, top: int = 20) -> dict:
        """The review: :meth:`SpanTally.counts`' ``documents``, ``documents_with_spans`` and ``spans``, then
        ``top_strings`` (the ``top`` strings replaced most often, ties in string order: ``string``, the text
        that one placeholder replaced — spans that overlap or touch are one place — with its white space
        written as one space; ``spans``: the places it was replaced; ``documents``: how many held it;
        ``entities``: ``{entity type: spans}`` of the spans in those places, most first: an e-mail address
        whose domain the URL recognizer also found is one place, of both types), ``distinct_strings``,
        ``count_error`` (0: the counts are exact) and ``residue`` (per kind: ``documents`` and ``matches``,
        and ``examples``: ``document``, ``match``, ``snippet``)."""
        ranked = sorted(self.strings.items(), key=lambda item: (-item[1], item[0]))[:top]
        return {**self.tally.counts(), "owner_only": OWNER_ONLY,
                "top_strings": [{"string": string, "spans": n, "documents": self.string_documents[string],
                                 "entities": dict(sorted(self.string_entities[string].items(),
                                                         key=lambda item: (-item[1], item[0])))}
                                for string, n in ranked],
                "distinct_strings": len(self.strings), "count_error": self.count_error,
                "residue": {kind: {**found, "examples": list(found["examples"])} for kind, found in self.residue.items()}}
