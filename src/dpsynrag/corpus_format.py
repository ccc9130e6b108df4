"""The on-disk format of a corpus folder (:mod:`dpsynrag.corpus` describes the layout): its file names,
checksums, the owner-only audit record beside it, and the integrity checks
:meth:`~dpsynrag.corpus.SyntheticCorpus.load` runs before it trusts a folder."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from dpsynrag.data.io import Document
from dpsynrag.errors import CorpusError

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


def verify_checksums(p: Path, manifest: dict) -> None:
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


def index_entries(records: list[dict]) -> list[int]:
    """The record id of each row of the index: every kept record, in order, ``copies`` times (default 1)."""
    return [r["id"] for r in records if r["kept"] for _ in range(r.get("copies", 1))]


def check_records(p: Path, manifest: dict, records: list, index_ids) -> None:
    """Records and index ids agree with each other and with the manifest's counts, else CorpusError."""
    for r in records:
        if not (isinstance(r, dict) and isinstance(r.get("id"), int) and isinstance(r.get("text"), str)
                and isinstance(r.get("kept"), bool)):
            raise CorpusError(f"corpus folder {p} has a corrupt file {TEXTS}: a record lacks an integer id, a text or kept.")
        copies = r.get("copies", 1)
        if isinstance(copies, bool) or not isinstance(copies, int) or copies < 1:
            raise CorpusError(f"corpus folder {p} has a corrupt file {TEXTS}: a record's copies is not an integer >= 1.")
    ids = [r["id"] for r in records]
    kept = [r["id"] for r in records if r["kept"]]
    if len(set(ids)) != len(ids):
        raise CorpusError(f"corpus folder {p} has a corrupt file {TEXTS}: duplicate record ids.")
    if not isinstance(index_ids, list) or index_ids != index_entries(records):
        raise CorpusError(f"corpus folder {p}: {INDEX_IDS} does not list the kept records of {TEXTS} (each `copies` times). Rebuild it.")
    if manifest.get("num_texts") != len(records) or manifest.get("num_kept") != len(kept):
        raise CorpusError(
            f"corpus folder {p}: {TEXTS} holds {len(records)} records ({len(kept)} kept) but {MANIFEST} says "
            f"{manifest.get('num_texts')!r} ({manifest.get('num_kept')!r} kept). Rebuild it."
        )


def check_privacy(p: Path, manifest: dict) -> None:
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
