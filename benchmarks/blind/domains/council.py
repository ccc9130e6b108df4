"""Blind own-data domain "council": the resident-services contact centre of a (made-up) borough council.

Each record is one contact as a CRM export holds it: an e-mail thread, an online form with the council's
response, a webchat transcript or an advisor's call note. Written from ``CONTRACT.md`` alone; standard
library only; deterministic in ``(seed, n)``.
"""

from __future__ import annotations

import random
import re
import unicodedata

COMPANY = "Harrowfield Borough Council"
SHORT_NAME = "Harrowfield Council"
MAIN_PHONE = "01632 960 500"
NOISE_PHONE = "01632 960 777"
WEBSITE = "www.harrowfield.example.com"
CS_EMAIL = "customer.services@harrowfield.example.com"
REPAIRS_EMAIL = "repairs@harrowfield.example.com"
TOWN = "Harrowfield"

PUBLIC_STRINGS = [COMPANY, SHORT_NAME, MAIN_PHONE, NOISE_PHONE, WEBSITE, CS_EMAIL, REPAIRS_EMAIL]
PRODUCT_NAMES = [
    "Single Person Discount", "Council Tax Reduction", "Resident Parking Permit", "Garden Waste Subscription",
    "Bulky Waste Collection", "Out of Hours Noise Service", "MyHarrowfield", "Harrowfield Homes",
    "Repairs Online", "Pest Control Service", "Blue Badge", "Tell Us Once", "School Admissions",
    "Planning Portal", "The Noise App",
]
IDENTIFIER_FIELDS = ["customer_name", "email", "phone", "address", "account_number"]

# --------------------------------------------------------------------------------------------- names

FEMALE = [
    "Rose", "Hope", "May", "Grace", "Faith", "Joy", "Dawn", "Holly", "Ivy", "Amber", "Jade", "Pearl", "Ruby",
    "Daisy", "Iris", "Violet", "Hazel", "Olive", "April", "June", "Poppy", "Summer", "Sarah", "Emma", "Claire",
    "Louise", "Kerry", "Julie", "Karen", "Hannah", "Chloe", "Sophie", "Megan", "Bethan", "Siobhan", "Aoife",
    "Niamh", "Fiona", "Morag", "Priya", "Anjali", "Sunita", "Harpreet", "Simran", "Aisha", "Fatima", "Zainab",
    "Maryam", "Nadia", "Yasmin", "Amina", "Halima", "Chiamaka", "Ngozi", "Adaeze", "Abena", "Ama", "Wanjiru",
    "Thandiwe", "Mei", "Xiu", "Hana", "Yuki", "Linh", "Agnieszka", "Katarzyna", "Magdalena", "Ioana", "Elena",
    "Olga", "Giulia", "Francesca", "Lucia", "Carmen", "Ana", "Beatriz", "Inês", "Sinéad", "Gwen", "Eleri",
    "Marta", "Zeynep", "Leila", "Farah", "Esther", "Miriam", "Tracey", "Denise", "Shirley", "Pauline", "Jean",
    "Maureen", "Lorraine", "Natasha", "Kirsty", "Gemma", "Stacey", "Precious", "Blessing", "Comfort",
]
MALE = [
    "Mark", "Bill", "Will", "Jack", "Frank", "Guy", "Miles", "Dean", "Drew", "Grant", "Lance", "Clay", "Wade",
    "Heath", "Reed", "Rich", "Victor", "Earl", "Sonny", "Callum", "Liam", "Sean", "Euan", "Rhys", "Dafydd",
    "Owen", "Oliver", "George", "Harry", "Darren", "Gary", "Kevin", "Paul", "Steven", "Craig", "Lee",
    "Mohammed", "Ahmed", "Omar", "Yusuf", "Tariq", "Imran", "Bilal", "Raj", "Arjun", "Vikram", "Sandeep",
    "Gurpreet", "Wei", "Jun", "Hiroshi", "Kenji", "Minh", "Tuan", "Kwame", "Kofi", "Chinedu", "Emeka",
    "Tunde", "Olumide", "Piotr", "Tomasz", "Jakub", "Andrei", "Mihai", "Luca", "Marco", "Giovanni", "Diego",
    "Carlos", "João", "Pedro", "Mehmet", "Emre", "Dmitri", "Hamza", "Abdi", "Ifeanyi", "Kieran", "Declan",
    "Ciarán", "Brendan", "Trevor", "Keith", "Derek", "Barry", "Nigel", "Wayne", "Ryan", "Jason",
]
UNISEX = ["Sam", "Alex", "Jordan", "Charlie", "Robin", "Jesse", "Ashley", "Frankie", "Jamie"]

SURNAMES_WORD = [
    "Green", "Brown", "Rose", "Hope", "May", "Field", "Church", "King", "White", "Black", "Wood", "Hill",
    "Bell", "Marsh", "Stone", "Young", "Baker", "Cook", "Bishop", "Knight", "Shepherd", "Fox", "Lamb", "Hunt",
    "Moss", "Rich", "Long", "Little", "Best", "Sharp", "Mann", "Price", "Carpenter", "Mason", "Fisher",
    "Walker", "Turner", "Parsons", "Gardener", "Fletcher", "Bird", "Swan", "Crane", "Nightingale", "Frost",
    "Snow", "Winter", "Summers", "Spring", "Brook", "Rivers", "Lake", "Banks", "Dale", "Wells", "Ford",
    "Bridge", "Hall", "House", "Gold", "Silver", "Steel", "Coates", "Cross", "Lord", "Noble", "Sparrow",
    "Read", "Strong", "Small", "Good", "Moody", "Hardy", "Wise", "Page", "Law", "Love", "Day", "Power",
]
SURNAMES_OTHER = [
    "Smith", "Jones", "Williams", "Taylor", "Davies", "Evans", "Thomas", "Roberts", "Johnson", "Wilson",
    "Robinson", "Wright", "Thompson", "Hughes", "Edwards", "Patel", "Shah", "Khan", "Begum", "Hussain",
    "Chowdhury", "Rahman", "Ahmed", "Ali", "Iqbal", "Akhtar", "Kaur", "Singh", "Gill", "Sandhu", "Sharma",
    "Mistry", "Nguyen", "Tran", "Pham", "Chen", "Wang", "Li", "Zhang", "Liu", "Kim", "Park", "Tanaka", "Sato",
    "O'Brien", "Murphy", "Kelly", "O'Connor", "MacLeod", "MacDonald", "Campbell", "Fraser", "Okafor",
    "Adeyemi", "Okonkwo", "Mensah", "Owusu", "Boateng", "Mwangi", "Ndlovu", "Abdi", "Farah", "Haddad",
    "Nowak", "Kowalski", "Wiśniewski", "Lewandowska", "Popescu", "Ionescu", "Ivanova", "Petrov", "Rossi",
    "Bianchi", "Esposito", "García", "Fernández", "Silva", "Santos", "Costa", "Oliveira", "Müller", "Schmidt",
    "Dubois", "Yilmaz", "Demir", "Kaya", "Cohen", "Levy", "Kowalczyk", "Horvat", "Novak", "Van der Berg",
    "De Souza", "Da Costa", "Jakobsen", "Lindqvist", "Qureshi", "Malik", "Bibi", "Duffy", "Doherty",
    "Llewellyn", "Pritchard", "Okoro", "Asante", "Achterberg", "Papadopoulos", "Georgiou", "Yusuf",
]

AGENTS = [
    ("Kerry", "Marsh"), ("Tom", "Bishop"), ("Priya", "Shah"), ("Dawn", "Hill"), ("Mark", "Field"),
    ("Sunita", "Rahman"), ("Gareth", "Lloyd"), ("Joy", "Adeyemi"), ("Lewis", "Green"), ("Agnieszka", "Nowak"),
    ("Darren", "King"), ("Hollie", "Price"), ("Imran", "Qureshi"), ("Beverley", "Stone"), ("Nathan", "Brook"),
    ("Chloe", "Young"), ("Femi", "Okafor"), ("Sharon", "Wood"), ("Ravi", "Mistry"), ("Lucy", "May"),
    ("Connor", "Walsh"), ("Aisha", "Begum"), ("Stuart", "Bell"), ("Mandy", "Fox"), ("Wei", "Chen"),
    ("Rachel", "Church"), ("Dean", "Rose"), ("Bronwen", "Hughes"), ("Kofi", "Mensah"), ("Tina", "Little"),
    ("Ian", "Summers"), ("Grace", "Fletcher"), ("Marek", "Kowalski"), ("Jo", "Hope"), ("Paula", "Rivers"),
]

# ----------------------------------------------------------------------------------------- addresses

STREET_STEMS = [
    "Elm", "Church", "Station", "Mill", "Victoria", "Queens", "Kings", "Park", "Manor", "Orchard", "Meadow",
    "Willow", "Ash", "Beech", "Cedar", "Hawthorn", "Chapel", "School", "Bridge", "Windsor", "Albert",
    "Grange", "Springfield", "Rectory", "Vicarage", "Cromwell", "Nelson", "Jubilee", "Coronation", "Oak",
    "Sycamore", "Primrose", "Bluebell", "Foxglove", "Heather", "Lime", "Poplar", "Rowan", "Holly", "Kestrel",
    "Heron", "Brookfield", "Fairfield", "Highfield", "Greenacre", "Stanley", "Milton", "Tennyson", "Byron",
]
STREET_TYPES = [
    ("Road", "Rd"), ("Street", "St"), ("Lane", "Ln"), ("Avenue", "Ave"), ("Close", "Cl"), ("Drive", "Dr"),
    ("Way", "Way"), ("Crescent", "Cres"), ("Grove", "Gr"), ("Gardens", "Gdns"), ("Terrace", "Tce"),
    ("Place", "Pl"), ("Rise", "Rise"), ("Walk", "Walk"), ("Mews", "Mews"),
]
STREETS_NO_TYPE = [
    "Kingsway", "Broadway", "Parkside", "The Crescent", "The Green", "Meadowbank", "Westgate", "Northgate",
    "Fairview", "Riverside", "The Maltings", "Wharfside", "Eastfield", "Southmead", "Hollybank", "The Paddocks",
    "Larkhill", "Moorside", "Cherry Tree Walk", "Old Market",
]
BLOCKS = [
    "Marlow Court", "Jubilee House", "Ashdown Tower", "Lister House", "Kestrel Point", "Nightingale Court",
    "Priory House", "Beacon Heights", "Canal View", "Seacole House", "Attlee Court", "Wren House",
]
PC_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]

_PH = re.compile(r"\{(\w+)\}")


def _holds(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


def _ascii(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


# ------------------------------------------------------------------------------------- value makers


def _luhn_card(rng: random.Random) -> str:
    head = rng.choice([[4], [5, rng.randint(1, 5)], [4, 9, 2, 9], [4, 6, 5, 9]])
    digits = head + [rng.randrange(10) for _ in range(15 - len(head))]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    digits.append((10 - total % 10) % 10)
    return "".join(map(str, digits))


def _iban(rng: random.Random, sort: str, acc: str) -> str:
    bank = rng.choice(["NWBK", "BARC", "LOYD", "HBUK", "MIDL", "ABBY", "NAIA"])
    bban = bank + sort + acc
    num = "".join(str(int(ch, 36)) for ch in bban + "GB00")
    return f"GB{98 - int(num) % 97:02d}{bban}"


def _nhs(rng: random.Random) -> str:
    while True:
        d = [rng.randrange(10) for _ in range(9)]
        if d[0] == 0:
            continue
        c = 11 - sum(x * w for x, w in zip(d, range(10, 1, -1))) % 11
        if c == 11:
            c = 0
        if c == 10:
            continue
        s = "".join(map(str, d)) + str(c)
        return f"{s[:3]} {s[3:6]} {s[6:]}"


def _plate(rng: random.Random) -> str:
    letters = "ABCDEFGHJKLMNOPRSTUVWXYZ"
    age = rng.choice([f"{rng.randint(2, 24):02d}", f"{rng.randint(51, 74)}"])
    return (rng.choice(letters) + rng.choice(letters) + age + " "
            + "".join(rng.choice(letters) for _ in range(3)))


def _money(rng: random.Random, lo: int = 100, hi: int = 2400) -> str:
    v = rng.randint(lo, hi)
    p = rng.randint(1, 99)
    return f"£{v:,}.{p:02d}"


class _Person:
    def __init__(self, rng: random.Random, used_phones: set, used_accts: set):
        g = rng.random()
        if g < 0.47:
            self.first, self.gender = rng.choice(FEMALE), "f"
        elif g < 0.94:
            self.first, self.gender = rng.choice(MALE), "m"
        else:
            self.first, self.gender = rng.choice(UNISEX), rng.choice("fm")
        pool = SURNAMES_WORD if rng.random() < 0.38 else SURNAMES_OTHER
        self.last = rng.choice(pool)
        if rng.random() < 0.06:
            self.last = f"{rng.choice(SURNAMES_OTHER)}-{rng.choice(SURNAMES_WORD)}"
        if rng.random() < 0.03:
            self.title = "Dr"
        elif self.gender == "m":
            self.title = "Mr"
        else:
            self.title = rng.choice(["Mrs", "Mrs", "Ms", "Ms", "Miss"])
        self.full = f"{self.first} {self.last}"
        # address
        r = rng.random()
        self.flat = None
        if r < 0.22:
            self.flat = str(rng.randint(1, 48))
            self.num = str(rng.randint(1, 120))
            self.street, self.abbr = rng.choice(BLOCKS), None
        elif r < 0.40:
            self.num = str(rng.randint(1, 240))
            self.street, self.abbr = rng.choice(STREETS_NO_TYPE), None
        else:
            self.num = str(rng.randint(1, 240))
            if rng.random() < 0.07:
                self.num += rng.choice("ab")
            stem = rng.choice(STREET_STEMS)
            full_t, abbr_t = rng.choice(STREET_TYPES)
            self.street, self.abbr = f"{stem} {full_t}", f"{stem} {abbr_t}"
        self.pc = (f"HF{rng.randint(1, 12)} {rng.randint(1, 9)}"
                   f"{rng.choice(PC_LETTERS)}{rng.choice(PC_LETTERS)}")
        # phone
        while True:
            k = rng.random()
            x = rng.randrange(1000)
            if k < 0.62:
                ph = ("m", f"07700900{x:03d}")
            elif k < 0.80:
                ph = ("lon", f"02079460{x:03d}")
            else:
                ph = ("geo", rng.choice(["0113", "0161", "0117", "0121", "0114"]) + f"4960{x:03d}")
            if ph[1] not in used_phones:
                used_phones.add(ph[1])
                break
        self.phone_kind, self.phone_digits = ph
        # council tax account
        while True:
            acct = f"{rng.choice('56')}{rng.randrange(10**6, 10**7)}"
            if acct not in used_accts:
                used_accts.add(acct)
                break
        self.acct = acct
        # e-mail
        f, l = _ascii(self.first).lower(), re.sub(r"[^a-z]", "", _ascii(self.last).lower())
        yy = rng.randint(55, 99) if rng.random() < 0.6 else rng.randint(1, 30)
        local = rng.choice([f"{f}.{l}", f"{f}{l}{yy:02d}", f"{f[0]}{l}", f"{l}.{f[0]}", f"{f}_{l}{rng.randint(1, 99)}",
                            f"the{l}family", f"{f}{l[:1]}{rng.randint(100, 999)}", f"{f}.{l}{yy:02d}"])
        self.email = f"{local}@{rng.choice(['example.com', 'example.com', 'example.net', 'example.org', 'mail.example.net'])}"
        self.dob = (rng.randint(1938, 2004), rng.randint(1, 12), rng.randint(1, 28))
        pref = rng.choice(["QQ", "QQ", "JK", "NP", "SH", "WL", "AB", "ZR", "PE", "TM", "YC", "LN"])
        self.ni = f"{pref}{rng.randrange(10**5, 10**6):06d}{rng.choice('ABCD')}"
        self.plate = _plate(rng)
        sort = f"{rng.randint(10, 99)}{rng.randrange(100):02d}{rng.randrange(100):02d}"
        acc = str(rng.randrange(10**7, 10**8))
        self.sort, self.bank_acc = sort, acc
        self.iban = _iban(rng, sort, acc)
        self.card = _luhn_card(rng)

    # canonical identifier values
    def address_line(self) -> str:
        line = f"Flat {self.flat}, {self.num} {self.street}" if self.flat else f"{self.num} {self.street}"
        return f"{line}, {TOWN} {self.pc}"

    def phone_canonical(self) -> str:
        d = self.phone_digits
        if self.phone_kind == "m":
            return f"{d[:5]} {d[5:]}"
        if self.phone_kind == "lon":
            return f"{d[:3]} {d[3:7]} {d[7:]}"
        return f"{d[:4]} {d[4:7]} {d[7:]}"


# ----------------------------------------------------------------------------------- surface forms


def _name_form(rng, p: _Person) -> str:
    r = rng.random()
    if r < 0.40:
        return p.full
    if r < 0.62:
        return p.first
    if r < 0.80:
        return f"{p.title} {p.last}"
    if r < 0.90:
        return f"{p.title} {p.full}"
    return f"{p.first[0]}. {p.last}" if rng.random() < 0.6 else f"{p.first[0]} {p.last}"


def _salut_form(rng, p: _Person) -> str:
    r = rng.random()
    if r < 0.55:
        return f"{p.title} {p.last}"
    if r < 0.85:
        return p.first
    return p.full


def _addr_form(rng, p: _Person) -> str:
    r = rng.random()
    if p.flat:
        opts = [f"Flat {p.flat}, {p.num} {p.street}", f"Flat {p.flat} {p.num} {p.street}",
                f"flat {p.flat}, {p.num} {p.street.lower()}", f"{p.flat}/{p.num} {p.street}",
                f"Flat {p.flat}, {p.street}"]
        return opts[min(int(r * 6), 4)] if r < 0.9 else opts[0]
    if p.abbr and r < 0.25:
        return f"{p.num} {p.abbr}"
    if r < 0.35:
        return f"{p.num} {p.street}".lower()
    if r < 0.42:
        return f"{p.num}, {p.street}"
    return f"{p.num} {p.street}"


def _pc_form(rng, p: _Person) -> str:
    r = rng.random()
    if r < 0.70:
        return p.pc
    if r < 0.85:
        return p.pc.lower()
    return p.pc.replace(" ", "")


def _phone_form(rng, p: _Person) -> str:
    d = p.phone_digits
    if p.phone_kind == "m":
        opts = [f"{d[:5]} {d[5:]}", f"{d[:5]} {d[5:8]} {d[8:]}", d, f"+44 {d[1:5]} {d[5:]}", f"+44{d[1:]}",
                f"{d[:4]} {d[4:7]} {d[7:]}", f"+44 (0){d[1:5]} {d[5:]}", f"{d[:5]}-{d[5:]}"]
        w = [30, 15, 20, 10, 8, 6, 5, 6]
    elif p.phone_kind == "lon":
        opts = [f"{d[:3]} {d[3:7]} {d[7:]}", f"({d[:3]}) {d[3:7]} {d[7:]}", d, f"+44 {d[1:3]} {d[3:7]} {d[7:]}",
                f"{d[:3]}-{d[3:7]}-{d[7:]}"]
        w = [40, 15, 20, 15, 10]
    else:
        opts = [f"{d[:4]} {d[4:7]} {d[7:]}", f"({d[:4]}) {d[4:7]} {d[7:]}", d, f"+44 {d[1:4]} {d[4:7]} {d[7:]}",
                f"{d[:4]} {d[4:]}"]
        w = [40, 15, 20, 10, 15]
    return rng.choices(opts, weights=w)[0]


def _email_form(rng, p: _Person) -> str:
    r = rng.random()
    if r < 0.9:
        return p.email
    local, dom = p.email.split("@")
    return local[:1].upper() + local[1:] + "@" + dom


def _acct_form(rng, p: _Person) -> str:
    a = p.acct
    return rng.choices([a, f"{a[:4]} {a[4:]}", f"{a[:2]} {a[2:5]} {a[5:]}"], weights=[65, 25, 10])[0]


def _dob_form(rng, dob) -> str:
    y, m, d = dob
    suf = "th" if 11 <= d <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    opts = [f"{d:02d}/{m:02d}/{y}", f"{d}/{m}/{str(y)[2:]}", f"{d} {MONTHS[m - 1]} {y}",
            f"{d}{suf} {MONTHS[m - 1]} {y}", f"{y}-{m:02d}-{d:02d}", f"{MONTHS[m - 1]} {d}, {y}",
            f"{d:02d}.{m:02d}.{y}", f"{d} {MONTHS[m - 1][:3]} {str(y)[2:]}"]
    return rng.choices(opts, weights=[30, 10, 15, 12, 8, 5, 10, 10])[0]


def _ni_form(rng, ni: str) -> str:
    opts = [f"{ni[:2]} {ni[2:4]} {ni[4:6]} {ni[6:8]} {ni[8]}", ni, ni.lower(), f"{ni[:2]} {ni[2:8]} {ni[8]}",
            f"{ni[:2]}{ni[2:4]} {ni[4:6]} {ni[6:8]}{ni[8]}"]
    return rng.choices(opts, weights=[35, 30, 10, 15, 10])[0]


def _plate_form(rng, plate: str) -> str:
    return rng.choices([plate, plate.replace(" ", ""), plate.lower(), plate.lower().replace(" ", "")],
                       weights=[50, 30, 12, 8])[0]


def _card_form(rng, card: str) -> str:
    return rng.choices([f"{card[:4]} {card[4:8]} {card[8:12]} {card[12:]}", card,
                        f"{card[:4]}-{card[4:8]}-{card[8:12]}-{card[12:]}"], weights=[55, 30, 15])[0]


def _rel(g: str) -> dict:
    """Relation words for a third party of gender g ("f" or "m")."""
    f = g == "f"
    return {"spouse": "wife" if f else "husband", "kid": "daughter" if f else "son",
            "parent": "mum" if f else "dad", "parent2": "mother" if f else "father",
            "pron": "she's" if f else "he's", "poss": "her" if f else "his"}


def _third_name(rng, style: str = "any", gender: str | None = None) -> str:
    g = rng.random() if gender is None else (0.0 if gender == "f" else 1.0)
    first = rng.choice(FEMALE if g < 0.5 else MALE)
    last = rng.choice(SURNAMES_WORD if rng.random() < 0.35 else SURNAMES_OTHER)
    title = ("Mrs" if rng.random() < 0.5 else "Ms") if g < 0.5 else "Mr"
    if style == "first":
        return first
    if style == "full":
        return f"{first} {last}"
    if style == "title":
        return f"{title} {last}"
    r = rng.random()
    if r < 0.45:
        return f"{first} {last}"
    if r < 0.75:
        return first
    return f"{title} {last}"


def _other_address(rng) -> str:
    r = rng.random()
    if r < 0.3:
        return f"{rng.randint(1, 200)} {rng.choice(STREETS_NO_TYPE)}"
    if r < 0.5:
        return f"Flat {rng.randint(1, 40)}, {rng.choice(BLOCKS)}"
    stem = rng.choice(STREET_STEMS)
    t = rng.choice(STREET_TYPES)
    return f"{rng.randint(1, 200)} {stem} {t[0] if rng.random() < 0.75 else t[1]}"


def _cust_date(rng) -> str:
    d, m = rng.randint(1, 28), rng.randint(1, 12)
    suf = "th" if 11 <= d <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    return rng.choice([f"{d} {MONTHS[m - 1]}", f"the {d}{suf}", f"{d:02d}/{m:02d}", f"{d}{suf} {MONTHS[m - 1]}",
                       f"{WEEKDAYS[rng.randrange(5)]} {d} {MONTHS[m - 1][:3]}"])


WHEN = ["yesterday", "on Monday", "on Tuesday", "this morning", "today", "on Wednesday", "on Thursday",
        "on Friday", "last Friday", "again this week", "on our usual day"]

# ------------------------------------------------------------------------------- the request types
# Each type: id, weight (records per 400), fact, forms, questions, topic, reason (call note), form_name,
# subjects, asks, stories, details, misquotes, wrong, facts, extras, ask_more, ctx (extra placeholders).


def _ctx_missed(rng, p):
    return {"bin": rng.choice(["black bin", "grey bin", "blue recycling bin", "green bin", "brown food caddy",
                               "general waste bin", "recycling", "food waste bin", "purple-lid bin"]),
            "nname": ("third_party_name", _third_name(rng)), "nnum": str(rng.randint(1, 90))}


def _ctx_spd(rng, p):
    r = rng.random()
    if r < 0.45:
        sortacc = [("iban", f"{p.sort[:2]}-{p.sort[2:4]}-{p.sort[4:]}"), ("iban", p.bank_acc)]
    elif r < 0.7:
        sortacc = [("iban", f"{p.sort} {p.bank_acc}")]
    else:
        sortacc = [("iban", " ".join(p.iban[i:i + 4] for i in range(0, len(p.iban), 4))
                    if rng.random() < 0.6 else p.iban)]
    g = rng.choice("fm")
    return {**_rel(g), "tname": ("third_party_name", _third_name(rng, rng.choice(["full", "first"]), g)),
            "sort": sortacc[0],
            "accno": sortacc[1] if len(sortacc) > 1 else ("iban", p.bank_acc),
            "iban": sortacc[0], "bill2": _money(rng, 100, 900)}


def _ctx_noise(rng, p):
    return {"nname": ("third_party_name", _third_name(rng)), "naddr": ("address", _other_address(rng)),
            "landlord": ("third_party_name", _third_name(rng, rng.choice(["full", "title"])))}


def _ctx_parking(rng, p):
    return {"zone": f"Zone {rng.choice('ABCDEFGHJK')}", "reg": ("licence_plate", _plate_form(rng, p.plate)),
            "reg2": ("licence_plate", _plate_form(rng, _plate(rng))),
            "permit": ("account_number", f"RP{rng.randrange(10**5, 10**6)}"),
            "pcn": ("other_id", f"HF{rng.randrange(10**7, 10**8)}"),
            "card4": ("card_number", p.card[-4:])}


def _ctx_repair(rng, p):
    g = rng.choice("fm")
    job = f"RJ{rng.randrange(10**6, 10**7)}"
    return {"issue": rng.choice(["water pouring through the kitchen ceiling", "no heating or hot water",
                                 "a front door that won't lock after a break-in", "a sparking socket in the bedroom",
                                 "a blocked toilet and it's the only one in the flat", "a burst pipe under the sink",
                                 "the electrics keep tripping and we've got no power"]),
            "tref": ("account_number", rng.choice([f"HH{rng.randrange(10**5, 10**6)}",
                                                   f"TEN/{rng.randrange(10**5, 10**6)}"])),
            "job": ("account_number", job),
            "jurl": ("url_with_id", f"https://my.harrowfield.example.com/repairs/track?job={job}"),
            "child": ("third_party_name", _third_name(rng, "first", g)),
            "nname": ("third_party_name", _third_name(rng)), **_rel(g)}


def _ctx_bulky(rng, p):
    g = rng.choice("fm")
    bref = f"BW-{rng.randrange(10**5, 10**6)}"
    card = ("card_number", _card_form(rng, p.card)) if rng.random() < 0.5 else ("card_number", p.card[-4:])
    return {"items": rng.choice(["an old sofa and a bed frame", "a fridge freezer", "a double mattress",
                                 "a wardrobe and a chest of drawers", "a washing machine",
                                 "two armchairs and a coffee table", "a broken trampoline", "a dining table"]),
            "tname": ("third_party_name", _third_name(rng, rng.choice(["full", "first"]), g)), **_rel(g),
            "taddr": ("address", _other_address(rng)), "card": card,
            "bref": ("account_number", bref),
            "burl": ("url_with_id", f"https://my.harrowfield.example.com/bookings/{bref}")}


def _ctx_garden(rng, p):
    g = rng.choice("fm")
    return {"gref": ("account_number", f"GW{rng.randrange(10**5, 10**6)}"), **_rel(g),
            "tname": ("third_party_name", _third_name(rng, "first", g))}


def _ctx_bin(rng, p):
    return {"rbin": rng.choice(["black bin", "blue recycling bin", "green bin", "wheelie bin", "grey bin"]),
            "crime": ("other_id", f"CR/{rng.randrange(10**5, 10**6)}/25")}


def _ctx_planning(rng, p):
    num = rng.randrange(1000, 10000)
    suffix = rng.choice(["HOU", "HOU", "FUL", "LDC"])
    return {"pref": ("account_number", f"25/0{num}/{suffix}"),
            "purl": ("url_with_id",
                     f"https://planning.harrowfield.example.com/online-applications/case/25-0{num}-{suffix}"),
            "proposal": rng.choice(["a single-storey rear extension", "a loft conversion with a rear dormer",
                                    "a dropped kerb", "a garden room", "a two-storey side extension", "a porch"]),
            "arch": ("third_party_name", _third_name(rng, "full")),
            "nname": ("third_party_name", _third_name(rng)),
            "officer": ("third_party_name", _third_name(rng, "full")),
            "fee": _money(rng, 120, 580)}


def _ctx_pest(rng, p):
    return {"pest": rng.choice(["a wasp nest under the eaves", "mice in the kitchen", "rats in the garden",
                                "bed bugs", "fleas", "cockroaches in the flat", "a wasps nest in the shed"]),
            "nnum": str(rng.randint(1, 90)),
            "landlord": ("third_party_name", _third_name(rng, rng.choice(["full", "title"]))),
            "card": ("card_number", _card_form(rng, p.card))}


def _ctx_school(rng, p):
    y = rng.randint(2014, 2015)
    g = rng.choice("fm")
    return {**_rel(g), "child": ("third_party_name", _third_name(rng, "first", g) if rng.random() < 0.6
                                 else f"{rng.choice(FEMALE if g == 'f' else MALE)} {p.last}"),
            "cdob": ("date_of_birth", _dob_form(rng, (y, rng.randint(1, 12), rng.randint(1, 28)))),
            "school": rng.choice(["St Mary's Primary", "Harrowfield Primary", "Oakfield Juniors",
                                  "Brookside Primary", "Holy Trinity C of E"]),
            "tname": ("third_party_name", _third_name(rng))}


def _ctx_badge(rng, p):
    g = rng.choice("fm")
    return {**_rel(g), "tname": ("third_party_name", _third_name(rng, "full", g)),
            "gp": ("third_party_name", f"Dr {rng.choice(SURNAMES_WORD + SURNAMES_OTHER)}"),
            "badge": ("other_id", f"{p.last[:1].upper()}{rng.randrange(10**4, 10**5)} {rng.randrange(10**4, 10**5)}")}


def _ctx_death(rng, p):
    g = rng.choice("fm")
    return {**_rel(g), "tname": ("third_party_name",
                                 rng.choice([f"{rng.choice(FEMALE if g == 'f' else MALE)} {p.last}",
                                             _third_name(rng, "full", g)])),
            "tdob": ("date_of_birth", _dob_form(rng, (rng.randint(1925, 1955), rng.randint(1, 12),
                                                      rng.randint(1, 28)))),
            "nhs": ("other_id", _nhs(rng)),
            "gp": ("third_party_name", f"Dr {rng.choice(SURNAMES_WORD + SURNAMES_OTHER)}")}


TYPES = [
    dict(
        id="missed_bin_return", weight=80, fact="2 working days",
        forms=["2 working days", "two working days", "2 business days", "two business days"],
        questions=["How long will it take for the crew to come back for a bin that was missed?",
                   "If my bin isn't emptied on collection day, when will someone return to empty it?",
                   "When do missed wheelie bins get picked up after I report them?"],
        topic="your missed collection", reason="Missed bin", form_name="Report a missed bin collection",
        subjects=["Missed bin", "bin not collected {when}", "Missed collection - {pc}", "RE: bins AGAIN",
                  "{bin} not emptied"],
        asks=["Our {bin} wasn't emptied {when}. Everyone else on the road had theirs done.",
              "the bin lorry missed us again {when} and the {bin} is still full to the top.",
              "I'd like to report a missed collection. The {bin} at {addr} was out by 7am {when} but wasn't emptied.",
              "Can you tell me when someone will come back for our {bin}? It was missed {when}.",
              "Our {bin} was not collected {when}. This is the third time since Christmas.",
              "Hi, just reporting that the {bin} for {addr} got missed {when}, when will they come back for it?"],
        stories=["We've got a newborn so the nappies are piling up and it's starting to smell.",
                 "I put it out the night before like always, handle facing the road.",
                 "The crew seemed to skip the whole close, the lorry didn't even come down.",
                 "My mum lives with us and I can't get extra bags to the tip on my own.",
                 "There were a couple of cars parked on the corner but there was still plenty of room to get past.",
                 "Last time this happened it sat there for over a week.",
                 "I watched the lorry drive straight past at about 10 o'clock.",
                 "We pay {bill} a year in council tax and can't even get the bins emptied.",
                 "My neighbour {nname} at number {nnum} had theirs missed as well."],
        details=["It's the {bin} at {addr}, {pc}.", "We're at {addr} ({pc})."],
        misquotes=["Last time I was told it could take {wrong} for the crew to come back, is that still the case?",
                   "My neighbour reckons you only come back after {wrong}?",
                   "The lady on the phone last time said {wrong}, which is ridiculous."],
        wrong=["5 working days", "a week", "three days", "ten days", "the next scheduled collection"],
        facts=["I've logged the missed collection and the crew will come back within {f}.",
               "Missed bins reported before 5pm are normally collected within {f}.",
               "Our crews aim to return for missed bins within {f}, so please leave it out until then.",
               "A vehicle will be sent back for it within {f}; if it still hasn't been emptied after that, please let us know."],
        extras=["Please leave the bin at the edge of your property with the lid closed until it has been emptied.",
                "If the bin was contaminated the crew will have left a tag on the handle explaining why.",
                "You can check your collection days any time on the bin day checker at {web}.",
                "I've added a note for the crew supervisor about the repeated misses.",
                "You can also report missed bins through your MyHarrowfield account."],
        ask_more=["Could you confirm the first line of your address and which bin was missed so I can check the crew's report?",
                  "I can't find a collection scheduled at that address this week. Can you confirm your postcode and your usual collection day?",
                  "The crew have recorded that bin as not presented, so could you tell me what time it was put out?"],
        ctx=_ctx_missed),
    dict(
        id="single_person_discount", weight=62, fact="25%",
        forms=["25%", "25 per cent", "twenty-five per cent", "25 percent", "a quarter"],
        questions=["How much discount on council tax do I get if I live alone?",
                   "What is the single person discount worth?",
                   "By how much does my council tax go down when I'm the only adult in the house?"],
        topic="council tax discount", reason="Council tax - SPD", form_name="Council tax - change of circumstances",
        subjects=["Single person discount", "council tax - living alone now", "Council Tax account {acct}",
                  "Change of circumstances"],
        asks=["My partner {tname} moved out on {cdate} and I now live on my own. How much discount can I get on my council tax?",
              "I'm the only adult in the house now since my {kid} {tname} went off to uni. Am I entitled to the single person discount and how much is it?",
              "I want to apply for single occupancy discount, my {spouse} {tname} passed away in {month}. What would it take off the bill?",
              "How much would my council tax go down if I'm living on my own now?",
              "My lodger {tname} left in {month} so it's just me at {addr}. What's the discount for one person?"],
        stories=["My bill for this year is {bill} and I'm really struggling to keep up with it.",
                 "I pay by direct debit, sort code {sort} account {accno}, if you need to change the amount.",
                 "I've already paid {bill2} so far this year.",
                 "I didn't realise I had to tell you, so I've been paying the full amount for months.",
                 "It's been a really difficult time, sorry if this is a bit all over the place."],
        details=["My council tax account is {acct}.", "Account ref {acct}, DOB {dob}.",
                 "My National Insurance number is {ni} if you need it.", "Bank details for the direct debit: {iban}."],
        misquotes=["A friend said it's {wrong} off, is that right?", "I thought single person discount was {wrong}?",
                   "Your website said {wrong} when I looked last year."],
        wrong=["50%", "a third", "30 per cent", "20%", "half", "10%"],
        facts=["If you're the only adult living there, the Single Person Discount takes {f} off your council tax.",
               "The Single Person Discount reduces the bill by {f}.",
               "Once it's approved, {f} will come off your annual charge from the date you started living alone.",
               "People who live on their own get {f} off the full charge."],
        extras=["Please complete the Single Person Discount form at {web} so we can update your account.",
                "We carry out regular checks with credit reference agencies to confirm that people live alone.",
                "Your instalments will be recalculated and a revised bill sent out.",
                "Please tell us if anyone aged 18 or over moves in, as the discount would then stop.",
                "If you're on a low income you may also qualify for Council Tax Reduction."],
        ask_more=["Can you confirm your council tax account number and the exact date you started living alone?",
                  "Before I can apply this I need the full name of the person who moved out and their forwarding address."],
        ctx=_ctx_spd),
    dict(
        id="noise_out_of_hours", weight=45, fact=NOISE_PHONE,
        forms=[NOISE_PHONE, "01632 960777", "01632960777"],
        questions=["What number do I ring to report a noisy neighbour at night?",
                   "Who do I phone while a party next door is keeping me awake?"],
        topic="the noise problem", reason="Noise nuisance", form_name="Report a noise nuisance",
        subjects=["Noise complaint", "noisy neighbours", "Complaint - noise from {naddr}", "Loud music every weekend"],
        asks=["My neighbour at {naddr} has been playing loud music until 3 or 4am most weekends. Who do I call when it's actually happening?",
              "I want to complain about noise from {nname} next door, the dogs bark all day and half the night. Is there a number for when it's going on?",
              "There are parties every Saturday at {naddr}. What can the council do and who do I ring at night?",
              "How do I report a noisy neighbour out of hours? It's unbearable.",
              "The flat above us ({naddr}) is drilling and banging at midnight. Is there a number I can call when it starts?"],
        stories=["I work early shifts at the hospital and I'm not getting any sleep.",
                 "I've spoken to {nname} twice but nothing changes.",
                 "The landlord, {landlord}, doesn't answer my calls or texts.",
                 "I've got recordings on my phone if that helps.",
                 "My kids have exams coming up and they can't sleep.",
                 "It started when the new tenants moved in around {month}."],
        details=["I'm at {addr}, {pc}.", "Please don't tell them it was me who complained. My number is {phone}."],
        misquotes=["Someone told me to ring {wrong} but nobody came out.",
                   "I tried {wrong} like the leaflet said but it just rang out."],
        wrong=["101", "01632 960 770", "the police"],
        facts=["For noise that's happening now, please call our Out of Hours Noise Service on {f} (Friday and Saturday nights, 10pm to 3am) so an officer can witness it.",
               "The best thing is to ring {f} while the noise is going on, so an officer can come and hear it.",
               "You can report live noise to the out-of-hours line on {f}.",
               "Next time it happens, please phone {f} and an officer will try to visit."],
        extras=["We'll also send you diary sheets to record the dates and times of the noise over the next fortnight.",
                "I've opened an Environmental Health case, reference {case}.",
                "Your details won't be passed to the neighbour.",
                "You can also record the noise with The Noise App and send it to us."],
        ask_more=["Can you tell me the address the noise is coming from and what times it usually happens?",
                  "Is the property privately rented or a council property? That affects who deals with it."],
        ctx=_ctx_noise),
    dict(
        id="resident_permit_price", weight=40, fact="£75",
        forms=["£75", "GBP 75", "75 pounds", "seventy-five pounds", "£75.00"],
        questions=["How much is a resident parking permit?",
                   "What does it cost to renew my residents' parking permit each year?"],
        topic="resident parking", reason="Parking permit", form_name="Parking permits enquiry",
        subjects=["Parking permit", "Resident permit renewal {permit}", "permit for {reg}", "{zone} permit"],
        asks=["I've just moved to {addr} which is in {zone}. How much is a resident permit for my car, reg {reg}?",
              "I need to renew my parking permit (permit no. {permit}) for {reg}, what's the cost this year?",
              "can i get a residents permit for {zone} and what does it cost? car is {reg}",
              "How much is a Resident Parking Permit? I've got a new car ({reg}) and my old permit runs out on {cdate}."],
        stories=["I got a ticket outside my own house last week, PCN {pcn}, which I think is really unfair.",
                 "My old car was {reg2}, I sold it in {month}.",
                 "I paid with my card ending {card4} last year so please use that again.",
                 "There are never any spaces after 6pm anyway because of the commuters.",
                 "I work from home so I need to park near the house."],
        details=["The car is registered to me at {addr}, {pc}.", "Vehicle reg: {reg}"],
        misquotes=["The website said {wrong} last year, has it gone up?", "I thought it was {wrong}?",
                   "My neighbour paid {wrong} for hers."],
        wrong=["£50", "£60", "£90", "100 pounds", "£45"],
        facts=["A Resident Parking Permit costs {f} a year for the first vehicle.",
               "The annual permit fee is {f}.",
               "You can apply online and the charge is {f} for twelve months.",
               "Renewing costs {f} and the permit runs for a year from the start date."],
        extras=["You'll need to upload your V5C logbook and a proof of address from the last three months.",
                "Permits are now virtual, so there's nothing to display in the windscreen.",
                "You can manage your permit in your MyHarrowfield account.",
                "Visitor permits are sold separately through the same page on {web}.",
                "PCN appeals are handled by the parking team and can't be cancelled here, I'm afraid."],
        ask_more=["Can you confirm your address and vehicle registration so I can check you're eligible for {zone}?",
                  "Is the vehicle registered at your address? If it's a company car I'll need a letter from your employer first."],
        ctx=_ctx_parking),
    dict(
        id="emergency_repair_time", weight=35, fact="24 hours",
        forms=["24 hours", "twenty-four hours", "24hrs"],
        questions=["How quickly will the council attend an emergency repair in my council flat?",
                   "If my heating fails completely, how soon will a repairs operative come?"],
        topic="your repair", reason="Housing repair - emergency", form_name="Report a housing repair",
        subjects=["Emergency repair", "URGENT repair - {addr}", "Repair request tenancy {tref}", "leak"],
        asks=["I'm a council tenant at {addr} and there's {issue}. How quickly can someone come out?",
              "urgent - {issue} at my flat {addr}. when will a repairs person come??",
              "Reporting an emergency repair: {issue}. Tenancy ref {tref}. How long will it be?",
              "We've got {issue} since last night. How soon can you get someone round?"],
        stories=["My {kid} {child} has asthma and the flat is freezing.",
                 "I've put towels and buckets down but it's still coming through.",
                 "I rang last night and was told someone would call back but nobody did.",
                 "I'm disabled and I can't deal with this on my own.",
                 "The neighbour upstairs, {nname}, says it's coming from their bathroom.",
                 "I've got a baby in the house."],
        details=["Tenancy reference {tref}.", "Contact number {phone}, I'm in all day.",
                 "My NI number is {ni} if you need it for security."],
        misquotes=["Last time I was told emergencies take {wrong}, surely that can't be right?",
                   "The leaflet says {wrong} but this can't wait that long."],
        wrong=["48 hours", "3 days", "a week", "5 working days"],
        facts=["Emergency repairs like this are attended within {f}.",
               "As this is an emergency repair, an operative will attend within {f}.",
               "We class this as an emergency, so someone will be with you within {f}.",
               "Our target for emergency jobs is {f} and I've marked yours as urgent."],
        extras=["Your job number is {job} and you can track it at {jurl}.",
                "Please make sure someone over 18 is home to let the operative in.",
                "In the meantime please turn the water off at the stopcock if it's safe to do so.",
                "For non-urgent repairs you can email {repmail} or use Repairs Online.",
                "Harrowfield Homes will text you when the operative is on the way."],
        ask_more=["Can you send a photo of the problem to {repmail} and confirm a contact number so the repairs team can triage it?",
                  "Is anyone in the property vulnerable, and is the water still coming through now?"],
        ctx=_ctx_repair),
    dict(
        id="bulky_waste_price", weight=30, fact="£35",
        forms=["£35", "GBP 35", "35 pounds", "thirty-five pounds", "£35.00"],
        questions=["How much does the council charge to collect a sofa and other large items?",
                   "What is the price of a bulky waste collection?"],
        topic="bulky waste", reason="Bulky waste", form_name="Book a bulky waste collection",
        subjects=["Bulky waste collection", "collection of {items}", "Bulky item booking", "sofa collection"],
        asks=["How much is it to collect {items} from {addr}?",
              "I want to book a bulky waste collection for {items}. What's the price?",
              "Can the council take away {items}? What do you charge?",
              "hi what does a bulky collection cost, I've got {items} to get rid of"],
        stories=["We're moving out at the end of the month and need it gone.",
                 "My {parent} {tname} passed away and we're clearing {poss} house at {taddr}.",
                 "I don't drive so I can't get to the tip.",
                 "I tried to pay online with my card {card} but it kept failing.",
                 "Someone dumped a mattress in front of my house, it isn't even mine."],
        details=["Address for collection: {addr}, {pc}.", "You can ring me on {phone} to arrange a day."],
        misquotes=["I was told it's {wrong}?", "My sister paid {wrong} last year.",
                   "The website says {wrong}, is that per item?"],
        wrong=["£25", "£30", "£50", "twenty pounds"],
        facts=["A Bulky Waste Collection costs {f} for up to three items.",
               "The charge is {f} for up to three items, collected from outside your property.",
               "We can collect those for {f}, which covers up to three items.",
               "It's {f} per collection (up to three items), payable when you book."],
        extras=["Items need to be out by 7am on the collection day, at the front of the property.",
                "Fridges and freezers count as one item each.",
                "Payment taken by card ending {card4}.",
                "Your booking reference is {bref}, and you can view it at {burl}.",
                "Please don't send card details by email; you can pay securely through {web}."],
        ask_more=["Can you tell me exactly which items there are and whether any are electrical, so I can check we can take them?",
                  "Is the property a flat? If so, we'll need to know whether the items will be at ground level."],
        ctx=_ctx_bulky),
    dict(
        id="garden_waste_price", weight=26, fact="£52",
        forms=["£52", "GBP 52", "52 pounds", "fifty-two pounds", "£52.00"],
        questions=["How much is the yearly garden waste bin subscription?",
                   "What does the brown bin service cost?"],
        topic="garden waste", reason="Garden waste subscription", form_name="Garden waste enquiry",
        subjects=["Garden waste", "brown bin subscription", "Garden Waste Subscription renewal {gref}"],
        asks=["how much is the brown bin subscription this year?",
              "I'd like to renew our garden waste, subscription number {gref}. How much is it now?",
              "We've just moved to {addr} and want to sign up for garden waste collections. What's the cost?",
              "What's the price for the garden waste bin this year? Our sticker runs out on {cdate}."],
        stories=["We've got a big garden and the hedge cuttings are piling up.",
                 "Last year's collections stopped for a month in the summer, so I'm hoping it's better this year.",
                 "I paid {bill} council tax in one go this year, so I don't mind paying upfront.",
                 "My {spouse} {tname} usually sorts this out but {pron} in hospital.",
                 "We had two bins last year but only need one now."],
        details=["Address is {addr}, {pc}.", "Sub ref {gref}.", "You can take the payment from my card {card}."],
        misquotes=["I thought it was {wrong}?", "Last year it was {wrong}, has it gone up?"],
        wrong=["£45", "£40", "£60", "forty pounds"],
        facts=["The Garden Waste Subscription costs {f} per bin for the year.",
               "An annual subscription is {f} for one brown bin, collected fortnightly.",
               "This year's renewal price is {f} per bin.",
               "It's {f} a year for each garden waste bin."],
        extras=["Collections run fortnightly from March to November.",
                "Once you've paid, a new sticker will be posted to you for the bin lid.",
                "Payment has been taken from the card ending {card4}.",
                "You can sign up through the Garden Waste Subscription page on {web}.",
                "You can pay by card over the phone on {main}."],
        ask_more=["Could you confirm how many bins you want covered and the address?",
                  "I can't see a subscription under that reference, could you check the number on your sticker?"],
        ctx=_ctx_garden),
    dict(
        id="replacement_bin_charge", weight=22, fact="£28",
        forms=["£28", "GBP 28", "28 pounds", "twenty-eight pounds", "£28.00"],
        questions=["How much do I pay for a replacement wheelie bin?",
                   "Our bin was stolen - what's the charge for a new one?"],
        topic="your bin", reason="Replacement bin", form_name="Order a new or replacement bin",
        subjects=["New bin", "Replacement bin", "stolen bin", "bin lid broken"],
        asks=["Our {rbin} has been stolen. How much is a replacement?",
              "the lid has snapped off our {rbin}, do we have to pay for a new one?",
              "We need a new {rbin} for {addr}, ours has split down the side. What's the charge?",
              "Someone took our {rbin} on collection day. How much to get another one delivered?"],
        stories=["It had our house number painted on the side so I don't know how it went missing.",
                 "We reported it to the police, crime reference {crime}.",
                 "We've just moved in and the previous owners took the bins with them.",
                 "We've been putting rubbish in bags but foxes keep tearing them open."],
        details=["The address is {addr}, {pc}.", "Phone {phone} if the driver can't find us.",
                 "Happy to pay by card, it's {card}."],
        misquotes=["My neighbour said it's {wrong}?", "I was told on the phone it would be {wrong}."],
        wrong=["£20", "£15", "free of charge", "£30"],
        facts=["There is a delivery charge of {f} for a replacement wheelie bin.",
               "Replacement bins cost {f}, which includes delivery.",
               "We can deliver a new bin for {f}.",
               "The charge for a replacement bin is {f}."],
        extras=["Delivery usually takes up to ten working days once paid.",
                "If the bin was damaged by our crew there's no charge, so please let us know if that was the case.",
                "You can order and pay online at {web}."],
        ask_more=["Can you confirm which bin you need and whether it was damaged by the crew or lost?"],
        ctx=_ctx_bin),
    dict(
        id="planning_decision_time", weight=18, fact="8 weeks",
        forms=["8 weeks", "eight weeks", "56 days"],
        questions=["How long does the council take to decide a householder planning application?",
                   "When should I expect a decision on my extension plans?"],
        topic="your planning application", reason="Planning - progress", form_name="Planning enquiry",
        subjects=["Planning application {pref}", "planning decision", "Extension plans - how long?"],
        asks=["I submitted a planning application (ref {pref}) for {proposal} on {cdate}. How long will it be until I get a decision?",
              "Our architect {arch} submitted plans for {proposal} at {addr}. When will the council decide?",
              "How long does a householder application usually take? Ours is {pref}.",
              "We applied for {proposal} and have heard nothing. When should we expect an answer?"],
        stories=["The builders are booked for {month} so we're keen to know.",
                 "A neighbour, {nname}, has objected, which I think is just spite.",
                 "We paid the fee of {fee} when we applied.",
                 "The portal still says awaiting validation: {purl}"],
        details=["Site address: {addr}, {pc}.", "Application ref: {pref}"],
        misquotes=["I thought it was {wrong} for a decision?", "The architect said {wrong}."],
        wrong=["6 weeks", "13 weeks", "12 weeks", "a month"],
        facts=["Householder applications are normally decided within {f} of being validated.",
               "The statutory target for a decision on an application like yours is {f}.",
               "You should have a decision within {f} from the validation date.",
               "We aim to determine householder applications within {f}."],
        extras=["Neighbours have 21 days to comment once they've been notified.",
                "You can follow progress on the Planning Portal using your reference.",
                "Your case officer is {officer}, who will contact you if any changes are needed.",
                "If it is going to take longer, the officer may ask you to agree an extension of time."],
        ask_more=["Could you give me the application reference so I can check whether it has been validated yet?"],
        ctx=_ctx_planning),
    dict(
        id="pest_control_fee", weight=16, fact="£68",
        forms=["£68", "GBP 68", "68 pounds", "sixty-eight pounds", "£68.00"],
        questions=["How much does the council charge to get rid of a wasp nest or mice?",
                   "What is the fee for pest control?"],
        topic="pest control", reason="Pest control", form_name="Book pest control",
        subjects=["Pest control", "{pest}", "wasps"],
        asks=["We've got {pest}. How much does the council charge to deal with it?",
              "What do you charge for pest control? There's {pest} at {addr}.",
              "hi, how much is it for someone to come and sort out {pest}"],
        stories=["We've got two small children so I don't want to use poison myself.",
                 "The neighbours at number {nnum} have the same problem.",
                 "I've tried traps from the shop but they aren't working.",
                 "I rent from {landlord} but they say it's my problem."],
        details=["Address {addr}, {pc}.", "I can pay by card, the long number is {card}."],
        misquotes=["I was told it's {wrong}?", "My friend in the next borough paid {wrong}."],
        wrong=["£50", "£80", "free", "£60"],
        facts=["A Pest Control Service treatment costs {f}.",
               "Our charge for this treatment is {f}, which includes up to three visits.",
               "The fee is {f} for a residential treatment.",
               "It costs {f}, and we can usually book a technician within a week."],
        extras=["If you receive Council Tax Reduction you may be eligible for a reduced fee.",
                "A technician will call you the day before to confirm a time slot.",
                "Please keep pets and children away from treated areas."],
        ask_more=["Can you describe where you've seen them and how long it's been going on?"],
        ctx=_ctx_pest),
    dict(
        id="secondary_admissions_deadline", weight=14, fact="31 October",
        forms=["31 October", "31st October", "October 31st", "31/10", "31st of October"],
        questions=["When is the deadline to apply for a secondary school place?",
                   "By what date must Year 7 applications be submitted?"],
        topic="school admissions", reason="School admissions", form_name="School admissions enquiry",
        subjects=["Secondary school application", "Year 7 deadline", "school place for {child}"],
        asks=["My {kid} {child} (DOB {cdob}) starts secondary next year. When's the deadline to apply?",
              "When do I need to get the Year 7 application in for my {kid} {child}?",
              "What's the closing date for secondary school applications? My child {child} is at {school} at the moment.",
              "We've just moved into the area ({addr}) and {child} needs a secondary place. When do applications close?"],
        stories=["{child}'s date of birth is {cdob}.",
                 "We're hoping for Harrowfield Academy as their cousins go there.",
                 "I'm a single parent and work shifts, so I want to get it done early.",
                 "My ex-partner {tname} also has parental responsibility, do we both need to sign?"],
        details=["Our address is {addr}, {pc}.", "My phone number is {phone}."],
        misquotes=["I thought the deadline was {wrong}?", "Another parent told me it's {wrong}."],
        wrong=["30 November", "15 January", "the end of September", "1 December"],
        facts=["The closing date for secondary school applications is {f}.",
               "Applications for a Year 7 place must be in by {f}.",
               "Please make sure you apply before the deadline of {f}; late applications are only considered after on-time ones.",
               "The School Admissions portal closes for on-time secondary applications on {f}."],
        extras=["You can list up to six preferences, in order.",
                "National offer day for secondary places is 1 March.",
                "Your application reference will be emailed to you once you've submitted it."],
        ask_more=["Is this for a primary or a secondary place? The deadlines are different."],
        ctx=_ctx_school),
    dict(
        id="blue_badge_fee", weight=7, fact="£10",
        forms=["£10", "GBP 10", "10 pounds", "ten pounds", "£10.00"],
        questions=["How much does a Blue Badge cost?", "Is there a fee for a disabled parking badge?"],
        topic="your Blue Badge", reason="Blue Badge", form_name="Blue Badge enquiry",
        subjects=["Blue badge", "Blue Badge application", "disabled parking badge"],
        asks=["I'm applying for a blue badge for my {parent} {tname}, how much does it cost?",
              "How much is a blue badge? My NI number is {ni} and DOB is {dob}.",
              "Is there a charge for a Blue Badge? I had a stroke in {month} and can't walk far."],
        stories=["My GP, {gp}, said I should apply.",
                 "I get the higher rate mobility component of PIP.",
                 "My old badge ({badge}) expires next month."],
        details=["NI no {ni}", "Address: {addr}, {pc}", "My National Insurance number is {ni}."],
        misquotes=["I heard it's {wrong} now?", "Is it still {wrong}?"],
        wrong=["£20", "free", "£15"],
        facts=["There is a {f} fee for a Blue Badge, payable once the application is approved.",
               "A Blue Badge costs {f} and lasts up to three years.",
               "The fee is {f}, and you only pay it if the application is successful."],
        extras=["You'll need a recent passport-style photo and proof of identity.",
                "Applications can take a while to process, so apply in good time."],
        ask_more=["Can you confirm whether you receive PIP, and if so which component?"],
        ctx=_ctx_badge),
    dict(
        id="death_registration_limit", weight=5, fact="5 days",
        forms=["5 days", "five days"],
        questions=["How long do I have to register a death?",
                   "What is the time limit for registering someone's death?"],
        topic="registering a death", reason="Register office - death", form_name="Register office enquiry",
        subjects=["Registering a death", "death registration", "Appointment to register a death"],
        asks=["My {parent2} {tname} died on {cdate} at Harrowfield General. How long do I have to register the death?",
              "My {parent} {tname} passed away at home yesterday. What's the time limit for registering the death?",
              "How long have I got to register a death? My {spouse} {tname} died on {cdate}."],
        stories=["Date of birth {tdob}, NHS number {nhs}.",
                 "The doctor, {gp}, said the certificate would be sent to you directly.",
                 "I'm the executor and I live in Scotland, so it's difficult to get there."],
        details=["My number is {phone}."],
        misquotes=["Someone said I have {wrong}, is that right?", "I thought it was {wrong}?"],
        wrong=["7 days", "two weeks", "a month", "42 days"],
        facts=["A death in England must be registered within {f}, and you'll need to book an appointment with the Register Office.",
               "The law says a death should be registered within {f}, unless the coroner is involved.",
               "You have {f} to register the death."],
        extras=["We also offer the Tell Us Once service, which lets other government departments know for you.",
                "Please bring the medical certificate of cause of death and, if you have it, their birth certificate."],
        ask_more=["I'm very sorry for your loss. Has the doctor issued the medical certificate yet?"],
        ctx=_ctx_death),
]

GEN_DETAILS = [
    "My address is {addr}, {pc}.",
    "Address: {addr}, Harrowfield, {pc}",
    "I live at {addr} ({pc}).",
    "You can call me on {phone}.",
    "best number is {phone}",
    "My mobile is {phone}, I'm usually free after 5.",
    "Council tax acc no {acct}.",
    "My council tax account number is {acct} if that helps.",
    "email me back at {email} please",
    "My DOB is {dob} in case you need to check it's me.",
    "I've got a MyHarrowfield account, this is the link it gave me: {myurl}",
]
GEN_STORIES = [
    "I've tried ringing {main} three times today and been on hold for ages.",
    "Sorry if this is the wrong department.",
    "I'm on Housing Benefit, claim number {hbref}, in case that makes a difference.",
    "I did fill in the online form last week but heard nothing back.",
    "I'm writing from work so can't talk on the phone.",
    "This is the second time I've had to contact you this month.",
]
CORRECTIONS = [
    "Just to correct that - it isn't {wrong}.",
    "I'm sorry if you were told {wrong}, that's not right.",
    "I'm afraid {wrong} is out of date.",
    "That isn't quite right, it's not {wrong}.",
]
THANKS = [
    "Thank you for contacting Harrowfield Borough Council.", "Thanks for getting in touch about {topic}.",
    "Thank you for your email.", "Thank you for your enquiry regarding {topic}.",
    "Sorry to hear about this, and thank you for letting us know.", "Thanks for your message.",
]
CONTACTS = [
    "If you need anything else, call us on {main}, Monday to Friday 9am to 5pm.",
    "You can find more information at {web}.",
    "If you have any further questions, reply to this email or contact {csmail}.",
    "Please quote {case} if you contact us again.",
    "Many of our services are available online at {web}.",
    "If you'd rather speak to someone, our contact centre is on {main}.",
]
SIGNOFFS = [
    "Kind regards,\n{afull}\nCustomer Services Advisor\n{co}",
    "Regards,\n{af}\n{short}",
    "Many thanks,\n{asig}\nCustomer Contact Centre, {co}",
    "Customer Services Team\n{co}",
    "Best wishes\n{af} ({short} Customer Services)",
    "{asig} | Resident Services | {co}",
    "Yours sincerely,\n\n{afull}\nContact Centre Advisor",
]
CUST_GREET = ["Hi,", "Hello,", "Dear Sir/Madam,", "Good morning,", "To whom it may concern,", "Hi there,",
              "Dear Harrowfield Council,", "", "Afternoon,"]
CUST_CLOSE = ["Thanks", "Many thanks", "Regards", "Kind regards", "Cheers", "Thank you", "Thanks in advance",
              "Best wishes", "Thanks again"]

TYPOS = {
    "received": "recieved", "their": "thier", "definitely": "definately", "tomorrow": "tommorow",
    "because": "becuase", "collection": "colection", "collected": "colected", "which": "wich", "don't": "dont",
    "I'm": "im", "can't": "cant", "didn't": "didnt", "please": "pls", "address": "adress", "again": "agian",
    "neighbour": "neighbor", "really": "realy", "until": "untill", "wasn't": "wasnt", "it's": "its",
    "there": "ther", "know": "kno", "someone": "some one", "anyone": "any one",
    "thanks": "thx", "emptied": "emptyed", "struggling": "strugling", "through": "thru", "tonight": "tonite",
    "we've": "weve", "I've": "ive", "people": "ppl", "because of": "cos of", "you": "u",
}
_TYPO_RE = re.compile(r"(?<![\w'])(" + "|".join(re.escape(k) for k in sorted(TYPOS, key=len, reverse=True))
                      + r")(?![\w'])")


def _mangle(rng, tmpl: str, typo: float, lower: bool) -> str:
    """Typos and lower case in a customer template, placeholders left intact."""
    parts = re.split(r"(\{\w+\})", tmpl)
    out = []
    for part in parts:
        if part.startswith("{") and part.endswith("}"):
            out.append(part)
            continue
        if typo:
            part = _TYPO_RE.sub(lambda m: TYPOS[m.group(1)] if rng.random() < typo else m.group(1), part)
        if lower:
            part = part.lower()
        out.append(part)
    return "".join(out)


class _Filler:
    def __init__(self, ctx: dict):
        self.ctx = ctx
        self.pii: list[tuple[str, str]] = []

    def __call__(self, tmpl: str) -> str:
        def rep(m):
            v = self.ctx[m.group(1)]
            if callable(v):
                v = v()
            if isinstance(v, tuple):
                self.pii.append(v)
                return v[1]
            return v
        return _PH.sub(rep, tmpl)


def _scaled_counts(n: int) -> list[int]:
    ws = [t["weight"] for t in TYPES]
    total = sum(ws)
    counts = [max(1, round(w * n / total)) for w in ws]
    diff = n - sum(counts)
    i = 0
    while diff != 0:
        j = i % len(counts)
        step = 1 if diff > 0 else -1
        if counts[j] + step >= 1:
            counts[j] += step
            diff -= step
        i += 1
    return counts


def _build(rng, t, p, agent, channel, mode, wrong, repeat, case_ref, start):
    """One record's text, PII and the agent's part; mode is 'state', 'misquote' or 'ask'."""
    af, al = agent
    afull = f"{af} {al}"
    ctx = {
        "full": ("person_name", p.full), "first": ("person_name", p.first),
        "name": lambda: ("person_name", _name_form(rng, p)),
        "salut": lambda: ("person_name", _salut_form(rng, p)),
        "addr": lambda: ("address", _addr_form(rng, p)), "pc": lambda: ("postcode", _pc_form(rng, p)),
        "phone": lambda: ("phone", _phone_form(rng, p)), "email": lambda: ("email", _email_form(rng, p)),
        "acct": lambda: ("account_number", _acct_form(rng, p)),
        "dob": lambda: ("date_of_birth", _dob_form(rng, p.dob)), "ni": lambda: ("national_id", _ni_form(rng, p.ni)),
        "myurl": ("url_with_id", f"https://my.harrowfield.example.com/account/{p.acct}"),
        "case": ("account_number", case_ref),
        "af": ("agent_name", af), "afull": ("agent_name", afull),
        "ashort": ("agent_name", f"{af} {al[0]}."), "ini": ("agent_name", af[0] + al[0]),
        "asig": lambda: ("agent_name", rng.choice([afull, f"{af} {al[0]}.", f"{af[0]}. {al}", af])),
        "main": MAIN_PHONE, "web": WEBSITE, "csmail": CS_EMAIL, "co": COMPANY, "short": SHORT_NAME,
        "repmail": REPAIRS_EMAIL, "topic": t["topic"],
        "when": lambda: rng.choice(WHEN), "cdate": lambda: _cust_date(rng), "month": lambda: rng.choice(MONTHS),
        "bill": lambda: _money(rng, 1100, 2600),
        "card": ("card_number", _card_form(rng, p.card)), "card4": ("card_number", p.card[-4:]),
        "hbref": ("account_number", f"HB{rng.randrange(10**6, 10**7)}"),
        "wrong": wrong or "",
    }
    ctx.update(t["ctx"](rng, p))
    fill = _Filler(ctx)
    typo = rng.choice([0.0, 0.0, 0.0, 0.25, 0.5]) if rng.random() < 0.5 else 0.0
    lower = channel == "chat" and rng.random() < 0.45

    def c(tmpl):  # a customer sentence
        return fill(_mangle(rng, tmpl, typo, lower))

    # ---- customer content
    ask = c(rng.choice(t["asks"]))
    n_st = rng.choice([0, 1, 1, 2])
    stories = [c(s) for s in rng.sample(t["stories"], min(n_st, len(t["stories"])))]
    if rng.random() < 0.25:
        gs = GEN_STORIES if repeat else GEN_STORIES[:4]
        stories.append(c(rng.choice(gs)))
    pool = t["details"] + GEN_DETAILS
    picked, has_addr = [], channel == "chat"
    for s in rng.sample(pool, rng.choice([0, 1, 1, 2, 2, 3])):
        if "{addr}" in s:
            if has_addr:
                continue
            has_addr = True
        picked.append(s)
    details = [c(s) for s in picked]
    misq = c(rng.choice(t["misquotes"])) if mode == "misquote" else None

    # ---- agent content
    f = t["fact"] if rng.random() < 0.4 else rng.choice(t["forms"])
    ctx["f"] = f
    if mode == "ask":
        core = [fill(rng.choice(t["ask_more"]))]
    else:
        core = [fill(rng.choice(t["facts"]))]
        if mode == "misquote":
            corr = fill(rng.choice(CORRECTIONS))
            core = [corr] + core if rng.random() < 0.7 else core + [corr.replace("Just to correct that - ", "So ")]
    extras = [fill(s) for s in rng.sample(t["extras"], rng.choice([0, 1, 1, 2]))]
    if t["id"] == "emergency_repair_time" and mode != "ask" and rng.random() < 0.5:
        extras.append(fill(rng.choice(["Photos of the damage can be emailed to {repmail}, quoting your address.",
                                       "If anything changes, email {repmail} or call {main}."])))
    contact = fill(rng.choice(CONTACTS)) if rng.random() < {"chat": 0.3, "call": 0.0}.get(channel, 0.6) else ""

    agent_parts: list[str] = []
    cust_parts: list[str] = []

    def A(s):
        agent_parts.append(s)
        return s

    def C(s):
        cust_parts.append(s)
        return s

    day, mon = start
    date = f"{day:02d}/{mon:02d}/2025"
    hh, mm = rng.randint(8, 19), rng.randint(0, 59)
    order = [ask] + stories + ([misq] if misq else [])
    if stories and rng.random() < 0.3:
        order = [stories[0], ask] + stories[1:] + ([misq] if misq else [])

    if channel == "email":
        subj = c(rng.choice(t["subjects"]))
        frm = fill("{full} <{email}>") if rng.random() < 0.7 else fill("{email}")
        greet = rng.choice(CUST_GREET)
        body = " ".join(order)
        if details:
            body += "\n\n" + " ".join(details) if rng.random() < 0.6 else " " + " ".join(details)
        sig = fill("{name}")
        tail = ""
        r = rng.random()
        if r < 0.25:
            tail = "\n" + fill(rng.choice(["Tel: {phone}", "{phone}", "Mob: {phone}", "M. {phone}"]))
        elif r < 0.35:
            tail = "\n" + fill("{addr}\nHarrowfield\n{pc}")
        if rng.random() < 0.08:
            tail += "\n\nSent from my iPhone"
        cust = C(f"{greet}\n\n{body}\n\n{rng.choice(CUST_CLOSE)}\n{sig}{tail}".lstrip("\n"))
        rg = fill(rng.choice(["Dear {salut},", "Hello {first},", "Hi {first},", "Dear Resident,", "Dear {salut}"]))
        intro = fill("My name is {af} and I'm dealing with your enquiry. ") if rng.random() < 0.2 else ""
        reply_body = " ".join([intro + fill(rng.choice(THANKS))] + core + extras)
        reply = A(f"{rg}\n\n{reply_body}\n\n" + (contact + "\n\n" if contact else "") + fill(rng.choice(SIGNOFFS)))
        head_out = f"From: {frm}\nTo: {CS_EMAIL}\nDate: {date} {hh:02d}:{mm:02d}\nSubject: {subj}"
        if rng.random() < 0.5:
            text = f"{head_out}\n\n{cust}\n\n-----\nFrom: {COMPANY} <{CS_EMAIL}>\nSubject: RE: {subj}\n\n{reply}"
        else:
            quoted = "\n".join("> " + ln if ln else ">" for ln in cust.split("\n"))
            text = (f"Subject: RE: {subj}\n\n{reply}\n\nOn {date} at {hh:02d}:{mm:02d}, {frm} wrote:\n{quoted}")
    elif channel == "webform":
        fields = [f"Online form: {t['form_name']}", f"Case reference: {fill('{case}')}",
                  f"Submitted: {date} {hh:02d}:{mm:02d}", f"Name: {fill('{full}' if rng.random() < 0.8 else '{name}')}"]
        if rng.random() < 0.85:
            fields.append(f"Address: {fill('{addr}')}")
            fields.append(f"Postcode: {fill('{pc}')}")
        if rng.random() < 0.8:
            fields.append(f"Email: {fill('{email}')}")
        if rng.random() < 0.7:
            fields.append(f"Telephone: {fill('{phone}')}")
        if rng.random() < 0.4:
            fields.append(f"Council tax account number (if known): {fill('{acct}')}")
        body = " ".join(order + details)
        C(body)
        reply_body = " ".join([fill(rng.choice(["Dear {salut},", "Hello {first},", "Dear Resident,"])),
                               fill(rng.choice(THANKS))] + core + extras + ([contact] if contact else []))
        A(reply_body)
        who = fill(rng.choice(["{afull}", "{af}", "{asig}"]))
        sign = A(fill(rng.choice(["{af}\n{short}", "{afull}, Customer Services", "Customer Services Team, {co}",
                                  "{asig}"])))
        text = ("\n".join(fields) + "\nDetails of your enquiry:\n" + body
                + f"\n\n--- Response sent {min(day + rng.randint(0, 3), 28):02d}/{mon:02d}/2025 by {who} ---\n"
                + reply_body + "\n" + sign)
        agent_parts.append(who)
    elif channel == "chat":
        label = rng.choice(["Resident", "Customer", "Visitor", "You", None])
        clabel = fill("{first}") if label is None else label
        t0 = hh * 60 + mm

        def ts(k):
            x = t0 + k
            return f"[{(x // 60) % 24:02d}:{x % 60:02d}]"

        lines = [f"Webchat transcript - MyHarrowfield - {date}",
                 f"{ts(0)} System: You are now chatting with {fill('{af}')}.",
                 f"{ts(0)} {fill('{af}')}: " + A(fill(rng.choice([
                     "Hello, you're chatting with {af}. How can I help you today?",
                     "Hi, my name is {af} from Harrowfield Council, what can I do for you?",
                     "Welcome to Harrowfield Council webchat, I'm {af}. How can I help?",
                     ("Good morning" if hh < 12 else "Good afternoon") + ", {af} here. What can I help with?"])))]
        k = 1
        lines.append(f"{ts(k)} {clabel}: {C(ask)}")
        idreq = A(fill(rng.choice(["Can I take your full name and the first line of your address please?",
                                   "Could I have your name and postcode please?",
                                   "Sure, can I just take your name and address first?"])))
        k += 1
        lines.append(f"{ts(k)} {fill('{af}')}: {idreq}")
        ident = c(rng.choice(["{full}, {addr} {pc}", "{full}, {addr}", "its {full}, {pc}",
                              "{name} - {addr}, {pc}", "{full} {addr} {pc}"]))
        k += 1
        lines.append(f"{ts(k)} {clabel}: {C(ident)}")
        for s in stories + details + ([misq] if misq else []):
            k += rng.randint(0, 1)
            lines.append(f"{ts(k)} {clabel}: {C(s)}")
        k += 1
        thanks = fill(rng.choice(["Thanks {first}. ", "Thank you. ", "Thanks for that. ", ""]))
        lines.append(f"{ts(k)} {fill('{af}')}: " + A(thanks + " ".join(core)))
        for s in extras + ([contact] if contact else []):
            k += 1
            lines.append(f"{ts(k)} {fill('{af}')}: {A(s)}")
        k += 1
        lines.append(f"{ts(k)} {clabel}: " + C(c(rng.choice(["ok thanks", "great, thank you", "cheers",
                                                             "ok", "thanks for your help", "right ok thank you"]))))
        k += 1
        lines.append(f"{ts(k)} {fill('{af}')}: " + A(fill(rng.choice(
            ["You're welcome, is there anything else I can help with?", "No problem {first}, have a good day.",
             "You're welcome. Thanks for contacting Harrowfield Council.", "Take care, bye for now."]))))
        text = "\n".join(lines)
    else:  # call note
        adv = fill(rng.choice(["{afull}", "{ashort}", "{af}"]))
        head = [f"Telephone contact - {date} {hh:02d}:{mm:02d}", f"Advisor: {adv}",
                "Caller: " + fill(rng.choice(["{full}", "{name}", "{full}", "{name} - tel {phone}"]))]
        if rng.random() < 0.7:
            head.append("Tel: " + fill("{phone}"))
        if rng.random() < 0.7:
            head.append("Property: " + fill("{addr}, {pc}"))
        if rng.random() < 0.35:
            head.append("ID&V: " + fill(rng.choice(["DOB {dob} confirmed", "DOB {dob}, CT acct {acct}",
                                                   "CT acct {acct}", "NI {ni}", "DOB {dob} + postcode"])))
        if t["id"] == "emergency_repair_time" and rng.random() < 0.5:
            head[2] += " (tenant)"
        head.append(f"Reason: {t['reason']}")
        said = " ".join(order + details)
        C(said)
        note = ("Caller said: " if rng.random() < 0.6 else "Cust states: ") + said
        adv_text = " ".join(core + extras)
        if mode == "ask":
            adv_text = "asked caller - " + adv_text
        A(adv_text)
        outcome = rng.choice(["Caller happy with advice.", "Caller not happy, wants a call back from a supervisor.",
                              "No further action.", "Case left open.", "Caller satisfied."])
        sign = A(fill(rng.choice(["- {ini}", "{ini}", "- {af}", "Logged by {afull}"])))
        text = "\n".join(head) + "\n" + note + "\n" + ("Advised: " if mode != "ask" else "Action: ") + adv_text \
            + "\n" + outcome + " " + sign
    return text, fill.pii, "\n".join(agent_parts), "\n".join(cust_parts)


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    rng = random.Random(f"council-{seed}-{n}")
    counts = _scaled_counts(n)
    seq = [i for i, k in enumerate(counts) for _ in range(k)]
    rng.shuffle(seq)

    idx = list(range(n))
    rng.shuffle(idx)
    n_mis = round(n * 0.10)
    n_ask = round(n * 0.07)
    mis_set = set(idx[:n_mis])
    ask_set = set(idx[n_mis:n_mis + n_ask])

    all_forms = [(t["id"], fm) for t in TYPES for fm in t["forms"]]
    for t in TYPES:
        for w in t["wrong"]:
            assert not any(_holds(w, fm) or _holds(fm, w) for _, fm in all_forms), (t["id"], w)

    agents = rng.sample(AGENTS, 22)
    used_phones: set = set()
    used_accts: set = set()
    persons: list[_Person] = []
    open_persons: list[int] = []
    person_uses: list[int] = []

    records, pii_rows = [], []
    stated = {t["id"]: 0 for t in TYPES}
    misq = {t["id"]: 0 for t in TYPES}
    used_cases: set = set()
    for i in range(n):
        t = TYPES[seq[i]]
        if open_persons and rng.random() < 0.22:
            pid = rng.choice(open_persons)
            repeat = True
        else:
            persons.append(_Person(rng, used_phones, used_accts))
            person_uses.append(0)
            pid = len(persons) - 1
            open_persons.append(pid)
            repeat = False
        person_uses[pid] += 1
        if person_uses[pid] >= rng.choice([2, 3, 3]):
            if pid in open_persons:
                open_persons.remove(pid)
        p = persons[pid]
        mode = "misquote" if i in mis_set else "ask" if i in ask_set else "state"
        wrong = rng.choice(t["wrong"]) if mode == "misquote" else None
        while True:
            case_ref = f"CAS-{rng.randrange(10**6, 10**7)}"
            if case_ref not in used_cases:
                used_cases.add(case_ref)
                break
        channel = rng.choices(["email", "webform", "chat", "call"], weights=[35, 25, 22, 18])[0]
        start = (rng.randint(1, 25), rng.randint(1, 12))
        agent = agents[rng.randrange(len(agents))]
        own = list(t["forms"])
        other = [fm for tid, fm in all_forms if tid != t["id"]]
        for _ in range(60):
            text, pii, agent_text, cust_text = _build(rng, t, p, agent, channel, mode, wrong, repeat, case_ref,
                                                      start)
            if any(s not in text for _, s in pii):
                continue
            words = len(text.split())
            if not 50 <= words <= 250:
                continue
            if any(_holds(text, fm) for fm in other):
                continue
            if any(_holds(cust_text, fm) for fm in own):
                continue
            says = any(_holds(agent_text, fm) for fm in own)
            if (mode == "ask") == says:
                continue
            break
        else:  # pragma: no cover - guarded by tests over seeds and sizes
            raise RuntimeError(f"could not build record {i} of type {t['id']}")
        if says:
            stated[t["id"]] += 1
        if mode == "misquote":
            misq[t["id"]] += 1
        rid = f"hbc-{i + 1:06d}"
        seen, items = set(), []
        for kind, s in pii:
            if (kind, s) not in seen and s:
                seen.add((kind, s))
                items.append({"kind": kind, "text": s})
        records.append({
            "id": rid, "text": text, "person_id": f"res-{pid + 1:05d}", "type": t["id"],
            "customer_name": p.full, "email": p.email, "phone": p.phone_canonical(),
            "address": p.address_line(), "account_number": p.acct,
        })
        pii_rows.append({"id": rid, "pii": items})

    types_out = []
    for t, k in sorted(zip(TYPES, counts), key=lambda x: -x[1]):
        types_out.append({"id": t["id"], "records": k, "fact": t["fact"], "forms": list(t["forms"]),
                          "stated_by": stated[t["id"]], "misquoted_by": misq[t["id"]]})
    questions = []
    for t, k in zip(TYPES, counts):
        for q in t["questions"]:
            questions.append({"question": q, "answers": list(t["forms"]), "type": t["id"], "support": k})
    return {
        "domain": "council",
        "records": records,
        "pii": pii_rows,
        "types": types_out,
        "questions": questions,
        "public": {
            "company": COMPANY,
            "public_strings": list(PUBLIC_STRINGS),
            "product_names": list(PRODUCT_NAMES),
            "identifier_fields": list(IDENTIFIER_FIELDS),
            "id_field": "id", "text_field": "text", "unit_field": "person_id",
        },
    }
