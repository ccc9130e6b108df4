"""Issue 30 (3): the ledger knows documents (or privacy units), not files. Per-unit keyed fingerprints:
299 of the same 300 documents get no fresh budget, a disjoint collection does (parallel composition),
the most-spent unit and how many are at it are reported, a schema-1 ledger keeps working."""

from __future__ import annotations

import json
import math
import sqlite3
import subprocess
import sys
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.data.io import Document
from dpsynrag.errors import ConfigError, PrivacyBudgetExceededError
from dpsynrag.privacy.charge import prepare_charge
from dpsynrag.privacy.fingerprints import (
    dataset_fingerprint,
    keyed_fingerprint,
    unit_fingerprints,
    unit_message,
)
from dpsynrag.privacy.ledger import PrivacyLedger
from dpsynrag.privacy.lifetime import lifetime_epsilon

runner = CliRunner()
TICKETS = [f"ticket {i}: my order {i * 7919 % 1000} arrived broken, please refund" for i in range(600)]
PLAN = SimpleNamespace(rho=1.0, delta=0.0)  # one release: rho 1, no delta terms
DELTA = 1e-6
ONE = lifetime_epsilon(1.0, 0.0, DELTA)  # epsilon of one such release
TWO = lifetime_epsilon(2.0, 0.0, 2 * DELTA)  # of two composed


def _charge(led, docs, label="x", **kw):
    return prepare_charge(led, docs, PLAN, delta=DELTA, kind="build", method="dp-synrag", label=label, **kw).commit()


def test_closed_forms_of_the_limits():
    assert ONE == pytest.approx(1.0 + 2 * math.sqrt(math.log(1 / DELTA)), rel=1e-12)
    assert TWO == pytest.approx(2.0 + 2 * math.sqrt(2.0 * math.log(1 / (2 * DELTA))), rel=1e-12)
    assert ONE < (ONE + TWO) / 2 < TWO


def test_299_of_the_same_300_documents_get_no_fresh_budget(tmp_path):
    led = PrivacyLedger(tmp_path, lifetime_epsilon=(ONE + TWO) / 2)  # one release per document fits, two do not
    first = TICKETS[:300]
    _charge(led, first, "all 300")
    # the same tickets less one, in another order, as Documents with other ids: the same 299 documents
    subset = [Document(id=f"t{i}", text=t) for i, t in enumerate(reversed(first[1:]))]
    assert dataset_fingerprint(subset) != dataset_fingerprint(first)  # another "file"...
    with pytest.raises(PrivacyBudgetExceededError, match=r"299 document\(s\) or unit\(s\)"):
        _charge(led, subset, "299 of them")  # ...but the same documents: refused
    # one shared document is enough to refuse
    with pytest.raises(PrivacyBudgetExceededError, match=r"1 document\(s\) or unit\(s\)"):
        _charge(led, [first[7], *TICKETS[300:310]], "one shared")
    # disjoint documents compose in parallel: a fresh budget
    _charge(led, TICKETS[300:], "the other 300")
    assert [r.label for r in led.releases()] == ["all 300", "the other 300"]
    u = led.unit_totals()
    assert u["units"] == 600 and u["at_max"] == 600 and u["max"]["releases"] == 1
    assert u["max"]["epsilon"] == pytest.approx(ONE, rel=1e-12)


def test_most_spent_unit_and_how_many_are_at_it(tmp_path):
    led = PrivacyLedger(tmp_path)
    a, b = TICKETS[:10], TICKETS[5:15]  # five documents in both
    _charge(led, a, "a")
    _charge(led, b, "b")
    for name, docs in (("a", a), ("b", b)):
        t = led.totals(dataset_fingerprint(docs))
        assert t["releases"] == 1 and t["rho"] == 1.0  # the collection's own releases
        assert t["units"]["units"] == 10 and t["units"]["at_max"] == 5  # its documents: 5 read twice
        assert t["units"]["max"]["rho"] == 2.0 and t["units"]["max"]["delta"] == pytest.approx(2 * DELTA)
        assert t["units"]["max"]["epsilon"] == pytest.approx(TWO, rel=1e-12)
        assert t["units"]["max"]["epsilon_tight"] < t["units"]["max"]["epsilon"]
    whole = led.unit_totals()
    assert (whole["units"], whole["at_max"], whole["max"]["releases"], whole["unit_kind"]) == (15, 5, 2, "document")
    result = runner.invoke(app, ["ledger", "show", "--ledger", str(tmp_path)])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert f"most-spent document: lifetime epsilon={TWO:.4f}" in out and "5 of 10 document(s) at it" in out
    assert "whole ledger: most-spent document" in out and "5 of 15 document(s) at it" in out
    shown = json.loads(runner.invoke(app, ["ledger", "show", "--json", "--ledger", str(tmp_path)]).output)
    assert shown["units"]["at_max"] == 5 and shown["units"]["max"]["rho"] == 2.0


def test_cli_ledger_show_file_leads_with_the_most_spent_document(tmp_path):
    """`ledger show FILE` for a collection never released as such opens with the per-document maximum (the
    number the lifetime budget checks), not with the exact set's spend of 0."""
    led = PrivacyLedger(tmp_path / "led")
    _charge(led, TICKETS[:10], "a")
    _charge(led, TICKETS[5:15], "b")
    data = tmp_path / "sub.jsonl"
    data.write_text("".join(json.dumps({"text": t}) + "\n" for t in TICKETS[5:10]))  # all five read twice
    result = runner.invoke(app, ["ledger", "show", str(data), "--ledger", str(tmp_path / "led")])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert out.startswith(f"dataset {dataset_fingerprint(TICKETS[5:10])}: most-spent document: lifetime "
                          f"epsilon={TWO:.4f}")
    assert "5 of 5 document(s) at it" in out
    exact = "releases on exactly this collection: epsilon at summed delta 0: 0.0000 (Bun-Steinke)"
    assert out.index("most-spent document") < out.index(exact)


def test_budget_set_on_a_collection_binds_its_subsets_and_supersets(tmp_path):
    led = PrivacyLedger(tmp_path)
    docs = TICKETS[:300]
    _charge(led, docs)
    led.set_budget(dataset_fingerprint(docs), (ONE + TWO) / 2)
    with pytest.raises(PrivacyBudgetExceededError, match="lifetime budget of these documents"):
        _charge(led, docs[:299])
    with pytest.raises(PrivacyBudgetExceededError, match=r"300 document\(s\)"):
        _charge(led, TICKETS[:310])  # the 10 new ones are free, the 300 are not
    _charge(led, TICKETS[300:310])  # no budget on these
    assert len(led.releases()) == 2


def test_privacy_units_are_keyed_by_unit_not_text(tmp_path):
    led = PrivacyLedger(tmp_path, lifetime_epsilon=(ONE + TWO) / 2)
    notes = [Document(id=str(i), text=TICKETS[i], unit=f"patient-{i // 3}") for i in range(30)]  # 3 notes each
    _charge(led, notes)
    # 10 persons, and each of the 30 notes by its text (a per-person release charges the documents it read)
    assert led.unit_totals()["units"] == 40 and led.unit_totals()["unit_kind"] == "unit"
    # another note of patient 4, never seen as text: the same person, so no fresh budget
    with pytest.raises(PrivacyBudgetExceededError, match=r"1 document\(s\) or unit\(s\)"):
        _charge(led, [Document(id="n", text="a new note", unit="patient-4")])
    # explicit unit ids (the API's unit_ids=) agree with Document.unit
    with pytest.raises(PrivacyBudgetExceededError):
        _charge(led, ["another new note"], unit_ids=["patient-9"])
    _charge(led, ["a note of someone new"], unit_ids=["patient-10"])
    with pytest.raises(ConfigError, match="unit keys"):
        unit_fingerprints(["a", "b"], b"k" * 32, unit_ids=["p"])


def test_the_ledger_holds_keyed_hashes_never_text(tmp_path):
    led = PrivacyLedger(tmp_path)
    _charge(led, TICKETS[:20])
    assert (tmp_path / "ledger.key").stat().st_mode & 0o077 == 0 and len(led.key) == 32
    raw = (tmp_path / "ledger.sqlite").read_bytes()
    assert not any(t.encode() in raw for t in TICKETS[:20]) and b"arrived broken" not in raw
    with sqlite3.connect(tmp_path / "ledger.sqlite") as db:
        stored = {u for (u,) in db.execute("SELECT unit FROM units")}
    assert stored == unit_fingerprints(TICKETS[:20], led.key)
    import hashlib
    import hmac

    t = TICKETS[0].encode()
    assert keyed_fingerprint(led.key, unit_message(hashlib.sha256(t).digest(), None)) == \
        hmac.new(led.key, b"text\x00" + hashlib.sha256(t).digest(), hashlib.sha256).digest()[:16]
    assert unit_fingerprints(TICKETS[:20], b"\x00" * 32).isdisjoint(stored)  # keyed: another key, other hashes
    # a lost key is an error, never a silent fresh start
    (tmp_path / "ledger.key").unlink()
    with pytest.raises(ConfigError, match="key .* is missing"):
        _charge(PrivacyLedger(tmp_path), TICKETS[:20])


def test_a_schema_1_ledger_keeps_working_and_is_carried_onto_documents(tmp_path):
    with sqlite3.connect(tmp_path / "ledger.sqlite") as db:  # what dpsynrag wrote before issue 30
        db.executescript("""
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE budgets (dataset TEXT PRIMARY KEY, epsilon REAL NOT NULL, delta REAL, conversion TEXT
                NOT NULL, updated TEXT NOT NULL);
            CREATE TABLE releases (id INTEGER PRIMARY KEY AUTOINCREMENT, dataset TEXT NOT NULL, created TEXT NOT NULL,
                kind TEXT NOT NULL, method TEXT NOT NULL, label TEXT NOT NULL, count INTEGER NOT NULL, rho REAL NOT NULL,
                delta_terms REAL NOT NULL, delta REAL NOT NULL);
            INSERT INTO meta VALUES ('schema_version', '1');
        """)
        db.execute("INSERT INTO releases (dataset, created, kind, method, label, count, rho, delta_terms, delta) "
                   "VALUES (?, '2026-01-01T00:00:00+00:00', 'build', 'dp-synrag', 'old', 1, 1.0, 0.0, ?)",
                   (dataset_fingerprint(TICKETS[:300]), DELTA))
    led = PrivacyLedger(tmp_path, lifetime_epsilon=(ONE + TWO) / 2)  # upgraded in place
    assert led.totals(dataset_fingerprint(TICKETS[:300]))["rho"] == 1.0
    assert led.unit_totals() is None  # nothing carried until the collection is seen again
    with pytest.raises(PrivacyBudgetExceededError):  # the same collection: its old release composes
        _charge(led, TICKETS[:300])
    # now its documents are registered and carry the old release: a subset composes with it too
    assert led.unit_totals()["max"]["rho"] == 1.0 and led.unit_totals()["at_max"] == 300
    with pytest.raises(PrivacyBudgetExceededError, match=r"299 document\(s\)"):
        _charge(led, TICKETS[1:300])
    with sqlite3.connect(tmp_path / "ledger.sqlite") as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("2",)


_WRITER = """
import sys
from types import SimpleNamespace
from dpsynrag.errors import PrivacyBudgetExceededError
from dpsynrag.privacy.charge import prepare_charge
from dpsynrag.privacy.ledger import PrivacyLedger

led = PrivacyLedger(sys.argv[1])
docs = [f"note {i}" for i in range(int(sys.argv[2]), int(sys.argv[2]) + 20)]  # the two writers share 10 notes
ok = refused = 0
for i in range(15):
    try:
        prepare_charge(led, docs, SimpleNamespace(rho=0.01, delta=0.0), delta=1e-6, kind="build", method="m",
                       label="l").commit()
        ok += 1
    except PrivacyBudgetExceededError:
        refused += 1
print(ok, refused)
"""


def test_two_processes_never_overspend_a_shared_document(tmp_path):
    eps10, eps11 = lifetime_epsilon(0.1, 0.0, 10e-6), lifetime_epsilon(0.11, 0.0, 11e-6)
    PrivacyLedger(tmp_path, lifetime_epsilon=None).key  # noqa: B018 (made once, before the race)
    led = PrivacyLedger(tmp_path)
    for start in (0, 10):  # budgets on both collections: 10 releases of rho 0.01 fit a document
        led.set_budget(led.register([f"note {i}" for i in range(start, start + 20)]), (eps10 + eps11) / 2)
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), s], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for s in ("0", "10")]
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    oks = [int(o[0].split()[0]) for o in outs]
    assert sum(oks) == 10  # the shared notes allow 10 releases in all
    u = led.unit_totals()
    # at the maximum: the 10 shared notes, and a writer's own 10 when it made all 10 releases
    assert u["max"]["releases"] == 10 and u["at_max"] == 10 + 10 * oks.count(10) and u["max"]["rho"] == pytest.approx(0.1, rel=1e-12)


def test_cli_set_budget_per_person_binds_the_persons_in_any_later_collection(tmp_path):
    led = PrivacyLedger(tmp_path / "led")
    data = tmp_path / "notes.jsonl"
    data.write_text("".join(json.dumps({"body": TICKETS[i], "patient": f"p{i // 4}"}) + "\n" for i in range(40)))
    base = ["--ledger", str(tmp_path / "led"), "--text-field", "body", "--privacy-unit-field", "patient"]
    result = runner.invoke(app, ["ledger", "set-budget", str(data), "--epsilon", str((ONE + TWO) / 2), *base])
    assert result.exit_code == 0, result.output
    # 10 persons, and each of the 40 notes by its text (a per-person release charges the documents it read)
    assert led.unit_totals()["units"] == 50 and led.unit_totals()["unit_kind"] == "unit"
    _charge(led, [Document(id="a", text="first new note", unit="p3")])  # one release fits patient p3
    with pytest.raises(PrivacyBudgetExceededError, match="lifetime budget of these documents"):
        _charge(led, [Document(id="b", text="second new note", unit="p3")])
    result = runner.invoke(app, ["ledger", "show", str(data), *base])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # p3 is at the maximum; its 4 notes of this file are not (the new one is elsewhere)
    assert "most-spent unit" in out and "1 of 10 person(s) and 0 of 40 document(s) at it" in out and "of 50" not in out
    assert led.unit_totals()["persons"] == 10  # p0..p9: p3 of the new collection is the same person (keyed by its key)


def test_per_person_and_per_document_releases_of_the_same_texts_compose(tmp_path):
    """A per-person build after per-document builds of the same notes (or the reverse) is checked against
    the documents' spend: switching the unit cannot bypass the lifetime budget."""
    notes = [Document(id=str(i), text=TICKETS[i], unit=f"patient-{i // 3}") for i in range(30)]
    plain = [Document(id=str(i), text=TICKETS[i]) for i in range(30)]
    led = PrivacyLedger(tmp_path / "a", lifetime_epsilon=(ONE + TWO) / 2)
    _charge(led, plain, "per document")
    with pytest.raises(PrivacyBudgetExceededError, match=r"30 document\(s\) or unit\(s\)"):
        _charge(led, notes, "per person")  # the documents already hold one release
    led = PrivacyLedger(tmp_path / "b", lifetime_epsilon=(ONE + TWO) / 2)
    _charge(led, notes, "per person")
    with pytest.raises(PrivacyBudgetExceededError, match=r"1 document\(s\) or unit\(s\)"):
        _charge(led, [plain[5], *[Document(id=f"n{i}", text=t) for i, t in enumerate(TICKETS[300:305])]], "one note")
    _charge(led, [Document(id=f"m{i}", text=t) for i, t in enumerate(TICKETS[300:305])], "new notes")
