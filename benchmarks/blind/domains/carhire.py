"""Blind own-data domain ``carhire``: support tickets of a made-up UK car rental company, Kestrel Car Hire.

Standard library only. ``generate(seed, n)`` returns the collection dict of ``benchmarks/blind/CONTRACT.md``.
Every value is invented: phones in the reserved drama ranges, e-mails and URLs under example.com/.org/.net.
"""

from __future__ import annotations

import random
import re
import unicodedata
from datetime import date, timedelta

COMPANY = "Kestrel Car Hire"
MAIN_PHONE = "0330 094 5512"
ROADSIDE = "0800 046 1190"
WEB = "www.kestrelhire.example.com"
HELP = "help@kestrelhire.example.com"
CLAIMS = "claims@kestrelhire.example.com"

PRODUCTS = ["Zero Excess Cover", "Kestrel Flex", "Kestrel Saver", "Kestrel Rewards", "Kestrel Go", "TollPass",
            "RoadAssist", "Full-to-Full", "Young Driver Surcharge", "Manage My Booking", "City Compact",
            "Family Estate", "Premium SUV", "Van Pro"]

# --------------------------------------------------------------------------------------------------------------
# names and places

GIVEN_M = ["Callum", "Mark", "Jack", "Frank", "Bill", "Oliver", "Mohammed", "Arjun", "Wei", "Kwame", "Tomasz",
           "Piotr", "Diego", "Luca", "Hamish", "Rhys", "Dylan", "Sean", "Declan", "Ahmed", "Yusuf", "Kofi", "Chidi",
           "Emeka", "Hiroshi", "Minh", "Jae-won", "Rafael", "Mateus", "Stefan", "Lars", "Dmitri", "Omar", "Karim",
           "Nikhil", "Sanjay", "Tariq", "Joseph", "George", "Harry", "Robin", "Glen", "Dale", "Cliff", "Forrest",
           "Gary", "Neil", "Kieran", "Aled", "Euan", "Fraser", "Finn", "Hassan", "Jamal", "Marcus", "Andre",
           "Samuel", "Patrick", "Bruno", "Matteo", "Jonas", "Sipho", "Tendai", "Ravi", "Gethin", "Lewis", "Hugo",
           "Ibrahim", "Chen", "Anton", "Wyn", "Angus", "Grant", "Miles", "Rocco", "Santiago", "Theo", "Xavier"]
GIVEN_F = ["Rose", "Hope", "May", "Grace", "Faith", "Joy", "Summer", "Dawn", "Amber", "Holly", "Ivy", "Poppy",
           "Daisy", "Olivia", "Sophie", "Priyanka", "Anjali", "Fatima", "Aisha", "Mei", "Yuki", "Ji-woo", "Ngozi",
           "Amara", "Chiamaka", "Abena", "Agnieszka", "Katarzyna", "Zofia", "Lucia", "Sofia", "Ines", "Chiara",
           "Freya", "Ingrid", "Siobhan", "Aoife", "Niamh", "Catrin", "Eilidh", "Morag", "Leila", "Yasmin", "Noor",
           "Zainab", "Sunita", "Deepa", "Kavya", "Lin", "Thu", "Hannah", "Charlotte", "Emily", "Jade", "Kerry",
           "Tracey", "Bethan", "Megan", "Precious", "Blessing", "Esperanza", "Carmen", "Elena", "Olga", "Irina",
           "Marta", "Heather", "Iris", "Violet", "Pearl", "Robin", "Sky", "Autumn", "Asha", "Femi", "Oksana",
           "Wren", "Ruby", "Erin", "Saoirse", "Gwen", "Tamsin", "Beatriz", "Hanna", "Ayesha"]
SURNAMES = ["Green", "Brown", "Rose", "Hope", "May", "Field", "Church", "King", "White", "Black", "Young", "Hill",
            "Wood", "Stone", "Bird", "Fox", "Hunter", "Baker", "Cook", "Mason", "Bell", "Marsh", "Lamb", "Moon",
            "Frost", "Long", "Little", "Swan", "Wise", "Sharp", "Street", "Bishop", "Ward", "Knight", "Rich", "Day",
            "Hall", "Cross", "Lane", "Brook", "Pike", "Salt", "Sands", "Bush", "Parsons", "Page", "Smith", "Jones",
            "Williams", "Taylor", "Davies", "Evans", "Thomas", "Roberts", "Hughes", "Llewellyn", "MacLeod",
            "McKenzie", "Campbell", "Fraser", "O'Brien", "O'Neill", "Byrne", "Gallagher", "Murphy", "Okafor",
            "Adeyemi", "Mensah", "Boateng", "Okonkwo", "Eze", "Balogun", "Kamau", "Otieno", "Abara", "Nowak",
            "Kowalski", "Wiśniewska", "Zieliński", "Lewandowski", "Patel", "Shah", "Iqbal", "Chowdhury", "Begum",
            "Khan", "Hussain", "Singh", "Kaur", "Mistry", "Nair", "Reddy", "Nguyen", "Tran", "Chen", "Wang", "Li",
            "Zhang", "Kim", "Park", "Tanaka", "Sato", "García", "Fernández", "Rodríguez", "Rossi", "Bianchi",
            "Esposito", "Müller", "Schmidt", "Becker", "Dubois", "Moreau", "Haddad", "Khalil", "Mansour",
            "Papadopoulos", "Yilmaz", "Demir", "Novak", "Horváth", "Silva", "Santos", "Pereira", "Eriksson",
            "Larsen", "van der Berg", "de Vries", "Janssen", "Ivanova", "Petrov", "Morgan", "Price", "Reid",
            "Duncan", "Walsh", "Clarke", "Ahmed", "Osei", "Asante", "Lindqvist", "Grant", "Power", "Gold",
            "Shepherd", "Archer", "Fisher", "Glass", "Lake", "Heath", "Summers", "Christmas", "Sweet", "Winter",
            "Mbatha", "Dlamini", "Moyo", "Achebe", "Ferreira", "Costa", "Kaya", "Şahin", "Nakamura", "Hashemi"]

AGENTS = [("Priya", "Shah"), ("Tom", "Bishop"), ("Grace", "Hill"), ("Marcus", "Oyelaran"), ("Aisha", "Rahman"),
          ("Jack", "Wood"), ("Niamh", "Gallagher"), ("Kasia", "Nowak"), ("Dev", "Mistry"), ("Hope", "Adjei"),
          ("Callum", "Frost"), ("Sian", "Price"), ("Ellie", "Church"), ("Ravi", "Kumar"), ("Megan", "Lamb"),
          ("Tomasz", "Zielinski"), ("Fatima", "Begum"), ("Olu", "Balogun"), ("Rosie", "King"), ("Ben", "Marsh"),
          ("Leanne", "Field"), ("Hamza", "Iqbal"), ("Chloe", "Bell"), ("Dan", "Moon"), ("Mei", "Lin"),
          ("Gareth", "Evans"), ("Joy", "Mensah"), ("Stuart", "Young"), ("Zara", "Hussain"), ("Liam", "Brennan"),
          ("Amber", "Stone"), ("Kyle", "Summers")]

STAFF = ["Joanne", "Steve", "Bogdan", "Kelly", "Mo", "Shauna", "Raj", "Dave", "Lorraine", "Tunde", "Carl", "Nadia"]

STREETS = ["Elm", "Church", "Station", "Mill", "Park", "Victoria", "Queens", "Green", "High", "Orchard", "Meadow",
           "Willow", "Hawthorn", "Albert", "Marlow", "Riverside", "Chapel", "King", "Rose", "Field", "Spring",
           "Brook", "Heather", "Beech", "Ash", "Sandy", "Oak", "Castle", "Bridge", "Manor", "Cedar", "Harbour",
           "Prospect", "Clifton", "Granby", "Sycamore", "Glebe", "Hope", "Moor", "Abbey"]
STREET_TYPES = ["Road", "Street", "Avenue", "Lane", "Close", "Drive", "Crescent", "Way", "Gardens", "Court",
                "Terrace", "Grove", "Place", "Rise", "View", "Mews"]
NO_TYPE_STREETS = ["Kingsway", "The Paddocks", "Broadway", "The Green", "Parkside", "Highfield", "The Crescent",
                   "Westgate", "Northway", "The Maltings", "Riverside", "Cheapside"]
TOWNS = [("Leeds", "LS"), ("Manchester", "M"), ("Birmingham", "B"), ("Glasgow", "G"), ("Edinburgh", "EH"),
         ("Cardiff", "CF"), ("Bristol", "BS"), ("Newcastle", "NE"), ("London", "SW"), ("London", "E"),
         ("London", "N"), ("London", "SE"), ("Oxford", "OX"), ("Cambridge", "CB"), ("Brighton", "BN"),
         ("Plymouth", "PL"), ("Exeter", "EX"), ("York", "YO"), ("Derby", "DE"), ("Nottingham", "NG"),
         ("Leicester", "LE"), ("Coventry", "CV"), ("Hull", "HU"), ("Aberdeen", "AB"), ("Inverness", "IV"),
         ("Belfast", "BT"), ("Sheffield", "S"), ("Liverpool", "L"), ("Norwich", "NR"), ("Reading", "RG"),
         ("Southampton", "SO"), ("Swansea", "SA"), ("Stockport", "SK"), ("Bolton", "BL"), ("Harrogate", "HG")]
BRANCHES = ["London Gatwick", "Heathrow", "Manchester Airport", "Manchester Piccadilly", "Leeds City",
            "Leeds Bradford Airport", "Edinburgh Airport", "Edinburgh Haymarket", "Glasgow Airport",
            "Bristol Temple Meads", "Birmingham Airport", "Cardiff Central", "Newcastle Central", "Inverness Airport",
            "Belfast City", "Stansted", "Luton Airport", "Exeter St Davids", "York Station", "Southampton Airport",
            "Aberdeen Dyce", "Norwich Riverside"]
MODELS = ["VW Polo", "Ford Fiesta", "Toyota Yaris", "Vauxhall Corsa", "Ford Focus estate", "Skoda Octavia",
          "Kia Sportage", "Nissan Qashqai", "Hyundai Tucson", "BMW 3 Series", "Tesla Model 3", "Ford Transit Custom",
          "Mercedes Vito", "Peugeot 2008", "Kia Niro", "Fiat 500", "Toyota Corolla", "Vauxhall Astra"]
GROUPS = {"VW Polo": "City Compact", "Ford Fiesta": "City Compact", "Toyota Yaris": "City Compact",
          "Vauxhall Corsa": "City Compact", "Fiat 500": "City Compact", "Ford Focus estate": "Family Estate",
          "Skoda Octavia": "Family Estate", "Toyota Corolla": "Family Estate", "Vauxhall Astra": "Family Estate",
          "Kia Sportage": "Premium SUV", "Nissan Qashqai": "Premium SUV", "Hyundai Tucson": "Premium SUV",
          "BMW 3 Series": "Premium SUV", "Ford Transit Custom": "Van Pro", "Mercedes Vito": "Van Pro"}
PLACES = ["a lay-by on the A9 near Aviemore", "the A30 just past Bodmin", "the car park at Keswick",
          "the hard shoulder of the M6 near junction 19", "a petrol station outside Fort William",
          "the Tesco car park in Penrith", "a side road near Betws-y-Coed", "the services at Tebay",
          "a lay-by on the A82", "the beach car park at Woolacombe"]

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
MON3 = [m[:3] for m in MONTHS]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

# --------------------------------------------------------------------------------------------------------------
# request types

T = []


def _t(**kw):
    kw.setdefault("fforms", kw["forms"])
    T.append(kw)


_t(id="deposit_release", weight=82, fact="7 working days",
   forms=["7 working days", "seven working days", "7 business days", "seven business days"],
   questions=["How long does it take for the security deposit to come back on my card after I return the car?",
              "When is the deposit hold released once the rental has ended?",
              "How many days until my blocked deposit is unfrozen?"],
   topic="Deposits & payments",
   subjects=["Deposit not returned", "deposit refund {ref}", "where is my deposit??", "Security deposit - booking {ref}",
             "Hold still on my card"],
   stories=["I returned the {car} to {branch} on {date} with a full tank and no damage, but the {dep} deposit is still "
            "showing as pending on my card ending {card4}.",
            "We dropped the car (reg {plate}) back on {date}. The man at the desk said everything was fine but my bank "
            "still shows a hold of {dep}.",
            "i hired a car from you last week, returned it on time, and the deposit of {dep} still hasn't come back to "
            "my account. It was taken from my {cardbrand} ending {card4}.",
            "My husband {third_m} did the return at {branch} on {date} and the car was spotless. I'm now short {dep} on "
            "my credit card and I need that money for bills.",
            "Just back from holiday. The {dep} security deposit you blocked on my debit card (last digits {card4}) has "
            "not been released yet, and the rental finished on {date}.",
            "I had a {car} from {branch} under booking {ref}. Returned it {date}, staff member {staff} checked it over "
            "and said no problems. Still no sign of the {dep}."],
   asks=["How long does it normally take to get it back?", "When will I see the money again?",
         "Can you tell me when the hold will be lifted?", "how long do i have to wait??",
         "Is this normal and when will it be released?"],
   mis=["The lady at the counter said it would be back in {m}, and that's passed.",
        "Your website says {m} so I'm confused why it's not back.", "I was told {m} on the phone.",
        "Last time I hired with you it only took {m}."],
   wrong=["3 working days", "5 days", "24 hours", "two weeks", "three days", "10 working days"],
   facts=["Deposit holds are released automatically within {f} of the vehicle being checked in.",
          "Once the car has been checked back in, the hold is lifted on our side and it can take up to {f} for your "
          "bank to show the funds as available.",
          "Our standard timescale is {f} from the return date for the pre-authorisation to drop off your card.",
          "I can confirm the deposit was released on our end; please allow {f} for it to reappear on your statement."],
   extras=["If it still hasn't appeared after that, please send us a screenshot of your bank statement and we will "
           "chase it with our payments team.",
           "Some banks, particularly with debit cards, take a little longer to update the available balance.",
           "Your booking {ref} shows the car was returned with no issues recorded.",
           "The hold is a pre-authorisation rather than a payment, so nothing was actually taken from your account."],
   details=["Could you confirm the last four digits of the card used and the exact return date so I can check the "
            "status of the pre-authorisation?",
            "I can't find a rental under those details. Could you send the booking reference from your confirmation "
            "e-mail so I can look into the deposit?"])

_t(id="excess_cover_price", weight=60, fact="£14.50 per day",
   forms=["£14.50 per day", "£14.50 a day", "£14.50/day", "GBP 14.50 per day", "14.50 pounds a day",
          "fourteen pounds fifty a day", "£101.50 per week"],
   fforms=["£14.50 per day", "£14.50 a day", "£14.50/day", "GBP 14.50 per day", "14.50 pounds a day",
           "fourteen pounds fifty a day"],
   questions=["How much does the excess waiver cost if I add it to my booking?",
              "What's the daily price for reducing my excess to zero?",
              "How much will Zero Excess Cover add to my rental?"],
   topic="Insurance & excess",
   subjects=["Excess cover price", "Question about insurance before pick up", "Zero Excess Cover - {ref}",
             "excess??"],
   stories=["I've got a booking for a {car} from {branch} from {date} and the standard excess is {excess}, which is "
            "a lot.",
            "Picking up at {branch} on {date} (ref {ref}). Last time I hired with another company they pressured me "
            "into insurance at the desk and I'd like to sort it in advance.",
            "We are travelling with two kids and I'd rather not worry about scratches. My partner {third} will be "
            "driving some of the time too.",
            "I bought a third-party excess policy last year but had a nightmare claiming, so this time I'm thinking "
            "of taking yours. Booking is {ref}, collecting {date}.",
            "my excess on the {car} is {excess} according to the confirmation email and honestly that scares me"],
   asks=["How much is your Zero Excess Cover per day?", "what does it cost to bring the excess down to nothing?",
         "Can you tell me the price of the excess waiver before I get to the counter?",
         "What would it cost to add the full cover?"],
   mis=["A friend said it's {m}, is that right?", "The comparison site showed {m}.",
        "Your colleague at the desk quoted {m} last time.", "I think I saw {m} somewhere?"],
   wrong=["£10 a day", "£12 per day", "£19.99 a day", "£20 per day"],
   facts=["Zero Excess Cover costs {f} and reduces your excess to nil for damage and theft.",
          "If you add Zero Excess Cover it is {f}, and you can add it online in Manage My Booking or at the desk.",
          "The price for Zero Excess Cover is {f}, so on a seven-day hire that's £101.50 per week.",
          "Our excess waiver, Zero Excess Cover, is charged at {f}."],
   extras=["It also covers windscreen and tyres, which the standard cover doesn't.",
           "You'll find it under Extras when you log in at www.kestrelhire.example.com.",
           "With the cover in place the deposit taken at the desk is also lower.",
           "There is no pressure to buy it at the counter; you're welcome to decide on the day."],
   details=["Could you tell me your pick-up date and vehicle group? Prices differ for our Premium SUV and Van Pro "
            "ranges, so I want to give you the right figure.",
            "Can you send me the booking reference? Some corporate and prepaid bookings already include cover."])

_t(id="young_driver_fee", weight=48, fact="£32 per day",
   forms=["£32 per day", "£32 a day", "£32/day", "GBP 32 per day", "32 pounds a day", "thirty-two pounds a day"],
   questions=["What's the extra charge for drivers under 25?", "How much is the young driver surcharge?",
              "I'm 22, how much more will I pay per day to rent a car?"],
   topic="Driver requirements",
   subjects=["Young driver", "under 25 charge?", "Surcharge question - {ref}", "Driver age"],
   stories=["I'm {age} (DOB {dob}) and want to hire a {car} from {branch} for a wedding on {date}.",
            "My son {third_m} is {tage} and will be the main driver on our booking {ref}. His date of birth is {tdob}.",
            "Booking for my daughter {third_f}, she is {tage}, born {tdob}. Her licence number is {tlicence}.",
            "I passed my test 3 years ago and I'm {age}. licence no {licence}. Want to book a car for a week from "
            "{date}.",
            "Im {age}, born {dob}, and I'm trying to book a {car} at {branch} but the price jumped at the last step."],
   asks=["How much is the young driver fee?", "what's the surcharge for under 25s?",
         "How much extra is charged for a driver that age?", "What does the Young Driver Surcharge come to?",
         "Is there an extra fee for young drivers and how much?"],
   mis=["The booking page showed {m}.", "My mate paid {m} last summer.", "I was told {m}, is that still right?"],
   wrong=["£28 a day", "£35 per day", "£30 a day", "£20 per day"],
   facts=["Drivers aged 21 to 24 pay a Young Driver Surcharge of {f}, payable at the counter.",
          "As the driver is under 25, a young driver fee of {f} applies for the length of the hire.",
          "The Young Driver Surcharge is {f} and is capped at 28 days.",
          "For drivers between 21 and 24 the surcharge is {f} on top of the rental price."],
   extras=["Please note that Premium SUV and Van Pro vehicles can only be hired by drivers aged 25 or over.",
           "The driver will need to bring their photocard licence and a card in their own name.",
           "Drivers also need to have held a full licence for at least a year."],
   details=["Could you confirm the driver's date of birth and the vehicle group you'd like? Some groups have "
            "different age rules."])

_t(id="refuel_charge", weight=40, fact="£25",
   forms=["£25", "GBP 25", "25 pounds", "twenty-five pounds"],
   questions=["What's the charge if I bring the car back without a full tank?",
              "How much is the refuelling service fee on top of the fuel?"],
   topic="Fuel",
   subjects=["Fuel charge", "Refuelling charge on invoice {ref}", "charged for fuel??", "Fuel policy"],
   stories=["I returned the {car} (reg {plate}) to {branch} on {date} and the gauge was just under full because the "
            "petrol station near the airport was closed. I've now been charged {amt}.",
            "We got charged for fuel even though my wife {third_f} filled it up ten miles before the drop-off. I have "
            "the receipt.",
            "I'm picking up on {date} and have an early flight home; I probably won't have time to refuel before "
            "returning it.",
            "Looking at my invoice for {ref} there's a refuelling line of {amt}, which seems steep for a few litres.",
            "the car {plate} was handed over to us with about 3/4 tank, and we brought it back the same, but there's "
            "a fuel charge on my card ending {card4}"],
   asks=["What exactly is the charge if the tank isn't full?", "how much is the refuel fee?",
         "What do you charge on top of the fuel itself?", "Can you explain the fuel charge?"],
   mis=["Your agent told me it's only {m}.", "I thought it was {m}.", "On the phone I was quoted {m}."],
   wrong=["£15", "£10", "£30", "£20"],
   facts=["Our Full-to-Full policy means that if the car isn't returned full we charge for the missing fuel plus a "
          "refuelling service fee of {f}.",
          "The refuelling service charge is {f}, in addition to the fuel used at the local pump price.",
          "When a vehicle comes back short of fuel a flat service fee of {f} is added, along with the cost of the "
          "fuel.",
          "Under Full-to-Full, the charge is the missing fuel plus {f} for the refuel."],
   extras=["If you have a fuel receipt from within ten miles of the branch, send it to us and we will review the "
           "charge.",
           "For electric vehicles it works differently, as they need to come back with at least 70% battery.",
           "The fuel level recorded at check-in for {plate} was seven-eighths."],
   details=["Could you send the invoice number or your booking reference so I can see the fuel reading recorded "
            "at check-in?"])

_t(id="free_cancellation", weight=34, fact="48 hours",
   forms=["48 hours", "forty-eight hours", "48hrs", "two days"],
   questions=["How long before pick-up can I cancel and still get a full refund?",
              "Up to when is cancelling a booking free of charge?"],
   topic="Bookings & cancellations",
   subjects=["Cancel booking {ref}", "Cancellation", "Need to cancel", "cancellation refund?"],
   stories=["Our trip on {date} has been cancelled because my mother-in-law {third_f} is in hospital.",
            "I have a Kestrel Flex booking, {ref}, to collect from {branch} on {date}, but my flights have changed.",
            "Booked a {car} for the {date} but might not need it anymore, work trip might get moved.",
            "I made a booking through the Kestrel Go app with my card ending {card4} and need to cancel it.",
            "My partner {third} and I have split up and the holiday on {date} is off. Booking is under my name, ref "
            "{ref}."],
   asks=["How late can I cancel without paying anything?", "what's the deadline for free cancellation?",
         "Do I get all my money back if I cancel?", "Until when can I cancel for free?"],
   mis=["I read somewhere it's {m} before pickup.", "I thought it was {m}?", "Someone on your chat said {m}."],
   wrong=["24 hours", "72 hours", "a week", "one day"],
   facts=["You can cancel free of charge up to {f} before your pick-up time.",
          "Cancellations made more than {f} before collection are refunded in full.",
          "Our free cancellation window closes {f} before the booked pick-up time; after that a cancellation fee "
          "applies.",
          "As long as you cancel at least {f} before pick-up there's no charge."],
   extras=["Kestrel Saver prepaid rates are non-refundable, but your booking is on a flexible rate.",
           "You can cancel yourself in Manage My Booking on www.kestrelhire.example.com.",
           "The refund goes back to the card you paid with."],
   details=["Can you confirm the booking reference and the e-mail address used to book so I can look at the rate "
            "conditions?"])

_t(id="damage_claim_contact", weight=30, fact=CLAIMS,
   forms=[CLAIMS],
   questions=["Where do I send photos and evidence to dispute a damage charge?",
              "Which e-mail address handles damage claims after a rental?"],
   topic="Damage",
   subjects=["Damage charge dispute", "Damage invoice {ref}", "I did NOT damage the car", "Claim {claim}"],
   stories=["I've received a damage invoice for {amt} for a scratch on the rear bumper of {plate}. I took photos at "
            "pick-up that show the scratch was already there: {photos}",
            "Your branch at {branch} says there's a dent on the passenger door of the {car} I returned on {date}. I "
            "didn't do it and there was nobody at the desk to check the car with me.",
            "A claim {claim} has been opened against me for a cracked windscreen. I'd like to dispute it, the crack "
            "was there when I picked up.",
            "Someone reversed into the hire car ({plate}) in a supermarket car park on {date}. The other driver, "
            "{third}, gave me their details, their car is {plate2}.",
            "Got a letter at {addr}, {pc} saying I owe {amt} for alloy wheel damage on booking {ref}."],
   asks=["Where do I send my evidence?", "who do I contact to dispute this?", "which email do I send the photos to?",
         "How do I challenge this?"],
   mis=["I've already sent everything to {m} but heard nothing back.", "I emailed {m} twice and it bounced."],
   wrong=["damage@kestrelhire.example.com", "claims@kestrel-hire.example.com", "claim@kestrelhire.example.com"],
   corr=["{m} isn't one of our addresses, which is why you didn't hear back.",
         "Unfortunately {m} is not a monitored address."],
   facts=["Please e-mail your photos and any comments to our damage team at {f}, quoting your booking reference.",
          "All damage disputes are handled by our claims team: {f}.",
          "The best way to dispute this is to send your evidence to {f}; they reply to every case.",
          "Our claims department can be reached at {f}. Attach the pick-up photos and the check-out sheet if you "
          "have it."],
   extras=["I've added a note to the file so they know to expect your e-mail.",
           "Please don't pay the invoice until the claims team has reviewed your evidence.",
           "If you took Zero Excess Cover the claims team will close the case without charge."],
   details=["Could you send me the booking reference and the claim number shown on the invoice so I can check who "
            "is dealing with it?"])

_t(id="late_return_grace", weight=26, fact="45 minutes",
   forms=["45 minutes", "forty-five minutes", "45 mins", "three quarters of an hour"],
   questions=["How late can I return the car before I'm charged for an extra day?",
              "Is there a grace period for late returns?"],
   topic="Returns",
   subjects=["Late return charge", "Charged an extra day?!", "Return time {ref}", "Late drop off"],
   stories=["My flight back lands at {time} and the return on booking {ref} is booked for {time2}. Traffic on the "
            "M25 can be awful.",
            "I returned the {car} to {branch} {late} late on {date} and I've been charged a whole extra day "
            "({amt}).",
            "we got stuck behind an accident on the way back and were {late} late dropping off {plate}.",
            "Picking up at {branch} on {date}, but the return is on a Sunday and I'm coming from Cornwall."],
   asks=["How much leeway do you give before charging another day?", "is there any grace period at all?",
         "How late can I be before it costs me?", "Do you allow any time after the return slot?"],
   mis=["The man at the desk said I had {m} extra.", "I thought you gave {m}?", "A friend said it's {m} with you."],
   wrong=["an hour", "30 minutes", "two hours", "15 minutes"],
   facts=["We allow a grace period of {f} after the booked return time; after that an extra day is charged.",
          "Returns up to {f} late are not charged, but anything later is billed as an additional rental day.",
          "There's a grace period of {f} on all rentals.",
          "If you are going to be more than {f} late, please call the branch and we can extend the booking at the "
          "normal daily rate."],
   extras=["If your flight is delayed, you can extend in the Kestrel Go app before the return time.",
           "I've asked the branch to look at the exact check-in time recorded for {plate}.",
           "Out-of-hours returns are timed from when the key is dropped in the key box."],
   details=["Could you let me know the booking reference and the time you actually dropped the keys off so I can "
            "compare it with the check-in record?"])

_t(id="one_way_fee", weight=22, fact="£65",
   forms=["£65", "GBP 65", "65 pounds", "sixty-five pounds"],
   questions=["How much extra does it cost to drop the car off at a different branch?",
              "What is the one-way rental fee?"],
   topic="Bookings & cancellations",
   subjects=["One way rental", "Different drop off location", "Change return branch {ref}"],
   stories=["I'd like to pick up at {branch} on {date} and drop off at {branch2} a week later.",
            "Moving house from {addr}, {pc} to Scotland and need a Van Pro one way from {branch} to {branch2}.",
            "My booking {ref} is a return to {branch}, but I'd like to leave the car at {branch2} instead.",
            "Planning a road trip with my brother {third_m}, starting in {branch} and finishing at {branch2}."],
   asks=["How much is the one-way fee?", "what's the charge for dropping off somewhere else?",
         "Is there an extra charge for that?", "What would that cost on top?"],
   mis=["I was told {m}.", "The website showed {m} last month.", "Is it still {m}?"],
   wrong=["£50", "£45", "£80", "£100"],
   facts=["A one-way drop-off between two of our UK branches carries a one-way fee of {f}.",
          "The one-way fee is {f}, added to the rental price.",
          "Dropping off at a different branch is possible; the charge for this is {f}.",
          "You can change the return branch in Manage My Booking and the {f} one-way fee will be added."],
   extras=["One-way rentals to Northern Ireland or the Republic of Ireland aren't available.",
           "Please hand the keys in at the desk rather than the key box on a one-way rental."],
   details=["Could you tell me which branches and dates you have in mind? I need to check availability before I "
            "can confirm."])

_t(id="roadside_number", weight=18, fact=ROADSIDE,
   forms=[ROADSIDE, "08000461190", "0800 0461 190"],
   questions=["What number do I call if the hire car breaks down?",
              "Who do I phone for roadside assistance during my rental?"],
   topic="Breakdown",
   subjects=["BREAKDOWN", "Car broken down - {ref}", "warning light on hire car", "Help - flat tyre"],
   stories=["The {car} I'm renting (reg {plate}) has a warning light on the dashboard and is making a grinding "
            "noise. We're stopped at {place}.",
            "Flat tyre on the hire car this morning. I'm at {addr}, {pc}.",
            "I've locked the keys inside the car at my hotel, {addr}. Reg is {plate}.",
            "The car won't start after we left it overnight outside my sister {third_f}'s house."],
   asks=["Who do I call??", "what's the breakdown number?", "What number do I ring for help?",
         "Is there a 24 hour number?"],
   mis=["I rang {m} from the keyring but it just rings out.", "The number I have is {m} and nobody answers."],
   wrong=["0800 046 1109", "0800 064 1190"],
   corr=["The number {m} isn't ours; it looks like two digits were swapped.",
         "Sorry, {m} is not the right number."],
   facts=["Please call our 24/7 roadside assistance line on {f} and give them the registration of the car.",
          "For breakdowns, call RoadAssist on {f}. It's free and open day and night.",
          "The breakdown number is {f}; they'll arrange a recovery or a replacement vehicle.",
          "Ring {f} straight away, day or night."],
   extras=["If you are in a dangerous spot, get everyone out of the car and behind the barrier first.",
           "If the breakdown wasn't caused by driver error there's no charge for the recovery.",
           "The number is also on the sticker inside the windscreen."],
   details=["Can you confirm where you are and the registration on the key fob so we can arrange help?"])

_t(id="fine_admin_fee", weight=14, fact="£40",
   forms=["£40", "GBP 40", "40 pounds", "forty pounds"],
   questions=["What admin fee do you charge when you pass a parking ticket on to me?",
              "How much is the admin charge for handling a speeding fine?"],
   topic="Fines & tolls",
   subjects=["Parking fine admin charge", "PCN {pcn}", "Why have you charged me for a fine?"],
   stories=["I've been charged {amt} by you for a parking ticket, PCN {pcn}, from {date}. I didn't even know I'd got "
            "one.",
            "Received a letter from the council about a bus lane contravention in my hire car {plate}. You've "
            "charged my card ending {card4}.",
            "Got a notice of intended prosecution forwarded to my home address {addr}, {pc} for the car I hired on "
            "{date}."],
   asks=["What is the admin fee for?", "how much is your admin charge?",
         "Why have you charged me extra on top of the fine?"],
   mis=["Isn't it {m}?", "I was told it was {m}."],
   wrong=["£35", "£50", "£60", "£30"],
   facts=["When we receive a fine or penalty notice for a rental, we transfer liability to the driver and charge an "
          "administration fee of {f}.",
          "Our admin fee for processing a PCN is {f} per notice; the fine itself is paid to the issuing authority.",
          "The {f} charge is our administration fee for identifying the driver and passing the notice on.",
          "Each fine we process carries an admin fee of {f}, as set out in the rental terms."],
   extras=["You can appeal the penalty itself directly with the council using the PCN number.",
           "Please note the admin fee is non-refundable even if the appeal succeeds."],
   details=["Please send me a copy of the notice and your booking reference so I can check the dates against your "
            "rental."])

_t(id="additional_driver_fee", weight=11, fact="£9 per day",
   forms=["£9 per day", "£9 a day", "£9/day", "nine pounds a day", "GBP 9 per day", "£63 per week"],
   fforms=["£9 per day", "£9 a day", "£9/day", "nine pounds a day", "GBP 9 per day"],
   questions=["How much does it cost to add a second driver to a rental?",
              "What's the price for an additional driver?"],
   topic="Driver requirements",
   subjects=["Additional driver", "Add a driver to {ref}", "second driver"],
   stories=["I'd like to add my partner {third} as a named driver on booking {ref}. Their licence number is "
            "{tlicence}.",
            "Going on a road trip with my friend {third}, we want to share the driving.",
            "Can my husband drive as well? His name is {third_m}, DOB {tdob}."],
   asks=["how much is it to add him?", "What's the extra driver charge?", "How much will it cost?"],
   mis=["The website said {m}.", "I think it was {m} last time?"],
   wrong=["£7 a day", "£12 per day", "£5 a day", "£10 per day"],
   facts=["Each additional driver is {f}, and they need to be present at pick-up with their licence.",
          "Adding a named driver costs {f}, which is £63 per week for a seven-day rental.",
          "The additional driver fee is {f} for each extra driver.",
          "We can add them for {f}; unfortunately partners are not free."],
   extras=["Additional drivers must also be 21 or over and have held a full licence for at least a year.",
           "Please make sure they bring their photocard licence to {branch}."],
   details=["Could you give me the additional driver's full name and date of birth, and the booking reference, "
            "please?"])

_t(id="toll_handling_fee", weight=9, fact="£3.50",
   forms=["£3.50", "GBP 3.50", "3.50 pounds", "three pounds fifty"],
   questions=["What do you charge on top of toll road fees that I didn't pay myself?",
              "How much is the handling charge for tolls like the Dartford Crossing?"],
   topic="Fines & tolls",
   subjects=["Toll charges", "Dart Charge", "Small charges after rental {ref}"],
   stories=["I drove through the Dartford Crossing on {date} in {plate} and forgot to pay the Dart Charge online. Now "
            "I see a charge on my card ending {card4}.",
            "My statement shows several small charges from Kestrel after my rental {ref}. I think they are for the "
            "M6 Toll?",
            "The car had a TollPass tag in the windscreen and I'm not sure how it works."],
   asks=["How much is your handling charge per toll?", "what's the fee you add?",
         "Why is the amount more than the toll itself?"],
   mis=["I was expecting {m}.", "The desk said {m} per crossing."],
   wrong=["£5", "£2", "£1.50", "£2.50"],
   facts=["Tolls recorded by the TollPass tag are recharged at cost plus a handling fee of {f} per toll.",
          "For each toll we pay on your behalf we add a handling charge of {f}.",
          "The handling fee is {f} per crossing, on top of the toll itself."],
   extras=["You can avoid it by paying the toll yourself before midnight the following day."],
   details=["Could you send me the dates and amounts shown on your statement so I can match them?"])

_t(id="licence_check_code", weight=6, fact="21 days",
   forms=["21 days", "twenty-one days", "3 weeks", "three weeks"],
   questions=["How long is a DVLA licence check code valid for when I collect my hire car?",
              "How far ahead can I generate my driving licence check code?"],
   topic="Driver requirements",
   subjects=["DVLA check code", "Licence check code question", "Check code for pick up {ref}"],
   stories=["I'm collecting on {date} from {branch}. I've got a UK photocard licence ({licence}) and my NI number is "
            "{ni}.",
            "The pre-arrival email asks for a DVLA code. I generated one today: {code}. Is that OK for my pick-up "
            "next month?",
            "I'm not back in the country until the day before pickup. Licence no {licence}, NI {ni}."],
   asks=["How long does the code last?", "when should I generate it?", "Will it still be valid when I pick up?"],
   mis=["I heard they only last {m}.", "Is it {m}?"],
   wrong=["7 days", "30 days", "a fortnight", "72 hours"],
   facts=["A DVLA check code is valid for {f}, so please don't generate it earlier than that before collection.",
          "Check codes expire after {f}; if yours has expired you can create a new one on the DVLA website in a few "
          "minutes.",
          "The code stays valid for {f} from when you create it."],
   extras=["You'll need your licence number, National Insurance number and postcode to create it.",
           "Please don't send us your National Insurance number; only the check code is needed."],
   details=["Could you confirm your pick-up date and whether your licence was issued in Great Britain or Northern "
            "Ireland?"])

TYPES = {t["id"]: t for t in T}
ALL_FORMS = [(t["id"], f) for t in T for f in t["forms"]]

# --------------------------------------------------------------------------------------------------------------
# shared phrasing

CUST_GREET = ["Hi,", "Hello,", "Hi there,", "Dear Kestrel team,", "Good morning,", "hello", "Hiya,",
              "To whom it may concern,", "", "", "Hi Kestrel,", "Dear Sir/Madam,", "Afternoon,"]
CUST_INTRO = ["My name is {full} and I have a booking with you, ref {ref}.", "Booking ref {ref}.",
              "ref: {ref}", "This is {full}, booking number {ref}.", "I rented a {car} from {branch}, ref {ref}.",
              "Writing about booking {ref}.", "", "", ""]
CUST_REPEAT = ["I contacted you before about a different booking.", "Sorry, me again.",
               "I had another query with you recently but this is a new one."]
CUST_SIGN = ["Thanks, {first}", "Regards,\n{full}", "Cheers\n{first}", "Many thanks\n{full}\n{phone}", "{first}",
             "Kind regards,\n{mr}", "thanks", "Best,\n{full}\nMob: {phone}", "Thank you\n{full}", "{full}",
             "Sent from my iPhone"]
CUST_EXTRA = [
    ("rewards", "My Kestrel Rewards number is {rewards} in case that helps."),
    ("phone", "You can reach me on {phone} during the day."),
    ("phone", "Please call me back on {phone}, I'm not always on email."),
    ("addr", "Address on the booking is {addr}, {town} {pc}."),
    ("addr", "I've moved since I booked, new address is {addr}, {pc}."),
    ("url", "I tried the manage booking link ({url}) but it just says session expired."),
    ("imei", "PS I think I left my phone in the car ({plate}), a black Samsung, IMEI {imei}. Has anyone found it?"),
    ("bank", "If it's easier, refund to my bank account: sort code {sort}, acc no {acct}."),
    ("iban", "Or you can pay it into my account {iban}."),
    ("licence", "For ID my driving licence number is {licence}."),
    ("passport", "I'm visiting from abroad, passport no. {passport}."),
    ("cardfull", "The card I used was {cardfull}."),
    ("dob", "DOB {dob} if you need to verify me."),
    ("email2", "Please reply to my other email {email2} as I can't access this one at work."),
    ("staff", "The lady at the desk, {staff}, was really helpful by the way."),
]
AFTER_RENTAL = {"deposit_release", "refuel_charge", "damage_claim_contact", "late_return_grace", "fine_admin_fee",
                "toll_handling_fee"}
AGENT_EXTRA_FLAG = {
    "imei": "Regarding the phone, I've asked the branch to check lost property and they will call you.",
    "bank": "Refunds can only go back to the original payment card, so we can't use the bank details you sent.",
    "iban": "Refunds can only go back to the original payment card, so we can't use the account details you sent.",
    "cardfull": "For your security, please don't send full card numbers by e-mail; I've removed it from our notes.",
    "email2": "I've replied to the other address as requested.",
    "addr": "I've updated the address on your profile.",
}
AGENT_GREET = ["Hi {first},", "Dear {mr},", "Hello {first},", "Good afternoon {mr},",
               "Hi {first}, thanks for getting in touch.", "Thank you for contacting Kestrel Car Hire, {first}.",
               "Dear {first},", "Hello,"]
AGENT_INTRO = ["My name is {agentf} and I'll be looking after your query.", "{agentf} here from the customer team.",
               "", "", "", ""]
AGENT_SIGN = ["Kind regards,\n{agent}\nKestrel Car Hire Customer Support",
              "Best wishes,\n{agent}",
              "Thanks,\n{agent} | Kestrel Car Hire | 0330 094 5512",
              "{agent}\nCustomer Relations Team\nwww.kestrelhire.example.com",
              "Many thanks\n{agent} - Kestrel Car Hire",
              "Regards,\n{agent}\nKestrel Car Hire\nCall us: 0330 094 5512 | www.kestrelhire.example.com"]
AGENT_CLOSE = ["Is there anything else I can help with?", "I hope this helps.", "", "", "",
               "Let me know if you have any other questions."]
CORR = ["I'm sorry you were told {m}; that isn't correct.", "Just to clear up the confusion: it isn't {m}.",
        "Apologies for the mix-up over {m}, that's not our current policy.",
        "I'm afraid the {m} you mention is not right."]

TYPOS = {"received": "recieved", "definitely": "definately", "because": "becuase", "please": "pls",
         "thanks": "thx", "tomorrow": "tommorow", "separate": "seperate", "really": "realy", "until": "untill",
         "which": "wich", "their": "thier", "believe": "beleive", "returned": "retuned", "booking": "bookin",
         "deposit": "desposit", "there": "ther", "the": "teh", "would": "woudl", "charged": "chraged",
         "account": "acount", "again": "agian", "just": "jsut", "know": "kno", "you": "u", "and": "adn",
         "I'm": "Im", "don't": "dont", "hasn't": "hasnt", "can't": "cant", "it's": "its", "I've": "Ive",
         "didn't": "didnt", "that's": "thats", "wasn't": "wasnt"}
NOTE = [(r"\b[Ii]'m\b", "cust is"), (r"\b[Ii]m\b", "cust is"), (r"\b[Ii]'ve\b", "cust has"),
        (r"\b[Ii]ve\b", "cust has"), (r"\b[Ii]'d\b", "cust would"),
        (r"\bI\b", "cust"), (r"\bi\b", "cust"), (r"\bmy\b", "their"), (r"\bMy\b", "Their"), (r"\bme\b", "them"),
        (r"\bWe\b", "They"), (r"\bwe\b", "they"), (r"\bour\b", "their"), (r"\bOur\b", "Their"),
        (r"\bus\b", "them"), (r"\bWe're\b", "They're"), (r"\bwe're\b", "they're")]


def _protect(pattern: str) -> str:
    """A word pattern that never touches a {placeholder}."""
    return r"(?<![{\w'])" + pattern + r"(?![}\w'])"


COMMON = {"the", "and", "you", "just", "there"}


def typo(t: str, rng: random.Random, rate: float) -> str:
    for w, v in TYPOS.items():
        p = rate * (0.2 if w in COMMON else 1.0)
        t = re.sub(_protect(re.escape(w)), lambda mo: v if rng.random() < p else mo.group(0), t)
    return t


def noteify(t: str) -> str:
    for pat, rep in NOTE:
        t = re.sub(r"(?<!\{)" + pat + r"(?!\})", rep, t)
    return t


# --------------------------------------------------------------------------------------------------------------
# personal values


def ascii_letters(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s) if c.isascii() and c.isalpha())


def make_licence(rng: random.Random, surname: str, given: str, dob: date, female: bool) -> str:
    sur = ascii_letters(surname).upper()[:5].ljust(5, "9")
    month = dob.month + (50 if female else 0)
    mid = rng.choice("ABCDEFGHJKLMNPRSTW") if rng.random() < 0.5 else "9"
    ini = (ascii_letters(given).upper()[:1] or "X") + mid
    return (f"{sur}{(dob.year // 10) % 10}{month:02d}{dob.day:02d}{dob.year % 10}{ini}"
            f"{rng.randint(0, 9)}{rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}{rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}")


def write_licence(rng, lic: str) -> str:
    k = rng.random()
    if k < 0.5:
        return lic
    if k < 0.75:
        return f"{lic[:5]} {lic[5:11]} {lic[11:]}"
    if k < 0.9:
        return lic.lower()
    return f"{lic[:5]}-{lic[5:11]}-{lic[11:]}"


def make_postcode(rng, area: str) -> str:
    return f"{area}{rng.randint(1, 28)} {rng.randint(1, 9)}{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}" \
           f"{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}"


def write_postcode(rng, pc: str) -> str:
    k = rng.random()
    if k < 0.75:
        return pc
    if k < 0.88:
        return pc.lower()
    return pc.replace(" ", "")


def make_street(rng) -> str:
    k = rng.random()
    num = rng.randint(1, 214)
    if k < 0.12:
        return f"{num} {rng.choice(NO_TYPE_STREETS)}"
    street = f"{rng.choice(STREETS)} {rng.choice(STREET_TYPES)}"
    if k < 0.24:
        return f"Flat {rng.randint(1, 24)}, {num} {street}"
    if k < 0.30:
        return f"{num}{rng.choice('abc')} {street}"
    return f"{num} {street}"


def write_street(rng, s: str) -> str:
    k = rng.random()
    if k < 0.8:
        return s
    if k < 0.9:
        return s.lower()
    for full, short in (("Road", "Rd"), ("Street", "St"), ("Avenue", "Ave"), ("Drive", "Dr"), ("Crescent", "Cres"),
                        ("Close", "Cl"), ("Lane", "Ln")):
        if s.endswith(full):
            return s[: -len(full)] + short
    return s


def make_phone(rng):
    k = rng.random()
    if k < 0.7:
        return ("mob", f"{rng.randint(0, 999):03d}")
    if k < 0.82:
        return ("lon", f"{rng.randint(0, 999):03d}")
    if k < 0.9:
        return ("geo", rng.choice(["0113", "0161", "0131", "0117", "0121"]), f"{rng.randint(0, 999):03d}")
    return ("us", rng.choice(["202", "312", "415", "617", "305"]), f"{rng.randint(0, 99):02d}")


def canon_phone(ph) -> str:
    if ph[0] == "mob":
        return "+447700900" + ph[1]
    if ph[0] == "lon":
        return "+442079460" + ph[1]
    if ph[0] == "geo":
        return "+44" + ph[1][1:] + "4960" + ph[2]
    return f"+1{ph[1]}55501{ph[2]}"


def write_phone(rng, ph) -> str:
    if ph[0] == "mob":
        s = ph[1]
        return rng.choice([f"07700 900{s}", f"07700900{s}", f"+44 7700 900{s}", f"+44 (0)7700 900 {s}",
                           f"07700-900-{s}", f"07700 900 {s}", f"07700 900{s}", f"+447700900{s}"])
    if ph[0] == "lon":
        s = ph[1]
        return rng.choice([f"020 7946 0{s}", f"(020) 7946 0{s}", f"02079460{s}", f"+44 20 7946 0{s}"])
    if ph[0] == "geo":
        a, s = ph[1], ph[2]
        return rng.choice([f"{a} 496 0{s}", f"{a}4960{s}", f"+44 {a[1:]} 496 0{s}", f"({a}) 496 0{s}"])
    a, s = ph[1], ph[2]
    return rng.choice([f"({a}) 555-01{s}", f"{a}-555-01{s}", f"+1 {a} 555 01{s}", f"+1-{a}-555-01{s}"])


def make_email(rng, given: str, surname: str) -> str:
    g = ascii_letters(given).lower() or "x"
    s = ascii_letters(surname).lower() or "y"
    dom = rng.choice(["example.com", "example.org", "example.net", "mail.example.com", "inbox.example.net",
                      "post.example.org"])
    local = rng.choice([f"{g}.{s}", f"{g}{s}{rng.randint(1, 99)}", f"{g[0]}.{s}", f"{s}.{g}", f"{g}_{s}",
                        f"{g}{rng.randint(70, 99)}", f"{s}{g[0]}", f"{g}.{s}{rng.randint(1, 9)}"])
    return f"{local}@{dom}"


def write_dob(rng, d: date) -> str:
    return rng.choice([f"{d.day:02d}/{d.month:02d}/{d.year}", f"{d.day}/{d.month}/{d.year % 100:02d}",
                       f"{d.day} {MONTHS[d.month - 1]} {d.year}", f"{MONTHS[d.month - 1]} {d.day}, {d.year}",
                       f"{d.year}-{d.month:02d}-{d.day:02d}", f"{d.day:02d}.{d.month:02d}.{d.year}",
                       f"{d.day}-{d.month}-{d.year}", f"{d.day} {MON3[d.month - 1]} {d.year % 100:02d}"])


def make_plate(rng) -> str:
    L = "ABCDEFGHJKLMNOPRSTUVWXY"
    if rng.random() < 0.9:
        age = rng.choice(["19", "69", "20", "70", "21", "71", "22", "72", "23", "73", "24"])
        return f"{rng.choice('ABCDEFGHKLMNOPRSVWY')}{rng.choice(L)}{age} {''.join(rng.choice(L) for _ in range(3))}"
    return f"{rng.choice('KLMNPRSTVWXY')}{rng.randint(20, 999)} {''.join(rng.choice(L) for _ in range(3))}"


def write_plate(rng, p: str) -> str:
    k = rng.random()
    if k < 0.65:
        return p
    if k < 0.82:
        return p.replace(" ", "")
    return p.lower()


def make_ni(rng) -> str:
    A = "ABCEGHJKLMNPRSTWXYZ"
    while True:
        pre = rng.choice(A) + rng.choice(A)
        if pre not in ("BG", "GB", "NK", "KN", "TN", "NT", "ZZ"):
            break
    d = f"{rng.randint(0, 999999):06d}"
    return f"{pre}{d}{rng.choice('ABCD')}"


def write_ni(rng, ni: str) -> str:
    k = rng.random()
    if k < 0.45:
        return ni
    if k < 0.8:
        return f"{ni[:2]} {ni[2:4]} {ni[4:6]} {ni[6:8]} {ni[8]}"
    return ni.lower()


def write_ref(rng, ref: str) -> str:
    d = ref[3:]
    return rng.choice([ref, ref, ref, "KH" + d, "kh" + d, d, f"KH {d[:3]} {d[3:]}", ref.lower(), "KH" + d])


# --------------------------------------------------------------------------------------------------------------
# one record


class Fill(dict):
    def __init__(self, ctx):
        super().__init__()
        self.ctx = ctx

    def __missing__(self, key):
        val = self.ctx.value(key)
        self[key] = val
        return val


class Ctx:
    def __init__(self, rng, person, booking, agent, tdate, young):
        self.rng, self.p, self.booking, self.agent, self.tdate, self.young = rng, person, booking, agent, tdate, young
        self.pii: list[tuple[str, str]] = []
        self.fill = Fill(self)
        self.third = None

    def add(self, kind, surface):
        if (kind, surface) not in self.pii:
            self.pii.append((kind, surface))
        return surface

    def _third(self, female=None, family=False):
        if self.third is None:
            r = self.rng
            if female is None:
                female = r.random() < 0.5
            self.third = (r.choice(GIVEN_F if female else GIVEN_M),
                          self.p["surname"] if r.random() < (0.5 if family else 0.12) else r.choice(SURNAMES), female)
        return self.third

    def _rdate(self, back_lo, back_hi):
        return self.tdate - timedelta(days=self.rng.randint(back_lo, back_hi))

    def _amount(self, lo, hi):
        r = self.rng
        while True:
            pounds = r.randint(lo, hi)
            if pounds not in (3, 9, 14, 25, 32, 40, 63, 65, 101):
                break
        pence = r.choice([0, 0, r.randint(1, 99)])
        s = f"£{pounds:,}" if pence == 0 else f"£{pounds:,}.{pence:02d}"
        return s if r.random() < 0.85 else (s[1:] + " GBP" if r.random() < 0.5 else s[1:] + " quid")

    def value(self, key):
        r, p = self.rng, self.p
        if key == "first":
            return self.add("person_name", p["given"])
        if key == "full":
            s = f"{p['given']} {p['surname']}"
            return self.add("person_name", s.lower() if r.random() < 0.08 else s)
        if key == "mr":
            return self.add("person_name", f"{p['title']} {p['surname']}")
        if key == "ref":
            return self.add("account_number", write_ref(r, self.booking))
        if key == "ref_c":
            return self.add("account_number", self.booking)
        if key == "email":
            return self.add("email", p["email"])
        if key == "email2":
            return self.add("email", make_email(r, p["given"], p["surname"]))
        if key == "phone":
            return self.add("phone", write_phone(r, p["phone"]))
        if key == "plate":
            return self.add("licence_plate", write_plate(r, make_plate(r)))
        if key == "plate2":
            return self.add("licence_plate", write_plate(r, make_plate(r)))
        if key == "dob":
            return self.add("date_of_birth", write_dob(r, p["dob"]))
        if key == "age":
            d = p["dob"]
            return str(self.tdate.year - d.year - ((self.tdate.month, self.tdate.day) < (d.month, d.day)))
        if key == "addr":
            return self.add("address", write_street(r, p["street"]))
        if key == "pc":
            return self.add("postcode", write_postcode(r, p["postcode"]))
        if key == "town":
            return p["town"]
        if key == "licence":
            return self.add("other_id", write_licence(r, p["licence"]))
        if key == "ni":
            return self.add("national_id", write_ni(r, p["ni"]))
        if key == "card4":
            return self.add("card_number", p["card4"])
        if key == "cardbrand":
            return p["cardbrand"]
        if key == "cardfull":
            first = "4" if p["cardbrand"] == "Visa" else r.choice(["51", "53", "55"])
            digits = rng_digits(r, 12, first) + p["card4"]
            s = " ".join(digits[i:i + 4] for i in range(0, 16, 4)) if r.random() < 0.7 else digits
            return self.add("card_number", s)
        if key == "sort":
            s = f"{r.randint(10, 99)}-{r.randint(0, 99):02d}-{r.randint(0, 99):02d}"
            return self.add("iban", s if r.random() < 0.7 else s.replace("-", ""))
        if key == "acct":
            return self.add("iban", f"{r.randint(10000000, 99999999)}")
        if key == "iban":
            if r.random() < 0.6:
                raw = (f"GB{r.randint(10, 99)}{r.choice(['NWBK', 'BARC', 'LOYD', 'HBUK', 'MIDL', 'MONZ'])}"
                       + "".join(str(r.randint(0, 9)) for _ in range(14)))
            else:
                cc = r.choice(["DE", "NL", "FR", "ES", "IE"])
                raw = cc + f"{r.randint(10, 99)}" + "".join(str(r.randint(0, 9)) for _ in range(18))
            s = " ".join(raw[i:i + 4] for i in range(0, len(raw), 4)) if r.random() < 0.7 else raw
            return self.add("iban", s)
        if key == "imei":
            d = rng_digits(r, 15, "35")
            s = r.choice([d, f"{d[:2]} {d[2:8]} {d[8:14]} {d[14]}", f"{d[:2]}-{d[2:8]}-{d[8:14]}-{d[14]}"])
            return self.add("imei", s)
        if key == "passport":
            if r.random() < 0.5:
                s = rng_digits(r, 9, r.choice("1256"))
            else:
                s = r.choice("CFGHKLMNPRTVWXYZ") + "".join(r.choice("0123456789CFGHJKLMNPRTVWXYZ") for _ in range(8))
            return self.add("other_id", s)
        if key in ("third", "third_m", "third_f"):
            g, s, _ = self._third({"third": None, "third_m": False, "third_f": True}[key], key != "third")
            return self.add("third_party_name", g if r.random() < 0.45 else f"{g} {s}")
        if key == "staff":
            return self.add("third_party_name", r.choice(STAFF))
        if key == "tage":
            return str(r.randint(21, 24) if self.young else r.randint(25, 68))
        if key == "tdob":
            age = int(self.fill["tage"]) if "tage" in self.fill else r.randint(25, 68)
            d = self.tdate - timedelta(days=365 * age + r.randint(20, 340))
            return self.add("date_of_birth", write_dob(r, d))
        if key == "tlicence":
            g, s, fem = self._third()
            d = date(r.randint(1960, 2002), r.randint(1, 12), r.randint(1, 28))
            return self.add("other_id", write_licence(r, make_licence(r, s, g, d, fem)))
        if key == "rewards":
            d = p["rewards"]
            return self.add("account_number", r.choice([d, d[:2] + " " + d[2:6] + " " + d[6:], d[2:]]))
        if key == "claim":
            return self.add("account_number", f"DC-{r.randint(100000, 999999)}")
        if key == "case":
            return self.add("account_number", f"C-{r.randint(1000000, 9999999)}")
        if key == "pcn":
            s = r.choice(["WM", "LB", "MC", "BH", "GL", "ED"]) + rng_digits(r, 8, "")
            return self.add("other_id", s)
        if key == "code":
            s = "".join(r.choice("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(8))
            return self.add("other_id", s if r.random() < 0.6 else f"{s[:2]} {s[2:4]} {s[4:6]} {s[6:]}")
        if key == "url":
            d = self.booking[3:]
            s = r.choice([f"https://kestrelhire.example.com/manage/KH{d}",
                          f"https://kestrelhire.example.com/booking?ref=KH-{d}",
                          f"https://www.kestrelhire.example.com/checkin/{d}?lang=en",
                          f"https://kestrelhire.example.com/mmb/KH{d}/details"])
            return self.add("url_with_id", s)
        if key == "photos":
            tok = "".join(r.choice("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(10))
            s = r.choice([f"https://photos.example.net/share/{tok}", f"https://drive.example.org/s/{tok}",
                          f"https://cloud.example.com/album/{tok}?u={ascii_letters(p['given']).lower()}"])
            return self.add("url_with_id", s)
        if key == "branch":
            return r.choice(BRANCHES)
        if key == "branch2":
            while True:
                b = r.choice(BRANCHES)
                if b != self.fill["branch"]:
                    return b
        if key == "car":
            m = r.choice(MODELS)
            g = GROUPS.get(m)
            k = r.random()
            if g and k < 0.3:
                return f"{g} ({m} or similar)"
            if g and k < 0.45:
                return g
            return m
        if key == "date":
            d = self.tdate + timedelta(days=r.randint(-20, 30))
            return r.choice([f"{d.day} {MONTHS[d.month - 1]}", f"{MONTHS[d.month - 1]} {d.day}",
                             f"{d.day:02d}/{d.month:02d}", f"{WEEKDAYS[d.weekday()]} {d.day} {MON3[d.month - 1]}",
                             f"{d.day}{_suffix(d.day)} {MONTHS[d.month - 1]}"])
        if key in ("time", "time2"):
            if key == "time":
                t = r.randint(9 * 6, 21 * 6) * 10
            else:
                t = self.fill.get("tmin", 720) - r.choice([30, 45, 60, 90])
            self.fill["tmin"] = t
            h, m = divmod(t, 60)
            return r.choice([f"{h:02d}:{m:02d}", f"{h % 12 or 12}.{m:02d}{'pm' if h >= 12 else 'am'}"])
        if key == "late":
            return r.choice(["an hour and 20 minutes", "about 50 mins", "just over an hour", "1h10",
                             "around 90 minutes", "two and a half hours", "about an hour"])
        if key == "amt":
            return self._amount(28, 980)
        if key == "dep":
            return r.choice(["£200", "£250", "£300", "£350", "£500", "£1,000", "250 pounds", "£750"])
        if key == "excess":
            return r.choice(["£1,250", "£1,500", "£950", "£2,000", "£1200"])
        if key == "place":
            return r.choice(PLACES)
        if key == "agent":
            g, s = self.agent
            return self.add("agent_name", r.choice([g, g, f"{g} {s[0]}.", f"{g} {s}", f"{g} {s}"]))
        if key == "agentf":
            return self.add("agent_name", self.agent[0])
        if key == "date_hdr":
            d = self.tdate
            return r.choice([f"{WEEKDAYS[d.weekday()][:3]} {d.day} {MON3[d.month - 1]} {d.year}",
                             f"{d.day:02d}/{d.month:02d}/{d.year}", f"{d.year}-{d.month:02d}-{d.day:02d}"])
        if key == "time_hdr":
            return f"{r.randint(7, 22):02d}:{r.randint(0, 59):02d}"
        raise KeyError(key)


def person_age(p, d: date) -> int:
    b = p["dob"]
    return d.year - b.year - ((d.month, d.day) < (b.month, b.day))


def _suffix(d: int) -> str:
    return "th" if 11 <= d <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")


def rng_digits(r, n, prefix):
    return prefix + "".join(str(r.randint(0, 9)) for _ in range(n - len(prefix)))


def _pick(r, items):
    return r.choice(items)


def build_record(r, person, spec, mode, agent, booking, tdate, repeat, channel, form):
    """One record's text and PII; mode is 'stated', 'mis' or 'ask'. Returns (text, pii, cust_text, agent_text)."""
    ctx = Ctx(r, person, booking, agent, tdate, spec["id"] == "young_driver_fee")
    fill = ctx.fill
    fill["f"] = form
    fill["m"] = r.choice(spec["wrong"])
    fill["topic"] = spec["topic"]

    # ---- the customer's parts (templates)
    greet = "Hi again," if repeat and r.random() < 0.4 else _pick(r, CUST_GREET)
    stories = spec["stories"]
    if spec["id"] == "young_driver_fee":
        own = "{age}" if person_age(person, tdate) <= 24 else "{tage}"
        stories = [t for t in stories if own in t]
    story = _pick(r, stories)
    intro = _pick(r, [t for t in CUST_INTRO if "{ref}" not in t] if "{ref}" in story else CUST_INTRO)
    if "{car}" in story and "{car}" in intro:
        intro = "Booking ref {ref}."
    if repeat and r.random() < 0.4:
        intro = (intro + " " + _pick(r, CUST_REPEAT)).strip()
    ask = _pick(r, spec["asks"])
    if mode == "mis":
        misl = _pick(r, spec["mis"])
        ask = f"{misl} {ask}" if r.random() < 0.5 else f"{ask} {misl}"
    k = r.random()
    n_extra = 0 if k < 0.35 else (1 if k < 0.82 else 2)
    after = spec["id"] in AFTER_RENTAL
    pool = [e for e in CUST_EXTRA if after or e[0] not in ("imei", "bank", "iban")]
    extras = []
    for e in r.sample(pool, len(pool)):
        if len(extras) < n_extra and e[0] not in [x[0] for x in extras]:
            if e[0] in ("bank", "iban") and any(x[0] in ("bank", "iban") for x in extras):
                continue
            extras.append(e)
    flags = [f for f, _ in extras]
    extra_t = " ".join(t for _, t in extras)
    sign = _pick(r, CUST_SIGN)

    style = r.random()
    if style < 0.4:
        rate = r.uniform(0.15, 0.5)
        story, ask, extra_t = typo(story, r, rate), typo(ask, r, rate), typo(extra_t, r, rate)
    if style > 0.86:
        greet, intro, story, ask, extra_t, sign = (x.lower() for x in (greet, intro, story, ask, extra_t, sign))

    # ---- the agent's parts (templates)
    a_greet = _pick(r, AGENT_GREET)
    a_intro = _pick(r, AGENT_INTRO)
    corr = _pick(r, spec.get("corr", CORR)) if mode == "mis" else ""
    core = _pick(r, spec["facts"]) if mode != "ask" else _pick(r, spec["details"])
    a_extra = []
    if mode != "ask" and r.random() < 0.75:
        a_extra.append(_pick(r, spec["extras"]))
    for f in flags:
        if f in AGENT_EXTRA_FLAG and r.random() < 0.7:
            a_extra.append(AGENT_EXTRA_FLAG[f])
    a_extra_t = " ".join(a_extra)
    a_close = _pick(r, AGENT_CLOSE)
    a_sign = _pick(r, AGENT_SIGN)

    def para(*xs):
        return "\n\n".join(x for x in xs if x.strip())

    def line(*xs):
        return " ".join(x for x in xs if x.strip())

    fmt = channel
    segs: list[tuple[str, str]] = []  # (c|a, template)
    if fmt == "email":
        subj = _pick(r, spec["subjects"])
        if r.random() < 0.3:
            subj = "Re: " + subj
        fill["subject"] = subj.format_map(fill)
        cust_body = para(greet, line(intro, story), line(ask, extra_t), sign)
        agent_body = para(line(a_greet, a_intro), line(corr, core, a_extra_t), a_close, a_sign)
        sender = "{full} <{email}>" if r.random() < 0.7 else "{email}"
        if r.random() < 0.55:
            segs += [("c", f"From: {sender}\nTo: {HELP}\nDate: {{date_hdr}} {{time_hdr}}\nSubject: {{subject}}\n\n"),
                     ("c", cust_body),
                     ("a", f"\n\n-----\nFrom: {COMPANY} <{HELP}>\nSent: {{date_hdr}}\nSubject: RE: {{subject}}\n\n"),
                     ("a", agent_body)]
        else:
            segs += [("a", f"Subject: RE: {{subject}}\nFrom: {COMPANY} Customer Support <{HELP}>\nTo: {{email}}\n\n"),
                     ("a", agent_body),
                     ("c", f"\n\n-----Original Message-----\nFrom: {sender}\nSent: {{date_hdr}} {{time_hdr}}\n"
                           f"To: {HELP}\nSubject: {{subject}}\n\n"),
                     ("c", cust_body)]
    elif fmt == "chat":
        tm, ts = r.randint(8 * 60, 21 * 60), []
        for i in range(6):
            tm += r.randint(0, 3) if i else 0
            ts.append(f"[{tm // 60:02d}:{tm % 60:02d}]")
        clabel = r.choice(["Customer", "{first}", "Visitor", "{full}"])
        alabel = r.choice(["{agent} (Kestrel Car Hire)", "{agent}", "Agent {agentf}"])
        head = r.choice(["Live chat transcript - " + COMPANY, "Kestrel Go in-app chat", "Web chat - " + WEB,
                         "Chat log exported {date_hdr}"])
        segs += [("c", head + "\n"),
                 ("c", f"{ts[0]} {clabel}: " + line(greet, intro, story) + "\n"),
                 ("a", f"{ts[1]} {alabel}: " + line(r.choice(["Hi {first}, you're chatting with {agentf}.",
                                                               "Hello! {agentf} here, thanks for waiting.",
                                                               "Hi there, my name is {agentf}."]),
                                                    r.choice(["Let me take a look for you.",
                                                              "Thanks for the details, one moment.",
                                                              "Sure, let me check that."])) + "\n"),
                 ("c", f"{ts[2]} {clabel}: " + line(ask, extra_t) + "\n"),
                 ("a", f"{ts[3]} {alabel}: " + line(corr, core, a_extra_t) + "\n")]
        if r.random() < 0.6:
            segs += [("c", f"{ts[4]} {clabel}: " + r.choice(["ok thanks", "Great, thank you!", "ok cheers",
                                                             "Thanks for your help", "right ok. thanks"]) + "\n"),
                     ("a", f"{ts[5]} {alabel}: " + r.choice(["You're welcome, have a good day!",
                                                             "No problem at all, take care.",
                                                             "Happy to help. Bye for now!"]))]
    elif fmt == "call":
        nstory, nextra = noteify(story), noteify(extra_t)
        nask = r.choice(["Asked: ", "Q: ", "Cust asks: "]) + '"' + ask + '"' 
        idv = r.choice(["ID&V passed (DOB {dob}, postcode {pc}).", "ID&V passed.", "ID&V: DOB {dob}.",
                        "Verified via booking ref + postcode {pc}.", ""])
        head = r.choice(["CALL NOTE - inbound, " + MAIN_PHONE, "Inbound call ({topic})", "Phone call log",
                         "Call summary - Customer Support"])
        caller = r.choice(["Caller: {full}, tel {phone}, booking {ref}.", "Caller: {mr} ({ref})",
                           "Caller {full} re booking {ref}.", "Cust: {full} / {phone}"])
        segs += [("a", head + "\nAgent: {agent} | {date_hdr} {time_hdr}\n"),
                 ("c", caller + " " + idv + "\n"),
                 ("c", "Notes: " + r.choice(["cust says ", "Cust called: ", "", "Caller states: "]) +
                  line(nstory, nask, nextra) + "\n"),
                 ("a", "Advised: " + line(corr, core, a_extra_t) + "\n"),
                 ("a", r.choice(["Outcome: resolved first contact.", "Outcome: cust happy.",
                                 "Outcome: follow-up e-mail sent.", "No further action.",
                                 "Cust to call back if needed."]))]
    elif fmt == "form":
        fields = ["Name: {full}", "Email: {email}"]
        if r.random() < 0.6:
            fields.append("Phone: {phone}")
        if r.random() < 0.7:
            fields.append("Booking reference: {ref_c}")
        fields.append("Enquiry type: {topic}")
        head = r.choice([f"Contact form - {WEB}/contact", "Web enquiry form", "Online contact form submission",
                         "Help centre form - " + COMPANY])
        segs += [("c", head + "\n" + "\n".join(fields) + "\nMessage:\n"),
                 ("c", para(line(greet, story), line(ask, extra_t), sign if r.random() < 0.5 else "")),
                 ("a", r.choice(["\n\nReply sent by {agent}, Customer Support ({date_hdr}):\n",
                                 "\n\n--- Response ---\n", "\n\nAgent reply ({agent}):\n"])),
                 ("a", para(line(a_greet, a_intro), line(corr, core, a_extra_t), a_close, a_sign))]
    else:  # case export
        segs += [("a", "Case {case} | Channel: " + channel_name(r) + " | Category: {topic}\nOpened {date_hdr} "
                       "{time_hdr}\n\nCustomer message:\n"),
                 ("c", para(line(greet, intro, story), line(ask, extra_t), sign)),
                 ("a", r.choice(["\n\nResponse ({agent}):\n", "\n\nAgent response:\n", "\n\nReply:\n"])),
                 ("a", para(line(a_greet, a_intro), line(corr, core, a_extra_t), a_close, a_sign))]

    out = [(tag, t.format_map(fill)) for tag, t in segs]
    text = "".join(s for _, s in out).strip()
    cust = "\n".join(s for tag, s in out if tag == "c")
    agen = "\n".join(s for tag, s in out if tag == "a")
    return text, ctx.pii, cust, agen


def channel_name(r):
    return r.choice(["Kestrel Go app", "Facebook Messenger", "Web chat", "X / Twitter DM", "WhatsApp"])


def _holds(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


def _ok(text, cust, agen, spec, mode) -> bool:
    words = len(text.split())
    if not 50 <= words <= 250:
        return False
    for tid, f in ALL_FORMS:
        if tid != spec["id"]:
            if _holds(text, f):
                return False
        else:
            if _holds(cust, f):
                return False
    own = any(_holds(agen, f) for f in spec["forms"])
    if mode == "ask":
        return not own
    if not own:
        return False
    return True


# --------------------------------------------------------------------------------------------------------------
# persons


def make_person(r, pid, tdate, lo, hi):
    female = r.random() < 0.5
    given = r.choice(GIVEN_F if female else GIVEN_M)
    surname = r.choice(SURNAMES)
    age = r.randint(lo, hi)
    dob = tdate - timedelta(days=365 * age + r.randint(15, 350))
    town, area = r.choice(TOWNS)
    title = r.choice(["Mrs", "Ms", "Miss", "Ms", "Dr"]) if female else r.choice(["Mr", "Mr", "Mr", "Dr"])
    card4 = f"{r.randint(0, 9999):04d}"
    return {"pid": pid, "given": given, "surname": surname, "female": female, "title": title, "dob": dob,
            "email": make_email(r, given, surname), "phone": make_phone(r),
            "street": make_street(r), "town": town, "postcode": make_postcode(r, area),
            "licence": make_licence(r, surname, given, dob, female), "ni": make_ni(r), "card4": card4,
            "cardbrand": r.choice(["Visa", "Visa", "Mastercard", "debit card", "Amex"]),
            "rewards": "KR" + rng_digits(r, 8, ""), "bookings": [], "n": 0}


def _counts(n):
    w = [t["weight"] for t in T]
    tot = sum(w)
    raw = [n * x / tot for x in w]
    c = [max(1, int(x)) for x in raw]
    rem = sorted(range(len(w)), key=lambda i: -(raw[i] - int(raw[i])))
    i = 0
    while sum(c) < n:
        c[rem[i % len(rem)]] += 1
        i += 1
    while sum(c) > n:
        j = max(range(len(c)), key=lambda k: c[k])
        c[j] -= 1
    return c


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    r = random.Random(f"carhire/{seed}/{n}")
    counts = _counts(n)
    modes: list[tuple[str, str]] = []
    for t, c in zip(T, counts):
        k_mis = int(round(c * 0.1))
        k_ask = int(round(c * 0.07))
        ms = ["mis"] * k_mis + ["ask"] * k_ask + ["stated"] * (c - k_mis - k_ask)
        modes += [(t["id"], m) for m in ms]
    r.shuffle(modes)

    persons: list[dict] = []
    used_pids: set[str] = set()
    used_refs: set[str] = set()
    records, pii_rows = [], []
    forms_done: dict[str, list[str]] = {}
    start = date(2024, 1, 3)
    chans = ["email"] * 34 + ["chat"] * 22 + ["call"] * 16 + ["form"] * 16 + ["case"] * 12
    for i, (tid, mode) in enumerate(modes):
        spec = TYPES[tid]
        tdate = start + timedelta(days=r.randint(0, 350))
        young = tid == "young_driver_fee"
        person = None
        if r.random() < 0.24:
            pool = [p for p in persons if p["n"] < 3 and (not young or not 25 <= person_age(p, tdate) <= 41)]
            if pool:
                person = r.choice(pool)
        if person is None:
            while True:
                pid = f"KC{r.randint(100000, 999999)}"
                if pid not in used_pids:
                    used_pids.add(pid)
                    break
            if young:
                lo, hi = (21, 24) if r.random() < 0.65 else (43, 70)
            else:
                lo, hi = (21, 24) if r.random() < 0.1 else (25, 78)
            person = make_person(r, pid, tdate, lo, hi)
            persons.append(person)
        repeat = person["n"] > 0
        person["n"] += 1
        if person["bookings"] and r.random() < 0.4:
            booking = r.choice(person["bookings"])
        else:
            while True:
                booking = f"KH-{r.randint(1000000, 9999999)}"
                if booking not in used_refs:
                    used_refs.add(booking)
                    break
            person["bookings"].append(booking)
        agent = r.choice(AGENTS)
        done = forms_done.setdefault(tid, [])
        todo = [f for f in spec["fforms"] if f not in done]
        if todo:
            form = todo[0]
        else:
            form = spec["fact"] if r.random() < 0.35 else r.choice(spec["fforms"])
        for tries in range(200):
            text, pii, cust, agen = build_record(r, person, spec, mode, agent, booking, tdate, repeat, r.choice(chans),
                                                 form)
            if _ok(text, cust, agen, spec, mode):
                break
        else:  # pragma: no cover - the retry budget is never exhausted in practice
            raise RuntimeError(f"could not build a record of {tid}")
        if mode != "ask" and form not in done:
            done.append(form)
        rid = f"kch-{i + 1:06d}"
        records.append({
            "id": rid, "text": text, "person_id": person["pid"], "type": tid,
            "customer_name": f"{person['given']} {person['surname']}", "email": person["email"],
            "phone": canon_phone(person["phone"]), "booking_ref": booking, "licence_number": person["licence"],
        })
        assert all(s in text for _, s in pii), (rid, pii)
        pii_rows.append({"id": rid, "pii": [{"kind": k, "text": s} for k, s in pii]})

    types = []
    for t in T:
        recs = [(m) for tid, m in modes if tid == t["id"]]
        types.append({"id": t["id"], "records": len(recs), "fact": t["fact"], "forms": list(t["forms"]),
                      "stated_by": sum(1 for m in recs if m != "ask"),
                      "misquoted_by": sum(1 for m in recs if m == "mis")})
    questions = [{"question": q, "answers": list(t["forms"]), "type": t["id"],
                  "support": sum(1 for tid, _ in modes if tid == t["id"])} for t in T for q in t["questions"]]
    public = {"company": COMPANY,
              "public_strings": [COMPANY, MAIN_PHONE, ROADSIDE, WEB, HELP, CLAIMS],
              "product_names": list(PRODUCTS),
              "identifier_fields": ["customer_name", "email", "phone", "booking_ref", "licence_number"],
              "id_field": "id", "text_field": "text", "unit_field": "person_id"}
    return {"domain": "carhire", "records": records, "pii": pii_rows, "types": types, "questions": questions,
            "public": public}
