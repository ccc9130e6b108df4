"""Writing a corpus folder atomically, under a lock, with its owner-only audit record beside it
(:class:`CorpusWriter`; re-exported by :mod:`dpsynrag.corpus`)."""

from __future__ import annotations

import datetime as _dt
import glob
import io
import json
import logging
import os
import platform
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from dpsynrag import __version__
from dpsynrag.corpus.format import (
    CHECKSUMS,
    FORMAT_VERSION,
    INDEX,
    INDEX_IDS,
    LOG,
    MANIFEST,
    OWNER_NOTE,
    TEXTS,
    file_sha256,
    index_entries,
    input_fingerprint,
    manifest_sha256,
    owner_audit_path,
    owner_fingerprints,
)
from dpsynrag.data.io import Document
from dpsynrag.errors import BuildInProgressError, ConfigError
from dpsynrag.corpus.reader import SyntheticCorpus
from dpsynrag.rag.index import VectorIndex

if TYPE_CHECKING:  # pragma: no cover
    from dpsynrag.privacy.report import PrivacyReport


def model_fingerprint(model) -> dict:
    """``{"sha256": {file name: hex SHA-256}}`` of the files ``model`` was loaded from (its ``source``:
    :func:`~dpsynrag.models.gguf.model_file_hashes`), for the manifest; ``{}`` when its source is unknown
    (a model built in memory, a hub id not in the local cache)."""
    from dpsynrag.models.gguf import model_file_hashes

    source = getattr(model, "source", None)
    return {"sha256": model_file_hashes(source)} if isinstance(source, (str, os.PathLike)) else {}


class CorpusWriter:
    """Writes a corpus folder atomically (used by every corpus-building method).

    A hidden ``.NAME.partial-PID`` folder beside ``out_dir`` marks the build while it runs; :meth:`finish`
    recreates it (so not even its creation time tells when the build started), writes every file into it
    and renames it into place. Leaving the ``with`` block by an exception deletes the partial folder, so a
    failed build never leaves a folder that looks complete. While open, the ``dpsynrag`` logger's records
    are kept in memory and written to ``build.log`` by :meth:`finish` (without timestamps: wall times are
    not DP): log only public parameters and released values there. The folder's and its files'
    modification and access times are then set to the manifest's ``created`` time.

    While the ``with`` block runs, the lock file ``.NAME.lock`` beside ``out_dir`` is held with
    ``flock`` (an OS lock: released when the process ends, SIGKILL included), so two builds never write
    one ``out_dir`` at once. Entering also reports (``dpsynrag.corpus`` logger, warning) the partial
    folders and files a killed build left beside ``out_dir``, and deletes those whose process no longer
    runs and that belong to the current user.

    Args:
        out_dir: the corpus folder.
        overwrite: replace an existing corpus folder (only when :meth:`finish` succeeds). Only a folder
            that holds a ``manifest.json`` is ever replaced.

    Raises:
        FileExistsError: ``out_dir`` exists and ``overwrite`` is False, or it exists and is not a corpus
            folder (a file, or a folder without ``manifest.json``: never deleted).
        ConfigError: ``out_dir`` is the current folder, one of its parents or the home folder.
        BuildInProgressError: (on entering) another build holds the lock of ``out_dir``.
    """

    def __init__(self, out_dir: str | os.PathLike, *, overwrite: bool = False):
        self.out = Path(out_dir)
        target = self.out.resolve()
        cwd = Path.cwd().resolve()
        if target == cwd or target in cwd.parents or target == Path.home().resolve():
            raise ConfigError(
                f"`out_dir` {self.out} is the current folder, one of its parents or the home folder: "
                "give a new folder for the corpus."
            )
        if self.out.exists():
            if not overwrite:
                raise FileExistsError(
                    f"`out_dir` {self.out} already exists; choose another folder or replace it (--overwrite; "
                    "overwrite=True)."
                )
            if not self.out.is_dir() or not (self.out / MANIFEST).is_file():
                raise FileExistsError(
                    f"`out_dir` {self.out} exists and is not a corpus folder (no {MANIFEST}); refusing to replace "
                    "it: choose another folder."
                )
        self.overwrite = bool(overwrite)
        self.partial = target.parent / f".{target.name}.partial-{os.getpid()}"
        self.lock_path = target.parent / f".{target.name}.lock"
        self._lock_fd: int | None = None
        self._handler: logging.Handler | None = None
        self._log = io.StringIO()

    def _acquire_lock(self) -> None:
        """Hold ``flock`` on :attr:`lock_path` (non-blocking). The file is unlinked on release; a lock
        taken on a file that was unlinked or replaced meanwhile is retried on the current one."""
        import fcntl

        while True:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise BuildInProgressError(
                    f"another build is writing the corpus folder {self.out} (--out) right now (its lock "
                    f"{self.lock_path} is held); wait for it to finish or choose another --out."
                ) from None
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.lock_path))
            except FileNotFoundError:
                same = False
            if same:
                self._lock_fd = fd
                return
            os.close(fd)  # the holder released and unlinked it between our open and flock: retry

    def _release_lock(self) -> None:
        if self._lock_fd is not None:
            self.lock_path.unlink(missing_ok=True)  # while still held: no one can lock this inode after
            os.close(self._lock_fd)
            self._lock_fd = None

    def _remove_stale_partials(self) -> None:
        """Report the partial folders (and owner-record files) of this ``out_dir`` left by killed builds;
        delete those whose process no longer runs and that belong to the current user."""
        warn = logging.getLogger("dpsynrag.corpus").warning
        name = self.lock_path.name[1:-len(".lock")]  # the resolved out_dir's name
        prefixes = (f".{name}.partial-", f".{owner_audit_path(name).name}.partial-")
        for prefix in prefixes:
            for p in sorted(self.partial.parent.glob(glob.escape(prefix) + "*")):
                pid = p.name[len(prefix):]
                if p == self.partial or not pid.isdigit():
                    continue
                try:
                    os.kill(int(pid), 0)
                    dead = False
                except ProcessLookupError:
                    dead = True
                except OSError:  # the process exists (e.g. another user's)
                    dead = False
                try:
                    ours = p.lstat().st_uid == os.getuid()
                except FileNotFoundError:
                    continue
                if dead and ours:
                    if p.is_dir() and not p.is_symlink():
                        shutil.rmtree(p, ignore_errors=True)
                    else:
                        p.unlink(missing_ok=True)
                    warn("removed %s: left by an earlier build to %s that was killed (process %s no longer runs).",
                         p, self.out, pid)
                else:
                    why = "still runs" if not dead else "runs no more, but the file is not yours"
                    warn("found %s, left by an earlier build to %s (process %s %s): left as it is; remove it "
                         "yourself if no build is running.", p, self.out, pid, why)

    def __enter__(self) -> "CorpusWriter":
        try:
            self.lock_path.parent.mkdir(parents=True, exist_ok=True)
            self._acquire_lock()
        except OSError as exc:
            if isinstance(exc, BuildInProgressError):
                raise
            raise ConfigError(
                f"cannot create the corpus folder {self.out} (--out): {exc.strerror or type(exc).__name__}."
            ) from None
        try:
            self._remove_stale_partials()
            if self.partial.exists():
                shutil.rmtree(self.partial)
            try:
                self.partial.mkdir(parents=True)
            except OSError as exc:
                raise ConfigError(
                    f"cannot create the corpus folder {self.out} (--out): {exc.strerror or type(exc).__name__}."
                ) from None
        except BaseException:
            self._release_lock()
            raise
        self._log = io.StringIO()
        self._handler = logging.StreamHandler(self._log)
        self._handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
        logger = logging.getLogger("dpsynrag")
        logger.addHandler(self._handler)
        logger.setLevel(logging.INFO)
        return self

    def _close_log(self) -> None:
        if self._handler is not None:
            logging.getLogger("dpsynrag").removeHandler(self._handler)
            self._handler.close()
            self._handler = None

    def __exit__(self, exc_type, exc, tb) -> None:
        self._close_log()
        if exc_type is not None:
            shutil.rmtree(self.partial, ignore_errors=True)
        self._release_lock()

    def finish(self, records: Sequence[dict], manifest: dict, embedder) -> "SyntheticCorpus":
        """Write the texts, the index over the kept ones and the manifest; move the folder into place.

        Args:
            records: one dict per synthetic text with at least ``id`` (int, unique), ``text`` and
                ``kept`` (bool); an optional ``copies`` (int >= 1, default 1) indexes a kept text that many
                times (:func:`~dpsynrag.corpus.format.index_entries`); other fields (e.g. ``keyword``) are
                kept as given. Only released values.
            manifest: method-specific fields (``method``, ``config``, ``model``, ``privacy``, ...); the
                format version, package version, creation time, counts and embedder are added here.
            embedder: the embedder of the index (recorded in the manifest).

        Returns:
            The loaded :class:`SyntheticCorpus`.
        """
        shutil.rmtree(self.partial)
        self.partial.mkdir()  # a new folder: its birth time is the end of the build, not the start
        with open(self.partial / TEXTS, "w", encoding="utf-8") as f:
            for rec in records:
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        kept_ids = [rec["id"] for rec in records if rec["kept"]]
        by_id = {rec["id"]: rec for rec in records}
        vectors = embedder.encode([by_id[i]["text"] for i in kept_ids]) if kept_ids else np.zeros((0, embedder.dim), np.float32)
        copies = [int(by_id[i].get("copies", 1)) for i in kept_ids]  # index entries per kept text (public)
        VectorIndex(np.repeat(vectors, copies, axis=0)).save(self.partial / INDEX)
        (self.partial / INDEX_IDS).write_text(json.dumps(index_entries(records)))
        created = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        full = {
            "format_version": FORMAT_VERSION,
            "dpsynrag_version": __version__,
            "created": created.isoformat(timespec="seconds"),
            **manifest,
            "embedder": {**manifest.get("embedder", {}), "name": embedder.name, "dim": embedder.dim},
            "num_texts": len(records),
            "num_kept": len(kept_ids),
            "platform": {"python": platform.python_version(), "machine": platform.machine()},
        }
        self._close_log()
        (self.partial / LOG).write_text(self._log.getvalue(), encoding="utf-8")
        full[CHECKSUMS] = {
            "algorithm": "sha256",
            "files": {name: file_sha256(self.partial / name) for name in (TEXTS, INDEX, INDEX_IDS, LOG)},
            "manifest": manifest_sha256(full),
        }
        (self.partial / MANIFEST).write_text(json.dumps(full, indent=2, ensure_ascii=False))
        # Checked again at the end: something may have appeared at out_dir while the build ran (a
        # folder the user made, another build): never delete what is not a corpus folder, and replace
        # a corpus folder only when asked to.
        if self.out.exists() or self.out.is_symlink():
            if not self.overwrite:
                raise FileExistsError(
                    f"`out_dir` {self.out} appeared while the build ran (another build to the same folder?); "
                    "it was left as it is and this build's corpus was not written."
                )
            if self.out.is_symlink() or not self.out.is_dir() or not (self.out / MANIFEST).is_file():
                raise FileExistsError(
                    f"`out_dir` {self.out} is no longer a corpus folder (no {MANIFEST}); it was left as it is and "
                    "this build's corpus was not written."
                )
            shutil.rmtree(self.out)
        self.partial.rename(self.out)
        corpus = SyntheticCorpus.load(self.out)
        stamp = created.timestamp()  # files first: writing or touching them changes the folder's times
        for path in self.out.iterdir():
            os.utime(path, (stamp, stamp))
        os.utime(self.out, (stamp, stamp))
        return corpus

    def finish_build(
        self,
        records: Sequence[dict],
        *,
        method: str,
        config,
        report: PrivacyReport,
        lm,
        embedder,
        documents: Sequence[Document],
        secure: bool,
        timings: dict[str, float],
        t_start: float,
        truncation: Sequence[dict] = (),
        unit_ids: Sequence | None = None,
        owner_record: dict | None = None,
        fingerprinted: Iterable[Document] | None = None,
        **fields,
    ) -> "SyntheticCorpus":
        """The end of every corpus-building method: the budget guard, the common manifest, :meth:`finish`,
        and the owner-only audit record (:func:`owner_audit_path`: input fingerprint, wall times,
        truncation counts, and the keyed fingerprints of the input's documents or privacy units,
        :func:`~dpsynrag.corpus.format.owner_fingerprints`, which ``dpsynrag build --extend`` checks
        disjointness against).

        Args:
            records: as in :meth:`finish` (released values only).
            method: the method name recorded in the manifest ("dp-synrag", "dp-synth", "aug-pe").
            config: the method's pydantic config (fields ``epsilon``, ``delta``, ``conversion``, ``model``,
                ``embedder``, ``max_document_tokens``).
            report: the build's privacy report.
            lm, embedder: the models used (their names go in the manifest, and with a known ``source`` the
                SHA-256 of their weight, tokenizer and config files: :func:`model_fingerprint`).
            documents: the private input (only its owner-only fingerprint is recorded).
            secure: whether the randomness was cryptographically secure (False: the manifest is marked
                ``not_for_release``).
            timings: stage wall times in seconds; ``total_s`` is added from ``t_start``.
            truncation: one dict per place the private documents were cut (``stage``, ``max_tokens``,
                ``documents_cut``; see :func:`dpsynrag.pipeline.run.truncation_stages`). The manifest gets
                the stages and limits (public); the counts — data-dependent, not DP — go only to the
                owner-only audit record.
            unit_ids: one privacy-unit key per document for the owner record's fingerprints (None: the
                documents' ``unit``, else each document is its own unit).
            owner_record: more owner-only fields for the audit record (never the manifest or
                ``build.log``), e.g. ``resumes``: what each resume of an interrupted build restored.
            fingerprinted: the same documents in the same order, each carrying its whole text's key
                (``text_key``) and its ``unit``, from which the fingerprints are made without keying
                ``documents`` again (a build's spool: :mod:`dpsynrag.data.preparation`); None: ``documents``.
            fields: method-specific manifest fields (prompts, vocabulary, ...).

        Raises:
            ConfigError: the report's ε under the config's conversion (Bun–Steinke or CKS) exceeds
                ``config.epsilon`` (an internal calibration error: the calibration makes it impossible; the
                partial folder is discarded).
        """
        spent = report.epsilon_tight if config.conversion == "cks" else report.epsilon
        if spent > config.epsilon * (1 + 1e-9):
            raise ConfigError(
                f"internal error: spent epsilon {spent} ({config.conversion} conversion) exceeds the target {config.epsilon}."
            )
        logging.getLogger("dpsynrag").info(
            "build complete: epsilon=%.4f (tight %.4f), delta=%g", report.epsilon, report.epsilon_tight, config.delta
        )
        timings["total_s"] = time.time() - t_start
        manifest = {
            "method": method,
            "config": config.model_dump(),
            "model": {"spec": config.model, "name": lm.name, **model_fingerprint(lm)},
            "embedder": {"spec": config.embedder, **model_fingerprint(embedder)},
            **fields,
            "max_document_tokens": config.max_document_tokens,
            "truncation": [
                {**{k: v for k, v in stage.items() if k != "documents_cut"},
                 "documents_cut": f"owner-only: see {owner_audit_path(self.out).name}"}
                for stage in truncation
            ],
            "privacy": report.to_dict(),
            "not_for_release": not secure,
        }
        owner = {"input_fingerprint": input_fingerprint(documents), "timings": timings,
                 "truncation": list(truncation), "fingerprints": owner_fingerprints(documents if fingerprinted is None else fingerprinted, unit_ids=unit_ids),
                 **(owner_record or {})}
        return self.finish_with_owner(records, manifest, embedder, owner)

    def finish_with_owner(self, records: Sequence[dict], manifest: dict, embedder, owner: dict) -> "SyntheticCorpus":
        """:meth:`finish`, and the owner-only record ``owner`` (:data:`OWNER_NOTE` and the corpus name
        added) written beside the folder (0600) once the folder is in place."""
        audit = owner_audit_path(self.out)
        audit_partial = audit.parent / f".{audit.name}.partial-{os.getpid()}"
        fd = os.open(audit_partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # owner-only whatever the umask
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps({"note": OWNER_NOTE, "corpus": self.out.name, **owner}, indent=2))
        try:
            corpus = self.finish(records, manifest, embedder)
        except BaseException:
            audit_partial.unlink(missing_ok=True)
            raise
        audit_partial.replace(audit)
        return corpus
