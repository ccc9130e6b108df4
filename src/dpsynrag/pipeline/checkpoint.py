"""Checkpoints of a DP-SynRAG build, so that a killed build resumes (``dpsynrag build ... --resume``).

Where: the owner-only work folder ``.NAME.work`` *beside* the corpus folder ``NAME`` (``--out``), never
inside it (folder 0700, files 0600; created at the first checkpoint, removed when the build finishes).
Every file is written to a temporary name, flushed and renamed, so a build killed at any instant
(SIGKILL included) leaves the previous checkpoint whole.

What it holds, after each stage of :func:`~dpsynrag.pipeline.build.build_corpus`:

* ``state.json``: what identifies the build — the input's fingerprint
  (:func:`~dpsynrag.corpus.format.input_fingerprint`), the :class:`~dpsynrag.pipeline.config.BuildConfig`
  dump and the dpsynrag version — whether the privacy ledger recorded it, which checkpoints of drawn
  values were written (``released``), the stage wall times, and what each resume restored (``resumes``,
  for the owner-only ``DIR.owner.json``);
* ``keywords.json`` (private intermediate): every document's capped keyword set;
* ``histogram.json`` (released): the keywords the DP histogram released with their noisy counts, the
  build accountant's events, and a seeded noise generator's position (None with secure randomness);
* ``clusters.json`` (private intermediate, but the outcome of drawn mechanisms): each cluster's members
  kept by outlier removal (the result of the noisy sums and thresholds), the cluster accountants'
  events, and the truncation stages;
* ``texts.json`` (released): the token ids of the clusters private prediction finished, written after
  each batch of clusters.

Resuming never draws a released mechanism again: the histogram, the kept members and the finished
clusters are read back, and the accountants get back the events they had composed (restored, not
charged again: the report is that of one build; the privacy ledger records the build once). Draws
that were made but never checkpointed (a batch of clusters cut short, outlier removal cut short) were
never written anywhere and are made again. Each cluster samples from its own named stream and the
batch-invariant engine makes a cluster's text independent of its batch, so a seeded build resumed at
any point writes the same corpus, byte for byte, as an uninterrupted one; with secure randomness the
released values come from the checkpoint and the rest is drawn fresh.

The checkpoints of drawn values (:data:`DRAWN`) are required once written: ``state.json`` lists each one
(``released``) just before its file is first written, and the histogram is required too once the build
passed the point where the ledger records it, just before the histogram is drawn (``ledger_recorded``).
A resume whose work folder lacks one of them or holds it damaged (or holds them without ``state.json``)
is refused before anything is read or drawn: drawing that value again would spend the budget twice and
let a build be rerun until it releases what one wants. The way out is a new build with a fresh budget.

What was restored is said to the owner on the console (:attr:`BuildCheckpoint.resume_message`) and
recorded in the owner-only ``DIR.owner.json`` (:attr:`BuildCheckpoint.resumes`), never logged: the
``dpsynrag`` logger's records become the public ``build.log``, and whether a build was interrupted, and
where, is not part of the release (a kill, e.g. for lack of memory, can depend on the data).

A checkpoint left by a killed build is never used or deleted silently: a build to the same ``--out``
without ``--resume`` is refused (pass ``--resume``, or delete the folder to start over), and
``--resume`` refuses a changed input or configuration, naming what changed (all but
:data:`FREE_TO_CHANGE`). A build that stops on an exception keeps its checkpoints too. Ray builds
(``--ray``) checkpoint private prediction after each Ray task that comes back (:meth:`BuildCheckpoint.predict_tasks`).
"""

from __future__ import annotations

import json
import logging
import math
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from dpsynrag import __version__
from dpsynrag.corpus.format import MANIFEST, input_fingerprint
from dpsynrag.data.pii_names import names_digest
from dpsynrag.errors import CheckpointError
from dpsynrag.pipeline.keywords import KeywordSets
from dpsynrag.privacy import events as _events
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.rng import RandomSource, SeededRandom

log = logging.getLogger("dpsynrag.build")

FORMAT = 1
STATE = "state.json"
KEYWORDS = "keywords.json"
HISTOGRAM = "histogram.json"
CLUSTERS = "clusters.json"
TEXTS = "texts.json"
DRAWN = (HISTOGRAM, CLUSTERS, TEXTS)
"""Checkpoints of values drawn by mechanisms (the histogram; the outcome of outlier removal; the finished
texts): once written, a resume needs them whole and never draws them again."""
CHECKPOINTS_PER_STAGE = 20
"""Private prediction is checkpointed after each of about this many batches of clusters (the default of
``BuildConfig.prediction_checkpoints``)."""
FREE_TO_CHANGE = frozenset({"memory_budget_gb", "prediction_checkpoints"})
"""Config fields a resume may change: they change how clusters are batched, never a released value (the
batch-invariant engine), e.g. a smaller ``memory_budget_gb`` after running out of memory."""


def work_folder(out_dir: str | os.PathLike) -> Path:
    """``.NAME.work`` beside the corpus folder ``NAME`` (resolved): the build's checkpoint folder."""
    target = Path(out_dir).resolve()
    return target.parent / f".{target.name}.work"


def interruption_message(out_dir: str | os.PathLike, how: str, argv: Sequence[str] | None = None) -> str:
    """The last message of a build stopped by ``how`` ("Ctrl-C", "SIGTERM"): where its checkpoint folder is
    and the ``--resume`` command that continues it (or that nothing was kept).

    Args:
        argv: the command line (default ``sys.argv``); when it is a ``build`` command, the message repeats it
            with ``--resume``.
    """
    folder = work_folder(out_dir)
    if not (folder / STATE).is_file():
        return (f"interrupted ({how}): nothing was kept (no corpus folder, no checkpoint yet); run the same "
                "command again to start over.")
    argv = list(sys.argv if argv is None else argv)
    command = ""
    if argv[1:2] == ["build"]:
        command = f": {shlex.join(['dpsynrag', *argv[1:], *([] if '--resume' in argv else ['--resume'])])}"
    return (f"interrupted ({how}): the build's checkpoint (private intermediates, owner-only) is kept in {folder}. "
            f"Continue it with the same command and --resume{command}; or delete that folder to start over.")


def event_to_dict(event: _events.PrivacyEvent) -> dict:
    """A privacy event as JSON-ready data (its class name and constructor fields, nested events too)."""

    def enc(v):
        if isinstance(v, _events.PrivacyEvent):
            return event_to_dict(v)
        if isinstance(v, (tuple, list)):
            return [enc(x) for x in v]
        return v

    if not (isinstance(event, _events.PrivacyEvent) and is_dataclass(event)):
        raise CheckpointError(f"internal: cannot checkpoint the event {type(event).__name__}.")
    return {"type": type(event).__name__, "fields": {f.name: enc(getattr(event, f.name)) for f in fields(event) if f.init}}


def event_from_dict(data: dict) -> _events.PrivacyEvent:
    """The event of :func:`event_to_dict` (only classes of :mod:`dpsynrag.privacy.events`)."""
    cls = getattr(_events, data.get("type", ""), None) if isinstance(data, dict) else None
    if not (isinstance(cls, type) and issubclass(cls, _events.PrivacyEvent) and is_dataclass(cls)):
        raise CheckpointError("a checkpoint holds an unknown privacy event: the work folder is damaged.")

    def dec(v):
        if isinstance(v, dict) and "type" in v and "fields" in v:
            return event_from_dict(v)
        if isinstance(v, list):
            return tuple(dec(x) for x in v)
        return v

    return cls(**{k: dec(v) for k, v in data["fields"].items()})


def restore_events(accountant: ZCDPAccountant, saved: Sequence[dict]) -> None:
    """Compose the checkpointed events onto ``accountant`` (its spend as it was; nothing is drawn)."""
    for data in saved:
        accountant.compose(event_from_dict(data))


def _write_json(path: Path, obj: Any) -> None:
    """Write ``obj`` as JSON to ``path`` (0600) atomically: a temporary file, fsync, rename."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _differences(saved: dict, now: dict) -> list[str]:
    def show(v):
        s = repr(v)
        return s if len(s) <= 40 else s[:37] + "..."

    return [f"{k} ({show(saved.get(k))} -> {show(now.get(k))})" for k in sorted(set(saved) | set(now))
            if saved.get(k, "<absent>") != now.get(k, "<absent>")]


class BuildCheckpoint:
    """The checkpoints of one build to ``out_dir`` (see the module docstring).

    Construct it before the :class:`~dpsynrag.corpus.CorpusWriter` (it reports a finished build to
    ``--resume``), then :meth:`open` it inside the writer's lock. Each ``restore_*`` returns None when
    that stage has not been checkpointed (then run it and call the matching ``save_*``).

    Args:
        out_dir: the corpus folder (``--out``).
        resume: continue the build checkpointed in the work folder (``--resume``).
        overwrite: the build may replace an existing corpus folder (``--overwrite``).

    Raises:
        CheckpointError: ``resume`` and ``out_dir`` is a finished corpus folder with nothing to
            resume (and not ``overwrite``).
    """

    def __init__(self, out_dir: str | os.PathLike, *, resume: bool = False, overwrite: bool = False):
        self.out = Path(out_dir)
        self.path = work_folder(out_dir)
        self.resume = bool(resume)
        self.state: dict = {}
        self._created = False
        self.resume_message: str | None = None
        if resume and not overwrite and not self.path.exists() and (self.out / MANIFEST).is_file():
            raise CheckpointError(
                f"nothing to resume (--resume): the build of {self.out} (--out) finished, and no interrupted build "
                f"is left ({self.path.name} does not exist). Use the corpus, or rebuild it with --overwrite."
            )

    # -- opening ----------------------------------------------------------------------------------

    def open(self, documents: Sequence, config) -> None:
        """Check the work folder against this build (hold the corpus folder's lock while calling this).

        No work folder: a new build. A work folder: with ``resume``, its state is loaded and must match
        the input's fingerprint, the config dump and the version; without ``resume`` the build is refused.
        With ``resume``, :attr:`resume_message` says what happens (for the owner's console only).

        Raises:
            CheckpointError: a work folder without ``resume``; a changed input, configuration or
                version; a folder that is not the user's or is damaged.
        """
        identity = {"format": FORMAT, "dpsynrag_version": __version__, "input": input_fingerprint(documents),
                    "config": config.model_dump(mode="json")}
        if getattr(config, "pii_names", ()):  # excluded from the dump (owner-only): compared by its digest
            identity["pii_names_sha256"] = names_digest(config.pii_names)
        try:
            st = self.path.lstat()
        except FileNotFoundError:
            st = None
        if st is not None and (self.path.is_symlink() or not self.path.is_dir() or st.st_uid != os.getuid()):
            raise CheckpointError(
                f"{self.path}, the work folder of --out {self.out}, is not a folder of yours: remove it yourself."
            )
        if st is not None and not (self.path / STATE).is_file():
            left = [name for name in DRAWN if (self.path / name).exists()]
            if left:  # state.json is written before any other file: this folder was tampered with
                raise self._refusal(left[0], f"{STATE} is missing beside it")
            shutil.rmtree(self.path)  # killed while creating it: it holds no checkpoint
            st = None
        if st is None:
            if self.resume:
                self.resume_message = (f"--resume: no interrupted build of {self.out.name} to resume: "
                                       "starting a new build")
            self.state = {**identity, "ledger_recorded": False, "timings": {}}
            return
        if not self.resume:
            raise CheckpointError(
                f"an interrupted build of {self.out} (--out) left its checkpoint in {self.path}: pass --resume to "
                "continue it (resume=True in the API), or delete that folder to start over."
            )
        state = self._read(STATE)
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise CheckpointError(f"the checkpoint in {self.path} has another format: delete that folder to start over.")
        if state.get("dpsynrag_version") != __version__:
            raise CheckpointError(
                f"cannot resume (--resume): the interrupted build ran dpsynrag {state.get('dpsynrag_version')}, this is "
                f"{__version__}; delete {self.path} to start over."
            )
        if state.get("input") != identity["input"]:
            was = state.get("input") or {}
            raise CheckpointError(
                f"cannot resume (--resume): the input documents changed since the interrupted build "
                f"({was.get('documents')} documents, sha256 {str(was.get('sha256'))[:12]}; now "
                f"{identity['input']['documents']} documents, sha256 {identity['input']['sha256'][:12]}). Give the same input, "
                f"or delete {self.path} to start over."
            )
        changed = [c for c in _differences(state.get("config") or {}, identity["config"])
                   if c.split(" ", 1)[0] not in FREE_TO_CHANGE]
        if state.get("pii_names_sha256") != identity.get("pii_names_sha256"):
            changed.append("pii_names (the --pii-names-file list)")
        if changed:
            raise CheckpointError(
                "cannot resume (--resume): the configuration changed since the interrupted build: "
                f"{'; '.join(changed)}. Pass the same options, or delete {self.path} to start over."
            )
        self._check_drawn(state)
        self.state = state
        self._created = True
        self.resume_message = self._describe()
        self.state["resumes"] = [*self.resumes, self.resume_message]  # owner-only; saved with the next checkpoint

    def _describe(self) -> str:
        """What a resume restores, e.g. "resuming: keywords, histogram (48 keywords), outlier removal, 12 of 48
        clusters restored from .NAME.work" (data-dependent counts: for the owner's console only)."""
        restored = []
        if (self.path / KEYWORDS).is_file():
            restored.append("keywords")
        histogram = self._read(HISTOGRAM)
        if histogram is not None:
            restored.append(f"histogram ({len(histogram['keywords'])} keywords)")
        if (self.path / CLUSTERS).is_file():
            restored.append("outlier removal")
        texts = self._read(TEXTS)
        if texts:
            grouped = (self.state.get("config") or {}).get("group_size") is not None
            restored.append(f"{len(texts)} member groups' texts" if grouped or histogram is None
                            else f"{len(texts)} of {len(histogram['keywords'])} clusters")
        if not restored:
            return f"resuming from {self.path.name}: no stage had finished; nothing to restore"
        return f"resuming: {', '.join(restored)} restored from {self.path.name}"

    def _check_drawn(self, state: dict) -> None:
        """Refuse (:meth:`_refusal`) when a checkpoint of a drawn value that this build wrote — or the
        histogram, once the ledger point before its draw was passed — is missing or damaged."""
        required = [name for name in DRAWN
                    if name in (state.get("released") or []) or (name == HISTOGRAM and state.get("ledger_recorded"))]
        for name in required:
            if not (self.path / name).is_file():
                raise self._refusal(name, "it is missing")
            self._read(name)  # a damaged one is refused there

    def _refusal(self, name: str, why: str) -> CheckpointError:
        """The error of a resume that would have to draw a released value again (never drawn: refused)."""
        return CheckpointError(
            f"cannot resume (--resume): the interrupted build already drew the value checkpointed in "
            f"{self.path / name}, but {why}. Drawing it again would spend the privacy budget twice (and the "
            f"ledger records the build once), so nothing was drawn. Start a new build with a fresh budget: delete "
            f"{self.path} and run the build without --resume (with --ledger it is recorded as a new release)."
        )

    def _read(self, name: str):
        try:
            return json.loads((self.path / name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            if name in DRAWN:
                raise self._refusal(name, f"it is damaged ({type(exc).__name__})") from None
            raise CheckpointError(
                f"the checkpoint file {self.path / name} is damaged ({type(exc).__name__}): delete {self.path} to "
                "start over."
            ) from None

    def _save(self, name: str, obj: Any, timings: dict | None = None) -> None:
        if not self._created:
            self.path.mkdir(mode=0o700)
            os.chmod(self.path, 0o700)  # whatever the umask
            self._created = True
            _write_json(self.path / STATE, self.state)
        if name in DRAWN and name not in self.state.setdefault("released", []):
            # recorded before the file is written: from now on a resume needs it (a kill in between refuses a
            # resume that could have gone on: conservative)
            self.state["released"].append(name)
            _write_json(self.path / STATE, self.state)
        if name != STATE:
            _write_json(self.path / name, obj)
        if timings is not None:
            self.state["timings"] = dict(timings)
        _write_json(self.path / STATE, self.state)

    @property
    def timings(self) -> dict[str, float]:
        """Stage wall times of the stages already checkpointed (owner-only, like all timings)."""
        return dict(self.state.get("timings", {}))

    @property
    def resumes(self) -> list[str]:
        """What each resume of this build restored (:meth:`_describe`; data-dependent counts): for the
        owner-only ``DIR.owner.json`` only, never the public ``build.log``. Empty for an uninterrupted build."""
        return list(self.state.get("resumes", []))

    @property
    def ledger_recorded(self) -> bool:
        """Whether the build passed the point where the privacy ledger records it (:meth:`record_in_ledger`;
        then a resume neither checks nor records it again, whatever ledger it is given)."""
        return bool(self.state.get("ledger_recorded"))

    # -- stages -----------------------------------------------------------------------------------

    def restore_keywords(self) -> KeywordSets | None:
        """Every document's capped keyword set, or None."""
        saved = self._read(KEYWORDS)
        if saved is None:
            return None
        words, sets = saved["words"], KeywordSets()
        for ids in saved["sets"]:
            sets.append(words[i] for i in ids)
        return sets

    def save_keywords(self, doc_keywords: Sequence[Sequence[str]], timings: dict) -> None:
        """Saved as the distinct words and, per document, their indices (compact, in the given order)."""
        index: dict[str, int] = {}
        sets = [[index.setdefault(w, len(index)) for w in keywords] for keywords in doc_keywords]
        self._save(KEYWORDS, {"words": list(index), "sets": sets}, timings)

    def record_in_ledger(self, charge) -> None:
        """Commit the build's ledger charge (:class:`~dpsynrag.privacy.charge.PendingCharge`) once: not
        again on resume. (A kill between the commit and this checkpoint records it twice: conservative.)"""
        if not self.ledger_recorded:
            charge.commit()
            self.state["ledger_recorded"] = True
            self._save(STATE, None)

    def restore_histogram(self, accountant: ZCDPAccountant, noise: RandomSource) -> list[tuple] | None:
        """The released keywords [(word, noisy count)], or None. Also composes the histogram's events
        onto ``accountant`` and moves a seeded ``noise`` to where the interrupted build left it."""
        saved = self._read(HISTOGRAM)
        if saved is None:
            return None
        restore_events(accountant, saved["events"])
        if isinstance(noise, SeededRandom):
            noise.set_state(saved["noise_state"])
        return [(w, c) for w, c in saved["keywords"]]

    def save_histogram(self, keywords: Sequence[tuple], accountant: ZCDPAccountant, noise: RandomSource) -> None:
        self._save(HISTOGRAM, {
            "keywords": [[w, c] for w, c in keywords],
            "events": [event_to_dict(e.event) for e in accountant.ledger],
            "noise_state": noise.get_state() if isinstance(noise, SeededRandom) else None,
        })

    def restore_clusters(self, branches: Sequence[ZCDPAccountant]) -> tuple[list[list[int]], list[dict]] | None:
        """(kept members per cluster, truncation stages), or None. Also composes each cluster's
        outlier-removal events onto its branch accountant."""
        saved = self._read(CLUSTERS)
        if saved is None:
            return None
        for branch, events in zip(branches, saved["branches"], strict=True):
            restore_events(branch, events)
        return saved["kept_members"], saved["truncation"]

    def save_clusters(self, kept_members: Sequence[Sequence[int]], truncation: Sequence[dict],
                      branches: Sequence[ZCDPAccountant], timings: dict) -> None:
        self._save(CLUSTERS, {
            "kept_members": [[int(i) for i in m] for m in kept_members],
            "truncation": list(truncation),
            "branches": [[event_to_dict(e.event) for e in b.ledger] for b in branches],
        }, timings)

    def predict(self, run: Callable[[list[int]], list[list[int]]], num_clusters: int, *, batches: int | None = None,
                display=None, steps: int = 1) -> list[list[int]]:
        """Token ids of every cluster: the finished ones from the checkpoint, the others by ``run``
        (cluster indices -> their token ids), checkpointed after each batch.

        Args:
            batches: split the clusters left into about this many batches (default
                :data:`CHECKPOINTS_PER_STAGE`).
            display: the open stage of a :class:`~dpsynrag.pipeline.display.BuildDisplay`: advanced by the
                restored clusters, then by each batch's, its label showing "batch i of N" (one bar for all
                batches); None: nothing shown.
            steps: the display's steps per cluster (e.g. its tokens, when ``run`` advances the display
                itself after each decoding step); after each batch the display is brought to its
                clusters' ``steps`` (:meth:`~dpsynrag.pipeline.display.BuildDisplay.reach`).
        """
        def in_batches(left: list[int]):
            size = max(1, math.ceil(len(left) / (batches or CHECKPOINTS_PER_STAGE)))
            count = math.ceil(len(left) / size)
            for i, start in enumerate(range(0, len(left), size), start=1):
                chunk = left[start:start + size]
                if display is not None:
                    display.detail(f"batch {i} of {count}")
                yield chunk, run(chunk)

        return self.predict_tasks(in_batches, num_clusters, display=display, steps=steps)

    def predict_tasks(self, run_tasks: Callable[[list[int]], Iterable[tuple[Sequence[int], Sequence[Sequence[int]]]]],
                      num_clusters: int, *, display=None, steps: int = 1) -> list[list[int]]:
        """Token ids of every cluster: the finished ones from the checkpoint, the others from
        ``run_tasks(left)`` (the cluster indices left, ascending), an iterable of (cluster indices,
        their token ids) pairs in any order (e.g. Ray tasks as they finish); each pair is checkpointed
        as it arrives, so an interrupted build keeps every task that came back. ``display``, ``steps``:
        as :meth:`predict`.

        Raises:
            CheckpointError: ``run_tasks`` returned a cluster twice, one not left, or left one out.
        """
        saved = self._read(TEXTS) or {}
        done = {int(r): ids for r, ids in saved.items()}
        left = [r for r in range(num_clusters) if r not in done]
        if display is not None and done:
            display.update(len(done) * steps)
        todo = set(left)
        for chunk, ids in run_tasks(left):
            for r, t in zip(chunk, ids, strict=True):
                if r not in todo:
                    raise CheckpointError(f"internal: private prediction returned cluster {r} twice or unasked.")
                todo.discard(r)
                done[r] = [int(x) for x in t]
            self._save(TEXTS, {str(r): ids for r, ids in sorted(done.items())})
            if display is not None:
                display.reach(len(done) * steps)
        if todo:
            raise CheckpointError(f"internal: private prediction left {len(todo)} clusters without a text.")
        return [done[r] for r in range(num_clusters)]

    def __enter__(self) -> "BuildCheckpoint":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        """A build that stops on an error keeps its checkpoints (so that it can be resumed): say where,
        since the folder holds private intermediates (owner-only)."""
        if exc_type is not None and self._created and self.path.exists():
            log.warning(
                "the build stopped; its checkpoint (private intermediates, owner-only) is kept in %s: resume with "
                "--resume, or delete that folder", self.path,
            )

    def remove(self) -> None:
        """Delete the work folder (private intermediates included): the build has finished."""
        if self._created:
            shutil.rmtree(self.path, ignore_errors=True)
            self._created = False
