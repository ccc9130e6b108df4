"""Growing collections: extend a corpus with a build on new documents only (``dpsynrag build NEW_DOCS
--extend CORPUS --out CORPUS2``; issue 30, part 2).

:func:`extend_corpus` builds a corpus from the new documents alone, with the same method, language model,
embedder and task as the earlier corpus (else refused), and writes a corpus holding the earlier corpus's
synthetic texts and the new ones: one index over both, one manifest whose ``builds`` lists every build's
configuration and privacy report, and whose ``privacy`` report composes them all.

Privacy (per privacy unit: a document, or a person with ``--privacy-unit-field``):

* **Units already built are left out.** Before anything is loaded or drawn, every new document whose unit
  fingerprint (keyed hash of its text, or of its person key, in normal form, under today's rule or an earlier
  one; :func:`~dpsynrag.privacy.fingerprints.fingerprints_under_every_rule`) is in the earlier builds' owner-only
  record (``CORPUS.owner.json``; :func:`~dpsynrag.corpus.format.owner_fingerprints`) is dropped from the
  new build: a document built
  before, or with ``--privacy-unit-field`` every document of a person the corpus already holds (a known
  person's later notes need a rebuild of the whole collection). The new build reads, and the ledger charges
  (kind ``"extension"``, :mod:`dpsynrag.privacy.ledger`), only the remaining units; the number dropped goes
  to the new owner record (``extension``) and the console, a count, never text. When every unit is already
  built the extension is refused (nothing read, nothing spent).
* **Why the released corpus's guarantee is unchanged.** Let O be the units of the earlier builds and N
  those of the new input; the new build is a DP release, with its own (ε, δ), over the documents of N ∖ O.
  Which documents are dropped depends on O only through the owner record's fingerprints (owner-only, never
  released, never the earlier private data), and it is itself never released: the corpus folder holds
  neither the count nor which ones. Adding or removing one unit u of the collection (O and N together)
  changes each build's input by at most u, and when u is in O the new build's input does not change at all
  (u is dropped either way). So every unit changes one build only: the builds read disjoint sets of units,
  and the corpus is (max ε_i, max δ_i)-DP for each of them (parallel composition; McSherry 2009, PINQ,
  Theorem 4): the manifest's ``guarantee.one_build``. ``guarantee.several_builds`` — the builds composed
  in zCDP, ρ adds (Bun & Steinke 2016, Lemma 2.3), the manifest's ``privacy`` report — stays stated as the
  bound for a unit that did reach several builds (read again by an extension of an earlier dpsynrag, or one
  person's notes under two unit keys).

Refused before anything is loaded or drawn: an earlier corpus that fails its checks (checksums, privacy
report; :meth:`~dpsynrag.corpus.SyntheticCorpus.load`), a missing owner record, one without fingerprints
or whose fingerprint list fails its checksum (:func:`~dpsynrag.corpus.format.fingerprints_sha256`: an
edited list would let already-built units through unnoticed), a changed method, model, embedder, task or
privacy-unit field (``--privacy-unit-field``), new documents that are all already built.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dpsynrag.corpus.format import (
    FINGERPRINT_ALGORITHMS_READ,
    extension_guarantee,
    fingerprints_sha256,
    owner_audit_path,
    owner_fingerprints,
    sealed_fingerprints,
)
from dpsynrag.corpus.reader import SyntheticCorpus
from dpsynrag.corpus.writer import CorpusWriter
from dpsynrag.errors import ConfigError, CorpusError, DataError
from dpsynrag.methods import get_method
from dpsynrag.privacy.fingerprints import fingerprints_under_every_rule

log = logging.getLogger("dpsynrag.extend")

__all__ = ["describe_guarantee", "extend_corpus", "read_owner_fingerprints"]

# manifest fields of one build kept in the extended manifest's `builds`
_BUILD_FIELDS = ("created", "dpsynrag_version", "method", "config", "model", "embedder", "privacy", "not_for_release",
                 "num_texts", "num_kept", "max_document_tokens", "truncation", "decoding", "vocabulary",
                 "filter_prompt", "redaction")
# manifest fields CorpusWriter.finish sets, or the extension sets itself
_WRITER_FIELDS = ("format_version", "dpsynrag_version", "created", "num_texts", "num_kept", "platform", "checksums",
                  "privacy", "builds", "guarantee", "not_for_release")


def describe_guarantee(manifest: dict) -> str:
    """One line stating an extended corpus's guarantee for both cases (its manifest's ``guarantee``;
    public: no count of who is in which case)."""
    g = manifest["guarantee"]
    one, both = g["one_build"], g["several_builds"]
    return (f"extended corpus, {len(manifest['builds'])} builds: a person (document) in one build only: "
            f"epsilon={one['epsilon']:.4f} (tight {one['epsilon_tight']:.4f}), delta={one['delta']:g}; in several "
            f"builds: epsilon={both['epsilon']:.4f} (tight {both['epsilon_tight']:.4f}), delta={both['delta']:g} "
            "(the report above).")


def read_owner_fingerprints(corpus_dir: str | os.PathLike) -> tuple[dict, dict]:
    """The owner-only record beside ``corpus_dir`` and its ``fingerprints``
    (:func:`~dpsynrag.corpus.format.owner_fingerprints`).

    Raises:
        CorpusError: the record is missing, unreadable, holds no fingerprints (a build made before
            issue 30: rebuild it, or build the new documents as a corpus of their own), or its fingerprint
            list fails its checksum (``sha256``, :func:`~dpsynrag.corpus.format.fingerprints_sha256`).
    """
    path = owner_audit_path(corpus_dir)
    try:
        owner = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CorpusError(
            f"--extend: the owner-only record {path} beside the corpus is missing: it holds the fingerprints of the "
            "documents the corpus was built from, which the extension checks the new documents against. Put it "
            "back beside the corpus folder."
        ) from None
    except (OSError, ValueError) as exc:
        raise CorpusError(f"--extend: cannot read the owner-only record {path}: {type(exc).__name__}.") from None
    fp = owner.get("fingerprints") if isinstance(owner, dict) else None
    ok = (isinstance(fp, dict) and fp.get("algorithm") in FINGERPRINT_ALGORITHMS_READ and isinstance(fp.get("key"), str)
          and len(fp["key"]) == 64 and isinstance(fp.get("fingerprints"), list) and fp.get("unit_kind") in ("document", "unit"))
    if not ok:
        raise CorpusError(
            f"--extend: the owner-only record {path} holds no document fingerprints (the corpus was built by an "
            "older dpsynrag, or the record was edited): the extension cannot tell which new documents are new. "
            "Rebuild the corpus from all documents."
        )
    if fp.get("sha256") != fingerprints_sha256(fp) or fp.get("units") != len(fp["fingerprints"]):
        raise CorpusError(
            f"--extend: the fingerprint list in the owner-only record {path} fails its checksum (sha256): it was "
            "edited or damaged, so the extension cannot tell which new documents the corpus already holds. Restore "
            "the record from your backup, or rebuild the corpus from all documents."
        )
    return owner, fp


def _named(field: str, value, manifest: dict | None = None) -> str:
    """A config value as a message names it: a default model or embedder (None) by its resolved name (the
    one ``manifest`` recorded, else today's offline default), another None as "none"."""
    if value is not None:
        return repr(value)
    if field not in ("model", "embedder"):
        return "none"
    name = ((manifest or {}).get(field) or {}).get("name")
    if name is None:
        from dpsynrag.models import _defaults

        name = _defaults.smollm2_name() if field == "model" else _defaults.minilm_name()
    return f"the default {name!r}"


def _refuse_changes(old: dict, config, method_name: str) -> None:
    """ConfigError when the new build's method, model, embedder or task differs from the earlier corpus's."""
    old_config = old.get("config") if isinstance(old.get("config"), dict) else {}
    changes = []
    if old.get("method") != method_name:
        changes.append(f"method ({old.get('method')!r} before, {method_name!r} now: --method)")
    for field, flag in (("model", "--model"), ("embedder", "--embedder"), ("task", "--task"),
                        ("privacy_unit_field", "--privacy-unit-field")):
        before, now = old_config.get(field), getattr(config, field, None)
        if before != now:
            changes.append(f"{field} ({_named(field, before, old)} before, {_named(field, now)} now: {flag})")
    if changes:
        raise ConfigError(
            "--extend: the new build must use the corpus's method, model, embedder, task and privacy unit, so that "
            f"its texts and index join the corpus's and its documents are counted alike; changed: {'; '.join(changes)}."
        )


def _refuse_loaded(old: dict, lm, embedder) -> None:
    """ConfigError when the loaded models are not the ones the corpus was built with (name, dimension)."""
    before_lm = (old.get("model") or {}).get("name")
    emb = old.get("embedder") or {}
    if before_lm is not None and lm.name != before_lm:
        raise ConfigError(f"--extend: the language model loads as {lm.name!r}; the corpus was built with {before_lm!r}.")
    if (emb.get("name"), emb.get("dim")) != (embedder.name, embedder.dim):
        raise ConfigError(f"--extend: the embedder loads as {embedder.name!r} (dimension {embedder.dim}); the corpus's "
                          f"index was built with {emb.get('name')!r} (dimension {emb.get('dim')!r}).")


def _build_entry(manifest: dict, record_ids: list[int]) -> dict:
    entry = {k: manifest[k] for k in _BUILD_FIELDS if k in manifest}
    entry["record_ids"] = [min(record_ids), max(record_ids)] if record_ids else None
    return entry


def _composed_report(builds: list[dict], neighbouring_relation: str) -> dict:
    """The privacy report of all ``builds`` composed in sequence (ρ and δ terms add; δ's add)."""
    import dataclasses

    from dpsynrag.privacy.events import ComposedEvent
    from dpsynrag.privacy.report import PrivacyReport
    from dpsynrag.privacy.verify import event_from_description

    plan = ComposedEvent(name="extended corpus: every build", events=tuple(
        ComposedEvent(name=f"build {i} ({b.get('method')}, {b.get('created')})",
                      events=tuple(event_from_description(d) for d in b["privacy"]["mechanisms"]))
        for i, b in enumerate(builds, 1)))
    secure = all(b["privacy"].get("secure_randomness") is not False for b in builds)
    report = PrivacyReport.from_plan(plan, delta=sum(b["privacy"]["delta"] for b in builds), secure_randomness=secure,
                                     notes=[f"Extended corpus: {len(builds)} builds composed (the guarantee for a person "
                                            "in several builds; see `guarantee` for a person in one build only)."])
    return dataclasses.replace(
        report, neighbouring_relation=neighbouring_relation,
        composition=("builds on sets of documents: a privacy unit in one build only is covered by that build "
                     "(parallel composition over disjoint sets); a unit in several builds by their zCDP "
                     "composition: rho adds, delta terms add, and the builds' deltas add."),
    ).to_dict()


def extend_corpus(
    method,
    documents,
    corpus_dir: str | os.PathLike,
    out_dir: str | os.PathLike,
    config,
    *,
    lm=None, embedder=None, text_field: str = "text", id_field: str | None = None,
    identifier_fields: Sequence[str] = (), overwrite: bool = False, progress: bool = False, ledger=None,
    **build_options: Any,
) -> SyntheticCorpus:
    """Build a corpus from new ``documents`` only and write ``out_dir``: the corpus ``corpus_dir``'s texts
    and the new ones, one index, one manifest listing both builds (module docstring).

    Args:
        method: the corpus method (a :class:`~dpsynrag.methods.Method` or its name); must be the corpus's.
        documents: the new private documents (Documents, strings, or a JSONL/CSV/Parquet path), read once;
            those of units the corpus already holds are left out (module docstring).
        corpus_dir: the corpus to extend (checked as :meth:`SyntheticCorpus.load`), with its owner-only
            record beside it. out_dir: the extended corpus to write (``corpus_dir`` itself with
            ``overwrite``: replaced once the extension has succeeded).
        config: the new build's config (its own ε, δ; model, embedder and task as the corpus's).
        lm, embedder: loaded models (else loaded here, before the build, and checked against the corpus's).
        text_field, id_field, identifier_fields: as for a build. The documents' privacy units are read as the
            build reads them (``config.privacy_unit_field``, or each Document's ``unit``); they must be the
            same kind of unit as the corpus's (persons, or documents).
        overwrite, progress, ledger, build_options: as for the method's build.

    Returns:
        The extended :class:`SyntheticCorpus` (manifest ``builds``, ``guarantee``, ``privacy``).

    Raises:
        CorpusError: ``corpus_dir`` fails its checks, or its owner record is missing, has no fingerprints
            or fails their checksum.
        ConfigError: a changed method, model, embedder or task, another kind of privacy unit, ``resume``.
        DataError: every new document (unit) is already built into ``corpus_dir`` (nothing read or spent).
        PrivacyBudgetExceededError: the new build would exceed a lifetime budget (nothing drawn).
        As the method's build otherwise.
    """
    from dpsynrag.data.io import as_documents
    from dpsynrag.pipeline.checkpoint import work_folder

    t_start = time.time()
    method = get_method(method) if isinstance(method, str) else method
    if build_options.get("resume"):
        raise ConfigError("--resume does not apply to --extend: an interrupted extension is started again.")
    try:
        old = SyntheticCorpus.load(corpus_dir)
    except CorpusError as exc:
        raise CorpusError(f"--extend {corpus_dir}: {exc}") from None
    old_manifest = old.manifest
    _refuse_changes(old_manifest, config, method.name)
    writer = CorpusWriter(out_dir, overwrite=overwrite)  # an existing --out is refused here, before anything loads
    old_owner, old_fp = read_owner_fingerprints(corpus_dir)
    docs = as_documents(documents, text_field=text_field, id_field=id_field, identifier_fields=identifier_fields,
                        unit_field=getattr(config, "privacy_unit_field", None))
    key = bytes.fromhex(old_fp["key"])
    new_fp = owner_fingerprints(docs, key=key)
    if new_fp["unit_kind"] != old_fp["unit_kind"]:
        raise ConfigError(f"--extend: the corpus was built per {old_fp['unit_kind']} and the new documents are read "
                          f"per {new_fp['unit_kind']}: use the same privacy unit (--privacy-unit-field) as the corpus.")
    earlier = set(old_fp["fingerprints"])
    # a document is left out when its unit is in an earlier build under today's rule (text and person key in
    # normal form) or under the rule of owner records written before (issue 42's normal form; the exact text
    # before it): conservative, a text not in today's normal form has several fingerprints and any keeps it out
    by_rule = fingerprints_under_every_rule(docs, key)
    already = [any(f.hex() in earlier for f in fps) for fps in by_rule]
    kept = [d for d, a in zip(docs, already) if not a]  # units already built: left out
    dropped_units = len({fps[0] for fps, a in zip(by_rule, already) if a})
    kind = new_fp["unit_kind"]
    if not kept:
        raise DataError(
            f"--extend: all {new_fp['units']} {kind}(s) of the new documents are already built into {corpus_dir} "
            "(their fingerprints are in its owner-only record): nothing new to build; nothing was read or spent."
        )
    config.calibrate()  # an infeasible budget stops here, before any model loads
    if embedder is None:
        from dpsynrag.models import Embedder

        embedder = Embedder.load(config.embedder)
    if lm is None:
        from dpsynrag.models import LanguageModel

        lm = LanguageModel.load(config.model)
    _refuse_loaded(old_manifest, lm, embedder)

    out = Path(out_dir)
    with writer:  # holds the lock of out_dir throughout
        work = writer.lock_path.parent / f".{out.resolve().name}.extension-{os.getpid()}"  # the new build alone
        label = str(work.resolve())
        try:
            new = method.build(kept, work, config, lm=lm, embedder=embedder, identifier_fields=identifier_fields,
                               overwrite=False, progress=progress, ledger=ledger, **build_options)
            new_owner = json.loads(owner_audit_path(work).read_text(encoding="utf-8"))
        finally:
            if ledger is not None:  # the release is the extension's, under its own folder
                for release in ledger.releases():
                    if release.label == label:
                        ledger.relabel(release.id, label=str(out.resolve()), kind="extension")
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(work_folder(work), ignore_errors=True)
            owner_audit_path(work).unlink(missing_ok=True)
        offset = max((r["id"] for r in old.records), default=-1) + 1
        old_builds = old_manifest.get("builds") or [_build_entry(old_manifest, [r["id"] for r in old.records])]
        records = [{**r, "build": r.get("build", 0)} for r in old.records]
        added = [{**r, "id": r["id"] + offset, "build": len(old_builds)} for r in new.records]
        builds = [*old_builds, _build_entry(new.manifest, [r["id"] for r in added])]
        privacy = _composed_report(builds, new.manifest["privacy"].get("neighbouring_relation", ""))
        manifest = {k: v for k, v in new.manifest.items() if k not in _WRITER_FIELDS}
        manifest.update(privacy=privacy, builds=builds, guarantee=extension_guarantee(builds, privacy),
                        not_for_release=any(b.get("not_for_release") for b in builds))
        union = sorted(earlier.union(new_fp["fingerprints"]))
        owner = {
            "fingerprints": sealed_fingerprints({**new_fp, "fingerprints": union}),
            "extension": {"input_units": new_fp["units"], "dropped_units": dropped_units,
                          "dropped_documents": len(docs) - len(kept), "new_units": new_fp["units"] - dropped_units,
                          "unit_kind": kind},
            "builds": [*(old_owner.get("builds") or [{k: v for k, v in old_owner.items()
                                                       if k not in ("note", "corpus", "fingerprints")}]),
                       {k: v for k, v in new_owner.items() if k not in ("note", "corpus", "fingerprints")}],
            "timings": {"extension_total_s": time.time() - t_start},
        }
        log.info("extended corpus: build %d added %d synthetic texts to %d", len(builds), len(added), len(records))
        return writer.finish_with_owner(records + added, manifest, embedder, owner)
