"""Person names, postal addresses and phone numbers found without a model (the ``PERSON`` and ``ADDRESS``
entities of ``--redact-pii``, and phone numbers that libphonenumber does not know; :mod:`dpsynrag.data.pii`).

Names: the public first- and last-name lists of the 1990 US census (shipped by the PyPI package
``names``, part of ``pip install 'dpsynrag[pii]'``; 5,163 first names, 88,799 last names, read from the
installed package, never the network; looked up without case or diacritics) with context. A capitalised
word (``Ann``, ``O'Brien``, ``McDonald``, ``Smith-Jones``, accented letters too) starts a name when it is a
listed first name (and not an ordinary word or place: :data:`COMMON_WORDS`), with the capitalised words
that follow it ("Sarah Okafor"); when it follows a title ("Mr", "Dr", ...) or a cue ("my wife",
"landlord", "contact", "Dear", "Regards,", ...: :data:`NAME_CUES`) or comes before a relation or role
("Chidi Okafor, my colleague") and is not an ordinary English word; when two capitalised words end in a
listed last name that is not a common English word ("Priya Sharma"); or when two capitalised words are
both not English words (not among wordfreq's 30,000 most frequent: "Oyelowo Nwosu"). Not found: a lone last name or a
lone unlisted first name without a cue, lower-case names, names that are also ordinary words ("Will",
"Grace") without a title or cue. Found wrongly: pairs of rare capitalised words that name a product or
company (keep yours with ``--pii-allow``).

Addresses: a house number, one to four capitalised words and a street type ("221B Baker Street", "12
Rose Lane", "1600 Pennsylvania Avenue NW"), optionally a flat or unit (and a building: "Flat 5, Sunrise
Apartments, Station Road") before it and a town and postcode after it; the street-first forms of German,
Dutch, French, Spanish, Portuguese, Italian and Polish ("Hauptstraße 12", "Kerkstraat 5", "12 rue de la
Paix", "Calle Mayor 5, 8º B", "ul. Lipowa 5/2"); "PO Box 123"; and postcodes of the UK, Canada, Ireland,
the Netherlands and Poland (with a town), the US (after a state code), 4- to 6-digit codes after an
address, 5-digit codes followed by a town ("10115 Berlin") or after "zip"/"postcode". Not found: an
address without a house number or street type ("the flat above the bakery"), a town or country alone.

IBANs of any checksum (:func:`iban_spans`). Phones: ``+`` and 8-15 digits, or a trunk ``0`` and 10-11
digits in all, with spaces, dots, dashes or
parentheses between them, valid or not (reserved drama ranges, made-up numbers).

All are functions of one text alone and of the public lists here.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import regex

__all__ = ["COMMON_WORDS", "NAME_CUES", "TITLES", "address_spans", "iban_spans", "person_spans", "phone_spans",
           "require_name_lists"]

TITLES = ("Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof", "Sir", "Dame", "Lord", "Lady", "Rev", "Fr", "Mme", "Mlle",
          "Herr", "Frau", "Sr", "Sra", "Srta")
"""Titles before a person's name: the capitalised words after one are a name."""

NAME_CUES = (
    "wife", "husband", "partner", "spouse", "son", "daughter", "mother", "father", "mum", "mom", "dad", "brother",
    "sister", "uncle", "aunt", "cousin", "grandmother", "grandfather", "grandson", "granddaughter", "niece",
    "nephew", "fiancé", "fiancée", "boyfriend", "girlfriend", "friend", "neighbour", "neighbor", "flatmate",
    "roommate", "landlord", "landlady", "tenant", "lodger", "colleague", "boss", "manager", "employer",
    "employee", "agent", "adviser", "advisor", "assistant", "lawyer", "solicitor", "accountant", "carer",
    "caregiver", "guardian", "doctor", "nurse", "contact", "payee", "beneficiary", "recipient", "sender",
    "executor", "attorney", "deputy", "lead", "head of", "director", "supervisor", "ceo", "cto", "cfo", "coo",
    "founder", "owner", "intern", "teammate", "coworker", "co-worker", "client", "consultant", "engineer",
    "developer", "administrator", "admin", "representative", "contractor", "freelancer", "designer", "copy", "cc",
    "named", "called", "name is", "this is", "speak to", "spoke to", "spoke with",
    "talk to", "talked to", "ask for", "asked for", "signed", "dear", "hi", "hello", "hey", "regards",
    "thanks", "thank you", "cheers", "sincerely", "best wishes", "on behalf of", "care of", "c/o", "attn",
)
"""Words after which a capitalised word is a name even when no list holds it (``my landlord, Mr Okafor``;
``Regards, Tomasz``); the relations and roles among them (up to "named") also after one (``Chidi Okafor,
my colleague``)."""

COMMON_WORDS = frozenset("""
a an and april art august autumn bank best bill bliss brain buck bud by card carry chance charity chase
in my so see many man else soon ok numbers season long young love hope guy major son song star good
christian christmas close court dear december desire destiny diamond dot early easter echo else era faith
february friday golden grace grant guy hang happy harmony hello help hi honey hope in it january joy july
june junior justice king lady liberty long love major manual march mark may merry miss monday moon my
noble november numbers october ok page patience penny pleasure precious prince princess queen rich royal
saturday season see september so son song spring star sterling summer sun sunday sunny thursday tuesday
wednesday will winter young street road lane avenue drive way place park hill green court close square
north south east west new card account team service services support customer office branch online mobile
america asia africa europe china india france germany spain italy ireland england scotland wales britain
israel japan canada mexico brazil kenya florida virginia georgia carolina dakota nevada maryland
paris london sydney dallas houston austin denver cleveland orlando columbus geneva adelaide venice milan
madison jordan chelsea lincoln victoria florence york jersey washington angeles francisco santa sierra
hong kong german irish roman jesus god lord angel temple marine marvel delta alpha omega genesis crystal
amber ruby pearl ivory jade coral daisy iris ivy lily violet rose olive hazel holly willow sage maple
cherry berry ginger candy honey dawn sky summer autumn winter spring storm stormy misty sparkle velvet
jewel emerald blossom raven robin wren lark drew lean bee fairy clay cliff dean ward porter hunter walker
foster temple lane chance forest glen brook brooks reed rod cole rocky sandy rusty dusty
""".split())
"""Listed first names that are ordinary words, months, places or brands ("Will", "Grace", "Paris", "Chase"):
never a name on their own (after a title or cue they are)."""

_STREET_TYPES = ("Street", "Road", "Avenue", "Lane", "Drive", "Close", "Court", "Way", "Place", "Boulevard", "Terrace",
                 "Crescent", "Gardens", "Square", "Row", "Parkway", "Highway", "Grove", "Mews", "Walk", "Rise",
                 "Parade", "Circle", "Trail", "Plaza", "Alley", "Wharf", "Quay", "Hill", "Green", "View", "Park",
                 "Gate", "Yard", "Broadway")
_STREET_ABBREVIATIONS = ("St", "Rd", "Ave", "Av", "Ln", "Dr", "Ct", "Pl", "Blvd", "Cres", "Sq", "Pkwy", "Hwy", "Cir")
_TOKEN = r"(?:\p{Lu}\p{Ll}*['’]?)?\p{Lu}\p{Ll}+(?:-\p{Lu}\p{Ll}+)?"  # Ann, O'Brien, McDonald, Smith-Jones
_PARTICLES = frozenset("van von de del della der den da di du la le bin binti al el ter dos das ben".split())
_PARTICLE = f"(?:{'|'.join(sorted(_PARTICLES))})"
_RUN = regex.compile(rf"{_TOKEN}(?:[ \t]+(?:\p{{Lu}}\.[ \t]+)?(?:{_PARTICLE}[ \t]+){{0,2}}{_TOKEN})*")
_WORD = regex.compile(_TOKEN)
_TITLE_BEFORE = regex.compile(rf"\b(?:{'|'.join(TITLES)})\.?[ \t]+$")
_CUE_BEFORE = regex.compile(rf"(?i)\b(?:{'|'.join(regex.escape(c) for c in NAME_CUES)})\b[\s,:]*"
                            r"(?:(?:is|was|named|called|mr|mrs|ms|dr)\.?[ \t]+)?$")
_CUE_AFTER = regex.compile(rf"(?i),?[ \t]*\(?(?:my|our|his|her|their|the)[ \t]+(?:[\w-]+[ \t]+)?"
                           rf"(?:{'|'.join(regex.escape(c) for c in NAME_CUES[:NAME_CUES.index('named')])})\b")
_MAX_NAME_WORDS = 4
_SURE_LAST = 2000  # the census's 2,000 most frequent last names are names even where they are English words
_COMMON_TOP = 5000  # a capitalised word among wordfreq's 5,000 most frequent English words is an ordinary word
_ENGLISH_TOP = 30000  # one among its 30,000 most frequent is no unknown name


@lru_cache(maxsize=1)
def _lists() -> tuple[frozenset[str], dict[str, int], frozenset[str]]:
    """``(first names, {last name: census rank from 0}, frequent English words)``, lower case: the census
    lists of the ``names`` package and wordfreq's top English words."""
    from importlib import resources

    import wordfreq

    try:
        folder = resources.files("names")
    except ModuleNotFoundError as exc:
        from dpsynrag.errors import ConfigError

        raise ConfigError("--redact-pii's PERSON entity needs the public name lists of the package 'names': "
                          "pip install 'dpsynrag[pii]'.") from exc

    def read(name: str) -> list[str]:
        return [line.split()[0].lower() for line in folder.joinpath(name).read_text().splitlines() if line.strip()]

    first = frozenset(read("dist.male.first") + read("dist.female.first"))
    last = {name: rank for rank, name in enumerate(read("dist.all.last"))}
    return first, last, frozenset(wordfreq.top_n_list("en", _COMMON_TOP))


def require_name_lists() -> None:
    """Check that the name lists read (and read them once).

    Raises:
        ConfigError: the package ``names`` is missing (``pip install 'dpsynrag[pii]'``).
    """
    _lists()


def _key(word: str) -> str:
    """A word as the lists hold it: lower case letters without diacritics ("Fernández" -> "fernandez",
    "O'Sullivan" -> "osullivan")."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", word.lower())
                   if ch.isalpha() and not unicodedata.combining(ch))


def _is_first(word: str) -> bool:
    first, _, _ = _lists()
    w = _key(word)
    return w in first and w not in COMMON_WORDS


def _is_last(word: str) -> bool:
    """A listed last name that is not an ordinary word: rare in English text, or among the census's
    :data:`_SURE_LAST` most frequent ones ("Smith", "Brown")."""
    _, last, frequent = _lists()
    w = _key(word)
    return w in last and w not in COMMON_WORDS and (w not in frequent or last[w] < _SURE_LAST)


def _name_like(word: str) -> bool:
    """A word that may be a name after a cue: not an ordinary word (a listed first name, a sure last name,
    or a word that is not frequent English)."""
    _, _, frequent = _lists()
    w = _key(word)
    return (w not in COMMON_WORDS and word not in _STREET_TYPES
            and (w not in frequent or _is_first(word) or _is_last(word)))


def _ordinary(word: str) -> bool:
    """A capitalised word that ends a name: an ordinary word, place or street type ("Bank", "Street",
    "London", a frequent English word that no list holds as a name; "Brown" and "Smith" do not end one)."""
    first, last, frequent = _lists()
    w = _key(word)
    return (w in COMMON_WORDS or word in _STREET_TYPES or word in _STREET_ABBREVIATIONS
            or (w in frequent and w not in first and w not in last))


def _name_in_run(text: str, start: int, end: int, words: list) -> tuple[int, int] | None:
    """The span of a name among the capitalised ``words`` (regex matches) of one run, or None; the run's
    text starts at ``start`` and its words end at ``end``."""
    before = text[max(0, start - 40):start]
    titled = _TITLE_BEFORE.search(before) is not None
    cued = _CUE_BEFORE.search(before) or _CUE_AFTER.match(text, end)
    head = None
    if titled or (cued and _name_like(words[0].group())):
        head = 0  # after a title, after or before a cue: the run's first words
    else:
        head = next((i for i, w in enumerate(words) if _is_first(w.group())), None)
    if head is not None:
        _, _, frequent = _lists()
        if head > 0 and _key(words[head - 1].group()) not in frequent and not _ordinary(words[head - 1].group()):
            head -= 1  # "Agnieszka Van der Merwe": an unlisted first name before a listed one
        stop = head + 1
        while stop < len(words) and stop - head < _MAX_NAME_WORDS and not _ordinary(words[stop].group()):
            stop += 1
        return words[head].start(), words[stop - 1].end()
    first, _, frequent = _lists()
    named = [w for w in words if _key(w.group()) not in _PARTICLES]  # "Van" in "Ana Van der Merwe" aside
    for i in range(1, len(named)):  # "Priya Sharma", "Mark Thompson": a first name or rare word, a last name
        prev = _key(named[i - 1].group())
        if _is_last(named[i].group()) and (prev in first or (prev not in frequent and prev not in COMMON_WORDS)):
            return named[i - 1].start(), named[i].end()
    for i in range(1, len(named)):  # "Sven Nwosu": two capitalised words that are not English words
        if _rare(named[i - 1].group()) and _rare(named[i].group()):
            return named[i - 1].start(), named[i].end()
    return None


def _rare(word: str) -> bool:
    """A capitalised word that is not an English word (wordfreq's :data:`_ENGLISH_TOP` most frequent, unless
    a census name outside the :data:`_COMMON_TOP`), an ordinary word or a street type."""
    first, last, frequent = _lists()
    w = _key(word)
    english = w in _english() and not ((w in first or w in last) and w not in frequent)
    return len(w) > 1 and not english and w not in COMMON_WORDS and word not in _STREET_TYPES


@lru_cache(maxsize=1)
def _english() -> frozenset[str]:
    import wordfreq

    return frozenset(wordfreq.top_n_list("en", _ENGLISH_TOP))


def person_spans(text: str) -> list[tuple[int, int]]:
    """The spans ``[start, end)`` of person names in ``text`` (the rules of this module's docstring), in order.

    Raises:
        ConfigError: the package ``names`` is missing.
    """
    found = []
    for run in _RUN.finditer(text):
        words = list(_WORD.finditer(text, run.start(), run.end()))
        while words:
            if words[0].group() in TITLES:  # a title is not part of the name; the words after it are
                words = words[1:]
                continue
            span = _name_in_run(text, words[0].start(), words[-1].end(), words)
            if span is None:
                words = words[1:]
                continue
            found.append(span)
            words = [w for w in words if w.start() >= span[1]]
    return found


_PHONE = regex.compile(
    r"(?<![\w+])(?:\+\d(?:[ \t.\-]?(?:\(\d{1,5}\)|\d)){7,14}"  # international: + and 8-15 digits
    r"|0\d{2,4}(?:[ \t.\-]?\d){6,8})(?![\w])")  # national: a trunk 0 and 10-11 digits in all


def phone_spans(text: str) -> list[tuple[int, int]]:
    """The spans of phone numbers written in an international (``+`` and 8-15 digits) or national (a trunk
    ``0``, 10-11 digits) form, valid or not: reserved and made-up numbers too (libphonenumber, in
    :mod:`dpsynrag.data.pii`, finds only numbers of assigned ranges)."""
    return [m.span() for m in _PHONE.finditer(text)]


_IBAN = regex.compile(r"(?<![\w])[A-Z]{2}\d{2}(?:[ \t]?[A-Z0-9]{4}){2,7}(?:[ \t]?[A-Z0-9]{1,3})?(?![\w])")


def iban_spans(text: str) -> list[tuple[int, int]]:
    """The spans of IBAN-shaped strings (a country code, 2 check digits, 8-31 more capital letters or digits,
    compact or in groups of four) holding at least 8 digits, whatever their checksum (Presidio's recognizer
    in :mod:`dpsynrag.data.pii` keeps only valid ones: a typo or a made-up IBAN would pass)."""
    return [m.span() for m in _IBAN.finditer(text) if sum(ch.isdigit() for ch in m.group()) >= 8]


_CAP = r"\p{Lu}[\p{L}'’.-]*"
_TOWN = r"\p{Lu}\p{Ll}[\p{L}'’-]*(?:[ \t]+\p{Lu}\p{Ll}[\p{L}'’-]*){0,2}"
_UK_POSTCODE = r"\b[A-Z]{1,2}\d[A-Z\d]?[ \t]*\d[A-Z]{2}\b"
_POSTCODES = "|".join((
    _UK_POSTCODE,
    r"\b[A-Z]\d[A-Z][ \t]?\d[A-Z]\d\b",  # Canada
    r"\b[AC-FHKNPRTV-Y]\d{2}[ \t]?(?=[0-9]{0,3}[AC-FHKNPRTV-Y])[AC-FHKNPRTV-Y0-9]{4}\b",  # Ireland's Eircode
    r"\b[A-Z]{2}[ \t]+\d{5}(?:-\d{4})?\b",  # a US state and ZIP code
))
_FLAT = r"(?:Flat|Apt\.?|Apartment|Unit|Suite|Room|Plot|Door)[ \t]*(?:No\.?[ \t]*)?\d+[A-Za-z]?"
_BUILDING = (rf"{_CAP}(?:[ \t]+{_CAP}){{0,3}}[ \t]+(?:Apartments|Apartment|House|Court|Towers|Tower|Building|"
             r"Residency|Heights|Block|Mansions|Villas|Complex|Estate|Enclave)")
_STREET_WORDS = (rf"(?:{_CAP}[ \t]+){{1,4}}"
                 rf"(?i:(?:{'|'.join(_STREET_TYPES)})\b|(?:{'|'.join(_STREET_ABBREVIATIONS)})\b\.?)"
                 r"(?:[ \t]+(?:NW|NE|SW|SE|N|S|E|W)\b)?")  # "Baker Street", "Pennsylvania Avenue NW", "MG Rd."
_STREET = "|".join((
    rf"(?:{_FLAT},?[ \t]+)?\b\d{{1,5}}[A-Za-z]?(?:[-/]\d{{1,4}})?,?[ \t]+{_STREET_WORDS}",  # [Flat 3,] 12 Rose Lane
    rf"{_FLAT},?[ \t]+(?:{_BUILDING},?[ \t]+)?{_STREET_WORDS}",  # Flat 5, Sunrise Apartments, Station Road
    rf"{_FLAT},?[ \t]+{_BUILDING}",  # Flat 5, Sunrise Apartments
))
_STREET_FIRST = "|".join((
    r"\b\p{Lu}[\p{L}-]*(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|straat|laan|plein|gracht|kade)"
    r"[ \t]+\d{1,4}[a-z]?\b",
    r"\b\d{1,4}(?:[ \t]*(?:bis|ter))?,?[ \t]+(?:rue|avenue|boulevard|bd|place|chemin|allée|impasse|quai|route)"
    r"[ \t]+(?:(?:de|du|des|la|le|l'|d')[ \t]*){0,2}\p{Lu}[\p{L}'’-]*(?:[ \t]+\p{Lu}[\p{L}'’-]*){0,3}",
    r"\b(?:Calle|Avenida|Plaza|Paseo|Via|Viale|Piazza|Corso|Rua|Travessa|ul\.|al\.|pl\.|os\.)[ \t]*"
    r"(?:(?:de|del|la|los|las|di|della|da|do|dos|das)[ \t]+){0,2}"
    r"\p{Lu}[\p{L}'’-]*(?:[ \t]+\p{Lu}[\p{L}'’-]*){0,2},?[ \t]+\d{1,4}[A-Za-z]?(?:/\d{1,4})?\b",
))
_FLOOR = r"(?:,?[ \t]*\d{1,3}[ºª°][ \t]*(?:[A-Z]|izq\.?|dcha\.?)?\b)?"  # Spanish "8º B", "3º izq."
_AREA_CODE = r"(?:\d{4}[ \t]?[A-Z]{2}|\d{2}-\d{3}|\d{4}-\d{3}|\d{4,6})"  # NL, PL, PT; 4-6 digits (DE, FR, IN, ...)
_ADDRESS = regex.compile(
    rf"(?:{_STREET}|{_STREET_FIRST}){_FLOOR}(?:,[ \t]*{_TOWN})?"
    rf"(?:,?[ \t]+(?:{_POSTCODES}|{_AREA_CODE}(?:[ \t]+{_TOWN})?))?"
    rf"|\bP\.?[ \t]?O\.?[ \t]+Box[ \t]+\d+"
    rf"|{_POSTCODES}"
    rf"|\b\d{{4}}[ \t]?[A-Z]{{2}}[ \t]+\p{{Lu}}\p{{Ll}}+"  # a Dutch postcode and town
    rf"|\b\d{{2}}-\d{{3}}[ \t]+\p{{Lu}}\p{{Ll}}+"  # a Polish postcode and town
    rf"|\b\d{{5}}[ \t]+\p{{Lu}}\p{{Ll}}+(?<!Euros|Dollars|Pounds|Points|Miles|Units|Items)\b"  # "10115 Berlin"
    rf"|(?i:\b(?:zip|zip code|postcode|post code|postal code|pin code|plz)\b)[ \t]*:?[ \t]*"
    rf"\K[A-Z0-9][A-Z0-9 -]{{2,8}}[A-Z0-9]"
)


def address_spans(text: str) -> list[tuple[int, int]]:
    """The spans ``[start, end)`` of postal addresses and postcodes in ``text`` (the rules of this
    module's docstring), in order."""
    return [m.span() for m in _ADDRESS.finditer(text)]
