"""Issue 15 (0): one build per --out at a time (an OS lock), killed builds' partial folders reported,
checksums in the manifest, the privacy report recomputed from its mechanisms, and every damaged or
edited corpus refused with a clear CorpusError (never a traceback)."""

from __future__ import annotations

import json
import logging
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.corpus import CorpusWriter, SyntheticCorpus
from dpsynrag.corpus.format import CHECKSUMS, INDEX, MANIFEST, TEXTS, file_sha256, manifest_sha256
from dpsynrag.errors import BuildInProgressError, CorpusError
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.privacy.conversions import epsilon_from_rho
from dpsynrag.privacy.report import PrivacyReport
from dpsynrag.privacy.verify import ReportMismatchError, verify_report

runner = CliRunner()


class OnesEmbedder:
    name, dim = "ones", 4

    def encode(self, texts):
        v = np.ones((len(texts), self.dim), np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


RECORDS = [
    {"id": 0, "keyword": "fever", "noisy_count": 12, "text": "a synthetic note", "kept": True},
    {"id": 1, "keyword": "rash", "noisy_count": 9, "text": "", "kept": False},
    {"id": 2, "keyword": "cough", "noisy_count": 7, "text": "another synthetic note", "kept": True},
]


def _corpus(out, *, secure=True):
    """A corpus folder with the real privacy report of a DP-SynRAG plan (no model needed)."""
    config = BuildConfig(epsilon=10, delta=1e-3, K=5, R=3, L=2, k=10, T=5)
    cal = config.calibrate()
    report = PrivacyReport.from_plan(config.plan(cal), delta=config.delta, parameters=cal.to_dict(), secure_randomness=secure)
    manifest = {"method": "dp-synrag", "config": config.model_dump(), "model": {"spec": None, "name": "m"},
                "privacy": report.to_dict(), "not_for_release": not secure}
    with CorpusWriter(out) as w:
        return w.finish(RECORDS, manifest, OnesEmbedder())


def _edit_manifest(out, change, *, fix_checksum):
    m = json.loads((out / MANIFEST).read_text())
    change(m)
    if fix_checksum:  # an editor who also recomputes the manifest's own checksum
        m[CHECKSUMS]["manifest"] = manifest_sha256(m)
    (out / MANIFEST).write_text(json.dumps(m, indent=2))


def _refused(out, match):
    with pytest.raises(CorpusError, match=match):
        SyntheticCorpus.load(out)
    result = runner.invoke(app, ["report", str(out)])  # the CLI: exit 2 with the message, no traceback
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert "error:" in result.output and "Traceback" not in result.output


# -- checksums and recomputed totals -----------------------------------------------------------------


def test_a_verified_corpus_loads_and_its_totals_are_recomputed(tmp_path):
    corpus = _corpus(tmp_path / "c")
    m = corpus.manifest
    assert set(m[CHECKSUMS]["files"]) == {"texts.jsonl", "index.faiss", "index_ids.json", "build.log"}
    assert m[CHECKSUMS]["manifest"] == manifest_sha256(m)
    totals = verify_report(m["privacy"])
    assert totals["rho_total"] == pytest.approx(m["privacy"]["rho_total"], rel=1e-12)
    # closed form of the Bun–Steinke conversion at delta − delta terms (no δ terms here)
    rho, delta = totals["rho_total"], m["privacy"]["delta"]
    assert totals["delta_terms"] == 0.0
    assert totals["epsilon"] == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / delta)), rel=1e-12)
    assert totals["epsilon_tight"] < totals["epsilon"] <= 10
    result = runner.invoke(app, ["report", str(tmp_path / "c"), "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["epsilon"] == m["privacy"]["epsilon"]


def test_recomputation_is_exact_for_a_gaussian(tmp_path):
    report = {"mechanisms": [{"mechanism": "gaussian", "name": "g", "l2_sensitivity": 1.0, "sigma": 2.0, "rho": 0.125,
                              "delta": 0.0}], "delta": 1e-5}
    totals = verify_report({**report, "rho_total": 0.125, "delta_terms": 0.0,
                            "epsilon": 0.125 + 2 * math.sqrt(0.125 * math.log(1e5)),
                            "epsilon_tight": epsilon_from_rho(0.125, 1e-5, conversion="cks")})
    assert totals["rho_total"] == 0.125
    bad = json.loads(json.dumps(report))
    bad["mechanisms"][0]["sigma"] = 20.0  # the parameter no longer gives the stated rho
    with pytest.raises(ReportMismatchError, match="states rho=0.125 but its parameters give rho=0.00125"):
        verify_report({**bad, "rho_total": 0.125})


def test_truncated_index_is_refused(tmp_path):
    out = tmp_path / "c"
    _corpus(out)
    data = (out / INDEX).read_bytes()
    (out / INDEX).write_bytes(data[: len(data) // 2])
    _refused(out, f"corrupt file {INDEX}: its SHA-256 does not match")
    # with its checksum "fixed": faiss cannot read it, still a clear error
    _edit_manifest(out, lambda m: m[CHECKSUMS]["files"].update({INDEX: file_sha256(out / INDEX)}), fix_checksum=True)
    _refused(out, f"corrupt file {INDEX}")


def test_missing_texts_line_is_refused(tmp_path):
    out = tmp_path / "c"
    _corpus(out)
    lines = (out / TEXTS).read_text().splitlines(keepends=True)
    (out / TEXTS).write_text("".join(lines[:1] + lines[2:]))  # the record with id 1 is gone
    _refused(out, f"corrupt file {TEXTS}: its SHA-256 does not match")
    _edit_manifest(out, lambda m: m[CHECKSUMS]["files"].update({TEXTS: file_sha256(out / TEXTS)}), fix_checksum=True)
    _refused(out, "holds 2 records")
    (out / TEXTS).write_text("".join(lines[:2]))  # a kept record gone: the index ids name a missing record
    _edit_manifest(out, lambda m: m[CHECKSUMS]["files"].update({TEXTS: file_sha256(out / TEXTS)}), fix_checksum=True)
    _refused(out, "does not list the kept records")


def test_hand_edited_manifest_is_refused(tmp_path):
    out = tmp_path / "c"
    _corpus(out)
    _edit_manifest(out, lambda m: m["privacy"].update(epsilon=0.1), fix_checksum=False)
    _refused(out, f"{MANIFEST} does not match its checksum")
    # the checksum recomputed too: the totals no longer follow from the mechanisms
    _edit_manifest(out, lambda m: None, fix_checksum=True)
    _refused(out, r"states epsilon=0.1 but its mechanisms give epsilon=")


def test_edited_privacy_report_is_refused(tmp_path):
    out = tmp_path / "c"
    _corpus(out)
    original = json.loads((out / MANIFEST).read_text())

    def more_noise(m):  # claim the histogram had 10x the noise (a smaller rho) and lower every total
        hist = m["privacy"]["mechanisms"][0]
        hist["sigma"] *= 10
        hist["rho"] /= 100

    _edit_manifest(out, more_noise, fix_checksum=True)
    _refused(out, "does not add up")
    (out / MANIFEST).write_text(json.dumps(original))

    def drop_a_mechanism(m):  # remove a mechanism but keep the totals
        m["privacy"]["mechanisms"] = m["privacy"]["mechanisms"][:1]

    _edit_manifest(out, drop_a_mechanism, fix_checksum=True)
    _refused(out, "states rho_total=")


def test_removed_not_for_release_flag_is_refused(tmp_path):
    out = tmp_path / "c"
    _corpus(out, secure=False)
    assert SyntheticCorpus.load(out).manifest["not_for_release"] is True
    _edit_manifest(out, lambda m: m.update(not_for_release=False), fix_checksum=False)
    _refused(out, "does not match its checksum")
    _edit_manifest(out, lambda m: None, fix_checksum=True)
    _refused(out, "seeded randomness but not marked not_for_release")


# -- one build per --out -------------------------------------------------------------------------------

_HOLDER = """
import os, sys, time
import numpy as np
from dpsynrag.corpus import CorpusWriter

class E:
    name, dim = "ones", 4
    def encode(self, texts):
        return np.ones((len(texts), 4), np.float32) / 2

out, ready, go = sys.argv[1:4]
with CorpusWriter(out) as w:
    open(ready, "w").close()
    while not os.path.exists(go):
        time.sleep(0.05)
    w.finish([{"id": 0, "text": "t", "kept": True}], {"method": "first"}, E())
"""

_SECOND = """
import sys
from dpsynrag.corpus import CorpusWriter
from dpsynrag.errors import BuildInProgressError
try:
    with CorpusWriter(sys.argv[1]):
        pass
except BuildInProgressError as exc:
    print("REFUSED", exc)
    sys.exit(3)
"""


def _wait_for(path, proc):
    for _ in range(2400):  # up to ~2 min for the interpreter and imports; not a timing assertion
        if path.exists() or proc.poll() is not None:
            break
        time.sleep(0.05)
    assert path.exists(), proc.communicate()[1] if proc.poll() is not None else "holder did not start"


def test_a_second_build_to_the_same_out_is_refused_while_the_first_runs(tmp_path):
    out, ready, go = tmp_path / "c", tmp_path / "ready", tmp_path / "go"
    first = subprocess.Popen([sys.executable, "-c", _HOLDER, str(out), str(ready), str(go)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(ready, first)
        second = subprocess.run([sys.executable, "-c", _SECOND, str(out)], capture_output=True, text=True, timeout=300)
        assert second.returncode == 3, second.stderr
        assert "another build is writing the corpus folder" in second.stdout and "--out" in second.stdout
        go.touch()
        assert first.wait(timeout=300) == 0, first.stderr.read()
    finally:
        if first.poll() is None:
            first.kill()
    assert json.loads((out / MANIFEST).read_text())["method"] == "first"  # the first build's corpus, intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c", "go", "ready"]  # no lock file or partial left


def test_lock_in_one_process_and_through_the_cli(tmp_path):
    data = tmp_path / "notes.jsonl"
    data.write_text("".join(json.dumps({"text": f"patient {i} has fever and cough"}) + "\n" for i in range(5)))
    out = tmp_path / "c"
    with CorpusWriter(out):
        with pytest.raises(BuildInProgressError, match="another build is writing"):
            CorpusWriter(out).__enter__()
        result = runner.invoke(app, ["build", str(data), "--out", str(out), "--epsilon", "10", "--delta", "1e-3",
                                     "--no-self-filter", "--R", "3", "--T", "5"])
        assert result.exit_code == 2, result.output
        assert "another build is writing the corpus folder" in " ".join(result.output.split())
    with CorpusWriter(out) as w:  # released: a new build may start
        w.finish(RECORDS[:1], {"method": "test"}, OnesEmbedder())


def test_a_sigkilled_build_releases_its_lock_and_its_partial_folder_is_reported(tmp_path, caplog):
    out, ready = tmp_path / "c", tmp_path / "ready"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(out), str(ready), str(tmp_path / "never")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(ready, holder)
    partial = tmp_path / f".c.partial-{holder.pid}"
    assert partial.is_dir()
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=60)
    assert partial.is_dir()  # SIGKILL: no chance to clean up
    with caplog.at_level(logging.WARNING, logger="dpsynrag.corpus"):
        with CorpusWriter(out) as w:  # the OS released the dead process's lock
            w.finish(RECORDS[:1], {"method": "test"}, OnesEmbedder())
    assert not partial.exists()
    assert any(str(partial) in r.getMessage() and "was killed" in r.getMessage() for r in caplog.records)
