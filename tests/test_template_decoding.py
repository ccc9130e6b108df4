"""Slot-template decoding (dpsynrag.models.template_selector): parsing, the skeleton written token for token,
the law of a slot's draw on hand-made logits (banned tokens never drawn), the cap of drawn tokens whatever the
model does, one ledger charge per drawn token and none per literal token, batch invariance, and a build with a
template (config errors, plan, report)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import make_tiny_tokenizer
from scipy.stats import chisquare

from fakes import NOTES
from dpsynrag.errors import ConfigError
from dpsynrag.models import PrivatePredictionDecoder
from dpsynrag.models.decoding import RowLayout, decode
from dpsynrag.models.private_selectors import PaperSelector, PublicPriorSelector
from dpsynrag.models.template_selector import ResponseTemplate, TemplateParts, TemplateSelector
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import PrivatePredictionTokenEvent
from dpsynrag.privacy.prediction import clip_logits
from dpsynrag.rng import SeededRandom

ALPHA = 1e-6  # false-failure rate of the chi-square test (seeded: a run is reproducible)
TOK = make_tiny_tokenizer()
VOCAB = len(TOK)
EOS = TOK.convert_tokens_to_ids("[EOS]")


def ids(text: str) -> list[int]:
    return list(TOK(text, add_special_tokens=False)["input_ids"])


def template(text: str) -> ResponseTemplate:
    return ResponseTemplate.build(text, TOK, vocab_size=VOCAB, eos=[EOS])


def selector(tpl: ResponseTemplate, n: int, *, T: int, clip=1.0, tau=1.0, seed=0, accountants=None):
    accountants = accountants if accountants is not None else [ZCDPAccountant() for _ in range(n)]
    base = PaperSelector(VOCAB, clip=clip, temperature=tau, accountants=accountants,
                         random=[SeededRandom(seed).child(f"g{g}") for g in range(n)])
    return TemplateSelector(base, tpl, max_paid=T)


# ---------------------------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------------------------


def test_parse_splits_literals_slots_and_caps():
    p = TemplateParts.parse("Given ({24}) of X. The diagnosis is {}, done {{ok}}.")
    assert p.literals == ("Given (", ") of X. The diagnosis is ", ", done {ok}.")
    assert p.caps == (24, None)
    assert p.terminators == (")", ",")
    assert TemplateParts.parse("{3}").literals == ("", "") and TemplateParts.parse("{3}").terminators == (None,)


@pytest.mark.parametrize("text, message", [
    ("no slot here", "has no slot"),
    ("a {x} b", r"the slot \{x\} is neither"),
    ("a {0}.", r"the slot \{0\} is neither"),
    ("a {1:>3}.", "is neither"),
    ("{}{}.", "two slots need public text between them"),
    ("a {} b", "must start with a visible character"),
    ("a { b", "expected '}'"),
    ("", "non-empty"),
    ("a {²}.", r"the slot \{²\} is neither"),  # a digit that int() reads is still not a decimal N
])
def test_parse_refuses_bad_templates(text, message):
    with pytest.raises(ConfigError, match=message):
        TemplateParts.parse(text)


def test_literals_are_tokenized_with_and_without_their_terminator():
    tpl = template("the patient has {3}. the doctor has {}")
    assert tpl.opening == ids("the patient has")
    assert tpl.after_cap == [ids(". the doctor has"), []]
    assert tpl.after_end == [ids("the doctor has"), []]
    assert tpl.free_tokens == 3 + 4
    banned, ends = tpl.slot_masks()
    assert banned[1] is None and ends[1] is None  # a last slot: no terminator, EOS allowed
    assert ends[0][ids(".")[0]] and int(ends[0].sum()) == 1  # word-level vocabulary: "." alone ends the slot
    assert bool(banned[0][EOS]) and int(banned[0].sum()) == 1  # a literal follows: no EOS in the slot


def test_masks_of_a_byte_level_vocabulary():
    """With a BPE vocabulary a token may hold the terminator inside ('),' or ').'): banned in that slot; a token
    ending with it ends the slot."""
    texts = ["a", ")", "),", " )", "x)y", "(", ",", "<eos>"]

    class Tok:
        def __call__(self, text, add_special_tokens=False):
            return {"input_ids": [texts.index(ch) for ch in text if ch in texts]}

        def batch_decode(self, rows):
            return [texts[r[0]] for r in rows]

    tpl = ResponseTemplate.build("({})", Tok(), vocab_size=len(texts), eos=[7])
    banned, ends = tpl.slot_masks()
    assert banned[0].tolist() == [False, False, True, False, True, False, False, True]
    assert ends[0].tolist() == [False, True, False, True, False, False, False, False]


# ---------------------------------------------------------------------------------------------
# the selector on hand-made logits
# ---------------------------------------------------------------------------------------------


def test_a_slot_draw_follows_the_exponential_mechanism_over_the_allowed_tokens():
    """First step of "{}. the": every group draws from softmax(clip_c(l)/τ) with EOS removed (it would end the
    text before its literal). Chi-square over the allowed tokens; EOS never drawn."""
    tpl = template("{}. the")
    n, clip, tau = 20_000, 1.5, 0.7
    logits = torch.zeros(1, 64)
    logits[0, :VOCAB] = torch.linspace(-3.0, 3.0, VOCAB)
    logits[0, EOS] = 5.0  # the model wants to stop: the template does not let it
    rows = logits.expand(n, -1).contiguous()
    sel = selector(tpl, n, T=4, clip=clip, tau=tau)
    out = sel.select(rows, RowLayout.one_row_per_group(n), np.zeros(n, dtype=bool))
    z = clip_logits(logits[:, :VOCAB], clip)[0].double() / tau
    z[EOS] = -np.inf
    p = torch.softmax(z, dim=0).numpy()
    counts = np.bincount(out, minlength=VOCAB)
    assert counts[EOS] == 0
    allowed = p > 0
    assert chisquare(counts[allowed], p[allowed] * n).pvalue > ALPHA
    token = PrivatePredictionTokenEvent("private prediction token", clip, tau)
    assert all([e.event for e in acc.ledger] == [token] for acc in sel.base.accountants)


def _walk(tpl: ResponseTemplate, text: list[int], T: int) -> tuple[int, list[int]]:
    """Check ``text`` against the template by hand; returns (drawn tokens, drawn per slot)."""
    banned, ends = tpl.slot_masks()
    caps = tpl.parts.caps
    pos, drawn, per_slot = 0, 0, []

    def literal(tokens):
        nonlocal pos
        assert text[pos:pos + len(tokens)] == tokens[:len(text) - pos]
        pos += len(tokens)

    literal(tpl.opening)
    for s in range(len(caps)):
        if drawn >= T:  # no budget left: the text ended before this slot
            break
        k = 0
        while pos < len(text) and drawn < T:
            t = text[pos]
            assert banned[s] is None or not bool(banned[s][t])
            pos, k, drawn = pos + 1, k + 1, drawn + 1
            if ends[s] is not None and ends[s][t]:
                literal(tpl.after_end[s])
                break
            if caps[s] is not None and k == caps[s]:
                literal(tpl.after_cap[s])
                break
        per_slot.append(k)
    assert pos >= len(text)
    return drawn, per_slot


@pytest.mark.parametrize("seed", range(40))
def test_the_skeleton_is_written_and_the_caps_hold_whatever_the_draws(seed):
    """Uniform draws (no model row: z = 0): whatever is drawn, the literal tokens sit where the template puts
    them, a slot never exceeds its cap, a text never draws more than T, and each drawn token is charged once."""
    tpl = template("the patient has {3}. the doctor has {2}, and {}")
    T, n = 6, 8
    accs = [ZCDPAccountant() for _ in range(n)]
    sel = selector(tpl, n, T=T, seed=seed, accountants=accs)
    out = decode(None, RowLayout(torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.bool), n), sel,
                 steps=T + tpl.free_tokens, eos=[EOS])
    for text, acc, paid in zip(out, accs, sel.paid):
        drawn, per_slot = _walk(tpl, text, T)
        assert paid == len(acc.ledger) <= T
        # every drawn token is in the text, but for an EOS drawn in the last slot (charged, ends the text)
        assert drawn == paid or (drawn == paid - 1 and len(per_slot) == 3)
        assert all(k <= c for k, c in zip(per_slot, (3, 2, T)))
        assert text[:3] == ids("the patient has")
        assert acc.rho == pytest.approx(paid * 0.5)  # (c/τ)²/2 = 1/2 per drawn token, nothing per literal


def test_a_text_ends_when_its_template_is_complete():
    """Every slot drawn at its cap of one token with a terminator never drawn: the text is the whole skeleton."""
    tpl = template("the {1}. patient {1}.")
    sel = selector(tpl, 1, T=5)
    sel.banned_in = [torch.as_tensor(np.arange(VOCAB) == ids(".")[0]) | sel.banned_in[0]] * 2
    out = decode(None, RowLayout(torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.bool), 1), sel,
                 steps=5 + tpl.free_tokens, eos=[EOS])[0]
    assert len(out) == 1 + 1 + 2 + 1 + 1 and out[0] == ids("the")[0] and out[2:4] == ids(". patient")
    assert out[-1] == ids(".")[0] and int(sel.paid[0]) == 2


def test_a_selector_needs_a_private_base_and_a_template():
    tpl = template("a {}.")
    with pytest.raises(ConfigError, match="PrivateSelector"):
        TemplateSelector(object(), tpl, max_paid=3)
    base = PaperSelector(VOCAB, clip=1.0, temperature=1.0, random=SeededRandom(0))
    with pytest.raises(ConfigError, match="ResponseTemplate"):
        TemplateSelector(base, "a {}.", max_paid=3)


# ---------------------------------------------------------------------------------------------
# the decoder with a model
# ---------------------------------------------------------------------------------------------


def _decoder(lm, T, text="the patient has {3}. the doctor has {}", **kw):
    return PrivatePredictionDecoder(lm, clip=0.5, temperature=1.0, max_new_tokens=T, random=SeededRandom(3),
                                    response_template=text, **kw)


def test_decoder_charges_only_drawn_tokens(tiny_lm):
    p = [tiny_lm.chat_prompt(f"rephrase the following document : {d}") for d in ["the patient has fever", "blue skin"]]
    T = 5
    dec = _decoder(tiny_lm, T)
    assert dec.steps == T + dec.template.free_tokens
    accs = [ZCDPAccountant() for _ in range(3)]
    out = dec.generate_ids([p, [], p[:1] * 3], accs)
    token = PrivatePredictionTokenEvent("private prediction token", 0.5, 1.0)
    for text, acc in zip(out, accs):
        drawn, _ = _walk(dec.template, text, T)
        assert [e.event for e in acc.ledger] == [token] * len(acc.ledger)
        assert len(acc.ledger) <= T and drawn <= len(acc.ledger)  # an EOS drawn in the last slot is charged, not kept
        assert text[:3] == ids("the patient has")
    assert dec.selector.describe()["response_template"] == "the patient has {3}. the doctor has {}"
    with pytest.raises(ConfigError, match="sparse-vector"):
        from dpsynrag.privacy.events import SparseVectorEvent

        run = SparseVectorEvent("run", epsilon1=0.4, epsilon2=0.6, beta=0.5, gap=2.0, grid=10)
        _decoder(tiny_lm, T, public_prompt="x", decoding="public-prior", svt_max_paid=2, svt_run=run)
    with pytest.raises(ConfigError, match="no slot"):
        _decoder(tiny_lm, T, text="no slot")


@pytest.mark.parametrize("engine", ["shared", "fast", "generic"])
def test_template_text_does_not_depend_on_other_clusters(tiny_lm_factory, engine):
    lm = tiny_lm_factory(engine=engine)
    docs = ["the patient has fever", "blue skin and rash", "old red eye", "the doctor has a test", "bad blood"]
    p = [lm.chat_prompt(f"rephrase the following document : {d}") for d in docs]
    watched = [p[0], p[1], p[0]]
    mates = [[p[2], p[3]], [], p, [p[4]] * 3]

    def run(clusters, idx):
        dec = _decoder(lm, 6, public_prompt=lm.chat_prompt("rephrase"), decoding="public-prior")
        streams = [SeededRandom(5).child(f"cluster-{i}") for i in idx]
        return dec.generate_ids(clusters, [ZCDPAccountant() for _ in clusters], streams=streams)

    alone = run([watched], [7])[0]
    among = run(mates[:2] + [watched] + mates[2:], [0, 1, 7, 2, 3])[2]
    assert alone == among and len(alone) > 3


def test_public_prior_base_works_under_the_template():
    """The public row continues the same skeleton: a public-prior text keeps the literal tokens too."""
    n = 2
    tpl = template("{2}. the")
    accs = [ZCDPAccountant() for _ in range(n)]
    base = PublicPriorSelector(VOCAB, clip=1.0, temperature=1.0, accountants=accs,
                               random=[SeededRandom(1).child(str(g)) for g in range(n)])
    sel = TemplateSelector(base, tpl, max_paid=2)
    logits = torch.randn(4, 64, generator=torch.Generator().manual_seed(0))
    layout = RowLayout.build([0, 0, 1, 1], [False, True, False, True], n)
    tokens = sel.select(logits, layout, np.zeros(n, dtype=bool))
    assert all(t != EOS for t in tokens) and [len(a.ledger) for a in accs] == [1, 1]


def test_the_public_top_k_set_is_taken_among_the_tokens_a_slot_allows():
    """top-k⁺ = 1 where the public prompt's favourite is EOS, banned in a slot a literal follows: the candidate
    set is the best *allowed* public token, so every group draws it (z = −inf elsewhere), is charged once, and
    the build never meets a row with nothing to draw."""
    n = 3
    tpl = template("{2}. the")
    accs = [ZCDPAccountant() for _ in range(n)]
    base = PublicPriorSelector(VOCAB, clip=1.0, temperature=1.0, accountants=accs, top_k=1, top_k_margin=0.0,
                               random=[SeededRandom(2).child(str(g)) for g in range(n)])
    sel = TemplateSelector(base, tpl, max_paid=2)
    logits = torch.zeros(2 * n, 64)
    best = ids("fever")[0]
    logits[1::2, EOS], logits[1::2, best] = 9.0, 5.0  # public rows: EOS first, "fever" second
    logits[0::2, :VOCAB] = torch.linspace(3.0, -3.0, VOCAB)  # private rows prefer other tokens
    layout = RowLayout.build([g for g in range(n) for _ in (0, 1)], [False, True] * n, n)
    tokens = sel.select(logits, layout, np.zeros(n, dtype=bool))
    assert tokens.tolist() == [best] * n and [len(a.ledger) for a in accs] == [1] * n


def test_a_slot_no_token_can_end_is_refused():
    """A terminator the tokenizer never writes at the end of a token (here a character outside its
    vocabulary) could never end its slot: refused when the template is first used, before any draw."""
    assert template("{}. the").slot_masks()[1][0].any()  # '.' is a token of the word-level vocabulary: fine
    with pytest.raises(ConfigError, match="no token of this tokenizer ends with '§'"):
        template("a {}§ b").slot_masks()


# ---------------------------------------------------------------------------------------------
# config, build, CLI
# ---------------------------------------------------------------------------------------------

DOCS = NOTES


def test_config_refuses_a_bad_template_or_a_second_way_to_make_tokens_free():
    from pydantic import ValidationError

    from dpsynrag.pipeline.config import BuildConfig

    base = dict(epsilon=10.0, delta=1e-3, T=20)
    for bad, match in [
        (dict(response_template="no slot"), "has no slot"),
        (dict(response_template="{document}."), r"the slot \{document\} is neither"),
        (dict(response_template="a {} b"), "visible character"),
        (dict(response_template="a {}.", response_prefix="Hi"), "drop `response_prefix`"),
        (dict(response_template="a {}.", decoding="public-prior", svt_max_paid=4), "use one of them"),
    ]:
        with pytest.raises(ValidationError, match=match):
            BuildConfig(**base, **bad)
    assert BuildConfig(**base, response_template="a {4}.").response_template == "a {4}."


def test_build_with_a_template_meets_its_epsilon_and_writes_the_skeleton(tmp_path, tiny_lm):
    import json

    from fakes import HashEmbedder

    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    tpl = "the patient has {3}. the doctor has {2}."
    config = BuildConfig(epsilon=4.0, delta=1e-3, K=3, R=3, L=2, k=10, T=5, extractor="rarity", open_vocabulary=True,
                         self_filter=False, max_document_tokens=16, seed=1, decoding="public-prior",
                         response_template=tpl)
    corpus = build_corpus(DOCS, tmp_path / "c", config, lm=tiny_lm, embedder=HashEmbedder())
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    privacy = manifest["privacy"]
    assert privacy["epsilon"] <= 4.0 and corpus.privacy_report.epsilon <= 4.0
    assert manifest["decoding"]["response_template"] == tpl and manifest["config"]["response_template"] == tpl
    tokens = privacy["mechanisms"][1]["branch"]["events"][-1]
    assert tokens["mechanism"] == "self_composition" and tokens["count"] == 5  # T drawn tokens at most
    assert any("slot-template decoding" in n for n in privacy["notes"])
    texts = [json.loads(line)["text"] for line in (tmp_path / "c" / "texts.jsonl").read_text().splitlines()]
    assert texts and all(t.startswith("the patient has") for t in texts)


def test_cli_names_the_template_flag():
    from typer.testing import CliRunner

    from dpsynrag.cli import app

    result = CliRunner().invoke(app, ["budget", "--epsilon", "10", "--delta", "1e-3", "--response-template", "x y"])
    assert result.exit_code == 2 and "--response-template" in " ".join(result.output.split()), result.output
    assert "has no slot" in " ".join(result.output.split())


def _skeleton_pattern(template: str):
    """A regex matching ``template`` with each slot as a non-empty run of characters."""
    import re

    parts = TemplateParts.parse(template)
    return re.compile("".join(re.escape(lit) + ("(.+?)" if i < len(parts.caps) else "")
                              for i, lit in enumerate(parts.literals)) + "$", re.S)


def test_the_medical_template_is_the_format_of_its_redacted_records():
    """The task's public response template matches a record of database.jsonl's format once redacted: the
    skeleton it writes for free is the records' wording, and every slot holds private content."""
    from dpsynrag.data.redaction import redact_identifiers
    from dpsynrag.tasks.medical import MedicalTask

    record = ("Given the symptoms (Abdominal cramps, Fatigue, Rash on the palms) of Achille Ketterer. "
              "The diagnosis is Flibberflamosis, the treatment should be Giggle Drops.")  # database.jsonl's format
    found = _skeleton_pattern(MedicalTask.response_template).match(redact_identifiers(record, ["Achille Ketterer"]))
    assert found and found.groups() == ("Abdominal cramps, Fatigue, Rash on the palms", "Flibberflamosis", "Giggle Drops")
    assert TemplateParts.parse(MedicalTask.response_template).caps == (16, 8, 8)


def test_for_task_resolves_the_task_template_only_where_there_is_one():
    from dpsynrag.commands.plan import preset_fields
    from dpsynrag.eval.presets import PRESETS, for_task
    from dpsynrag.methods import get_method
    from dpsynrag.tasks.medical import MedicalTask
    from dpsynrag.tasks.movielens import MovieLensTask

    params = {"T": 32, "task_response_template": True}
    assert for_task(params, MedicalTask) == {"T": 32, "response_template": MedicalTask.response_template}
    assert for_task(params, MovieLensTask) == {"T": 32} == for_task(params)  # no template; own data
    assert for_task({"T": 32, "task_response_template": False}, MedicalTask) == {"T": 32}
    own = {"T": 32, "task_response_template": True, "response_template": "The diagnosis is {8}."}
    assert for_task(own, MedicalTask) == {"T": 32, "response_template": "The diagnosis is {8}."}  # a given one wins
    assert params == {"T": 32, "task_response_template": True}  # not changed in place
    assert PRESETS["demo"].synrag["task_response_template"] is True
    for name in ("cpu", "demo"):  # a plain build on the user's own records takes no task's format
        fields = preset_fields(get_method("dp-synrag"), PRESETS[name])
        assert "response_template" not in fields and "task_response_template" not in fields


def test_a_template_of_capped_slots_lowers_T_to_the_sum_of_its_caps():
    """T_effective: a template whose every slot has a cap N draws at most the sum of the caps, so the calibration
    spends the token budget over that many tokens (clip × sqrt(48/8) here) at the same ε; an uncapped slot, or
    caps summing to T or more, keep T."""
    from dpsynrag.pipeline.config import BuildConfig

    base = dict(epsilon=10.0, delta=1e-3, T=48)
    small = BuildConfig(**base, response_template="The diagnosis is {8}.")
    assert small.T_effective == 8 and small.calibrate().T == 8
    plain, eight = BuildConfig(**base).calibrate(), BuildConfig(**{**base, "T": 8}).calibrate()
    assert small.calibrate().rho_total == pytest.approx(plain.rho_total, rel=1e-12)
    assert small.calibrate().clip == pytest.approx(eight.clip, rel=1e-12) == pytest.approx(plain.clip * 6 ** 0.5, rel=1e-9)
    assert "at most 8 per text (T = 48 lowered to the sum of the template's slot caps)" in small.plan_notes[-1]
    assert BuildConfig(**base, response_template="The diagnosis is {8}, treated with {}.").T_effective == 48
    assert BuildConfig(**base, response_template="Symptoms: {22}. The diagnosis is {8}, the treatment {8}.").T_effective == 38
    demo = BuildConfig(**{**base, "T": 32}, response_template="Symptoms: {22}. The diagnosis is {8}, the treatment {8}.")
    assert demo.T_effective == 32 and "lowered" not in demo.plan_notes[-1]
