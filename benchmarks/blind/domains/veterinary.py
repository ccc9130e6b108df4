"""Blind own-data domain: **veterinary**.

The client-support export of *Brambleway Vets*, an invented chain of veterinary practices in West and
North Yorkshire: e-mail threads, live-chat logs, phone call notes, website enquiry forms and social-media
messages about boosters, consultation fees, out-of-hours emergencies, the Care Plan, microchipping, repeat
prescriptions, neutering, insurance claim forms, records transfers, puppy/kitten vaccinations, dentals and
pet travel certificates.

Standard library only; ``generate(seed, n)`` is deterministic in ``(seed, n)``.  All personal values are
made up (reserved phone ranges, ``example.*`` domains, invented names and numbers).
"""

from __future__ import annotations

import random
import re
import unicodedata

__all__ = ["generate"]

COMPANY = "Brambleway Vets"
OOH = "0800 158 3390"
WEB = "www.brambleway.example.com"
CARE = "care@brambleway.example.com"
RECORDS = "records@brambleway.example.com"
PUBLIC_STRINGS = [COMPANY, OOH, WEB, CARE, RECORDS]
PRODUCTS = ["Brambleway Care Plan", "Care Plan Plus", "VetLine 24", "MyBrambleway", "Brambleway Repeat Rx",
            "PawPost", "Puppy & Kitten Starter Pack", "SmileBright Dental", "Senior Pet Check"]
BRANCHES = ["Headingley", "Horsforth", "Roundhay", "Otley", "Harrogate", "Wetherby", "Ilkley", "Chapel Allerton"]
BRANCH_W = [22, 16, 14, 10, 12, 8, 6, 12]
IDENTIFIER_FIELDS = ["customer_name", "email", "phone", "client_number", "address", "microchip_number"]

# --------------------------------------------------------------------------------------------- names

FIRST_F = ["Rose", "Hope", "May", "Grace", "Faith", "Joy", "Summer", "April", "June", "Dawn", "Iris", "Ivy",
           "Holly", "Hazel", "Ruby", "Pearl", "Amber", "Jade", "Heather", "Olive", "Aisha", "Fatima", "Zainab",
           "Ngozi", "Ama", "Abena", "Thandiwe", "Priyanka", "Deepa", "Sunita", "Harpreet", "Mei", "Yuki", "Siobhan",
           "Rhiannon", "Magdalena", "Agnieszka", "Kasia", "Giulia", "Sofia", "Lucia", "Ioana", "Elif", "Eleni",
           "Ingrid", "Astrid", "Camille", "Hannah", "Emily", "Chloe", "Sarah", "Rebecca", "Karen", "Julie",
           "Claire", "Nicola", "Gemma", "Leanne", "Kerry", "Bethany", "Megan", "Niamh", "Aoife", "Catriona",
           "Morag", "Shabnam", "Nadia", "Leila", "Yasmin", "Chiamaka", "Folasade", "Marisol", "Ana", "Beatriz",
           "Svetlana", "Olena", "Hyun-woo", "Lan", "Thi", "Jolanta", "Paulina", "Margaret", "Pauline", "Sandra",
           "Lorraine", "Tracey", "Denise", "Jean", "Brenda", "Wendy", "Lily", "Poppy Jane", "Esme", "Freya"]
FIRST_M = ["Mark", "Will", "Frank", "Robin", "Glen", "Dean", "Rich", "Grant", "Miles", "Jack", "Oliver",
           "Callum", "Ewan", "Dafydd", "Ciaran", "Sean", "Liam", "Tomasz", "Bogdan", "Marco", "Mateo", "Ahmed",
           "Omar", "Yusuf", "Imran", "Tariq", "Chidi", "Oluwaseun", "Kwame", "Kofi", "Sipho", "Anil", "Rajesh",
           "Sanjay", "Gurpreet", "Wei", "Hiroshi", "Minh", "Mehmet", "Nikos", "Lars", "Sven", "Pierre", "Jamie",
           "Craig", "Darren", "Gary", "Steve", "Paul", "Keith", "Derek", "Graham", "Neil", "Alan", "Ian",
           "Stuart", "Ryan", "Connor", "Kieran", "Lewis", "Aaron", "Luke", "Joel", "Nathan", "Hamza", "Bilal",
           "Arjun", "Vikram", "Dmitri", "Andrzej", "Piotr", "Jakub", "Florin", "Emeka", "Tunde", "Kenji",
           "Duncan", "Hamish", "Angus", "Rory", "Gareth", "Owen", "Huw", "Terry", "Barry", "Clive"]
LAST = ["Green", "Brown", "Rose", "Hope", "May", "Mark", "Field", "Church", "King", "Bird", "Fox", "Hill",
        "Wood", "Baker", "Cook", "Mason", "Shepherd", "Lamb", "Bell", "Moss", "Frost", "Little", "Young", "Small",
        "Sharp", "Best", "Gold", "Winter", "Summers", "Day", "Black", "White", "Love", "Hunt", "Marsh", "Lane",
        "Hall", "Page", "Read", "Wise", "Swan", "Crane", "Brook", "Flowers", "Street", "Parsons", "Knight",
        "Okafor", "Adeyemi", "Mensah", "Asante", "Okonkwo", "Nwosu", "Patel", "Shah", "Khan", "Hussain", "Begum",
        "Chaudhry", "Iqbal", "Chen", "Wong", "Nguyen", "Tran", "Tanaka", "Sato", "Kim", "Park", "Kowalski",
        "Nowak", "Wiśniewska", "Popescu", "Yilmaz", "Demir", "Papadopoulos", "Rossi", "Esposito", "Garcia",
        "Fernandez", "Silva", "Murphy", "O'Brien", "Kelly", "MacLeod", "McAllister", "Jones", "Davies", "Evans",
        "Williams", "Smith", "Taylor", "Ahmed", "Ali", "Singh", "Kaur", "Gill", "Sandhu", "Dhillon", "Horvath",
        "Andersson", "Larsen", "Dubois", "Moreau", "Schmidt", "Becker", "Ivanova", "Kovalenko", "Haddad",
        "Mansour", "Farah", "Abdi", "Mwangi", "Dlamini", "Ndlovu", "Pereira", "Costa", "Sutcliffe",
        "Ackroyd", "Holroyd", "Pickles", "Greenwood", "Ramsden", "Threlfall", "Whiteley", "Booth", "Hirst"]
AGENTS = [("Priya", "Sandhu"), ("Tom", "Bright"), ("Hannah", "Field"), ("Marcus", "Obi"), ("Chloe", "Rivers"),
          ("Ewan", "Mackay"), ("Sophie", "King"), ("Jamal", "Hart"), ("Lucy", "May"), ("Rhys", "Morgan"),
          ("Agnieszka", "Nowicka"), ("Daniel", "Church"), ("Bethany", "Hope"), ("Kofi", "Boateng"),
          ("Fiona", "Brown"), ("Leon", "Fox")]
AGENT_W = [18, 15, 13, 11, 10, 9, 8, 7, 6, 6, 5, 4, 4, 3, 2, 2]

PET_NAMES = ["Milo", "Bella", "Luna", "Biscuit", "Alfie", "Poppy", "Teddy", "Daisy", "Bear", "Willow", "Nala",
             "Simba", "Oscar", "Pepper", "Maisie", "Coco", "Archie", "Rosie", "Buster", "Ziggy", "Mochi", "Tilly",
             "Smudge", "Marmite", "Pickle", "Dexter", "Bonnie", "Hugo", "Loki", "Peanut", "Toffee", "Pudding",
             "Bramble", "Winnie", "Otis", "Reggie", "Bluebell", "Fudge", "Nacho", "Kiwi", "Sooty", "Tigger",
             "Scout", "Bruno", "Rolo", "Mabel", "Cookie", "Pixel", "Dotty", "Gizmo", "Stanley", "Percy",
             "Nutmeg", "Basil", "Misty", "Shadow", "Juno", "Cleo", "Frankie", "Wilf"]
SPECIES = {
    "dog": ["labrador", "cockapoo", "springer spaniel", "border collie", "French bulldog", "Staffie",
            "Jack Russell", "dachshund", "golden retriever", "whippet", "rescue greyhound", "cavapoo",
            "Yorkshire terrier", "German shepherd", "Shih Tzu", "beagle"],
    "cat": ["moggy", "British shorthair", "ragdoll", "Bengal", "Maine Coon", "tabby", "Siamese", "black and white cat"],
    "rabbit": ["lop-eared rabbit", "Netherland dwarf", "lionhead rabbit"],
}
DRUGS = ["meloxicam", "carprofen", "gabapentin", "levothyroxine", "pimobendan", "methimazole", "amlodipine",
         "phenobarbital", "prednisolone", "furosemide", "benazepril", "oclacitinib"]
INSURERS = ["PetShield", "Tailwise Insurance", "Hound & Home Cover", "FurstClass Pet Insurance", "Paws Direct"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
MON3 = [m[:3] for m in MONTHS]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
TOWNS2 = ["York", "Sheffield", "Manchester", "Newcastle", "Hull", "Scarborough", "Lancaster", "Skipton",
          "Doncaster", "Durham", "Bristol", "Nottingham"]

AREAS = {  # branch -> (town label, postcode districts)
    "Headingley": ("Leeds", ["LS6", "LS4", "LS16"]),
    "Horsforth": ("Leeds", ["LS18", "LS19", "LS5"]),
    "Roundhay": ("Leeds", ["LS8", "LS17", "LS7"]),
    "Otley": ("Otley", ["LS21"]),
    "Harrogate": ("Harrogate", ["HG1", "HG2", "HG3"]),
    "Wetherby": ("Wetherby", ["LS22", "LS23"]),
    "Ilkley": ("Ilkley", ["LS29"]),
    "Chapel Allerton": ("Leeds", ["LS7", "LS17"]),
}
STREET_NAMES = ["Elm", "Marlow", "Victoria", "Cardigan", "Station", "Church", "Mill", "Park", "Moor", "Ash",
                "Beech", "Spring", "Cliff", "Chapel", "Queen's", "Ridge", "Otley Old", "Bank", "Cross", "Meadow",
                "Oakwood", "Stainburn", "Harrogate", "Wetherby", "Grove", "St Michael's", "Kirkstall", "Brudenell",
                "Ash Tree", "Lidgett", "Kings", "Valley", "Wharfe", "Hawthorn", "Rawson", "Nunroyd", "Tinshill"]
STREET_TYPES = [("Road", ["Rd", "rd", "road"]), ("Street", ["St", "st"]), ("Lane", ["Ln", "lane"]),
                ("Avenue", ["Ave", "ave"]), ("Close", ["Cl", "close"]), ("Crescent", ["Cres", "cres"]),
                ("Drive", ["Dr", "drive"]), ("Terrace", ["Terr", "terrace"]), ("Court", ["Ct", "court"]),
                ("Mount", ["Mt", "mount"]), ("Gardens", ["Gdns", "gardens"]), ("View", ["view"]), ("Way", ["way"])]
TYPELESS = ["Kingsway", "Broadway", "Parkside", "Northgate", "Highfield", "The Crescent", "Moorlands",
            "Westfield", "The Green", "Lawnswood", "Eastgate", "The Paddocks", "Sandmoor", "Woodlands"]
HOUSE_NAMES = ["Rose Cottage", "The Willows", "Hill Top Farm", "Holly House", "Bramble Barn", "The Old Forge",
               "Ivy Cottage", "Laurel Bank"]

# ---------------------------------------------------------------------------------------- the types
# Agents' fact sentences use {F}; customers' misquotes use {W}.  Customers never state the right fact.

TYPES = [
    {
        "id": "booster_price", "w": 80, "fact": "£58",
        "forms": ["£58", "58 pounds", "GBP 58", "fifty-eight pounds", "£58.00"],
        "say": [("£58", 10), ("58 pounds", 2), ("GBP 58", 1), ("fifty-eight pounds", 2), ("£58.00", 2)],
        "wrong": ["£45", "£48", "£52", "£65", "forty pounds", "£39.99"],
        "species": ["dog", "dog", "dog", "cat", "cat", "rabbit"],
        "subjects": ["Booster price", "booster jab cost?", "Vaccination reminder", "Annual vaccinations - how much?",
                     "{pet}'s booster is due", "Question about booster", "price check - booster"],
        "stories": [
            "We got the reminder text that {pet}'s booster is due next month.",
            "{pet} is a {breed} we adopted from a rescue last year and {his} vaccinations are about to run out.",
            "Our {species} {pet} has missed {his} booster by a few weeks because we were away in {month}.",
            "I'm trying to budget for this month and {pet}'s annual jabs are coming up.",
            "We've just moved to the area and registered with your {branch} practice.",
            "My mum usually takes {pet} for {his} injections but she's in hospital at the moment so it's down to me.",
            "The booster card on our fridge says {pet} is due on the {dom}.",
            "{pet} goes to kennels in {month} and they need proof {he}'s up to date with vaccinations.",
        ],
        "asks": ["How much is the annual booster?", "Can you tell me what the booster costs please?",
                 "what do you charge for a yearly booster for a {species}?",
                 "Could you let me know the price of the booster before I book?",
                 "How much will {pet}'s booster be?", "is the booster price the same for cats and dogs?"],
        "mis": ["Reception told me on the phone it was {W}, is that still right?", "Last year I'm sure I paid {W}.",
                "Your leaflet says {W} I think?", "A friend who uses your {branch} branch said it's {W}."],
        "replies": [
            "A standard annual booster is {F}, and that includes a full nose-to-tail health check with the vet.",
            "The yearly booster for {pet} would be {F}, which covers the vaccine and the examination.",
            "Our booster price is {F} at all of our practices, for dogs, cats and rabbits alike.",
            "Boosters are {F} each, and the vet gives {pet} a proper check-over at the same appointment.",
        ],
        "extras": ["If {pet} is on the Brambleway Care Plan the booster is included at no extra cost.",
                   "If a booster has lapsed by more than three months the vet may recommend restarting the course.",
                   "You can book straight into the diary through the MyBrambleway app.",
                   "The kennel cough vaccine is optional and charged separately.",
                   "We'll update {pet}'s vaccination card on the day so you have it for the kennels."],
        "ask_more": [
            "So I can give you the right figure, could you confirm whether {pet} has had {his} boosters with us "
            "before and roughly when the last one was? If the course has lapsed the vet may need to restart it.",
            "Could you let me know which of our practices {pet} is registered at? I can't find {him} under your "
            "details and I'd like to check {his} vaccination history before quoting.",
        ],
        "topic": "the price of {pet}'s annual booster",
        "notes": ["Advised annual booster is {F} incl. health check with vet.", "Booster price confirmed: {F}.",
                  "Told caller the booster is {F}, same at all branches.",
                  "Gave booster price ({F}), includes vet exam."],
        "questions": ["How much does an annual booster vaccination cost for my dog?",
                      "What do you charge for a cat's yearly booster jab?",
                      "What's the price of the annual vaccination at your practices?"],
    },
    {
        "id": "ooh_emergency", "w": 62, "fact": OOH,
        "forms": [OOH, "0800 1583390", "08001583390"],
        "say": [(OOH, 12), ("0800 1583390", 2), ("08001583390", 1)],
        "wrong": ["0800 158 3309", "0800 185 3390", "0800 158 3930", "0808 158 3390"],
        "species": ["dog", "dog", "dog", "cat", "cat", "rabbit"],
        "subjects": ["Emergency number?", "URGENT - out of hours", "who do we call at night",
                     "Weekend emergencies", "Couldn't get through last night", "out of hours vet"],
        "stories": [
            "Last night {pet} got into the bin and ate a load of chicken bones and we didn't know who to call.",
            "On Saturday evening {pet} was being sick over and over and the {branch} surgery was closed.",
            "{pet} cut {his} paw badly on a broken bottle at about 11pm on Sunday.",
            "Our {species} {pet} ate some raisins off the kitchen table while we were out.",
            "I rang the normal practice number at 9pm and just got the answerphone, which was really stressful.",
            "We're new to Brambleway Vets and I want the emergency number saved before Bonfire Night.",
            "My neighbour {tp} found {pet} limping in the road late on Friday and couldn't reach anyone.",
            "{pet} had a seizure in the early hours on {day} and we ended up driving round trying to find a vet.",
        ],
        "asks": ["What number are we supposed to ring out of hours?", "Is there an emergency line for nights and weekends?",
                 "who do i call if something happens when youre closed??",
                 "Can you send me the out-of-hours number so I have it for next time?",
                 "What's the number for the emergency vet?"],
        "mis": ["I tried {W}, which is what I had written down, but it didn't connect.",
                "The number on my fridge magnet is {W}, is that still the right one?",
                "I was given {W} but it just rang out."],
        "replies": [
            "Out of hours, please ring our emergency line, VetLine 24, on {F}; it's answered day and night by our duty vet team.",
            "If anything like this happens again after we close, call {F} and you'll be put straight through to the on-call vet.",
            "Our out-of-hours number is {F}. It's worth saving it in your phone now so you have it to hand.",
            "For emergencies in the evening, overnight or at weekends the number to call is {F}.",
        ],
        "extras": ["Please always phone before travelling so the team can be ready for {pet}.",
                   "The out-of-hours service covers 7pm to 8am on weekdays and all weekend.",
                   "I hope {pet} is feeling much better now.",
                   "The duty vet is based at our {branch} hospital.",
                   "I've passed your comments to the practice manager."],
        "ask_more": [
            "I'm so sorry to hear about {pet}. Could you let me know which practice you're registered with and "
            "a good time to call you? I'd like the practice manager to look into why you couldn't get through.",
            "I'm sorry you had such a worrying night. Can you tell me roughly what time you called and which "
            "number you dialled, so we can check the phone logs?",
        ],
        "topic": "the out-of-hours emergency number",
        "notes": ["Gave OOH number {F} (VetLine 24).", "Advised to ring {F} for any out-of-hours emergency.",
                  "Caller given emergency line {F}, told to save it in phone.",
                  "OOH line confirmed as {F}."],
        "questions": ["What number should I call if my pet has an emergency at night?",
                      "Who do I phone at the weekend when the surgery is closed?",
                      "Is there an out-of-hours emergency phone line I can ring?"],
    },
    {
        "id": "consult_fee", "w": 48, "fact": "£49",
        "forms": ["£49", "49 pounds", "GBP 49", "forty-nine pounds", "£49.00"],
        "say": [("£49", 10), ("49 pounds", 2), ("GBP 49", 1), ("forty-nine pounds", 2), ("£49.00", 2)],
        "wrong": ["£39", "£42", "£55", "thirty-five pounds", "£44.50"],
        "species": ["dog", "dog", "cat", "cat", "rabbit"],
        "subjects": ["Consultation cost", "price of an appointment", "How much to see a vet", "Fees question",
                     "Appointment charges"],
        "stories": [
            "{pet} has been scratching {his} ears for a week and I'd like a vet to have a look.",
            "We're thinking of moving {pet} over to you from our old vet, {tp_vet}.",
            "{pet} has gone off {his} food a bit and seems quieter than normal.",
            "My {species} has a small lump on {his} side that I want checked.",
            "I got a bill for £{own} last time and didn't really understand what the consultation part was.",
            "{pet} is {age} now and a bit stiff in the mornings.",
        ],
        "asks": ["How much is a standard consultation?", "what is the cost of a normal vet appointment?",
                 "Could you tell me your consultation fee before I book?", "How much do you charge just to see the vet?"],
        "mis": ["On your website I thought I saw {W}?", "My sister said she paid {W} at your {branch} branch.",
                "I was quoted {W} when I rang last month."],
        "replies": [
            "A standard 15-minute consultation with one of our vets is {F}.",
            "Our consultation fee is {F}; any medication or tests would be on top of that.",
            "It's {F} for a routine consult at any of our practices.",
            "To see the vet costs {F} for a standard appointment, and a re-check for the same problem within a fortnight is free.",
        ],
        "extras": ["Consultations are included for pets on the Brambleway Care Plan.",
                   "You can book online through MyBrambleway or at www.brambleway.example.com.",
                   "Nurse clinics for weight checks and nail clips are free of charge.",
                   "For older pets we also run the Senior Pet Check, which includes a blood test."],
        "ask_more": [
            "Could you tell me a bit more about what's going on with {pet}? If it's urgent we'll fit you in today, "
            "otherwise I can book a routine appointment and go through the costs with you then.",
            "Before I book, can you confirm whether {pet} is registered with us yet? If not I'll need a few details "
            "to set up an account.",
        ],
        "topic": "the cost of a standard consultation",
        "notes": ["Advised standard consult {F}, meds/tests extra.", "Consult fee confirmed as {F}.",
                  "Told caller routine consultation is {F}.", "Quoted {F} for 15 min consult."],
        "questions": ["How much does a normal appointment with a vet cost?",
                      "What is your standard consultation fee?",
                      "What will I pay just to have the vet look at my cat?"],
    },
    {
        "id": "repeat_prescription", "w": 40, "fact": "48 hours",
        "forms": ["48 hours", "forty-eight hours", "2 working days", "two working days"],
        "say": [("48 hours", 8), ("forty-eight hours", 2), ("2 working days", 2), ("two working days", 3)],
        "wrong": ["24 hours", "same day", "an hour", "3 hours", "a couple of hours"],
        "species": ["dog", "dog", "dog", "cat", "cat"],
        "subjects": ["Repeat prescription", "repeat meds", "{pet} - {drug} reorder", "Prescription request",
                     "Tablets running out"],
        "stories": [
            "{pet} is on {drug} for {his} arthritis and we're running low.",
            "I need to reorder {pet}'s {drug}, the prescription number is {rx}.",
            "{pet} has about a week of {his} {drug} left.",
            "Last time I ordered I turned up at {branch} and it wasn't ready, which was a wasted trip.",
            "I've just put in a repeat request for {pet}'s {drug} through the MyBrambleway app (ref {rx}).",
        ],
        "asks": ["How long does a repeat prescription take?", "how much notice do you need for repeats?",
                 "When will it be ready to collect if I order today?",
                 "How long do I need to leave it before I come and pick it up?"],
        "mis": ["The receptionist said last time it would be {W} but it wasn't ready.", "I thought it was {W}?",
                "Your app says {W}, doesn't it?"],
        "replies": [
            "Please allow {F} for repeat prescriptions, as a vet has to check {pet}'s notes and sign each one off.",
            "Repeat medication is ready to collect {F} after you order it through the MyBrambleway app or by phone.",
            "We ask for {F} notice on all repeat prescriptions.",
            "Brambleway Repeat Rx orders are ready {F} after they're placed.",
        ],
        "extras": ["{pet} will need a medication review with the vet every six months to keep the prescription going.",
                   "You can also have it posted to you with PawPost, our home delivery service.",
                   "I've added a note to the account so the dispensary team know it's coming.",
                   "You'll get a text as soon as it's ready."],
        "ask_more": [
            "Could you confirm {pet}'s current dose and which branch you'd like to collect from? I can't see an "
            "active repeat on the account at the moment, so I'll need to check with the vet first.",
            "It looks like {pet} is due a medication review before we can issue more. Could you let me know a "
            "couple of days that suit you for a quick check with the vet?",
        ],
        "topic": "how long a repeat prescription for {pet}'s {drug} takes",
        "notes": ["Advised repeat scripts need {F}.", "Told owner to allow {F}; vet has to sign off.",
                  "Repeat Rx turnaround {F} explained.", "Said it will be ready {F} from ordering."],
        "questions": ["How long does a repeat prescription take to be ready?",
                      "How much notice do you need for repeat medication?",
                      "If I order my dog's tablets today, when can I collect them?"],
    },
    {
        "id": "health_plan_price", "w": 34, "fact": "£14.50",
        "forms": ["£14.50", "14.50 pounds", "fourteen pounds fifty", "GBP 14.50", "£174 a year"],
        "say": [("£14.50", 10), ("14.50 pounds", 1), ("fourteen pounds fifty", 2), ("GBP 14.50", 1)],
        "wrong": ["£12.99", "£16", "£9.99", "£19.50", "£11"],
        "species": ["dog", "dog", "cat", "cat", "rabbit"],
        "subjects": ["Health plan", "Care Plan cost", "Monthly plan?", "Signing up to the Care Plan",
                     "question re pet health plan"],
        "stories": [
            "We've just got a {breed}, {pet}, and a few people have recommended your health plan.",
            "I'm trying to spread the cost of {pet}'s routine care over the year.",
            "I saw a poster about the Brambleway Care Plan in the {branch} waiting room.",
            "I want to sign {pet} up by Direct Debit. My bank details are sort code {sc}, account {acc}.",
            "Our old practice had a plan and we'd like something similar for {pet}.",
            "I'd like to pay for {pet}'s plan from my account {iban} if that's possible.",
        ],
        "asks": ["How much is the Care Plan per month?", "what does the health plan cost monthly?",
                 "Can you tell me the monthly price of the plan?", "How much a month is it?"],
        "mis": ["The leaflet I picked up says {W} a month, is that right?", "My friend pays {W} a month for hers.",
                "I was told {W} when I asked at the desk."],
        "replies": [
            "The Brambleway Care Plan is {F} a month by Direct Debit, and it covers {pet}'s booster, flea and worming treatment and two health checks a year.",
            "It's {F} per month for the Care Plan, with no joining fee.",
            "The Care Plan costs {F} a month{annual}.",
            "For {pet} the plan would be {F} monthly, and members also get 10% off other treatment.",
        ],
        "extras": ["Care Plan Plus adds dental checks and unlimited nurse clinics.",
                   "You can sign up in branch or through MyBrambleway.",
                   "Please don't send bank details by email; we'll take them securely over the phone.",
                   "Pets on the plan also get 20% off neutering."],
        "ask_more": [
            "Could you confirm which practice {pet} is registered with? I'll get our plans team to call you and "
            "talk you through what's included.",
            "Thanks for your interest! Is {pet} already registered with us? The plan has to be linked to a "
            "registered pet, so I'll check that first.",
        ],
        "topic": "the monthly cost of the Brambleway Care Plan",
        "notes": ["Care Plan quoted at {F}/month by DD.", "Advised Care Plan is {F} a month, no joining fee.",
                  "Plan price {F} monthly confirmed.", "Told owner {F} per month, covers booster + flea/worm."],
        "questions": ["How much is the monthly pet health plan?", "What does the Care Plan cost per month?",
                      "How much would I pay each month to put my cat on your health plan?"],
    },
    {
        "id": "microchip_price", "w": 30, "fact": "£25",
        "forms": ["£25", "25 pounds", "GBP 25", "twenty-five pounds", "£25.00"],
        "say": [("£25", 10), ("25 pounds", 2), ("GBP 25", 1), ("twenty-five pounds", 2), ("£25.00", 1)],
        "wrong": ["£15", "£30", "£20", "£35", "£18"],
        "species": ["dog", "dog", "cat", "cat", "cat", "rabbit"],
        "subjects": ["Microchipping", "chip price", "Microchip for {pet}", "Getting {pet} chipped"],
        "stories": [
            "We're collecting a {breed} next week and I know chipping is a legal requirement.",
            "cat|Since cats have to be microchipped now I want to get {pet} done.",
            "{pet} came from a friend and I don't think {he}'s ever been chipped.",
            "{pet} has a GPS tracker on {his} collar (IMEI {imei}) but my partner {tp} wants {him} chipped as well.",
            "The rescue gave us paperwork with a chip number {chip} but your scanner couldn't find anything.",
            "{pet} slipped the lead last month and it made me realise {he} isn't chipped.",
        ],
        "asks": ["How much is it to microchip?", "What do you charge for microchipping?",
                 "whats the price for getting {him} chipped?", "How much is a microchip?"],
        "mis": ["Someone on a Facebook group said you charge {W}?", "I think I paid {W} for my last dog.",
                "Is it still {W}?"],
        "replies": [
            "Microchipping is {F}, and that includes registering {pet} on the national database.",
            "It costs {F} to have {pet} microchipped; it only takes a few seconds and can be done at a nurse appointment.",
            "Our price for microchipping is {F} for any species.",
            "We charge {F} for a microchip including the first registration.",
        ],
        "extras": ["Once it's in, we'll give you the chip number so you can keep your contact details up to date.",
                   "A microchip is also included in the Puppy & Kitten Starter Pack.",
                   "We can scan {pet} first in case there's an old chip we've missed."],
        "ask_more": [
            "Could you let me know if {pet} has been scanned before? Some rescue pets already have a chip, in "
            "which case we'd just need to update the registration.",
            "Is {pet} registered with us yet? If you can tell me which branch is easiest I'll find you a nurse "
            "appointment.",
        ],
        "topic": "the price of microchipping {pet}",
        "notes": ["Microchip price {F} incl. database registration.", "Advised chipping is {F}, nurse appt.",
                  "Quoted {F} for microchip.", "Told caller microchipping costs {F}."],
        "questions": ["How much do you charge to microchip a pet?", "What's the price of getting my kitten chipped?",
                      "How much is a microchip for a puppy?"],
    },
    {
        "id": "neuter_fasting", "w": 28, "fact": "8pm",
        "forms": ["8pm", "8 pm", "20:00", "eight o'clock", "8 o'clock"],
        "say": [("8pm", 8), ("8 pm", 2), ("20:00", 1), ("eight o'clock", 2), ("8 o'clock", 2)],
        "wrong": ["midnight", "10pm", "6pm", "10 o'clock", "9pm"],
        "species": ["dog", "dog", "cat", "cat", "rabbit"],
        "subjects": ["Neutering - food the night before?", "{pet}'s op on {day}", "Spay prep question",
                     "pre-op instructions"],
        "stories": [
            "{pet} is booked in to be {neutered} on {day} at the {branch} practice (booking ref {booking}).",
            "We've got {pet}'s op next week and I've lost the instruction sheet.",
            "This is my first time having a pet operated on and I'm a bit nervous.",
            "{pet} is booked to be {neutered} and my partner {tp} is dropping {him} off.",
        ],
        "asks": ["What time does {he} need to stop eating the night before?", "when do I take {his} food away?",
                 "Can {he} have breakfast on the day?", "What time is the cut-off for food?"],
        "mis": ["Someone at reception said {W}, but the leaflet seems to say something different?",
                "My husband thinks it's {W}.", "I've read online it's {W}."],
        "replies": [
            "Please don't give {pet} any food after {F} the night before the operation; water is fine until you leave in the morning.",
            "Take {pet}'s food away at {F} on the evening before surgery, {he} can still have water.",
            "The last meal should be by {F} the night before, then nothing until after the op.",
            "{pet} needs to fast from {F} the evening before, so no breakfast on the day.",
        ],
        "extras": ["Admission is between 8 and 9am, and the vet will ring you once {pet} is awake.",
                   "Pets on the Care Plan get 20% off neutering.",
                   "We'll send {pet} home with a buster collar and pain relief.",
                   "Please keep {pet} indoors the night before so {he} can't find any snacks."],
        "ask_more": [
            "Could you confirm {pet}'s booking reference and the practice? Fasting instructions can vary if {he} "
            "has a medical condition, so I'll check with the surgical team and come back to you.",
            "Is {pet} on any medication at the moment? I'll check with the nurse what to do about that and "
            "food on the day, and give you a ring.",
        ],
        "topic": "fasting before {pet}'s neutering op",
        "notes": ["Advised no food after {F} night before, water OK.", "Told owner to lift food at {F}.",
                  "Fasting from {F} explained, admission 8-9am.", "Pre-op: last meal by {F}."],
        "questions": ["When does my dog need to stop eating before being neutered?",
                      "What time should I take food away the night before my cat's spay?"],
    },
    {
        "id": "insurance_claim", "w": 24, "fact": "5 working days",
        "forms": ["5 working days", "five working days", "5 business days", "five business days"],
        "say": [("5 working days", 6), ("five working days", 3), ("5 business days", 1), ("five business days", 1)],
        "wrong": ["3 days", "a couple of days", "two weeks", "14 days", "a month"],
        "species": ["dog", "dog", "dog", "cat", "cat"],
        "subjects": ["Insurance claim form", "Claim form - {pet}", "{insurer} claim", "chasing claim form"],
        "stories": [
            "{pet} had surgery on {his} knee in {month} and the bill came to £{own}.",
            "I've started a claim with {insurer} for {pet}'s skin treatment, policy number {policy}.",
            "I dropped off a claim form at {branch} on {day} and haven't heard anything.",
            "{insurer} have sent me a link for the vet to fill in: {claim_url}",
            "{pet} was in for two nights with a tummy upset and the invoice was £{own}. Claim ref {claimref}.",
        ],
        "asks": ["How long does it take you to fill the claim form in?", "when will the vet part of the form be done?",
                 "Please could you tell me how long the practice takes to complete claim forms?",
                 "How long do I have to wait for you to send it to the insurer?"],
        "mis": ["{insurer} told me vets do it in {W}.", "I was told {W} at the desk.", "I assumed it would be {W}."],
        "replies": [
            "Once we have the claim form, our team completes the vet section within {F}.",
            "Claim forms are usually turned around in {F}, and we send them straight to {insurer} for you.",
            "Please allow {F} for us to complete the clinical history part of the form.",
            "Our claims team aims to complete forms in {F} from receipt.",
        ],
        "extras": ["There's an admin fee of £12.50 per claim form, which is added to your account.",
                   "We can also claim direct from {insurer} so you don't have to pay the full bill upfront.",
                   "You'll get an email from us when it's been sent."],
        "ask_more": [
            "Could you send me the claim reference and the date you dropped it in? I can't find a form for "
            "{pet} on our system yet.",
            "Which insurer is {pet} with? Some send the form to us directly, so I'd like to check whether it "
            "has arrived before I give you a date.",
        ],
        "topic": "turnaround time for {pet}'s insurance claim form",
        "notes": ["Advised claim forms done within {F}.", "Told owner to allow {F} for vet section.",
                  "Claim turnaround {F} explained.", "Form will be completed in {F} from receipt."],
        "questions": ["How long do you take to fill in a pet insurance claim form?",
                      "When will the practice complete my insurance claim?"],
    },
    {
        "id": "records_transfer", "w": 20, "fact": RECORDS,
        "forms": [RECORDS],
        "say": [(RECORDS, 1)],
        "wrong": ["records@brambleway-vets.example.com", "history@brambleway.example.com",
                  "clinical.records@brambleway.example.org"],
        "species": ["dog", "dog", "cat", "cat", "rabbit"],
        "subjects": ["Transfer of records", "Moving vets", "{pet}'s history", "Records request"],
        "stories": [
            "We're moving to {town2} next month and will need a new vet closer to home.",
            "Our new vet, {tp_vet} at Riverside Animal Hospital, has asked for {pet}'s full history.",
            "I'm registering {pet} at a practice nearer my work.",
            "After 6 years with you we're relocating, so sadly we need to say goodbye.",
        ],
        "asks": ["How do I get {pet}'s records transferred?", "who do i ask to send {his} history to the new vets?",
                 "Is there an email address for records requests?", "What do I need to do to move {his} notes over?"],
        "mis": ["I emailed {W} last week but it bounced back.", "I was told to send it to {W} but nobody replied."],
        "replies": [
            "Just email {F} with the new practice's name and email address and we'll send {pet}'s history across.",
            "Records transfers are handled by our records team at {F}.",
            "Please send your request to {F}; there's no charge.",
            "The quickest way is to email {F}, and the team usually sends everything within a week.",
        ],
        "extras": ["We're sorry to see you go and wish {pet} all the best.",
                   "Any Care Plan Direct Debit will be cancelled once the transfer is done.",
                   "The new practice can also request the records directly."],
        "ask_more": [
            "Before I pass this on, could you confirm the new practice's details and that you're the registered "
            "owner? For data protection we can only act on the account holder's request.",
        ],
        "topic": "transferring {pet}'s records to a new practice",
        "notes": ["Told to email {F} with new practice details.", "Records requests go to {F}, advised.",
                  "Gave records team email {F}."],
        "questions": ["How do I get my pet's medical history sent to a new vet?",
                      "Where do I ask for my dog's clinical records to be transferred?"],
    },
    {
        "id": "first_vacc_age", "w": 16, "fact": "8 weeks",
        "forms": ["8 weeks", "eight weeks", "2 months", "two months"],
        "say": [("8 weeks", 6), ("eight weeks", 3), ("2 months", 1), ("two months", 2)],
        "wrong": ["6 weeks", "12 weeks", "10 weeks", "four months"],
        "species": ["dog", "dog", "cat", "cat", "rabbit"],
        "subjects": ["Puppy vaccinations", "First jabs", "New kitten", "When can we vaccinate?"],
        "stories": [
            "We're picking up a {breed} from a breeder in {town2} soon.",
            "cat|Our cat had kittens three weeks ago (oops!) and we're keeping one, {pet}.",
            "We're getting a {breed} and want to get everything booked in advance.",
            "dog|My daughter {tp} has been begging for a puppy and we're finally getting one.",
        ],
        "asks": ["How old does {he} need to be for the first jabs?", "dog|what age can puppies start vaccinations?",
                 "When can we bring {him} in for {his} first injection?", "What's the youngest you vaccinate?"],
        "mis": ["The breeder said {W}, is that right?", "I read online it's {W}.", "I assumed {W}?"],
        "replies": [
            "Puppies and kittens can have their first vaccination from {F} of age.",
            "We start the primary course at {F} old, with the second dose two to four weeks later.",
            "{pet} can come in for {his} first jab once {he}'s {F} old.",
            "The earliest age we vaccinate is {F}.",
        ],
        "extras": ["The Puppy & Kitten Starter Pack covers both doses, a microchip and the first flea and worm treatment.",
                   "Keep {pet} off public ground until a week after the second injection.",
                   "Bring any paperwork from the breeder to the first appointment."],
        "ask_more": [
            "Could you let me know how old {pet} is now and whether the breeder has started any vaccinations? "
            "Then I can book the right appointment.",
        ],
        "topic": "the age for {pet}'s first vaccinations",
        "notes": ["Advised first vacc from {F}.", "Primary course starts at {F}, told owner.",
                  "First jab at {F}, 2nd dose 2-4 wks later."],
        "questions": ["How old does a puppy have to be for its first jabs?",
                      "At what age can my kitten have her first vaccinations?"],
    },
    {
        "id": "dental_price", "w": 11, "fact": "£289",
        "forms": ["£289", "289 pounds", "GBP 289", "two hundred and eighty-nine pounds", "£289.00"],
        "say": [("£289", 6), ("289 pounds", 1), ("GBP 289", 1), ("two hundred and eighty-nine pounds", 1),
                ("£289.00", 1)],
        "wrong": ["£189", "£250", "£199", "£320"],
        "species": ["dog", "dog", "cat", "cat"],
        "subjects": ["Dental cost", "scale and polish", "{pet}'s teeth"],
        "stories": [
            "{pet}'s breath is awful and the vet said at {his} last check {he}'ll need a scale and polish.",
            "The vet mentioned tartar on {his} back teeth at the booster.",
            "{pet} keeps pawing at {his} mouth and dropping food.",
        ],
        "asks": ["How much is a dental clean?", "roughly what does a scale and polish cost?",
                 "What's the price of a dental under anaesthetic?"],
        "mis": ["I was quoted {W} a while ago.", "A friend paid {W} at your {branch} branch."],
        "replies": [
            "A SmileBright Dental (scale and polish under general anaesthetic) is {F}.",
            "Our standard dental scale and polish costs {F}, including the anaesthetic and day care.",
            "The price is {F} for a scale and polish; extractions, if needed, are charged on top.",
        ],
        "extras": ["Care Plan Plus members get 15% off dental work.",
                   "The vet will give you a written estimate on the day."],
        "ask_more": [
            "It would be best for the vet to examine {pet}'s mouth first. Can I book you a free nurse dental "
            "check so we can give you an accurate estimate?",
        ],
        "topic": "the cost of a dental for {pet}",
        "notes": ["Dental (scale & polish) quoted {F}.", "Advised SmileBright Dental is {F}, extractions extra."],
        "questions": ["How much is a dental clean for a dog?",
                      "What do you charge for a scale and polish under anaesthetic?"],
    },
    {
        "id": "ahc_travel", "w": 7, "fact": "10 days",
        "forms": ["10 days", "ten days"],
        "say": [("10 days", 3), ("ten days", 2)],
        "wrong": ["30 days", "a month", "two weeks", "4 months"],
        "species": ["dog", "dog", "dog", "cat"],
        "subjects": ["Travelling to France", "Animal health certificate", "Pet travel - AHC"],
        "stories": [
            "We're taking {pet} to France in {month} on the ferry, our car reg is {plate} if you need it.",
            "We're driving to Spain with {pet} and need the animal health certificate.",
            "We're going to Ireland with {pet} in {month}. My passport number is {passport}, do you need that?",
        ],
        "asks": ["How close to the trip does the certificate have to be done?",
                 "when should we book the appointment for the AHC?",
                 "How far in advance can you do the certificate?"],
        "mis": ["The ferry company said {W}.", "I was told {W} before travel?"],
        "replies": [
            "The Animal Health Certificate must be issued no more than {F} before you arrive in the EU.",
            "Please book the AHC appointment within {F} of your travel date.",
            "It has to be signed by our vet within {F} of travel.",
        ],
        "extras": ["{pet} must be microchipped and vaccinated against rabies at least 21 days beforehand.",
                   "Please bring proof of the rabies vaccination and your travel booking."],
        "ask_more": [
            "Could you confirm the travel date and the country you're going to? The rules differ and I'll "
            "check which paperwork {pet} needs.",
        ],
        "topic": "timing of the animal health certificate for {pet}'s trip",
        "notes": ["Advised AHC must be done within {F} of travel.", "AHC no earlier than {F} before arrival."],
        "questions": ["How close to the trip does my dog's animal health certificate need to be done?",
                      "How long before travelling abroad should I get the travel certificate for my cat?"],
    },
]

CORRECTIONS = ["Sorry for the mix-up, it isn't {W}.", "I'm afraid {W} isn't right; that may have been old information.",
               "Just to correct that: it's not {W}.", "Apologies for the confusion over {W}."]
MISSPELL = {"receive": "recieve", "definitely": "definately", "appointment": "appointmnet",
            "vaccination": "vacination", "vaccinations": "vaccinatons", "tomorrow": "tommorow",
            "because": "becuase", "really": "realy", "which": "wich", "prescription": "perscription",
            "thanks": "thnaks", "please": "pls", "anaesthetic": "anesthetic", "neutered": "nuetered",
            "insurance": "insurence", "emergency": "emergancy", "would": "woudl", "know": "kno",
            "definitely,": "deffo,", "booster": "boster", "number": "numebr", "surgery": "surgury",
            "separately": "seperately", "collect": "colect", "because,": "cos,", "you": "u", "your": "ur"}
GREET_C = ["Hi,", "Hello,", "Hi there,", "Dear Brambleway Vets,", "Good morning,", "Hello there,",
           "To whom it may concern,", "Hiya,", "Dear Sir/Madam,", ""]
NOISE = ["Sorry if this is the wrong place to ask.", "I work shifts so email is easiest for me.",
         "Thanks in advance.", "Hope you can help.", "Sorry for the long message!",
         "We've been with you for years and always had great care.", "I did try ringing but was on hold forever.",
         "Thanks so much for looking after {pet} last time."]
_PH = re.compile(r"\{(\w+)\}")
_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"

# ------------------------------------------------------------------------------------ value helpers


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().replace("'", "").replace(" ", "")


def _luhn_complete(rng: random.Random, prefix: str, length: int) -> str:
    digits = prefix + "".join(str(rng.randrange(10)) for _ in range(length - len(prefix) - 1))
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return digits + str((10 - total % 10) % 10)


def _iban(rng: random.Random, sort: str, acc: str) -> str:
    bank = rng.choice(["NWBK", "BARC", "LOYD", "HBUK", "MIDL", "NAIA"])
    num = "".join(str(ord(c) - 55) if c.isalpha() else c for c in bank + sort + acc + "GB00")
    check = 98 - int(num) % 97
    return f"GB{check:02d}{bank}{sort}{acc}"


def _group(s: str, k: int = 4) -> str:
    return " ".join(s[i:i + k] for i in range(0, len(s), k))


def _make_person(rng: random.Random, idx: int) -> dict:
    female = rng.random() < 0.58
    first = rng.choice(FIRST_F if female else FIRST_M)
    last = rng.choice(LAST)
    if rng.random() < 0.04:
        last = f"{last}-{rng.choice(LAST)}"
    title = rng.choice(["Mrs", "Ms", "Miss", "Mrs", "Dr"] if female else ["Mr", "Mr", "Mr", "Dr"])
    branch = rng.choices(BRANCHES, BRANCH_W)[0]
    town, districts = AREAS[branch]
    pc = f"{rng.choice(districts)} {rng.randrange(1, 10)}{rng.choice(_LETTERS)}{rng.choice(_LETTERS)}"
    r = rng.random()
    if r < 0.55:
        name, (stype, abbr) = rng.choice(STREET_NAMES), rng.choice(STREET_TYPES)
        street, street_alt = f"{name} {stype}", f"{name.lower()} {rng.choice(abbr)}"
    elif r < 0.8:
        street = street_alt = rng.choice(TYPELESS)
        street_alt = street_alt.lower()
    else:
        name, (stype, abbr) = rng.choice(STREET_NAMES), rng.choice(STREET_TYPES)
        street, street_alt = f"{name} {stype}", f"{name} {abbr[0]}"
    num = rng.choice([rng.randrange(1, 40), rng.randrange(1, 40), rng.randrange(40, 260)])
    house = None
    if rng.random() < 0.15:
        flat = rng.randrange(1, 12)
        line = f"Flat {flat}, {num} {street}"
        alts = [line, f"flat {flat} {num} {street_alt}", f"{flat}/{num} {street}"]
    elif rng.random() < 0.06:
        house = rng.choice(HOUSE_NAMES)
        line = f"{house}, {street}"
        alts = [line, f"{house}, {street_alt}"]
    else:
        line = f"{num} {street}"
        alts = [line, f"{num} {street_alt}", f"{num}, {street}"]
    fmt = rng.random()
    if fmt < 0.6:
        phone = f"07700 900{rng.randrange(1000):03d}"
    elif fmt < 0.85:
        phone = f"0113 496 0{rng.randrange(1000):03d}"
    else:
        phone = f"020 7946 0{rng.randrange(1000):03d}"
    a, b = _ascii(first).lower(), _ascii(last).lower()
    yy = rng.randrange(60, 100) if rng.random() < 0.5 else rng.randrange(1, 12)
    email = rng.choice([f"{a}.{b}@example.com", f"{a[0]}{b}{yy:02d}@example.net", f"{a}{b}@example.org",
                        f"{a}_{b}{rng.randrange(1, 99)}@example.com", f"{b}.family@example.net",
                        f"{a}.{b[0]}{rng.randrange(100, 999)}@example.org", f"{a}loves{rng.choice(['dogs', 'cats'])}@example.com"])
    sort = f"{rng.randrange(10, 99)}{rng.randrange(10, 99)}{rng.randrange(10, 99)}"
    acc = f"{rng.randrange(10**7, 10**8)}"
    chip = rng.choice(["985", "981", "941", "900", "956"]) + "".join(str(rng.randrange(10)) for _ in range(12))
    mon = rng.randrange(1, 13)
    dob = (rng.randrange(1942, 2004), mon, rng.randrange(1, 29))
    plate = (rng.choice(["YK", "YA", "YB", "YC", "YD", "YE", "YF", "YG", "YH", "YJ", "YN", "YP", "YR", "YS",
                         "YT", "YX", "MA", "MD", "LB", "NK"]) +
             f"{rng.choice([rng.randrange(10, 25), rng.randrange(59, 74)])}" + " " +
             "".join(rng.choice("ABCDEFGHJKLMNOPRSTUVWXYZ") for _ in range(3)))
    ni = (rng.choice("ABCEGHJKLMNPRSTWXYZ") + rng.choice("ABCEGHJKLMNPRSTWXYZ") +
          f"{rng.randrange(10**6):06d}" + rng.choice("ABCD"))
    person = {
        "pid": f"p-{idx:05d}", "first": first, "last": last, "title": title, "female": female, "branch": branch,
        "town": town, "postcode": pc, "addr": line, "addr_alts": alts, "phone": phone, "email": email,
        "client": f"BW-{rng.randrange(100000, 999999)}", "sort": sort, "acc": acc,
        "iban": _iban(rng, sort, acc), "chip": chip, "dob": dob, "plate": plate, "ni": ni,
        "last4": f"{rng.randrange(10000):04d}", "card": _luhn_complete(rng, rng.choice(["4", "5"]), 16),
        "mobile2": f"07700 900{rng.randrange(1000):03d}" if rng.random() < 0.2 else None,
        "lower": rng.random() < 0.12, "typo": rng.choice([0.0, 0.0, 0.02, 0.04, 0.07]),
        "pets": [], "passport": f"{rng.randrange(10**8, 10**9)}",
    }
    for _ in range(1 if rng.random() < 0.7 else 2):
        _new_pet(rng, person, rng.choices(["dog", "cat", "rabbit"], [55, 36, 9])[0])
    return person


def _new_pet(rng: random.Random, person: dict, species: str) -> dict:
    used = {q["name"] for q in person["pets"]}
    pet = {"name": rng.choice([x for x in PET_NAMES if x not in used]), "male": rng.random() < 0.5,
           "age": rng.randrange(1, 15), "species": species, "breed": rng.choice(SPECIES[species])}
    person["pets"].append(pet)
    return pet


_NUMS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen"]


def _age_text(rng: random.Random, age: int) -> str:
    return rng.choice([f"{age} years old", f"{_NUMS[age - 1]} years old", f"{age} yrs", f"{age}"
                       if age > 1 else "1 year old"]).replace("one years", "one year").replace("1 years", "1 year")


# ------------------------------------------------------------------------------------ one record


class _Rec:
    """One record under construction: its values and the PII written so far."""

    def __init__(self, rng: random.Random, p: dict, t: dict, agent: tuple[str, str]):
        self.rng, self.p, self.t, self.agent = rng, p, t, agent
        self.pii: list[tuple[str, str]] = []
        pets = [q for q in p["pets"] if q["species"] in t["species"]]
        if not pets:
            pets = [_new_pet(rng, p, rng.choice(t["species"]))]
        pet = rng.choice(pets)
        self.pet = pet
        self.species = pet["species"]
        self.breed = pet["breed"]
        m = pet["male"]
        he, his, him = ("he", "his", "him") if m else ("she", "her", "her")
        own = rng.randrange(60, 1500)
        while own in (174, 289):
            own = rng.randrange(60, 1500)
        dom = rng.randrange(1, 29)
        sfx = "th" if 10 < dom < 14 else {1: "st", 2: "nd", 3: "rd"}.get(dom % 10, "th")
        self.plain = {
            "pet": pet["name"], "he": he, "his": his, "him": him, "He": he.capitalize(), "His": his.capitalize(),
            "species": self.species, "breed": self.breed,
            "branch": p["branch"], "drug": rng.choice(DRUGS), "insurer": rng.choice(INSURERS),
            "month": rng.choice(MONTHS), "day": rng.choice(DAYS), "dom": f"{dom}{sfx}",
            "own": f"{own}.{rng.randrange(1, 100):02d}", "town2": rng.choice(TOWNS2),
            "neutered": "castrated" if m and rng.random() < 0.5 else ("spayed" if not m else "neutered"),
            "age": _age_text(rng, pet["age"]),
            "annual": "",
        }
        self.lazy = {}

    # -- PII values (chosen once per record, registered on every use)
    def reg(self, kind: str, s: str) -> str:
        self.pii.append((kind, s))
        return s

    def once(self, key: str, make):
        if key not in self.lazy:
            self.lazy[key] = make()
        kind, s = self.lazy[key]
        return self.reg(kind, s)

    def val(self, key: str) -> str:
        p, rng = self.p, self.rng
        if key in self.plain:
            return self.plain[key]
        if key == "tp":
            return self.once(key, lambda: ("third_party_name", rng.choice(
                [rng.choice(FIRST_F + FIRST_M), f"{rng.choice(FIRST_F + FIRST_M)} {rng.choice(LAST)}",
                 rng.choice(FIRST_F + FIRST_M)])))
        if key == "tp_vet":
            return self.once(key, lambda: ("third_party_name", rng.choice(
                [f"Dr {rng.choice(LAST)}", f"{rng.choice(FIRST_F + FIRST_M)} {rng.choice(LAST)}",
                 f"Mr {rng.choice(LAST)}", f"Mrs {rng.choice(LAST)}"])))
        if key == "rx":
            return self.once(key, lambda: ("other_id", rng.choice(["RX-", "RX", "rx"]) + f"{rng.randrange(10**5, 10**6)}"))
        if key == "policy":
            ins = INSURERS.index(self.plain["insurer"])
            return self.once(key, lambda: ("account_number", [
                f"PS-{rng.randrange(10**6, 10**7)}", f"TW/{rng.randrange(18, 25)}/{rng.randrange(10**5, 10**6)}",
                f"HHC{rng.randrange(10**7, 10**8)}", f"FPI-{rng.randrange(100, 999)}-{rng.randrange(1000, 9999)}",
                f"PD{rng.randrange(10**6, 10**7)}"][ins]))
        if key == "claimref":
            return self.once(key, lambda: ("account_number", f"CLM-2024-{rng.randrange(10000, 99999)}"))
        if key == "claim_url":
            ins = INSURERS.index(self.plain["insurer"])
            return self.once(key, lambda: ("url_with_id", [
                f"https://claims.petshield.example.net/vet-form/{rng.randrange(10**7, 10**8)}",
                f"https://portal.tailwise.example.org/claim?id=TW{rng.randrange(10**6, 10**7)}&owner={p['client'][3:]}",
                f"https://www.houndandhome.example.com/claims/HHC{rng.randrange(10**7, 10**8)}/vet",
                f"https://www.furstclass.example.com/c/{rng.randrange(10**5, 10**6)}-{_ascii(p['last']).lower()}",
                f"https://pawsdirect.example.net/claim/{rng.randrange(10**5, 10**6)}?ref={_ascii(p['last']).upper()}"][ins]))
        if key == "acct_url":
            return self.once(key, lambda: ("url_with_id", rng.choice([
                f"https://my.brambleway.example.com/account/{p['client'].replace('-', '')}/pets",
                f"https://my.brambleway.example.com/booking/APT{rng.randrange(10**6, 10**7)}",
                f"https://pay.brambleway.example.com/invoice/INV-{rng.randrange(10**6, 10**7)}"])))
        if key == "imei":
            return self.once(key, lambda: ("imei", (lambda s: rng.choice([s, f"{s[:2]} {s[2:8]} {s[8:14]} {s[14]}",
                                                                           f"{s[:8]}-{s[8:14]}-{s[14]}"]))(
                _luhn_complete(rng, rng.choice(["35", "86", "35"]), 15))))
        if key == "plate":
            return self.once(key, lambda: ("licence_plate", rng.choice([p["plate"], p["plate"].replace(" ", ""),
                                                                         p["plate"].lower()])))
        if key == "passport":
            return self.once(key, lambda: ("other_id", p["passport"]))
        if key == "sc":
            return self.once(key, lambda: ("iban", rng.choice([f"{p['sort'][:2]}-{p['sort'][2:4]}-{p['sort'][4:]}",
                                                                p["sort"], f"{p['sort'][:2]} {p['sort'][2:4]} {p['sort'][4:]}"])))
        if key == "acc":
            return self.once(key, lambda: ("iban", p["acc"]))
        if key == "iban":
            return self.once(key, lambda: ("iban", rng.choice([p["iban"], _group(p["iban"])])))
        if key == "chip":
            return self.once(key, lambda: ("other_id", rng.choice([
                p["chip"], _group(p["chip"], 3), f"{p['chip'][:3]} {p['chip'][3:7]} {p['chip'][7:]}",
                f"{p['chip'][:3]}-{p['chip'][3:9]}-{p['chip'][9:]}"])))
        if key == "booking":
            return self.once(key, lambda: ("account_number", rng.choice(["APT-", "APT", "#"]) + f"{rng.randrange(10**6, 10**7)}"))
        if key == "cn":
            c = p["client"]
            return self.once(key, lambda: ("account_number", rng.choice([c, c, c.replace("-", ""), c.lower(),
                                                                          c.replace("-", " "), c[3:]])))
        if key == "cn_c":
            return self.reg("account_number", p["client"])
        if key == "ph":
            return self.once(key, lambda: ("phone", _phone_variant(rng, p["phone"])))
        if key == "ph_c":
            return self.reg("phone", p["phone"])
        if key == "ph2":
            return self.once(key, lambda: ("phone", _phone_variant(rng, p["mobile2"] or "07700 900417")))
        if key == "em":
            return self.once(key, lambda: ("email", p["email"].upper() if rng.random() < 0.04 else p["email"]))
        if key == "em_c":
            return self.reg("email", p["email"])
        if key == "addr":
            return self.once(key, lambda: ("address", rng.choice(p["addr_alts"])))
        if key == "pc":
            pc = p["postcode"]
            return self.once(key, lambda: ("postcode", rng.choice([pc, pc, pc.lower(), pc.replace(" ", "")])))
        if key == "dob":
            return self.once(key, lambda: ("date_of_birth", _dob_variant(rng, p["dob"])))
        if key == "last4":
            return self.once(key, lambda: ("card_number", p["last4"]))
        if key == "card":
            return self.once(key, lambda: ("card_number", rng.choice([_group(p["card"]), p["card"]])))
        if key == "ni":
            n = p["ni"]
            return self.once(key, lambda: ("national_id", rng.choice(
                [n, f"{n[:2]} {n[2:4]} {n[4:6]} {n[6:8]} {n[8]}", n.lower(), f"{n[:2]}{n[2:8]} {n[8]}"])))
        if key == "first":
            return self.reg("person_name", p["first"].lower() if p["lower"] and self._in_cust else p["first"])
        if key == "full":
            full = f"{p['first']} {p['last']}"
            return self.reg("person_name", full.lower() if p["lower"] and self._in_cust else full)
        if key == "tl":
            return self.reg("person_name", f"{p['title']} {p['last']}")
        if key == "last":
            return self.reg("person_name", p["last"])
        raise KeyError(key)

    _in_cust = False

    def style(self, s: str) -> str:
        if not s:
            return s
        rate = self.p["typo"]
        if rate:
            words = s.split(" ")
            for i, w in enumerate(words):
                if w.lower() in MISSPELL and self.rng.random() < rate * 4:
                    words[i] = MISSPELL[w.lower()]
                elif len(w) > 5 and w.isalpha() and self.rng.random() < rate:
                    j = self.rng.randrange(1, len(w) - 2)
                    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
            s = " ".join(words)
        if self.p["lower"]:
            s = s.lower()
        return s

    def fill(self, tpl: str, cust: bool = False, **extra: str) -> str:
        """``tpl`` with its placeholders filled; a customer's literal words get their style."""
        out, pos = [], 0
        self._in_cust = cust
        for m in _PH.finditer(tpl):
            lit = tpl[pos:m.start()]
            out.append(self.style(lit) if cust else lit)
            key = m.group(1)
            out.append(extra[key] if key in extra else self.val(key))
            pos = m.end()
        lit = tpl[pos:]
        out.append(self.style(lit) if cust else lit)
        self._in_cust = False
        return "".join(out)


def _phone_variant(rng: random.Random, c: str) -> str:
    d = c.replace(" ", "")
    if d.startswith("07"):
        opts = [c, d, f"{d[:5]} {d[5:8]} {d[8:]}", f"+44 {d[1:5]} {d[5:]}", f"+44{d[1:]}", f"{d[:4]} {d[4:7]} {d[7:]}"]
    elif d.startswith("0113"):
        opts = [c, d, f"(0113) {d[4:7]} {d[7:]}", f"+44 113 {d[4:7]} {d[7:]}", f"0113-{d[4:7]}-{d[7:]}"]
    else:
        opts = [c, d, f"(020) {d[3:7]} {d[7:]}", f"+44 20 {d[3:7]} {d[7:]}"]
    return rng.choice(opts)


def _dob_variant(rng: random.Random, dob: tuple[int, int, int]) -> str:
    y, m, d = dob
    sfx = "th" if 10 < d < 14 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    return rng.choice([f"{d:02d}/{m:02d}/{y}", f"{d}/{m}/{y % 100:02d}", f"{d:02d}.{m:02d}.{y}",
                       f"{d}{sfx} {MONTHS[m - 1]} {y}", f"{MONTHS[m - 1]} {d}, {y}", f"{y}-{m:02d}-{d:02d}",
                       f"{d} {MON3[m - 1]} {y}"])


# customer PII sentences: (template, weight); chosen 0-3 per record
CUST_PII = [  # (the customer's sentence, the agent's call-note version, weight)
    ("My client number is {cn}.", "Client no. given as {cn}.", 10),
    ("Account no. {cn}.", "Acct {cn}.", 5),
    ("(client ref {cn})", "Ref {cn}.", 3),
    ("You can ring me on {ph}.", "Call back on {ph}.", 9),
    ("my number is {ph} if it's easier.", "Contact no. {ph}.", 6),
    ("Best number is {ph} after 5pm.", "Best no. {ph} after 5pm.", 4),
    ("We're at {addr}, {pc}.", "Address confirmed as {addr}, {pc}.", 6),
    ("Address on the account should be {addr}, {pc}.", "Address updated to {addr}, {pc}.", 3),
    ("Postcode {pc} if that helps find us.", "Postcode {pc}.", 3),
    ("My email is {em}.", "Email: {em}.", 4),
    ("My date of birth is {dob} if you need it for security.", "DOB {dob}.", 4),
    ("{pet}'s microchip number is {chip}.", "Chip no. {chip}.", 4),
    ("You can take any payment from the card ending {last4}.", "Card on file ending {last4}.", 3),
    ("I'm on Universal Credit, does that get a discount? NI number {ni}.",
     "Asked about concession, gave NI no. {ni}; told proof of benefits needed at desk.", 2),
    ("We'll be in the car park, the car reg is {plate}, {pet} gets stressed in the waiting room.",
     "Will wait in car park, reg {plate}.", 2),
    ("My partner {tp} might ring as well, {pet} is on the account under both of us.",
     "Partner {tp} also on account.", 3),
    ("My account page is {acct_url}", "Cust quoted link {acct_url}.", 2),
    ("I've also got a landline, {ph2}.", "Alt no. {ph2}.", 1),
    ("{pet} is insured with {insurer}, policy {policy}.", "Insured with {insurer}, policy {policy}.", 2),
    ("Can I just pay over the phone? card number is {card}", "Cust read out full card no. {card}; advised we take payment at the desk.", 1),
]


def _pick(rng: random.Random, triples, k: int) -> list:
    items = [(a, b) for a, b, _ in triples]
    weights = [w for _, _, w in triples]
    out, keys = [], set()
    while len(out) < k:
        x = rng.choices(items, weights)[0]
        key = frozenset(_PH.findall(x[0])) - {"pet", "insurer"}
        if not key & keys:
            out.append(x)
            keys |= key
    return out


def _for(rng: random.Random, templates: list[str], species: str) -> str:
    ok = [x.split("|", 1)[-1] for x in templates if "|" not in x or x.split("|", 1)[0] == species]
    return rng.choice(ok)


def _say(rng: random.Random, t: dict) -> str:
    return rng.choices([f for f, _ in t["say"]], [w for _, w in t["say"]])[0]


def _agent_surface(rng: random.Random, agent: tuple[str, str]) -> str:
    f, last = agent
    return rng.choice([f, f, f"{f} {last[0]}.", f"{f} {last}"])


def _build(rng: random.Random, p: dict, t: dict, agent: tuple[str, str], fmt: str, stated: bool,
           misquote: bool, n_pii: int, n_extra: int, date: str) -> tuple[str, list[tuple[str, str]]]:
    R = _Rec(rng, p, t, agent)
    F = _say(rng, t)
    W = rng.choice(t["wrong"])
    if t["id"] == "health_plan_price" and rng.random() < 0.35:
        R.plain["annual"] = ", which works out at £174 a year"
    by_cust = fmt != "call"
    story = R.fill(_for(rng, t["stories"], R.species), cust=by_cust)
    ask = R.fill(_for(rng, t["asks"], R.species), cust=True)
    mis = R.fill(rng.choice(t["mis"]), cust=True, W=W) if misquote else ""
    cpii = [R.fill(a if by_cust else b, cust=by_cust) for a, b in _pick(rng, CUST_PII, n_pii)]
    noise = R.fill(rng.choice(NOISE), cust=True) if rng.random() < 0.35 else ""
    if stated:
        core = R.fill(rng.choice(t["replies"]), F=F)
        corr = R.fill(rng.choice(CORRECTIONS), W=W) if misquote else ""
    else:
        core, corr = R.fill(rng.choice(t["ask_more"])), ""
    extras = [R.fill(e) for e in rng.sample(t["extras"], min(n_extra, len(t["extras"])))]
    ag = R.reg("agent_name", _agent_surface(rng, agent))
    pet = R.plain["pet"]

    def cust_body(parts: list[str]) -> str:
        return " ".join(x for x in parts if x)

    # the reply's echo of customer PII (agents confirm what they changed)
    echo = ""
    if rng.random() < 0.18:
        echo = rng.choice(["I've updated the contact number on the account to {ph_c}.",
                           "I've checked the account ({cn_c}) and everything else is up to date.",
                           "I've sent a confirmation to {em_c} as well.",
                           "I've noted {pet}'s details on account {cn_c}."])
        echo = R.fill(echo)

    if fmt == "email":
        sender = rng.choice(["{full}", "{full}", "{tl}", "{first}"])
        head = R.fill(f"From: {sender} <{{em_c}}>\nTo: {CARE}\nSubject: ") + R.fill(rng.choice(t["subjects"]), cust=True) + f"\nDate: {date}\n\n"
        g = R.style(rng.choice(GREET_C))
        sign = rng.choice(["Thanks,\n{first}", "Many thanks\n{full}", "Regards, {full}", "{first}", "Cheers, {first}",
                           "Kind regards,\n{tl}", "Thank you\n{full}", "thanks {first}"])
        body = cust_body([story, ask, mis, *cpii, noise])
        cust = head + (g + "\n\n" if g else "") + body + "\n\n" + R.fill(sign, cust=True)
        rg = rng.choice(["Hi {first},", "Dear {tl},", "Hello {first},", "Dear {first},"])
        thanks = rng.choice(["Thanks for getting in touch about {pet}.", "Thank you for your email.",
                             "Thanks for your message.", ""])
        close = rng.choice(["Kind regards,", "Best wishes,", "Many thanks,", "Warm regards,"])
        reply = (f"--- Reply from {COMPANY} Client Care <{CARE}> ---\n\n" + R.fill(rg) + "\n\n" +
                 " ".join(x for x in [R.fill(thanks), corr, core, *extras, echo] if x) +
                 f"\n\n{close}\n{ag}\nClient Care Team, {COMPANY}\n{WEB}")
        return cust + "\n\n" + reply, R.pii
    if fmt == "chat":
        h, mnt = rng.randrange(7, 23), rng.randrange(60)
        if h == 20 and mnt < 10:
            mnt += 10

        def ts():
            nonlocal h, mnt
            mnt += rng.randrange(0, 3)
            if mnt >= 60:
                h, mnt = h + 1, mnt - 60
            s = f"[{h:02d}:{mnt:02d}]"
            return s if s != "[20:00]" else "[20:01]"
        vis = R.fill(rng.choice(["Visitor", "Visitor ({first})", "{first}", "{full}"]))
        lines = [f"Live chat transcript, MyBrambleway, {date}"]
        hello = R.style(rng.choice(["hi", "Hello", "hi there", "Hi, quick question", "hiya"]))
        lines.append(f"{ts()} {vis}: {hello}")
        tod = "morning" if h < 12 else ("afternoon" if h < 18 else "evening")
        lines.append(f"{ts()} {ag} ({COMPANY}): " + R.fill(rng.choice(
            ["Hi, you're chatting with {ag}. How can I help today?", "Hello! I'm {ag}, what can I do for you?",
             "Good {tod}, {ag} here from the client care team. How can I help?"]), ag=ag, tod=tod))
        lines.append(f"{ts()} {vis}: " + cust_body([story, ask]))
        if mis or cpii:
            lines.append(f"{ts()} {vis}: " + cust_body([mis, *cpii]))
        lines.append(f"{ts()} {ag} ({COMPANY}): " + " ".join(x for x in [corr, core, echo] if x))
        if extras:
            lines.append(f"{ts()} {ag} ({COMPANY}): " + " ".join(extras))
        lines.append(f"{ts()} {vis}: " + R.style(rng.choice(["ok thanks", "Brilliant, thank you!", "great thanks for your help",
                                                             "ok", "Thanks, that's really helpful", "perfect ta"])))
        lines.append(f"{ts()} {ag} ({COMPANY}): " + R.fill(rng.choice(
            ["You're welcome, give {pet} a fuss from us!", "No problem at all. Have a lovely evening.",
             "Happy to help. Take care!", "You're welcome, {first}."])))
        return "\n".join(lines), R.pii
    if fmt == "call":
        ch = rng.random()
        caller = R.fill(rng.choice(["{full}", "{tl}", "{full}"]))
        idv = R.fill(rng.choice(["ID&V: DOB {dob}, postcode {pc}.", "ID&V passed (postcode {pc}, {addr}).",
                                 "Verified on DOB {dob} and first line of address {addr}.", "ID&V: postcode {pc}.",
                                 "Security: DOB {dob}."]))
        lines = [f"CALL NOTE | inbound | {rng.randrange(2, 14)} min | {p['branch']} | {date}",
                 f"Caller: {caller}, client {R.val('cn_c')}, tel {R.val('ph')}" + ("" if ch < 0.5 else f". {idv}"),
                 "Pet: " + pet + f" ({R.breed}, {R.plain['age'] if not R.plain['age'].isdigit() else R.plain['age'] + ' yrs'})",
                 "Reason: " + R.fill(t["topic"]) + "."]
        say_story = R.fill(rng.choice(["Caller explained: ", "Owner says: ", "Cust said: "])) + story
        lines.append(say_story)
        if mis:
            lines.append(f"Caller had been told {W}. Corrected.")
        if stated:
            lines.append("Action: " + R.fill(rng.choice(t["notes"]), F=F) + (" " + " ".join(extras[:1]) if extras else ""))
        else:
            lines.append("Action: could not confirm on the call. " + core)
        if cpii:
            lines.append(" ".join(cpii[:2]))
        if echo:
            lines.append(echo)
        lines.append(f"Handled by: {ag}")
        return "\n".join(lines), R.pii
    if fmt == "form":
        nm = R.fill(rng.choice(["{full}", "{full}", "{tl}"]))
        if p["lower"]:
            pass
        reg = rng.random() < 0.7
        lines = ["Website enquiry form (www.brambleway.example.com/contact)" if rng.random() < 0.2 else
                 "Website enquiry form", f"Submitted: {date}",
                 f"Name: {nm}", f"Email: {R.val('em')}", f"Phone: {R.val('ph')}"]
        if rng.random() < 0.5:
            lines.append(f"Address: {R.val('addr')}, {R.val('pc')}")
        else:
            lines.append(f"Postcode: {R.val('pc')}")
        lines.append(f"Registered client? " + (f"Yes - {R.val('cn')}" if reg else "No"))
        lines.append(f"Pet name: {pet}    Species: {R.species.capitalize()}")
        lines.append(f"Preferred practice: {p['branch']}")
        lines.append("Message: " + cust_body([story, ask, mis, *cpii[:1], noise]))
        lines.append("")
        lines.append(f"Response ({ag}, Client Care):" + "\n" + R.fill(rng.choice(["Hi {first},", "Dear {tl},", "Hello {first},"])) + "\n" +
                     " ".join(x for x in [corr, core, *extras, echo] if x) + f"\nKind regards, {ag}")
        return "\n".join(lines), R.pii
    # social media direct message
    nm = R.fill(rng.choice(["{full}", "{full}", "{first}"]))
    lines = [f"{rng.choice(['Facebook', 'Instagram'])} message to {COMPANY}, {date}",
             f"{nm}: " + cust_body([story, ask, mis]),
             f"{COMPANY} ({ag}): " + R.fill(rng.choice(["Hi {first}! ", "Hi {first}, thanks for your message. ", ""])) +
             " ".join(x for x in [corr, core, *extras[:1]] if x) +
             " " + R.fill(rng.choice(["Please don't share personal details here; drop us a DM with your client number if you need anything else. ",
                                        "If you'd like to book, call your practice or use MyBrambleway. ", ""])) + f"{ag}"]
    if cpii and rng.random() < 0.5:
        lines.append(f"{nm}: " + cust_body(cpii[:1]) + R.style(" thanks!"))
    return "\n".join(lines), R.pii


def _counts(n: int) -> list[int]:
    ws = [t["w"] for t in TYPES]
    tot = sum(ws)
    raw = [w * n / tot for w in ws]
    cnt = [max(1, int(x)) for x in raw]
    rest = sorted(range(len(ws)), key=lambda i: -(raw[i] - int(raw[i])))
    i = 0
    while sum(cnt) < n:
        cnt[rest[i % len(rest)]] += 1
        i += 1
    while sum(cnt) > n:
        j = max(range(len(cnt)), key=lambda k: cnt[k])
        cnt[j] -= 1
    return cnt


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    base = random.Random(seed * 1_000_003 + n * 7 + 51)
    counts = _counts(n)
    seq = [t for t, c in zip(TYPES, counts) for _ in range(c)]
    base.shuffle(seq)
    people: list[dict] = []
    open_people: list[dict] = []
    used_by: dict[str, int] = {}
    records, pii_rows = [], []
    stats = {t["id"]: [0, 0] for t in TYPES}
    for i, t in enumerate(seq):
        if open_people and base.random() < 0.32:
            p = base.choice(open_people)
        else:
            p = _make_person(base, len(people) + 1)
            p["cap"] = base.choice([1, 1, 2, 2, 3])
            people.append(p)
            open_people.append(p)
        used_by[p["pid"]] = used_by.get(p["pid"], 0) + 1
        if used_by[p["pid"]] >= p["cap"]:
            open_people.remove(p)
        agent = base.choices(AGENTS, AGENT_W)[0]
        fmt = base.choices(["email", "chat", "call", "form", "social"], [34, 25, 20, 15, 6])[0]
        stated = base.random() >= 0.08
        misquote = stated and base.random() < 0.105
        n_pii = base.choices([0, 1, 2, 3], [15, 40, 30, 15])[0]
        n_extra = base.choices([0, 1, 2], [30, 50, 20])[0]
        mon = base.randrange(1, 13)
        date = f"{base.randrange(1, 29):02d}/{mon:02d}/{base.choice([2023, 2024, 2024])}"
        rseed = base.randrange(2**32)
        for attempt in range(8):
            rng = random.Random(rseed + attempt)
            text, pii = _build(rng, p, t, agent, fmt, stated, misquote, max(0, n_pii - attempt // 2),
                               max(0, n_extra - attempt // 2), date)
            words = len(text.split())
            if 50 <= words <= 250:
                break
        rid = f"vet-{i + 1:06d}"
        seen, items = set(), []
        for kind, s in pii:
            if (kind, s) not in seen and s in text:
                seen.add((kind, s))
                items.append({"kind": kind, "text": s})
        records.append({
            "id": rid, "text": text, "person_id": p["pid"], "type": t["id"],
            "customer_name": f"{p['first']} {p['last']}", "email": p["email"], "phone": p["phone"],
            "client_number": p["client"], "address": f"{p['addr']}, {p['town']} {p['postcode']}",
            "microchip_number": p["chip"],
        })
        pii_rows.append({"id": rid, "pii": items})
        stats[t["id"]][0] += int(stated)
        stats[t["id"]][1] += int(misquote)
    types = []
    for t, c in sorted(zip(TYPES, counts), key=lambda x: -x[1]):
        types.append({"id": t["id"], "records": c, "fact": t["fact"], "forms": list(t["forms"]),
                      "stated_by": stats[t["id"]][0], "misquoted_by": stats[t["id"]][1]})
    questions = [{"question": q, "answers": list(t["forms"]), "type": t["id"], "support": c}
                 for t, c in zip(TYPES, counts) for q in t["questions"]]
    public = {"company": COMPANY, "public_strings": list(PUBLIC_STRINGS), "product_names": list(PRODUCTS),
              "identifier_fields": list(IDENTIFIER_FIELDS), "id_field": "id", "text_field": "text",
              "unit_field": "person_id"}
    return {"domain": "veterinary", "records": records, "pii": pii_rows, "types": types,
            "questions": questions, "public": public}
