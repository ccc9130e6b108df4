"""Blind own-data domain ``hotel``: the guest-services export of a made-up hotel chain, Harbourline Hotels.

Each record is one guest contact and the hotel's answer, as a support system would export it: e-mail
threads (reply below or on top of the quoted message), live chats, WhatsApp messages, messages relayed by a
booking site, website enquiry forms, front-desk and call-centre notes, and online reviews with the
manager's response. Guests write their personal data however they like; every personal string written into
a record is listed in its ``pii`` row. Standard library only; deterministic in ``(seed, n)``.
"""

from __future__ import annotations

import random
import re
import string
import unicodedata

COMPANY = "Harbourline Hotels"
PHONE = "0800 028 4615"
WEB = "www.harbourline.example.com"
RES_EMAIL = "reservations@harbourline.example.com"
LOST_EMAIL = "lostproperty@harbourline.example.com"
GROUPS_EMAIL = "groups@harbourline.example.com"
PUBLIC_STRINGS = [COMPANY, PHONE, WEB, RES_EMAIL, LOST_EMAIL, GROUPS_EMAIL]

HOTELS = [
    "Harbourline Leeds City", "Harbourline York Minster", "Harbourline Bristol Harbourside",
    "Harbourline Edinburgh Old Town", "Harbourline Manchester Piccadilly", "Harbourline Cardiff Bay",
    "Harbourline Brighton Seafront", "Harbourline London Tower Bridge", "Harbourline Newcastle Quayside",
    "Harbourline Liverpool Waterfront",
]
AIRPORT_HOTELS = ["Harbourline Manchester Airport", "Harbourline Glasgow Airport"]
HOTEL_CITY = {
    "Harbourline Leeds City": "Leeds", "Harbourline York Minster": "York",
    "Harbourline Bristol Harbourside": "Bristol", "Harbourline Edinburgh Old Town": "Edinburgh",
    "Harbourline Manchester Piccadilly": "Manchester", "Harbourline Cardiff Bay": "Cardiff",
    "Harbourline Brighton Seafront": "Brighton", "Harbourline London Tower Bridge": "London",
    "Harbourline Newcastle Quayside": "Newcastle", "Harbourline Liverpool Waterfront": "Liverpool",
    "Harbourline Manchester Airport": "Manchester", "Harbourline Glasgow Airport": "Glasgow",
}
ROOMS = ["Classic Double", "Superior King", "Executive Room", "Family Room", "Harbour Suite", "Classic Twin"]
PRODUCTS = [
    *ROOMS, "Flex Rate", "Saver Rate", "Harbourline Rewards", "Rewards Silver", "Rewards Gold",
    "Full Harbour Breakfast", "Park & Stay", "Paws Stay", "Harbour Shuttle", *HOTELS, *AIRPORT_HOTELS,
]
IDENTIFIER_FIELDS = ["customer_name", "email", "phone", "booking_ref", "loyalty_number"]

# --------------------------------------------------------------------------------------------- names

FIRST_F = """Emma Olivia Sophie Charlotte Grace Hope May Rose Joy Faith Amber Ruby Holly Ivy Summer Dawn Iris Pearl
Heather Hazel Lily Daisy Priyanka Ananya Aisha Fatima Zainab Amina Chidinma Ngozi Adaeze Efua Akosua Mei Xiu Yuki
Hana Ji-woo Linh Agnieszka Katarzyna Zofia Ioana Elena Sofia Lucía Carmen Maria Inês Chiara Giulia Anke Lena Freya
Ingrid Saoirse Niamh Siobhan Aoife Eilidh Morag Cerys Bethan Rhiannon Tamsin Jade Kelly Leanne Gemma Nicola Sarah
Rachel Hannah Deborah Yasmin Leila Noor Shirin Elif Zeynep Ayesha Sana Rukhsana Tanisha Keisha Shanice Maya Ella
Chloe Megan Jasmine Autumn Patience Blessing Precious Mercy Violet Poppy Bonnie Robyn Dolores Marisol Oksana Dagny
Astrid Mwajuma Wanjiru Fiifi Habiba Parisa Thandiwe Ama""".split()
FIRST_M = """James Oliver Harry Jack Callum George Thomas Will Mark Frank Rich Bill Drew Rob Victor Art Hunter Jay
Rajesh Arjun Vikram Sanjay Imran Omar Yusuf Tariq Hamza Kwame Kofi Chinedu Emeka Tunde Oluwaseun Wei Jun Hiroshi
Kenji Min-jun Duc Tuan Piotr Łukasz Tomasz Andrei Mihai Dimitris Nikos Giorgos Marco Luca Javier Diego Pablo João
Tiago Lars Sven Jens Pieter Seán Cian Pádraig Ewan Angus Hamish Rhodri Gareth Dafydd Dean Lee Wayne Darren Craig
Stuart Gavin Ahmet Mehmet Emre Kemal Mohammed Ali Hassan Ibrahim Samuel Daniel Joseph Abdi Faisal Carlos Luis Mateo
Felix Noah Colin Basil Rufus Stanley Ernest Miles Clement Reuben Jomo Kiran Anand Hao Bao""".split()
FIRST_N = "Alex Sam Jordan Robin Morgan Charlie Ash Jamie Frankie Sunny Kit Rowan".split()
SURNAMES = """Green Brown Rose Hope May Mark Field Church King Bird Baker Wood Hill Little Young Long Fox Moon Stone
Bell Hunter Cook Page Mills Lamb Small Sharp Wise Friend Black White Day Cross Cole Hall Marsh Lane Best Rich Gold
Frost Snow Winter Summers Waters Banks Brooks Street Bridge Ford Price Power Bishop Knight Parsons Cash Swan Crane
Drake Sparrow Nightingale Heath Moss Ash Oakes Berry Reed Rush Sage Nash Grant Love Hart Wolf Lord Noble Godfrey
Okafor Adeyemi Mensah Osei Boateng Nwosu Eze Abiodun Patel Shah Sharma Singh Kaur Gupta Iyer Reddy Khan Hussain
Ahmed Chaudhry Qureshi Rahman Begum Chen Wang Li Zhang Liu Wong Tanaka Sato Suzuki Kim Park Lee Nguyen Tran Pham
Kowalski Nowak Wiśniewska Zieliński Popescu Ionescu Horváth Novák Papadopoulos Georgiou Rossi Russo Esposito
Bianchi García Fernández López Martínez Silva Santos Pereira Costa Müller Schmidt Becker Hoffmann Jansen Larsen
Nielsen Andersson Johansson O'Brien O'Connor Murphy Byrne McCarthy Gallagher MacDonald Campbell Fraser MacLeod
Davies Evans Jones Williams Hughes Pritchard Smith Taylor Wilson Thompson Robinson Walker Wright Harris Clarke
Jackson Ali Yilmaz Demir Kaya Öztürk Haddad Khoury Farah Warsame Abdi Mohamud Cohen Levy Friedman Dubois Moreau
Lefèvre Petrov Ivanova Kuznetsov Mwangi Otieno Achebe Mahlangu Dlamini Takahashi Yamamoto Choi Hernández Alvarez""".split()
SURNAMES += ["de Vries", "van Dijk", "Da Silva", "St John", "Fitzgerald-Hope"]

AGENTS = [("Priya", "Shah"), ("Tom", "Bradley"), ("Marek", "Nowak"), ("Aisha", "Rahman"), ("Grace", "Hill"),
          ("Leon", "Carter"), ("Siobhan", "Kelly"), ("Daniel", "Rose"), ("Fatima", "Osei"), ("Jamie", "Wood"),
          ("Kasia", "Lewandowska"), ("Rhys", "Morgan"), ("Mei", "Chen"), ("Hope", "Adeyemi"), ("Will", "Church"),
          ("Sam", "King"), ("Olivia", "Park"), ("Ahmed", "Yilmaz"), ("Eilidh", "Fraser"), ("Mark", "Field"),
          ("Chloe", "Baker"), ("Ravi", "Kapoor"), ("Sofia", "Romero"), ("Ben", "Little"), ("Nadia", "Haddad"),
          ("Callum", "Reid"), ("Joy", "Mensah"), ("Luca", "Bianchi"), ("Dawn", "Brooks"), ("Ifeoma", "Nwachukwu")]
ROLES = ["Guest Services", "Reservations Team", "Front Office Manager", "Duty Manager", "Night Manager",
         "Guest Relations Manager", "Reservations Agent", "Assistant Manager"]

# ------------------------------------------------------------------------------------------- places

STREET_NAMES = """Elm Oak Marlow Brook Station Church Mill Victoria Albert Queen's King's Park Chestnut Willow Meadow
Orchard Castle Bridge Hawthorn Rowan Beech Heather Sycamore Thornbury Ashford Kingsley Denholme Carlton Grange
Windsor Primrose Clifton Hollins Wharfe Lark Riverside Highfield Redcliffe Linden Fern Gladstone Nelson Cavendish
Spring Vicarage Manor Woodland Coronation Jubilee""".split()
STREET_TYPES = ["Road", "Street", "Lane", "Avenue", "Close", "Crescent", "Drive", "Way", "Gardens", "Terrace",
                "Grove", "Place", "Court", "Mews", "Rise", "View", "Walk", "Rd", "St", "Ave", "rd", "road"]
NO_TYPE_STREETS = ["Kingsway", "Broadway", "Highgate", "Westgate", "Southgate", "Parkside", "Moorside",
                   "The Green", "The Crescent", "Northway", "Eastfield", "Millbank", "Wharfside", "Stonegate",
                   "Fieldhead", "Greenacres", "Hillcrest", "Riverbank", "Cheapside", "Netherhall"]
UK_TOWNS = [("Harrogate", "HG"), ("Leeds", "LS"), ("Stockport", "SK"), ("Bath", "BA"), ("Bristol", "BS"),
            ("Edinburgh", "EH"), ("Glasgow", "G"), ("Cardiff", "CF"), ("Hove", "BN"), ("York", "YO"),
            ("Newcastle upon Tyne", "NE"), ("Liverpool", "L"), ("Birmingham", "B"), ("Coventry", "CV"),
            ("Oxford", "OX"), ("Nottingham", "NG"), ("Sheffield", "S"), ("Durham", "DH"), ("Plymouth", "PL"),
            ("Exeter", "EX"), ("Norwich", "NR"), ("Swansea", "SA"), ("Leicester", "LE"), ("Reading", "RG"),
            ("Ipswich", "IP"), ("Carlisle", "CA"), ("Inverness", "IV"), ("Belfast", "BT"), ("Truro", "TR"),
            ("London", "SE"), ("London", "N"), ("London", "E"), ("London", "NW"), ("Manchester", "M")]
US_CITIES = [("Portland", "OR", "972"), ("Boston", "MA", "021"), ("Austin", "TX", "787"), ("Denver", "CO", "802"),
             ("Chicago", "IL", "606"), ("Seattle", "WA", "981")]
US_STREETS = ["Maple Ave", "Oak Street", "Pine St", "Cedar Lane", "Lakeview Dr", "Elm Street", "Sunset Blvd",
              "Hillside Road"]
US_AREAS = ["212", "312", "503", "617", "415", "206", "720"]
EU_ADDR = [  # (street, number, postcode maker, city)
    ("Keizersgracht", "nl", "Amsterdam"), ("Lindenstraße", "de", "Berlin"), ("Calle de Serrano", "es", "Madrid"),
    ("Rue des Lilas", "fr", "Lyon"), ("Via Garibaldi", "it", "Torino"), ("Vesterbrogade", "dk", "København"),
    ("Seaview Park", "ie", "Dún Laoghaire"), ("ul. Marszałkowska", "pl", "Warszawa"),
]
EU_PASS = {"nl": "NW", "de": "C", "es": "PA", "fr": "19", "it": "YA", "dk": "", "ie": "P", "pl": "EA"}
PET_NAMES = ["Biscuit", "Pepper", "Bramble", "Mochi", "Scout", "Toffee", "Nacho", "Waffles", "Pickle", "Pudding",
             "Noodle", "Crumpet", "Bisto", "Marmite"]
ITEMS = ["phone charger", "grey North Face jacket", "Kindle", "reading glasses in a brown case",
         "daughter's teddy (a white rabbit)", "wedding ring", "laptop charger", "black umbrella",
         "hair straighteners", "silver Seiko watch", "toiletry bag", "blue cashmere scarf", "AirPods case",
         "teeth retainer", "running shoes", "work lanyard and pass", "son's school jumper", "denim jacket"]
PHONE_MODELS = ["iPhone 13", "iPhone 14 Pro", "Samsung Galaxy S22", "Pixel 7", "Samsung A54", "iPhone SE"]
ORGS = ["Northway Logistics", "Pennine Hockey Club", "Calder Valley Choir", "Brightside Dental Group",
        "St Aidan's Rugby Club", "Meridian Software", "the Leeds Ramblers", "Holloway & Finch LLP",
        "Riverside Primary School PTA", "Kestrel Engineering"]

# -------------------------------------------------------------------------------------- request types

TYPES = [
    {
        "id": "late_checkout_fee", "weight": 80, "fact": "£25",
        "forms": ["£25", "GBP 25", "25 pounds", "twenty-five pounds", "£25.00"],
        "wrong": ["£15", "£40", "£10", "fifteen pounds", "£20"],
        "category": "Late checkout",
        "questions": ["How much does it cost to check out late?",
                      "What's the charge if I want to keep my room past the normal checkout time?",
                      "Is there a fee for a late check-out?"],
        "topic": "a late checkout and what it costs",
        "subjects": ["Late checkout?", "Late check out on {depart}", "Booking {bref} - late checkout",
                     "Question re checkout", "Can we leave the room later?"],
        "asks": [
            "We're booked into the {hotel} from {arrive} and our flight home isn't until the evening. Is it "
            "possible to keep the room a bit longer on the last day, and how much would a late checkout be?",
            "Quick question about my stay next week, booking ref {bref}. My partner {tp} has a work call in the "
            "morning so we'd like to leave later than 11. What's the charge for late checkout?",
            "I'm at {hotel} on business for {nights} nights. Could I get a late checkout on the final day and what "
            "does that cost? Happy for it to go on my card ending {card4}.",
            "My reservation is under {fullname}, {bref}. We're at a wedding the night before so a lie-in would be "
            "great. How much do you charge to check out late?",
            "Can you tell me the late check out fee please? It's for room {room_no} at {hotel}, checking out on "
            "{depart}.",
            "is late checkout available on the sunday and how much is it? booking {bref}",
            "We have a {room} booked for {nights} nights ({arrive}). My husband {tp_m} is recovering from an "
            "operation and mornings are slow for him, so we'd like to stay in the room until early afternoon. "
            "Is there a charge for that?",
        ],
        "mis": ["Last time I stayed I think I paid {W} for this.",
                "The lady on reception said it was {W} but I wanted to double check.",
                "I was told on the phone it would be {W}.",
                "A friend said you charge {W} for it, is that right?"],
        "says": ["Late checkout until 2pm is {F}, and you can add it at reception on the morning or by replying here.",
                 "We can extend your checkout to 2pm for {F}; it depends on availability, so we confirm it the "
                 "evening before.",
                 "The late checkout charge is {F} for an extra three hours (until 2pm).",
                 "Yes, that's no problem – late checkout is {F} and I've added a request to the booking."],
        "notes": ["Advised late checkout to 2pm is {F}, added to folio.",
                  "Told guest late c/o is {F} and subject to availability on the day.",
                  "Explained the late checkout charge ({F}, until 2pm)."],
        "nostate": ["Could you confirm which date you'd like the late checkout for? I'll check availability with "
                    "the hotel and come back to you with the options.",
                    "I can't see a reservation under that reference – could you send the e-mail address the "
                    "booking was made with and I'll look into it for you?"],
        "note_nostate": ["Could not find booking, asked guest to call back with the confirmation e-mail.",
                         "Checking availability with housekeeping, will call guest back."],
        "review": ["Lovely room and friendly staff, but we were charged for checking out late which nobody "
                   "mentioned when we arrived. Bed was huge and the shower great.",
                   "Great location. Asked for a late checkout on our last day as our train wasn't until 5 and was "
                   "told there'd be a charge. Bit mean for a hotel at this price.",
                   "Stayed {nights} nights for a gig. Room clean, bar good, but having to pay extra to stay in the "
                   "room past 11 felt a bit much."],
    },
    {
        "id": "check_in_time", "weight": 63, "fact": "3pm",
        "forms": ["3pm", "3 pm", "15:00", "3 o'clock", "three o'clock", "3.00pm"],
        "wrong": ["2pm", "noon", "1pm", "12 o'clock", "4pm"],
        "category": "Arrival",
        "questions": ["What time can I check in?", "From what time is my room available on the day I arrive?",
                      "When does check-in open?"],
        "topic": "what time check-in opens",
        "subjects": ["Check in time", "Arrival {arrive}", "Early arrival - booking {bref}", "What time can we check in",
                     "Arriving early"],
        "asks": [
            "We're on the early train on {arrive} and will be at {hotel} by about 11am. What time can we check in? "
            "Booking is {bref}.",
            "Hi there, what time is check-in? We're driving down from {home_town} with two kids and want to plan the "
            "journey around it.",
            "My booking ({bref}) just says check-in 'in the afternoon' – what time exactly is that?",
            "I land at {flight_time} on {arrive}, can I get into the room straight away or what's the earliest "
            "check-in?",
            "We're celebrating our anniversary at the {hotel} ({nights} nights, {room}) and wondered when the "
            "room will be ready so I can plan a surprise.",
            "what time can i check in on {arrive}?? coming for my sister {tp_f}'s hen do",
            "Do you need our passport details for registration? Mine is {passport}. Also, what time does "
            "check-in start?",
        ],
        "mis": ["Your confirmation e-mail said {W}, is that still the case?",
                "My friend stayed last month and said check-in was {W}.",
                "I thought check-in was {W}?",
                "The app says {W} but I wanted to make sure."],
        "says": ["Check-in is from {F} on the day of arrival.",
                 "Rooms are ready from {F}; if you arrive earlier you're welcome to leave your bags with us and "
                 "relax in the bar.",
                 "Our standard check-in time is {F}, and we'll always try to have the room ready sooner if we can.",
                 "You can check in any time from {F} – the desk is staffed round the clock, so a late arrival "
                 "is fine too."],
        "notes": ["Told guest check-in is from {F}, bags can be stored before then.",
                  "Advised standard check-in {F}; noted early arrival on booking.",
                  "Explained rooms are released at {F}."],
        "nostate": ["Could you let me know which of our hotels you're booked into? I'll check with the team there "
                    "whether we can have the room ready early for you.",
                    "I'll ask housekeeping how the day looks and get back to you – could you confirm your "
                    "expected arrival time?"],
        "note_nostate": ["Guest unsure which hotel booked, asked them to check the confirmation e-mail.",
                         "Passed early-arrival request to housekeeping supervisor."],
        "review": ["Arrived at lunchtime after a long drive and had to wait ages for the room. Staff were apologetic "
                   "and the room itself was fine once we got in.",
                   "Good hotel, clean and central. Only gripe is we turned up at half twelve and the room wasn't "
                   "ready, so we sat in the lobby with two tired kids."],
    },
    {
        "id": "cancellation_policy", "weight": 53, "fact": "48 hours",
        "forms": ["48 hours", "48 hrs", "forty-eight hours", "2 days", "two days", "48h"],
        "wrong": ["24 hours", "72 hours", "a week", "7 days", "the day"],
        "category": "Cancellation",
        "questions": ["How far in advance do I need to cancel to avoid being charged?",
                      "Until when can I cancel my reservation free of charge?",
                      "What is the cancellation deadline for a booking?"],
        "topic": "the free cancellation deadline",
        "subjects": ["Cancellation", "Cancel booking {bref}", "Need to cancel", "Cancellation policy?",
                     "Change of plans"],
        "asks": [
            "I need to cancel my stay at {hotel} on {arrive} (ref {bref}) because my mum {tp_f} has had a fall and "
            "I need to be with her. Will I be charged?",
            "How late can I cancel without paying? I've booked {nights} nights on the Flex Rate but my conference "
            "might be moved.",
            "Our plans have changed and we may not be able to travel. Booking number {bref}, under {fullname}. "
            "What's the deadline to cancel for free?",
            "I booked through your website ({url_booking}) and I'm not sure whether I can still cancel. We're due "
            "to arrive {arrive}.",
            "Can I cancel and get my money back? We paid £{amount} on my Visa ending {card4} for the {room}.",
            "My daughter {tp_f} is due to give birth around the time of our trip so we might have to cancel last "
            "minute. What are the rules?",
        ],
        "mis": ["The booking site said free cancellation until {W} before.",
                "I was told I had until {W} before to cancel.",
                "I thought the rule was {W} before arrival.",
                "Your colleague said {W} before was fine."],
        "says": ["Flex Rate bookings can be cancelled free of charge up to {F} before arrival; Saver Rate "
                 "bookings are non-refundable.",
                 "As long as you cancel at least {F} before your check-in date there's no charge at all.",
                 "Our free cancellation window closes {F} before arrival, after that the first night is charged.",
                 "You can cancel without a fee until {F} before you're due to arrive."],
        "notes": ["Explained Flex Rate can be cancelled free up to {F} before arrival.",
                  "Advised free cancellation until {F} prior to arrival, Saver Rate non-refundable.",
                  "Told caller the cut-off is {F} before check-in."],
        "nostate": ["Could you let me know whether you booked directly with us or through a travel site? The terms "
                    "depend on where the booking was made.",
                    "I can't find that reference on our system – was it made under a different name or e-mail "
                    "address?"],
        "note_nostate": ["Booking made via third party, referred guest back to the booking site.",
                         "Need to check rate type with revenue team, will call back."],
        "review": [],
    },
    {
        "id": "breakfast_price", "weight": 43, "fact": "£14.50",
        "forms": ["£14.50", "GBP 14.50", "14.50 pounds", "fourteen pounds fifty", "£14.50pp"],
        "wrong": ["£9.95", "£11.50", "£16", "£19.95", "£10.50"],
        "category": "Food & drink",
        "questions": ["How much is breakfast?", "What does breakfast cost per person if it isn't included in my rate?"],
        "topic": "the price of breakfast",
        "subjects": ["Breakfast", "Breakfast price?", "Adding breakfast to {bref}", "Breakfast question"],
        "asks": [
            "Is breakfast included in my booking {bref}? If not, how much is it to add on?",
            "We're a family of four staying at {hotel} over half term. How much is breakfast for adults, and do "
            "the kids pay?",
            "I booked a room only rate and now I'm wondering about breakfast. What's the price per person?",
            "How much is the Full Harbour Breakfast if we just turn up in the morning? My partner {tp} is vegan, "
            "is there a vegan option?",
            "Staying {nights} nights from {arrive} for a conference, would like breakfast each day. Cost please?",
        ],
        "mis": ["The menu in the room said {W}.", "On the booking site it showed breakfast at {W}.",
                "Someone on the desk said {W} each.", "I was charged {W} last time."],
        "says": [("The Full Harbour Breakfast is {F} per adult if it isn't included in your rate, and children "
                  "under 5 eat free.", [0, 1, 2, 3]),
                 ("Breakfast costs {F} per person and is served from 7 until 10:30.", [0, 1, 2, 3]),
                 ("You can add breakfast at {F}, either now or when you check in.", [0, 1, 2, 3, 4]),
                 ("It's {F} for the full buffet, hot dishes included.", [0, 1, 2, 3, 4])],
        "notes": [("Advised breakfast is {F} per adult, kids under 5 free.", [0, 1, 2, 3]),
                  ("Quoted breakfast at {F}.", [0, 1, 2, 3, 4]),
                  ("Told guest breakfast {F}, can be added at check-in.", [0, 1, 2, 3, 4])],
        "nostate": ["Could you send your booking reference? Some of our rates already include breakfast, so I'd like "
                    "to check yours before quoting."],
        "note_nostate": ["Guest to confirm rate type, will ring back."],
        "review": ["Comfy beds and a great shower. Breakfast was nice but felt expensive for what it was when "
                   "you're paying for two.",
                   "Good stay overall. We didn't realise breakfast wasn't in our rate until we got the bill."],
    },
    {
        "id": "parking_charge", "weight": 34, "fact": "£18 per night",
        "forms": ["£18 per night", "£18 a night", "18 pounds a night", "eighteen pounds per night",
                  "GBP 18 per night", "£18/night"],
        "wrong": ["£10 a night", "£15 per night", "£22 a night", "£8 a night"],
        "category": "Parking",
        "questions": ["How much is parking at the hotel?", "What does the hotel car park cost per night?"],
        "topic": "the cost of the hotel car park",
        "subjects": ["Parking", "Car park charge", "Parking for {bref}", "Parking space?", "Parking question"],
        "asks": [
            "We'll be driving to {hotel}. Is there parking on site and what's the charge? Our car reg is {plate}.",
            "Can I pre-book a parking space for {nights} nights? Registration {plate}, booking {bref}.",
            "I got a parking notice on my windscreen (car {plate}, ref {pcn}) even though I told reception I was a "
            "guest. How much is hotel parking supposed to be?",
            "How much is the car park per night? We arrive {arrive} in a camper van, reg {plate}.",
            "My dad {tp_m} has a blue badge, is there accessible parking at {hotel} and what does it cost?",
        ],
        "mis": ["Your website said {W}.", "When I booked I was told {W}.", "I thought it was {W}?",
                "Last year it was {W}."],
        "says": ["Parking in our car park is {F}, and you can pay at reception on arrival.",
                 "Guests can park on site for {F}; spaces aren't guaranteed, so we recommend the Park & Stay add-on.",
                 "The car park charge is {F} – just give your registration at the desk so the barrier recognises "
                 "the car.",
                 "It's {F} for a space, in and out as often as you like."],
        "notes": ["Registered car, advised parking {F}.", "Told guest parking is {F}, pay at desk.",
                  "Explained car park charge ({F})."],
        "nostate": ["Could you confirm the registration and your dates? I'll check with the car park team whether a "
                    "space can be held for you."],
        "note_nostate": ["Passed PCN query to car park operator, guest to be called back."],
        "review": ["Room was spotless and staff lovely. Parking was pricey on top of the room rate though.",
                   "Handy for the centre. Bear in mind you pay extra for the car park, which we hadn't expected."],
    },
    {
        "id": "lost_property", "weight": 30, "fact": LOST_EMAIL, "forms": [LOST_EMAIL],
        "wrong": ["lostandfound@harbourline.example.com", "lost@harbourline.example.com",
                  "housekeeping@harbourline.example.com"],
        "category": "Lost property",
        "questions": ["I left something in my room after checking out – who do I contact?",
                      "How do I report an item I lost at one of your hotels?"],
        "topic": "an item left behind",
        "subjects": ["Lost property", "Left something in room {room_no}", "Lost item - {bref}", "Forgotten item",
                     "URGENT lost passport"],
        "asks": [
            "I stayed at {hotel} last weekend (room {room_no}, booking {bref}) and I think I left my {item} in the "
            "wardrobe. Can you check?",
            "My son {tp_m} left his {item} behind when we checked out on {depart}. If it's found could it be posted "
            "to {addr}, {pc}? Happy to pay postage.",
            "I've lost my phone, a {phone_model}, IMEI {imei}, probably in the bar or the room. Best to reach me on "
            "my wife's number {phone}.",
            "Left my passport (no. {passport}) in the room safe!! I fly on Thursday. Please help.",
            "I left a {item} in room {room_no} at {hotel}. Photo of it here: {url_photo}",
            "My colleague {tp} and I stayed on a work trip and she left her {item} in the meeting room. Could "
            "someone look?",
        ],
        "mis": ["I emailed {W} but it bounced back.", "Your website says to write to {W} but nobody has replied.",
                "The receptionist gave me {W} and I've heard nothing."],
        "correct": ["Sorry about that – {W} isn't an address we use any more.",
                    "I'm sorry, {W} was closed last year."],
        "says": ["Please e-mail {F} with a description of the item and the dates of your stay, and the team will "
                 "check the log.",
                 "All found items are logged centrally – drop a line to {F} quoting your booking reference and they'll "
                 "come back to you.",
                 "Our lost property team can be reached at {F}; if it's been handed in they'll arrange postage.",
                 "I've passed this on, but the quickest route is to write to {F}, who hold everything handed in "
                 "across our hotels."],
        "notes": ["Gave guest the lost property address {F}.", "Logged enquiry, guest to e-mail {F} with details.",
                  "Advised to contact {F} with item description."],
        "nostate": ["Could you tell me which hotel and which night it was? I'll ask housekeeping on site to have a "
                    "look this afternoon."],
        "note_nostate": ["Housekeeping checking room, will call guest back."],
        "review": ["Left my charger behind and it took two e-mails to find out where to ask about it. Otherwise a "
                   "pleasant stay.",
                   "Nice hotel but I lost a scarf somewhere in the restaurant and nobody at the desk seemed to know "
                   "what to do."],
    },
    {
        "id": "deposit_refund", "weight": 27, "fact": "5 working days",
        "forms": ["5 working days", "five working days", "5 business days", "five business days"],
        "wrong": ["3 working days", "24 hours", "2 working days", "one working day"],
        "category": "Payments",
        "questions": ["How long until the deposit hold is released back to my card?",
                      "When will I get my security deposit back after checking out?"],
        "topic": "when the deposit hold will be released",
        "subjects": ["Deposit not returned", "Refund of deposit", "Pre-authorisation still on card",
                     "Deposit - {bref}"],
        "asks": [
            "We checked out of {hotel} on {depart} and the £{deposit} deposit is still showing on my card ending "
            "{card4}. When will it be released?",
            "The security hold of £{deposit} hasn't come back to my account yet. Booking {bref}. My bank says it's "
            "down to you.",
            "My card has since expired so can the deposit be refunded to my bank instead? Sort code {sortcode}, "
            "account {acct}.",
            "I paid a £{deposit} deposit on arrival with card {cardfull}. Still no refund. Please could you look "
            "into it, it's a lot of money for us.",
            "Please refund the deposit to my account, IBAN {iban}. We stayed in room {room_no}, {arrive}.",
        ],
        "mis": ["Reception told me it'd be back in {W}.", "I was promised {W}.",
                "The confirmation said it would be released within {W}."],
        "says": ["The pre-authorisation was released on our side at checkout; depending on your bank it can take up "
                 "to {F} to show as available again.",
                 "Deposit holds drop off automatically within {F} of checkout.",
                 "We process deposit refunds the same day, and banks usually take {F} to return the funds.",
                 "You should see the money back in your account within {F}."],
        "notes": ["Advised deposit hold released at c/o, can take {F} with bank.",
                  "Told guest refund takes {F} to show.", "Explained the pre-auth drops off within {F}."],
        "nostate": ["Could you send me the last four digits of the card used and the date of checkout? I'll ask our "
                    "finance team to trace the transaction."],
        "note_nostate": ["Referred to finance to trace payment, guest to be e-mailed."],
        "review": ["Nice room, but two weeks later the deposit was still sitting on my card. Not impressed.",
                   "Staff friendly, breakfast fine. The deposit they took at check-in took ages to come back."],
    },
    {
        "id": "pet_fee", "weight": 22, "fact": "£30 per stay",
        "forms": ["£30 per stay", "£30 a stay", "GBP 30 per stay", "30 pounds per stay", "thirty pounds per stay"],
        "wrong": ["£10 per night", "£15 a night", "£50 per stay", "£20 per stay"],
        "category": "Pets",
        "questions": ["Can I bring my dog, and what does it cost?", "How much is the charge for pets?"],
        "topic": "bringing a dog and the pet charge",
        "subjects": ["Dog friendly?", "Bringing our dog", "Pets - booking {bref}", "Can {pet} come too?"],
        "asks": [
            "Can we bring our dog {pet} to {hotel}? She's a small terrier and very well behaved. Is there a charge?",
            "We're travelling with two dogs for {nights} nights – are pets allowed and what's the fee?",
            "Booked {bref} and forgot to add the dog! How much extra is it?",
            "My partner {tp} and I are moving house and our spaniel {pet} will be with us for one night. Can he stay "
            "and how much?",
        ],
        "mis": ["The booking site says {W}.", "I'm sure it used to be {W}.", "Your colleague quoted {W}."],
        "says": ["Dogs are very welcome in our Paws Stay rooms; there's a fee of {F}, which covers a bed, bowls and a "
                 "deep clean afterwards.",
                 "We charge {F} for pets, up to two dogs per room.",
                 "The pet fee is {F}, regardless of how many nights you stay.",
                 "Yes, bring {pet} along! It's {F} and I've added it to your reservation."],
        "notes": ["Added dog to booking, advised pet fee {F}.", "Told guest pets are {F}, max two dogs.",
                  "Explained Paws Stay charge of {F}."],
        "nostate": ["Could you confirm the dates? Our Paws Stay rooms are limited, so I'd like to check one is free "
                    "before I add the dog."],
        "note_nostate": ["No Paws Stay room free on those dates, guest considering other dates."],
        "review": ["Dog-friendly and the staff made a fuss of our pup. Bit of a charge for having him but fair enough.",
                   "Really welcoming to dogs. Our only surprise was the pet charge on the final bill."],
    },
    {
        "id": "loyalty_points", "weight": 18, "fact": "10 points per £1",
        "forms": ["10 points per £1", "10 points for every £1", "ten points per pound", "ten points for every pound",
                  "10 points per pound", "10 pts per £1"],
        "wrong": ["5 points per £1", "20 points per pound", "1 point per £1", "15 points per £1"],
        "category": "Harbourline Rewards",
        "questions": ["How many loyalty points do I earn for each pound I spend?",
                      "What is the Harbourline Rewards earning rate?"],
        "topic": "how many Rewards points a stay earns",
        "subjects": ["Missing points", "Harbourline Rewards - {loyal}", "Points not credited", "Rewards question"],
        "asks": [
            "My last stay ({bref}) hasn't shown up on my Harbourline Rewards account {loyal}. I spent £{amount}, "
            "how many points should I have got?",
            "I've just joined Harbourline Rewards (member no. {loyal}, date of birth {dob} if you need to verify). "
            "How do the points work exactly?",
            "Points missing again. Account: {url_rewards}. Can you check how many I should be getting?",
            "How many points do you earn per pound? Trying to work out if it's worth booking direct rather than "
            "through the comparison sites. My number is {loyal}.",
        ],
        "mis": ["I was told it's {W}.", "The leaflet in the room said {W}.", "I thought it was {W}?"],
        "says": ["Harbourline Rewards members earn {F} spent on rooms, food and drink, and points appear within a "
                 "week of checkout.",
                 "You earn {F} on every direct booking, and Rewards Gold members get a bonus on top.",
                 "The earning rate is {F}; I've manually added the missing points for your stay.",
                 "Points are credited at {F} on the final bill, excluding taxes."],
        "notes": ["Explained Rewards earns {F}, added missing points.", "Told member the rate is {F}."],
        "nostate": ["I'll need the e-mail address registered on your Rewards account before I can look at it – could "
                    "you send that over?"],
        "note_nostate": ["Could not verify member, asked for registered e-mail."],
        "review": [],
    },
    {
        "id": "room_upgrade", "weight": 14, "fact": "£35 per night",
        "forms": ["£35 per night", "£35 a night", "35 pounds a night", "thirty-five pounds per night",
                  "GBP 35 per night", "£35/night"],
        "wrong": ["£20 a night", "£50 a night", "£45 per night"],
        "category": "Upgrades",
        "questions": ["How much does it cost to upgrade to an Executive Room?",
                      "What's the price of a room upgrade?"],
        "topic": "the price of upgrading to an Executive Room",
        "subjects": ["Upgrade?", "Room upgrade for {arrive}", "Anniversary upgrade", "Upgrade - {bref}"],
        "asks": [
            "It's our 10th wedding anniversary during our stay at {hotel} ({arrive}). How much would it be to "
            "upgrade to an Executive Room?",
            "Is there an upgrade available on booking {bref}? I'm a Rewards Gold member ({loyal}).",
            "What's the cost to go from a Classic Double to the Executive Room with the harbour view? My wife {tp_f} "
            "would love the view.",
        ],
        "mis": ["I was quoted {W} last time.", "The lady on the phone said {W}.", "Online it looks like {W}."],
        "says": ["An upgrade to an Executive Room is {F} on top of your current rate.",
                 "We can move you up to the Executive Room for {F}, depending on availability on the day.",
                 "The upgrade supplement is {F}, and it includes lounge access.",
                 "Upgrades are {F}; I've pencilled one in for you."],
        "notes": ["Offered Executive upgrade at {F}.", "Told guest upgrade is {F}."],
        "nostate": ["Could you confirm your dates? Executive Rooms are in high demand and I'd like to check "
                    "availability first."],
        "note_nostate": ["No Executive Rooms left, offered waitlist."],
        "review": ["We paid to upgrade for our anniversary and the view was worth it. Lovely touch with the card "
                   "on the bed."],
    },
    {
        "id": "group_booking", "weight": 10, "fact": "8 rooms",
        "forms": ["8 rooms", "eight rooms", "8 or more rooms", "eight or more rooms"],
        "wrong": ["10 rooms", "5 rooms", "6 rooms", "twelve rooms"],
        "category": "Groups & events",
        "questions": ["How many rooms do I need to book to get a group rate?",
                      "What's the minimum size of a group booking?"],
        "topic": "a group booking and the minimum for a group rate",
        "subjects": ["Group booking enquiry", "Wedding guests - room block", "Group booking - {city}",
                     "Group rate?"],
        "asks": [
            "I'm organising accommodation for a wedding on {arrive} – the bride is {tp_full}. We'd need about {grp} "
            "rooms for two nights. Do you do group rates?",
            "Our company ({org}) is sending a team to {city} for a training week. How many rooms do we need for a "
            "group booking? Invoices to {addr}, {pc}.",
            "{org} tour, {grp} rooms needed at {hotel}. Is there a group discount and what's the minimum?",
        ],
        "mis": ["I was told groups start at {W}.", "The events team said {W} last year."],
        "says": [("Our group rates apply to bookings of {F} for the same dates.", [0, 1, 2, 3]),
                 ("A group booking starts at {F}, booked together for the same nights.", [0, 1]),
                 ("Anything from {F} upwards counts as a group and gets its own rate.", [0, 1]),
                 ("If you need {F}, our groups team will put a block aside for you.", [2, 3])],
        "notes": ["Explained group rate from {F}, passed to groups team."],
        "nostate": ["Could you send the dates and a rough number of guests? I'll pass it to our groups team."],
        "note_nostate": ["Passed enquiry to groups team."],
        "extra_agent": "You can reach the groups team directly at " + GROUPS_EMAIL + ".",
        "review": [],
    },
    {
        "id": "airport_shuttle", "weight": 6, "fact": "£12 each way",
        "forms": ["£12 each way", "GBP 12 each way", "12 pounds each way", "twelve pounds each way"],
        "wrong": ["£8 each way", "£10 each way", "£6 each way"],
        "category": "Transport",
        "questions": ["How much does the airport shuttle cost?", "What's the price of the hotel's airport bus?"],
        "topic": "the airport shuttle fare",
        "subjects": ["Airport shuttle", "Shuttle to terminal", "Early flight {depart}"],
        "asks": [
            "We're staying at {hotel} before an early flight on {depart}. Does the Harbour Shuttle run at 4am and "
            "how much is it?",
            "How much is your airport shuttle? Two of us plus a lot of luggage. Booking {bref}.",
        ],
        "mis": ["I read online it's {W}.", "The taxi driver said it was {W}."],
        "says": ["The Harbour Shuttle runs every 20 minutes from 4am and costs {F}.",
                 "It's {F}, payable to the driver by card.",
                 "Tickets for the shuttle are {F} and can be bought at reception."],
        "notes": ["Advised shuttle {F}, first one 4am."],
        "nostate": ["Which terminal are you flying from? I'll check the first shuttle time for you."],
        "note_nostate": ["Checking shuttle timetable, will call back."],
        "review": ["Perfect for an early flight. The shuttle isn't free, but it's quick and the driver was great."],
    },
]

# ------------------------------------------------------------------------------------- shared text

CUST_GREET = ["Hi,", "Hello,", "Dear Sir/Madam,", "Hi there,", "Good afternoon,", "To whom it may concern,", "Hiya,",
              "Good morning,", "Hello there,", ""]
CUST_OPEN = ["I hope you can help.", "Sorry if this is a silly question.", "We're really looking forward to our trip.",
             "First time staying with you so not sure how things work.",
             "I've stayed with Harbourline a few times for work and always been happy.",
             "Writing from my work e-mail as I'm travelling.",
             "Apologies for the long message.", "I tried calling but couldn't get through.",
             "Hope you're well.", "I couldn't find this on the website."]
CUST_EXTRA = [
    ("You can reach me on {phone} if easier.", None),
    ("My mobile is {phone}.", None),
    ("My Rewards number is {loyal} if that helps.", None),
    ("The booking was made by my PA, {tp}, so it may be under her name.", None),
    ("The confirmation link is {url_booking}.", None),
    ("I booked through StaySearch, reservation {partner_ref}.", None),
    ("For the invoice my address is {addr}, {pc}.", None),
    ("I'm self-employed, so please could the invoice show my UTR {utr}.", None),
    ("Date of birth {dob} in case you need it for security.", None),
    ("Booking ref {bref}.", None),
    ("My e-mail is {email} if you need to send anything.", None),
    ("We're travelling with our friends {tp} and {tp2}, who are in the room next door.", None),
    ("I'm an EU citizen, my ID card number is {natid} if you need it for the registration card.", None),
    ("We're driving, car is {plate}.", {"check_in_time", "late_checkout_fee", "room_upgrade", "pet_fee"}),
    ("I spoke to {staff} on reception last time and she was really helpful.", None),
    ("We paid £{amount} in total for the stay.", None),
]
CUST_SIGNOFF = ["Thanks,\n{sig}", "Many thanks\n{sig}", "Regards,\n{fullname}", "Cheers, {first}",
                "Kind regards,\n{title_last}", "{sig}\nSent from my iPhone", "Thank you!\n{first}",
                "Best wishes,\n{fullname}\n{phone}", "Kind regards\n{fullname}\n{addr}\n{pc}", "Thanks in advance",
                "Thx\n{first}", "Regards\n{header_name}"]
AGENT_GREET = ["Dear {title_last},", "Hi {first},", "Hello {first},", "Dear {fullname},", "Dear Guest,",
               "Good morning {first},", "Hi {first}, thanks for your message.", "Dear {title_last}, thank you for "
               "getting in touch."]
AGENT_OPEN = ["Thank you for your message.", "Thanks for contacting Harbourline Hotels.",
              "Many thanks for getting in touch.", "My name is {agent} and I look after reservations at {hotel}.",
              "I'm {agent} from Guest Services, happy to help.", "Sorry for the slow reply, it's been a busy week.",
              "Thanks for your patience while I looked into this.", ""]
AGENT_CLOSE = ["If there's anything else, just reply to this e-mail or call us on " + PHONE + ".",
               "You can manage your booking any time at " + WEB + ".",
               "We look forward to welcoming you.", "Have a lovely stay.",
               "Let me know if I can help with anything else.",
               "Our reservations team is also on " + RES_EMAIL + " if you need us.",
               "I've added a note to booking {bref} so the team on site are aware.",
               "I've sent a secure payment link for anything outstanding: {url_pay}",
               "For anything urgent, call " + PHONE + ", the line is open 24 hours.", ""]
AGENT_SIGNOFF = ["Kind regards,\n{agent_full}\nGuest Services | Harbourline Hotels", "Best wishes,\n{agent}",
                 "Thanks,\n{agent_sig} – Reservations", "Warm regards,\n{agent_full}, {role}, {hotel}",
                 "Harbourline Hotels Guest Services", "Many thanks,\n{agent} (Guest Services)",
                 "Kind regards,\nThe Reservations Team\n" + COMPANY + "\n" + PHONE + " | " + WEB,
                 "Regards,\n{agent_full}\n{role}"]
CORRECT = ["Just to clear up the confusion, it isn't {W}.", "I'm sorry you were given {W}; that isn't correct.",
           "Apologies for the mix-up over {W}.", "That figure of {W} is out of date, I'm afraid.",
           "I'm afraid {W} isn't right."]
RESTATE = ["To confirm: {F}.", "So that's {F} in total.", "Again, sorry, it's {F}."]

TYPO_FIX = {"receive": "recieve", "definitely": "definately", "separate": "seperate", "tomorrow": "tommorow",
            "booking": "boking", "breakfast": "breakfest", "because": "becuase", "thanks": "thnaks",
            "please": "pls", "arrival": "arival", "really": "realy", "which": "wich", "would": "woudl",
            "weekend": "weeekend", "believe": "beleive", "charge": "chrage", "their": "thier", "know": "konw",
            "colleague": "collegue", "reservation": "reservaton", "wondering": "wonderign", "until": "untill"}

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def _ord(d: int) -> str:
    return f"{d}{'th' if 11 <= d <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(d % 10, 'th')}"


def _ascii(s: str) -> str:
    s = s.replace("ł", "l").replace("Ł", "L").replace("ø", "o").replace("ß", "ss")
    s = unicodedata.normalize("NFKD", s)
    return "".join(ch for ch in s if ch.isascii() and (ch.isalnum() or ch in ".-")).lower()


# ------------------------------------------------------------------------------------------ persons

class Person:
    pass


def _postcode(rng: random.Random, area: str) -> str:
    letters = "ABDEFGHJLNPQRSTUWXYZ"
    return f"{area}{rng.randint(1, 28)} {rng.randint(1, 9)}{rng.choice(letters)}{rng.choice(letters)}"


def _make_person(rng: random.Random, pid: str, used: set) -> Person:
    p = Person()
    p.pid = pid
    g = rng.random()
    if g < 0.47:
        p.first, p.gender = rng.choice(FIRST_F), "f"
    elif g < 0.93:
        p.first, p.gender = rng.choice(FIRST_M), "m"
    else:
        p.first, p.gender = rng.choice(FIRST_N), "n"
    p.last = rng.choice(SURNAMES)
    if rng.random() < 0.05:
        p.title = "Dr"
    elif p.gender == "f":
        p.title = rng.choice(["Mrs", "Ms", "Miss", "Ms"])
    elif p.gender == "m":
        p.title = "Mr"
    else:
        p.title = rng.choice(["Mx", "Mr", "Ms"])
    p.name = f"{p.first} {p.last}"
    r = rng.random()
    p.origin = "uk" if r < 0.74 else ("us" if r < 0.83 else "eu")
    a, b = _ascii(p.first), _ascii(p.last)
    dom = rng.choice(["example.com", "example.org", "example.net", "mail.example.com", "example.com"])
    num = rng.randint(1, 99)
    local = rng.choice([f"{a}.{b}", f"{a}{b}", f"{a[0]}{b}", f"{a}.{b}{num}", f"{b}{a[0]}{num}", f"{a}_{b}",
                        f"{a}{num}", f"{a[0]}.{b}", f"the{b}s", f"{a}{b[0]}{rng.randint(70, 99)}"])
    p.email = f"{local}@{dom}"
    while p.email in used:
        p.email = f"{local}{rng.randint(100, 999)}@{dom}"
    used.add(p.email)
    # phone (reserved ranges only)
    if p.origin == "us":
        p.phone_kind = "us"
        p.area = rng.choice(US_AREAS)
        p.phone_digits = f"{rng.randint(100, 199):03d}"[1:]
        p.phone = f"+1 {p.area} 555 01{p.phone_digits}"
    elif rng.random() < 0.8:
        p.phone_kind = "mob"
        p.phone_digits = f"{rng.randint(0, 999):03d}"
        p.phone = f"+44 7700 900{p.phone_digits}"
    else:
        p.phone_kind = "lon"
        p.phone_digits = f"{rng.randint(0, 999):03d}"
        p.phone = f"+44 20 7946 0{p.phone_digits}"
    # address
    if p.origin == "us":
        city, st, zip3 = rng.choice(US_CITIES)
        p.street = f"{rng.randint(100, 9899)} {rng.choice(US_STREETS)}"
        p.town = city
        p.postcode = f"{zip3}{rng.randint(0, 99):02d}"
        p.addr_town = f"{p.street}, {city}, {st}"
    elif p.origin == "eu":
        street, cc, city = rng.choice(EU_ADDR)
        n_ = rng.randint(2, 240)
        if cc == "nl":
            p.postcode = f"{rng.randint(1011, 1109)} {rng.choice('ABCDEGHJKLMNPRSTVWXZ')}{rng.choice('ABCDEGHJKLMNPRSTVWXZ')}"
        elif cc == "ie":
            p.postcode = f"A96 {rng.choice('CDEFHKNPRTVWXY')}{rng.randint(1, 9)}{rng.choice('CDEFHKNPRTVWXY')}{rng.randint(1, 9)}"
        elif cc == "pl":
            p.postcode = f"0{rng.randint(0, 4)}-{rng.randint(100, 999)}"
        else:
            p.postcode = f"{rng.randint(10, 99)}{rng.randint(100, 999)}"
        p.street = f"{n_} {street}" if cc in ("ie", "fr") else f"{street} {n_}"
        p.town = city
        p.addr_town = f"{p.street}, {city}"
        p.cc = cc
    else:
        town, area = rng.choice(UK_TOWNS)
        num = rng.randint(1, 214)
        k = rng.random()
        if k < 0.25:
            street = f"{num} {rng.choice(NO_TYPE_STREETS)}"
        elif k < 0.38:
            street = f"Flat {rng.randint(1, 24)}, {num} {rng.choice(STREET_NAMES)} {rng.choice(['Court', 'House', 'Mansions', 'Lodge'])}"
        elif k < 0.45:
            street = f"{num}{rng.choice('abc')} {rng.choice(STREET_NAMES)} {rng.choice(STREET_TYPES)}"
        else:
            street = f"{num} {rng.choice(STREET_NAMES)} {rng.choice(STREET_TYPES)}"
        p.street, p.town = street, town
        p.postcode = _postcode(rng, area)
        p.addr_town = f"{street}, {town}"
    # other identifiers
    p.dob = (rng.randint(1, 28), rng.randint(1, 12), rng.randint(1946, 2004))
    L = "ABCDEFGHJKLMNOPRSTUVWXY"
    if p.origin == "eu" and rng.random() < 0.5:
        p.plate = f"{rng.choice(['M', 'B', 'HH', 'K'])}-{rng.choice(L)}{rng.choice(L)} {rng.randint(100, 9999)}"
    else:
        p.plate = f"{rng.choice(L)}{rng.choice(L)}{rng.randint(51, 74) if rng.random() < 0.5 else rng.randint(10, 24)} " \
                  f"{rng.choice(L)}{rng.choice(L)}{rng.choice(L)}"
    if p.origin == "eu":
        pre = EU_PASS[p.cc]
        p.passport = pre + "".join(rng.choice("0123456789CFGHJKLNPRTVWXYZ") for _ in range(9 - len(pre)))
    else:
        p.passport = f"{rng.randint(100000000, 999999999)}"
    p.natid = rng.choice([f"{rng.randint(10000000, 99999999)}{rng.choice('TRWAGMYFPDXBNJZSQVHLCKE')}",
                          f"{rng.randint(100000000, 999999999)}",
                          f"{rng.choice('CFGHJKLMNPRTVWXYZ')}{rng.choice('CFGHJKLMNPRTVWXYZ')}"
                          f"{rng.randint(1000000, 9999999)}"])
    p.utr = f"{rng.randint(10000, 99999)} {rng.randint(10000, 99999)}"
    bin_ = rng.choice(["4929", "4539", "4716", "5412", "5521", "4485", "3782"])
    p.card = bin_ + "".join(str(rng.randint(0, 9)) for _ in range(12))
    p.sortcode = f"{rng.randint(10, 99)}-{rng.randint(10, 99)}-{rng.randint(10, 99)}"
    p.acct = f"{rng.randint(10000000, 99999999)}"
    bank = rng.choice(["NWBK", "BARC", "LOYD", "HBUK", "MIDL", "BUKB"])
    p.iban = f"GB{rng.randint(10, 99)}{bank}{p.sortcode.replace('-', '')}{p.acct}"
    p.imei = "35" + "".join(str(rng.randint(0, 9)) for _ in range(13))
    p.loyalty = f"HR-{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}"
    p.member = rng.random() < 0.45
    p.pet = rng.choice(PET_NAMES)
    return p


# ------------------------------------------------------------------------------------------ records

def _fields(tmpl: str) -> set:
    return {f for _, f, _, _ in string.Formatter().parse(tmpl) if f}


class Slots:
    """A format mapping: each personal slot registers its surface in the record's PII list when used."""

    def __init__(self) -> None:
        self.vals: dict = {}
        self.sink: list = []

    def set(self, key: str, value, kind: str | None = None) -> None:
        self.vals[key] = (value, kind)

    def __getitem__(self, key: str) -> str:
        value, kind = self.vals[key]
        if callable(value):
            value = value()
        if kind:
            self.sink.append((kind, value))
        return value

    def render(self, tmpl: str, sink: list) -> str:
        self.sink = sink
        return tmpl.format_map(self)


def _typos(rng: random.Random, text: str, protected: list[str], rate: float) -> str:
    spans = []
    for s in protected:
        for m in re.finditer(re.escape(s), text):
            spans.append((m.start(), m.end()))

    def free(a: int, b: int) -> bool:
        return all(b <= x or a >= y for x, y in spans)

    out, last = [], 0
    for m in re.finditer(r"[A-Za-z]{4,}", text):
        if not free(m.start(), m.end()) or rng.random() >= rate:
            continue
        w = m.group()
        low = w.lower()
        if low in TYPO_FIX and w == low:
            new = TYPO_FIX[low]
        else:
            i = rng.randint(1, len(w) - 2)
            op = rng.random()
            if op < 0.4:
                new = w[:i] + w[i + 1] + w[i] + w[i + 2:]
            elif op < 0.7:
                new = w[:i] + w[i + 1:]
            else:
                new = w[:i] + w[i] + w[i:]
        out.append(text[last:m.start()])
        out.append(new)
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def _date(rng: random.Random) -> tuple[int, int, int]:
    return rng.randint(1, 28), rng.randint(1, 12), rng.choice([2024, 2025, 2025])


def _fmt_date(rng: random.Random, d) -> str:
    day, mon, year = d
    return rng.choice([f"{day} {MONTHS[mon - 1]}", f"{DAYS[(day + mon) % 7]} {_ord(day)} {MONTHS[mon - 1][:3]}",
                       f"{day:02d}/{mon:02d}", f"{day}.{mon:02d}.{year}", f"{MONTHS[mon - 1]} {_ord(day)}",
                       f"the {_ord(day)}", f"{_ord(day)} {MONTHS[mon - 1]}"])


def _fmt_dob(rng: random.Random, d) -> str:
    day, mon, year = d
    return rng.choice([f"{day:02d}/{mon:02d}/{year}", f"{day:02d}.{mon:02d}.{year % 100:02d}",
                       f"{day} {MONTHS[mon - 1]} {year}", f"{MONTHS[mon - 1]} {day}, {year}",
                       f"{year}-{mon:02d}-{day:02d}", f"{_ord(day)} {MONTHS[mon - 1][:3]} {year % 100:02d}",
                       f"{day}/{mon}/{year}"])


def _fmt_phone(rng: random.Random, p: Person) -> str:
    d = p.phone_digits
    if p.phone_kind == "us":
        return rng.choice([f"({p.area}) 555-01{d}", f"{p.area}-555-01{d}", f"+1 {p.area} 555 01{d}",
                           f"{p.area}.555.01{d}", f"+1 ({p.area}) 555-01{d}"])
    if p.phone_kind == "lon":
        return rng.choice([f"020 7946 0{d}", f"0207 946 0{d}", f"+44 20 7946 0{d}", f"02079460{d}",
                           f"(020) 7946 0{d}"])
    return rng.choice([f"07700 900{d}", f"07700900{d}", f"+44 7700 900{d}", f"+447700900{d}",
                       f"07700 900 {d}", f"0044 7700 900{d}", f"(+44) 07700 900{d}", f"07700-900-{d}"])


def _fmt_card(rng: random.Random, c: str) -> str:
    return rng.choice([f"{c[:4]} {c[4:8]} {c[8:12]} {c[12:]}", c, f"{c[:4]}-{c[4:8]}-{c[8:12]}-{c[12:]}"])


def _fmt_imei(rng: random.Random, s: str) -> str:
    return rng.choice([s, f"{s[:2]} {s[2:8]} {s[8:14]} {s[14]}", f"{s[:2]}-{s[2:8]}-{s[8:14]}-{s[14]}",
                       f"{s[:8]} {s[8:]}"])


def _fmt_iban(rng: random.Random, s: str) -> str:
    grouped = " ".join(s[i:i + 4] for i in range(0, len(s), 4))
    return rng.choice([s, grouped, grouped.lower()])


def _fmt_ref(rng: random.Random, ref: str) -> str:
    digits = ref[3:]
    return rng.choice([ref, ref, f"HL{digits}", f"hl-{digits}", f"HL {digits}", digits, f"HL-{digits[:3]} {digits[3:]}"])


def _fmt_loyal(rng: random.Random, lo: str) -> str:
    d = lo[3:].replace("-", "")
    return rng.choice([lo, f"HR{d}", f"{d[:4]} {d[4:]}", f"hr {d}", d, lo.replace("-", " ")])


def _fmt_pc(rng: random.Random, pc: str) -> str:
    return rng.choice([pc, pc, pc.lower(), pc.replace(" ", "")])


def _fmt_plate(rng: random.Random, pl: str) -> str:
    return rng.choice([pl, pl, pl.replace(" ", ""), pl.lower(), pl.lower().replace(" ", "")])


def _amount(rng: random.Random) -> str:
    v = rng.randint(64, 980)
    return rng.choice([f"{v}", f"{v}.{rng.randint(0, 99):02d}", f"{v:,}"])


def _counts(n: int) -> list[int]:
    w = [t["weight"] for t in TYPES]
    tot = sum(w)
    raw = [x * n / tot for x in w]
    c = [max(2, int(r)) for r in raw]
    order = sorted(range(len(w)), key=lambda i: raw[i] - int(raw[i]), reverse=True)
    i = 0
    while sum(c) < n:
        c[order[i % len(order)]] += 1
        i += 1
    while sum(c) > n:
        j = max(range(len(c)), key=lambda k: c[k])
        c[j] -= 1
    return c


CHANNELS = ["email", "email_top", "chat", "whatsapp", "partner", "webform", "desk", "call", "review"]
CHANNEL_W = [26, 10, 16, 6, 9, 12, 8, 7, 6]


class Builder:
    def __init__(self, rng: random.Random, t: dict, p: Person, ref: str, agent: tuple, hotel: str,
                 mis: bool, stated: bool, rid: str) -> None:
        self.rng, self.t, self.p, self.ref, self.agent, self.hotel = rng, t, p, ref, agent, hotel
        self.mis, self.stated, self.rid = mis, stated, rid

    # -- slots
    def slots(self) -> Slots:
        rng, p, t = self.rng, self.p, self.t
        s = Slots()
        P = "person_name"
        s.set("first", p.first, P)
        s.set("fullname", p.name, P)
        s.set("title_last", f"{p.title} {p.last}", P)
        s.set("header_name", rng.choice([p.name, f"{p.last.upper()} {p.first}", f"{p.first} {p.last[0]}.",
                                         f"{p.first[0]}. {p.last}", f"{p.last}, {p.first}"]), P)
        s.set("sig", lambda: rng.choice([p.first, p.name, f"{p.first} {p.last[0]}", p.first.lower(),
                                         f"{p.first[0]}. {p.last}", f"{p.title} {p.first} {p.last}"]), P)
        s.set("email", lambda: rng.choice([p.email] * 5 + [p.email.upper(), p.email.capitalize()]), "email")
        s.set("phone", lambda: _fmt_phone(rng, p), "phone")
        s.set("bref", lambda: _fmt_ref(rng, self.ref), "account_number")
        s.set("loyal", lambda: _fmt_loyal(rng, p.loyalty), "account_number")
        s.set("addr", rng.choice([p.street, p.addr_town, p.addr_town]), "address")
        s.set("pc", _fmt_pc(rng, p.postcode), "postcode")
        s.set("card4", p.card[-4:], "card_number")
        s.set("cardfull", _fmt_card(rng, p.card), "card_number")
        s.set("sortcode", p.sortcode, "iban")
        s.set("acct", p.acct, "iban")
        s.set("iban", _fmt_iban(rng, p.iban), "iban")
        s.set("imei", _fmt_imei(rng, p.imei), "imei")
        s.set("dob", _fmt_dob(rng, p.dob), "date_of_birth")
        s.set("plate", _fmt_plate(rng, p.plate), "licence_plate")
        s.set("passport", p.passport, "other_id")
        s.set("natid", p.natid, "national_id")
        s.set("utr", p.utr, "national_id")
        s.set("pcn", f"PCN{rng.randint(1000000, 9999999)}", "other_id")
        digits = self.ref[3:]
        s.set("url_booking", rng.choice([f"https://{WEB}/my-booking/{self.ref}",
                                         f"https://{WEB}/manage?ref=HL{digits}&src=email"]), "url_with_id")
        s.set("url_rewards", f"https://rewards.harbourline.example.com/member/{p.loyalty.replace('-', '')}",
              "url_with_id")
        s.set("url_photo", rng.choice([f"https://photos.example.org/share/{rng.getrandbits(40):010x}",
                                       f"https://drive.example.net/f/{rng.getrandbits(48):012x}/view"]),
              "url_with_id")
        s.set("url_pay", f"https://pay.harbourline.example.com/link/{rng.getrandbits(44):011x}", "url_with_id")
        s.set("partner_ref", f"{rng.randint(1000000000, 9999999999)}", "account_number")
        T = "third_party_name"
        s.set("tp", lambda: rng.choice(FIRST_F + FIRST_M + FIRST_N), T)
        s.set("tp2", lambda: rng.choice(FIRST_F + FIRST_M), T)
        s.set("tp_f", lambda: rng.choice(FIRST_F), T)
        s.set("tp_m", lambda: rng.choice(FIRST_M), T)
        s.set("tp_full", lambda: f"{rng.choice(FIRST_F)} {rng.choice(SURNAMES)}", T)
        af, al = self.agent
        A = "agent_name"
        s.set("agent", af, A)
        s.set("agent_full", f"{af} {al}", A)
        s.set("agent_sig", rng.choice([af, f"{af} {al[0]}.", f"{af} {al}"]), A)
        sf, sl = rng.choice([a for a in AGENTS if a != self.agent])
        s.set("staff", rng.choice([sf, f"{sf} {sl}"]), A)
        s.set("role", rng.choice(ROLES))
        s.set("hotel", self.hotel)
        s.set("city", HOTEL_CITY[self.hotel])
        s.set("home_town", p.town)
        s.set("room", rng.choice(ROOMS))
        s.set("room_no", str(rng.choice([rng.randint(101, 128), rng.randint(201, 240), rng.randint(301, 335),
                                         rng.randint(401, 420)])))
        s.set("nights", rng.choice(["2", "3", "two", "three", "4", "five", "a couple of"]))
        arrive = _date(rng)
        s.set("arrive", _fmt_date(rng, arrive))
        s.set("depart", _fmt_date(rng, (min(arrive[0] + rng.randint(1, 3), 28), arrive[1], arrive[2])))
        s.set("flight_time", rng.choice(["07:40", "8.15am", "09:55", "10:20", "half 9", "6am", "11:05"]))
        s.set("amount", _amount(rng))
        s.set("deposit", rng.choice(["50", "75", "100", "150", "200"]))
        s.set("item", rng.choice(ITEMS))
        s.set("phone_model", rng.choice(PHONE_MODELS))
        s.set("pet", p.pet)
        s.set("grp", str(rng.choice([4, 7, 9, 11, 12, 14, 15, 18, 20, 22, 25, 30])))
        s.set("org", rng.choice(ORGS))
        s.set("W", rng.choice(t["wrong"]))
        s.set("F", lambda: rng.choice(t["forms"]))
        return s

    def fact_sentence(self, s: Slots, sink: list, pool: list | None = None) -> str:
        t, rng = self.t, self.rng
        item = rng.choice(pool or t["says"])
        if isinstance(item, tuple):
            tmpl, idx = item
            form = t["forms"][rng.choice(idx)]
        else:
            tmpl, form = item, rng.choice(t["forms"])
        return s.render(tmpl.replace("{F}", form), sink)

    # -- the parts
    def ok(self, templates: list) -> list:
        """The templates this guest can write: no Rewards number unless a member."""
        if self.p.member:
            return templates
        return [x for x in templates if "{loyal}" not in str(x) and "{url_rewards}" not in str(x)]

    def customer_parts(self, s: Slots, sink: list, channel: str) -> list[str]:
        rng, t = self.rng, self.t
        parts = []
        if channel in ("email", "email_top", "webform", "partner") and rng.random() < 0.45:
            parts.append(s.render(rng.choice(CUST_OPEN), sink))
        ask = rng.choice(self.ok(t["asks"]))
        parts.append(s.render(ask, sink))
        if self.mis:
            parts.append(s.render(rng.choice(t["mis"]), sink))
        k = rng.choice([0, 1, 1, 1, 2, 2]) if channel not in ("chat", "whatsapp") else rng.choice([0, 1, 1])
        used = _fields(ask)
        pool = [e for e, only in self.ok(CUST_EXTRA) if (only is None or t["id"] in only) and not used & _fields(e)
                and not (channel == "partner" and "partner_ref" in e)]
        rare = ("{utr}", "{natid}", "{dob}", "{partner_ref}", "{tp2}")
        weights = [0.35 if any(r in e for r in rare) else (2.0 if "{phone}" in e or "{bref}" in e else 1.0)
                   for e in pool]
        for _ in range(k):
            if not pool:
                break
            i = rng.choices(range(len(pool)), weights)[0]
            parts.append(s.render(pool.pop(i), sink))
            weights.pop(i)
        return parts

    def agent_parts(self, s: Slots, sink: list, third: bool = False) -> list[str]:
        rng, t = self.rng, self.t
        parts = []
        if third:
            if self.mis:
                parts.append(s.render(rng.choice(["Guest had been told {W}.", "Caller quoted {W}.",
                                                  "Guest thought it was {W}, corrected."]), sink))
            if self.stated:
                parts.append(self.fact_sentence(s, sink, t["notes"]))
            else:
                parts.append(s.render(rng.choice(t["note_nostate"]), sink))
            return parts
        if self.mis:
            parts.append(s.render(rng.choice(t.get("correct", CORRECT)), sink))
        if self.stated:
            parts.append(self.fact_sentence(s, sink))
            if rng.random() < 0.12:
                parts.append(s.render(rng.choice(RESTATE).replace("{F}", rng.choice(t["forms"])), sink))
        else:
            parts.append(s.render(rng.choice(t["nostate"]), sink))
        if "extra_agent" in t:
            parts.append(t["extra_agent"])
        return parts

    def style(self, parts: list[str], sink: list, channel: str) -> list[str]:
        """The customer's own style: all lower case sometimes, typos often."""
        rng = self.rng
        low_p = 0.25 if channel in ("chat", "whatsapp") else 0.06
        if rng.random() < low_p:
            parts = [x.lower() for x in parts]
            sink[:] = [(k, v.lower()) for k, v in sink]
        rate = rng.choice([0.0, 0.0, 0.01, 0.02, 0.03, 0.05])
        if rate:
            protected = [v for _, v in sink] + [v for _, v in self.s.vals.values() if isinstance(v, str)] \
                + PRODUCTS + PUBLIC_STRINGS + self.t["wrong"]
            parts = [_typos(rng, x, protected, rate) for x in parts]
        return parts

    # -- channels
    def build(self, channel: str) -> tuple[str, list]:
        rng, t, p = self.rng, self.t, self.p
        s = self.s = self.slots()
        hdr: list = []
        cs: list = []
        ag: list = []
        R = s.render
        if channel in ("desk", "call"):
            return self.build_note(channel, s)
        if channel == "review":
            return self.build_review(s)
        cparts = self.customer_parts(s, cs, channel)
        aparts = self.agent_parts(s, ag)
        if channel in ("email", "email_top", "webform", "partner"):
            greet = rng.choice(CUST_GREET)
            cparts = self.style(cparts, cs, channel)
            signoff = ""
            if channel in ("email", "email_top") or rng.random() < 0.5:
                signoff = R(rng.choice(CUST_SIGNOFF), cs)
            body = (greet + "\n\n" if greet else "") + " ".join(cparts) + ("\n\n" + signoff if signoff else "")
            gl: list = []
            agreet = R(rng.choice(AGENT_GREET), gl)
            aopen = R(rng.choice(AGENT_OPEN), ag)
            aclose = R(rng.choice(AGENT_CLOSE), ag)
            asign = R(rng.choice(AGENT_SIGNOFF), gl) if rng.random() < 0.85 else ""
            if channel != "partner":
                ag += gl
            reply = agreet + "\n\n" + " ".join(x for x in [aopen, *aparts, aclose] if x) + \
                ("\n\n" + asign if asign else "")
            if channel == "email":
                head = R("From: {header_name} <{email}>\n", hdr) + \
                    f"To: {rng.choice([RES_EMAIL, RES_EMAIL, 'guestservices@harbourline.example.com'])}\n" + \
                    R("Subject: " + rng.choice(t["subjects"]) + "\n\n", hdr)
                sep = rng.choice(["\n\n--- Reply from " + COMPANY + " ---\n", "\n\n-----\nFrom: " + COMPANY +
                                  " Guest Services\n\n", "\n\n>> Response sent " + f"{rng.randint(1, 28)}/"
                                  f"{rng.randint(1, 12)} {rng.randint(8, 19)}:{rng.randint(1, 59):02d}\n"])
                text = head + body + sep + reply
            elif channel == "email_top":
                quoted = "\n".join("> " + line if line else ">" for line in body.split("\n"))
                head = R("Re: " + rng.choice(t["subjects"]) + "\n\n", hdr)
                text = head + reply + "\n\n" + R(rng.choice(["On {arrive}, {header_name} <{email}> wrote:",
                                                            "-----Original Message-----\nFrom: {email}"]), hdr) + \
                    "\n" + quoted
            elif channel == "webform":
                lines = ["Website enquiry – " + WEB + "/contact", R("Name: {fullname}", hdr),
                         R("Email: {email}", hdr)]
                if rng.random() < 0.7:
                    lines.append(R("Phone: {phone}", hdr))
                if rng.random() < 0.6:
                    lines.append(R("Booking reference: {bref}", hdr))
                lines.append("Hotel: {}".format(self.hotel))
                lines.append("Enquiry type: " + t["category"])
                text = "\n".join(lines) + "\nMessage:\n" + body + "\n\n" + \
                    R(rng.choice(["==== Reply ({agent_sig}) ====", "Reply sent by {agent_full}:",
                                  "--- Response ---"]), ag) + "\n" + reply
            else:  # partner
                head = R(rng.choice(["Message from StaySearch guest – reservation {partner_ref}\n",
                                     "Booking.example.net guest message (confirmation {partner_ref})\n",
                                     "Trip.example.org – message from guest – booking no. {partner_ref}\n"]), hdr)
                head += R(rng.choice(["Guest: {header_name}\n", "Guest name: {header_name}\n"]), hdr)
                head += "Property: {}\nArrival: ".format(self.hotel) + s["arrive"] + "\n\n"
                text = head + "Guest wrote:\n" + body + "\n\n" + \
                    R(rng.choice(["Property reply ({agent}):", "Reply from the hotel:", "Hotel response – {agent_sig}:"]),
                      ag) + "\n" + " ".join(x for x in [aopen, *aparts, aclose] if x) + \
                    ("\n" + R(rng.choice(["{agent}", "{agent_full}, {role}", "Best, {agent_sig}"]), ag)
                     if rng.random() < 0.7 else "")
            return text, hdr + cs + ag
        # chat / whatsapp
        cparts = self.style(cparts, cs, channel)
        hh, mm = rng.randint(7, 22), rng.randint(0, 50)

        def stamp() -> str:
            nonlocal hh, mm
            mm += rng.randint(0, 3)
            if mm > 59:
                hh, mm = hh + 1, mm - 60
            if hh == 15 and mm == 0:
                mm = 1
            return f"{hh % 24:02d}:{mm:02d}"

        lines = []
        if channel == "chat":
            who = R(rng.choice(["{first}", "{header_name}", "Guest", "Visitor"]), hdr)
            lines.append(R("Live chat – " + WEB + " – " + "{arrive}", hdr))
            if rng.random() < 0.6:
                lines.append(R("Pre-chat form: {fullname} / {email}", hdr))
            me = R(rng.choice(["{agent} (Harbourline)", "{agent_sig}", "Agent {agent}"]), ag)
            lines.append(f"[{stamp()}] {me}: " + R(rng.choice([
                "Hi, you're through to {agent} at Harbourline Hotels, how can I help today?",
                "Hello! My name's {agent}, what can I do for you?", "Hi there, thanks for waiting. How can I help?"]),
                ag))
            for x in cparts:
                lines.append(f"[{stamp()}] {who}: {x}")
            for x in ([R(rng.choice(AGENT_OPEN[:3] + ["Let me check that for you.", "One moment please."]), ag)]
                      + aparts):
                if x:
                    lines.append(f"[{stamp()}] {me}: {x}")
            lines.append(f"[{stamp()}] {who}: " + rng.choice(["ok thanks", "Great, thank you!", "perfect thx",
                                                                "Thanks for your help", "ok", "Brilliant, cheers."]))
            lines.append(f"[{stamp()}] {me}: " + R(rng.choice(AGENT_CLOSE[:6] + ["Have a great day!"]), ag))
        else:
            lines.append(R("WhatsApp – {phone} – " + self.hotel, hdr))
            who = R(rng.choice(["{first}", "{header_name}", "Guest"]), hdr)
            for x in cparts:
                lines.append(f"{stamp()} {who}: {x}")
            tag = R(rng.choice(["Harbourline ({agent})", "Harbourline", "{agent_sig}"]), ag)
            for x in aparts:
                lines.append(f"{stamp()} {tag}: {x}")
            lines.append(f"{stamp()} {tag}: " + R(rng.choice(AGENT_CLOSE[:-1] + ["Any questions just message here. "
                                                                                  "{agent}"]), ag))
        return "\n".join(lines), hdr + cs + ag

    def build_note(self, channel: str, s: Slots) -> tuple[str, list]:
        rng, t = self.rng, self.t
        R = s.render
        pii: list = []
        lines = []
        if channel == "desk":
            lines.append(R("FRONT DESK LOG – " + self.hotel + " – {arrive} " +
                           f"{rng.randint(6, 23):02d}:{rng.choice([5, 10, 20, 35, 45, 50]):02d}", pii))
            lines.append(R(rng.choice(["Guest {title_last} (rm {room_no}, bkg {bref}) came to the desk about "
                                       + t["topic"] + ".",
                                       "{fullname}, room {room_no}, asked about " + t["topic"] + ".",
                                       "{title_last} from room {room_no} rang down about " + t["topic"] + "."]),
                           pii))
        else:
            lines.append(R("Inbound call – " + PHONE + " – agent: {agent_sig}", pii))
            lines.append(R(rng.choice(["Caller: {fullname}, tel {phone}.", "Caller {title_last} ({phone}).",
                                       "Caller: {header_name}. Call-back number {phone}."]), pii))
            lines.append(R(rng.choice(["ID&V passed (DOB {dob}, postcode {pc}).", "Verified with booking {bref} and "
                                       "e-mail {email}.", "Verified: postcode {pc}.", "Booking {bref}."]), pii))
            lines.append("Query: " + t["topic"] + ".")
        story = rng.choice(["Guest was polite but in a hurry.", "Guest a bit frustrated, had been waiting.",
                            "Guest travelling with family.", "Regular guest, knows the hotel well.",
                            "Caller said they'd tried e-mailing first.", "Partner {tp} also present."])
        lines.append(R(story, pii))
        extra = rng.choice(self.ok(["Car reg {plate}.", "Rewards no. {loyal}.", "Contact e-mail {email}.",
                            "Mobile {phone}.", "Home address on file: {addr}, {pc}.", ""]))
        if extra:
            lines.append(R(extra, pii))
        lines.extend(self.agent_parts(s, pii, third=True))
        lines.append(R(rng.choice(["Nothing further needed.", "Guest happy with that.", "Note added to profile.",
                                   "Guest said they would think about it.", "Follow-up e-mail sent."]), pii))
        lines.append(R(rng.choice(["– {agent_sig}", "Logged by {agent_full}, {role}", "{agent}", "(handover to "
                                   "{staff})"]), pii))
        return "\n".join(lines), pii

    def build_review(self, s: Slots) -> tuple[str, list]:
        rng, t = self.rng, self.t
        R = s.render
        pii: list = []
        cs: list = []
        stars = rng.choice([2, 3, 3, 4, 4, 4, 5])
        head = "★" * stars + "☆" * (5 - stars) + " " + rng.choice(['"Good stay, a few niggles"', '"Mixed feelings"',
                                                                  '"Would come back"', '"Lovely staff"',
                                                                  '"Not bad but pricey extras"', '"Great location"'])
        head += "\n" + R(rng.choice(["Reviewed by {header_name}, {home_town}", "Posted by {sig}",
                                     "by {first} ({home_town})", "Reviewer: {title_last}"]), pii)
        head += " – stayed at " + self.hotel
        body = [R(rng.choice(t["review"]), cs)]
        if self.mis:
            body.append(R(rng.choice(t["mis"]), cs))
        if rng.random() < 0.3:
            body.append(R(rng.choice(["We were there for my partner {tp}'s birthday.",
                                      "Came with my sister {tp_f} for a weekend away.",
                                      "Stayed for a work trip with {tp}.", "Thanks to {staff} at the bar."]), cs))
        body = self.style(body, cs, "review")
        ag: list = []
        reply = R(rng.choice(["Dear {first},", "Dear {title_last},", "Hi {first},", "Dear Guest,"]), ag) + " " + \
            R(rng.choice(["Thank you for taking the time to review your stay.", "Thanks for your feedback.",
                          "We're glad you enjoyed most of your stay."]), ag) + " " + \
            " ".join(self.agent_parts(s, ag)) + " " + \
            R(rng.choice(["We hope to welcome you back soon.", "Please get in touch on " + PHONE +
                          " before your next visit.", "Book direct at " + WEB + " for the best rate."]), ag)
        sign = R(rng.choice(["{agent_full}, {role}", "{agent}, Guest Relations", "{agent_sig}, " + self.hotel]), ag)
        text = head + "\n" + " ".join(body) + "\n\n" + R(rng.choice(["Response from the property:",
                                                                      "Management response ({agent}):",
                                                                      "Reply from " + COMPANY + ":"]), ag) + \
            "\n" + reply + "\n" + sign
        return text, pii + cs + ag


# -------------------------------------------------------------------------------------------- main

def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    rng = random.Random(f"hotel-blind:{seed}:{n}")
    counts = _counts(n)
    kinds = [i for i, c in enumerate(counts) for _ in range(c)]
    rng.shuffle(kinds)
    # persons: 1-3 records each
    people: list[Person] = []
    used: set = set()
    owner = []
    i = 0
    while i < n:
        p = _make_person(rng, f"G{100000 + len(people) * 7 + rng.randint(0, 6)}", used)
        people.append(p)
        k = min(rng.choices([1, 2, 3], [72, 21, 7])[0], n - i)
        owner.extend([p] * k)
        i += k
    slots_order = list(range(n))
    rng.shuffle(slots_order)
    for j in range(n):
        if TYPES[kinds[j]]["id"] == "loyalty_points":
            owner[slots_order[j]].member = True
    refs: set = set()
    records, piis = [], []
    stated_by = [0] * len(TYPES)
    mis_by = [0] * len(TYPES)
    last_ref: dict = {}
    for j in range(n):
        ti = kinds[j]
        t = TYPES[ti]
        p = owner[slots_order[j]]
        if p.pid in last_ref and rng.random() < 0.45:
            ref = last_ref[p.pid]
        else:
            ref = f"HL-{rng.randint(1000000, 9999999)}"
            while ref in refs:
                ref = f"HL-{rng.randint(1000000, 9999999)}"
            refs.add(ref)
        last_ref[p.pid] = ref
        mis = rng.random() < 0.10
        stated = mis or rng.random() >= (0.05 if t["id"] == "lost_property" else 0.08)
        agent = rng.choice(AGENTS)
        hotel = rng.choice(AIRPORT_HOTELS) if t["id"] == "airport_shuttle" else \
            rng.choice(HOTELS + AIRPORT_HOTELS[:1] if rng.random() < 0.15 else HOTELS)
        rid = f"htl-{j + 1:06d}"
        b = Builder(rng, t, p, ref, agent, hotel, mis, stated, rid)
        chans = [c for c in CHANNELS if c != "review" or t["review"]]
        w = [CHANNEL_W[CHANNELS.index(c)] for c in chans]
        for _ in range(60):
            channel = rng.choices(chans, w)[0]
            text, pii = b.build(channel)
            words = len(text.split())
            if 50 <= words <= 250:
                break
        else:
            raise RuntimeError(f"{rid}: no text within 50-250 words")
        seen, rows = set(), []
        for kind, v in pii:
            if v not in text:
                raise AssertionError(f"{rid}: {kind} {v!r} not in text")
            if (kind, v) not in seen:
                seen.add((kind, v))
                rows.append({"kind": kind, "text": v})
        records.append({
            "id": rid, "text": text, "person_id": p.pid, "type": t["id"],
            "customer_name": p.name, "email": p.email, "phone": p.phone, "booking_ref": ref,
            "loyalty_number": p.loyalty if p.member else "",
        })
        piis.append({"id": rid, "pii": rows})
        stated_by[ti] += any(re.search(rf"(?<!\w){re.escape(f)}(?!\w)", text, re.I) for f in t["forms"])
        mis_by[ti] += mis
    types = []
    for i, t in enumerate(TYPES):
        types.append({"id": t["id"], "records": counts[i], "fact": t["fact"], "forms": list(t["forms"]),
                      "stated_by": stated_by[i], "misquoted_by": mis_by[i]})
    types.sort(key=lambda x: -x["records"])
    questions = [{"question": q, "answers": list(t["forms"]), "type": t["id"], "support": counts[i]}
                 for i, t in enumerate(TYPES) for q in t["questions"]]
    return {
        "domain": "hotel",
        "records": records,
        "pii": piis,
        "types": types,
        "questions": questions,
        "public": {
            "company": COMPANY,
            "public_strings": list(PUBLIC_STRINGS),
            "product_names": list(PRODUCTS),
            "identifier_fields": list(IDENTIFIER_FIELDS),
            "id_field": "id", "text_field": "text", "unit_field": "person_id",
        },
    }
