"""Issue 42, defect 2: a document (and a person) is recognised across files, line endings and whitespace;
issue 53: and across invisible format characters and compatibility forms.

The ledger keyed a document by its exact bytes, so the same 400 documents with a trailing space, a doubled
space or CRLF line endings got a fresh budget, and ``--extend`` took them as new. These tests fail on the
exact-bytes rule and pass with the normal form of :mod:`dpsynrag.textkeys`.
"""

from __future__ import annotations

import hashlib
import sqlite3
import unicodedata
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsynrag.data.io import Document, cut_text, load_documents
from dpsynrag.errors import PrivacyBudgetExceededError
from dpsynrag.pipeline.units import PrivacyUnits
from dpsynrag.privacy.charge import prepare_charge
from dpsynrag.privacy.fingerprints import (
    EXACT_TEXT,
    NORMALIZED_TEXT,
    dataset_fingerprint,
    unit_fingerprint_per_document,
    unit_fingerprints,
)
from dpsynrag.privacy.ledger import PrivacyLedger
from dpsynrag.privacy.lifetime import lifetime_epsilon
from dpsynrag.textkeys import (
    COMPATIBILITY,
    NFC,
    TextKeyHasher,
    nfc_text_key,
    normalized_text,
    text_key,
    text_key_of_utf8,
    unit_key,
)

TEXTS = [f"Dear bank,\nmy card {i} was blocked  at the till.\nPlease call me back.\nThanks" for i in range(400)]
PLAN = SimpleNamespace(rho=1.0, delta=0.0)
DELTA = 1e-6
ONE = lifetime_epsilon(1.0, 0.0, DELTA)
TWO = lifetime_epsilon(2.0, 0.0, 2 * DELTA)


def _charge(led, docs, label="x"):
    return prepare_charge(led, docs, PLAN, delta=DELTA, kind="build", method="dp-synrag", label=label).commit()


def _variants(texts):
    """The issue's edits: a trailing space and one doubled space each; CRLF line endings; decomposed accents."""
    return {
        "trailing and doubled space": [t.replace(" ", "  ", 1) + " " for t in texts],
        "CRLF": [t.replace("\n", "\r\n") for t in texts],
        "tabs and no-break spaces": [t.replace(" ", "\t", 1).replace(" ", "\u00a0", 1) for t in texts],
    }


WIDE = str.maketrans({c: chr(ord(c) + 0xFEE0) for c in "0123456789"})  # full-width digits


def _invisible_variants(texts):
    """Issue 53's edits: a zero-width space, a soft hyphen, a byte-order mark, full-width digits."""
    return {
        "zero-width space": [t.replace("card", "ca\u200brd") for t in texts],
        "soft hyphen": [t.replace("blocked", "bloc\u00adked") for t in texts],
        "byte-order mark": ["\ufeff" + t for t in texts],
        "full-width digits": [t.translate(WIDE) for t in texts],
    }


@pytest.mark.parametrize("a, b", [
    ("a b\nc", "a  b\r\nc "), ("  x\ty\u00a0z\u2028", "x y z"), ("caf\u00e9", "cafe\u0301"), ("x\r\r\ny", "x y"),
])
def test_texts_that_differ_only_in_whitespace_or_nfc_share_a_key(a, b):
    assert normalized_text(a) == normalized_text(b)
    assert text_key(a) == text_key(b) == hashlib.sha256(normalized_text(a).encode()).digest()


@pytest.mark.parametrize("a, b", [("Card blocked", "card blocked"), ("fee: 15 EUR", "fee 15 EUR"), ("ab", "a b")])
def test_other_edits_make_another_document(a, b):
    assert text_key(a) != text_key(b)


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=6), max_size=30),
       seps=st.lists(st.sampled_from([" ", "  ", "\n", "\r\n", "\t", "\u00a0", "\u3000"]), min_size=31, max_size=31),
       cuts=st.lists(st.integers(0, 400), max_size=6))
def test_the_key_in_pieces_equals_the_key_of_the_whole(words, seps, cuts):
    """Any text, fed in pieces cut anywhere (also inside a word or a combining sequence), or as UTF-8 bytes
    cut inside a character, has the key of the whole."""
    text = "".join(w + s for w, s in zip(words, seps))
    bounds = sorted({0, len(text), *(c for c in cuts if c < len(text))})
    data = text.encode("utf-8")
    byte_bounds = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    compatible = " ".join(unicodedata.normalize("NFKC", "".join(c for c in text if not _invisible(c))).split())
    nfc = unicodedata.normalize("NFC", " ".join(text.split()))
    for rule, key, normal in ((COMPATIBILITY, text_key, compatible), (NFC, nfc_text_key, nfc)):
        hasher = TextKeyHasher(rule)
        for lo, hi in zip(bounds, bounds[1:]):
            hasher.update(text[lo:hi])
        whole = hashlib.sha256(normal.encode("utf-8")).digest()
        assert hasher.digest() == key(text) == whole
        assert text_key_of_utf8((data[lo:hi] for lo, hi in zip(byte_bounds, byte_bounds[1:])), rule) == whole


def test_a_long_text_is_keyed_in_chunks_as_a_whole(monkeypatch):
    import dpsynrag.textkeys as tk

    text = ("word \u00e9\r\n" * 50) + "tail"
    expected = text_key(text)
    monkeypatch.setattr(tk, "_CHUNK", 7)  # chunks cut inside words and CRLF pairs
    assert tk.text_key(text) == expected


def test_a_text_cut_at_read_time_keeps_the_key_of_its_whole_text(tmp_path):
    long = "alpha beta\r\n" * 100
    cut, digest, key = cut_text(long, 50)
    assert len(cut) == 50 and digest == hashlib.sha256(long.encode()).digest()
    assert key == text_key(long) + nfc_text_key(long)  # today's key, then issue 42's (for earlier ledgers)
    (tmp_path / "a.jsonl").write_text('{"text": "%s"}\n' % long.replace("\r\n", "\\r\\n"), encoding="utf-8")
    (tmp_path / "b.jsonl").write_text('{"text": "%s"}\n' % long.replace("\r\n", "  "), encoding="utf-8")
    a = load_documents(tmp_path / "a.jsonl", max_chars=50)
    b = load_documents(tmp_path / "b.jsonl", max_chars=50)
    assert a[0].text_key == b[0].text_key == key and a[0].text_sha256 != b[0].text_sha256
    assert unit_fingerprints(a, b"k" * 32) == unit_fingerprints(b, b"k" * 32)


@pytest.mark.parametrize("edit", sorted({**_variants(["x"]), **_invisible_variants(["x"])}))
def test_the_same_documents_reformatted_get_no_fresh_budget(tmp_path, edit):
    """The issues' cases: 400 documents built once, then the same 400 with whitespace edits or CRLF (issue 42),
    or a zero-width space, a soft hyphen, a BOM or full-width digits (issue 53): the second release is refused
    at a lifetime budget that allows one release, and composes without a limit."""
    led = PrivacyLedger(tmp_path / "a", lifetime_epsilon=(ONE + TWO) / 2)
    _charge(led, TEXTS, "first")
    edited = {**_variants(TEXTS), **_invisible_variants(TEXTS)}[edit]
    assert all(e != t for e, t in zip(edited, TEXTS))
    with pytest.raises(PrivacyBudgetExceededError, match=r"400 document\(s\)"):
        _charge(led, edited, "edited")
    open_led = PrivacyLedger(tmp_path / "b")
    _charge(open_led, TEXTS, "first")
    _charge(open_led, edited, "edited")
    u = open_led.unit_totals()
    assert u["units"] == 400 and u["at_max"] == 400 and u["max"]["releases"] == 2
    assert u["max"]["epsilon"] == pytest.approx(TWO, rel=1e-12)
    assert dataset_fingerprint(edited) == dataset_fingerprint(TEXTS)


def test_person_keys_are_matched_in_normal_form(tmp_path):
    assert unit_key("Alice Smith") == unit_key("alice  smith ") == unit_key("ALICE\tSMITH") == "alice smith"
    assert unit_key("Ren\u00e9e") == unit_key("RENE\u0301E")
    assert unit_key("Alice Smith") != unit_key("Alice Smyth")
    docs = [Document("0", "a", unit="Alice Smith"), Document("1", "b", unit="alice  smith"),
            Document("2", "c", unit="Bob")]
    units = PrivacyUnits.from_documents(docs, "person")
    assert len(units) == 2 and units.unit_of.tolist() == [0, 0, 1]
    key = b"k" * 32
    assert len(unit_fingerprints(docs, key)) == 2
    led = PrivacyLedger(tmp_path, lifetime_epsilon=(ONE + TWO) / 2)
    _charge(led, [Document("0", "x", unit="Alice Smith")])
    with pytest.raises(PrivacyBudgetExceededError):
        _charge(led, [Document("9", "another text", unit="ALICE  SMITH")])


@pytest.mark.parametrize("a, b", [
    ("card 12 blocked", "ca\u200brd 12 blocked"), ("card 12 blocked", "card 12 bloc\u00adked"),
    ("card 12 blocked", "\ufeffcard 12 blocked"), ("card 12 blocked", "card \uff11\uff12 blocked"),
    ("the \ufb01le", "the file"), ("x\u2060y", "xy"), ("caf\u00e9\u200d", "cafe\u0301"),
])
def test_texts_that_differ_only_in_invisible_or_compatibility_characters_share_a_key(a, b):
    assert normalized_text(a) == normalized_text(b)
    assert text_key(a) == text_key(b) and nfc_text_key(a) != nfc_text_key(b)  # issue 42's rule told them apart


def _invisible(c: str) -> bool:
    """The characters the normal form removes, written out from Unicode's definitions: format (Cf), controls
    that are not whitespace, and Default_Ignorable_Code_Point (DerivedCoreProperties.txt) beyond Cf, and U+2800."""
    o = ord(c)
    return (unicodedata.category(c) == "Cf" or unicodedata.category(c) == "Cc" and not c.isspace()
            or o in (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0) or 0x180B <= o <= 0x180F
            or 0xFE00 <= o <= 0xFE0F or 0xFFF0 <= o <= 0xFFF8 or 0xE0000 <= o <= 0xE0FFF)


@pytest.mark.parametrize("char", ["\u034f", "\ufe0f", "\u3164", "\u2800", "\x00", "\x7f", "\U000e0041", "\U000e0100",
                                  "\u180e", "\u115f", "\uffa0", "\x9f"])
def test_other_invisible_characters_make_no_other_document(char):
    """A new user's edits that passed the first version of issue 53's rule (it removed only Cf): a combining
    grapheme joiner, a variation selector, a Hangul filler, the blank Braille cell, control characters."""
    assert text_key("Ag" + char + "ent said hello") == text_key("Agent said hello")
    assert unit_key("Ali" + char + "ce Smith") == unit_key("alice smith")


def test_person_keys_ignore_invisible_and_compatibility_characters():
    assert unit_key("Alice\u200bSmith") == unit_key("alicesmith")
    assert unit_key("\uff21lice Smith") == unit_key("ALICE\u00ad SMITH") == "alice smith"
    assert unit_key("Stra\u00dfe") == unit_key("STRASSE")  # case folding as before
    assert unit_key("\ufeffBob") == unit_key("bob") != unit_key("bobby")


def _old_register(path, docs, rho, rule=EXACT_TEXT):
    """What an earlier dpsynrag wrote: the collection's units keyed under ``rule`` (before issue 42 their exact
    texts; from issue 42 to 53 issue 42's normal form), one release; the ledger without the rule's mark (as a
    ledger this version opens for the first time)."""
    key = PrivacyLedger(path).key
    name = dataset_fingerprint(docs, rule=rule)
    fps = set(unit_fingerprint_per_document(docs, key, rule=rule))
    db = sqlite3.connect(path / "ledger.sqlite")
    with db:
        db.execute("DELETE FROM meta WHERE key = ?", ("exact_text_units" if rule == EXACT_TEXT else "nfc_text_units",))
        db.execute("INSERT INTO datasets VALUES (?, ?, 'document', '2026-01-01T00:00:00+00:00')", (name, len(fps)))
        db.executemany("INSERT INTO dataset_units VALUES (?, ?)", ((name, f) for f in fps))
        db.executemany("INSERT INTO units (unit, rho, delta, releases) VALUES (?, ?, ?, 1)", ((f, rho, DELTA) for f in fps))
        db.execute("INSERT INTO releases (dataset, created, kind, method, label, count, rho, delta_terms, delta, applied) "
                   "VALUES (?, '2026-01-01T00:00:00+00:00', 'build', 'dp-synrag', 'old', 1, ?, 0.0, ?, 1)",
                   (name, rho, DELTA))
    db.close()


def test_a_ledger_of_issue_42s_rule_keeps_its_releases_binding(tmp_path):
    wide = _invisible_variants(TEXTS)["full-width digits"]
    _old_register(tmp_path / "a", wide, 1.0, NORMALIZED_TEXT)  # the version of issue 42 read the full-width file
    led = PrivacyLedger(tmp_path / "a", lifetime_epsilon=(ONE + TWO) / 2)
    assert led.legacy_rules == (NORMALIZED_TEXT,) and not led.exact_text_units
    with pytest.raises(PrivacyBudgetExceededError, match=r"400 document\(s\)"):
        _charge(led, wide, "the full-width file again")  # the old spend is carried onto today's keys...
    with pytest.raises(PrivacyBudgetExceededError, match=r"400 document\(s\)"):
        _charge(led, TEXTS, "the ASCII copy")  # ...so from then on every form of these documents carries it
    # carried once: with no limit, the old release and three new ones compose to rho 4, not more
    _old_register(tmp_path / "b", wide, 1.0, NORMALIZED_TEXT)
    open_led = PrivacyLedger(tmp_path / "b")
    _charge(open_led, wide, "full-width again")
    _charge(open_led, TEXTS, "ASCII")
    _charge(open_led, wide, "full-width once more")
    u = open_led.unit_totals()
    assert u["max"]["rho"] == pytest.approx(4.0, rel=1e-12) and u["max"]["releases"] == 4 and u["at_max"] == 400


def test_a_new_ledger_marks_no_earlier_rule(tmp_path):
    assert PrivacyLedger(tmp_path).legacy_rules == ()


def test_a_ledger_written_before_keeps_its_exact_text_releases_binding(tmp_path):
    crlf = _variants(TEXTS)["CRLF"]
    _old_register(tmp_path / "a", crlf, 1.0)  # the old version read the CRLF file
    led = PrivacyLedger(tmp_path / "a", lifetime_epsilon=(ONE + TWO) / 2)
    assert led.exact_text_units
    with pytest.raises(PrivacyBudgetExceededError, match=r"400 document\(s\)"):
        _charge(led, crlf, "the CRLF file again")  # the old spend is carried onto the normal-form keys...
    with pytest.raises(PrivacyBudgetExceededError, match=r"400 document\(s\)"):
        _charge(led, TEXTS, "the LF copy")  # ...so from then on every form of these documents carries it
    # carried once: with no limit, the old release and two new ones compose to rho 3, not more
    _old_register(tmp_path / "b", crlf, 1.0)
    open_led = PrivacyLedger(tmp_path / "b")
    _charge(open_led, crlf, "CRLF again")
    _charge(open_led, TEXTS, "LF")
    _charge(open_led, crlf, "CRLF once more")
    u = open_led.unit_totals()
    assert u["max"]["rho"] == pytest.approx(4.0, rel=1e-12) and u["max"]["releases"] == 4
    assert u["at_max"] == 400


def test_a_new_ledger_registers_normal_form_only(tmp_path):
    led = PrivacyLedger(tmp_path)
    assert not led.exact_text_units
    _charge(led, _variants(TEXTS[:5])["CRLF"])
    assert led.unit_totals()["units"] == 5
