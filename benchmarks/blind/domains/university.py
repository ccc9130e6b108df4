"""University student services desk: a made-up export of the Harwick University Student Hub.

Each record is one enquiry and the university's answer, written as a web-form ticket, an e-mail thread,
a live-chat transcript, a desk log or a phone-call note. Students write their own identifiers (student
numbers, dates of birth, phones, addresses, passports, NI numbers, card digits, car registrations, ...)
however they like; staff from several teams answer and sign off. Standard library only; deterministic in
``(seed, n)``.
"""

from __future__ import annotations

import random
import re
import unicodedata

# ----------------------------------------------------------------------------------------------------------
# The organisation's public strings
# ----------------------------------------------------------------------------------------------------------

ORG = "Harwick University"
HUB = "Student Hub"
HUB_PHONE = "020 7946 0321"
IT_PHONE = "020 7946 0455"
WEB = "www.harwick.example.com"
HUB_MAIL = "studenthub@harwick.example.com"
IT_MAIL = "itservicedesk@harwick.example.com"
RESET_URL = "https://mypassword.harwick.example.com"
PORTAL_URL = "https://my.harwick.example.com"
PUBLIC_STRINGS = [ORG, HUB, HUB_PHONE, IT_PHONE, WEB, HUB_MAIL, IT_MAIL, RESET_URL, PORTAL_URL]
RESERVED_0XXX = {"0321", "0455"}

PRODUCTS = ["MyHarwick", "Harwick Learn", "Harwick Card", "Harwick Instalment Plan", "HarwickPay",
            "Harwick Secure Sign-In", "Campus Parking Permit", "LibrarySearch", "Alder Hall", "Pemberton House",
            "Weaver Hall", "Ravensbourne Court"]
HALLS = ["Alder Hall", "Pemberton House", "Weaver Hall", "Ravensbourne Court"]

IDENTIFIER_FIELDS = ["student_name", "student_number", "email", "phone", "date_of_birth"]

# ----------------------------------------------------------------------------------------------------------
# Request types: fact, its surface forms, the agents' paraphrases, misquotes, questions
# ----------------------------------------------------------------------------------------------------------

TYPES = [
    {"id": "password_reset", "weight": 80, "team": "it",
     "fact": RESET_URL, "forms": [RESET_URL, "mypassword.harwick.example.com"], "fw": [5, 1],
     "say": ["You can reset it yourself at {F} – you'll need your student number and the mobile number we hold for you.",
             "Please go to {F} and choose 'Forgotten password'; the new password works on Harwick Learn within about 15 minutes.",
             "The quickest way is our self-service page, {F}, which also unlocks the account.",
             "All password resets are done through {F} – for security we can't set one for you over e-mail."],
     "wrong": ["https://reset.harwick.example.com", "password.harwick.example.com",
               "www.harwick.example.com/reset", "harwick.example.com/itpassword"],
     "questions": ["How do I reset my university password if I'm locked out?",
                   "Where do I go to change a forgotten password for my student account?",
                   "What's the web address for the self-service password reset?"]},
    {"id": "library_fine", "weight": 64, "team": "library",
     "fact": "20p per day",
     "forms": ["20p per day", "20p a day", "20 pence per day", "twenty pence a day", "£0.20 per day", "£0.20 a day"],
     "fw": [4, 3, 1, 1, 1, 1],
     "say": ["Overdue standard loans are charged at {F}, up to a maximum of £8 per item.",
             "The late return charge for a standard loan is {F} – it starts the day after the due date.",
             "Fines on normal loans build up at {F} until the item is back with us.",
             "We charge {F} for each overdue standard loan item."],
     "wrong": ["50p a day", "10p a day", "£1 a day", "5p per day", "30p a day"],
     "questions": ["How much is the library fine for an overdue book?",
                   "What's the daily charge if I bring a library loan back late?"]},
    {"id": "tuition_instalments", "weight": 52, "team": "finance",
     "fact": "three instalments",
     "forms": ["three instalments", "3 instalments", "three payments", "3 payments", "three equal instalments"],
     "fw": [4, 2, 1, 1, 1],
     "say": ["Under the Harwick Instalment Plan you can split the tuition fee into {F}, taken in October, January and April.",
             "Self-funded students can pay in {F}; you set this up in MyHarwick under Finance > Payment plan.",
             "Yes – the fee can be spread over {F} as long as you sign up for the plan when you enrol.",
             "The plan lets you pay in {F}, with the first one due at enrolment."],
     "wrong": ["two instalments", "ten monthly instalments", "four instalments", "6 payments", "monthly payments"],
     "questions": ["How many instalments can I split my tuition fee into?",
                   "Can I pay my tuition fees in parts, and how many payments would that be?",
                   "How does the tuition fee payment plan split the fee?"]},
    {"id": "id_card_replacement", "weight": 43, "team": "hub",
     "fact": "£15", "forms": ["£15", "15 pounds", "fifteen pounds", "GBP 15", "£15.00"], "fw": [5, 1, 1, 1, 1],
     "say": ["A replacement Harwick Card costs {F}, payable online through HarwickPay or by card at the desk.",
             "The charge for a new ID card is {F}; it's waived if the card was stolen and you have a crime reference.",
             "We charge {F} to reprint the card, and it's ready to collect from the Hub the next working day.",
             "Replacing the card is {F} – the old one is cancelled as soon as you order the new one."],
     "wrong": ["£10", "£20", "£5", "£25", "£12"],
     "questions": ["How much does it cost to replace a lost student ID card?",
                   "What's the fee for a new Harwick Card if mine is broken?"]},
    {"id": "transcript_request", "weight": 36, "team": "records",
     "fact": "5 working days", "forms": ["5 working days", "five working days", "5 business days", "five business days"],
     "fw": [3, 2, 1, 1],
     "say": ["Official transcripts are issued within {F} of the request being placed in MyHarwick.",
             "Please allow {F} for the transcript to be produced and sent out.",
             "Our turnaround for transcripts is {F}, and you get a secure digital copy at the same time.",
             "It normally takes {F} from when you order it."],
     "wrong": ["3 working days", "24 hours", "2 weeks", "a month"],
     "questions": ["How long does it take to get an official transcript?",
                   "If I order my academic transcript today, how soon will it be ready?"]},
    {"id": "accommodation_deposit", "weight": 30, "team": "accommodation",
     "fact": "£250",
     "forms": ["£250", "250 pounds", "two hundred and fifty pounds", "GBP 250", "£250.00"], "fw": [5, 1, 1, 1, 1],
     "say": ["The accommodation deposit is {F}, paid when you accept your room offer.",
             "All our halls ask for a {F} deposit, which comes back after you move out, less any damage charges.",
             "The deposit is {F} for every room type, en-suites and studios included.",
             "You pay a {F} deposit to hold the room, and it's refunded within a month of the end of your contract."],
     "wrong": ["£200", "£300", "£500", "£150", "£350"],
     "questions": ["How much is the deposit for a room in university halls?",
                   "What deposit do I need to pay when I accept my accommodation offer?"]},
    {"id": "resit_fee", "weight": 25, "team": "exams",
     "fact": "£40", "forms": ["£40", "40 pounds", "forty pounds", "GBP 40", "£40.00"], "fw": [5, 1, 1, 1, 1],
     "say": ["The resit fee is {F} per module, charged when you register for the August resit period.",
             "Each resit costs {F}; if an extenuating circumstances claim is accepted the fee is waived.",
             "You'll be charged {F} for each module you resit.",
             "Resit registration is {F} per module, paid through HarwickPay."],
     "wrong": ["£50", "£35", "£60", "£75", "£30"],
     "questions": ["How much does it cost to resit a module?",
                   "What's the fee for sitting a resit exam?"]},
    {"id": "enrolment_deadline", "weight": 20, "team": "hub",
     "fact": "30 September",
     "forms": ["30 September", "30th September", "September 30", "30/09", "the 30th of September"],
     "fw": [4, 2, 1, 1, 1],
     "say": ["Online enrolment in MyHarwick closes on {F}; after that you'd need to make a late enrolment request.",
             "You need to complete enrolment by {F} so your Student Finance payment is released on time.",
             "The deadline for enrolling is {F}.",
             "Please make sure you've finished enrolling before {F}."],
     "wrong": ["31 October", "15 October", "1 October", "the end of August", "20 September"],
     "questions": ["What is the deadline for online enrolment?",
                   "By what date do I have to finish enrolling?"]},
    {"id": "parking_permit", "weight": 16, "team": "parking",
     "fact": "£120 per year",
     "forms": ["£120 per year", "£120 a year", "GBP 120 per year", "a hundred and twenty pounds a year",
               "120 pounds a year", "£120 annually"],
     "fw": [4, 2, 1, 1, 1, 1],
     "say": ["A student Campus Parking Permit costs {F} and covers the East and North car parks.",
             "The permit is {F}, payable in one go through HarwickPay.",
             "Student permits are priced at {F}.",
             "It's {F} for a student permit, and you apply in MyHarwick under Travel."],
     "wrong": ["£90 a year", "£150 per year", "£200 a year", "£60 a term", "£75 a year"],
     "questions": ["How much is a student parking permit?",
                   "What does it cost to park on campus as a student?"]},
    {"id": "status_letter", "weight": 12, "team": "records",
     "fact": "48 hours", "forms": ["48 hours", "forty-eight hours", "48 hrs", "2 days", "two days"],
     "fw": [4, 1, 1, 1, 1],
     "say": ["Student status letters, including council tax ones, are generated within {F} of requesting them in MyHarwick.",
             "Once you've submitted the request it takes up to {F} for the letter to appear under Documents.",
             "You should have the letter within {F}.",
             "Letters are usually ready in {F}."],
     "wrong": ["24 hours", "a week", "10 days", "a fortnight"],
     "questions": ["How long does it take to get a council tax exemption letter?",
                   "How quickly is a student status letter ready after I ask for one?"]},
    {"id": "visa_letter", "weight": 9, "team": "international",
     "fact": "10 working days",
     "forms": ["10 working days", "ten working days", "10 business days", "ten business days", "two working weeks"],
     "fw": [4, 2, 1, 1, 1],
     "say": ["Visa support letters are issued by the International Student Advice team within {F}.",
             "Please allow {F} for the letter, so request it well before your appointment.",
             "The turnaround for visa letters is {F}.",
             "It usually takes {F} to prepare and sign the letter."],
     "wrong": ["3 days", "one month", "5 days", "a couple of days"],
     "questions": ["How long does a visa support letter take?",
                   "How long is the turnaround for a letter for my visa application?"]},
    {"id": "gown_hire", "weight": 7, "team": "graduation",
     "fact": "£39", "forms": ["£39", "39 pounds", "thirty-nine pounds", "GBP 39", "£39.00"], "fw": [5, 1, 1, 1, 1],
     "say": ["Gown hire through our official robemakers, Ashby & Lowe, is {F} for a bachelor's set (gown, hood and cap).",
             "The hire fee is {F} and includes the hood in your faculty colours.",
             "Hiring the full academic dress costs {F}.",
             "It's {F} to hire the gown, hood and cap for the day."],
     "wrong": ["£30", "£50", "£65", "£45"],
     "questions": ["How much does it cost to hire a graduation gown?",
                   "What's the price of academic dress hire for my graduation ceremony?"]},
    {"id": "ec_deadline", "weight": 6, "team": "exams",
     "fact": "7 days", "forms": ["7 days", "seven days", "one week", "7 calendar days"], "fw": [4, 2, 1, 1],
     "say": ["Extenuating circumstances claims must be submitted within {F} of the exam or deadline affected.",
             "You have {F} from the assessment to submit the claim with your evidence.",
             "The deadline for an EC claim is {F} after the assessment.",
             "Please get the claim form in within {F}."],
     "wrong": ["14 days", "one month", "3 days", "the end of term"],
     "questions": ["How long do I have to submit an extenuating circumstances claim?",
                   "What is the deadline for an EC claim after I miss an exam?"]},
]

ALL_FORMS = [(t["id"], f) for t in TYPES for f in t["forms"]]


def holds(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


def clean(s: str) -> bool:
    """Whether no fact form of any type occurs in ``s``."""
    return not any(holds(s, f) for _, f in ALL_FORMS)


# ----------------------------------------------------------------------------------------------------------
# Names
# ----------------------------------------------------------------------------------------------------------

NAMES = {  # origin: (weight, male given, female given, surnames)
    "british": (34,
                "Callum Oliver Jack Harry George Thomas Owen Rhys Fraser Ewan Liam Mark Will Guy Ben Joe Daniel "
                "Connor Alfie Lewis Jamie Reece Kieran Declan Ciaran Sean Patrick Finn Rory Hunter".split(),
                "Amelia Sophie Ellie Megan Isla Eilidh Cerys Bethan Aoife Niamh Siobhan Rose Hope May Grace Faith "
                "Joy Daisy Holly Ivy Amber Ruby Dawn April June Summer Autumn Chloe Hannah Lucy Freya Poppy".split(),
                "Green Brown King Field Church Rose Hope May Bird Fox Hill Moss Stone Wood Young Bell Knight Cook "
                "Baker Mason Little Sharp Frost Lamb Marsh Banks Wells Price Page Bishop Day Walsh Murphy O'Brien "
                "McAllister Fitzgerald Jones Evans Hughes Thomas Campbell Robertson Booth Shepherd Parsons Gardner "
                "Fisher Carter Fletcher Cross Lord Hale Sterling Swan Snow Rivers Lane Mills Dunn Hart Wilde".split()),
    "south_asian": (14,
                    "Arjun Rohan Sanjay Imran Rahul Nikhil Vikram Aarav Harpreet Gurpreet Zain Faisal Kiran Anil".split(),
                    "Priya Aisha Ananya Zainab Fatima Deepa Sana Kavya Simran Meera Nadia Anjali Rukhsana".split(),
                    "Patel Sharma Khan Singh Chaudhry Iyer Nair Rahman Hussain Begum Gill Mistry Desai Bhatt "
                    "Chowdhury Kaur Malik Qureshi Joshi Reddy".split()),
    "east_asian": (12,
                   "Wei Hao Jun Haruto Kenji Min-jun Ji-ho Minh Tuan Jian Yuto Zhiwei".split(),
                   "Jing Mei Yuki Ji-woo Linh Thanh Xinyi Yan Sakura Hana Seo-yeon Lan".split(),
                   "Zhang Wang Li Chen Liu Tanaka Sato Kim Park Nguyen Tran Lim Tan Wong Ho Zhou Huang Choi".split()),
    "west_african": (9,
                     "Chinedu Oluwaseun Adebayo Kwame Kofi Tunde Emeka Ifeanyi Yaw Babajide".split(),
                     "Ngozi Ama Efua Chiamaka Blessing Precious Funmilayo Adaeze Abena Yetunde".split(),
                     "Okafor Adeyemi Mensah Owusu Boateng Nwosu Okonkwo Adeleke Asante Bello Eze Oyelaran".split()),
    "mena": (8,
             "Omar Yusuf Karim Hassan Dariush Emre Tariq Khalid Mehmet Reza".split(),
             "Layla Mariam Noor Leila Elif Zeynep Yasmin Dina Shirin Amira".split(),
             "Haddad Al-Sayed Farah Nasser Yilmaz Demir Kaya Hosseini Karimi Mansour Aziz Saleh".split()),
    "east_european": (8,
                      "Jakub Piotr Andrei Mihai Dmytro Lukas Tomasz Marek Bogdan Aleksandr".split(),
                      "Dominika Katarzyna Ioana Olena Agnieszka Zuzana Natalia Irina Milena".split(),
                      "Kowalski Nowak Wiśniewska Popescu Ionescu Shevchenko Kovalenko Horvat Novak Dvořák "
                      "Zieliński Petrov".split()),
    "latin": (8,
              "Mateo Diego Marco João Lucas Gabriel Alejandro Tiago Luca Rafael".split(),
              "Lucía Sofia Camila Giulia Inês Beatriz Valentina Angel Carolina Martina".split(),
              "García Rodríguez Silva Santos Rossi Bianchi Ferreira Moreno Costa Romero Oliveira Russo".split()),
    "north_european": (7,
                       "Lars Sven Jonas Felix Mathis Erik Pieter Nils".split(),
                       "Freya Anneke Lena Maja Ingrid Sanne Astrid Elin".split(),
                       "Jansen de Vries Müller Schmidt Larsen Lindqvist Berg Vogel Bakker Hansen".split()),
}
ORIGIN_KEYS = list(NAMES)
ORIGIN_W = [NAMES[k][0] for k in ORIGIN_KEYS]

AGENTS = {  # team: [(first, last)]
    "hub": [("Priya", "Raman"), ("Tom", "Bishop"), ("Aoife", "Brennan"), ("Kwabena", "Asare"), ("Leanne", "Holt"),
            ("Marcus", "Field"), ("Hui", "Lin"), ("Sadia", "Karim")],
    "it": [("Gareth", "Pugh"), ("Ines", "Duarte"), ("Sam", "Wilde"), ("Nkechi", "Obi"), ("Jordan", "Lee")],
    "library": [("Fiona", "Rae"), ("Rajesh", "Menon"), ("Beth", "Carver"), ("Tomás", "Nolan")],
    "finance": [("Helen", "Church"), ("Abdul", "Rashid"), ("Joanna", "Wiśniewska"), ("Craig", "Munro")],
    "records": [("Lorna", "Gray"), ("Yusuf", "Demir"), ("Kate", "Summers")],
    "accommodation": [("Danielle", "Price"), ("Oisín", "Kelly"), ("Mei", "Tanaka")],
    "exams": [("Robert", "Hope"), ("Shabnam", "Ali"), ("Ewa", "Lis")],
    "parking": [("Steve", "Marsh"), ("Angela", "Frost")],
    "international": [("Chidi", "Eze"), ("Anna", "Becker"), ("Farida", "Haq")],
    "graduation": [("Rosie", "Long"), ("Daniel", "Ward")],
}
TEAM_NAME = {"hub": "Student Hub", "it": "IT Service Desk", "library": "Library Customer Services",
             "finance": "Fees & Funding Team", "records": "Student Records", "accommodation": "Accommodation Office",
             "exams": "Exams & Assessment Office", "parking": "Campus Security & Parking",
             "international": "International Student Advice", "graduation": "Graduation Team"}
ROLE = {"hub": "Student Hub Adviser", "it": "Service Desk Analyst", "library": "Library Assistant",
        "finance": "Fees Officer", "records": "Records Officer", "accommodation": "Accommodation Adviser",
        "exams": "Assessment Officer", "parking": "Parking Administrator",
        "international": "International Student Adviser", "graduation": "Graduation Coordinator"}

COURSES = ["Law", "Nursing", "Economics", "Computer Science", "Mechanical Engineering", "Psychology", "History",
           "Biomedical Science", "Architecture", "Business Management", "English Literature", "Physiotherapy",
           "Chemistry", "Politics", "Film Studies", "Accounting and Finance", "Social Work", "Pharmacy",
           "Data Science", "International Relations", "Primary Education", "Music"]
STREETS = ["Elm", "Cranbrook", "Wilmslow", "Victoria", "Beech", "Mill", "Chapel", "Station", "Albert", "Princess",
           "Clarence", "Hawthorn", "Sycamore", "Mayfield", "Ashgrove", "Brookfield", "Granby", "Moorland",
           "Ladybarn", "Heaton", "Linden", "Oakwood", "Springfield", "Talbot", "Whitworth", "Regent", "Kingsley",
           "Tennyson", "Milton", "Derwent", "Alma", "Cromwell", "Nelson", "Osborne", "Walmer", "Denmark"]
STREET_TYPES = [("Road", "Rd"), ("Street", "St"), ("Avenue", "Ave"), ("Lane", "Ln"), ("Close", None),
                ("Grove", None), ("Terrace", None), ("Place", None), ("Drive", "Dr"), ("Crescent", None),
                ("Way", None), ("Gardens", None)]
NO_TYPE = ["Kingsway", "Broadway", "Moorside", "Highfield", "Westgate", "Northgate", "The Crescent", "The Green",
           "Hollins Brow", "Parkside", "Fairholme", "Cliffside"]
BLOCKS = ["Marlow Court", "Vantage Point", "Riverside Lofts", "Canal Wharf", "Sovereign House", "Old Mill"]
HOME_TOWNS = [("Leeds", "LS"), ("Bristol", "BS"), ("Cardiff", "CF"), ("Norwich", "NR"), ("Derby", "DE"),
              ("Swindon", "SN"), ("Belfast", "BT"), ("Aberdeen", "AB"), ("Luton", "LU"), ("Preston", "PR"),
              ("Hull", "HU"), ("Exeter", "EX"), ("Leicester", "LE"), ("Sheffield", "S"), ("Glasgow", "G"),
              ("Nottingham", "NG"), ("Stoke", "ST"), ("Reading", "RG"), ("Bolton", "BL"), ("Wakefield", "WF")]
ABROAD = ["Lyon", "Madrid", "Lagos", "Shanghai", "Kuala Lumpur", "Toronto", "Milan", "Accra", "Seoul", "Krakow",
          "Bangalore", "Istanbul", "São Paulo", "Hamburg"]
NATIONS = ["Chinese", "Nigerian", "Indian", "Malaysian", "Ghanaian", "Turkish", "Brazilian", "Vietnamese",
           "Pakistani", "American", "Canadian", "Saudi", "Korean", "Ukrainian"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
MON3 = [m[:3] for m in MONTHS]
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri"]
NUMWORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
            "twelve"]

TYPOS = {"because": "becuase", "received": "recieved", "tomorrow": "tomorow", "library": "libary",
         "accommodation": "accomodation", "transcript": "transcipt", "password": "pasword",
         "definitely": "definately", "separate": "seperate", "which": "wich", "their": "thier",
         "until": "untill", "really": "realy", "please": "pls", "thanks": "thx", "would": "woudl",
         "account": "acount", "deposit": "desposit", "certificate": "certficate", "address": "adress",
         "wondering": "wonderin", "know": "kno", "appreciate": "apreciate", "necessary": "neccessary",
         "letter": "leter", "enrol": "enroll", "tried": "tryed", "immediately": "immediatly",
         "government": "goverment", "you": "u", "are": "r", "the": "teh", "just": "jsut"}


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()


def _slug(s: str) -> str:
    return re.sub(r"[^a-z]", "", _ascii(s).lower())


def _luhn_digit(digits: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def _postcode_letters(r: random.Random) -> str:
    return "".join(r.choice("ABDEFGHJLNPQRSTUWXYZ") for _ in range(2))


# ----------------------------------------------------------------------------------------------------------
# Students
# ----------------------------------------------------------------------------------------------------------

class Person:
    def __init__(self, r: random.Random, pid: str):
        self.pid = pid
        origin = r.choices(ORIGIN_KEYS, ORIGIN_W)[0]
        _, males, females, surnames = NAMES[origin]
        self.female = r.random() < 0.55
        self.first = r.choice(females if self.female else males)
        last_origin = origin if r.random() < 0.82 else r.choices(ORIGIN_KEYS, ORIGIN_W)[0]
        self.last = r.choice(NAMES[last_origin][3])
        self.full = f"{self.first} {self.last}"
        self.title = r.choice(["Ms", "Miss", "Mrs"]) if self.female else "Mr"
        if r.random() < 0.04:
            self.title = "Mx"
        self.intl = origin in ("east_asian", "west_african", "mena", "latin", "north_european") and r.random() < 0.75 \
            or r.random() < 0.08
        self.nation = r.choice(NATIONS) if self.intl else None
        self.entry = r.choice([19, 20, 21, 22, 23, 24, 24, 23, 22])
        self.sn = f"{self.entry}{r.randint(0, 999999):06d}"
        self.year = max(1, min(4, 25 - self.entry + r.choice([0, 0, 0, -1])))
        self.pg = r.random() < 0.18
        self.course = r.choice(COURSES)
        fs, ls = _slug(self.first), _slug(self.last)
        self.uni_email = r.choice([f"{fs[0]}.{ls}{self.entry}", f"{fs}.{ls}", f"{ls}{fs[0]}{r.randint(1, 9)}",
                                   f"{fs[0]}{ls[:5]}{self.sn[-3:]}"]) + "@student.harwick.example.com"
        self.personal_email = r.choice([f"{fs}{ls}{r.randint(1, 99)}", f"{fs}.{ls}", f"{fs}_{ls[:3]}", f"{ls}.{fs}{r.randint(1, 9)}",
                                        f"x{fs}{r.randint(1, 999)}x", f"{fs[:3]}{ls}{r.randint(95, 99)}",
                                        f"{fs}{r.choice(['xo', 'music', 'fc', 'uk', 'gg'])}{r.randint(1, 99)}"]) \
            + "@" + r.choice(["example.net", "example.org", "example.com", "mail.example.net", "inbox.example.org"])
        # phone: kind, digits
        k = r.random()
        if k < 0.80 or not self.intl:
            self.phone_kind, self.phone_num = "mob", f"{r.randint(0, 999):03d}"
        elif k < 0.90:
            self.phone_kind, self.phone_num = "us", (r.choice(["202", "312", "415", "617", "646", "713"]),
                                                     f"{r.randint(0, 99):02d}")
        else:
            self.phone_kind, self.phone_num = "mob", f"{r.randint(0, 999):03d}"
        if self.phone_kind == "mob" and r.random() < 0.12 and not self.intl:
            n4 = f"{r.randint(0, 999):03d}"
            while n4 in RESERVED_0XXX or ("0" + n4) in RESERVED_0XXX:
                n4 = f"{r.randint(0, 999):03d}"
            self.phone_kind, self.phone_num = "ldn", n4
        while True:
            by = r.randint(1978, 2006) if r.random() < 0.2 else r.randint(1999, 2006)
            bm, bd = r.randint(1, 12), r.randint(1, 28 if r.random() < 0.7 else 31)
            if bm == 2 and bd > 28:
                bd = 28
            if bd == 31 and bm in (4, 6, 9, 11):
                bd = 30
            if not (bd == 30 and bm == 9):
                break
        self.dob = (by, bm, bd)
        self.term_addr = make_address(r, local=True)
        self.home_addr = make_address(r, local=False)
        self.ni = "".join([r.choice("ABCEGHJKLMNPRSTWXYZ"), r.choice("ABCEGHJKLMNPRSTWXYZ")]) + \
            f"{r.randint(0, 999999):06d}" + r.choice("ABCD")
        if self.intl:
            self.passport = r.choice([f"E{r.randint(10000000, 99999999)}", f"A{r.randint(1000000, 9999999)}0",
                                      f"{r.choice('LMNPT')}{r.choice('ABCDEFG')}{r.randint(1000000, 9999999)}",
                                      f"{r.randint(100000000, 999999999)}", f"U{r.randint(10000000, 99999999)}"])
        else:
            self.passport = f"{r.randint(100000000, 999999999)}"
        self.brp = f"Z{r.choice('RUXT')}{r.randint(1000000, 9999999)}"
        self.plate = "".join(r.choice("ABCDEFGHJKLMNOPRSTVWXY") for _ in range(2)) + \
            r.choice(["02", "05", "09", "11", "13", "15", "16", "17", "18", "19", "21", "62", "64", "66", "67",
                      "68", "69", "70", "71", "72", "73"]) + " " + \
            "".join(r.choice("ABCDEFGHJKLMNOPRSTUVWXYZ") for _ in range(3))
        self.card4 = f"{r.randint(0, 9999):04d}"
        body = r.choice(["4", "5"]) + "".join(str(r.randint(0, 9)) for _ in range(11)) + self.card4[:3]
        self.card_full = body + _luhn_digit(body)
        self.card4 = self.card_full[-4:]
        self.username = f"{_slug(self.first)[:1]}{_slug(self.last)[:4]}{self.sn[-4:]}"

    # ---- surfaces ----
    def name_in_text(self, r: random.Random, formal: bool = False) -> str:
        if formal:
            return r.choice([self.full, self.full, f"{self.title} {self.last}", f"{self.first[0]}. {self.last}"])
        return r.choice([self.full, self.full, self.first, self.first, f"{self.first} {self.last[0]}."])

    def sn_text(self, r: random.Random) -> str:
        s = self.sn
        return r.choice([s, s, s, f"{s[:4]} {s[4:]}", f"S{s}", f"{s[:2]}-{s[2:]}", f"s{s}"])

    def phone_text(self, r: random.Random) -> str:
        if self.phone_kind == "mob":
            x = self.phone_num
            return r.choice([f"07700 900{x}", f"07700900{x}", f"+44 7700 900{x}", f"+447700900{x}",
                             f"07700 900 {x}", f"+44 (0)7700 900{x}", f"0770 0900 {x}", f"07700-900-{x}"])
        if self.phone_kind == "ldn":
            x = self.phone_num
            return r.choice([f"020 7946 0{x}", f"0207 946 0{x}", f"(020) 7946 0{x}", f"+44 20 7946 0{x}",
                             f"02079460{x}"])
        area, x = self.phone_num
        return r.choice([f"+1 {area} 555 01{x}", f"({area}) 555-01{x}", f"{area}-555-01{x}", f"+1-{area}-555-01{x}"])

    def phone_canonical(self) -> str:
        if self.phone_kind == "mob":
            return f"07700 900{self.phone_num}"
        if self.phone_kind == "ldn":
            return f"020 7946 0{self.phone_num}"
        area, x = self.phone_num
        return f"+1 {area} 555 01{x}"

    def dob_text(self, r: random.Random) -> str:
        y, m, d = self.dob
        sfx = "th" if 11 <= d <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
        return r.choice([f"{d:02d}/{m:02d}/{y}", f"{d}/{m}/{y}", f"{d:02d}-{m:02d}-{y}", f"{d:02d}.{m:02d}.{str(y)[2:]}",
                         f"{d} {MONTHS[m - 1]} {y}", f"{d}{sfx} {MONTHS[m - 1]} {y}", f"{MONTHS[m - 1]} {d}, {y}",
                         f"{y}-{m:02d}-{d:02d}", f"{d} {MON3[m - 1]} {y}", f"{d}/{m}/{str(y)[2:]}"])

    def ni_text(self, r: random.Random) -> str:
        s = self.ni
        return r.choice([f"{s[:2]} {s[2:4]} {s[4:6]} {s[6:8]} {s[8]}", s, s.lower(), f"{s[:2]}{s[2:8]} {s[8]}",
                         f"{s[:2]} {s[2:8]} {s[8]}"])

    def plate_text(self, r: random.Random) -> str:
        p = self.plate
        return r.choice([p, p, p.replace(" ", ""), p.lower(), p.lower().replace(" ", "")])

    def card_text(self, r: random.Random, full: bool = False) -> str:
        c = self.card_full
        if full:
            return r.choice([f"{c[:4]} {c[4:8]} {c[8:12]} {c[12:]}", c, f"{c[:4]}-{c[4:8]}-{c[8:12]}-{c[12:]}"])
        return self.card4

    def email_text(self, r: random.Random) -> str:
        return r.choice([self.uni_email, self.personal_email, self.personal_email])


def make_address(r: random.Random, local: bool):
    """(street part variants, town, postcode)"""
    num = r.randint(1, 180)
    k = r.random()
    if local and k < 0.25:
        hall = r.choice(HALLS)
        room = f"{r.randint(1, 8)}{r.choice('ABCDEF')}" if r.random() < 0.5 else f"{r.randint(1, 40)}"
        variants = [f"Room {room}, {hall}", f"Room {room} {hall}", f"{hall} room {room}"]
        town = "Harwick"
    elif k < 0.55:
        st, ab = r.choice(STREET_TYPES)
        name = r.choice(STREETS)
        suf = r.choice(["", "", "", "a", "b"])
        variants = [f"{num}{suf} {name} {st}", f"{num}{suf} {name} {st}"]
        if ab:
            variants.append(f"{num}{suf} {name} {ab}")
        if r.random() < 0.3:
            flat = r.randint(1, 12)
            variants = [f"Flat {flat}, {v}" for v in variants] + [f"Flat {flat} {variants[0]}"]
        town = None
    elif k < 0.75:
        name = r.choice(NO_TYPE)
        variants = [f"{num} {name}"]
        town = None
    else:
        st, ab = r.choice(STREET_TYPES)
        blk = r.choice(BLOCKS)
        flat = r.randint(1, 60)
        variants = [f"Flat {flat}, {blk}, {num} {r.choice(STREETS)} {st}", f"Apartment {flat} {blk}",
                    f"Flat {flat} {blk}"]
        town = None
    if local:
        town = "Harwick"
        pc = f"HW{r.randint(1, 9)} {r.randint(1, 9)}{_postcode_letters(r)}"
    else:
        t, area = r.choice(HOME_TOWNS)
        town = t
        pc = f"{area}{r.randint(1, 19)} {r.randint(1, 9)}{_postcode_letters(r)}"
    return variants, town, pc


def pick(r: random.Random, *options):
    """Call one of ``options`` (so that only the chosen sentence records its PII)."""
    return r.choice(options)()


def pc_text(r: random.Random, pc: str) -> str:
    return r.choice([pc, pc, pc, pc.lower(), pc.replace(" ", "")])


# ----------------------------------------------------------------------------------------------------------
# Record builder
# ----------------------------------------------------------------------------------------------------------

class Seg:
    """One part of a record's text and the PII written into it."""

    def __init__(self):
        self.items: list[tuple[str, str]] = []

    def p(self, kind: str, s: str) -> str:
        self.items.append((kind, s))
        return s


def third_party(r: random.Random, title: bool = False, full: bool = False) -> str:
    origin = r.choices(ORIGIN_KEYS, ORIGIN_W)[0]
    _, m, f, s = NAMES[origin]
    fem = r.random() < 0.5
    first, last = r.choice(f if fem else m), r.choice(s)
    if title:
        return r.choice([f"Dr {last}", f"Dr {first} {last}", f"{'Mrs' if fem else 'Mr'} {last}", f"{first} {last}"])
    if full:
        return f"{first} {last}"
    return r.choice([f"{first} {last}", first, f"{first} {last}"])


def a_date(r: random.Random, months=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)) -> str:
    while True:
        m = r.choice(months)
        d = r.randint(1, 28)
        s = r.choice([f"{d} {MONTHS[m - 1]}", f"{d}/{m}", f"{d}{'th' if d > 3 else ['st', 'nd', 'rd'][d - 1]} "
                      f"{MON3[m - 1]}", f"{WEEKDAYS[r.randint(0, 4)]} {d} {MON3[m - 1]}"])
        if clean(s):
            return s


def money(r: random.Random, lo: float, hi: float, pence: bool = True) -> str:
    while True:
        v = r.uniform(lo, hi)
        s = f"£{v:,.2f}" if pence else f"£{int(v):,}"
        if clean(s):
            return s


def addr_text(r: random.Random, seg: Seg, addr, with_pc: float = 0.7, with_town: float = 0.4) -> str:
    variants, town, pc = addr
    a = r.choice(variants)
    if town and r.random() < with_town:
        a = f"{a}, {town}"
    out = seg.p("address", a)
    if r.random() < with_pc:
        out += r.choice([", ", " ", ", "]) + seg.p("postcode", pc_text(r, pc))
    return out


def imei(r: random.Random) -> str:
    body = r.choice(["35", "86", "01", "35"]) + "".join(str(r.randint(0, 9)) for _ in range(12))
    x = body + _luhn_digit(body)
    return r.choice([x, x, f"{x[:2]} {x[2:8]} {x[8:14]} {x[14]}", f"{x[:2]}-{x[2:8]}-{x[8:14]}-{x[14]}"])


def iban(r: random.Random) -> str:
    if r.random() < 0.6:
        bank = r.choice(["NWBK", "BARC", "LOYD", "MIDL", "HBUK", "MONZ", "SRLG"])
        d = f"{r.randint(10, 99)}"
        rest = "".join(str(r.randint(0, 9)) for _ in range(14))
        s = f"GB{d}{bank}{rest}"
    else:
        cc = r.choice(["DE", "FR", "ES", "IT", "NL", "PL"])
        s = cc + "".join(str(r.randint(0, 9)) for _ in range(20))
        if cc in ("FR", "IT"):
            s = s[:24]
    if r.random() < 0.6:
        return " ".join(s[i:i + 4] for i in range(0, len(s), 4))
    return s


def sortcode(r: random.Random) -> tuple[str, str]:
    a, b, c = r.randint(10, 99), r.randint(0, 99), r.randint(0, 99)
    sc = r.choice([f"{a}-{b:02d}-{c:02d}", f"{a}{b:02d}{c:02d}", f"{a} {b:02d} {c:02d}"])
    return sc, f"{r.randint(10000000, 99999999)}"


def ref(r: random.Random, prefix: str, digits: int = 6) -> str:
    return f"{prefix}{r.randint(10 ** (digits - 1), 10 ** digits - 1)}"


# ---- generic customer pieces ------------------------------------------------------------------------------

def who_am_i(r: random.Random, s: Seg, P: Person) -> str:
    yr = ["first", "second", "third", "final", "fourth"][P.year - 1] if not P.pg else None
    lvl = f"{yr} year {P.course}" if yr else f"MSc {P.course}" if r.random() < 0.6 else f"MA {P.course}"
    art = "an" if lvl[0] in "AEIOUM" else "a"
    k = r.randrange(6)
    if k == 0:
        return f"My name is {s.p('person_name', P.full)} and I'm {art} {lvl} student (student number {s.p('account_number', P.sn_text(r))})."
    if k == 1:
        return f"I'm {art} {lvl} student, student ID {s.p('account_number', P.sn_text(r))}."
    if k == 2:
        return f"This is {s.p('person_name', P.full)}, {lvl}."
    if k == 3:
        return f"{s.p('person_name', P.full)} here, {s.p('account_number', P.sn_text(r))}."
    if k == 4:
        return f"I'm {s.p('person_name', P.first)}, {lvl}, my student no is {s.p('account_number', P.sn_text(r))}."
    return f"I'm in {yr or 'the PG'} year of {P.course}." if yr else f"I'm on the {lvl} course."


def id_extra(r: random.Random, s: Seg, P: Person) -> str:
    k = r.randrange(8)
    if k == 7:
        return f"My NI number is {s.p('national_id', P.ni_text(r))} if you need to check anything."
    if k == 0:
        return f"DOB {s.p('date_of_birth', P.dob_text(r))} if you need it."
    if k == 1:
        return f"My date of birth is {s.p('date_of_birth', P.dob_text(r))} and student number {s.p('account_number', P.sn_text(r))}."
    if k == 2:
        return f"You can call me on {s.p('phone', P.phone_text(r))} if that's easier."
    if k == 3:
        return f"My mobile is {s.p('phone', P.phone_text(r))}."
    if k == 4:
        return f"Please reply to {s.p('email', P.personal_email)} as I don't check my uni email much."
    if k == 5:
        return f"Student number: {s.p('account_number', P.sn_text(r))}, phone {s.p('phone', P.phone_text(r))}."
    return f"(d.o.b. {s.p('date_of_birth', P.dob_text(r))})"


def greeting(r: random.Random) -> str:
    return r.choice(["Hi,", "Hello,", "Hi there,", "Dear Student Hub,", "Good morning,", "Hiya,", "hey,",
                     "To whom it may concern,", "Hello Student Hub team,", "Good afternoon,", ""])


def cust_signoff(r: random.Random, s: Seg, P: Person) -> str:
    k = r.randrange(8)
    if k == 0:
        return f"Thanks,\n{s.p('person_name', P.first)}"
    if k == 1:
        return f"Many thanks\n{s.p('person_name', P.full)}\n{s.p('account_number', P.sn_text(r))}"
    if k == 2:
        return f"Kind regards,\n{s.p('person_name', P.full)}"
    if k == 3:
        return f"cheers, {s.p('person_name', P.first)}"
    if k == 4:
        return f"Best,\n{s.p('person_name', P.full)}\n{s.p('phone', P.phone_text(r))}"
    if k == 5:
        return "Thanks in advance"
    if k == 6:
        return f"Regards\n{s.p('person_name', P.name_in_text(r, formal=True))}"
    return "thank you"


MIS_LEAD = ["I was told it was {W}, is that still right?", "A friend said it's {W}.",
            "The page I found online said {W} but I wasn't sure it was current.",
            "Someone at the open day told me {W}.", "Last year it was {W} I think?",
            "My flatmate reckons it's {W}, can you confirm?"]

CORRECT = ["Just to correct one thing: it isn't {W}.", "I'm afraid {W} isn't right – that information is out of date.",
           "Sorry for any confusion, but it's not {W}.", "To clarify, {W} is not correct.",
           "That's not quite right, I'm afraid – not {W}."]


# ---- type-specific customer messages ----------------------------------------------------------------------

def c_password_reset(r, s, P, W):
    out = []
    k = r.randrange(6)
    if k == 0:
        out.append("I've been locked out of my account after too many wrong attempts and now I can't get into Harwick Learn.")
    elif k == 1:
        out.append("I got a new phone and the Harwick Secure Sign-In app didn't transfer over, so I can't get past the login screen.")
        if r.random() < 0.5:
            out.append(f"The new phone's IMEI is {s.p('imei', imei(r))} if that helps.")
    elif k == 2:
        out.append("My password expired while I was on placement and now it won't let me change it.")
    elif k == 3:
        out.append(f"I forgot my password over the summer and the reset email is going to my old college address ({s.p('email', P.personal_email)}).")
    elif k == 4:
        out.append("I can't log into MyHarwick or my uni email since yesterday, it just says invalid username or password.")
    else:
        out.append(f"my account {s.p('account_number', P.username)} is locked and i have no idea why, i haven't changed anything.")
    if r.random() < 0.5:
        out.append(pick(r, lambda: f"I've got an essay due on {a_date(r)} at 12 noon so this is urgent.",
                             lambda: f"I'm on my year abroad in {r.choice(ABROAD)} so I can't come to the desk.",
                             lambda: f"I have an online exam on {a_date(r)}.",
                             lambda: "All my seminar reading is on Harwick Learn so I'm stuck.",
                             lambda: f"My phone number changed, the new one is {s.p('phone', P.phone_text(r))}."))
    if r.random() < 0.35 and k != 5:
        out.append(f"My username is {s.p('account_number', P.username)}.")
    elif r.random() < 0.2:
        out.append(f"It sends me to {s.p('url_with_id', 'https://login.harwick.example.com/error?user=' + P.username + '&code=' + str(r.randint(4000, 4999)))} and stops there.")
    if W:
        out.append(r.choice([f"The email from IT said to go to {W} but that page doesn't load.",
                             f"A friend told me to use {W}, is that the right one?",
                             f"I tried {W} like it says on the poster in the library but it just errors."]))
    out.append("How do I reset it?" if r.random() < 0.5 else "Can you reset my password please?")
    return out


BOOKS = ["Principles of Economics", "Research Methods in Psychology", "Organic Chemistry", "Constitutional and "
         "Administrative Law", "An Introduction to Sociology", "Engineering Mathematics", "Clinical Skills for "
         "Nurses", "The Making of the English Working Class", "Doing Your Research Project",
         "Introduction to Algorithms"]


def c_library_fine(r, s, P, W):
    out = []
    book = r.choice(BOOKS)
    k = r.randrange(4)
    days = r.randint(3, 40)
    if k == 0:
        out.append(f"I've got a fine of {money(r, 0.6, 7.9)} on my library account for '{book}', which was due back on {a_date(r)}.")
    elif k == 1:
        out.append(f"I got an email saying I owe money for an overdue loan ({book}). It was {days} days late.")
    elif k == 2:
        out.append("My library account is blocked because of fines and I can't borrow anything for my dissertation.")
    else:
        out.append(f"can you tell me how the library fines work, I've had {book} out longer than I should and I don't want a massive bill")
    if r.random() < 0.6:
        out.append(pick(r, lambda: f"I was at home in {r.choice(HOME_TOWNS)[0]} for a family emergency.",
                             lambda: "I was ill with flu for most of that fortnight.",
                             lambda: "I honestly thought I'd renewed it online through LibrarySearch.",
                             lambda: f"My flatmate {s.p('third_party_name', third_party(r))} said she'd return it for me but forgot.",
                             lambda: f"My course mate {s.p('third_party_name', third_party(r))} had it the whole time, long story."))
    if r.random() < 0.4:
        out.append(pick(r, lambda: f"My library card number is {s.p('account_number', '2 4410 ' + P.sn[-4:] + ' ' + P.sn[:4])}.",
                             lambda: f"Here's the link to my account page: {s.p('url_with_id', 'https://library.harwick.example.com/patron/' + P.sn + '/fines')}",
                             lambda: f"The loan shows under {s.p('url_with_id', 'https://library.harwick.example.com/account?patron=P' + P.sn)}"))
    if r.random() < 0.15:
        out.append(f"I already paid {money(r, 0.6, 7.9)} last month with my card ending {s.p('card_number', P.card_text(r))}, has that gone through?")
    if W:
        out.append(r.choice([f"I thought the fine was only {W}.", f"The leaflet from first year says {W}, so the total looks too high.",
                             f"My friend said it's {W}."]))
    out.append(r.choice(["How much is it per day?", "Is there any way to get it reduced?", "What do I owe and how do I pay?",
                         "How much do I have to pay to unblock it?"]))
    return out


def c_tuition_instalments(r, s, P, W):
    out = []
    fee = r.choice(["£9,250", "£11,800", "£17,500", "£21,000", "£9,535", "£19,750"])
    k = r.randrange(4)
    if k == 0:
        out.append(f"I'm self-funding my master's and can't pay the full {fee} up front.")
    elif k == 1:
        out.append("My Student Finance application has been delayed and I need to pay my tuition fee myself for now.")
        if r.random() < 0.5:
            out.append(pick(r, lambda: f"My SFE customer reference is {s.p('account_number', str(r.randint(10000000000, 99999999999)))}.",
                            lambda: f"They have my NI number as {s.p('national_id', P.ni_text(r))} which I think is right."))
    elif k == 2:
        out.append(f"My sponsor has pulled out and I need to pay my fees ({fee}) in parts.")
    else:
        out.append(f"I'm an international student and my parents are paying my {fee} fee from abroad.")
    if r.random() < 0.5:
        tp = s.p('third_party_name', third_party(r))
        out.append(r.choice([f"My dad, {tp}, will be making the payments.", f"My aunt {tp} is paying half of it.",
                             f"The payer will be my mum ({tp})."]))
    if r.random() < 0.4:
        out.append(f"I tried to pay {money(r, 1000, 4000)} with my card ending {s.p('card_number', P.card_text(r))} but it was declined.")
    elif r.random() < 0.12:
        out.append(f"My card is {s.p('card_number', P.card_text(r, full=True))}, can you just take the first payment from that?")
    if r.random() < 0.45:
        inv = ref(r, r.choice(['INV-24-', 'INV']))
        out.append(pick(r, lambda: f"The invoice number is {s.p('account_number', inv)}.",
                        lambda: f"The invoice is here: {s.p('url_with_id', 'https://pay.harwick.example.com/invoice/' + inv)}"))
    if W:
        out.append(r.choice([f"I was told I could pay in {W}.", f"My friend pays in {W}, can I do the same?",
                             f"The finance page I found said {W}."]))
    out.append(r.choice(["How many instalments can I split it into?", "Is there a payment plan?",
                         "Can I pay in instalments and how does it work?"]))
    return out


def c_id_card_replacement(r, s, P, W):
    out = []
    k = r.randrange(5)
    if k == 0:
        out.append(f"I lost my Harwick Card on a night out on {a_date(r, (10, 11, 12, 1, 2, 3))}.")
    elif k == 1:
        out.append("My wallet was stolen on the bus with my student card in it.")
        if r.random() < 0.7:
            out.append(f"I reported it to the police, the crime reference is {s.p('other_id', r.choice(['CRN ', 'crime ref ', '']) + r.choice(['44', '13', '06']) + '/' + str(r.randint(10000, 99999)) + '/' + str(r.randint(23, 25)))}.")
    elif k == 2:
        out.append("My ID card has snapped in half and the door readers in the library won't take it.")
    elif k == 3:
        old = f"{P.first} {r.choice(NAMES['british'][3])}"
        out.append(f"I've changed my surname since I got married, my card still says {s.p('person_name', old)} and I'd like it updated to {s.p('person_name', P.full)}.")
    else:
        out.append("The photo on my card is from first year and security keep questioning it, can I get a new one?")
    if r.random() < 0.4:
        out.append(f"Can the new one be posted to me at {addr_text(r, s, P.term_addr)}?")
    if r.random() < 0.3:
        out.append(f"My date of birth is {s.p('date_of_birth', P.dob_text(r))} for security.")
    if W:
        out.append(r.choice([f"My flatmate paid {W} for hers last year.", f"I thought a new card was {W}?",
                             f"Is it still {W}?"]))
    out.append(r.choice(["How much does a replacement cost?", "What do I need to do and is there a charge?",
                         "How do I get a new one?"]))
    return out


def c_transcript_request(r, s, P, W):
    out = []
    k = r.randrange(4)
    if k == 0:
        out.append(f"I need an official transcript for a job application, the employer wants it by {a_date(r)}.")
    elif k == 1:
        out.append(f"I'm in my final year and applying for a master's in {r.choice(ABROAD)} and they want an official transcript with my marks so far.")
    elif k == 2:
        yr = r.randint(2012, 2023)
        s.alum = True
        out.append(f"I graduated in {yr} and need a copy of my transcript for a professional registration.")
        if r.random() < 0.5:
            old = f"{P.first} {r.choice(NAMES['british'][3])}"
            out.append(f"I studied under my maiden name, {s.p('person_name', old)}.")
    else:
        out.append("My new employer's HR team has asked for my transcript as part of their checks.")
    if r.random() < 0.5:
        tpf = third_party(r, title=False, full=True)
        tp = r.choice([tpf, tpf, tpf.split()[0]])
        tpe = r.choice([f"{_slug(tpf.split()[0])}.{_slug(tpf.split()[-1])}", f"{_slug(tpf.split()[0])[0]}{_slug(tpf.split()[-1])}"]) \
            + "@" + r.choice(["kestrel.example.org", "northgate-law.example.com", "hr.example.net"])
        out.append(pick(r, lambda: f"It needs to go to {s.p('third_party_name', tp)} ({s.p('email', tpe)}).",
                             lambda: f"Please send a copy to the recruiter, {s.p('third_party_name', tp)}."))
    if r.random() < 0.4:
        out.append(f"A paper copy can go to {addr_text(r, s, P.home_addr, with_town=0.7)}.")
    if r.random() < 0.4:
        out.append(pick(r, lambda: f"My DOB is {s.p('date_of_birth', P.dob_text(r))}.",
                             lambda: f"Student number was {s.p('account_number', P.sn_text(r))}."))
    if W:
        out.append(r.choice([f"The careers service said it only takes {W}.", f"Last time I was told {W}.",
                             f"I assume it's about {W}?"]))
    out.append(r.choice(["How long will it take?", "When can I expect it?", "How quickly can you do it?"]))
    return out


def c_accommodation_deposit(r, s, P, W):
    out = []
    hall = r.choice(HALLS)
    refund = r.random() < 0.45
    if not refund:
        out.append(pick(r, lambda: f"I've been offered a room in {hall} for next year and want to accept it.",
                             lambda: f"I got my accommodation offer for {hall} today (contract ref {s.p('account_number', ref(r, 'RES-25-', 5))}).",
                             lambda: f"I'm starting in September and have been given a place at {hall}."))
        if r.random() < 0.4:
            out.append(f"The rent is {money(r, 130, 210)} a week which is fine but I need to know about the deposit.")
    else:
        out.append(pick(r, lambda: f"I moved out of {addr_text(r, s, P.term_addr, with_pc=0.5)} on {a_date(r, (6, 7))} and haven't had my deposit back yet.",
                             lambda: f"I left {hall} in June and I'm still waiting for my deposit refund."))
        if r.random() < 0.6:
            if r.random() < 0.5:
                sc, acc = sortcode(r)
                out.append(f"My bank details are sort code {s.p('iban', sc)}, account {s.p('iban', acc)}.")
            else:
                out.append(f"Please refund to IBAN {s.p('iban', iban(r))}.")
        if r.random() < 0.4:
            out.append(f"They charged me {money(r, 20, 95)} for cleaning but my flatmate {s.p('third_party_name', third_party(r))} left the kitchen like that, not me.")
        if r.random() < 0.3:
            out.append(f"My contract number is {s.p('account_number', ref(r, 'RES-24-', 5))}.")
    if r.random() < 0.25:
        out.append(f"My contract page: {s.p('url_with_id', 'https://accommodation.harwick.example.com/contract/' + P.sn)}")
    if W:
        out.append(r.choice([f"The offer email said the deposit was {W}.", f"My friend paid {W} last year.",
                             f"I was told {W} at the open day."]))
    if refund:
        out.append(r.choice(["How much deposit was it and when will it come back?", "When will I get my deposit back?",
                             "Can you confirm how much deposit I paid and what's happening with it?"]))
    else:
        out.append(r.choice(["How much is the deposit?", "Can you confirm the deposit amount?",
                             "How much deposit do I need to pay?"]))
    return out


MODULES = ["ECON2041 Intermediate Microeconomics", "PSYC1010 Statistics 1", "LAW2203 Land Law", "CHEM1102 Organic Chemistry",
           "NURS1050 Anatomy and Physiology", "COMP2300 Databases", "MECH2011 Thermodynamics", "BUSM1200 Accounting Principles",
           "HIST2150 Modern Europe", "PHAR2020 Pharmacology"]


def c_resit_fee(r, s, P, W):
    out = []
    mod = r.choice(MODULES)
    out.append(r.choice([f"I failed {mod} and have been told I need to resit in August.",
                         f"My results say I have a resit for {mod}.",
                         f"I missed the {mod} exam and now have to do the resit."]))
    if r.random() < 0.6:
        out.append(pick(r, lambda: f"My personal tutor {s.p('third_party_name', third_party(r, title=True))} said I should register for it as soon as possible.",
                             lambda: "I had covid during the main exam week.",
                             lambda: f"I was working full time over Easter and just didn't revise enough, my mark was {r.randint(28, 39)}%.",
                             lambda: f"My module leader, {s.p('third_party_name', third_party(r, title=True))}, told me to contact you."))
    if r.random() < 0.4:
        out.append(id_extra(r, s, P))
    if W:
        out.append(r.choice([f"A friend said it costs {W}.", f"I was told {W} per module last year.",
                             f"Is it {W} like before?"]))
    out.append(r.choice(["How much is the resit fee?", "Is there a charge for resits?", "What does it cost to resit?"]))
    return out


def c_enrolment_deadline(r, s, P, W):
    out = []
    out.append(r.choice(["I'm waiting on my visa so I can't get to Harwick until October.",
                         "My Student Finance assessment still isn't finished so I haven't enrolled yet.",
                         "I've just changed course and MyHarwick won't let me enrol on the new one.",
                         "I've been in hospital over the summer and haven't done my online enrolment.",
                         f"I'm still in {r.choice(ABROAD)} and my flight is on {a_date(r, (9, 10))}."]))
    if r.random() < 0.3 and P.intl:
        out.append(f"My passport number is {s.p('other_id', P.passport)} in case you need it.")
    elif r.random() < 0.25:
        out.append(f"Student Finance have my NI as {s.p('national_id', P.ni_text(r))} if that helps.")
    if r.random() < 0.4:
        out.append(id_extra(r, s, P))
    if W:
        out.append(r.choice([f"Someone said enrolment closes on {W}.", f"I thought the deadline was {W}.",
                             f"My offer letter says {W}?"]))
    out.append(r.choice(["When is the last day to enrol?", "What's the deadline for enrolment?",
                         "When do I have to enrol by?"]))
    return out


CARS = ["silver Ford Fiesta", "black VW Polo", "blue Vauxhall Corsa", "red Toyota Yaris", "white Kia Picanto",
        "grey Nissan Micra", "green Honda Jazz"]


def c_parking_permit(r, s, P, W):
    out = []
    out.append(r.choice([f"I commute from {r.choice(HOME_TOWNS)[0]} three days a week and want to park on campus.",
                         "I've started a nursing placement and need to drive in for early shifts.",
                         "I'd like to apply for a student parking permit this year."]))
    out.append(pick(r, lambda: f"My car is a {r.choice(CARS)}, reg {s.p('licence_plate', P.plate_text(r))}.",
                         lambda: f"Registration: {s.p('licence_plate', P.plate_text(r))}",
                         lambda: f"the reg is {s.p('licence_plate', P.plate_text(r))}"))
    if r.random() < 0.45:
        out.append(f"I live at {addr_text(r, s, P.home_addr, with_town=0.6)}.")
    if r.random() < 0.2:
        out.append(f"I also have a blue badge, number {s.p('other_id', ref(r, 'BB', 7))}.")
    if r.random() < 0.2:
        out.append(f"Last week I got a parking charge on the {a_date(r)} for {money(r, 30, 70, pence=False)}, can that be cancelled if I buy a permit?")
    if W:
        out.append(r.choice([f"I heard it was {W}.", f"The old website said {W}.", f"My friend paid {W}."]))
    out.append(r.choice(["How much is the permit?", "What does a permit cost?", "How much will it be?"]))
    return out


def c_status_letter(r, s, P, W):
    out = []
    k = r.randrange(3)
    if k == 0:
        out.append(f"The council has sent me a council tax bill for {money(r, 900, 1900)} even though I'm a full-time student.")
        if r.random() < 0.5:
            out.append(f"The council tax account ref is {s.p('account_number', str(r.randint(60000000, 69999999)))}.")
    elif k == 1:
        out.append(f"My landlord, {s.p('third_party_name', third_party(r, title=True))}, needs proof that I'm a full-time student.")
    else:
        out.append("My bank needs a letter confirming I'm a student before they'll open a student account.")
    out.append(f"The letter needs to show my address, {addr_text(r, s, P.term_addr, with_pc=0.85)}.")
    if r.random() < 0.3:
        out.append(id_extra(r, s, P))
    if W:
        out.append(r.choice([f"I was told it takes {W}.", f"Last year it took {W}.", f"A friend said {W}."]))
    out.append(r.choice(["How long does the letter take?", "How soon can I get it?", "When will it be ready?"]))
    return out


def c_visa_letter(r, s, P, W):
    out = []
    city = r.choice(["Paris", "Berlin", "Amsterdam", "Barcelona", "Vienna", "Rome", "Prague"])
    if not P.intl:
        out.append(f"I'm on the department field trip to {r.choice(['India', 'China', 'Vietnam', 'Egypt'])} in {r.choice(MONTHS[2:6])} and need a university letter for my e-visa.")
    else:
        out.append(r.choice([f"I'm going to a conference in {city} on {a_date(r)} and need a Schengen visa, the embassy wants a letter from the university.",
                             "I'm extending my visa and need a support letter confirming my course dates.",
                             f"I want to visit my family in {city} over Easter and need a letter for the visa application."]))
    out.append(pick(r, lambda: f"My passport number is {s.p('other_id', P.passport)}.",
                         lambda: f"Passport: {s.p('other_id', P.passport)}, BRP {s.p('other_id', P.brp)}.",
                         lambda: f"I am {P.nation or 'British'}, passport no. {s.p('other_id', P.passport)}."))
    if r.random() < 0.5:
        out.append(f"Date of birth {s.p('date_of_birth', P.dob_text(r))}.")
    if r.random() < 0.35:
        out.append(f"My appointment at the visa centre is on {a_date(r)} at {r.randint(8, 15)}:{r.choice(['00', '15', '30', '45'])}.")
    if W:
        out.append(r.choice([f"The website for my embassy said the university can do it in {W}.", f"I was told {W}.",
                             f"My friend got hers in {W}."]))
    out.append(r.choice(["How long does it take to get the letter?", "Can you tell me how long it will take?"]))
    return out


def c_gown_hire(r, s, P, W):
    out = []
    out.append(r.choice([f"I'm graduating on {a_date(r, (7,))} and need to hire a gown.",
                         "I'm in the July ceremony and haven't ordered my gown yet.",
                         "Could you tell me about gown hire for graduation?"]))
    if r.random() < 0.5:
        tp = s.p('third_party_name', third_party(r))
        out.append(f"Also can my grandmother {tp} have a guest ticket, she's in a wheelchair.")
    if r.random() < 0.4:
        o = ref(r, "GW-", 6)
        out.append(pick(r, lambda: f"I started an order ({s.p('account_number', o)}) but didn't finish paying.",
                             lambda: f"My order link is {s.p('url_with_id', 'https://gowns.ashbylowe.example.net/order/' + o)}"))
    if r.random() < 0.3:
        out.append(f"I'm {r.randint(150, 195)}cm tall if that matters.")
    if r.random() < 0.2:
        out.append(f"I'll pay with my card, the one ending {s.p('card_number', P.card_text(r))}.")
    if W:
        out.append(r.choice([f"My sister paid {W} at her uni.", f"I heard it was {W}.", f"Is it still {W}?"]))
    out.append(r.choice(["How much does it cost?", "What's the price?", "How much is it to hire?"]))
    return out


def c_ec_deadline(r, s, P, W):
    out = []
    out.append(r.choice([f"I was in hospital on {a_date(r, (1, 5, 6))}, the day of my exam.",
                         "My grandad passed away the week of my deadline and I couldn't hand in my coursework.",
                         "I had covid during my exams and missed two of them."]))
    if r.random() < 0.6:
        out.append(pick(r, lambda: f"My GP, {s.p('third_party_name', third_party(r, title=True))}, can write a letter.",
                             lambda: f"I have a discharge letter from the hospital, my NHS number is {s.p('other_id', str(r.randint(400, 499)) + ' ' + str(r.randint(100, 999)) + ' ' + str(r.randint(1000, 9999)))}.",
                             lambda: f"My mum {s.p('third_party_name', third_party(r))} can confirm everything."))
    if r.random() < 0.3:
        out.append(f"The claim form is at {s.p('url_with_id', 'https://forms.harwick.example.com/ec/' + P.sn + '/draft')} but I haven't submitted it yet.")
    if r.random() < 0.4:
        out.append(id_extra(r, s, P))
    if W:
        out.append(r.choice([f"My tutor said I have {W}.", f"I thought the limit was {W}.", f"A friend said {W}."]))
    out.append(r.choice(["How long do I have to submit an extenuating circumstances claim?",
                         "What's the deadline for the EC form?", "Am I still in time to apply?"]))
    return out


CUSTOMER = {"password_reset": c_password_reset, "library_fine": c_library_fine,
            "tuition_instalments": c_tuition_instalments, "id_card_replacement": c_id_card_replacement,
            "transcript_request": c_transcript_request, "accommodation_deposit": c_accommodation_deposit,
            "resit_fee": c_resit_fee, "enrolment_deadline": c_enrolment_deadline, "parking_permit": c_parking_permit,
            "status_letter": c_status_letter, "visa_letter": c_visa_letter, "gown_hire": c_gown_hire,
            "ec_deadline": c_ec_deadline}

# ---- agent replies ----------------------------------------------------------------------------------------

EXTRAS = {
    "password_reset": [f"If the page says your account is disabled, please ring the IT Service Desk on {IT_PHONE}.",
                       "Once you're back in, set up Harwick Secure Sign-In again on your new phone under MyHarwick > Security.",
                       f"If you still have problems, e-mail {IT_MAIL} with a screenshot of the error.",
                       "Please don't share your password with anyone, including us."],
    "library_fine": ["You can pay it through HarwickPay or at the Hub desk by card.",
                     "The borrowing block lifts automatically once the balance is under £5.",
                     "You can renew loans yourself in LibrarySearch to avoid this next time."],
    "tuition_instalments": ["You'll need to add the payer's details in HarwickPay before the first payment.",
                            f"Your current balance is visible in MyHarwick at {PORTAL_URL}.",
                            "If a payment is missed we'll contact you before any sanctions are applied."],
    "id_card_replacement": ["Please bring photo ID when you collect it.",
                            "Your old card has been cancelled so nobody else can use it.",
                            "You can upload a new photo in MyHarwick before you order."],
    "transcript_request": ["You can order it in MyHarwick under Documents – the first copy is free.",
                           "Transcripts are sent as a secure digital document, so the recipient can verify it online.",
                           "For paper copies please add the postal address on the order form."],
    "accommodation_deposit": ["Deposits are paid through the Residences section of MyHarwick.",
                              "Refunds go back to the account you give us once the room inspection is done.",
                              "Any damage charges are itemised on the move-out report."],
    "resit_fee": ["Resit exams run in the August assessment period.", "You can register for resits in MyHarwick under Assessment.",
                  "Your results page lists which components you need to resit."],
    "enrolment_deadline": ["If your visa is delayed, let us know and we'll note it on your record.",
                           f"You enrol online at {PORTAL_URL}.", "You'll need to upload your photo and confirm your contact details."],
    "parking_permit": ["Permits are only issued to students living more than two miles from campus or with a blue badge.",
                       "You'll need your car's registration and a copy of your insurance when you apply.",
                       "Parking charges issued before the permit starts can't be cancelled, I'm afraid."],
    "status_letter": ["You can download it yourself from MyHarwick > Documents > Student status letter.",
                      "The letter shows the term-time address we hold, so please check it's up to date first.",
                      "Council tax letters are also sent to the council automatically each October."],
    "visa_letter": ["Please request it through the International Student Advice page in MyHarwick.",
                    "Make sure your passport details in MyHarwick match your current passport.",
                    "The letter confirms your course dates and attendance."],
    "gown_hire": ["Orders close four weeks before your ceremony.", "Guest tickets are released through MyHarwick in May.",
                  "You collect the gown on the day from the robing room in the Great Hall."],
    "ec_deadline": ["You submit the claim through MyHarwick under Assessment > Extenuating Circumstances.",
                    "Evidence can follow later if you mark it as 'to follow' on the form.",
                    "The panel meets after each assessment period and you'll get an email with the outcome."],
}

ASK = {
    "password_reset": ["Before we go any further we need to verify you – could you reply with your date of birth and student number?",
                       "Can you tell me exactly what error message you see when you try to log in?"],
    "library_fine": ["Could you send me your library card number so I can look at the loans on your account?",
                     "Which item is it about? I can see a few loans on your record."],
    "tuition_instalments": ["Could you confirm whether you are funded by Student Finance or self-funding this year?",
                            "Can you send your student number so I can check how your fees are assessed?"],
    "id_card_replacement": ["Could you let me know whether the card was lost or stolen?",
                            "Can you confirm your student number so I can find your card record?"],
    "transcript_request": ["Could you confirm whether you need a paper or a digital transcript?",
                           "Can you send me your date of birth and the year you graduated so I can find your record?"],
    "accommodation_deposit": ["Could you send your contract number so I can check your account?",
                              "Which hall and room were you in? I can't find your booking under that name."],
    "resit_fee": ["Could you tell me which module code the resit is for?", "Can you confirm your student number so I can look at your results?"],
    "enrolment_deadline": ["Could you confirm which course you're now on so I can check the enrolment record?",
                           "Can you send your student number so I can look at why the enrolment is blocked?"],
    "parking_permit": ["Could you send your home postcode so I can check whether you're eligible?",
                       "Can you confirm whether you'll be parking at the main campus or the health campus?"],
    "status_letter": ["Could you confirm which address the letter should show?",
                      "Can you let me know whether it's for the council, a landlord or a bank?"],
    "visa_letter": ["Could you send the dates of your trip and the country you're applying to?",
                    "Can you upload a copy of your passport photo page to MyHarwick first?"],
    "gown_hire": ["Could you tell me which ceremony you're booked into?", "Can you send your order number so I can look it up?"],
    "ec_deadline": ["Could you tell me which assessments were affected?", "Can you confirm the date of the exam you missed?"],
}


def pick_form(r: random.Random, t: dict) -> str:
    return r.choices(t["forms"], t["fw"])[0]


def agent_reply(r, s: Seg, P: Person, t: dict, agent: tuple, team: str, W, stated: bool, chat: bool):
    """Agent sentences (greeting separate), and signature."""
    first, last = agent
    tid = t["id"]
    body = []
    if r.random() < 0.35 and not chat:
        body.append(pick(r, lambda: f"My name is {s.p('agent_name', first)} and I work in the {TEAM_NAME[team]}.",
                              lambda: f"{s.p('agent_name', first)} here from the {TEAM_NAME[team]}.",
                              lambda: f"I'm {s.p('agent_name', first + ' ' + last)}, {ROLE[team]}."))
    if r.random() < 0.5:
        opts = ["Thanks for your message.", "Thank you for contacting the Student Hub.", "Thanks for getting in touch."]
        if tid in ("password_reset", "library_fine", "id_card_replacement", "ec_deadline", "resit_fee"):
            opts += ["Sorry to hear about this.", "Thanks for explaining what happened."]
        body.append(r.choice(opts))
    if stated:
        if W:
            body.append(r.choice(CORRECT).format(W=W))
        body.append(r.choice(t["say"]).format(F=pick_form(r, t)))
        if r.random() < 0.25 and not W:
            # restated in a second paraphrase, as some agents do
            body.append(r.choice(["So, to recap: {F}.", "In short: {F}."]).format(F=pick_form(r, t)))
    else:
        body.append(r.choice(ASK[tid]))
        body.append(r.choice(["Once I have that I can give you a proper answer.", "I'll come back to you as soon as I hear back.",
                              "Then I can look into it properly."]))
    for e in r.sample(EXTRAS[tid], k=r.choice([0, 1, 1, 2])):
        body.append(e)
    if r.random() < 0.3:
        body.append(f"I've logged this under case reference {s.p('account_number', ref(r, 'HUB-', 6))}.")
    if r.random() < 0.15:
        body.append(f"I've had a look at the record for {s.p('account_number', P.sn)}.")
    if r.random() < 0.5:
        body.append(r.choice(["Hope that helps!", "Let us know if there's anything else.", "Any other questions, just reply to this email.",
                              "Good luck!", "Take care."]))
    return body


def agent_greet(r, s: Seg, P: Person) -> str:
    k = r.randrange(6)
    if k == 0:
        return f"Hi {s.p('person_name', P.first)},"
    if k == 1:
        return f"Dear {s.p('person_name', P.title + ' ' + P.last)},"
    if k == 2:
        return f"Dear {s.p('person_name', P.first)},"
    if k == 3:
        return f"Hello {s.p('person_name', P.first)},"
    if k == 4:
        return "Hi there,"
    return "Hello,"


def signature(r, s: Seg, agent: tuple, team: str) -> str:
    first, last = agent
    phone = IT_PHONE if team == "it" else HUB_PHONE
    mail = IT_MAIL if team == "it" else HUB_MAIL
    k = r.randrange(8)
    if k == 0:
        return f"Kind regards,\n{s.p('agent_name', first + ' ' + last)}\n{TEAM_NAME[team]} | {ORG}"
    if k == 1:
        return f"Best wishes,\n{s.p('agent_name', first)}\n{HUB}, {ORG}\n{phone} | {WEB}"
    if k == 2:
        return f"Thanks,\n{s.p('agent_name', first + ' ' + last[0] + '.')}\n{TEAM_NAME[team]}"
    if k == 3:
        return f"Regards,\n{s.p('agent_name', first + ' ' + last)}, {ROLE[team]}\n{ORG}\n{mail}"
    if k == 4:
        return f"{s.p('agent_name', first)} ({TEAM_NAME[team]})"
    if k == 5:
        return f"Many thanks\n{s.p('agent_name', first)}\n{ORG} {HUB} – {WEB}"
    if k == 6:
        return f"— {s.p('agent_name', first)}"
    return f"Kind regards\n{s.p('agent_name', first + ' ' + last)}\n{TEAM_NAME[team]}\nT: {phone}  E: {mail}"


SUBJECTS = {
    "password_reset": ["Locked out", "can't log in!!", "Password reset", "Account locked", "Login problem - urgent",
                       "new phone, can't sign in"],
    "library_fine": ["Library fine", "Overdue book fine", "library account blocked", "Fine query", "fines??"],
    "tuition_instalments": ["Paying fees in instalments", "Tuition fee payment plan", "Fees", "instalments query"],
    "id_card_replacement": ["Lost ID card", "Replacement student card", "Card stolen", "New Harwick Card"],
    "transcript_request": ["Transcript request", "Official transcript", "Need transcript urgently", "transcript"],
    "accommodation_deposit": ["Accommodation deposit", "Deposit refund", "Hall deposit query", "deposit?"],
    "resit_fee": ["Resit fee", "Resit in August", "Resit query", "failed module"],
    "enrolment_deadline": ["Enrolment deadline", "Late enrolment", "When do I need to enrol", "enrolment"],
    "parking_permit": ["Parking permit", "Student parking", "Car park permit application"],
    "status_letter": ["Council tax letter", "Proof of student status", "Student status letter needed"],
    "visa_letter": ["Visa support letter", "Letter for visa application", "Schengen visa letter"],
    "gown_hire": ["Graduation gown", "Gown hire", "Graduation - gown and tickets"],
    "ec_deadline": ["Extenuating circumstances", "EC claim deadline", "Missed exam"],
}
CATEGORY = {"password_reset": "IT & Accounts", "library_fine": "Library", "tuition_instalments": "Fees & Funding",
            "id_card_replacement": "ID Cards", "transcript_request": "Documents", "accommodation_deposit": "Accommodation",
            "resit_fee": "Exams & Assessment", "enrolment_deadline": "Enrolment", "parking_permit": "Parking & Travel",
            "status_letter": "Documents", "visa_letter": "International", "gown_hire": "Graduation",
            "ec_deadline": "Exams & Assessment"}


def _typo(text: str, r: random.Random) -> str:
    for w, t in TYPOS.items():
        if r.random() < 0.35:
            text = re.sub(rf"(?<![\w./@:'-]){w}(?![\w@/'-]|\.\w)", t, text, count=1)
    return text


TYPE_MONTHS = {"enrolment_deadline": (7, 8, 9, 9, 9, 10), "gown_hire": (4, 5, 6, 6, 7), "resit_fee": (6, 6, 7, 7, 8),
               "ec_deadline": (1, 1, 5, 6, 6), "accommodation_deposit": (3, 4, 5, 6, 7, 7, 8, 9),
               "parking_permit": (8, 9, 9, 10, 11), "status_letter": (9, 10, 10, 11, 12, 1),
               "tuition_instalments": (8, 9, 9, 10, 11, 1)}


def stamp(r: random.Random, tid: str = "") -> tuple[str, int, int]:
    m = r.choice(TYPE_MONTHS.get(tid, (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)))
    d = r.randint(1, 28)
    y = 2024 if m >= 8 else 2025
    return f"{d:02d}/{m:02d}/{y}", r.randint(8, 18), r.randint(0, 59)


def build_record(r: random.Random, P: Person, t: dict, W, stated: bool):
    tid = t["id"]
    team = t["team"] if r.random() < 0.7 else "hub"
    agent = r.choice(AGENTS[team])
    fmt = r.choices(["email", "form", "chat", "desk", "phone"], [34, 24, 22, 10, 10])[0]
    lower = fmt in ("chat", "form") and r.random() < 0.3
    typo = r.random() < 0.3

    cs = Seg()  # customer message
    msg = []
    body = CUSTOMER[tid](r, cs, P, W)
    if r.random() < 0.55 and not getattr(cs, "alum", False):
        msg.append(who_am_i(r, cs, P))
    if W and r.random() < 0.3:
        # a generic misquote phrasing instead of the type's one
        body = [x for x in body if W not in x]
        body.insert(len(body) - 1, r.choice(MIS_LEAD).format(W=W))
    msg.extend(body)
    if r.random() < 0.35:
        msg.append(id_extra(r, cs, P))
    if lower:
        msg = [m.lower() for m in msg]
        cs.items = [(k, v.lower()) for k, v in cs.items]
    if typo:
        msg = [_typo(m, r) for m in msg]

    ag = Seg()
    reply = agent_reply(r, ag, P, t, agent, team, W, stated, chat=(fmt == "chat"))
    hs = Seg()  # headers, sign-offs and follow-ups
    date, hh, mm = stamp(r, tid)

    if fmt == "email":
        sender = hs.p("email", P.email_text(r))
        subj = r.choice(SUBJECTS[tid])
        g = greeting(r)
        cust = (g + "\n\n" if g else "") + " ".join(msg) + "\n\n" + cust_signoff(r, hs, P)
        rep = agent_greet(r, ag, P) + "\n\n" + " ".join(reply) + "\n\n" + signature(r, ag, agent, team)
        if r.random() < 0.5:
            text = (f"From: {sender}\nTo: {HUB_MAIL}\nDate: {date} {hh:02d}:{mm:02d}\nSubject: {subj}\n\n{cust}\n\n"
                    f"----- Reply -----\nFrom: {HUB_MAIL}\nSubject: RE: {subj}\n\n{rep}")
        else:
            quoted = "\n".join("> " + line for line in cust.split("\n"))
            text = (f"Subject: RE: {subj}\nTo: {sender}\n\n{rep}\n\n"
                    f"On {date} at {hh:02d}:{mm:02d}, {hs.p('person_name', P.full)} <{sender}> wrote:\n{quoted}")
        if r.random() < 0.2:
            text += "\n\n" + pick(r, lambda: f"Follow-up from student: Thanks {hs.p('agent_name', agent[0])}, that's really helpful!",
                                       lambda: f"Student replied: sorted now, thank you {hs.p('agent_name', agent[0])}.",
                                       lambda: "Student replied: thanks, will do.")
    elif fmt == "form":
        head = [f"Enquiry #{r.randint(100000, 999999)} | Category: {CATEGORY[tid]} | Submitted: {date} {hh:02d}:{mm:02d}"]
        head.append(f"Name: {hs.p('person_name', r.choice([P.full, P.full, P.last.upper() + ', ' + P.first, P.full.lower()]))}")
        if r.random() < 0.8:
            head.append(f"Student number: {hs.p('account_number', P.sn_text(r))}")
        if r.random() < 0.6:
            head.append(f"Email: {hs.p('email', P.email_text(r))}")
        if r.random() < 0.35:
            head.append(f"Phone: {hs.p('phone', P.phone_text(r))}")
        if r.random() < 0.2:
            head.append(f"Date of birth: {hs.p('date_of_birth', P.dob_text(r))}")
        rep = agent_greet(r, ag, P) + " " + " ".join(reply) + "\n" + signature(r, ag, agent, team)
        text = "\n".join(head) + "\nMessage:\n" + " ".join(msg) + \
            f"\n\nResponse ({hs.p('agent_name', agent[0] + ' ' + agent[1][0] + '.')}, {TEAM_NAME[team]}):\n" + rep
    elif fmt == "chat":
        label = r.choice(["Student", "Visitor", P.first])
        if label == P.first:
            hs.p("person_name", P.first)
        alabel = r.choice([f"{agent[0]} (Student Hub)", f"{agent[0]}", f"Agent {agent[1]}"])
        hs.p("agent_name", alabel.split(" (")[0])
        lines = [f"[{hh:02d}:{mm:02d}] System: Chat started – {ORG} {HUB} live chat",
                 f"[{hh:02d}:{mm:02d}] System: You are now chatting with {hs.p('agent_name', agent[0])}"]
        t0 = mm
        g = r.choice(["hi", "hello", "Hi", "hiya", "hey there", "Hello, are you there?"])
        lines.append(f"[{hh:02d}:{t0:02d}] {label}: {g}")
        lines.append(f"[{hh:02d}:{t0:02d}] {alabel}: {agent_greet(r, ag, P)} how can I help today?")
        for i in range(0, len(msg), 2):
            t0 = min(59, t0 + 1)
            lines.append(f"[{hh:02d}:{t0:02d}] {label}: " + " ".join(msg[i:i + 2]))
        for i in range(0, len(reply), 2):
            t0 = min(59, t0 + 1)
            lines.append(f"[{hh:02d}:{t0:02d}] {alabel}: " + " ".join(reply[i:i + 2]))
        t0 = min(59, t0 + 1)
        lines.append(f"[{hh:02d}:{t0:02d}] {label}: " + r.choice(["ok thanks", "thank you!", "great, thanks for your help",
                                                                   "cheers", "ok will do"]))
        if r.random() < 0.5:
            lines.append(f"[{hh:02d}:{t0:02d}] {alabel}: " + r.choice(["You're welcome, have a good day!",
                                                                       "No problem at all. Bye for now.",
                                                                       f"Thanks for chatting with the {HUB}."]))
        text = "\n".join(lines)
    elif fmt == "desk":
        ini = f"{agent[0][0]}{agent[1][0]}"
        who = hs.p("person_name", r.choice([P.full, P.full, f"{P.title} {P.last}", P.first]))
        head = f"{HUB} desk log – {date} {hh:02d}:{mm:02d} – walk-in\nStudent: {who}"
        if r.random() < 0.8:
            head += f" ({hs.p('account_number', P.sn_text(r))})"
        if r.random() < 0.3:
            head += f", ID checked, DOB {hs.p('date_of_birth', P.dob_text(r))}"
        note = " ".join(msg)
        adv = " ".join(reply)
        text = f"{head}\nStudent said: \"{note}\"\nAdvised: {adv}\n– {hs.p('agent_name', r.choice([agent[0], ini, agent[0] + ' ' + agent[1]]))}"
    else:
        dur = f"{r.randint(2, 14)}m {r.randint(0, 59):02d}s"
        who = hs.p("person_name", r.choice([P.full, P.full, f"{P.title} {P.last}"]))
        head = f"Call log | inbound | {date} {hh:02d}:{mm:02d} | duration {dur}\nCaller: {who}"
        if r.random() < 0.7:
            head += f", student no. {hs.p('account_number', P.sn_text(r))}"
        if r.random() < 0.5:
            head += f", callback {hs.p('phone', P.phone_text(r))}"
        if r.random() < 0.4:
            head += f", DOB verified ({hs.p('date_of_birth', P.dob_text(r))})"
        text = (f"{head}\nCaller says: " + " ".join(msg) + "\nAgent response: " + " ".join(reply) +
                f"\nHandled by: {hs.p('agent_name', r.choice([agent[0] + ' ' + agent[1], agent[0], agent[1]]))} "
                f"({TEAM_NAME[team]})")
    items = []
    seen = set()
    for k, v in cs.items + ag.items + hs.items:
        if (k, v) not in seen:
            seen.add((k, v))
            items.append({"kind": k, "text": v})
    return text, items


# ----------------------------------------------------------------------------------------------------------
# Collection
# ----------------------------------------------------------------------------------------------------------

def _counts(r: random.Random, n: int) -> list[int]:
    w = [t["weight"] * r.uniform(0.9, 1.1) for t in TYPES]
    total = sum(w)
    raw = [x * n / total for x in w]
    c = [int(x) for x in raw]
    rest = sorted(range(len(c)), key=lambda i: raw[i] - c[i], reverse=True)
    for i in rest[: n - sum(c)]:
        c[i] += 1
    for i in range(len(c)):  # every type at least 2 records
        while c[i] < 2:
            j = max(range(len(c)), key=lambda x: c[x])
            c[j] -= 1
            c[i] += 1
    return c


def _words(text: str) -> int:
    return len(text.split())


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    r = random.Random(f"university-{seed}-{n}")
    counts = _counts(r, n)
    labels = []
    for t, c in zip(TYPES, counts):
        labels += [t["id"]] * c
    r.shuffle(labels)
    by_id = {t["id"]: t for t in TYPES}

    # misquotes (~10%) and unstated replies (~7%), per type
    plan = {}
    for t, c in zip(TYPES, counts):
        idx = list(range(c))
        r.shuffle(idx)
        nm = max(0, round(c * r.uniform(0.07, 0.13)))
        if c >= 8 and nm == 0:
            nm = 1
        nu = round((c - nm) * r.uniform(0.04, 0.10))
        plan[t["id"]] = {"mis": set(idx[:nm]), "unstated": set(idx[nm:nm + nu]), "seen": 0}

    # students: 1-3 records each
    persons: list[Person] = []
    owners: list[Person] = []
    while len(owners) < n:
        P = Person(r, f"stu-{len(persons) + 1:05d}")
        persons.append(P)
        k = r.choices([1, 2, 3], [64, 26, 10])[0]
        owners += [P] * k
    owners = owners[:n]
    r.shuffle(owners)

    records, pii = [], []
    stated_by = {t["id"]: 0 for t in TYPES}
    mis_by = {t["id"]: 0 for t in TYPES}
    for i, (tid, P) in enumerate(zip(labels, owners)):
        t = by_id[tid]
        pl = plan[tid]
        j = pl["seen"]
        pl["seen"] += 1
        W = r.choice(t["wrong"]) if j in pl["mis"] else None
        stated = j not in pl["unstated"]
        for attempt in range(200):
            text, items = build_record(r, P, t, W, stated)
            if not 50 <= _words(text) <= 250:
                continue
            if any(it["text"] not in text for it in items):
                continue
            own = any(holds(text, f) for f in t["forms"])
            if own != stated:
                continue
            if any(holds(text, f) for tt, f in ALL_FORMS if tt != tid):
                continue
            break
        else:
            raise RuntimeError(f"could not build a record of type {tid}")
        rid = f"uni-{i + 1:05d}"
        records.append({"id": rid, "text": text, "person_id": P.pid, "type": tid,
                        "student_name": P.full, "student_number": P.sn, "email": P.uni_email,
                        "phone": P.phone_canonical(),
                        "date_of_birth": f"{P.dob[0]}-{P.dob[1]:02d}-{P.dob[2]:02d}"})
        pii.append({"id": rid, "pii": items})
        stated_by[tid] += int(stated)
        mis_by[tid] += int(W is not None)

    types = []
    for t, c in sorted(zip(TYPES, counts), key=lambda x: -x[1]):
        types.append({"id": t["id"], "records": c, "fact": t["fact"], "forms": list(t["forms"]),
                      "stated_by": stated_by[t["id"]], "misquoted_by": mis_by[t["id"]]})
    questions = []
    for t, c in zip(TYPES, counts):
        for q in t["questions"]:
            questions.append({"question": q, "answers": list(t["forms"]), "type": t["id"], "support": c})
    public = {"company": ORG, "public_strings": list(PUBLIC_STRINGS), "product_names": list(PRODUCTS),
              "identifier_fields": list(IDENTIFIER_FIELDS), "id_field": "id", "text_field": "text",
              "unit_field": "person_id"}
    return {"domain": "university", "records": records, "pii": pii, "types": types, "questions": questions,
            "public": public}
