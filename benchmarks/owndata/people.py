"""Made-up people and the personal data the own-data generator writes into its records.

Everything here is invented: the name lists are common given names and surnames of several origins
(English, Spanish, Indian, Chinese, Arabic, Polish, Nigerian, and a few others), street names and towns are
ordinary words, IBANs are random account numbers with valid ISO 7064 check digits (so checksum-validating
detectors see them as IBANs), phone numbers come from ranges reserved for fiction (UK 07700 900xxx,
020 7946 0xxx, 0113 496 0xxx; US 555-01xx), e-mail domains are the reserved ``example.*`` names.

Each inserted value is a :class:`PII` item: its kind, the exact surface form written in the text, and its
probes, the strings :mod:`benchmarks.owndata.pii_residual` looks for after redaction (see there).
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass

__all__ = ["FIRST_NAMES", "LAST_NAMES", "PII", "Person", "Phone", "address", "email_for", "group_iban", "iban",
           "make_person", "name_pii", "phone", "phone_surface"]

FIRST_NAMES: tuple[str, ...] = (
    # English
    "Oliver", "Charlotte", "Harry", "Amelia", "George", "Isla", "Thomas", "Evelyn", "Archie", "Eleanor", "Samuel",
    "Imogen", "Henry", "Beatrice",
    # Spanish
    "Alejandro", "Lucía", "Javier", "Carmen", "Diego", "Mercedes", "Santiago", "Valentina", "Rodrigo", "Inés",
    # Indian
    "Arjun", "Priya", "Rahul", "Ananya", "Vikram", "Kavya", "Rohan", "Meera", "Sanjay", "Lakshmi", "Aditya", "Divya",
    # Chinese
    "Wei", "Xiaoling", "Jian", "Meiling", "Haoran", "Yuxin", "Zhiwei", "Lihua", "Jun", "Xinyi",
    # Arabic
    "Omar", "Fatima", "Youssef", "Layla", "Karim", "Amira", "Hassan", "Noura", "Tariq", "Samira",
    # Polish
    "Katarzyna", "Tomasz", "Agnieszka", "Piotr", "Magdalena", "Krzysztof", "Zofia", "Marek", "Joanna", "Paweł",
    # Nigerian
    "Chidi", "Ngozi", "Emeka", "Adaeze", "Tunde", "Folake", "Obinna", "Yetunde", "Chinedu", "Funmilayo",
    # others
    "Sven", "Ingrid", "Kenji", "Yuki", "Dmitri", "Olena", "Mehmet", "Elif", "Thanh", "Linh", "Kwame", "Abena",
    "Siobhan", "Niamh",
)
"""90 given names (made-up combinations with :data:`LAST_NAMES`; none is an ordinary English word)."""

LAST_NAMES: tuple[str, ...] = (
    # English
    "Whitfield", "Harrington", "Ashworth", "Pemberton", "Thornton", "Blackwood", "Fairbanks", "Kendrick", "Holloway",
    "Radcliffe",
    # Spanish
    "García", "Fernández", "Morales", "Castillo", "Navarro", "Ortega", "Delgado", "Herrera", "Vázquez", "Ramírez",
    # Indian
    "Sharma", "Iyer", "Reddy", "Chatterjee", "Nair", "Kulkarni", "Menon", "Bhattacharya", "Deshpande", "Agarwal",
    "Pillai",
    # Chinese
    "Zhang", "Wang", "Liu", "Chen", "Huang", "Zhou", "Xu", "Guo", "Deng", "Feng",
    # Arabic
    "Al-Sayed", "Haddad", "Mansour", "Khalil", "Nasser", "Farouk", "Hamdan", "Saleh", "El-Amin", "Qureshi",
    # Polish
    "Kowalczyk", "Nowak", "Wiśniewski", "Zieliński", "Lewandowska", "Wójcik", "Kamińska", "Szymański", "Dąbrowski",
    "Grabowska",
    # Nigerian
    "Okafor", "Adeyemi", "Okonkwo", "Balogun", "Eze", "Nwosu", "Adebayo", "Oyelaran", "Chukwu", "Afolabi",
    # others
    "Lindqvist", "Nakamura", "Petrenko", "Yılmaz", "Nguyen", "Mensah", "O'Sullivan", "Van der Merwe", "Kristiansen",
    "Moreau", "Rossi", "Papadopoulos", "Takahashi", "Andersson", "Novák", "Kovačević", "Ferreira", "Dubois",
)
"""90 surnames."""


@dataclass(frozen=True)
class PII:
    """One personal value written into a record.

    Attributes:
        kind: ``customer_name``, ``third_party_name``, ``address``, ``iban``, ``phone``, ``email`` or ``order_id``.
        text: the exact surface form written in the record's text.
        probes: what still counts as this value after redaction, compared format-insensitively (letters and
            digits only, any case): a name's parts of >= 2 characters that are not all lower case, an address's
            comma-separated parts that hold a digit, a phone's national digits (``"7700900123"`` for ``+44 7700 900123`` and
            ``07700-900-123``), else the surface form itself.
    """

    kind: str
    text: str
    probes: tuple[str, ...]

    def as_json(self) -> dict:
        return {"kind": self.kind, "text": self.text, "probes": list(self.probes)}


def name_pii(kind: str, surface: str) -> PII:
    """A name as written (a full name or one part of it): probes are its parts of >= 2 characters that are
    not all lower case (the particle "der" of "Van der Merwe" is no probe)."""
    return PII(kind, surface, tuple(p for p in surface.split() if len(p) >= 2 and not p.islower()))


def _ascii(word: str) -> str:
    folded = unicodedata.normalize("NFKD", word.replace("ł", "l").replace("Ł", "L").replace("ı", "i"))
    return "".join(c for c in folded if c.isascii() and c.isalnum()).lower()


def email_for(first: str, last: str, rng: random.Random) -> str:
    """A lower-case address on a reserved ``example`` domain built from the person's name."""
    f, l = _ascii(first), _ascii(last)
    local = rng.choice([f"{f}.{l}", f"{f[0]}.{l}{rng.randint(10, 99)}", f"{l}_{f}", f"{f}{l[0]}{rng.randint(70, 99)}",
                        f"{f}.{l}{rng.randint(1, 9)}"])
    return f"{local}@{rng.choice(['example.com', 'example.org', 'example.net', 'mail.example.com'])}"


# --- IBANs --------------------------------------------------------------------------------------------------

def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def _letters(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(n))


_BBAN = {  # country: the basic bank account number's shape, letters and digits as ISO 13616 lays them out
    "GB": lambda r: _letters(r, 4) + _digits(r, 14),
    "DE": lambda r: _digits(r, 18),
    "FR": lambda r: _digits(r, 23),
    "ES": lambda r: _digits(r, 20),
    "NL": lambda r: _letters(r, 4) + _digits(r, 10),
    "PL": lambda r: _digits(r, 24),
}


def iban(rng: random.Random) -> str:
    """A compact IBAN of a random country of ``_BBAN`` with valid check digits (98 - n mod 97)."""
    country = rng.choice(sorted(_BBAN))
    bban = _BBAN[country](rng)
    number = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{country}{98 - number % 97:02d}{bban}"


def group_iban(compact: str) -> str:
    """``GB47NWBK...`` written in groups of four: ``GB47 NWBK ...``."""
    return " ".join(compact[i:i + 4] for i in range(0, len(compact), 4))


# --- phones -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Phone:
    """A phone number: ``region`` (``uk_mobile``, ``uk_london``, ``uk_leeds``, ``us``) and national digits."""

    region: str
    national: str  # without trunk prefix or country code: "7700900123", "2079460958", "4155550134"

    @property
    def e164(self) -> str:
        return ("+1" if self.region == "us" else "+44") + self.national


def phone(rng: random.Random, taken: set[str]) -> Phone:
    """A fresh number (not in ``taken``, which it joins) from a range reserved for fiction; the public lines'
    numbers (``...0000``) are never drawn."""
    while True:
        region = rng.choice(["uk_mobile", "uk_mobile", "uk_london", "uk_leeds", "us", "us"])
        if region == "uk_mobile":
            national = f"7700900{rng.randint(100, 999)}"
        elif region == "uk_london":
            national = f"2079460{rng.randint(100, 999)}"
        elif region == "uk_leeds":
            national = f"1134960{rng.randint(100, 999)}"
        else:
            national = f"{rng.choice(['202', '212', '312', '415', '617', '303'])}55501{rng.randint(10, 99)}"
        if national not in taken:
            taken.add(national)
            return Phone(region, national)


def phone_surface(number: Phone, rng: random.Random) -> PII:
    """``number`` written in one of its region's usual formats, as a ``phone`` :class:`PII`."""
    n = number.national
    if number.region == "uk_mobile":
        forms = [f"+44 {n[:4]} {n[4:]}", f"0{n[:4]} {n[4:]}", f"0{n[:4]}-{n[4:7]}-{n[7:]}", f"0{n}",
                 f"+44 (0){n[:4]} {n[4:]}", f"+44{n}"]
    elif number.region == "uk_london":
        forms = [f"(020) {n[2:6]} {n[6:]}", f"020 {n[2:6]} {n[6:]}", f"+44 20 {n[2:6]} {n[6:]}", f"020-{n[2:6]}-{n[6:]}"]
    elif number.region == "uk_leeds":
        forms = [f"0113 {n[3:6]} {n[6:]}", f"(0113) {n[3:6]} {n[6:]}", f"+44 113 {n[3:6]} {n[6:]}"]
    else:
        forms = [f"+1 {n[:3]}.{n[3:6]}.{n[6:]}", f"({n[:3]}) {n[3:6]}-{n[6:]}", f"{n[:3]}-{n[3:6]}-{n[6:]}",
                 f"+1 {n[:3]} {n[3:6]} {n[6:]}", f"{n[:3]}.{n[3:6]}.{n[6:]}"]
    return PII("phone", rng.choice(forms), (n,))


# --- addresses ----------------------------------------------------------------------------------------------

_UK = (["Elmwood", "Chapel", "Orchard", "Kingsley", "Rosebank", "Hawthorn", "Millbrook", "Ashdale", "Foxhill"],
       ["Road", "Street", "Lane", "Close", "Avenue", "Crescent"],
       [("Leeds", "LS"), ("Bristol", "BS"), ("Manchester", "M"), ("Cardiff", "CF"), ("Norwich", "NR"), ("Glasgow", "G")])
_US = (["Maple", "Cedar", "Willow", "Lakeview", "Sycamore", "Highland", "Birchwood"],
       ["Avenue", "Street", "Drive", "Boulevard"],
       [("Portland", "OR", "972"), ("Austin", "TX", "787"), ("Columbus", "OH", "432"), ("Denver", "CO", "802"),
        ("Madison", "WI", "537")])
_DE = (["Linden", "Birken", "Garten", "Schiller", "Goethe", "Ahorn", "Kastanien"],
       ["Berlin", "Hamburg", "Leipzig", "Köln", "Bremen"])
_FR = (["des Lilas", "du Moulin", "de la Paix", "des Écoles", "Victor Hugo", "du Château"],
       ["Lyon", "Nantes", "Lille", "Toulouse", "Rennes"])
_ES = (["de Alcalá", "Mayor", "del Carmen", "de la Luna", "San Vicente", "Real"],
       ["Madrid", "Valencia", "Sevilla", "Zaragoza", "Málaga"])
_PL = (["Długa", "Ogrodowa", "Lipowa", "Słoneczna", "Polna", "Kwiatowa"],
       ["Warszawa", "Kraków", "Gdańsk", "Poznań", "Wrocław"])
_IN = (["Shanti", "Sai Krupa", "Green Park", "Lotus", "Sunrise"], ["MG", "Station", "Temple", "Lake", "Ring"],
       [("Bengaluru", "560"), ("Pune", "411"), ("Chennai", "600"), ("Hyderabad", "500")])
_NL = (["Keizers", "Linden", "Molen", "Vondel", "Kerk"], ["Amsterdam", "Utrecht", "Rotterdam", "Haarlem"])


def address(rng: random.Random) -> PII:
    """A street address in one of eight countries' formats, as an ``address`` :class:`PII` (probes: its
    comma-separated parts that hold a digit)."""
    r = rng
    style = r.choice(["uk", "uk", "us", "de", "fr", "es", "pl", "in", "nl"])
    if style == "uk":
        town, area = r.choice(_UK[2])
        text = (f"{r.randint(2, 180)} {r.choice(_UK[0])} {r.choice(_UK[1])}, {town} "
                f"{area}{r.randint(1, 28)} {r.randint(1, 9)}{_letters(r, 2)}")
    elif style == "us":
        city, state, zip3 = r.choice(_US[2])
        apt = f", Apt {r.randint(1, 40)}{r.choice('ABCD')}" if r.random() < 0.5 else ""
        text = f"{r.randint(100, 9999)} {r.choice(_US[0])} {r.choice(_US[1])}{apt}, {city}, {state} {zip3}{_digits(r, 2)}"
    elif style == "de":
        text = f"{r.choice(_DE[0])}straße {r.randint(1, 120)}, {_digits(r, 5)} {r.choice(_DE[1])}"
    elif style == "fr":
        text = f"{r.randint(1, 90)} rue {r.choice(_FR[0])}, {r.randint(10, 95)}{_digits(r, 3)} {r.choice(_FR[1])}"
    elif style == "es":
        text = (f"Calle {r.choice(_ES[0])} {r.randint(1, 200)}, {r.randint(1, 9)}º {r.choice('ABCD')}, "
                f"{r.randint(10, 50)}{_digits(r, 3)} {r.choice(_ES[1])}")
    elif style == "pl":
        text = (f"ul. {r.choice(_PL[0])} {r.randint(1, 99)}/{r.randint(1, 40)}, {_digits(r, 2)}-{_digits(r, 3)} "
                f"{r.choice(_PL[1])}")
    elif style == "in":
        city, pin3 = r.choice(_IN[2])
        text = (f"Flat {r.randint(1, 60)}, {r.choice(_IN[0])} Apartments, {r.choice(_IN[1])} Road, "
                f"{city} {pin3}{_digits(r, 3)}")
    else:
        text = f"{r.choice(_NL[0])}straat {r.randint(1, 300)}, {r.randint(1000, 9999)} {_letters(r, 2)} {r.choice(_NL[1])}"
    return PII("address", text, tuple(p for p in text.split(", ") if any(c.isdigit() for c in p)))


# --- people -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Person:
    """A made-up customer: their id, name, contact data and account (fields of every record of theirs)."""

    person_id: str
    first: str
    last: str
    email: str
    phone: Phone
    iban: str
    address: PII

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"


def make_person(person_id: str, rng: random.Random, phones: set[str]) -> Person:
    """A fresh person (``phones``: national numbers already used in the collection, extended)."""
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    return Person(person_id, first, last, email_for(first, last, rng), phone(rng, phones), iban(rng), address(rng))
