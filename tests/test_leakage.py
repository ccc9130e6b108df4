"""Leakage checks beyond names (issue 42.4): identifier values in any format, PII patterns not in the public
allow-list, n-grams copied from a private document, and the owner-side `dpsynrag leakage` command."""

import json

import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.data.io import Document
from dpsynrag.errors import ConfigError
from dpsynrag.eval.leakage import LeakageChecker, pii_matches

SUPPORT = "+44 20 7946 0000"  # the bank's public support number
IBAN = "GB47 NWBK 2158 0012 3456 78"
DOCS = [
    Document("c1", "Ann Lee (IBAN GB47NWBK21580012345678, phone +44 7700 900123, ada.lee@example.com) asks why the "
                   "replacement card she ordered on Monday has still not arrived at her flat.",
             ("Ann Lee", IBAN, "+44 7700 900123", "ada.lee@example.com")),
    Document("c2", f"Bob Stone lost his card. Call us on {SUPPORT} to block it; a replacement card arrives in 5 "
                   "working days.", ("Bob Stone", "+44 20 7946 0123")),
    Document("c3", f"Card stolen. Call us on {SUPPORT} to block it; a replacement card arrives in 5 working days.",
             ("Cy Young",)),
    Document("c4", "Please pay my landlord, Mr Chidi Okafor, who lives at 12 Rose Lane, Bristol BS1 4DJ.", ()),
]


@pytest.fixture(scope="module")
def checker():
    return LeakageChecker(DOCS, allow=[SUPPORT])


@pytest.mark.parametrize("text", [
    "Your IBAN starts with GB47 NWBK 2158, I think.",  # the first 12 characters, grouped
    "The account is GB47NWBK21580012345678.",  # compact
    "iban: gb47-nwbk-2158-0012-3456-78",  # lower case, dashes
    "It begins 2158 0012 3456.",  # a fragment of 12 characters inside the value
])
def test_planted_iban_in_any_format_or_fragment_is_an_identifier_leak(checker, text):
    found = checker.check(text)
    assert found.identifiers == {1} and found.leaks and "identifier" in found.kinds()


def test_a_fragment_shorter_than_eight_characters_is_not_a_leak(checker):
    assert checker.check("It ends in 3456 78.").identifiers == set()  # "345678": 6 characters


def test_phone_in_another_format_and_email_in_capitals(checker):
    phone = checker.check("Ring her at (07700) 900-123.")  # national form of +44 7700 900123
    assert phone.identifiers == {2} and ("phone", "07700900123") in phone.pii
    mail = checker.check("Write to ADA.LEE@EXAMPLE.COM today")
    assert mail.identifiers == {3} and mail.pii == {("email", "adaleeexamplecom")}


def test_names_in_any_case_and_spacing_but_whole_words(checker):
    assert checker.check("ANN  LEE called").identifiers == {0}
    assert checker.check("Ann-Lee called").identifiers == {0}
    assert checker.check("Joann Leeds called").identifiers == set()
    assert checker.check("cy young called").identifiers == {6}  # values are numbered in file order


def test_public_support_number_in_either_form_is_not_a_leak(checker):
    for text in (f"Call {SUPPORT} to block your card.", "Call 020 7946 0000 to block your card.",
                 "Call (+44) 20-7946-0000."):
        found = checker.check(text)
        # Bob's own number shares "+44 20 7946" with it: no identifier, no PII
        assert found.identifiers == set() and found.pii == set() and not found.leaks, text
    assert checker.check("Call +44 20 7946 0123.").identifiers == {5}  # Bob's own number is a leak


def test_pii_patterns_of_people_not_in_the_file(checker):
    found = checker.check("Send it to DE89 3704 0044 0532 0130 00 or j.doe@mail.org, card 4111 1111 1111 1111, "
                          "phone +1 (555) 013-4567.")
    assert sorted(t for t, _ in found.pii) == ["card", "email", "iban", "phone"] and found.identifiers == set()
    assert pii_matches("card 4111 1111 1111 1112") == []  # fails the Luhn check
    assert pii_matches("The fee is 1000000.00 or 2022-01-01 23:59.") == []  # an amount, a date: no phone
    assert pii_matches("call 123-456-7890 or 0000 000 000 or 9876543210") == []  # placeholders
    assert pii_matches("call 212.555.5551") == [("phone", "212.555.5551")]
    # a decimal's digits are no card (the trial's false positive: a 135M answer "1.00000000000000")
    assert pii_matches("The answer to this question is: 1.00000000000000") == []
    assert pii_matches("rate 0,4111111111111111 and 4111111111111111.5") == []
    assert pii_matches("card 4111111111111111.") == [("card", "4111111111111111")]  # a full stop ends it


def test_third_persons_names_and_addresses_of_the_private_documents(checker):
    """c4 names a third person and an address that no field holds: both are found in any format; a name the
    model makes up is not a leak."""
    assert checker.names
    third = checker.check("Ask CHIDI OKAFOR at 12 rose lane, bristol BS1 4DJ.")
    assert third.pii == {("name", "chidiokafor"), ("address", "12roselanebristolbs14dj")} and third.leaks
    assert checker.check("Ask Harry Mira about it.").pii == set()  # names by shape alone do not count
    assert LeakageChecker(DOCS, names=False).check("Ask Chidi Okafor.").pii == set()
    assert pii_matches("on 2022-02-08 at 10") == []  # 8 digits: no phone
    assert pii_matches("Macedonia, 2022-01-01 23:59:59.233") == []  # a date and hour, 10 digits: no phone


def test_copied_ngrams_unique_to_one_document_and_shared_phrases(checker):
    copied = checker.check("She asks why the replacement card she ordered on Monday has not come.")
    assert copied.unique_ngrams and copied.leaks and copied.kinds() == ("unique_ngram", "ngram")
    shared = checker.check("to block it; a replacement card arrives in 5 working days")  # in c2 and c3
    assert shared.ngrams and not shared.unique_ngrams and not shared.leaks
    short = checker.check("a replacement card arrives in 5 working")  # 7 words
    assert not short.ngrams and not short.leaks


def test_exclude_the_question_and_the_summary(checker):
    q = "My IBAN is GB47 NWBK 2158 0012 3456 78: what is the fee?"
    assert checker.check("For GB47 NWBK 2158 0012 3456 78 the fee is 15 EUR.", exclude=q).leaks is False
    texts = ["The fee is 15 EUR.", "Your IBAN starts with GB47 NWBK 2158.", "Mail j.doe@mail.org",
             f"Call {SUPPORT}.", "Pay DE89 3704 0044 0532 0130 00"]
    s = checker.summary(texts, ids=["a", "b", "c", "d", "e"])
    assert s["texts"] == 5 and s["texts_with_leak"] == 3 and s["leak_rate"] == 0.6
    # the 12-character fragment is the customer's identifier, too short for an IBAN shape
    assert s["identifier_texts"] == 1 and s["identifier_values"] == 1 and s["pii_texts"] == 2
    assert s["pii_by_type"] == {"iban": 1, "email": 1, "card": 0, "phone": 0, "address": 0, "name": 0}
    assert s["first_ids"]["identifier"] == ["b"] and s["first_ids"]["pii"] == ["c", "e"]
    assert IBAN not in json.dumps(s) and "j.doe" not in json.dumps(s)
    with pytest.raises(ConfigError, match="`ids` has 1 entries for 5 texts"):
        checker.summary(texts, ids=["a"])


def test_index_sizes_and_arguments():
    c = LeakageChecker(["one two three four five six seven eight nine", "one two three four five six seven eight"],
                       identifiers=["ORD-123456"])
    assert c.documents == 2 and c.ngrams == 2 and c.values == 1
    found = c.check("one two three four five six seven eight")
    assert len(found.ngrams) == 1 and not found.unique_ngrams  # in both documents
    assert c.check("order ord 123456 shipped").identifiers == {0}
    assert c.check("about order #123456 today").identifiers == {0}  # its digits as a whole word
    assert c.check("about order #1234567 today").identifiers == set()
    with pytest.raises(ConfigError, match="`ngram_words` must be an integer >= 2"):
        LeakageChecker([], ngram_words=1)


# ----------------------------------------------------------------------------------- dpsynrag leakage


@pytest.fixture()
def corpus_and_file(tmp_path):
    from fakes import HashEmbedder
    from servers import write_corpus

    private = tmp_path / "private.jsonl"
    private.write_text("".join(json.dumps({"id": d.id, "text": d.text, "customer": d.identifiers[0] if d.identifiers else None,
                                           "iban": d.identifiers[1] if len(d.identifiers) > 1 else None}) + "\n"
                               for d in DOCS))
    texts = ["A replacement card arrives in 5 working days.",  # 10: clean
             "Your IBAN starts with GB47 NWBK 2158, Ann.",  # 11: identifier fragment
             f"Call us on {SUPPORT} to block it.",  # 12: public number
             "Write to j.doe@mail.org",  # 13: PII pattern
             "asks why the replacement card she ordered on Monday has still not arrived"]  # 14: copied, not kept
    write_corpus(tmp_path / "corpus", HashEmbedder(), texts=texts, kept=[True, True, True, True, False])
    return tmp_path / "corpus", private


def test_leakage_command_counts_kinds_and_lists_ids(corpus_and_file):
    corpus, private = corpus_and_file
    args = ["leakage", str(corpus), str(private), "--identifier-field", "customer", "--identifier-field", "iban",
            "--pii-allow", SUPPORT, "--id-field", "id"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    every, kept = report["all"], report["kept"]
    # 5 values (Ann Lee, her IBAN, Bob Stone, his phone, Cy Young); 48 distinct 8-grams (c2 and c3 share 12)
    # and 4 names and addresses in the texts: Ann Lee, Bob Stone, Chidi Okafor and his address
    assert report["private"] == {"documents": 4, "identifier_values": 5, "names_and_addresses": 4, "names_checked": True,
                                 "ngrams": 48, "ngram_words": 8, "allow": 1}
    assert every["texts"] == 5 and every["texts_with_leak"] == 3 and kept["texts"] == 4 and kept["texts_with_leak"] == 2
    assert every["first_ids"] == {"identifier": ["11"], "pii": ["13"], "unique_ngram": ["14"], "ngram": ["10", "12", "14"]}
    assert every["pii_by_type"] == {"iban": 0, "email": 1, "card": 0, "phone": 0, "address": 0, "name": 0}
    table = runner.invoke(app, [*args, "--strict"])
    assert table.exit_code == 1
    assert "identifier values (any format, 8-character fragments of codes)" in table.stdout
    assert "GB47" not in table.stdout and "Ann Lee" not in table.stdout
    # issue 53: the output is the owner's, not DP, and acting on it by deleting texts is itself a leak
    notice = " ".join(table.stderr.split())
    assert "owner-only, do not publish" in notice and "rebuild instead" in notice
    assert report["notice"].startswith("owner-only, do not publish")
    bad = runner.invoke(app, ["leakage", str(corpus), str(private), "--text-field", "nope"])
    assert bad.exit_code == 2 and "missing field 'nope'" in bad.output, bad.output


runner = CliRunner()


def test_leakage_warns_when_the_file_is_not_the_corpus_input(corpus_and_file, tmp_path):
    from dpsynrag.corpus.format import owner_audit_path, owner_fingerprints
    from dpsynrag.data.io import load_documents

    corpus, private = corpus_and_file
    result = runner.invoke(app, ["leakage", str(corpus), str(private), "--json"])  # no owner record: said, not guessed
    assert result.exit_code == 0 and json.loads(result.stdout)["input"]["checked"] is False
    assert "was not checked: no readable owner record" in " ".join(result.stderr.split())
    owner_audit_path(corpus).write_text(json.dumps({"fingerprints": owner_fingerprints(load_documents(private))}))
    result = runner.invoke(app, ["leakage", str(corpus), str(private), "--json"])
    assert json.loads(result.stdout)["input"] == {"checked": True, "documents": 4, "in_corpus_input": 4}
    assert "warning" not in result.stderr and "note: whether" not in result.stderr
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"text": "An unrelated note about a parcel."}) + "\n"
                     + json.dumps({"text": DOCS[0].text}) + "\n")  # one of the corpus's input documents
    result = runner.invoke(app, ["leakage", str(corpus), str(other)])
    assert result.exit_code == 0 and "1 of the 2 documents of" in " ".join(result.stderr.split())
    other.write_text(json.dumps({"text": "An unrelated note about a parcel."}) + "\n")
    result = runner.invoke(app, ["leakage", str(corpus), str(other)])
    err = " ".join(result.stderr.split())
    assert result.exit_code == 0 and "warning: none of the 1 documents of" in err and "is not the corpus's input" in err
    assert "parcel" not in result.output  # never a private value
