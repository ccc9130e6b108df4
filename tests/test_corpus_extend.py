"""Issue 30 (2): growing collections. `build NEW --extend CORPUS --out CORPUS2` builds from the new
documents only and writes one corpus over both builds; documents (persons) already built are found by the
owner record's fingerprints and left out before anything is read or charged (the count for the owner
only); the report states both guarantees; changed models, embedder, task, damaged corpora and edited
fingerprint lists are refused."""

from __future__ import annotations

import hashlib
import json
import math

import pytest
from fakes import HashEmbedder
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.corpus import SyntheticCorpus
from dpsynrag.methods.extend import extend_corpus
from dpsynrag.corpus.format import MANIFEST, manifest_sha256, owner_audit_path
from dpsynrag.data.io import Document
from dpsynrag.errors import ConfigError, CorpusError, DataError
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.privacy.conversions import epsilon_from_rho
from dpsynrag.privacy.ledger import PrivacyLedger

runner = CliRunner()
OLD = ["the patient has fever and cough", "the patient has rash on skin", "the doctor has a test of blood",
       "the patient has pain in the head", "a patient with flu has fever", "the old patient has a bad cough"]
NEW = ["the patient has a broken arm and pain", "a child patient has fever and rash", "the nurse took blood from the patient",
       "the patient has cough at night", "an old patient has pain in the knee", "the patient has a fever after travel"]


def _config(epsilon=10.0, **kw):
    return BuildConfig(epsilon=epsilon, delta=1e-3, K=3, R=2, L=1, k=2, T=2, extractor="rarity", self_filter=False,
                       seed=0, **kw)


@pytest.fixture()
def base(tmp_path, tiny_lm):
    led = PrivacyLedger(tmp_path / "ledger")
    corpus = build_corpus(OLD, tmp_path / "old", _config(), lm=tiny_lm, embedder=HashEmbedder(), ledger=led)
    return corpus, led


def _extend(tmp_path, tiny_lm, led, docs, *, src="old", out="new", config=None, embedder=None, **kw):
    return extend_corpus("dp-synrag", docs, tmp_path / src, tmp_path / out, config or _config(epsilon=8.0),
                         lm=tiny_lm, embedder=embedder or HashEmbedder(), ledger=led, **kw)


def test_extension_holds_both_builds_one_index_and_states_both_guarantees(tmp_path, tiny_lm, base):
    old, led = base
    ext = _extend(tmp_path, tiny_lm, led, NEW)
    m = ext.manifest
    loaded = SyntheticCorpus.load(tmp_path / "new")  # passes every check, the extension's included
    assert loaded.manifest == m
    n_old = len(old.records)
    assert [r["text"] for r in ext.records[:n_old]] == [r["text"] for r in old.records]
    assert [r["build"] for r in ext.records] == [0] * n_old + [1] * (len(ext.records) - n_old)
    assert [r["id"] for r in ext.records] == list(range(len(ext.records)))  # new ids follow the old ones
    assert len(ext.index) == len(ext.index_ids) == sum(r["kept"] for r in ext.records)
    assert [b["config"]["epsilon"] for b in m["builds"]] == [10.0, 8.0]
    assert m["builds"][0]["privacy"] == old.manifest["privacy"]
    assert m["builds"][0]["record_ids"] == [0, n_old - 1] and m["builds"][1]["record_ids"][0] == n_old
    # the guarantee: one build only -> that build's (max); several -> composed (rho adds, deltas add)
    r1, r2 = (b["privacy"] for b in m["builds"])
    assert m["guarantee"]["one_build"]["epsilon"] == max(r1["epsilon"], r2["epsilon"]) == r1["epsilon"]
    assert m["privacy"]["rho_total"] == pytest.approx(r1["rho_total"] + r2["rho_total"], rel=1e-12)
    assert m["privacy"]["delta"] == pytest.approx(2e-3)
    assert m["privacy"]["epsilon"] == pytest.approx(epsilon_from_rho(m["privacy"]["rho_total"], 2e-3), rel=1e-9)
    assert m["guarantee"]["several_builds"]["epsilon"] == m["privacy"]["epsilon"] > 10.0
    # the folder holds no overlap count and no fingerprint; the owner record does
    folder = "".join(p.read_text(errors="ignore") for p in (tmp_path / "new").iterdir())
    assert "dropped" not in folder and "fingerprints" not in folder
    owner = json.loads(owner_audit_path(tmp_path / "new").read_text())
    assert owner["extension"] == {"input_units": 6, "dropped_units": 0, "dropped_documents": 0, "new_units": 6,
                                  "unit_kind": "document"}
    assert owner["fingerprints"]["units"] == 12 and len(owner["builds"]) == 2
    assert owner["fingerprints"]["key"] == json.loads(owner_audit_path(tmp_path / "old").read_text())["fingerprints"]["key"]
    # the ledger: the extension is recorded, on the new documents only (disjoint: parallel composition)
    assert [r.kind for r in led.releases()] == ["build", "extension"]
    assert led.releases()[1].label == str((tmp_path / "new").resolve())
    u = led.unit_totals()
    assert u["units"] == 12 and u["at_max"] == 6 and u["max"]["releases"] == 1  # the 6 old ones at rho of eps 10
    assert u["max"]["rho"] == r1["rho_total"]
    # no leftovers of the inner build beside the folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger", "new", "new.owner.json", "old", "old.owner.json"]


def test_documents_already_built_are_left_out_and_counted_for_the_owner_only(tmp_path, tiny_lm, base):
    """Documents the corpus already holds are dropped before anything is read: the new build reads and the
    ledger charges the new ones only (no document reaches two builds), the count goes to the owner record."""
    old, led = base
    ext = _extend(tmp_path, tiny_lm, led, [*NEW[:4], OLD[0], OLD[3], OLD[0]])
    owner = json.loads(owner_audit_path(tmp_path / "new").read_text())
    assert owner["extension"] == {"input_units": 6, "dropped_units": 2, "dropped_documents": 3, "new_units": 4,
                                  "unit_kind": "document"}
    assert owner["fingerprints"]["units"] == 10
    assert owner["builds"][1]["input_fingerprint"]["documents"] == 4  # the new build read the 4 new ones
    u = led.unit_totals()
    r1, r2 = (b["privacy"] for b in ext.manifest["builds"])
    assert (u["units"], u["at_max"], u["max"]["releases"]) == (10, 6, 1)  # nothing read twice: no rho added
    assert u["max"]["rho"] == r1["rho_total"] > r2["rho_total"]
    assert led.totals(led.releases()[1].dataset)["units"]["units"] == 4  # charged on the 4 new documents only
    # a lifetime budget between one and two builds no longer refuses it: the old documents are not read again
    led2 = PrivacyLedger(tmp_path / "ledger", lifetime_epsilon=12.0)
    _extend(tmp_path, tiny_lm, led2, [*NEW[4:], OLD[1], OLD[2]], out="again")
    assert led.unit_totals()["max"]["releases"] == 1 and len(led.releases()) == 3


def test_an_input_already_built_in_full_is_refused_before_anything_is_read(tmp_path, tiny_lm, base, monkeypatch):
    from dpsynrag.methods import get_method

    old, led = base

    def no_build(*a, **k):
        raise AssertionError("the build must not run")

    monkeypatch.setattr(type(get_method("dp-synrag")), "build", no_build)
    with pytest.raises(DataError, match=r"all 3 document\(s\) of the new documents are already built into") as err:
        _extend(tmp_path, tiny_lm, led, [OLD[4], OLD[1], OLD[4], OLD[2]])
    assert not any(t in str(err.value) for t in OLD)  # a count, never text
    assert len(led.releases()) == 1 and not (tmp_path / "new").exists()


def test_the_same_documents_with_other_whitespace_are_not_new(tmp_path, tiny_lm, base, monkeypatch):
    """Issue 42: the whitespace-changed file (a doubled space, a trailing space, CRLF) was taken as 6 new
    documents. A document is recognised in normal form; an owner record of the exact-text rule (written before
    issue 42) still keeps its documents out."""
    from dpsynrag.methods import get_method

    old, led = base

    def no_build(*a, **k):
        raise AssertionError("the build must not run")

    monkeypatch.setattr(type(get_method("dp-synrag")), "build", no_build)
    edited = [t.replace(" ", "  ", 1) + " \r\n" for t in OLD]
    with pytest.raises(DataError, match=r"all 6 document\(s\) of the new documents are already built into"):
        _extend(tmp_path, tiny_lm, led, edited)
    # an owner record written before issue 42: exact-text fingerprints under the old algorithm name
    from dpsynrag.corpus.format import sealed_fingerprints
    from dpsynrag.privacy.fingerprints import EXACT_TEXT, unit_fingerprint_per_document

    path = owner_audit_path(tmp_path / "old")
    owner = json.loads(path.read_text())
    key = bytes.fromhex(owner["fingerprints"]["key"])
    exact = sorted({f.hex() for f in unit_fingerprint_per_document(edited, key, rule=EXACT_TEXT)})
    owner["fingerprints"] = sealed_fingerprints({"algorithm": "hmac-sha256-128", "key": key.hex(),
                                                 "unit_kind": "document", "fingerprints": exact})
    path.write_text(json.dumps(owner))
    with pytest.raises(DataError, match=r"all 6 document\(s\) of the new documents are already built into"):
        _extend(tmp_path, tiny_lm, led, edited)


def test_the_same_documents_with_invisible_or_compatibility_characters_are_not_new(tmp_path, tiny_lm, base,
                                                                                   monkeypatch):
    """Issue 53: a zero-width space, a soft hyphen, a byte-order mark or full-width letters made a document new
    to --extend; they are recognised by today's normal form, and an owner record of issue 42's rule (NFC and
    whitespace only) still keeps its documents out."""
    from dpsynrag.corpus.format import sealed_fingerprints
    from dpsynrag.methods import get_method
    from dpsynrag.privacy.fingerprints import NORMALIZED_TEXT, unit_fingerprint_per_document

    old, led = base

    def no_build(*a, **k):
        raise AssertionError("the build must not run")

    monkeypatch.setattr(type(get_method("dp-synrag")), "build", no_build)
    wide = str.maketrans({c: chr(ord(c) + 0xFEE0) for c in "abcdefghijklmnopqrstuvwxyz0123456789"})
    edited = ["\ufeff" + OLD[0], OLD[1].replace(" ", " \u200b", 1), OLD[2][:3] + "\u00ad" + OLD[2][3:],
              OLD[3].translate(wide), OLD[4] + "\u2060", OLD[5].replace("cough", "co\u200dugh")]
    assert all(e != t for e, t in zip(edited, OLD))
    with pytest.raises(DataError, match=r"all 6 document\(s\) of the new documents are already built into"):
        _extend(tmp_path, tiny_lm, led, edited)
    path = owner_audit_path(tmp_path / "old")
    owner = json.loads(path.read_text())
    key = bytes.fromhex(owner["fingerprints"]["key"])
    nfc = sorted({f.hex() for f in unit_fingerprint_per_document(edited, key, rule=NORMALIZED_TEXT)})
    assert not set(nfc) & set(owner["fingerprints"]["fingerprints"])  # issue 42's rule told them apart
    owner["fingerprints"] = sealed_fingerprints({"algorithm": "hmac-sha256-128/normalized-text", "key": key.hex(),
                                                 "unit_kind": "document", "fingerprints": nfc})
    path.write_text(json.dumps(owner))
    with pytest.raises(DataError, match=r"all 6 document\(s\) of the new documents are already built into"):
        _extend(tmp_path, tiny_lm, led, edited)


def test_an_extension_can_be_extended_again(tmp_path, tiny_lm, base):
    old, led = base
    _extend(tmp_path, tiny_lm, led, NEW[:3])
    third = _extend(tmp_path, tiny_lm, led, NEW[3:], src="new", out="third")
    m = SyntheticCorpus.load(tmp_path / "third").manifest
    assert len(m["builds"]) == 3 and {r["build"] for r in third.records} <= {0, 1, 2}
    assert m["privacy"]["rho_total"] == pytest.approx(sum(b["privacy"]["rho_total"] for b in m["builds"]), rel=1e-12)
    owner = json.loads(owner_audit_path(tmp_path / "third").read_text())
    assert owner["fingerprints"]["units"] == 12 and len(owner["builds"]) == 3


@pytest.mark.parametrize("change, match", [
    (dict(model="another-model"), "model"),
    (dict(task="medical"), "task"),
    (dict(embedder="another-embedder"), "embedder"),
])
def test_a_changed_model_embedder_or_task_is_refused_before_anything_runs(tmp_path, tiny_lm, base, change, match):
    old, led = base
    with pytest.raises(ConfigError, match=f"changed: {match}"):
        _extend(tmp_path, tiny_lm, led, NEW, config=_config(epsilon=8.0, **change))
    with pytest.raises(ConfigError, match="embedder loads as"):  # the same spec, another index dimension
        _extend(tmp_path, tiny_lm, led, NEW, embedder=HashEmbedder(dim=32))
    assert len(led.releases()) == 1 and not (tmp_path / "new").exists()


def test_a_changed_default_model_is_named_by_its_resolved_name(tmp_path, tiny_lm, base):
    from dpsynrag.models._defaults import smollm2_name

    old, led = base  # built with the default model (config.model None), recorded by its loaded name
    with pytest.raises(ConfigError) as err:
        _extend(tmp_path, tiny_lm, led, NEW, config=_config(epsilon=8.0, model="another-model"))
    assert (f"model (the default {old.manifest['model']['name']!r} before, 'another-model' now: --model)"
            in str(err.value))
    build_corpus(OLD, tmp_path / "named", _config(model="my-model"), lm=tiny_lm, embedder=HashEmbedder(), ledger=led)
    with pytest.raises(ConfigError) as err:  # built with a named model, extended with the default
        _extend(tmp_path, tiny_lm, led, NEW, src="named")
    assert f"model ('my-model' before, the default {smollm2_name()!r} now: --model)" in str(err.value)
    with pytest.raises(ConfigError) as err:
        _extend(tmp_path, tiny_lm, led, NEW, config=_config(epsilon=8.0, task="medical"))
    assert "task (none before, 'medical' now: --task)" in str(err.value) and "None" not in str(err.value)


def test_an_edited_fingerprint_list_is_refused(tmp_path, tiny_lm, base):
    """Removing a fingerprint from the owner record (so that document would be read again unnoticed) fails
    the list's checksum, even with its count fixed up; the untouched record passes."""
    old, led = base
    path = owner_audit_path(tmp_path / "old")
    original = path.read_text()
    owner = json.loads(original)
    fp = owner["fingerprints"]
    fp["fingerprints"] = fp["fingerprints"][1:]
    fp["units"] -= 1
    path.write_text(json.dumps(owner))
    with pytest.raises(CorpusError, match=r"fingerprint list in the owner-only record .* fails its checksum"):
        _extend(tmp_path, tiny_lm, led, NEW)
    del fp["sha256"]  # a record without its checksum is refused alike
    path.write_text(json.dumps(owner))
    with pytest.raises(CorpusError, match="fails its checksum"):
        _extend(tmp_path, tiny_lm, led, NEW)
    assert len(led.releases()) == 1 and not (tmp_path / "new").exists()
    path.write_text(original)
    _extend(tmp_path, tiny_lm, led, NEW)  # the record as written passes
    grown = json.loads(owner_audit_path(tmp_path / "new").read_text())["fingerprints"]
    body = {k: v for k, v in grown.items() if k != "sha256"}  # the extension's union is sealed anew
    assert grown["sha256"] == hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def test_another_kind_of_privacy_unit_is_refused(tmp_path, tiny_lm, base):
    with pytest.raises(ConfigError, match="built per document and the new documents are read per unit"):
        _extend(tmp_path, tiny_lm, base[1], [Document(id=str(i), text=t, unit=f"patient-{i // 2}")
                                             for i, t in enumerate(NEW)])
    assert len(base[1].releases()) == 1


def test_a_damaged_corpus_or_a_missing_owner_record_is_refused(tmp_path, tiny_lm, base):
    old, led = base
    owner_path = owner_audit_path(tmp_path / "old")
    owner = owner_path.read_text()
    owner_path.unlink()
    with pytest.raises(CorpusError, match="owner-only record .* is missing"):
        _extend(tmp_path, tiny_lm, led, NEW)
    owner_path.write_text(json.dumps({k: v for k, v in json.loads(owner).items() if k != "fingerprints"}))
    with pytest.raises(CorpusError, match="holds no document fingerprints"):
        _extend(tmp_path, tiny_lm, led, NEW)
    owner_path.write_text(owner)
    texts = tmp_path / "old" / "texts.jsonl"
    texts.write_text(texts.read_text().replace("\n", " \n", 1))
    with pytest.raises(CorpusError, match="--extend .*texts.jsonl.*SHA-256"):
        _extend(tmp_path, tiny_lm, led, NEW)
    assert len(led.releases()) == 1


def test_an_edited_extension_guarantee_is_refused_on_load(tmp_path, tiny_lm, base):
    _extend(tmp_path, tiny_lm, base[1], NEW)
    path = tmp_path / "new" / MANIFEST
    m = json.loads(path.read_text())
    m["guarantee"]["one_build"]["epsilon"] = 1.0  # claims more than its builds give; checksum recomputed
    m["checksums"]["manifest"] = manifest_sha256(m)
    path.write_text(json.dumps(m))
    with pytest.raises(CorpusError, match="guarantee"):
        SyntheticCorpus.load(tmp_path / "new")
    m["guarantee"]["one_build"]["epsilon"] = m["builds"][0]["privacy"]["epsilon"]
    m["privacy"] = m["builds"][1]["privacy"]  # only the last build's report: the composition is missing
    m["checksums"]["manifest"] = manifest_sha256(m)
    path.write_text(json.dumps(m))
    with pytest.raises(CorpusError, match="not the sum of its builds"):
        SyntheticCorpus.load(tmp_path / "new")


def test_cli_build_extend(tmp_path, tiny_lm, base, monkeypatch):
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))
    data = tmp_path / "new.jsonl"
    data.write_text("".join(json.dumps({"body": t}) + "\n" for t in [*NEW, OLD[2]]))
    args = ["build", str(data), "--extend", str(tmp_path / "old"), "--out", str(tmp_path / "grown"), "--epsilon", "8",
            "--delta", "1e-3", "--text-field", "body", "--no-self-filter", "--K", "3", "--R", "2", "--L", "1",
            "--k", "2", "--T", "2", "--extractor", "rarity", "--seed", "0", "--preset", "paper",
            "--ledger", str(tmp_path / "ledger")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    m = SyntheticCorpus.load(tmp_path / "grown").manifest
    one, both = m["guarantee"]["one_build"], m["guarantee"]["several_builds"]
    assert f"in one build only: epsilon={one['epsilon']:.4f}" in out and f"epsilon={both['epsilon']:.4f}" in out
    assert ("1 of INPUT's 7 documents (1 document(s)) were already built into the corpus and were left out (not "
            "read, not charged); this build read the 6 new ones") in out
    led = PrivacyLedger(tmp_path / "ledger")
    assert [r.kind for r in led.releases()] == ["build", "extension"]
    assert led.totals(led.releases()[1].dataset)["units"]["units"] == 6
    report = runner.invoke(app, ["report", str(tmp_path / "grown")])
    assert report.exit_code == 0 and "extended corpus, 2 builds" in " ".join(report.output.split())
    assert "left out" not in report.output  # the count is the owner's: never in what the corpus shows
    result = runner.invoke(app, [*args[:5], str(tmp_path / "again"), *args[6:], "--embedder", "other"])
    assert result.exit_code == 2 and "changed: embedder" in " ".join(result.output.split())
    assert math.isfinite(both["epsilon"])


def test_a_corpus_grows_in_place_with_overwrite(tmp_path, tiny_lm, base):
    old, led = base
    with pytest.raises(FileExistsError, match="already exists"):
        _extend(tmp_path, tiny_lm, led, NEW, out="old")
    grown = _extend(tmp_path, tiny_lm, led, NEW, out="old", overwrite=True)
    assert len(SyntheticCorpus.load(tmp_path / "old").manifest["builds"]) == 2
    assert len(grown.records) > len(old.records)
    owner = json.loads(owner_audit_path(tmp_path / "old").read_text())
    assert owner["fingerprints"]["units"] == 12 and owner["extension"]["new_units"] == 6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger", "old", "old.owner.json"]


def test_per_person_extension_keys_persons_in_the_owner_record_and_the_ledger(tmp_path, tiny_lm):
    """With --privacy-unit-field the fingerprints are of person keys: every new note of a person the corpus
    holds is left out, whatever its text, so no person reaches two builds."""
    led = PrivacyLedger(tmp_path / "ledger")
    old = [Document(id=str(i), text=t, unit=f"p{i // 2}") for i, t in enumerate(OLD)]  # persons p0, p1, p2
    new = [Document(id=f"n{i}", text=t, unit=f"p{i + 2}") for i, t in enumerate(NEW[:4])]  # p2 again, p3-p5 new
    build_corpus(old, tmp_path / "old", _config(privacy_unit_field="patient"), lm=tiny_lm, embedder=HashEmbedder(),
                 ledger=led)
    ext = _extend(tmp_path, tiny_lm, led, new, config=_config(epsilon=8.0, privacy_unit_field="patient"))
    owner = json.loads(owner_audit_path(tmp_path / "new").read_text())
    assert owner["extension"] == {"input_units": 4, "dropped_units": 1, "dropped_documents": 1, "new_units": 3,
                                  "unit_kind": "unit"}
    u = led.unit_totals()
    # 6 persons and the 9 notes read, by their texts (a per-person release also charges each document it read);
    # at the maximum: the first build's 3 persons and 6 notes, each read once
    assert (u["units"], u["unit_kind"], u["at_max"], u["max"]["releases"]) == (6 + len(old) + 3, "unit", 9, 1)
    assert "person" in ext.manifest["privacy"]["neighbouring_relation"]
    with pytest.raises(ConfigError, match="privacy_unit_field"):  # per person before, per document now
        _extend(tmp_path, tiny_lm, led, NEW, out="again")


def test_a_build_owner_record_holds_keyed_fingerprints_of_its_documents(tmp_path, base):
    import hmac

    fp = json.loads(owner_audit_path(tmp_path / "old").read_text())["fingerprints"]
    key = bytes.fromhex(fp["key"])
    expected = sorted(hmac.new(key, b"text\x00" + hashlib.sha256(t.encode()).digest(), hashlib.sha256).digest()[:16].hex()
                      for t in OLD)
    assert fp["fingerprints"] == expected and fp["units"] == 6 and fp["unit_kind"] == "document"
    assert fp["algorithm"] == "hmac-sha256-128/compatibility-text" and len(key) == 32
    body = {"algorithm": fp["algorithm"], "key": fp["key"], "unit_kind": "document", "units": 6, "fingerprints": expected}
    assert fp["sha256"] == hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    other = json.loads(owner_audit_path(tmp_path / "old").read_text())  # never the texts themselves
    assert not any(t in json.dumps(other) for t in OLD)
