"""What a build shows its owner while it runs (:class:`BuildDisplay`): one bar per stage, "stage i of N:
NAME", counts, ETA and the stage's wall time, on stderr only; and the owner's one-line summaries
(:func:`format_seconds`, :func:`truncation_summary`). Never the ``dpsynrag`` logger, whose records become the
corpus folder's public ``build.log`` (counts and times depend on the data).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence


def format_seconds(seconds: float) -> str:
    """A wall time for people: "4.2 s", "3 min 07 s", "1 h 02 min"."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


class BuildDisplay:
    """What a build shows its owner while it runs: one tqdm bar per stage, labelled "stage i of N: NAME"
    (the stages given to :meth:`plan`; a stage not planned is shown by its name), with its counts and ETA,
    and a line with the stage's wall time when it ends (:meth:`end`).

    Everything goes to stderr, to the person running the build only: never to the ``dpsynrag`` logger,
    whose records become the corpus folder's public ``build.log`` (counts and times depend on the data).
    Disabled (``progress=False``, the API's default): every method does nothing.

    Args:
        enabled: show anything at all.
    """

    def __init__(self, enabled: bool):
        self.enabled = bool(enabled)
        self.stages: list[str] = []
        self._bar = None
        self._name: str | None = None
        self._t = 0.0

    def plan(self, stages: Sequence[str]) -> None:
        """The build's stages, in order (public: from the method and its config only)."""
        self.stages = list(stages)

    def label(self, name: str) -> str:
        """"stage i of N: NAME" for a planned stage, else NAME."""
        if name in self.stages:
            return f"stage {self.stages.index(name) + 1} of {len(self.stages)}: {name}"
        return name

    def say(self, message: str) -> None:
        """One line for the owner (between the bars)."""
        if self.enabled:
            from tqdm.auto import tqdm

            tqdm.write(message, file=sys.stderr)

    def start(self, name: str, *, total: int | None = None, unit: str = "it") -> None:
        """Open stage ``name``'s bar (``total`` steps of ``unit``, with ETA; None: only a line saying it
        started); a stage still open is ended first."""
        if self._name is not None:
            self.end()
        self._name, self._t = name, time.perf_counter()
        if total is None:
            self.say(f"{self.label(name)} ...")  # nothing to count: a line, no bar
        elif self.enabled:
            from tqdm.auto import tqdm

            # every update shown: no step is skipped on a fast machine. Time left from the stage's mean rate
            # (smoothing 0): private prediction's prefills advance no token, and a recent rate swings after each
            self._bar = tqdm(total=total, desc=self.label(name), unit=unit, file=sys.stderr, dynamic_ncols=True,
                             mininterval=0, smoothing=0)

    def update(self, n: int = 1) -> None:
        """``n`` more steps of the open stage."""
        if self._bar is not None:
            self._bar.update(n)

    def reach(self, n: int) -> None:
        """Advance the open stage to ``n`` steps when it shows fewer (a batch whose steps were not all
        reported, e.g. texts that ended early or a runner that reports none); never backwards."""
        if self._bar is not None and n > self._bar.n:
            self._bar.update(n - self._bar.n)

    def detail(self, text: str) -> None:
        """Show ``text`` beside the open stage's label (e.g. "batch 2 of 20")."""
        if self._bar is not None:
            self._bar.set_description(f"{self.label(self._name)} ({text})")

    def note(self, text: str) -> None:
        """Show ``text`` after the open stage's bar (e.g. "prompts read 30/91"), replacing the last note."""
        if self._bar is not None:
            self._bar.set_postfix_str(text)

    def end(self, summary: str = "") -> float:
        """Close the open stage and say its wall time (and ``summary``); returns the seconds."""
        seconds = time.perf_counter() - self._t
        name, self._name = self._name, None
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if name is not None:
            self.say(f"{self.label(name)}: done in {format_seconds(seconds)}" + (f"; {summary}" if summary else ""))
        return seconds

    def counted(self, embedder):
        """``embedder`` reporting each call's texts to :meth:`update` (the embeddings' bar)."""
        return _CountingEmbedder(embedder, self.update)

    def restored(self, name: str, where: str) -> None:
        """Say that stage ``name`` was read back from the checkpoint folder ``where`` (not run again)."""
        self.say(f"{self.label(name)}: restored from {where}")

    def close(self) -> None:
        """Close an open bar without a message (the build stopped)."""
        self._name = None
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def truncation_summary(stages: Sequence[dict]) -> str | None:
    """One line for the owner's console on how many documents were cut, from the owner-only record's
    ``truncation`` (:func:`truncation_stages`), e.g. "documents cut (owner-only, not DP): 3 to
    --max-document-tokens 256 (at read time to 33,024 characters first), 5 by the embedder (its 256 tokens)";
    None when no stage reports a count."""
    parts = []
    for stage in stages:
        cut = stage.get("documents_cut")
        if not isinstance(cut, int):
            continue
        if "max_document_tokens" in stage.get("stage", ""):
            chars = stage.get("max_chars")
            parts.append(f"{cut} to --max-document-tokens {stage.get('max_tokens')}"
                         + (f" (at read time to {chars:,} characters first)" if chars else ""))
        else:
            name = stage.get("stage", "embedder").split(" (")[0]
            parts.append(f"{cut} by the {name} (its {stage.get('max_tokens')} tokens)")
    return f"documents cut (owner-only, not DP): {', '.join(parts)}" if parts else None


class _CountingEmbedder:
    """An embedder that reports the texts it encoded to ``update`` (the outlier-removal stage's bar)."""

    def __init__(self, embedder, update: Callable[[int], None]):
        self._embedder, self._update = embedder, update

    def encode(self, texts, *args, **kwargs):
        out = self._embedder.encode(texts, *args, **kwargs)
        self._update(len(texts))
        return out

    def __getattr__(self, name):
        found = getattr(self._embedder, name)
        if name == "encode_private":  # the batched encoding of private texts: counted after each forward
            return lambda texts, *args, **kwargs: found(texts, *args, on_batch=self._update, **kwargs)
        return found


def cut_advice(cut: int, documents: int, max_document_tokens: int) -> str | None:
    """The owner's line on documents longer than ``--max-document-tokens`` (owner-only, not DP: printed on
    the console before any budget is spent, never written to the corpus or its report), with the advice to
    raise the bound; None when no document is cut."""
    if cut <= 0:
        return None
    return (f"owner-only (not DP): {cut} of {documents} documents are longer than --max-document-tokens "
            f"{max_document_tokens} and are cut to their first {max_document_tokens} tokens. Nothing is spent "
            "yet: to let the model read more of each, stop now (Ctrl-C) and raise --max-document-tokens "
            "(longer prompts: a slower build).")


READ_UPDATE = 32
"""Documents per update of the reading stage's bar."""


def reading_pass(display: BuildDisplay, name: str, documents: Iterable) -> Iterator:
    """The reading stage ``name`` of a build: yields ``documents`` (the one pass that reads each document and
    redacts it when the build redacts, the PII pass included), the stage's bar advanced every
    :data:`READ_UPDATE` documents and brought to the count at the end. The stage is ended by :func:`end_reading`."""
    display.start(name, total=len(documents), unit="doc")
    n = 0
    for n, document in enumerate(documents, start=1):
        if n % READ_UPDATE == 0:
            display.update(READ_UPDATE)
        yield document
    display.reach(n)


def end_reading(display: BuildDisplay, cut: int, documents: int, max_document_tokens: int) -> None:
    """End the reading stage with how many of ``documents`` were ``cut`` (owner-only), then the owner's
    :func:`cut_advice`."""
    display.end(f"{cut} of {documents} cut to --max-document-tokens {max_document_tokens}")
    advice = cut_advice(cut, documents, max_document_tokens)
    if advice:
        display.say(advice)
