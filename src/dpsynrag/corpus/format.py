"""The on-disk format of a corpus folder (:mod:`dpsynrag.corpus` describes the layout): its file names,
checksums, the owner-only audit record beside it (with the keyed fingerprints of the input's documents or
privacy units, :func:`owner_fingerprints`), the guarantee of an extended corpus
(:func:`extension_guarantee`), and the integrity checks :meth:`~dpsynrag.corpus.SyntheticCorpus.load`
runs before it trusts a folder."""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
    "sizes, and the truncation counts on the documents' lengths. The fingerprints are keyed hashes of each "
    "document's text (or privacy-unit key) with the key stored here: whoever holds this file can test whether "
    "a given text or unit key was in the input. Keep this file for your audit trail and for extending the "
    "corpus (dpsynrag build --extend); never publish it with the corpus folder."
)
FINGERPRINT_ALGORITHM = "hmac-sha256-128/compatibility-text"
"""The owner record's fingerprints: HMAC-SHA256 cut to 128 bits of each unit's text or person key in normal
form (:mod:`dpsynrag.textkeys`; issues 42 and 53)."""
FINGERPRINT_ALGORITHMS_READ = (FINGERPRINT_ALGORITHM, "hmac-sha256-128/normalized-text", "hmac-sha256-128")
"""Algorithms ``--extend`` reads: today's, issue 42's normal form (records written from issue 42 to 53) and
the exact-text fingerprints of records written before issue 42 (an extension checks each new document under
every rule, :func:`~dpsynrag.privacy.fingerprints.fingerprints_under_every_rule`, so any kind of record keeps
its documents out; an extension's record keeps the earlier fingerprints it unites, of whichever rule)."""


def owner_audit_path(corpus_dir: str | os.PathLike) -> Path:
    """``DIR.owner.json`` beside the corpus folder ``DIR``: the owner-only audit record of a build
    (input fingerprint, wall times; see :data:`OWNER_NOTE`)."""
    d = Path(corpus_dir)
    return d.parent / f"{d.name}.owner.json"


def input_fingerprint(documents: Sequence[Document]) -> dict:
    """Document count and SHA-256 over (id, text) pairs — (id, text, privacy-unit key) for documents with
    a ``unit`` (``--privacy-unit-field``), so a regrouping is another input (``--resume`` refuses it): lets
    the data owner check which input a corpus was built from. Not covered by the DP guarantee (see
    :data:`OWNER_NOTE`)."""
    h = hashlib.sha256()
    for d in documents:
        h.update(d.id.encode("utf-8") + b"\x00" + d.text.encode("utf-8") + b"\x01")
        unit = getattr(d, "unit", None)
        if unit is not None:
            h.update(b"\x02" + str(unit).encode("utf-8", "surrogatepass") + b"\x03")
    return {"documents": len(documents), "sha256": h.hexdigest()}


def owner_fingerprints(documents: Sequence[Document], *, key: bytes | None = None,
                       unit_ids: Sequence[Any] | None = None, extra: Sequence[str] = ()) -> dict:
    """The owner record's ``fingerprints``: the keyed fingerprints of the input's privacy units
    (:func:`~dpsynrag.privacy.fingerprints.unit_fingerprints`: HMAC-SHA256 cut to 128 bits, of each document's
    unit key, or of its whole text's SHA-256 without units), sorted, in hex; never any text.

    Args:
        documents: the private input. key: the HMAC key (32 bytes; None: a new one from the OS's secure
            generator); an extension keeps its corpus's key, so its fingerprints stay comparable.
        unit_ids: one unit key per document (None: the documents' ``unit``, else the document itself).
        extra: fingerprints (hex) of earlier builds to keep with these (an extension's union).

    Returns:
        ``{"algorithm", "key", "unit_kind" ("document" or "unit"), "units" (count), "fingerprints", "sha256"}``
        (``sha256``: :func:`fingerprints_sha256` of the rest).
    """
    from dpsynrag.privacy.fingerprints import scan_collection

    key = secrets.token_bytes(32) if key is None else key
    _, units, with_units = scan_collection(documents, key, unit_ids=unit_ids)
    fps = sorted({u.hex() for u in units} | set(extra))
    return sealed_fingerprints({"algorithm": FINGERPRINT_ALGORITHM, "key": key.hex(),
                                "unit_kind": "unit" if with_units else "document", "units": len(fps),
                                "fingerprints": fps})


def fingerprints_sha256(fingerprints: dict) -> str:
    """SHA-256 (hex) of an owner record's ``fingerprints`` without its ``sha256`` field (canonical JSON:
    sorted keys, no spaces), the checksum ``dpsynrag build --extend`` checks before it trusts the list.

    Like the corpus folder's checksums it detects an edited or damaged list (a fingerprint removed by hand
    would let the extension read that document again unnoticed), not a forger who recomputes it."""
    body = {k: v for k, v in fingerprints.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def sealed_fingerprints(fingerprints: dict) -> dict:
    """``fingerprints`` (an owner record's, :func:`owner_fingerprints`) with ``units`` set to its count and
    its checksum ``sha256`` (:func:`fingerprints_sha256`) set."""
    body = {k: v for k, v in fingerprints.items() if k != "sha256"}
    body["units"] = len(body["fingerprints"])
    return {**body, "sha256": fingerprints_sha256(body)}


def extension_guarantee(builds: Sequence[dict], composed: dict) -> dict:
    """The guarantee of a corpus made of several builds (``dpsynrag build --extend``), for both cases.

    A privacy unit (document, or person with ``--privacy-unit-field``) whose documents are in one build
    only changes one build's output: the builds read disjoint sets of such units, so (parallel
    composition; McSherry 2009, PINQ, Theorem 4) the corpus is (max ε_i, max δ_i)-DP for it. A unit in
    several builds changes each of them: they compose (zCDP, ρ adds; Bun & Steinke 2016, Lemma 2.3), at
    most the composition of all builds, ``composed`` (the manifest's ``privacy`` report). Which units are
    in which case is owner-only (the owner record's ``extension`` counts).

    Args:
        builds: the manifest's ``builds`` (each with its ``privacy`` report). composed: the report of all
            builds composed (a dict with ``rho_total``, ``delta``, ``epsilon``, ``epsilon_tight``).
    """
    reports = [b["privacy"] for b in builds]
    return {
        "one_build": {"epsilon": max(r["epsilon"] for r in reports),
                      "epsilon_tight": max(r["epsilon_tight"] for r in reports),
                      "delta": max(r["delta"] for r in reports)},
        "several_builds": {"rho": composed["rho_total"], "delta": composed["delta"], "epsilon": composed["epsilon"],
                           "epsilon_tight": composed["epsilon_tight"]},
        "statement": (
            f"{len(builds)} builds on sets of documents. A person (privacy unit) whose documents are in one build "
            "only: parallel composition, the guarantee of that build (at most `one_build`). A person in several "
            "builds: the builds compose, rho adds (at most `several_builds`, the `privacy` report). How many "
            "units are in each case is known to the data owner only."
        ),
    }


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
    if "builds" in manifest:
        _check_builds(p, manifest)
        return
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


def _check_builds(p: Path, manifest: dict) -> None:
    """An extended corpus: every build's report adds up and fits its configured ε, the ``privacy`` report
    composes them all (ρ and δ add), and ``guarantee`` is :func:`extension_guarantee`; else CorpusError."""
    from dpsynrag.privacy.verify import ReportMismatchError, verify_report

    builds, privacy = manifest["builds"], manifest["privacy"]
    if not isinstance(builds, list) or len(builds) < 2 or not all(isinstance(b, dict) for b in builds):
        raise CorpusError(f"corpus folder {p}: its `builds` are not a list of at least two builds. Refusing it.")
    for i, build in enumerate(builds, 1):
        if not isinstance(build.get("privacy"), dict):
            raise CorpusError(f"corpus folder {p}: build {i} has no privacy report. Refusing it.")
        try:
            verify_report(build["privacy"])
        except ReportMismatchError as exc:
            raise CorpusError(f"corpus folder {p}: the privacy report of build {i} does not add up: {exc} "
                              "Refusing it.") from None
        config = build.get("config") if isinstance(build.get("config"), dict) else {}
        spent = build["privacy"]["epsilon_tight" if config.get("conversion") == "cks" else "epsilon"]
        if not isinstance(config.get("epsilon"), (int, float)) or spent > config["epsilon"] * (1 + 1e-9):
            raise CorpusError(f"corpus folder {p}: build {i} reports epsilon={spent:.6g}, above its configured "
                              f"epsilon={config.get('epsilon')!r}. Refusing it.")
    for key in ("rho_total", "delta"):
        total = math.fsum(b["privacy"][key] for b in builds)
        if not math.isclose(privacy[key], total, rel_tol=1e-9):
            raise CorpusError(f"corpus folder {p}: its privacy report states {key}={privacy[key]!r}, not the sum "
                              f"of its builds' ({total!r}). Refusing it.")
    if manifest.get("guarantee") != extension_guarantee(builds, privacy):
        raise CorpusError(f"corpus folder {p}: its `guarantee` does not follow from its builds' reports. Refusing it.")
    if any(b["privacy"].get("secure_randomness") is False for b in builds) and not manifest.get("not_for_release"):
        raise CorpusError(f"corpus folder {p}: a build used seeded randomness but the corpus is not marked "
                          "not_for_release. Refusing it.")
