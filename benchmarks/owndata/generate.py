"""Seeded generator of made-up private collections with known facts, known PII and known public strings.

One collection is one domain (:data:`DOMAINS`: ``bank``, ``saas``, ``helpdesk``) and one seed. Each record is
a customer's request of one request type plus the organisation's reply, which states the type's fact (the
same value in every record of the type, in one of 2-4 phrasings). Around it the wording varies: openings,
stories, sentences about a third person, contact details, filler sentences, rare typos. Type frequencies are
uneven (a fixed profile, drawn per seed: types of fewer than 10 records in 400 stay under 10); a customer
(``person_id``) has 1-3 records.

Written to the out folder:

* ``records.jsonl``: ``id``, ``text``, ``customer_name``, ``phone`` (E.164), ``email``, the domain's reference
  field (``case_id`` or ``ticket_id``), ``order_id`` (saas), ``iban`` (bank, helpdesk; compact), ``person_id``,
  ``type`` (evaluation only);
* ``questions.jsonl``: ``question``, ``answers`` (the first is the fact), ``type``, ``support`` (records of
  the type);
* ``pii.jsonl``: ``id`` and ``pii``: every personal value written into that record's text, as
  ``{"kind", "text", "probes"}`` (:class:`~benchmarks.owndata.people.PII`; ``text`` is the exact surface form);
* ``public.json``: the domain's public strings and its identifier, id, text and unit field names;
* ``meta.json``: domain, seed, n, persons, type counts and profile, fact per type.

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.owndata.generate --domain bank --seed 3 --n 400 --out runs/owndata/bank-s3
    .venv/bin/python -m benchmarks.owndata.generate --all --seeds 0 1 2 3 4 --out runs/owndata
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import sys
from pathlib import Path

if __package__ in (None, ""):  # run by path: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.owndata.bank import BANK  # noqa: E402
from benchmarks.owndata.domain import PUBLIC_FIELDS, Domain, RequestType  # noqa: E402
from benchmarks.owndata.helpdesk import HELPDESK  # noqa: E402
from benchmarks.owndata.people import PII, Person, group_iban, make_person, name_pii, phone_surface  # noqa: E402
from benchmarks.owndata.saas import SAAS  # noqa: E402

__all__ = ["DOMAINS", "MIN_WORDS", "MAX_WORDS", "generate", "type_counts", "write_collection"]

DOMAINS: dict[str, Domain] = {d.name: d for d in (BANK, SAAS, HELPDESK)}
MIN_WORDS, MAX_WORDS = 60, 160  # a record's length in whitespace-separated words
_PROFILE_N = 400  # the collection size the types' profiles are given for
_TAIL = 10  # profile counts under this stay under it at n = 400


def type_counts(domain: Domain, n: int, rng: random.Random) -> dict[str, int]:
    """Records per request type for ``n`` records: each type's profile scaled by ``n / 400`` and drawn around
    it (head types x U(0.8, 1.25), then rescaled to fill ``n``; tail types, profile under 10, x U(0.7, 1.05),
    so they stay under 10 at n = 400), every type at least 1. Raises ValueError when ``n`` < 50."""
    if n < 50:
        raise ValueError(f"n must be at least 50 records, got {n}")
    scale = n / _PROFILE_N
    counts = {t.id: max(1, round(t.profile * scale * rng.uniform(0.7, 1.05))) for t in domain.types if t.profile < _TAIL}
    weights = {t.id: t.profile * rng.uniform(0.8, 1.25) for t in domain.types if t.profile >= _TAIL}
    left = n - sum(counts.values())
    total = sum(weights.values())
    shares = {k: left * w / total for k, w in weights.items()}
    head = {k: max(1, int(s)) for k, s in shares.items()}
    by_remainder = sorted(shares, key=lambda k: (shares[k] - int(shares[k]), k), reverse=True)
    for k in by_remainder[:left - sum(head.values())]:  # largest remainders take the records still unassigned
        head[k] += 1
    counts.update(head)
    return {t.id: counts[t.id] for t in domain.types}


def _typo(template: str, rng: random.Random) -> str:
    """``template`` with two adjacent letters swapped in one lower-case word of >= 5 letters outside its fields."""
    pieces = re.split(r"(\{[^}]*\})", template)
    spots = [(i, m) for i, piece in enumerate(pieces) if not piece.startswith("{")
             for m in re.finditer(r"\b[a-z]{5,}\b", piece)]
    if not spots:
        return template
    i, m = rng.choice(spots)
    word = m.group()
    j = rng.randrange(1, len(word) - 2)
    word = word[:j] + word[j + 1] + word[j] + word[j + 2:]
    pieces[i] = pieces[i][:m.start()] + word + pieces[i][m.end():]
    return "".join(pieces)


class _Writer:
    """Fills one record's templates: personal fields become surface forms and :class:`PII` items."""

    def __init__(self, domain: Domain, rtype: RequestType, person: Person, third: Person, ref: str,
                 order: str | None, rng: random.Random):
        self.domain, self.rtype, self.person, self.third = domain, rtype, person, third
        self.ref, self.order, self.rng = ref, order, rng
        self.relation = rng.choice(domain.relations)

    def _iban(self, compact: str) -> PII:
        return PII("iban", compact if self.rng.random() < 0.5 else group_iban(compact), (compact,))

    def _email(self, address: str) -> PII:
        if self.rng.random() < 0.25:
            local, host = address.split("@")
            address = ".".join(p[:1].upper() + p[1:] for p in local.split(".")) + "@" + host
        return PII("email", address, (address,))

    def _number(self, value: str, prefix: str) -> PII:
        digits = value[len(prefix):]
        surface = self.rng.choice([value, value.lower(), f"{prefix.rstrip('-')} {digits}", f"#{digits}"])
        return PII("order_id", surface, (surface,))

    def field(self, name: str) -> tuple[str, PII | None]:
        p, t, d = self.person, self.third, self.domain
        personal = {
            "name": lambda: name_pii("customer_name", p.name), "first": lambda: name_pii("customer_name", p.first),
            "tp": lambda: name_pii("third_party_name", t.name), "tp_first": lambda: name_pii("third_party_name", t.first),
            "phone": lambda: phone_surface(p.phone, self.rng), "tp_phone": lambda: phone_surface(t.phone, self.rng),
            "email": lambda: self._email(p.email), "tp_email": lambda: self._email(t.email),
            "iban": lambda: self._iban(p.iban), "tp_iban": lambda: self._iban(t.iban), "address": lambda: p.address,
            "ref": lambda: self._number(self.ref, d.reference_prefix),
            "order": lambda: self._number(self.order, d.order_prefix),
        }
        if name in personal:
            item = personal[name]()
            return item.text, item
        if name in PUBLIC_FIELDS:
            return d.public[name], None
        if name == "fact":
            return self.rtype.fact, None
        if name == "relation":
            return self.relation, None
        return self.rng.choice(d.slots[name]), None

    def render(self, template: str) -> tuple[str, list[PII]]:
        out, items = [], []
        for literal, name, _, _ in string.Formatter().parse(template):
            out.append(literal)
            if name is not None:
                text, item = self.field(name)
                out.append(text)
                if item is not None:
                    items.append(item)
        return "".join(out), items


def _record(domain: Domain, rtype: RequestType, writer: _Writer, rng: random.Random) -> tuple[str, list[PII]]:
    """One record's text (:data:`MIN_WORDS` to :data:`MAX_WORDS` words) and the personal values written into it
    (each once)."""
    story = rng.choice(rtype.stories)
    fillers = rng.sample(domain.fillers, len(domain.fillers))
    if rng.random() < 0.2:  # a typo in the story or in the first filler
        if rng.random() < 0.5:
            story = _typo(story, rng)
        else:
            fillers[0] = _typo(fillers[0], rng)
    contacts = rng.sample(domain.contacts, 3)
    render = writer.render
    opening, story, contact, signoff = (render(rng.choice(domain.openings)), render(story), render(contacts[0]),
                                        render(rng.choice(domain.signoffs)))
    reply = [render(rng.choice(domain.reply_openings)), render(rng.choice(rtype.fact_sentences))]
    closing = render(rng.choice(domain.reply_closings))
    optional = {"third_party": [render(rng.choice(domain.third_party))] if rng.random() < 0.55 else [],
                "contact": [render(contacts[1])] if rng.random() < 0.5 else [],
                "filler": [render(f) for f in fillers[:rng.choice([0, 1, 2, 2, 3])]],
                "extra": [render(rng.choice(domain.reply_extras))] if rng.random() < 0.5 else []}
    spare = [render(f) for f in fillers[len(optional["filler"]):]] + [render(contacts[2])]
    message_label, reply_label = rng.choice(domain.message_labels), rng.choice(domain.reply_labels)

    def sentences() -> tuple[list, list]:
        customer = [opening, story] + optional["third_party"] + [contact] + optional["contact"] + optional["filler"]
        return customer + [signoff], reply + optional["extra"] + [closing]

    def text() -> str:
        customer, answer = sentences()
        body = " ".join(s for s, _ in customer[1:-1])
        greeting = customer[0][0] + ("\n" if customer[0][0].endswith(",") else " ")  # "Hi there," on its own line
        return (f"{message_label} {greeting}{body}\n{customer[-1][0]}\n\n"
                f"{reply_label} {' '.join(s for s, _ in answer)}")

    for key in ("filler", "extra", "contact", "third_party"):  # too long: drop optional sentences
        while len(text().split()) > MAX_WORDS and optional[key]:
            optional[key].pop()
    while len(text().split()) < MIN_WORDS and spare:  # too short: more fillers, then another contact sentence
        optional["filler"].append(spare.pop(0))
    items: dict[tuple[str, str], PII] = {}
    for _, found in sum(sentences(), []):
        for item in found:
            items.setdefault((item.kind, item.text), item)
    return text(), list(items.values())


def generate(domain: Domain | str, seed: int, n: int = 400) -> dict:
    """One collection: ``{"records", "questions", "pii", "public", "meta"}`` (the contents of the five output
    files; see the module docstring). Deterministic in ``(domain, seed, n)``.

    Raises:
        KeyError: an unknown domain name.
        ValueError: ``n`` < 50.
    """
    domain = DOMAINS[domain] if isinstance(domain, str) else domain
    rng = random.Random(f"owndata:{domain.name}:{seed}")
    counts = type_counts(domain, n, rng)
    kinds = [t for t in domain.types for _ in range(counts[t.id])]
    rng.shuffle(kinds)
    phones: set[str] = set()
    owners: list[Person] = []
    persons = 0
    while len(owners) < n:  # 1-3 records per customer
        persons += 1
        person = make_person(f"P{persons:04d}", rng, phones)
        owners += [person] * rng.choices([1, 2, 3], weights=[0.6, 0.28, 0.12])[0]
    owners = owners[:n]
    rng.shuffle(owners)
    references = rng.sample(range(10 ** (domain.reference_digits - 1), 10 ** domain.reference_digits), n)
    orders = rng.sample(range(100000, 1000000), n)
    records, pii = [], []
    for i, (rtype, person) in enumerate(zip(kinds, owners)):
        third = make_person("", rng, phones)
        ref = f"{domain.reference_prefix}{references[i]:0{domain.reference_digits}d}"
        order = f"{domain.order_prefix}{orders[i]}" if domain.order_prefix else None
        text, items = _record(domain, rtype, _Writer(domain, rtype, person, third, ref, order, rng), rng)
        rid = f"{domain.name}-{i:04d}"
        record = {"id": rid, "text": text, "customer_name": person.name, "phone": person.phone.e164,
                  "email": person.email, domain.reference_field: ref}
        if order is not None:
            record["order_id"] = order
        if domain.has_iban:
            record["iban"] = person.iban
        record.update(person_id=person.person_id, type=rtype.id)
        records.append(record)
        pii.append({"id": rid, "pii": [item.as_json() for item in items]})
    questions = [{"question": q, "answers": list(t.answers), "type": t.id, "support": counts[t.id]}
                 for t in domain.types for q in t.questions]
    public = {"domain": domain.name, "strings": [domain.public[f] for f in PUBLIC_FIELDS],
              "identifier_fields": list(domain.identifier_fields), "id_field": "id", "text_field": "text",
              "unit_field": "person_id"}
    meta = {"domain": domain.name, "seed": seed, "n": n, "persons": len({r["person_id"] for r in records}),
            "type_counts": counts, "profile": {t.id: t.profile for t in domain.types},
            "facts": {t.id: t.fact for t in domain.types}}
    return {"records": records, "questions": questions, "pii": pii, "public": public, "meta": meta}


def write_collection(collection: dict, out: str | Path) -> Path:
    """Write :func:`generate`'s ``collection`` as the five files in folder ``out`` (created; files replaced)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("records", "questions", "pii"):
        with open(out / f"{name}.jsonl", "w", encoding="utf-8") as f:
            f.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in collection[name])
    for name in ("public", "meta"):
        (out / f"{name}.json").write_text(json.dumps(collection[name], ensure_ascii=False, indent=1) + "\n",
                                          encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--domain", choices=sorted(DOMAINS))
    which.add_argument("--all", action="store_true", help="every domain, into OUT/DOMAIN-sSEED")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, nargs="+", help="with --all (default: --seed)")
    parser.add_argument("--n", type=int, default=400, help="records per collection (>= 50)")
    parser.add_argument("--out", required=True, help="the out folder (with --all: their parent)")
    args = parser.parse_args(argv)
    if args.all:
        for name in sorted(DOMAINS):
            for seed in args.seeds or [args.seed]:
                folder = write_collection(generate(name, seed, args.n), Path(args.out) / f"{name}-s{seed}")
                print(f"{folder}: {args.n} records")
    else:
        folder = write_collection(generate(args.domain, args.seed, args.n), args.out)
        print(f"{folder}: {args.n} records")


if __name__ == "__main__":
    main()
