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
           "require_name_lists", "cue_name_spans", "model_person_plausible", "transcript_name_spans"]

TITLES = ("Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof", "Sir", "Dame", "Lord", "Lady", "Rev", "Fr", "Mme", "Mlle",
          "Herr", "Frau", "Sr", "Sra", "Srta", "PC", "DC", "Sgt", "Cllr", "Nurse")
"""Titles before a person's name: the capitalised words after one are a name."""

NAME_CUES = (
    "wife", "husband", "partner", "spouse", "son", "daughter", "mother", "father", "mum", "mom", "dad", "brother",
    "sister", "uncle", "aunt", "nan", "nana", "gran", "granny", "grandma", "grandad", "grandpa", "eldest",
    "youngest", "stepson", "stepdaughter", "mother-in-law", "father-in-law", "son-in-law", "daughter-in-law",
    "child", "baby", "midwife", "officer", "gp", "physio", "driver", "courier", "postman", "technician", "vet", "cousin", "grandmother", "grandfather", "grandson", "granddaughter", "niece",
    "nephew", "fiancé", "fiancée", "boyfriend", "girlfriend", "friend", "neighbour", "neighbor", "flatmate",
    "roommate", "landlord", "landlady", "tenant", "lodger", "colleague", "boss", "manager", "employer",
    "employee", "agent", "adviser", "advisor", "assistant", "lawyer", "solicitor", "accountant", "carer",
    "caregiver", "guardian", "doctor", "nurse", "contact", "payee", "beneficiary", "recipient", "sender",
    "executor", "attorney", "deputy", "lead", "head of", "director", "supervisor", "ceo", "cto", "cfo", "coo",
    "founder", "owner", "intern", "teammate", "coworker", "co-worker", "client", "consultant", "engineer",
    "developer", "administrator", "admin", "representative", "contractor", "freelancer", "designer", "copy", "cc",
    "other half", "buyer", "buyers", "seller", "sellers", "purchaser",
    "named", "called", "name is", "this is", "speak to", "spoke to", "spoke with",
    "talk to", "talked to", "ask for", "asked for", "signed", "it's", "it is", "i'm", "chatting with",
    "speaking with", "speaking to", "through to", "handled by", "logged by", "handler", "response from",
    "reply from", "message from", "response", "reply", "notes", "by", "dear", "hi", "hello", "hey", "regards",
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
                 "Parade", "Circle", "Trail", "Plaza", "Alley", "Wharf", "Quay", "Hill", "Green", "View", "Park", "Approach",
                 "Gate", "Yard", "Broadway")
_STREET_ABBREVIATIONS = ("St", "Rd", "Ave", "Av", "Ln", "Dr", "Ct", "Pl", "Blvd", "Cres", "Sq", "Pkwy", "Hwy", "Cir")
_TOKEN = r"(?:\p{Lu}\p{Ll}*['’]?)?\p{Lu}\p{Ll}+(?:-\p{Lu}\p{Ll}+)?"  # Ann, O'Brien, McDonald, Smith-Jones
_PARTICLES = frozenset("van von de del della der den da di du la le bin binti al el ter dos das ben".split())
_PARTICLE = f"(?:{'|'.join(sorted(_PARTICLES))})"
_RUN = regex.compile(rf"{_TOKEN}(?:[ \t]+(?:\p{{Lu}}\.[ \t]+)?(?:{_PARTICLE}[ \t]+){{0,2}}{_TOKEN})*")
_WORD = regex.compile(_TOKEN)
_TITLE_BEFORE = regex.compile(rf"\b(?i:{'|'.join(TITLES)})\.?[ \t]+$")  # any case: "dr Power"
_CUE_BEFORE = regex.compile(rf"(?i)\b(?:{'|'.join(regex.escape(c) for c in NAME_CUES)})\b[\s,:(]*"
                            r"(?:(?:is|was|named|called|mr|mrs|ms|dr)\.?[ \t]+)?$")
_CUE_AFTER = regex.compile(rf"(?i),?[ \t]*\(?(?:my|our|his|her|their|the)[ \t]+(?:[\w-]+[ \t]+)?"
                           rf"(?:{'|'.join(regex.escape(c) for c in NAME_CUES[:NAME_CUES.index('named')])})\b")
_STRONG_CUES = ("name is", "name's", "this is", "it's", "it is", "i'm", "through to", "chatting with", "speaking with",
                "speaking to", "response from", "reply from", "message from", "handler", "handled by", "logged by",
                "signed")
_STRONG_CUE_BEFORE = regex.compile(rf"(?i)\b(?:{'|'.join(regex.escape(c) for c in _STRONG_CUES)})\b[\s,:(]*$")
_HERE_AFTER = regex.compile(r"[ \t]+here\b")  # "Gareth here."
_RELATIONS = NAME_CUES[:NAME_CUES.index("named")]
_RELATION_BEFORE = regex.compile(rf"(?i)\b(?:my|our|his|her|their|\p{{L}}+['’]s)[ \t]+(?:{'|'.join(regex.escape(c) for c in _RELATIONS)})"
                                 r"[ \t]*,?[ \t]*(?:(?:is|was|called|named)[ \t]+)?$")
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


def _surname_word(word: str) -> bool:
    """A census last name that is an ordinary word ("Green", "King", "Hill") but not a street abbreviation, a
    month or a weekday: after a first name it is the surname ("12 Green Lane" is the address rule's)."""
    _, last, _ = _lists()
    return _key(word) in last and word not in _STREET_ABBREVIATIONS and _key(word) not in _CALENDAR


_CALENDAR_ONLY = frozenset("january february march april july august september october november december monday "
                           "tuesday wednesday thursday friday saturday sunday".split())  # not "May", "June"
_CALENDAR = frozenset("""january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday""".split())


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
    cued = _CUE_BEFORE.search(before) or _CUE_AFTER.match(text, end) or _HERE_AFTER.match(text, end)
    if _STRONG_CUE_BEFORE.search(before) and _key(words[0].group()) in _lists()[0]:
        titled = True  # "my name is Will", "You're through to Grace": a listed first name, even an ordinary word
    related = _RELATION_BEFORE.search(before) is not None  # "my mum May", "my nan Penny", "my daughter, Amber"
    head = None
    if titled or (cued and (_name_like(words[0].group()) or (len(words) > 1 and _rare(words[1].group())))) or (
            related and _key(words[0].group()) not in _CALENDAR_ONLY):  # "notes (Mo Abdi": a rare second word
        head = 0  # after a title, after or before a cue: the run's first words
    else:
        head = next((i for i, w in enumerate(words) if _is_first(w.group())), None)
    if head is not None:
        if head > 0 and _key(words[head - 1].group()) not in _english() and not _ordinary(words[head - 1].group()):
            head -= 1  # "Agnieszka Van der Merwe": an unlisted first name before a listed one
        stop = head + 1
        while stop < len(words) and stop - head < _MAX_NAME_WORDS and (
                not _ordinary(words[stop].group()) or _surname_word(words[stop].group())):
            stop += 1  # "Callum Green": a listed last name ends a name even when it is an ordinary word
        return words[head].start(), words[stop - 1].end()
    first, _, frequent = _lists()
    named = [w for w in words if _key(w.group()) not in _PARTICLES]  # "Van" in "Ana Van der Merwe" aside
    for i in range(1, len(named)):  # "Priya Sharma", "Mark Thompson": a first name or rare word, a last name
        prev, last = _key(named[i - 1].group()), _key(named[i].group())
        if _is_last(named[i].group()) and (prev in first or (
                prev not in COMMON_WORDS and prev not in (_english() if last in frequent else frequent))):
            return named[i - 1].start(), named[i].end()  # "Roam Day": an English word and a common surname: no
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


_TIMESTAMP = r"(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?[ \t]+)?"
_LABEL = regex.compile(  # a speaker or signature line: "10:55 Priya - HR:", "[14:38:06] Agent Iqbal:", "Rob C."
    rf"(?m)^[ \t\->=*#|]*{_TIMESTAMP}(?:(?i:agent|adviser|advisor|handler|rep)[ \t]+)?"
    rf"(?P<name>{_TOKEN}(?:[ \t]+{_TOKEN})?(?:[ \t]+\p{{Lu}}\.?)?)"
    r"(?=[ \t]*(?:$|:|[-–|,(][ \t]*\p{Lu}|\((?:\p{Lu}|\d)|[ \t](?:joined|left|here)\b))")
_STAMPED = regex.compile(r"[ \t\->=*#|]*\[?\d{1,2}:\d{2}")
_GREETINGS = frozenset("""cheers thanks thank regards best hi hello hey dear morning afternoon evening ok okay yes no
sorry please tia ta thx bye goodbye welcome""".split())
_STAMP_WORDS = frozenset("you me we us it he she they customer visitor agent system bot user".split())
_FIELD_LABELS = frozenset("""query queries caller visitor enquiry enquiries logged cc bcc regards ref adviser advisor handler
mob tel fax dob re fwd fw attn ps nb reg postcode eta faq tbc asap""".split())
_SIGNOFF = regex.compile(  # a sign-off and, on the next line, a short signature: "Kind regards,\nH. Dawe"
    r"(?im)^[ \t>]*(?:kind |best |warm |many |with )?(?:regards|wishes|thanks|thank you|cheers|sincerely|"
    r"all the best|take care|speak soon|best|ta|thx|much appreciated|yours(?: sincerely| faithfully)?)"
    r"(?:[ \t]+(?:again|so much|in advance))?[ \t]*[,.!]?[ \t]*\n"
    r"[ \t>]*(?P<name>(?:[\p{L}][\p{L}'’\-]*\.?)(?:[ \t]+[\p{L}][\p{L}'’\-]*\.?){0,2})[ \t]*(?=$|[,\n])")
_ORG_WORDS = frozenset("""team services service support care desk department customer customers insurance pharmacy returns
claims group ltd limited plc dispensary patient reception office help helpdesk people hr payroll billing sales""".split())
_INITIAL_NAME = regex.compile(rf"(?<![\p{{L}}.])\p{{Lu}}\.[ \t]?(?P<name>{_TOKEN})")  # "H. Dawe", "D.Mistry"
_NAME_INITIAL = regex.compile(rf"(?P<name>{_TOKEN})[ \t]\p{{Lu}}(?:\.|(?=[ \t]*(?:$|[,:|(\-–])))", regex.M)  # "Priya S."


_RELATION_NAME = regex.compile(  # "my son zhiwei", "MY WIFE EWA", "patient's wife Precious", "(Kev)" after "driver",
    # "the letting agent teodora", "the buyers are Ifeoma"
    rf"(?i)\b(?:my|our|his|her|their|\p{{L}}+['’]s|the)[ \t]+(?:[\p{{L}}\-]+[ \t]+)?"
    rf"(?:{'|'.join(regex.escape(c) for c in sorted(_RELATIONS, key=len, reverse=True))})\b"
    r"[ \t]*[,(]?[ \t]*(?:(?:is|was|are|called|named)[ \t]+)?(?P<name>\p{L}[\p{L}'’\-]*)")
_DASH_SIGNOFF = regex.compile(  # "...just drop us a DM. - Gareth E.", "...mobile number? - Oliwia"
    r"(?m)(?:^|(?<=[.!?)][ \t]*))[ \t]*[-–—][ \t]*(?P<name>\p{Lu}\p{Ll}+(?:[ \t]+\p{Lu}\.?)?)[ \t]*$")
_BY_NAME = regex.compile(  # "sent ... by Reception - Naz:", "recorded by Precious (Reception)"
    r"\bby[ \t]+(?:\p{Lu}\p{Ll}+[ \t]+[-–][ \t]+)?(?P<name>\p{Lu}\p{Ll}+(?:[ \t]+\p{Lu}\.?)?)"
    r"(?=[ \t]*(?::|\([ \t]*\p{Lu}))")
_DATED_NAME = regex.compile(  # "Response (27/07/2024, Marek):"
    r"\([^()\n]{0,30}\d[ \t]*,[ \t]*(?P<name>\p{Lu}\p{Ll}+(?:[ \t]+\p{Lu}\.?)?)\)")
_INLINE_SIGNOFF = regex.compile(  # "Thanks lewis", "TIA eleanor", "Best, Rahul, Returns Team", "Have a lovely day, Paddy,"
    r"(?im)(?:^|[.!?][ \t]+)(?:(?:many |kind |best |warm )?(?:thanks|thank you|regards|wishes|cheers)(?: again| so much)?|"
    r"tia|ta|best|all the best|take care|have a (?:lovely|great|good|nice) (?:day|evening|weekend))[ \t]*,?[ \t]+"
    r"(?P<name>\p{L}[\p{L}'’\-]*(?:[ \t]+\p{L}[\p{L}'’\-]*\.?)?)[ \t]*(?=,|$|\n)")
_SIGNATURE_LINE = regex.compile(  # a short line alone after a question, before a separator or a greeting: "\njulia\n----"
    r"(?m)(?<=[?.!][ \t]*\n(?:[ \t>]*\n)?)[ \t>]*(?P<name>\p{L}[\p{L}'’\-]*(?:[ \t]+\p{L}\.?[\p{L}'’\-]*)?)[ \t]*$"
    r"(?=\n*(?:[ \t]*(?:-{3,}|={3,}|>|\Z)|\n[ \t]*(?:hi|hello|dear|good (?:morning|afternoon|evening))\b))")
_TITLED_LOWER = regex.compile(r"(?i)\b(?:mr|mrs|ms|miss|dr)\.?[ \t]+(?P<name>\p{L}[\p{L}'’\-]+)")  # "mr black", "dr bhatt"
_DETAILS = regex.compile(r"(?i)\bmy details(?:[ \t]+are)?[ \t]*:?[ \t]*(?P<name>\p{L}[\p{L}'’\-]*)(?=[ \t]*,)")
_ENDING_NAME = regex.compile(r"(?m)(?<=[.!?][ \t]+)(?P<name>\p{Lu}\p{Ll}+(?:[ \t]+\p{Lu}\.?)?)[ \t]*$")  # "...optional. Priya"
_SUBJECT_NAME = regex.compile(  # "Kirsty asked me", "Andreea and I are", "Ionut said"
    r"(?P<name>\p{Lu}\p{Ll}+)[ \t]+(?:and I\b|said|says|reckons|asked|asekd|told|tells|mentioned|thinks|thought|"
    r"suggested|recommended|reckoned)\b")
_NOT_NAMES = frozenset("""so again very much all guys team everyone everybody you folks in advance a lot for
is was has had and usually who will would can could does did just also said says that which""".split())


def _any_case_name(word: str) -> bool:
    """A word written in any case that is a name where a name is expected: a census first name, or not one of
    wordfreq's 5,000 most frequent English words, and not an org word or a filler."""
    w = _key(word)
    first, _, frequent = _lists()
    return (len(w) > 1 and w not in _NOT_NAMES and w not in _ORG_WORDS and w not in _FIELD_LABELS
            and (w in first or w not in frequent))


def model_person_plausible(span: str) -> bool:
    """Whether a named-entity model's PERSON span may be a name: one of its capitalised words is a census first
    or last name or not one of wordfreq's 30,000 most frequent English words ("Beatrix", "Kofi Mensah"; not
    "Cheers", "Team", "Chrome": the small model's frequent false positives on support text), and none has an
    inner capital that a name does not have ("DriveSafe", "DropPoint": brands; "McLeod", "DeShawn" are names)."""
    first, last, _ = _lists()
    words = regex.findall(r"\p{L}[\p{L}'’\-]*", span)
    if any(_BRANDLIKE.match(word) for word in words) or all(_key(w) in _GREETINGS | _ORG_WORDS for w in words):
        return False  # "DriveSafe", "DropPoint", "MyHR": an inner capital is a brand's; "Cheers", "Team"
    for word in regex.findall(_TOKEN, span):
        w = _key(word)
        if w in first or w in last or w not in _english():
            return True
    return False


_BRANDLIKE = regex.compile(r"(?!Mc|Mac|O['’]|D['’]|De|Di|Du|La|Le|Van|Von|Fitz)\p{Lu}\p{Ll}+\p{Lu}")


def cue_name_spans(text: str) -> list[tuple[int, int]]:
    """Names in any case where the text's shape expects one: after a relation ("my son zhiwei", "patient's
    wife Precious", "the driver (Kev)", "the letting agent teodora"), after a sign-off on the same line ("Thanks
    lewis", "Best, Rahul, Returns Team") or a dash ending a line ("...a DM. - Gareth E."), after "by" before a
    colon or a role ("by Reception - Naz:", "by Precious (Reception)"), after a date in brackets ("Response
    (27/07/2024, Marek)"), a one- or two-word line after a question that ends the message ("...return it?\njulia"), a
    word after a title in any case ("mr black"), "my details: sophie,", a capitalised word ending a paragraph
    after a sentence ("...optional. Priya"), and a capitalised word before "and I", "said", "asked", "reckons",
    ... ("Kirsty asked me")."""
    found = []
    for pattern in (_RELATION_NAME, _INLINE_SIGNOFF, _SIGNATURE_LINE, _TITLED_LOWER, _DETAILS, _ENDING_NAME,
                    _SUBJECT_NAME, _DASH_SIGNOFF, _BY_NAME, _DATED_NAME):
        for m in pattern.finditer(text):
            words = m.group("name").split()
            if len(words) == 2 and not (len(words[1].rstrip(".")) == 1 or _any_case_name(words[1])):
                words = words[:1]  # "Paddy Doyle": both; "Tom thanks": the name only
            initial = len(words) == 2 and len(words[1].rstrip(".")) == 1  # "Mo A": a short name and an initial
            titled = pattern is _TITLED_LOWER and _key(words[0]) not in _NOT_NAMES | _ORG_WORDS  # "mr black"
            if (_any_case_name(words[0]) or titled or (initial and _key(words[0]) not in _NOT_NAMES | _ORG_WORDS)) \
                    and _key(words[0]) not in _CALENDAR_ONLY | _GREETINGS:
                start = m.start("name")
                found.append((start, start + len(" ".join(words)) if len(words) < len(m.group("name").split())
                              else m.end("name")))
    return found


def transcript_name_spans(text: str) -> list[tuple[int, int]]:
    """Names as support transcripts and signatures write them: a line's speaker or signer ("10:55 Priya - HR:",
    "[14:38:06] Agent Iqbal joined", "Marcus Hope" alone on a line, "Rob C."; the words must not be ordinary:
    "Status:", "Query:" are labels), an initial and a surname ("H. Dawe"), a given name and an initial
    ("Priya S.", "Ross T |"): the first name or surname listed, or not an English word."""
    found = []
    for m in _LABEL.finditer(text):
        words = m.group("name").split()
        head, (first, _, frequent) = words[0], _lists()
        stamped = _STAMPED.match(m.group()) is not None or text[m.end():m.end() + 8].lstrip().startswith(("joined", "left"))
        if _key(head) in _GREETINGS or not (
                _key(head) in first or (_key(head) not in frequent and head.lower() not in _FIELD_LABELS)
                or (stamped and _key(head) not in _STAMP_WORDS and head.lower() not in _FIELD_LABELS)):
            continue  # "Status:", "Query:": a field; "Will:", "Aiden joined", "Rahul (Havercroft Returns)": a speaker
        if len(words) > 1 and len(words[1]) > 2 and _ordinary(words[1]) and not _surname_word(words[1]):
            found.append((m.start("name"), m.start("name") + len(head)))  # "Priya Customer": the name only
        else:
            found.append(m.span("name"))
    for m in _SIGNOFF.finditer(text):
        words = [w.rstrip(".").lower() for w in m.group("name").split()]
        titled = (words[0].capitalize() in TITLES or len(words[0]) == 1) and len(words) > 1  # "mr hill", "g best"
        initial = len(words) == 2 and len(words[1]) == 1 and words[0] not in _GREETINGS  # "Mo A"
        if not any(w in _ORG_WORDS for w in words) and (
                titled or initial or not all(w in _lists()[2] and w not in _lists()[0] for w in words)):
            found.append(m.span("name"))  # "Regards\nWill", "cheers\nbrian", "kind regards\nmr hill"
    for m in _INITIAL_NAME.finditer(text):
        if _key(m.group("name")) not in _CALENDAR and not (_ordinary(m.group("name")) and not _surname_word(m.group("name"))):
            found.append((m.start(), m.end()))
    for m in _NAME_INITIAL.finditer(text):
        name = m.group("name")
        if (_is_first(name) or _rare(name)) and name not in TITLES:
            found.append(m.span())
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
_UK_POSTCODE = r"\b(?i:[A-Z]{1,2}\d[A-Z\d]?[ \t]*\d[A-Z]{2})\b"  # any case: "ol11 6qw"
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
