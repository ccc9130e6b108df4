"""Person names and postal addresses found without a model (the ``PERSON`` and ``ADDRESS`` entities of
``--redact-pii``; :mod:`dpsynrag.data.pii`).

Names: the public first- and last-name lists of the 1990 US census (shipped by the PyPI package
``names``, part of ``pip install 'dpsynrag[pii]'``; 5,163 first names, 88,799 last names, read from the
installed package, never the network) with context. A capitalised word (``Ann``, ``O'Brien``,
``McDonald``, ``Smith-Jones``, accented letters too) is part of a name when it is a listed first name
(and not an ordinary word or place: :data:`COMMON_WORDS`), with the capitalised words that follow it
("Sarah Okafor"); when it follows a title ("Mr", "Dr", ...) or a cue ("my wife", "landlord", "contact",
"Dear", "Regards,", ...: :data:`NAME_CUES`); or when two capitalised words end in a listed last name that
is not a common English word ("Priya Sharma"). Not found: a lone last name or a name missing from the lists
without a cue, lower-case names, names that are also ordinary words ("Will", "Grace") without a title or
cue.

Addresses: a house number, one to four capitalised words and a street type ("221B Baker Street", "12
Rose Lane", "1600 Pennsylvania Avenue NW"), optionally a flat or unit before it and a town and postcode
after it; the street-first forms of German, Dutch, French, Spanish and Italian ("Hauptstraße 12",
"Kerkstraat 5", "12 rue de la Paix", "Calle Mayor 5"); "PO Box 123"; and postcodes of the UK, Canada,
Ireland, the Netherlands (with a town), the US (after a state code) and 5-digit codes followed by a town
("10115 Berlin") or after "zip"/"postcode". Not found: an address without a house number or street type
("the flat above the bakery"), a town or country alone.

Both are functions of one text alone and of the public lists here.
"""

from __future__ import annotations

from functools import lru_cache

import regex

__all__ = ["COMMON_WORDS", "NAME_CUES", "TITLES", "address_spans", "person_spans", "require_name_lists"]

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
    "executor", "attorney", "named", "called", "name is", "this is", "speak to", "spoke to", "spoke with",
    "talk to", "talked to", "ask for", "asked for", "signed", "dear", "hi", "hello", "hey", "regards",
    "thanks", "thank you", "cheers", "sincerely", "best wishes", "on behalf of", "care of", "c/o", "attn",
)
"""Words after which a capitalised word is a name even when no list holds it (``my landlord, Mr Okafor``;
``Regards, Tomasz``)."""

COMMON_WORDS = frozenset("""
a an and april art august autumn bank best bill bliss brain buck bud by card carry chance charity chase
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

_STREET_TYPES = ("Street", "St", "Road", "Rd", "Avenue", "Ave", "Av", "Lane", "Ln", "Drive", "Dr", "Close", "Court",
                 "Ct", "Way", "Place", "Pl", "Boulevard", "Blvd", "Terrace", "Crescent", "Cres", "Gardens",
                 "Square", "Sq", "Row", "Parkway", "Pkwy", "Highway", "Hwy", "Grove", "Mews", "Walk", "Rise",
                 "Parade", "Circle", "Cir", "Trail", "Plaza", "Alley", "Wharf", "Quay", "Hill", "Green", "View",
                 "Park", "Gate", "Yard", "Broadway")
_TOKEN = r"(?:\p{Lu}\p{Ll}*['’]?)?\p{Lu}\p{Ll}+(?:-\p{Lu}\p{Ll}+)?"  # Ann, O'Brien, McDonald, Smith-Jones
_PARTICLE = r"(?:van|von|de|del|della|der|den|da|di|du|la|le|bin|binti|al|el|ter|dos|das|ben)"
_RUN = regex.compile(rf"{_TOKEN}(?:[ \t]+(?:\p{{Lu}}\.[ \t]+)?(?:{_PARTICLE}[ \t]+){{0,2}}{_TOKEN})*")
_WORD = regex.compile(_TOKEN)
_TITLE_BEFORE = regex.compile(rf"\b(?:{'|'.join(TITLES)})\.?[ \t]+$")
_CUE_BEFORE = regex.compile(rf"(?i)\b(?:{'|'.join(regex.escape(c) for c in NAME_CUES)})\b[\s,:]*"
                            r"(?:(?:is|was|named|called|mr|mrs|ms|dr)\.?[ \t]+)?$")
_MAX_NAME_WORDS = 4
_SURE_LAST = 2000  # the census's 2,000 most frequent last names are names even where they are English words
_COMMON_TOP = 5000  # a capitalised word among wordfreq's 5,000 most frequent English words is an ordinary word


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


def _is_first(word: str) -> bool:
    first, _, _ = _lists()
    w = word.lower()
    return w in first and w not in COMMON_WORDS


def _is_last(word: str) -> bool:
    """A listed last name that is not an ordinary word: rare in English text, or among the census's
    :data:`_SURE_LAST` most frequent ones ("Smith", "Brown")."""
    _, last, frequent = _lists()
    w = word.lower()
    return w in last and w not in COMMON_WORDS and (w not in frequent or last[w] < _SURE_LAST)


def _ordinary(word: str) -> bool:
    """A capitalised word that ends a name: an ordinary word, place or street type ("Bank", "Street",
    "London", a frequent English word that no list holds as a name; "Brown" and "Smith" do not end one)."""
    first, last, frequent = _lists()
    w = word.lower()
    return (w in COMMON_WORDS or word in _STREET_TYPES
            or (w in frequent and w not in first and w not in last))


def _name_in_run(text: str, start: int, words: list) -> tuple[int, int] | None:
    """The span of a name among the capitalised ``words`` (regex matches) of one run, or None."""
    before = text[max(0, start - 40):start]
    titled = _TITLE_BEFORE.search(before) is not None
    head = None
    if titled or (_CUE_BEFORE.search(before) and not _ordinary(words[0].group())):
        head = 0  # after a title or cue: the run's first words
    else:
        head = next((i for i, w in enumerate(words) if _is_first(w.group())), None)
    if head is not None:
        end = head + 1
        while end < len(words) and end - head < _MAX_NAME_WORDS and not _ordinary(words[end].group()):
            end += 1
        return words[head].start(), words[end - 1].end()
    first, _, frequent = _lists()
    for i in range(1, len(words)):  # "Priya Sharma", "Mark Thompson": a first name or rare word, a last name
        prev = words[i - 1].group().lower()
        if _is_last(words[i].group()) and (prev in first or (prev not in frequent and prev not in COMMON_WORDS)):
            return words[i - 1].start(), words[i].end()
    return None


def person_spans(text: str) -> list[tuple[int, int]]:
    """The spans ``[start, end)`` of person names in ``text`` (the rules of this module's docstring), in order.

    Raises:
        ConfigError: the package ``names`` is missing.
    """
    found = []
    for run in _RUN.finditer(text):
        words = list(_WORD.finditer(text, run.start(), run.end()))
        while words:
            span = _name_in_run(text, words[0].start(), words)
            if span is None:
                words = words[1:]
                continue
            found.append(span)
            words = [w for w in words if w.start() >= span[1]]
    return found


_CAP = r"\p{Lu}[\p{L}'’.-]*"
_TOWN = r"\p{Lu}\p{Ll}[\p{L}'’.-]*(?:[ \t]+\p{Lu}\p{Ll}[\p{L}'’.-]*){0,2}"
_UK_POSTCODE = r"\b[A-Z]{1,2}\d[A-Z\d]?[ \t]*\d[A-Z]{2}\b"
_POSTCODES = "|".join((
    _UK_POSTCODE,
    r"\b[A-Z]\d[A-Z][ \t]?\d[A-Z]\d\b",  # Canada
    r"\b[AC-FHKNPRTV-Y]\d{2}[ \t]?(?=[0-9]{0,3}[AC-FHKNPRTV-Y])[AC-FHKNPRTV-Y0-9]{4}\b",  # Ireland's Eircode
    r"\b[A-Z]{2}[ \t]+\d{5}(?:-\d{4})?\b",  # a US state and ZIP code
))
_STREET = (rf"(?:(?:Flat|Apt\.?|Apartment|Unit|Suite|Room)[ \t]*\w+,?[ \t]+)?\b\d{{1,5}}[A-Za-z]?(?:[-/]\d{{1,4}})?,?"
           rf"[ \t]+(?:{_CAP}[ \t]+){{1,4}}(?i:{'|'.join(_STREET_TYPES)})\b\.?(?:[ \t]+(?:NW|NE|SW|SE|N|S|E|W)\b)?")
_STREET_FIRST = "|".join((
    r"\b\p{Lu}[\p{L}-]*(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|straat|laan|plein|gracht|kade)"
    r"[ \t]+\d{1,4}[a-z]?\b",
    r"\b\d{1,4}(?:[ \t]*(?:bis|ter))?,?[ \t]+(?:rue|avenue|boulevard|bd|place|chemin|allée|impasse|quai|route)"
    r"[ \t]+(?:(?:de|du|des|la|le|l'|d')[ \t]*){0,2}\p{Lu}[\p{L}'’-]*(?:[ \t]+\p{Lu}[\p{L}'’-]*){0,3}",
    r"\b(?:Calle|Avenida|Plaza|Paseo|Via|Viale|Piazza|Corso)[ \t]+(?:(?:de|del|la|los|las|di|della)[ \t]+){0,2}"
    r"\p{Lu}[\p{L}'’-]*(?:[ \t]+\p{Lu}[\p{L}'’-]*){0,2},?[ \t]+\d{1,4}\b",
))
_ADDRESS = regex.compile(
    rf"(?:{_STREET}|{_STREET_FIRST})(?:,[ \t]*{_TOWN})?(?:,?[ \t]+(?:{_POSTCODES}|\d{{4,5}}(?:[ \t]+{_TOWN})?))?"
    rf"|\bP\.?[ \t]?O\.?[ \t]+Box[ \t]+\d+"
    rf"|{_POSTCODES}"
    rf"|\b\d{{4}}[ \t]?[A-Z]{{2}}[ \t]+\p{{Lu}}\p{{Ll}}+"  # a Dutch postcode and town
    rf"|\b\d{{5}}[ \t]+\p{{Lu}}\p{{Ll}}+(?<!Euros|Dollars|Pounds|Points|Miles|Units|Items)\b"  # "10115 Berlin"
    rf"|(?i:\b(?:zip|zip code|postcode|post code|postal code|plz)\b)[ \t]*:?[ \t]*\K[A-Z0-9][A-Z0-9 -]{{2,8}}[A-Z0-9]"
)


def address_spans(text: str) -> list[tuple[int, int]]:
    """The spans ``[start, end)`` of postal addresses and postcodes in ``text`` (the rules of this
    module's docstring), in order."""
    return [m.span() for m in _ADDRESS.finditer(text)]
