"""The owner's list of personal names (``--pii-names-file``; dpsynrag.data.pii_names, issue 51): a staff
directory's names are replaced however the employees sign (given name, "Priya S.", "P. Shah", a title and the
surname, initials), ordinary words stay, and the list itself never reaches the manifest, the checkpoint's
config dump or the log — only its count and SHA-256, in the owner record."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.data.io import Document
from dpsynrag.data.pii import PIIRedactor
from dpsynrag.data.pii_names import NameList, names_digest, read_names
from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER
from dpsynrag.errors import CheckpointError, ConfigError

R = DEFAULT_PLACEHOLDER
STAFF = ["Priya Shah", "Joy Green", "Dr Tom O'Brien", "Sara Moss", "Kate Mills", "Zainab"]


@pytest.fixture(scope="module")
def names():
    return NameList(STAFF)


@pytest.mark.parametrize("text, found", [
    ("Thanks, Priya S. from the team", ["Priya S."]),
    ("priya here, happy to help", ["priya"]),  # a given name that is no English word: any case
    ("Regards, P. Shah / P Shah / P.Shah", ["P. Shah", "P Shah", "P.Shah"]),
    ("SHAH", ["SHAH"]),  # a surname that is no English word, alone, any case
    ("Mr Green will call. agent green said", ["Mr Green", "agent green"]),  # an ordinary-word surname after a title
    ("J. Green wrote", ["J. Green"]),
    ("Joy (Billing)", ["Joy"]),  # an ordinary-word given name as written
    ("Tom O'Brien called", ["Tom O'Brien"]),  # the title of the list's line dropped
    ("^SM", ["SM"]),  # initials
    ("ZAINAB", ["ZAINAB"]),  # a one-word line
])
def test_the_forms_staff_sign_with_are_found(names, text, found):
    spans = names.spans(text)
    merged = []
    for s, e in spans:  # overlapping forms ("Priya" in "Priya S."): the widest
        if merged and s < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    assert [text[s:e] for s, e in merged] == found


@pytest.mark.parametrize("text", [
    "I felt such joy when the green bin came",  # ordinary words in lower case
    "The Green Waste service costs 40 pounds",  # an ordinary-word surname alone, capitalised
    "Priyanka and Shahid called",  # a name inside a longer word
    "It is 5 km away, OK?",  # initials that read as a frequent word ("KM" of Kate Mills)
    "Tomorrow at 9",
])
def test_ordinary_text_stays(names, text):
    assert names.spans(text) == []


def test_the_redactor_replaces_the_listed_names_whatever_the_entities():
    redact = PIIRedactor(model="none", entities=["EMAIL_ADDRESS"], names=STAFF)
    assert redact("Hi, Joy here. Kind regards, P. Shah") == f"Hi, {R} here. Kind regards, {R}"
    assert "names=6" in repr(redact) and "Priya" not in repr(redact)  # the names never reach a repr or a log
    plain = PIIRedactor(model="none", entities=["EMAIL_ADDRESS"])
    assert plain("Hi, Joy here. Kind regards, P. Shah") == "Hi, Joy here. Kind regards, P. Shah"


def test_an_allow_listed_product_survives_a_staff_name_inside_it():
    redact = PIIRedactor(model="none", allow=["Moss Saver Plan"], names=["Sara Moss"])
    assert redact("The Moss Saver Plan, said Sara Moss.") == f"The Moss Saver Plan, said {R}."


def test_read_names_skips_blanks_and_comments_and_refuses_an_empty_file(tmp_path):
    path = tmp_path / "staff.txt"
    path.write_text("# support team\nPriya Shah\n\n  Joy Green  \n", encoding="utf-8")
    assert read_names(path) == ("Priya Shah", "Joy Green")
    path.write_text("# nobody\n\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="holds no name"):
        read_names(path)
    path.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ConfigError, match="cannot read it as UTF-8"):
        read_names(path)
    with pytest.raises(ConfigError, match="holds no name"):
        NameList(["", "  "])
    assert names_digest(["a", "b"]) != names_digest(["b", "a"])


def _config(**kw):
    from dpsynrag.pipeline.config import BuildConfig

    return BuildConfig(epsilon=10.0, delta=1e-3, K=2, R=2, L=1, k=2, T=2, extractor="rarity", open_vocabulary=True,
                       self_filter=False, seed=0, **kw)


def test_the_names_are_excluded_from_every_dump_of_the_config():
    with pytest.raises(ValueError, match="`pii_names` needs `redact_pii`"):
        _config(pii_names=("Priya Shah",))
    config = _config(redact_pii=True, pii_names=("Priya Shah",))
    assert config.pii_names == ("Priya Shah",)
    assert "pii_names" not in config.model_dump() and "Priya" not in config.model_dump_json()
    assert "Priya" not in repr(config)
    assert config.model_copy(update={"T": 3}).pii_names == ("Priya Shah",)


def test_a_resume_with_another_list_is_refused(tmp_path):
    from dpsynrag.pipeline.checkpoint import BuildCheckpoint

    docs = [Document("0", "hello")]
    first = BuildCheckpoint(tmp_path / "c")
    first.open(docs, _config(redact_pii=True, pii_names=("Priya Shah",)))
    first._save("keywords.json", [["hello"]])  # the state is written with the first checkpoint
    state = json.loads((first.path / "state.json").read_text(encoding="utf-8"))
    assert state["pii_names_sha256"] == names_digest(["Priya Shah"]) and "Priya" not in json.dumps(state)
    for other in (("Joy Green",), ()):
        again = BuildCheckpoint(tmp_path / "c", resume=True)
        with pytest.raises(CheckpointError, match=r"configuration changed .*pii_names \(the --pii-names-file list\)"):
            again.open(docs, _config(redact_pii=True, pii_names=other) if other else _config(redact_pii=True))
    same = BuildCheckpoint(tmp_path / "c", resume=True)
    same.open(docs, _config(redact_pii=True, pii_names=("Priya Shah",)))


@pytest.mark.filterwarnings("ignore:the released keyword", "ignore:only 1 keyword", "ignore:the target cluster size")
def test_a_build_redacts_the_names_and_records_only_their_digest_for_the_owner(tmp_path, tiny_lm):
    from fakes import HashEmbedder

    from dpsynrag.corpus.format import owner_audit_path
    from dpsynrag.pipeline.build import build_corpus

    docs = [Document(str(i), f"Refund sent today. Kind regards, Priya S. ({i})") for i in range(30)]
    config = _config(redact_pii=True, pii_names=("Priya Shah",))

    corpus = build_corpus(docs, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    run_docs = [p.read_text(encoding="utf-8", errors="ignore") for p in (tmp_path / "c").rglob("*") if p.is_file()]
    assert not any("Priya" in text for text in run_docs)  # neither the names nor a text holding one
    assert corpus.manifest["redaction"]["pii"]["owner_names"].startswith("the owner's list of personal names")
    owner = json.loads(owner_audit_path(tmp_path / "c").read_text(encoding="utf-8"))
    assert owner["pii_names"] == {"names": 1, "sha256": names_digest(["Priya Shah"])}
    assert owner["redaction_counts"]["spans"]["PERSON"] == 30


def test_cli_reads_the_file_and_needs_the_pass(tmp_path, capture):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"text": "Thanks, Joy (Billing)"}) + "\n", encoding="utf-8")
    staff = tmp_path / "staff.txt"
    staff.write_text("Joy Green\n", encoding="utf-8")
    args = ["build", str(data), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3",
            "--method", capture.name, "--no-self-filter", "--pii-names-file", str(staff)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0 and "--pii-names-file needs --redact-pii" in result.output, result.output
    result = CliRunner().invoke(app, [*args, "--redact-pii", "--pii-model", "none"])
    assert result.exit_code == 2 and "captured" in result.output, result.output
    assert capture.seen["config"].pii_names == ("Joy Green",)
    assert capture.seen["texts"] == [f"Thanks, {R} (Billing)"]
