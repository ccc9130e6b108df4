"""A synthetic corpus on disk, and RAG over it (post-processing: unlimited queries, no budget).

Folder layout (written by :func:`dpsynrag.pipeline.build.build_corpus`):

    manifest.json   parameters, model ids, privacy report, released counts
    texts.jsonl     one record per cluster: id, keyword, noisy_count (an integer), text, kept (self-filter)
    index.faiss     inner-product index over the kept texts' embeddings
    index_ids.json  the record ids of the index rows
    build.log       stage log (parameters and released counts only; no timestamps), written at the end

The manifest's ``checksums`` hold the SHA-256 of every other file and of the manifest itself (its
canonical JSON without ``checksums``); :meth:`SyntheticCorpus.load` verifies them and recomputes the
privacy report's totals from the mechanisms it lists (:func:`dpsynrag.privacy.verify.verify_report`),
so a damaged or hand-edited folder is refused with a :class:`~dpsynrag.errors.CorpusError`. This
detects damage and naive edits, not a forger who recomputes every checksum (there is no signature).

While a build runs, ``.NAME.lock`` beside the folder is locked (``flock``; released when the process
ends, even by SIGKILL), so a second build to the same folder is refused.

Everything in the folder is DP output or public. What only the data owner may see — the input
fingerprint (exact document count and hash), the stage wall times (they depend on the number and
lengths of the documents and on cluster sizes) and how many documents were truncated — goes to
``NAME.owner.json`` *beside* the folder (:func:`owner_audit_path`), so that publishing the folder
publishes nothing else. The folder's and its files' modification and access times are all set to the
manifest's ``created`` time (the end of the build), so they do not tell how long the build took.
"""

from __future__ import annotations

import datetime as _dt
import glob
import hashlib
import io
import json
import logging
import os
import platform
import shutil
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from dpsynrag import __version__
from dpsynrag.data.io import Document
from dpsynrag.errors import BuildInProgressError, ConfigError, CorpusError
from dpsynrag.privacy.report import PrivacyReport
from dpsynrag.rag import DEFAULT_SYSTEM_PROMPT, Answer, RAGAnswerer, VectorIndex

MANIFEST = "manifest.json"
TEXTS = "texts.jsonl"
INDEX = "index.faiss"
INDEX_IDS = "index_ids.json"
LOG = "build.log"
FORMAT_VERSION = 2  # 2: the manifest holds checksums (issue 15)
CHECKSUMS = "checksums"
OWNER_NOTE = (
    "OWNER-ONLY, NOT covered by the DP guarantee: the document count and input hash identify the private "
    "input exactly, the wall times depend on the number and lengths of the documents and on cluster "
    "sizes, and the truncation counts on the documents' lengths. Keep this file for your audit trail; "
    "never publish it with the corpus folder."
)


FEW_KEPT_FRACTION = 0.25
"""A corpus "keeps few texts" when fewer than this share of its released texts passed the self-filter."""


def content_warning(num_kept: int, num_texts: int) -> str | None:
    """A warning when a corpus keeps no text or few texts, else None.

    Post-processing of released values only (the counts of released and kept synthetic texts; the
    self-filter is post-processing), so it may be shown to anyone. "Few": fewer than
    :data:`FEW_KEPT_FRACTION` of the released texts.

    Args:
        num_kept: texts kept (retrievable); num_texts: texts released.
    """
    hint = ("more documents, a larger --epsilon or longer texts (--T) help; the rejected texts are in "
            "texts.jsonl with kept: false")
    if num_kept == 0:
        return (f"no synthetic text was kept ({num_kept} of {num_texts}): the corpus is empty of content and a "
                f"query on it has no context to retrieve; {hint}.")
    if num_kept < FEW_KEPT_FRACTION * num_texts:
        return (f"only {num_kept} of {num_texts} synthetic texts were kept: most released texts were rejected "
                f"by the self-filter, so the corpus covers few topics; {hint}.")
    return None


def owner_audit_path(corpus_dir: str | os.PathLike) -> Path:
    """``DIR.owner.json`` beside the corpus folder ``DIR``: the owner-only audit record of a build
    (input fingerprint, wall times; see :data:`OWNER_NOTE`)."""
    d = Path(corpus_dir)
    return d.parent / f"{d.name}.owner.json"


def input_fingerprint(documents: Sequence[Document]) -> dict:
    """Document count and SHA-256 over (id, text) pairs: lets the data owner check which input a
    corpus was built from. Not covered by the DP guarantee (see :data:`OWNER_NOTE`)."""
    h = hashlib.sha256()
    for d in documents:
        h.update(d.id.encode("utf-8") + b"\x00" + d.text.encode("utf-8") + b"\x01")
    return {"documents": len(documents), "sha256": h.hexdigest()}


def file_sha256(path: str | os.PathLike) -> str:
    """SHA-256 (hex) of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def manifest_sha256(manifest: dict) -> str:
    """SHA-256 (hex) of a manifest's canonical JSON (sorted keys, no spaces), ``checksums`` left out."""
    body = {k: v for k, v in manifest.items() if k != CHECKSUMS}
    return hashlib.sha256(
        json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    ).hexdigest()


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
                ``kept`` (bool); other fields (e.g. ``keyword``) are kept as given. Only released values.
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
        VectorIndex(vectors).save(self.partial / INDEX)
        (self.partial / INDEX_IDS).write_text(json.dumps(kept_ids))
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
        **fields,
    ) -> "SyntheticCorpus":
        """The end of every corpus-building method: the budget guard, the common manifest, :meth:`finish`,
        and the owner-only audit record (:func:`owner_audit_path`: input fingerprint, wall times,
        truncation counts).

        Args:
            records: as in :meth:`finish` (released values only).
            method: the method name recorded in the manifest ("dp-synrag", "dp-synth", "aug-pe").
            config: the method's pydantic config (fields ``epsilon``, ``delta``, ``conversion``, ``model``,
                ``embedder``, ``max_document_tokens``).
            report: the build's privacy report.
            lm, embedder: the models used (their names go in the manifest).
            documents: the private input (only its owner-only fingerprint is recorded).
            secure: whether the randomness was cryptographically secure (False: the manifest is marked
                ``not_for_release``).
            timings: stage wall times in seconds; ``total_s`` is added from ``t_start``.
            truncation: one dict per place the private documents were cut (``stage``, ``max_tokens``,
                ``documents_cut``; see :func:`dpsynrag.pipeline.build.truncation_stages`). The manifest gets
                the stages and limits (public); the counts — data-dependent, not DP — go only to the
                owner-only audit record.
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
            "model": {"spec": config.model, "name": lm.name},
            "embedder": {"spec": config.embedder},
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
        audit = owner_audit_path(self.out)
        audit_partial = audit.parent / f".{audit.name}.partial-{os.getpid()}"
        audit_partial.write_text(json.dumps(
            {"note": OWNER_NOTE, "corpus": self.out.name, "input_fingerprint": input_fingerprint(documents),
             "timings": timings, "truncation": list(truncation)}, indent=2,
        ))
        try:
            corpus = self.finish(records, manifest, embedder)
        except BaseException:
            audit_partial.unlink(missing_ok=True)
            raise
        audit_partial.replace(audit)
        return corpus


def _verify_checksums(p: Path, manifest: dict) -> None:
    """The manifest's own checksum and every listed file's (:data:`CHECKSUMS`), else CorpusError."""
    sums = manifest.get(CHECKSUMS)
    files = sums.get("files") if isinstance(sums, dict) else None
    if not isinstance(files, dict) or sums.get("algorithm") != "sha256" or not isinstance(sums.get("manifest"), str):
        raise CorpusError(f"corpus folder {p}: {MANIFEST} has no valid `{CHECKSUMS}` (edited or damaged). Rebuild it.")
    if manifest_sha256(manifest) != sums["manifest"]:
        raise CorpusError(
            f"corpus folder {p}: {MANIFEST} does not match its checksum: it was edited or damaged after the build "
            "(its numbers, e.g. epsilon or not_for_release, cannot be trusted). Rebuild it."
        )
    for name in (TEXTS, INDEX, INDEX_IDS, LOG):
        if name not in files:
            raise CorpusError(f"corpus folder {p}: {MANIFEST} lists no checksum for {name} (edited or damaged). Rebuild it.")
    for name, digest in files.items():
        if not isinstance(name, str) or Path(name).name != name or not (p / name).is_file():
            raise CorpusError(f"corpus folder {p} is incomplete: {name} is missing. Rebuild it.")
        if file_sha256(p / name) != digest:
            raise CorpusError(
                f"corpus folder {p} has a corrupt file {name}: its SHA-256 does not match the manifest's checksum "
                "(the file was modified, truncated or damaged). Rebuild it."
            )


def _check_records(p: Path, manifest: dict, records: list, index_ids) -> None:
    """Records and index ids agree with each other and with the manifest's counts, else CorpusError."""
    for r in records:
        if not (isinstance(r, dict) and isinstance(r.get("id"), int) and isinstance(r.get("text"), str)
                and isinstance(r.get("kept"), bool)):
            raise CorpusError(f"corpus folder {p} has a corrupt file {TEXTS}: a record lacks an integer id, a text or kept.")
    ids = [r["id"] for r in records]
    kept = [r["id"] for r in records if r["kept"]]
    if len(set(ids)) != len(ids):
        raise CorpusError(f"corpus folder {p} has a corrupt file {TEXTS}: duplicate record ids.")
    if not isinstance(index_ids, list) or index_ids != kept:
        raise CorpusError(f"corpus folder {p}: {INDEX_IDS} does not list the kept records of {TEXTS}. Rebuild it.")
    if manifest.get("num_texts") != len(records) or manifest.get("num_kept") != len(kept):
        raise CorpusError(
            f"corpus folder {p}: {TEXTS} holds {len(records)} records ({len(kept)} kept) but {MANIFEST} says "
            f"{manifest.get('num_texts')!r} ({manifest.get('num_kept')!r} kept). Rebuild it."
        )


def _check_privacy(p: Path, manifest: dict) -> None:
    """The privacy report's totals follow from its mechanisms, fit the configured epsilon, and the
    not-for-release flag matches the randomness; else CorpusError."""
    from dpsynrag.privacy.verify import ReportMismatchError, verify_report

    privacy = manifest["privacy"]
    try:
        verify_report(privacy)
    except ReportMismatchError as exc:
        raise CorpusError(f"corpus folder {p}: its privacy report does not add up: {exc} Refusing it.") from None
    config = manifest.get("config") if isinstance(manifest.get("config"), dict) else {}
    if isinstance(config.get("epsilon"), (int, float)):
        spent = privacy["epsilon_tight"] if config.get("conversion") == "cks" else privacy["epsilon"]
        if spent > config["epsilon"] * (1 + 1e-9):
            raise CorpusError(
                f"corpus folder {p}: its privacy report gives epsilon={spent:.6g}, above the configured "
                f"epsilon={config['epsilon']!r}. Refusing it."
            )
    if privacy.get("secure_randomness") is False and not manifest.get("not_for_release"):
        raise CorpusError(f"corpus folder {p}: built with seeded randomness but not marked not_for_release. Refusing it.")


class SyntheticCorpus:
    """A built corpus. Load with :meth:`load`; ask with :meth:`answer`.

    Attributes:
        path: the folder. manifest: the parsed manifest. records: every synthetic text (kept or not).
        texts: the kept texts, in index order. index_ids: their record ids (row i of the index is record
        ``index_ids[i]``).
    """

    def __init__(self, path: Path, manifest: dict, records: list[dict], index: VectorIndex, index_ids: list[int]):
        self.path = path
        self.manifest = manifest
        self.records = records
        self.index = index
        by_id = {r["id"]: r for r in records}
        self.index_ids = list(index_ids)
        self.texts = [by_id[i]["text"] for i in index_ids]
        self._answerer: RAGAnswerer | None = None

    @classmethod
    def load(cls, path: str | os.PathLike) -> "SyntheticCorpus":
        """Open a corpus folder, verifying it first: the checksums of the manifest and of every file,
        the records and index ids, and the privacy report's totals recomputed from its mechanisms
        (:func:`dpsynrag.privacy.verify.verify_report`).

        Raises:
            CorpusError: the folder or one of its files is missing, damaged or edited (a checksum or a
                recomputed total does not match), or its format is unknown.
        """
        p = Path(path)
        if p.is_file():
            raise CorpusError(f"{p} is a file, not a corpus folder (a folder made by `dpsynrag build`).")
        if not p.is_dir():
            raise CorpusError(f"corpus folder {p} does not exist (build one with `dpsynrag build`).")
        if not (p / MANIFEST).is_file():
            raise CorpusError(f"{p} is not a corpus folder: {MANIFEST} is missing (build one with `dpsynrag build`).")
        for name in (TEXTS, INDEX, INDEX_IDS):
            if not (p / name).is_file():
                raise CorpusError(f"corpus folder {p} is incomplete: {name} is missing. Rebuild it.")
        try:
            manifest = json.loads((p / MANIFEST).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CorpusError(f"corpus folder {p} has a corrupt file {MANIFEST}: {exc}") from None
        if not isinstance(manifest, dict):
            raise CorpusError(f"corpus folder {p} has a corrupt file {MANIFEST}: not a JSON object.")
        if manifest.get("format_version") != FORMAT_VERSION:
            raise CorpusError(
                f"corpus folder {p} has format_version {manifest.get('format_version')!r}; "
                f"this dpsynrag reads {FORMAT_VERSION} (format 1 had no checksums: rebuild the corpus)."
            )
        _verify_checksums(p, manifest)
        name = TEXTS
        try:
            records = [json.loads(line) for line in (p / TEXTS).read_text(encoding="utf-8").splitlines() if line]
            name = INDEX_IDS
            index_ids = json.loads((p / INDEX_IDS).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CorpusError(f"corpus folder {p} has a corrupt file {name}: {exc}") from None
        _check_records(p, manifest, records, index_ids)
        if "privacy" in manifest:
            _check_privacy(p, manifest)
        try:
            index = VectorIndex.load(p / INDEX)
        except RuntimeError as exc:  # faiss reports a damaged or foreign file as RuntimeError
            raise CorpusError(f"corpus folder {p} has a corrupt file {INDEX} (not a readable index). Rebuild it.") from exc
        if len(index) != len(index_ids):
            raise CorpusError(f"corpus folder {p}: the index holds {len(index)} vectors for {len(index_ids)} ids.")
        return cls(p, manifest, records, index, index_ids)

    @property
    def content_warning(self) -> str | None:
        """A warning when the corpus keeps no or few texts (:func:`content_warning`), else None."""
        return content_warning(len(self.texts), len(self.records))

    @property
    def privacy_report(self) -> PrivacyReport:
        """The build's privacy report (the guarantee covers everything derived from this corpus)."""
        return PrivacyReport.from_dict(self.manifest["privacy"])

    def answerer(
        self, *, lm=None, embedder=None, top_k: int | None = None, system_prompt: str | None = None, max_new_tokens: int = 64
    ) -> RAGAnswerer:
        """A :class:`RAGAnswerer` over the kept texts. Models default to the ones the corpus was built
        with (the embedder must be the index's: same dimension)."""
        if embedder is None:
            from dpsynrag.models import Embedder

            embedder = Embedder.load(self.manifest["embedder"]["spec"])
        if embedder.dim != self.index.dim:
            raise CorpusError(f"the embedder has dimension {embedder.dim}, the corpus index {self.index.dim}.")
        if lm is None:
            from dpsynrag.models import LanguageModel

            lm = LanguageModel.load(self.manifest["model"]["spec"])
        task = self.manifest["config"].get("task")
        if system_prompt is None or top_k is None:
            default_prompt, default_k = DEFAULT_SYSTEM_PROMPT, 10
            if task:
                from dpsynrag.tasks import get_task

                t = get_task(task)
                default_prompt, default_k = t.answer_system_prompt, t.rag_top_k
            system_prompt = system_prompt or default_prompt
            top_k = top_k or default_k
        return RAGAnswerer(
            lm, embedder, self.texts, top_k=top_k, system_prompt=system_prompt, max_new_tokens=max_new_tokens, index=self.index
        )

    def retrieve(self, question: str, *, top_k: int = 10) -> list[str]:
        """The ``top_k`` kept synthetic texts most similar to ``question`` (empty when none is kept)."""
        return self._default_answerer(top_k=top_k).retrieve([question])[0][:top_k]

    def answer(self, question: str, *, top_k: int | None = None) -> str:
        """Answer one question from the corpus (greedy), with the corpus's model and embedder.

        Raises:
            CorpusError: the corpus keeps no text (see :meth:`answer_many`).
        """
        return self.answer_many([question], top_k=top_k)[0].text

    def answer_many(
        self, questions: Sequence[str], *, top_k: int | None = None, progress: bool = False, lm=None,
        embedder=None, max_new_tokens: int | None = None,
    ) -> list[Answer]:
        """Answers with their retrieved context, one per question.

        ``lm``: the answering model (a :class:`~dpsynrag.models.LanguageModel` or an endpoint,
        :class:`~dpsynrag.models.endpoint.OpenAIChatModel`); None: the model the corpus was built with.
        ``embedder``: the retrieval embedder (an :class:`~dpsynrag.models.Embedder` of the index's
        dimension); None: the corpus's. ``max_new_tokens``: the greedy answer length (default 64).

        Raises:
            CorpusError: the corpus keeps no text: there is no context to retrieve, and an answer would
                come from the model's prior alone (checked before any model is loaded). For that
                baseline on purpose use :meth:`answerer` (a :class:`RAGAnswerer` without texts is
                Non-RAG).
            ConfigError: ``top_k`` or ``max_new_tokens`` < 1.
            CorpusError: ``embedder`` has another dimension than the index.
        """
        if not self.texts:
            raise CorpusError(
                f"corpus {self.path} keeps no synthetic text ({len(self.records)} released, 0 kept): there is no "
                "context to retrieve, so an answer would come from the model alone. Rebuild it (more documents, "
                "a larger --epsilon, longer texts --T)."
            )
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
            raise ConfigError(f"`top_k` (--top-k) must be an integer >= 1. Found {top_k!r}.")
        if embedder is not None or max_new_tokens is not None:
            from dpsynrag.checks import check_int

            length = {} if max_new_tokens is None else {"max_new_tokens": check_int("max_new_tokens", max_new_tokens)}
            answerer = self.answerer(lm=lm, embedder=embedder, top_k=top_k, **length)
        else:
            answerer = self._default_answerer(top_k=top_k, lm=lm)
        return answerer.answer(questions, progress=progress)

    def _default_answerer(self, *, top_k: int | None, lm=None) -> RAGAnswerer:
        if self._answerer is None or (lm is not None and self._answerer.lm is not lm):
            self._answerer = self.answerer(lm=lm)
        if top_k is not None and top_k != self._answerer.top_k:
            a = self._answerer
            return RAGAnswerer(
                a.lm, a.embedder, a.texts, top_k=top_k, system_prompt=a.system_prompt,
                max_new_tokens=a.max_new_tokens, index=a.index,
            )
        return self._answerer
