"""Blind own-data domain **ticketing**: the support inbox of *Stagegate Tickets*, a made-up UK seller of
concert, theatre, comedy and festival tickets.

Every record is one customer contact (e-mail thread, live chat, social-media DM, call transcript, CRM call
note or web form) with the organisation's reply. All people, numbers and addresses are invented; phone
numbers come from the reserved drama ranges and e-mail / URL domains are under ``example.com/.org/.net``.

Standard library only; ``generate(seed, n)`` is deterministic in ``(seed, n)``.
"""

from __future__ import annotations

import datetime
import random
import re
import string

# --------------------------------------------------------------------------------------------------
# The organisation's public strings
# --------------------------------------------------------------------------------------------------

COMPANY = "Stagegate Tickets"
HELPLINE = "0808 157 0342"
ACCESS_LINE = "0306 999 0118"
WEBSITE = "www.stagegate.example.com"
HELP_EMAIL = "help@stagegate.example.com"
ACCESS_EMAIL = "access@stagegate.example.com"
HANDLE = "@StagegateHelp"

PUBLIC_STRINGS = [COMPANY, HELPLINE, ACCESS_LINE, WEBSITE, HELP_EMAIL, ACCESS_EMAIL, HANDLE]

PRODUCTS = [
    "Stagegate Wallet", "Stagegate Resale", "FlexiRefund Protect", "Stagegate Plus", "Priority Presale",
    "Stagegate Gift Card", "Box Office Collect", "SafeSeat Transfer", "Stagegate Access Register",
]

IDENTIFIER_FIELDS = ["customer_name", "email", "phone", "customer_number", "postcode"]

# --------------------------------------------------------------------------------------------------
# Name lists (many origins; several given names and surnames are ordinary words)
# --------------------------------------------------------------------------------------------------

FEMALE = """Jade Ngozi Aisha Fatima Ananya Siobhan Niamh Bethan Katarzyna Agnieszka Mei Thi Yuki Lucía Inês Giulia
Elif Hodan Eleni Ioana Lina Zainab Amara Folake Ama Sade Keisha Shanice Olivia Sophie Emily Charlotte Freya Isla
Poppy Daisy Holly Ivy Ruby Rose Grace Hope Faith Joy Dawn Heather Lily Iris Amber Precious Blessing Patience
Morag Eilidh Mairead Ingrid Anouk Camila Deepa Harpreet Nasra Xin Olga Esra Noor Layla Yasmin Bronwen Roisin
Chiamaka Adaeze Priyanka Meera Sakura Hana Paulina Zofia Marta Carmen Valentina Aoife Tegan Kerry-Ann Shirin
Leila Farah Comfort Abena Chloe Megan Lauren Jasmine Pearl Violet Sienna Maisie""".split()

MALE = """Callum Kwame Chinedu Omar Bilal Rohan Ciaran Rhys Dylan Piotr Tomasz Wei Jun Minh Haruto Min-jun Javier
João Marco Emre Nikos Andrei Tariq Yusuf Tunde Kofi Darnell Tyrone Jamal Leroy Marcus Harry George Oliver Jack
Alfie Mark Rich Bill Frank Hamish Angus Fergus Declan Sven Lars Daan Mateus Arjun Sunil Gurpreet Ayaan Hao
Dmitri Hassan Ibrahim Kenji Sandeep Vikram Lukasz Mehmet Kayode Segun Obinna Ewan Gareth Owain Cormac Seamus
Matteo Diego Rafael Tiago Stefan Florin Yannick Idris Musa Reggie Stanley Clive Noel Basil Dale Wade""".split()

UNISEX = "Robin Drew Sandy Pat Kit Jay Sunny Alex Sam Charlie Ji-woo Jordan Riley Morgan Ash".split()

SURNAMES = """Green Brown Rose Hope May King Field Church White Black Baker Bird Wood Hill Lane Marsh Stone Frost
Young Page Hunt Fox Bell Cross Price Day Moon Rich Small Short Sterling Hall Banks Booth Brook Castle Dove Fisher
Gold Hart Heath Knight Mason Noble Parks Pike Reed Salt Shepherd Sparrow Steel Swan Summers Waters West Wise
Winter Woods Okafor Adeyemi Mensah Owusu Boateng Okonkwo Balogun Abdi Warsame Haddad Khalil Qureshi Khan Ahmed
Hussain Patel Mehta Iyer Sharma Gill Sandhu Chen Zhang Li Wang Nguyen Tran Sato Tanaka Park Kim Fernández García
Pereira Santos Romano Bianchi Yilmaz Demir Papadopoulos Popescu Ionescu Nowak Kowalski Wiśniewska Zieliński
O'Connell O'Brien MacLeod McAllister Llewellyn Pritchard Jenkins Murphy Kelly Byrne Walsh Campbell Stewart
Robertson Smith Jones Williams Taylor Davies Evans Thomas Johnson Roberts Walker Wright Thompson Clarke Lewis
Harris Jackson Edwards De_Souza Schmidt Müller Novák Johansson Larsen Ivanova Petrov Rahman Begum Chowdhury
Uddin Joseph Francis Grant Bailey Achterberg Van_Dijk Nakamura Oyelaran Mwangi Kamau Achieng Diallo Traoré
Ndiaye Mbeki Dlamini Sithole Horvat Kovač Rossi Esposito Moreau Lefebvre Dubois Hernández Morales Cruz Reyes
Mendoza Silva Costa Kaur Singh Bhatt Rao Pillai Nair Bose Das Lim Tan Goh Wong Lau Cheung Ho""".split()
SURNAMES = [s.replace("_", " ") for s in SURNAMES]

# (first, last, weight): the organisation's agents
AGENTS = [
    ("Priya", "Shah", 5), ("Tom", "Baker", 5), ("Declan", "Moore", 4), ("Aisha", "Bello", 4), ("Marek", "Nowicki", 3),
    ("Fiona", "Church", 4), ("Sam", "Field", 3), ("Grace", "Obi", 3), ("Liam", "Hart", 3), ("Nadia", "Karim", 3),
    ("Ben", "Rose", 2), ("Chloe", "Winter", 2), ("Josh", "King", 2), ("Hannah", "Lee", 3), ("Ravi", "Chandra", 2),
    ("Megan", "Hughes", 2), ("Kemi", "Adeola", 2), ("Dan", "Marsh", 2), ("Ellie", "Frost", 2), ("Jonah", "Brooks", 1),
    ("Zara", "Malik", 2), ("Owen", "Price", 1), ("Ruth", "Day", 1), ("Carlos", "Mendes", 1), ("Siân", "Pugh", 1),
    ("Mo", "Farouk", 1), ("Lucy", "Hope", 1), ("Kieran", "Doyle", 1),
]
TEAM_LEADERS = [("Gemma", "Stone"), ("Rashid", "Anwar"), ("Paul", "Wood"), ("Orla", "Kennedy")]

# --------------------------------------------------------------------------------------------------
# Places, venues, events (public, not personal)
# --------------------------------------------------------------------------------------------------

TOWNS = [("Leeds", "LS"), ("Manchester", "M"), ("Bristol", "BS"), ("Glasgow", "G"), ("Cardiff", "CF"),
         ("Birmingham", "B"), ("London", "E"), ("London", "SE"), ("London", "N"), ("London", "SW"),
         ("Newcastle", "NE"), ("Sheffield", "S"), ("Nottingham", "NG"), ("Brighton", "BN"), ("Belfast", "BT"),
         ("Edinburgh", "EH"), ("Liverpool", "L"), ("Leicester", "LE"), ("York", "YO"), ("Norwich", "NR"),
         ("Swansea", "SA"), ("Hull", "HU"), ("Derby", "DE"), ("Aberdeen", "AB"), ("Exeter", "EX")]

STREETS_TYPED = ["Elm", "Marlow", "Clarendon", "Beech", "Albion", "Harcourt", "Mill", "Station", "Chapel", "Grange",
                 "Granby", "Ashgrove", "Hawthorn", "Mayfield", "Oakland", "Cavendish", "Ladybarn", "Carrow",
                 "Thornbury", "Wellington", "Belgrave", "Westbourne", "Sefton", "Holloway", "Denmark", "Cranbrook",
                 "Seaview", "Windermere", "Blenheim", "Ferncliffe", "Alderney", "Quarry", "Tannery", "Orchard"]
STREET_TYPES = ["Road", "Street", "Avenue", "Lane", "Close", "Drive", "Crescent", "Grove", "Terrace", "Way",
                "Court", "Gardens", "Place", "Rd", "St", "Ave"]
STREETS_BARE = ["Kingsway", "Parkside", "Broadway", "Highfield", "Meadowbank", "Northway", "Southgate",
                "Riverside", "Moorside", "Brookside", "Eastfield", "Fairholme", "Longacre", "Churchgate"]
BUILDINGS = ["Wharf House", "Canal Mill", "Victoria Point", "Hanover Building", "Alder Court", "The Maltings",
             "Kestrel House", "Roper Yard"]

VENUES = ["Northgate Arena", "the Foundry Rooms", "Harbourside Amphitheatre", "Clydebank Exchange",
          "the Old Mill Ballroom", "Royal Alder Theatre", "Riverside Pavilion", "the Vaults", "Eastbank Stadium",
          "Lantern Playhouse", "Copperworks", "the Assembly Rooms", "Granary Hall", "Tollgate Theatre",
          "the Glasshouse", "Wyvern Arena"]
EVENTS = ["The Hollow Pines", "Velvet Static", "Marla Quinn", "Lemon Harbour", "Sable & Finch", "The Midnight Choir",
          "Orbit Kids", "DJ Kestrel", "Paper Lanterns: The Musical", "Dev Okonjo Live", "Fernfield Festival",
          "Northern Lights Orchestra", "Tidal Youth", "Cobalt Reign", "Saint Juniper", "The Wrens",
          "Brass Menagerie", "Halfmoon Social", "Neon Ferns", "Paper Tigers (reunion tour)", "Lucha Libre UK",
          "Swan Lake (Ballet Nova)", "Gravel & Gold", "Mischa Varga"]

MONTHS = ["January", "February", "March", "April", "June", "July", "August", "September", "October", "November",
          "December"]
MONTH_NUM = {"January": 1, "February": 2, "March": 3, "April": 4, "June": 6, "July": 7, "August": 8,
             "September": 9, "October": 10, "November": 11, "December": 12}
MON_ABBR = {"January": "Jan", "February": "Feb", "March": "Mar", "April": "Apr", "June": "Jun", "July": "Jul",
            "August": "Aug", "September": "Sept", "October": "Oct", "November": "Nov", "December": "Dec"}
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

REASONS = ["a work trip", "my mum's operation", "an exam clash", "a family funeral", "a wedding abroad",
           "covid", "a broken ankle", "a change of shifts", "childcare falling through"]

# --------------------------------------------------------------------------------------------------
# Request types
# --------------------------------------------------------------------------------------------------
SYMPATHY = ["Sorry to hear about this, I know it's frustrating.", "I'm really sorry about the stress this has caused.",
            "Sorry you've had to chase this."]

# Each statement is (template, allowed forms or None). {F} is the fact's surface, {M} a misquoted value.

TYPES = [
    {
        "id": "eticket_release_time",
        "sympathy": SYMPATHY,
        "upbeat": False,
        "base": 84,
        "fact": "48 hours",
        "forms": ["48 hours", "forty-eight hours", "48 hrs", "two days", "2 days"],
        "questions": ["When will my e-tickets show up in the app?",
                      "How long before the show are mobile tickets released?",
                      "I booked weeks ago and still have no tickets - when do they get sent out?"],
        "topic": "My tickets haven't arrived",
        "subjects": ["Tickets not received", "where are my tickets??", "E-tickets missing", "No tickets in app",
                     "Order {ref} - no tickets yet", "tickets not showing in wallet"],
        "stories": [
            "I booked {qty_w} tickets for {event} at {venue} back on {odate} and I still haven't received any "
            "e-tickets. The gig is on {edate}. I've checked my junk folder and the app and there's nothing, it "
            "just says 'tickets on the way'.",
            "My Stagegate Wallet shows my order {ref} for {event} but there are no barcodes in it. I paid {amount} "
            "on my card ending {card4} so the money has definitely gone out.",
            "My phone was stolen on the bus last week and my tickets for {event} were on it. I've got a new "
            "handset now, same number {phone}. The old one's IMEI was {imei} in case you need it, I've reported "
            "it to the police.",
            "I bought tickets for {event} as a surprise for my {rel_tp} and was expecting an email with them. "
            "Nothing has come to {email} apart from the order confirmation. Is something wrong with the booking?",
            "Going to {event} at {venue} on {edate} with {tp_first} and neither of us can see the tickets. Order "
            "ref is {ref}. We're travelling down from {town} so I really need to know they're coming.",
            "The confirmation email says 'your tickets will be available in the app' but it's been ages. Order "
            "{ref}, booked under {email}. I even reinstalled the app twice.",
            "Bought tickets for {event} on {odate} (order {ref}) and the link in the email ({url_order}) just "
            "says pending. The show is {edate}.",
        ],
        "asks": ["When will the tickets actually come through?", "When do e-tickets get released?",
                 "How long before the show do they usually turn up?", "Can you tell me when I'll get them please?",
                 "Should I be worried or is this normal?"],
        "mq": ["Your chat bot said they'd be released {M} before the show and that's been and gone.",
               "A friend told me they come out {M} before, so I'm starting to worry.",
               "I'm sure the FAQ said {M} before the event."],
        "misquotes": ["24 hours", "a week", "72 hours", "5 days", "three days"],
        "notes": ["Cust calling as e-tickets for {event} (order {ref}) not showing in Stagegate Wallet. Event "
                  "{edate}.",
                  "Caller worried tickets for {event} haven't arrived by email ({email}), order placed {odate}.",
                  "Phone stolen, tickets for {event} were on it. Gave old IMEI {imei}, new phone same number."],
        "statements": [
            ("E-tickets are released into the Stagegate Wallet {F} before doors open, so it's completely normal "
             "not to see them yet.", None),
            ("For this show the barcodes only go live {F} before the event – until then the order shows as "
             "'tickets on the way'.", None),
            ("Your tickets will appear in the app and be emailed to you {F} ahead of the performance; we do this "
             "to stop screenshots being resold.", None),
            ("We release all mobile tickets {F} before the start time, so please check back then.", None),
        ],
        "extras": ["Make sure you're logged into the Stagegate Wallet with the same email you booked with.",
                   "If you've changed phones, just log in on the new device and the tickets will move across "
                   "automatically.",
                   "There's nothing wrong with your order – it's confirmed on our system.",
                   "Screenshots won't scan at the door, so please use the live tickets in the app."],
        "nostate": ["I can't find an order under that email. Could you send me the booking reference (it starts "
                    "STG-) and the last four digits of the card you paid with so I can look into it?",
                    "Could you confirm which performance this is for? I can see two bookings on the account and "
                    "want to check the right one before I reissue anything."],
    },
    {
        "id": "cancelled_event_refund_time",
        "sympathy": SYMPATHY,
        "upbeat": False,
        "base": 65,
        "fact": "10 working days",
        "forms": ["10 working days", "ten working days", "10 business days", "ten business days",
                  "two working weeks"],
        "questions": ["How long does it take to get my money back if a gig is cancelled?",
                      "When will the refund for a cancelled event reach my account?",
                      "My concert was called off - how soon is the refund paid?"],
        "topic": "Refunds - cancelled event",
        "subjects": ["Refund for cancelled show", "{event} cancelled - refund?", "cancelled event refund",
                     "Refund query {ref}", "Where is my refund"],
        "stories": [
            "I've just had an email saying {event} at {venue} on {edate} is cancelled. Gutted. I paid {amount} for "
            "{qty_w} tickets with my card ending {card4}.",
            "{event} has been cancelled (saw it on their Instagram first, not from you!). Booking {ref}. What "
            "happens to my money?",
            "Got the cancellation email for {event}. The card I used has since been stopped by my bank because of "
            "fraud, so can the refund go to my bank account instead? Sort code {sort}, account {acct}, name "
            "{full}.",
            "My {rel_tp} and I were meant to be at {event} on {edate} but it's been called off. Booking ref "
            "{ref}, account {custno}.",
            "The {event} show was cancelled last {weekday} and there's still nothing back on my statement. Order "
            "{ref}, total was {amount}.",
            "I've moved abroad since booking {event}. The original card (ending {card4}) is closed, could the "
            "refund go to {iban} instead?",
        ],
        "asks": ["How long will the refund take?", "When will I see the money back?",
                 "How long until it's back in my account?",
                 "Do I need to claim or is it automatic, and how long does it take?"],
        "mq": ["The venue said I'd have it back in {M}.",
               "Someone on your phone line said {M} and it's been longer than that now.",
               "I read online that it takes {M}."],
        "misquotes": ["28 days", "3 working days", "5 days", "24 hours", "6 weeks"],
        "notes": ["Cust called re refund for cancelled {event} ({edate}), booking {ref}.",
                  "Caller asking when refund for {event} will land, paid {amount} on card ending {card4}."],
        "statements": [
            ("As the event has been cancelled by the organiser, your refund is processed automatically and will "
             "reach your original payment method within {F}.", None),
            ("You don't need to do anything – cancelled shows are refunded in full, booking fees included, "
             "within {F} of the cancellation email.", None),
            ("The refund has been triggered on our side; please allow {F} for it to show on your statement.",
             None),
            ("Refunds for cancelled events go back to the card you paid with and take up to {F}.", None),
        ],
        "extras": ["If the card has expired or been replaced, your bank will still route the money to your "
                   "account.",
                   "For security reasons we can only refund to the original payment method.",
                   "The booking fees are refunded as well.",
                   "If you bought FlexiRefund Protect, the premium is refunded too."],
        "nostate": ["Could you confirm the booking reference? I can't see a cancelled booking on the account "
                    "linked to this email.",
                    "Before I can look at this, can you confirm the name and postcode on the booking please?"],
    },
    {
        "id": "booking_fee",
        "base": 50,
        "fact": "£2.75",
        "forms": ["£2.75", "GBP 2.75", "2.75 pounds", "two pounds seventy-five", "2 pounds 75"],
        "questions": ["How much is the booking fee on each ticket?",
                      "What's the service charge per ticket when I buy online?",
                      "What fee do you add to every ticket at checkout?"],
        "topic": "Fees and charges",
        "subjects": ["Booking fees", "Why so much in fees?", "fee question", "Service charge on order {ref}",
                     "Fees on my order"],
        "stories": [
            "I just bought {qty_w} tickets for {event} and the total jumped by {fee_total} at the checkout.",
            "Comparing prices for {event} and your fees look higher than the venue's own box office.",
            "I was charged {amount} for {qty_w} tickets on order {ref} and I can't work out how much of that is "
            "the booking fee.",
            "I'm booking our office night out (about {qty_big} of us) to see {event} and need to put the fees "
            "into the budget before my manager {tp} signs it off.",
            "Bought tickets for {event} at {venue} for me and {tp_first}, card ending {card4}. The fees weren't "
            "clear at all until the last page.",
        ],
        "asks": ["What is the booking fee per ticket?", "How much is the service charge on each ticket?",
                 "Can you break down the fee for me?",
                 "Is the booking fee charged per ticket or per order, and how much?"],
        "mq": ["The site said it was {M} per ticket when I started.", "My mate said your fee is {M} a ticket.",
               "Last time I booked it was only {M} each."],
        "misquotes": ["£1.50", "£3.50", "£2.25", "£4"],
        "notes": ["Cust querying booking fees on order {ref} for {event}.",
                  "Caller planning group booking for {event}, wanted fee per ticket."],
        "statements": [
            ("Our booking fee is a flat {F} per ticket, which covers payment processing and delivery to the "
             "Stagegate Wallet.", None),
            ("The service charge you saw is {F} for each ticket, whatever the price band.", None),
            ("Every ticket carries a booking fee of {F} – it's shown in the basket before you pay.", None),
            ("We charge {F} per ticket in booking fees and there's no separate order charge on top.", None),
        ],
        "extras": ["Tickets bought in person at the venue box office don't go through us, so the fees there are "
                   "different.",
                   "The fee is non-refundable unless the event is cancelled.",
                   "You'll see the full breakdown in your confirmation email."],
        "nostate": ["Could you send me the order reference so I can see exactly what you were charged?"],
    },
    {
        "id": "resale_seller_fee",
        "base": 42,
        "fact": "10%",
        "forms": ["10%", "10 per cent", "ten per cent", "10 percent", "ten percent"],
        "questions": ["What cut does Stagegate take when I resell my tickets?",
                      "If I list my tickets on the resale site, how much is the seller fee?"],
        "topic": "Selling my tickets",
        "subjects": ["Resale fee", "Selling my tickets", "Stagegate Resale question", "Resale payout {ref}",
                     "can't go - resale?"],
        "stories": [
            "I can't make {event} on {edate} anymore because of {reason}. I'd like to sell my {qty_w} tickets on "
            "Stagegate Resale rather than lose the money. I paid {amount}.",
            "I've listed my tickets for {event} here: {url_resale}. They sold yesterday but the payout is less "
            "than I paid.",
            "Thinking of putting my {event} tickets on Stagegate Resale. My friend {tp} might buy them off me "
            "directly instead if it works out cheaper.",
            "Sold my tickets for {event} through resale last week, booking {ref}. Will the money go back to my "
            "card ending {card4}?",
            "Because of {reason} I can't use my tickets for {event} at {venue}. Account {custno}.",
        ],
        "asks": ["How much does Stagegate take when they sell?", "What's the seller fee?",
                 "What percentage do you keep?", "How much will I actually get back?"],
        "mq": ["Someone on a forum said you take {M}.", "I thought the fee was {M}?",
               "The listing page said {M} I think."],
        "misquotes": ["15%", "5%", "20%", "12.5%"],
        "notes": ["Cust wants to resell tickets for {event}, booking {ref}; asked about fees.",
                  "Caller's resale listing for {event} sold, querying payout amount."],
        "statements": [
            ("When your tickets sell on Stagegate Resale we keep a {F} seller fee and pay the rest back to the "
             "card you used.", None),
            ("Listing is free; a seller fee of {F} of the sale price is deducted once a buyer is found.", None),
            ("Resale payouts are the price the buyer paid minus our {F} fee.", None),
            ("Our cut on resale is {F}, taken automatically when the tickets sell.", None),
        ],
        "extras": ["Tickets can only be resold at up to face value on Stagegate Resale.",
                   "Once they sell, the original barcodes are cancelled and new ones are issued to the buyer.",
                   "Selling privately outside Stagegate Resale isn't allowed under the terms of sale."],
        "nostate": ["I can see the listing, but can you confirm which of the seats you want to keep? I need that "
                    "before I can split the booking."],
    },
    {
        "id": "accessible_booking_line",
        "base": 36,
        "fact": ACCESS_LINE,
        "forms": [ACCESS_LINE, "0306 9990118", "03069990118", "+44 306 999 0118"],
        "form_weights": [8, 1, 1, 1],
        "questions": ["What number do I call to book a wheelchair space?",
                      "How do I book accessible seats with a free companion ticket?",
                      "Who should I phone about step-free seating for a show?"],
        "topic": "Accessibility",
        "subjects": ["Wheelchair space", "Accessible seating", "Carer ticket", "Access booking for {event}",
                     "Disabled access query"],
        "stories": [
            "I'm a wheelchair user and would like to book for {event} at {venue}. I'll need a space and a seat "
            "next to me for my carer {tp}. The website doesn't give me the option.",
            "My husband {tp_m} has limited mobility and can't manage stairs. We'd like step-free seats for "
            "{event} on {edate}. We're on the Stagegate Access Register, number {access_id}.",
            "I'm registered blind and usually bring my PA for free. For proof, my PIP award is under NI number "
            "{ni}. Looking at {event} at {venue}.",
            "Booking for {event} for me and my son {tp_m_first}, who's autistic and needs an aisle seat near an "
            "exit. We'll be driving, car reg {plate}. Is there accessible parking at {venue}?",
            "I use a mobility scooter. DOB {dob}, address {addr_full}, in case you need it for the register. I "
            "want to see {event}.",
        ],
        "asks": ["How do I book the accessible seats?", "Who do I need to contact to book this?",
                 "Can you book it for me or is there a number to ring?",
                 "What's the best way to sort out a companion ticket?"],
        "mq": ["I tried ringing {M} from the venue website but it just rings out.",
               "Someone gave me {M} to call but it's not connecting."],
        "mq_fix": ["That number ({M}) isn't ours, I'm afraid.", "{M} is an old number that's no longer in use."],
        "misquotes": ["0306 999 0181", "0306 999 0811", "0306 999 0108"],
        "notes": ["Cust needs wheelchair space + companion seat for {event}, carer {tp}.",
                  "Caller asking about step-free seating for {event} ({edate}). Access Register no. {access_id}."],
        "statements": [
            ("Accessible seating and companion tickets are booked through our Access line on {F} (Mon–Sat, "
             "9am–6pm).", None),
            ("Please call our dedicated Access team on {F} and they'll allocate a wheelchair space and a free "
             "companion ticket.", None),
            ("Wheelchair and step-free bookings can't be made online at the moment – ring {F} and quote your "
             "Access Register number.", None),
            ("The quickest way is to phone {F}; the team there can see every accessible seat at {venue}.", None),
        ],
        "extras": ["If you'd rather write, you can e-mail access@stagegate.example.com.",
                   "Joining the Stagegate Access Register means you only have to send proof once.",
                   "Companion tickets are free of charge for registered customers.",
                   "Blue Badge parking is limited so do mention it when you call."],
        "nostate": ["Could you let me know which date you're looking at? Some performances of this show have no "
                    "wheelchair spaces left and I want to check before I advise."],
    },
    {
        "id": "postponed_refund_window",
        "sympathy": SYMPATHY,
        "upbeat": False,
        "base": 30,
        "fact": "30 days",
        "forms": ["30 days", "thirty days", "one month"],
        "questions": ["My concert got rescheduled and I can't go on the new date - how long do I have to ask for "
                      "my money back?",
                      "What's the deadline for a refund when a show is postponed?"],
        "topic": "Postponed / rescheduled event",
        "subjects": ["Postponed show", "{event} moved - can't make new date", "Rescheduled gig refund",
                     "New date doesn't work"],
        "stories": [
            "{event} at {venue} has been moved from {edate} to {newdate}. I can't do the new date as I'm at my "
            "{rel}'s wedding that weekend. Booking {ref}.",
            "Just saw {event} is postponed to {newdate}. I'd booked a hotel and train for the original date which "
            "I can't get back! Anyway I want a refund, order {ref}, card ending {card4}.",
            "Our tickets for {event} were for {edate}, it's now {newdate} and my partner {tp} works nights then.",
            "Got your email about the rescheduled {event} gig. Do my tickets still work? And if not can I get my "
            "{amount} back?",
        ],
        "asks": ["How long have I got to ask for a refund?", "Is there a deadline to claim a refund?",
                 "How long do I have to decide?"],
        "mq": ["The venue says I only have {M} to claim.", "Your email said {M} I think, but I deleted it.",
               "A friend was told {M}."],
        "misquotes": ["14 days", "7 days", "21 days", "until the new date"],
        "notes": ["Cust can't make rescheduled date for {event} ({newdate}), booking {ref}. Wants refund.",
                  "Caller asking about refund deadline for postponed {event}."],
        "statements": [
            ("Your tickets are automatically valid for the new date. If you can't make it, you have {F} from the "
             "announcement to request a refund from your account.", None),
            ("The refund window for rescheduled shows is {F} after we email you the new date.", None),
            ("If the new date doesn't work, just request a refund from My Bookings within {F} of the "
             "rescheduling email.", None),
            ("You've got {F} from when the new date was announced to claim a full refund; after that the tickets "
             "stand for the new date.", None),
        ],
        "extras": ["Your seats stay the same for the new date.",
                   "You don't need to re-download anything, the same tickets will scan.",
                   "Unfortunately we can't cover travel or hotel costs."],
        "nostate": ["Which booking is this about? I can see two orders on your account for this tour."],
    },
    {
        "id": "name_change_fee",
        "base": 25,
        "fact": "£12",
        "forms": ["£12", "GBP 12", "12 pounds", "twelve pounds", "£12.00"],
        "questions": ["How much does it cost to change the name on a ticket?",
                      "Is there a fee to put my tickets in someone else's name?"],
        "topic": "Changing the name on a ticket",
        "subjects": ["Name change", "Wrong name on ticket", "Change ticket holder", "Name change for {event}"],
        "stories": [
            "I bought tickets for {event} in my name but can't go now; my {rel_tp} is going instead. Can the name "
            "be changed? My DOB is {dob} if you need it for security.",
            "The name on my ticket for {event} is spelt wrong – it says {misname} instead of {full}. The venue is "
            "strict on ID.",
            "Booked {qty_w} tickets for {event} at {venue}, one is for my friend {tp} but I put my name as the "
            "holder on both. Order {ref}.",
            "I'm transferring my ticket for {event} to {tp}, their email is {tp_email}. Booking {ref}.",
        ],
        "asks": ["Is there a charge to change the name?", "How much does it cost to do that?",
                 "Can you change it and is there a fee?"],
        "mq": ["I was told it's {M} to change.", "Your FAQ says it's {M}?", "Last time it was {M}."],
        "misquotes": ["£5", "£10", "£25", "£7.50"],
        "notes": ["Cust wants name on ticket for {event} changed to {tp}. Booking {ref}.",
                  "Name misspelt on booking {ref} ({misname}), cust asked for correction."],
        "statements": [
            ("We can change the name on a ticket for an admin fee of {F} per ticket; the new holder will need "
             "photo ID that matches.", None),
            ("Changing the ticket holder's name costs {F} per ticket, payable by card using SafeSeat Transfer in "
             "the app.", None),
            ("There's a {F} admin charge for each name change, and it can be done up to the day before the "
             "event.", ["£12", "GBP 12", "£12.00"]),
            ("Name changes are {F} per ticket and I can do it for you now if you confirm.", None),
        ],
        "extras": ["The new holder will get the ticket straight into their Stagegate Wallet.",
                   "Please note the lead booker can't be changed, only the names on the tickets."],
        "nostate": ["Could you confirm the full name of the new holder, exactly as on their ID? I'll then check "
                    "whether this show allows changes."],
    },
    {
        "id": "box_office_collection_time",
        "base": 21,
        "fact": "90 minutes",
        "forms": ["90 minutes", "ninety minutes", "an hour and a half", "1.5 hours", "90 mins"],
        "questions": ["How early can I pick up my tickets at the venue box office?",
                      "What time does ticket collection open on the night?"],
        "topic": "Collecting tickets",
        "subjects": ["Collecting tickets", "Box office collection", "Collection time {event}",
                     "Collect at venue - timings"],
        "stories": [
            "I chose Box Office Collect for {event} at {venue} on {edate} as we're coming from {town}, and I want "
            "to plan the train.",
            "Collecting tickets for {event} tonight. I paid with my old card (ending {card4}) which has now been "
            "replaced, will that be a problem? I've got my driving licence as ID.",
            "Can my friend {tp} pick up the tickets for me? I'll be coming straight from work. Booking ref {ref}.",
            "Order {ref} is marked as collect at venue. We've got a long drive from {town} with the kids.",
        ],
        "asks": ["What time does collection open?", "How early can we collect?",
                 "When does the box office start handing out tickets?"],
        "mq": ["The venue site says collection opens {M} before doors.", "I think someone told me {M} before."],
        "misquotes": ["2 hours", "one hour", "30 minutes", "45 minutes"],
        "notes": ["Cust booked Box Office Collect for {event}, asking when collection opens.",
                  "Caller's friend {tp} to collect tickets for {event}, booking {ref}."],
        "statements": [
            ("Box Office Collect windows open {F} before doors at every venue we sell for.", None),
            ("You can pick up your tickets from the collection point from {F} before the doors open; bring the "
             "payment card and photo ID.", None),
            ("Collection starts {F} ahead of doors, so there's no need to arrive hours early.", None),
            ("The collection desk opens {F} before doors.", None),
        ],
        "extras": ["If the card has been replaced, bring the new card and your booking confirmation instead.",
                   "Someone else can collect for you if they bring a signed letter and a copy of your ID."],
        "nostate": ["Can you confirm the order number? This booking doesn't show as Box Office Collect on my "
                    "side."],
    },
    {
        "id": "standing_age_limit",
        "base": 17,
        "fact": "14 years old",
        "forms": ["14 years old", "fourteen years old", "aged 14", "age 14", "14+"],
        "questions": ["How old does my child have to be for a standing ticket?",
                      "Is there a minimum age for the standing area at gigs?"],
        "topic": "Age restrictions",
        "subjects": ["Age limit standing", "Can my son come?", "Minimum age", "Kids in standing area"],
        "stories": [
            "My son {tp_m} is {child_age} (born {child_dob}) and desperate to see {event} at {venue}. We've got "
            "standing tickets. Will he be allowed in with me?",
            "Bought standing tickets for {event} for me and my daughter {tp_f_first}, she's {child_age}. Do we "
            "need ID for her? She has a passport, number {passport}.",
            "I'm taking my niece {tp_f} to {event} on {edate}. She's {child_age}. We're in the standing area.",
        ],
        "asks": ["What's the age limit for standing?", "Is there a minimum age in the standing area?",
                 "Is that old enough?"],
        "mq": ["Another parent told me the limit was {M}.", "I thought it was {M} and over?"],
        "misquotes": ["16", "13", "18"],
        "notes": ["Cust asking if child ({child_age}) can use standing ticket for {event}.",
                  "Parent querying age policy for standing at {venue}, booking {ref}."],
        "statements": [
            ("Anyone in the standing area needs to be at least {F}.", ["14 years old", "fourteen years old"]),
            ("Standing at our venues is {F} only, even with a parent.", ["14+"]),
            ("Children have to be {F} or over to use a standing ticket; younger ones can go in seated areas with "
             "an adult.", ["aged 14"]),
            ("For standing, the rule is {F} and over, and security do check.", ["age 14", "aged 14"]),
        ],
        "extras": ["A passport or a citizen card is fine as ID.",
                   "If you'd like to swap to seated tickets I can look at availability."],
        "nostate": ["Could you send me the booking reference so I can check whether your tickets are standing or "
                    "seated?"],
    },
    {
        "id": "refund_protect_claim_window",
        "sympathy": SYMPATHY,
        "upbeat": False,
        "base": 13,
        "fact": "60 days",
        "forms": ["60 days", "sixty days", "two months", "2 months"],
        "questions": ["How long after the event can I make a FlexiRefund Protect claim?",
                      "What's the time limit for claiming on refund protection if I missed the show?"],
        "topic": "FlexiRefund Protect claims",
        "subjects": ["FlexiRefund claim", "Refund protection claim", "Missed the show - claim", "Claim {ref}"],
        "stories": [
            "I bought FlexiRefund Protect with my tickets for {event} on {edate}. I was ill on the day and "
            "couldn't go – I've got a note from {doctor}.",
            "We couldn't make {event} because my {rel_tp} was taken into hospital. I added FlexiRefund Protect to "
            "booking {ref}.",
            "Missed {event} because of the train strike, I had FlexiRefund Protect on order {ref}.",
        ],
        "asks": ["How long do I have to put in a claim?", "Is there a deadline for claims?",
                 "How long after the event can I claim?"],
        "mq": ["The policy wording I found says {M}.", "I was told I had {M}."],
        "misquotes": ["14 days", "90 days", "six weeks", "7 days"],
        "notes": ["Cust missed {event} (ill), has FlexiRefund Protect on {ref}, asking about claim deadline."],
        "statements": [
            ("FlexiRefund Protect claims have to be submitted within {F} of the event date, with evidence such as "
             "a doctor's note.", None),
            ("You have {F} after the show to make a FlexiRefund Protect claim.", None),
            ("Claims under FlexiRefund Protect are accepted up to {F} after the event.", None),
        ],
        "extras": ["Claims are made online in My Bookings under 'Make a claim'.",
                   "Train strikes are usually covered if you can show the cancellation."],
        "nostate": ["Can you confirm FlexiRefund Protect was added at checkout? I can't see it on this booking."],
    },
    {
        "id": "gift_card_validity",
        "base": 10,
        "fact": "24 months",
        "forms": ["24 months", "twenty-four months", "2 years", "two years"],
        "questions": ["How long can I use a Stagegate gift card before it expires?",
                      "Do gift vouchers run out, and after how long?"],
        "topic": "Gift cards",
        "subjects": ["Gift card expiry", "Gift voucher", "Is my gift card still valid"],
        "stories": [
            "My {rel_tp} gave me a Stagegate Gift Card for Christmas, code {voucher}. I haven't used it yet.",
            "I've got a gift card from a work leaving do ({voucher}) with about {amount} left on it.",
            "I want to buy a Stagegate Gift Card for my {rel_f}'s birthday but she's slow to use these things.",
        ],
        "asks": ["How long is it valid for?", "When does it expire?", "How long does she have to use it?"],
        "mq": ["I thought they only lasted {M}.", "The shop said {M}."],
        "misquotes": ["12 months", "6 months", "one year", "18 months"],
        "notes": ["Cust asking about expiry of gift card {voucher}."],
        "statements": [
            ("Stagegate Gift Cards are valid for {F} from the date of purchase.", None),
            ("A gift card can be used for {F} after it's bought, on any event we sell.", None),
            ("They expire {F} after purchase, and any balance carries over between bookings until then.", None),
        ],
        "extras": ["You can check the balance at www.stagegate.example.com/giftcards.",
                   "Gift cards can't be exchanged for cash."],
        "nostate": ["Could you double-check the code? The one you sent isn't showing on our system."],
    },
    {
        "id": "plus_membership_price",
        "base": 7,
        "fact": "£29",
        "forms": ["£29", "GBP 29", "29 pounds", "twenty-nine pounds", "£29.00"],
        "questions": ["How much does a Stagegate Plus membership cost per year?",
                      "What's the annual price of the Plus membership?"],
        "topic": "Stagegate Plus",
        "subjects": ["Stagegate Plus price", "Plus membership", "Renewal of Plus"],
        "stories": [
            "Thinking about joining Stagegate Plus mainly for the presales – {event} sold out before I got "
            "anywhere.",
            "My Stagegate Plus is up for renewal and I'm not sure I've used it enough. Customer number {custno}.",
            "Would Stagegate Plus be worth it? I go to maybe {qty_big} gigs a year with {tp_first}.",
        ],
        "asks": ["How much is it a year?", "What does it cost now?", "What's the yearly price?"],
        "mq": ["I think it was {M} when I joined.", "A friend pays {M}."],
        "misquotes": ["£19", "£35", "£39"],
        "notes": ["Cust asking price of Stagegate Plus, customer no. {custno}."],
        "statements": [
            ("Stagegate Plus costs {F} a year and includes Priority Presale access to most tours.", None),
            ("Membership is {F} per year, renewing automatically unless you switch it off.", None),
            ("The annual fee for Stagegate Plus is {F}.", None),
        ],
        "extras": ["You can cancel the renewal any time in your account settings.",
                   "Priority Presale is included for most arena tours."],
        "nostate": ["Could you confirm the email on your membership? I can't find a Plus membership under this "
                    "one."],
    },
]

GENERIC_FIX = ["Just to clarify, it isn't {M}.", "Sorry for any confusion, but it's not {M}.",
               "I'm afraid the information you were given ({M}) isn't right.",
               "I'm afraid {M} is out of date."]

# --------------------------------------------------------------------------------------------------
# Customer and agent phrase pools
# --------------------------------------------------------------------------------------------------

C_GREET = ["Hi,", "Hello,", "Hi there,", "Good morning,", "Hiya,", "Dear Stagegate,", "To whom it may concern,",
           "Hello Stagegate team,", "Hi guys,", "Afternoon,", ""]
C_SIGN = ["Thanks,\n{first}", "Cheers\n{first}", "Many thanks,\n{full}", "Regards,\n{title_last}",
          "{first} x", "Thanks in advance\n{full}", "Kind regards\n{full}\n{phone}", "thanks {first}",
          "Best,\n{first_initial}", "{full}\nSent from my iPhone"]
C_IDENT = ["My account email is {email}.", "You can reach me on {phone}.", "Customer number {custno}.",
           "Booking reference: {ref}", "My address is {addr_full} if that helps.",
           "DOB {dob} if you need to check it's me.", "Link to my order: {url_order}",
           "Please call me back on {phone} after 5pm.", "(My insta is {handle} if that's easier.)",
           "Order number {ref}, card ending {card4}.", "I'm on {phone} or {email}."]
C_NOISE = ["Sorry for the long message.", "This is the second time I've written in!!",
           "Really hoping you can help.", "I've been on hold for ages so trying email instead.",
           "Not impressed so far to be honest.", "Love your app otherwise.", "Thanks for any help.",
           "I emailed last month about a different order too."]

A_GREET = ["Hi {first},", "Hello {first},", "Dear {title_last},", "Hi there,", "Dear {full},", "Hi {first}!"]
A_OPEN = ["Thanks for getting in touch with Stagegate Tickets.", "Sorry for the wait in getting back to you.",
          "I've had a look at booking {ref}.", "Thanks for your patience.", "Thanks for your message.",
          "Thanks for contacting us about this.", "Good question!", ""]

A_CLOSE = ["If there's anything else, just reply to this email.",
           "If you need us, we're on " + HELPLINE + " (8am–10pm).",
           "You'll also find this in our help centre at " + WEBSITE + "/help.",
           "You can always e-mail us at " + HELP_EMAIL + ".",
           "Have a great time at the show!", "Hope that helps.",
           "For anything else, " + WEBSITE + " has our full terms.",
           "You can also DM us on X or Instagram at " + HANDLE + ".",
           "Call " + HELPLINE + " if you'd rather talk it through."]
A_SIG_MAIL = ["Kind regards,\n{agent_first}\n" + COMPANY + " Customer Support",
              "Best wishes,\n{agent_sig} – " + COMPANY,
              "{agent_sig} | " + COMPANY + " Support",
              "Many thanks,\n{agent_full}\nCustomer Experience Team, " + COMPANY,
              "Thanks,\n{agent_first} (" + COMPANY + ")"]


# --------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------

def _mark(kind: str, s: str) -> str:
    return f"\x01{kind}\x03{s}\x02"


_MARK_RE = re.compile(r"\x01([a-z_]+)\x03(.*?)\x02", re.S)
_SLOT_RE = re.compile(r"(\{[a-zA-Z_0-9]+\})")


def _holds(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


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


def _ascii(s: str) -> str:
    table = str.maketrans("áàâäãåçéèêëíìîïñóòôöõúùûüýśżźłńćęąšžčřěůőűğışÁÉÍÓÚŚŻŁÇÖÜ",
                          "aaaaaaceeeeiiiinooooouuuuyszzlnceaszcreuougisAEIOUSZLCOU")
    return re.sub(r"[^a-z0-9]", "", s.translate(table).lower())


def _iban_check(country: str, bban: str) -> str:
    rearranged = bban + country + "00"
    num = "".join(str(int(c, 36)) for c in rearranged)
    return f"{98 - int(num) % 97:02d}"


NUM_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 8: "eight", 10: "ten", 11: "eleven",
             12: "twelve", 13: "thirteen", 15: "fifteen", 20: "twenty"}


class Person:
    def __init__(self, rng: random.Random, pid: str):
        self.pid = pid
        g = rng.random()
        if g < 0.47:
            self.first, self.gender = rng.choice(FEMALE), "f"
        elif g < 0.93:
            self.first, self.gender = rng.choice(MALE), "m"
        else:
            self.first, self.gender = rng.choice(UNISEX), rng.choice("fm")
        self.last = rng.choice(SURNAMES)
        self.title = ("Mr" if self.gender == "m" else rng.choice(["Ms", "Mrs", "Miss", "Ms"]))
        if rng.random() < 0.05:
            self.title = rng.choice(["Dr", "Mx"])
        self.full = f"{self.first} {self.last}"
        f, l = _ascii(self.first), _ascii(self.last)
        yy = rng.randint(60, 99) if rng.random() < 0.6 else rng.randint(0, 6)
        dom = rng.choice(["example.com", "example.com", "example.net", "example.org"])
        self.email = rng.choice([
            f"{f}.{l}@{dom}", f"{f}{l}@{dom}", f"{f[0]}.{l}@{dom}", f"{f}_{l[0]}{yy:02d}@{dom}",
            f"{f}{l[0]}{rng.randint(1, 999)}@{dom}", f"{l}.{f}{yy:02d}@{dom}", f"{f}.{l}{yy:02d}@{dom}",
            f"{l}family@{dom}", f"{f}x{l}@{dom}"])
        r = rng.random()
        if r < 0.72:
            self.phone_kind, self.phone_digits = "mob", f"07700900{rng.randint(0, 999):03d}"
        elif r < 0.95:
            area, pre = rng.choice([("020", "7946 0"), ("0161", "496 0"), ("0113", "496 0"), ("0117", "496 0"),
                                    ("0121", "496 0"), ("0131", "496 0"), ("0141", "496 0"), ("0191", "498 0"),
                                    ("029", "2018 0")])
            self.phone_kind, self.phone_digits = "land", area + pre.replace(" ", "") + f"{rng.randint(0, 999):03d}"
            self.area = area
        else:
            self.phone_kind, self.phone_digits = "us", f"{rng.choice(['212', '415', '617', '312'])}5550{rng.randint(100, 199)}"
        self.phone = self._phone_canon()
        self.custno = f"SG{rng.randint(10000000, 99999999)}"
        town, area = rng.choice(TOWNS)
        self.town = town
        self.postcode = f"{area}{rng.randint(1, 28)} {rng.randint(0, 9)}{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}" \
                        f"{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}"
        k = rng.random()
        num = rng.randint(1, 240)
        if k < 0.55:
            self.address = f"{num} {rng.choice(STREETS_TYPED)} {rng.choice(STREET_TYPES)}"
        elif k < 0.75:
            self.address = f"{num} {rng.choice(STREETS_BARE)}"
        elif k < 0.9:
            self.address = f"Flat {rng.randint(1, 30)}, {num} {rng.choice(STREETS_TYPED)} {rng.choice(['Court', 'House', 'Road', 'Street'])}"
        else:
            self.address = f"{rng.randint(1, 80)} {rng.choice(BUILDINGS)}, {rng.choice(STREETS_TYPED)} {rng.choice(['Street', 'Road', 'Wharf'])}"
        if rng.random() < 0.1:
            self.address = self.address.replace(f"{num} ", f"{num}{rng.choice('ab')} ", 1)
        self.dob = (rng.randint(1950, 2006), rng.randint(1, 12), rng.randint(1, 28))
        self.card4 = f"{rng.randint(0, 9999):04d}"
        self.handle = "@" + rng.choice([f"{f}{l[:1]}_{yy:02d}", f"{f}.{l}", f"{f}{rng.randint(1, 99)}", f"the_{f}",
                                        f"{l}{f[:1]}", f"{f}_loves_gigs"])

    def _phone_canon(self) -> str:
        d = self.phone_digits
        if self.phone_kind == "mob":
            return f"{d[:5]} {d[5:]}"
        if self.phone_kind == "land":
            a = self.area
            rest = d[len(a):]
            return f"{a} {rest[:4]} {rest[4:]}" if len(a) == 3 else f"{a} {rest[:3]} {rest[3:]}"
        return f"+1 {d[:3]} {d[3:6]} {d[6:]}"

    def phone_variant(self, rng: random.Random) -> str:
        d = self.phone_digits
        if self.phone_kind == "mob":
            return rng.choice([self.phone, self.phone, d, f"+44 {d[1:5]} {d[5:]}", f"+44{d[1:]}",
                               f"{d[:5]} {d[5:8]} {d[8:]}", f"{d[:4]} {d[4:7]} {d[7:]}", f"{d[:5]}-{d[5:]}"])
        if self.phone_kind == "land":
            a = self.area
            rest = self.phone[len(a) + 1:]
            return rng.choice([self.phone, f"({a}) {rest}", d, f"+44 {a[1:]} {rest}"])
        return rng.choice([self.phone, f"({d[:3]}) {d[3:6]}-{d[6:]}", f"{d[:3]}-{d[3:6]}-{d[6:]}"])


def _fmt_date_dob(rng: random.Random, y: int, m: int, d: int) -> str:
    months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December"]
    if m == 5:  # keep "May" out of texts: it is also a name in the lists
        return rng.choice([f"{d:02d}/05/{y}", f"{d}/5/{y % 100:02d}", f"{y}-05-{d:02d}", f"{d}.05.{y}"])
    mon = months[m - 1]
    suf = "th" if 11 <= d <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    return rng.choice([f"{d:02d}/{m:02d}/{y}", f"{d}/{m}/{y % 100:02d}", f"{d} {mon} {y}", f"{d}{suf} {mon[:3]} {y}",
                       f"{y}-{m:02d}-{d:02d}", f"{d}.{m}.{y}", f"{mon} {d}, {y}"])


def _event_date(rng: random.Random) -> str:
    mon = rng.choice(MONTHS)
    d = rng.randint(1, 28)
    suf = "th" if 11 <= d <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    wd = rng.choice(WEEKDAYS)
    return rng.choice([f"{wd} {d} {mon}", f"{d:02d}/{MONTH_NUM[mon]:02d}", f"the {d}{suf} of {mon}",
                       f"{wd[:3]} {d}{suf} {MON_ABBR[mon]}", f"{d} {MON_ABBR[mon]}", f"{mon} {d}{suf}"])


# --------------------------------------------------------------------------------------------------
# One record
# --------------------------------------------------------------------------------------------------

class _Rec:
    def __init__(self, rng: random.Random, person: Person, t: dict, agent, misquote: bool, nostate: bool,
                 repeat: bool, force_access_email: bool):
        self.rng, self.p, self.t, self.agent = rng, person, t, agent
        self.misquote, self.nostate, self.repeat = misquote, nostate, repeat
        self.force_access_email = force_access_email
        self.cache: dict[str, str] = {}
        self.sloppy = rng.choices([0, 1, 2], [45, 40, 15])[0]

    # ---------------------------------------------------------------- slots
    def slot(self, name: str) -> str:
        if name not in self.cache:
            self.cache[name] = self._make(name)
        return self.cache[name]

    def _name(self, gender: str | None = None, first_only: bool | None = None) -> tuple[str, str, str]:
        rng = self.rng
        if gender is None:
            gender = rng.choice("fm")
        pool = FEMALE if gender == "f" else MALE
        while True:
            first = rng.choice(pool + UNISEX[:5]) if rng.random() < 0.1 else rng.choice(pool)
            if first != self.p.first:
                break
        last = rng.choice(SURNAMES) if rng.random() < 0.7 else self.p.last
        if first_only is None:
            first_only = rng.random() < 0.4
        return first, last, (first if first_only else f"{first} {last}")

    def _make(self, name: str) -> str:
        rng, p = self.rng, self.p
        m = _mark
        if name == "first":
            return m("person_name", p.first)
        if name == "full":
            return m("person_name", p.full)
        if name == "first_initial":
            return m("person_name", f"{p.first} {p.last[0]}") if rng.random() < 0.5 else m("person_name", p.first)
        if name == "title_last":
            return m("person_name", f"{p.title} {p.last}")
        if name == "email":
            e = p.email if rng.random() < 0.85 else p.email.upper() if rng.random() < 0.2 else p.email.capitalize()
            return m("email", e)
        if name == "email_canon":
            return m("email", p.email)
        if name == "phone":
            return m("phone", p.phone_variant(rng))
        if name == "phone_canon":
            return m("phone", p.phone)
        if name == "custno":
            c = p.custno
            return m("account_number", rng.choice([c, c, c.lower(), f"SG {c[2:6]} {c[6:]}", c[2:]]))
        if name == "ref":
            code = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))
            return m("account_number", rng.choice([f"STG-{code}", f"STG-{code}", f"STG{code}", f"stg-{code.lower()}",
                                                   f"STG {code}"]))
        if name == "card4":
            return m("card_number", p.card4)
        if name == "addr_full":
            pc = p.postcode
            pc = rng.choice([pc, pc, pc.lower(), pc.replace(" ", "")])
            return rng.choice([f"{m('address', p.address)}, {p.town} {m('postcode', pc)}",
                               f"{m('address', p.address)}, {m('postcode', pc)}",
                               f"{m('address', p.address)} {p.town}"])
        if name == "postcode":
            pc = p.postcode
            return m("postcode", rng.choice([pc, pc, pc.lower(), pc.replace(" ", "")]))
        if name == "dob":
            return m("date_of_birth", _fmt_date_dob(rng, *p.dob))
        if name == "imei":
            body = "35" + "".join(rng.choice(string.digits) for _ in range(12))
            full = body + _luhn_digit(body)
            return m("imei", rng.choice([full, f"{full[:2]}-{full[2:8]}-{full[8:14]}-{full[14]}",
                                         f"{full[:2]} {full[2:8]} {full[8:14]} {full[14]}"]))
        if name == "plate":
            L = "ABCDEFGHJKLMNOPRSTUVWXYZ"
            plate = f"{rng.choice(L)}{rng.choice(L)}{rng.randint(51, 74) if rng.random() < 0.5 else rng.randint(10, 24)} " \
                    f"{rng.choice(L)}{rng.choice(L)}{rng.choice(L)}"
            return m("licence_plate", rng.choice([plate, plate, plate.replace(" ", ""), plate.lower()]))
        if name == "ni":
            a = rng.choice("ABCEGHJKLMNPRSTWXYZ") + rng.choice("ABCEGHJKLMNPRSTWXYZ")
            dd = [f"{rng.randint(0, 99):02d}" for _ in range(3)]
            s = rng.choice("ABCD")
            return m("national_id", rng.choice([f"{a} {' '.join(dd)} {s}", f"{a}{''.join(dd)}{s}",
                                                f"{a.lower()}{''.join(dd)}{s.lower()}"]))
        if name == "passport":
            return m("other_id", f"{rng.randint(100000000, 999999999)}")
        if name == "access_id":
            return m("other_id", rng.choice([f"AR-{rng.randint(100000, 999999)}", f"AR{rng.randint(100000, 999999)}"]))
        if name == "voucher":
            code = "-".join("".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(4)) for _ in range(3))
            return m("other_id", f"SGGC-{code}")
        if name == "handle":
            return m("other_id", p.handle)
        if name == "sort":
            a, b, c = rng.randint(10, 99), rng.randint(0, 99), rng.randint(0, 99)
            return m("iban", rng.choice([f"{a}-{b:02d}-{c:02d}", f"{a}{b:02d}{c:02d}", f"{a} {b:02d} {c:02d}"]))
        if name == "acct":
            return m("iban", f"{rng.randint(10000000, 99999999)}")
        if name == "iban":
            bank = rng.choice(["NWBK", "BARC", "MIDL", "LOYD", "HBUK", "MONZ"])
            bban = bank + "".join(rng.choice(string.digits) for _ in range(14))
            country = rng.choice(["GB", "GB", "IE"]) if bank != "MONZ" else "GB"
            iban = country + _iban_check(country, bban) + bban
            grouped = " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))
            return m("iban", rng.choice([grouped, iban]))
        if name == "url_order":
            code = "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(8))
            return m("url_with_id", rng.choice([f"https://my.stagegate.example.com/orders/{code}",
                                                f"https://my.stagegate.example.com/o/{code}?src=email",
                                                f"my.stagegate.example.com/orders/{code}"]))
        if name == "url_resale":
            code = "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(9))
            return m("url_with_id", f"https://resale.stagegate.example.com/listing/{code}")
        if name in ("tp", "tp_first"):
            first, last, s = self._name(first_only=(name == "tp_first") or None)
            self.cache.setdefault("_tpname", (first, last))
            return m("third_party_name", s)
        if name in ("tp_m", "tp_f", "tp_m_first", "tp_f_first"):
            g = name[3]
            _, _, s = self._name(g, first_only=name.endswith("first") or None)
            self.cache["_tpgender"] = g
            return m("third_party_name", s)
        if name == "rel_tp":
            g = rng.choice("fm")
            rel = rng.choice(["sister", "mum", "wife", "girlfriend", "daughter", "aunt", "friend", "partner",
                              "best friend", "flatmate"] if g == "f" else
                             ["brother", "dad", "husband", "boyfriend", "son", "uncle", "friend", "partner",
                              "mate", "grandad"])
            first, last, s = self._name(g)
            self.cache["_tpname"] = (first, last)
            return f"{rel} {m('third_party_name', s)}"
        if name == "tp_email":
            first, last = self.cache.get("_tpname", (None, None))
            if first is None:
                first, last, _ = self._name()
            dom = rng.choice(["example.com", "example.net", "example.org"])
            return m("email", rng.choice([f"{_ascii(first)}.{_ascii(last)}@{dom}", f"{_ascii(first)}{rng.randint(1, 99)}@{dom}"]))
        if name == "doctor":
            return m("third_party_name", f"Dr {rng.choice(SURNAMES)}")
        if name == "misname":
            f, l = p.first, p.last
            def garble(w: str) -> str:
                if len(w) < 4:
                    return w + w[-1]
                i = rng.randint(1, len(w) - 2)
                return w[:i] + w[i + 1] + w[i] + w[i + 2:] if rng.random() < 0.5 else w[:i] + w[i + 1:]
            return m("person_name", rng.choice([f"{garble(f)} {l}", f"{f} {garble(l)}"]))
        if name == "agent_first":
            return m("agent_name", self.agent[0])
        if name == "agent_full":
            return m("agent_name", f"{self.agent[0]} {self.agent[1]}")
        if name == "agent_sig":
            a = self.agent
            return m("agent_name", rng.choice([a[0], f"{a[0]} {a[1][0]}.", f"{a[0]} {a[1]}"]))
        if name == "agent_note":
            a = self.agent
            return m("agent_name", rng.choice([f"{a[0][0]}. {a[1]}", f"{a[0]} {a[1][0]}.", f"{a[0]} {a[1]}",
                                               f"{a[1]}, {a[0]}"]))
        if name == "team_leader":
            a = rng.choice(TEAM_LEADERS)
            return m("agent_name", rng.choice([a[0], f"{a[0]} {a[1]}"]))
        # ---- non-personal slots
        if name == "event":
            return rng.choice(EVENTS)
        if name == "venue":
            return rng.choice(VENUES)
        if name == "town":
            return rng.choice(TOWNS)[0]
        if name in ("edate", "newdate", "odate"):
            return _event_date(rng)
        if name == "weekday":
            return rng.choice(WEEKDAYS)
        if name == "qty_w":
            q = rng.choice([2, 2, 2, 3, 4, 4, 5, 6])
            self.cache["_qty"] = q
            return NUM_WORDS[q] if rng.random() < 0.5 else str(q)
        if name == "qty_big":
            q = rng.choice([8, 10, 12, 15, 20])
            return NUM_WORDS[q] if rng.random() < 0.4 else str(q)
        if name == "amount":
            v = rng.randint(3000, 42000) / 100
            return rng.choice([f"£{v:.2f}", f"£{v:.2f}", f"GBP {v:.2f}", f"{int(v)} quid", f"£{int(v)}"])
        if name == "fee_total":
            q = self.cache.get("_qty", 2)
            v = q * 2.75 + rng.choice([0, 0, 1.5, 3.0])
            return f"£{v:.2f}"
        if name == "rel":
            return rng.choice(["brother", "sister", "best friend", "cousin", "son", "daughter"])
        if name == "rel_f":
            return rng.choice(["mum", "sister", "niece", "gran", "wife"])
        if name == "reason":
            return rng.choice(REASONS)
        if name == "child_age":
            a = rng.choice([10, 11, 12, 13])
            self.cache["_age"] = a
            return rng.choice([str(a), NUM_WORDS.get(a, str(a)), f"{a} years old", f"only {a}"])
        if name == "child_dob":
            a = self.cache.get("_age", 12)
            y = 2024 - a
            return m("date_of_birth", _fmt_date_dob(rng, y, rng.randint(1, 12), rng.randint(1, 28)))
        raise KeyError(name)

    # ---------------------------------------------------------------- filling
    def _noise(self, s: str) -> str:
        if self.sloppy == 0 or not s:
            return s
        rng = self.rng
        rate = 0.03 if self.sloppy == 1 else 0.07
        drop = 0.3 if self.sloppy == 1 else 0.75
        for a, b in (("I'm", "im"), ("I've", "ive"), ("don't", "dont"), ("haven't", "havent"),
                     ("can't", "cant"), ("it's", "its"), ("I'd", "id"), ("doesn't", "doesnt"),
                     ("won't", "wont"), ("there's", "theres")):
            if a in s and rng.random() < drop:
                s = s.replace(a, b if self.sloppy == 2 else b.capitalize() if a[0].isupper() else b)
        if self.sloppy == 2:
            s = s.replace("please", "pls" if rng.random() < 0.5 else "please").replace(" you ", " u " if rng.random() < 0.3 else " you ")
        parts = re.split(r"(\s+)", s)
        for i, w in enumerate(parts):
            if w.isalpha() and w.islower() and len(w) >= 5 and rng.random() < rate:
                j = rng.randint(1, len(w) - 2)
                op = rng.randrange(3)
                if op == 0:
                    w = w[:j] + w[j + 1:]
                elif op == 1:
                    w = w[:j] + w[j + 1] + w[j] + w[j + 2:]
                else:
                    w = w[:j] + w[j] + w[j:]
                parts[i] = w
        return "".join(parts)

    def fill(self, template: str, cust: bool = False, extra: dict | None = None) -> str:
        out = []
        for piece in _SLOT_RE.split(template):
            if piece.startswith("{") and piece.endswith("}"):
                key = piece[1:-1]
                if extra and key in extra:
                    out.append(extra[key])
                else:
                    out.append(self.slot(key))
            else:
                out.append(self._noise(piece) if cust else piece)
        return "".join(out)

    # ---------------------------------------------------------------- pieces
    def pieces(self) -> dict:
        rng, t = self.rng, self.t
        P: dict = {}
        P["greet"] = self.fill(rng.choice(C_GREET), cust=True)
        P["story"] = self.fill(rng.choice(t["stories"]), cust=True)
        n_ident = rng.choices([0, 1, 2], [30, 50, 20])[0]
        fresh = [s for s in C_IDENT if not any(k[1:-1] in self.cache for k in _SLOT_RE.findall(s))]
        P["ident"] = []
        for s in rng.sample(fresh, min(n_ident, len(fresh))):
            if not any(k[1:-1] in self.cache for k in _SLOT_RE.findall(s)):
                P["ident"].append(self.fill(s, cust=True))
        if self.misquote:
            self.cache["M"] = rng.choice(t["misquotes"])
            P["mq"] = self.fill(rng.choice(t["mq"]), cust=True)
        else:
            P["mq"] = ""
        P["ask"] = self.fill(rng.choice(t["asks"]), cust=True)
        P["noise"] = self.fill(rng.choice(C_NOISE), cust=True) if rng.random() < 0.3 else ""
        if self.repeat and rng.random() < 0.5:
            P["noise"] = (P["noise"] + " " if P["noise"] else "") + self.fill(
                rng.choice(["I've booked with you a few times before.", "(Same account as my last query.)",
                            "I contacted you before about another booking."]), cust=True)
        P["sign"] = self.fill(rng.choice(C_SIGN), cust=True)
        P["note"] = self.fill(rng.choice(t["notes"]))
        # agent side
        P["a_greet"] = self.fill(rng.choice(A_GREET))
        P["a_open"] = self.fill(rng.choice(A_OPEN + t.get("sympathy", [])))
        if self.nostate:
            P["core"] = self.fill(rng.choice(t["nostate"]))
        else:
            tmpl, allowed = rng.choice(t["statements"])
            forms = allowed or t["forms"]
            weights = [t.get("form_weights", [3] + [1] * (len(t["forms"]) - 1))[t["forms"].index(f)] for f in forms]
            form = rng.choices(forms, weights)[0]
            core = self.fill(tmpl, extra={"F": form})
            if self.misquote:
                fix = rng.choice(t.get("mq_fix", GENERIC_FIX))
                core = self.fill(fix) + " " + core
            P["core"] = core
        ex = rng.sample(t["extras"], 0 if self.nostate else rng.choices([0, 1, 2], [30, 50, 20])[0])
        if self.force_access_email and t["extras"][0] not in ex:
            ex.append(t["extras"][0])
        P["extras"] = [self.fill(e) for e in ex]
        closes = [c for c in A_CLOSE if t.get("upbeat", True) or "great time" not in c]
        P["a_close"] = self.fill(rng.choice(closes)) if rng.random() < 0.75 else ""
        return P


# --------------------------------------------------------------------------------------------------
# Record formats
# --------------------------------------------------------------------------------------------------

def _hdr_date(rng: random.Random) -> tuple[str, str]:
    while True:
        day = datetime.date(2023, 1, 1) + datetime.timedelta(days=rng.randint(0, 900))
        if day.month != 5:
            break
    hh, mm = rng.randint(7, 23), rng.randint(0, 59)
    return f"{WEEKDAYS[day.weekday()][:3]}, {day.day} {MON_ABBR[MONTHS[[1,2,3,4,6,7,8,9,10,11,12].index(day.month)]][:3]} {day.year}", f"{hh:02d}:{mm:02d}"


def _join(*parts: str, sep: str = " ") -> str:
    return sep.join(p for p in parts if p)


def _cust_para(P: dict, rng: random.Random) -> str:
    mid = [P["story"]] + P["ident"]
    if P["mq"]:
        mid.insert(1, P["mq"])
    body = " ".join(mid)
    tail = _join(P["noise"], P["ask"]) if rng.random() < 0.5 else _join(P["ask"], P["noise"])
    return body + ("\n\n" if rng.random() < 0.4 else " ") + tail


def _agent_body(R: _Rec, P: dict, sig: bool = True) -> str:
    rng = R.rng
    lines = [P["a_greet"], "", _join(P["a_open"], P["core"], *P["extras"])]
    if P["a_close"]:
        lines += ["", P["a_close"]]
    if sig:
        lines += ["", R.fill(rng.choice(A_SIG_MAIL))]
    return "\n".join(lines)


def fmt_email(R: _Rec, P: dict) -> str:
    rng, t = R.rng, R.t
    date, time = _hdr_date(rng)
    subj = R.fill(rng.choice(t["subjects"]))
    frm = rng.choice([f"{R.slot('full')} <{R.slot('email_canon')}>", R.slot("email_canon")])
    cust = _join(P["greet"], _cust_para(P, rng), P["sign"], sep="\n\n")
    agent = _agent_body(R, P)
    if rng.random() < 0.6:
        return (f"From: {frm}\nTo: {HELP_EMAIL}\nDate: {date} {time}\nSubject: {subj}\n\n{cust}\n\n"
                f"----- Reply -----\nFrom: {COMPANY} <{HELP_EMAIL}>\nSubject: RE: {subj}\n\n{agent}")
    quoted = "\n".join("> " + line if line else ">" for line in cust.split("\n"))
    return (f"Subject: RE: {subj}\nFrom: {COMPANY} Support <{HELP_EMAIL}>\n\n{agent}\n\n"
            f"On {date} at {time}, {frm} wrote:\n{quoted}")


def fmt_chat(R: _Rec, P: dict) -> str:
    rng = R.rng
    date, time = _hdr_date(rng)
    h, mi = int(time[:2]), int(time[3:])

    def ts() -> str:
        nonlocal h, mi
        mi += rng.randint(0, 3)
        if mi >= 60:
            h, mi = (h + 1) % 24, mi - 60
        return f"[{h:02d}:{mi:02d}]"
    who = R.slot("first")
    ag = R.slot("agent_first")
    lines = [f"Live chat transcript – {COMPANY}", f"Started {date} {time}",
             f"Visitor: {R.slot(rng.choice(['full', 'first']))} ({R.slot('email_canon')})"]
    lines.append(f"{ts()} {ag}: Hi, you're chatting with {ag}. How can I help today?")
    first_turn = _join(P["greet"] if P["greet"] not in ("To whom it may concern,",) else "hi", P["story"])
    lines.append(f"{ts()} {who}: {first_turn}")
    for extra in P["ident"] + ([P["mq"]] if P["mq"] else []):
        lines.append(f"{ts()} {who}: {extra}")
    lines.append(f"{ts()} {who}: {P['ask']}")
    if rng.random() < 0.4:
        lines.append(f"{ts()} {ag}: Thanks {R.slot('first')}, bear with me while I check that for you.")
    lines.append(f"{ts()} {ag}: {_join(P['core'], *P['extras'])}")
    lines.append(f"{ts()} {who}: {R.fill(rng.choice(['ok thanks', 'Great, thank you!', 'ah ok. thanks', 'Brilliant, cheers', 'Ok that makes sense', 'right ok']), cust=True)}")
    lines.append(f"{ts()} {ag}: {P['a_close'] or 'Is there anything else I can help with?'}")
    if rng.random() < 0.5:
        lines.append("Chat ended by visitor.")
    return "\n".join(lines)


def fmt_webform(R: _Rec, P: dict) -> str:
    rng, t = R.rng, R.t
    date, time = _hdr_date(rng)
    ref = R.slot("ref") if rng.random() < 0.7 else ""
    msg = _join(P["story"], P["mq"], *P["ident"], P["ask"], P["noise"])
    head = [f"Contact form – {WEBSITE}/help", f"Submitted: {date} {time}", f"Name: {R.slot('full')}",
            f"Email: {R.slot('email_canon')}"]
    if rng.random() < 0.7:
        head.append(f"Phone: {R.slot('phone_canon')}")
    head += [f"Booking reference: {ref}", f"Topic: {t['topic']}", f"Message: {msg}", "",
             f"Reply sent by {R.slot('agent_sig')}:", _agent_body(R, P, sig=rng.random() < 0.5)]
    return "\n".join(head)


def fmt_dm(R: _Rec, P: dict) -> str:
    rng = R.rng
    platform = rng.choice(["Instagram DM", "X (Twitter) DM", "Facebook Messenger"])
    h = R.slot("handle")
    lines = [f"{platform} – conversation with {h}",
             f"{h}: {R.fill(rng.choice(['hi', 'Hi', 'hello', 'hey']), cust=True)} {HANDLE} {P['story']}"]
    if P["mq"]:
        lines.append(f"{h}: {P['mq']}")
    lines.append(f"{h}: {P['ask']}")
    for extra in P["ident"][:1]:
        lines.append(f"{h}: {extra}")
    lines.append(f"{HANDLE}: Hi {R.slot('first')}, thanks for the message. {_join(P['core'], *P['extras'][:1])} "
                 f"– {R.slot('agent_first')}")
    if rng.random() < 0.5:
        lines.append(f"{h}: {R.fill(rng.choice(['thanks!', 'ok cheers', 'Thank you so much', 'great thx']), cust=True)}")
    return "\n".join(lines)


def fmt_call(R: _Rec, P: dict) -> str:
    rng = R.rng
    date, time = _hdr_date(rng)
    ag = R.slot("agent_first")
    lines = [f"Call recording transcript (auto) – {COMPANY} – {date} {time}",
             f"Agent: Thank you for calling {COMPANY}, you're through to {ag}, how can I help?",
             f"Caller: Hi, yeah, it's {R.slot(rng.choice(['full', 'first']))} here. {P['story']}",
             "Agent: Can I take your postcode and date of birth for security?",
             f"Caller: It's {R.slot('postcode')}, and {R.slot('dob')}."]
    if P["mq"]:
        lines.append(f"Caller: {P['mq']}")
    lines.append(f"Caller: {P['ask']}")
    lines.append(f"Agent: {_join(P['core'], *P['extras'])}")
    lines.append(f"Caller: {R.fill(rng.choice(['Right, okay.', 'Brilliant, thanks.', 'Okay, thank you.', 'Fair enough.']), cust=True)}")
    lines.append(f"Agent: Thanks for calling {COMPANY}, {R.slot('first')}. Have a good day.")
    return "\n".join(lines)


def fmt_note(R: _Rec, P: dict) -> str:
    rng = R.rng
    date, time = _hdr_date(rng)
    lines = [f"CRM CALL NOTE | {date} {time} | Agent: {R.slot('agent_note')}",
             f"Caller: {R.slot(rng.choice(['title_last', 'full']))} – {R.slot('phone')}",
             f"ID&V: passed (DOB {R.slot('dob')}, postcode {R.slot('postcode')})",
             f"Reason: {P['note']}"]
    if P["mq"]:
        lines.append(f"Cust had been told {R.slot('M')} – corrected.")
    if R.nostate:
        lines.append("Action: " + R.fill(rng.choice(NOTE_NOSTATE)))
    else:
        lines.append(f"Advised: {_join(P['core'], *P['extras'])}")
    outcome = rng.choice(["Resolved first time.", f"Confirmation email sent to {R.slot('email')}.",
                          "Cust happy with answer.",
                          f"Cust unhappy, asked for a complaint – passed to TL {R.slot('team_leader')}.",
                          f"Callback booked on {R.slot('phone')}.", "No further action."])
    lines.append(f"Outcome: {outcome}")
    return "\n".join(lines)


NOTE_NOSTATE = ["Couldn't locate the booking – asked cust to email in the booking ref and last 4 digits of card.",
                "Need more info before advising; cust to reply to our email with order details.",
                "Booking details didn't match, cust to call back with the confirmation email to hand.",
                "Transferred to the specialist team, ticket raised."]


FORMATS = [(fmt_email, 30), (fmt_chat, 25), (fmt_webform, 18), (fmt_dm, 11), (fmt_call, 8), (fmt_note, 8)]

# --------------------------------------------------------------------------------------------------
# Validation of one record (ground truth stays exact)
# --------------------------------------------------------------------------------------------------

_ALL_FORMS = [(t["id"], f) for t in TYPES for f in t["forms"]]


def _check_static() -> None:
    for t in TYPES:
        for mq in t["misquotes"]:
            for _, f in _ALL_FORMS:
                assert not _holds(mq, f) and not _holds(f, mq), (t["id"], mq, f)
        for q in t["questions"]:
            for f in t["forms"]:
                assert not _holds(q, f), (q, f)


_check_static()


def _validate(R: _Rec, raw: str, core: str) -> tuple[bool, str, list, bool]:
    clean = _MARK_RE.sub(lambda mm: mm.group(2), raw)
    residual = _MARK_RE.sub("\x00", raw)
    pii = []
    for mm in _MARK_RE.finditer(raw):
        item = (mm.group(1), mm.group(2))
        if item not in pii:
            pii.append(item)
    t = R.t
    for tid, f in _ALL_FORMS:
        if tid != t["id"] and _holds(clean, f):
            return False, "", [], False
    core_clean = _MARK_RE.sub(lambda mm: mm.group(2), core)
    stated = any(_holds(core_clean, f) for f in t["forms"])
    if stated != (not R.nostate):
        return False, "", [], False
    if not stated and any(_holds(clean, f) for f in t["forms"]):
        return False, "", [], False
    for _, s in pii:
        if re.search(rf"(?<!\w){re.escape(s)}(?!\w)", residual):
            return False, "", [], False
        if any(s in ps for ps in PUBLIC_STRINGS):
            return False, "", [], False
    words = len(clean.split())
    if not 50 <= words <= 250:
        return False, "", [], False
    return True, clean, pii, stated


# --------------------------------------------------------------------------------------------------
# generate
# --------------------------------------------------------------------------------------------------

def _counts(n: int) -> list[int]:
    base = [t["base"] for t in TYPES]
    total = sum(base)
    exact = [b * n / total for b in base]
    counts = [max(1, int(e)) for e in exact]
    rest = n - sum(counts)
    order = sorted(range(len(base)), key=lambda i: -(exact[i] - int(exact[i])))
    i = 0
    while rest > 0:
        counts[order[i % len(order)]] += 1
        rest -= 1
        i += 1
    while rest < 0:
        j = max(range(len(counts)), key=lambda k: counts[k])
        counts[j] -= 1
        rest += 1
    return counts


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    rng = random.Random(f"ticketing/{seed}/{n}")
    counts = _counts(n)
    type_seq = [i for i, c in enumerate(counts) for _ in range(c)]
    rng.shuffle(type_seq)

    # customers: 1-3 records each
    owners: list[int] = []
    persons: list[Person] = []
    while len(owners) < n:
        k = rng.choices([1, 2, 3], [68, 22, 10])[0]
        pid = len(persons)
        persons.append(Person(rng, f"cust-{pid + 1:05d}"))
        owners.extend([pid] * k)
    owners = owners[:n]
    rng.shuffle(owners)

    agent_w = [a[2] for a in AGENTS]
    seen_person: set[int] = set()
    access_forced = False
    records, pii_rows = [], []
    stats = {t["id"]: {"stated": 0, "mis": 0} for t in TYPES}
    for idx in range(n):
        t = TYPES[type_seq[idx]]
        person = persons[owners[idx]]
        repeat = owners[idx] in seen_person
        seen_person.add(owners[idx])
        misquote = rng.random() < 0.10
        nostate = (not misquote) and rng.random() < 0.07
        force_access = (t["id"] == "accessible_booking_line" and not access_forced and not nostate)
        agent = rng.choices(AGENTS, agent_w)[0]
        fmt = rng.choices([f for f, _ in FORMATS], [w for _, w in FORMATS])[0]
        ok = False
        for attempt in range(60):
            R = _Rec(rng, person, t, agent, misquote, nostate, repeat, force_access)
            P = R.pieces()
            raw = fmt(R, P)
            ok, clean, pii, stated = _validate(R, raw, P["core"])
            if ok:
                break
            if attempt % 10 == 9:
                fmt = rng.choices([f for f, _ in FORMATS], [w for _, w in FORMATS])[0]
        if not ok:  # pragma: no cover - fall back to a plain e-mail, always valid in practice
            raise RuntimeError(f"ticketing: could not build record {idx} ({t['id']})")
        if force_access and ACCESS_EMAIL in clean:
            access_forced = True
        stats[t["id"]]["stated"] += int(stated)
        stats[t["id"]]["mis"] += int(misquote)
        rid = f"stg-{idx + 1:06d}"
        records.append({
            "id": rid,
            "text": clean,
            "person_id": person.pid,
            "type": t["id"],
            "customer_name": person.full,
            "email": person.email,
            "phone": person.phone,
            "customer_number": person.custno,
            "postcode": person.postcode,
        })
        pii_rows.append({"id": rid, "pii": [{"kind": k, "text": s} for k, s in pii]})

    types_out = []
    questions = []
    for t, c in zip(TYPES, counts):
        types_out.append({"id": t["id"], "records": c, "fact": t["fact"], "forms": list(t["forms"]),
                          "stated_by": stats[t["id"]]["stated"], "misquoted_by": stats[t["id"]]["mis"]})
        for q in t["questions"]:
            questions.append({"question": q, "answers": list(t["forms"]), "type": t["id"], "support": c})

    return {
        "domain": "ticketing",
        "records": records,
        "pii": pii_rows,
        "types": types_out,
        "questions": questions,
        "public": {
            "company": COMPANY,
            "public_strings": list(PUBLIC_STRINGS),
            "product_names": list(PRODUCTS),
            "identifier_fields": list(IDENTIFIER_FIELDS),
            "id_field": "id",
            "text_field": "text",
            "unit_field": "person_id",
        },
    }
