"""The own-data benchmark's generator and PII residual counter (benchmarks/owndata, issue 41 deliverable 1):
seeded collections with uneven request types, one fact per type, PII written verbatim and counted
format-insensitively after a redaction. Fast: no model."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: benchmarks.owndata

from benchmarks.owndata.generate import DOMAINS, MAX_WORDS, MIN_WORDS, generate, main, write_collection  # noqa: E402
from benchmarks.owndata.people import FIRST_NAMES, LAST_NAMES  # noqa: E402
from benchmarks.owndata.pii_residual import library_redactor, present, residual  # noqa: E402

SEEDS = range(5)


@pytest.fixture(scope="module")
def collections():
    return {(d, s): generate(d, s) for d in DOMAINS for s in SEEDS}


def _erase_pii(collection):
    """A redaction that replaces every inserted PII surface form of a record (longest first)."""
    pii = {row["id"]: row["pii"] for row in collection["pii"]}

    def redact(record):
        text = record["text"]
        for item in sorted(pii[record["id"]], key=lambda i: -len(i["text"])):
            text = text.replace(item["text"], "[X]")
        return text
    return redact


def test_same_seed_same_collection_other_seed_other(tmp_path, collections):
    again = generate("bank", 3)
    assert again == collections[("bank", 3)]
    assert [r["text"] for r in again["records"]] != [r["text"] for r in collections[("bank", 4)]["records"]]
    a = write_collection(again, tmp_path / "a")
    b = write_collection(generate("bank", 3), tmp_path / "b")
    for name in ("records.jsonl", "questions.jsonl", "pii.jsonl", "public.json", "meta.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes()


def test_type_counts_uneven_with_a_tail_under_ten(collections):
    for (domain, seed), c in collections.items():
        counts = c["meta"]["type_counts"]
        assert sum(counts.values()) == 400 and 10 <= len(counts) <= 15
        assert sum(v < 10 for v in counts.values()) >= 3, (domain, seed, counts)
        assert max(counts.values()) >= 60 and min(counts.values()) >= 1
        assert Counter(r["type"] for r in c["records"]) == counts
        profile = c["meta"]["profile"]
        for t, v in counts.items():  # drawn around the profile
            assert 0.6 * profile[t] - 1 <= v <= 1.4 * profile[t] + 1, (domain, t, v, profile[t])
    assert collections[("bank", 0)]["meta"]["type_counts"] != collections[("bank", 1)]["meta"]["type_counts"]


def test_fact_in_every_record_of_its_type_and_questions_answer_it(collections):
    for (domain, _), c in collections.items():
        facts = c["meta"]["facts"]
        for r in c["records"]:
            assert facts[r["type"]] in r["text"], (domain, r["id"])
        for t, fact in facts.items():  # no fact is part of another (an answer "£500" must not score for "£5")
            assert not any(fact in other for u, other in facts.items() if u != t), (domain, fact)
        per_type = Counter(q["type"] for q in c["questions"])
        assert set(per_type) == set(facts) and all(2 <= k <= 3 for k in per_type.values())
        for q in c["questions"]:
            assert q["answers"][0] == facts[q["type"]] and q["support"] == c["meta"]["type_counts"][q["type"]]


def test_records_fields_lengths_and_customers(collections):
    for (domain, _), c in collections.items():
        d = DOMAINS[domain]
        for r in c["records"]:
            assert MIN_WORDS <= len(r["text"].split()) <= MAX_WORDS, (domain, r["id"])
            assert set(d.identifier_fields) | {"id", "text", "person_id", "type"} == set(r)
            assert re.fullmatch(r"\+\d{11,12}", r["phone"]) and re.search(r"@(mail\.)?example\.(com|org|net)$", r["email"])
        per_person = Counter(r["person_id"] for r in c["records"])
        assert set(per_person.values()) == {1, 2, 3}
        names = {}
        for r in c["records"]:  # one person, one name
            assert names.setdefault(r["person_id"], r["customer_name"]) == r["customer_name"]
    assert "iban" in collections[("bank", 0)]["records"][0] and "order_id" in collections[("saas", 0)]["records"][0]


def test_every_pii_string_is_written_verbatim_and_every_kind_occurs(collections):
    for (domain, _), c in collections.items():
        kinds = Counter()
        for r, row in zip(c["records"], c["pii"]):
            assert row["id"] == r["id"] and row["pii"]
            for item in row["pii"]:
                assert item["text"] in r["text"], (r["id"], item)
                assert item["probes"] and present(item, r["text"])
                kinds[item["kind"]] += 1
        expected = {"customer_name", "third_party_name", "address", "phone", "email", "order_id"}
        assert expected | ({"iban"} if DOMAINS[domain].has_iban else set()) == set(kinds), (domain, kinds)


def test_ibans_compact_and_grouped_with_valid_check_digits(collections):
    items = [i for row in collections[("bank", 0)]["pii"] for i in row["pii"] if i["kind"] == "iban"]
    grouped = [i["text"] for i in items if " " in i["text"]]
    compact = [i["text"] for i in items if " " not in i["text"]]
    assert len(grouped) > 50 and len(compact) > 50
    assert all(re.fullmatch(r"[A-Z]{2}\d{2}( [A-Z0-9]{4})*( [A-Z0-9]{1,4})?", g) for g in grouped)
    for value in [i["probes"][0] for i in items] + [r["iban"] for r in collections[("bank", 0)]["records"]]:
        moved = value[4:] + value[:4]
        assert int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1, value  # ISO 7064 MOD 97-10


def test_names_varied_and_disjoint_from_public_strings(collections):
    assert len(set(FIRST_NAMES)) >= 80 and len(set(LAST_NAMES)) >= 80
    public_words = {w.lower() for d in DOMAINS.values() for s in d.public.values() for w in re.findall(r"\w+", s)}
    name_words = {w.lower() for n in FIRST_NAMES + LAST_NAMES for w in n.split()}
    assert not public_words & name_words
    for (domain, _), c in collections.items():
        company = DOMAINS[domain].public["company"]
        assert sum(company in r["text"] for r in c["records"]) > 100
        assert c["public"]["strings"] == list(DOMAINS[domain].public.values())


def test_present_is_format_insensitive_but_whole_word():
    iban = {"kind": "iban", "text": "GB47NWBK21580012345678", "probes": ["GB47NWBK21580012345678"]}
    assert present(iban, "paid to gb47-nwbk-2158-0012-3456-78 today")
    assert not present(iban, "paid to GB47NWBK215800123456789")  # a longer number is another number
    phone = {"kind": "phone", "text": "+44 7700 900123", "probes": ["7700900123"]}
    assert present(phone, "ring 07700-900-123") and present(phone, "ring +44 (0)7700 900123")
    assert not present(phone, "ring 07700 900124")
    name = {"kind": "third_party_name", "text": "Ana Nowak", "probes": ["Ana", "Nowak"]}
    assert present(name, "ask NOWAK") and not present(name, "a banana")


def test_residual_flags_a_reformatted_iban_and_nothing_after_full_replacement(tmp_path, collections):
    collection = collections[("bank", 0)]
    folder = write_collection(collection, tmp_path / "bank")
    erase = _erase_pii(collection)
    clean = residual(folder, erase)
    assert clean["records_with_pii"] == 0 and clean["fraction"] == 0
    assert clean["public"]["records_losing"] == 0 and clean["public"]["records_with"] == 400
    assert all(v["left"] == 0 for v in clean["by_kind"].values())
    untouched = residual(folder, lambda r: r["text"])
    assert untouched["records_with_pii"] == 400
    assert all(v["left"] == v["total"] for v in untouched["by_kind"].values())

    pii = {row["id"]: row["pii"] for row in collection["pii"]}
    target = next(r for r in collection["records"] if any(i["kind"] == "iban" for i in pii[r["id"]]))
    iban = next(i for i in pii[target["id"]] if i["kind"] == "iban")
    reformatted = "-".join(re.findall(".{1,4}", iban["probes"][0])).lower()

    def leaky(record):
        text = record["text"].replace(iban["text"], reformatted) if record["id"] == target["id"] else record["text"]
        return erase({**record, "text": text})
    result = residual(folder, leaky)
    assert result["records_with_pii"] == 1 and result["by_kind"]["iban"]["left"] == 1
    assert result["by_kind"]["iban"]["records"] == 1


def test_cli_writes_every_domain_and_measures_the_library_redaction(tmp_path, capsys):
    main(["--all", "--seeds", "0", "1", "--n", "60", "--out", str(tmp_path)])
    folders = sorted(p.name for p in tmp_path.iterdir())
    assert folders == ["bank-s0", "bank-s1", "helpdesk-s0", "helpdesk-s1", "saas-s0", "saas-s1"]
    for name in folders:
        assert sorted(p.name for p in (tmp_path / name).iterdir()) == [
            "meta.json", "pii.jsonl", "public.json", "questions.jsonl", "records.jsonl"]
        assert sum(1 for _ in open(tmp_path / name / "records.jsonl")) == 60
    folder = tmp_path / "saas-s0"
    with_ids = residual(folder, library_redactor(folder))
    assert with_ids["by_kind"]["customer_name"]["left"] == 0  # each record's own name, in every form written
    assert with_ids["public"]["records_losing"] == 0
    none = residual(folder, library_redactor(folder, []))
    assert none["records_with_pii"] == 60 and with_ids["records_with_pii"] < 60
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["domain"] == "saas" and meta["n"] == 60 and sum(meta["type_counts"].values()) == 60
