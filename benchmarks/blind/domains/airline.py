"""Blind own-data domain ``airline``: a made-up carrier's customer-relations export (see ``CONTRACT.md``).

Each record is one customer contact (an e-mail thread, a web enquiry form, a live chat or a social media
direct message) with the airline's answer.  Standard library only; deterministic in ``(seed, n)``.
"""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta

DOMAIN = "airline"
COMPANY = "Halcyon Air"
SITE = "www.halcyonair.example.com"
CR_EMAIL = "customer.relations@halcyonair.example.com"
CR_PHONE = "0808 157 0311"
ASSIST = "0808 157 0462"
ASSIST_INTL = "+44 808 157 0462"
PUBLIC_STRINGS = [COMPANY, CR_PHONE, ASSIST, ASSIST_INTL, SITE, CR_EMAIL]
PRODUCTS = ["Halcyon Saver", "Halcyon Classic", "Halcyon Flex", "Halcyon Business", "Skyward Club",
            "Skyward Gold", "Priority Plus", "Extra Legroom", "Manage My Booking", "Halcyon Assist",
            "Halcyon Holidays"]
FARES = ["Halcyon Saver", "Halcyon Classic", "Halcyon Flex", "Halcyon Business"]

# ----------------------------------------------------------------------------------------------- names
# origin | weight | given names (women) | given names (men) | surnames
NAME_TABLE = """
anglo|36|Olivia Amelia Isla Ava Mia Grace Rose Hope May Joy Faith Dawn Summer Ivy Holly Daisy Amber Ruby Pearl Heather Iris Violet Poppy Hazel Willow Beverley Tracey Sharon Karen Janet Maureen Pauline Brenda Jean Doreen Shirley Wendy Sandra Deborah Julie Nicola Gemma Kelly Stacey Chantelle Leanne Charlotte Sophie Emily Hannah Lucy Eleanor Harriet Imogen Florence Matilda Georgia Megan Robin Sandy Pat Frankie Jo Sam|Oliver George Harry Jack Mark Will Bill Frank Guy Dean Miles Cliff Rich Art Grant Colin Nigel Trevor Keith Gary Darren Wayne Lee Craig Stuart Leo Freddie Archie Alfie Theo Max Victor Ernest Stanley Ray Reginald Rupert Hugo Piers Giles Robin Pat Sandy Sam Jo Noah Ethan Liam|Green Brown White Black King Church Field Hope May Rose Bird Fox Lamb Hill Wood Stone Marsh Baker Cook Turner Mason Walker Shepherd Bishop Knight Page Young Little Long Sharp Swift Gold Frost Snow Winter Day Lord Noble Friend Love Bell Ball Bush Moss Heath Brook Banks Lane Street Ford Hall House Cross Swan Drake Pike Hunt Fisher Archer Cotton Berry Parsons Carpenter Wolf Salmon Nightingale Sparrow Smith Jones Williams Taylor Davies Evans Thomas Roberts Hughes Edwards Wright Robinson Thompson Harrison Clarke Grant Mills Price Marshall Webb Palmer Holmes Booth Gibson Hart Wells Rice Barker Hale Sutton Payne|St John
celtic|8|Niamh Siobhan Aoife Róisín Saoirse Caoimhe Eilidh Morag Kirsty Fiona Rhiannon Cerys Bethan Sian Megan|Callum Ewan Fraser Ruaridh Hamish Alistair Declan Cian Oisín Seán Pádraig Eoin Rhys Dafydd Gethin Iwan|O'Brien O'Connor Murphy Kelly Byrne Ryan Doyle MacDonald McLeod Campbell Stewart Fraser Ross Murray Fitzgerald Evans Jones Griffiths|Ó Súilleabháin
south_asian|7|Priya Ananya Kavya Deepa Sunita Harpreet Simran Jaspreet Meera Lakshmi|Arjun Rohan Vikram Sanjay Rajesh Amit Sunil Harjit Gurdeep Kulwinder Raj Anil|Patel Shah Mistry Desai Joshi Mehta Sharma Gupta Singh Kaur Gill Sandhu Dhillon Bains Sidhu
muslim|7|Fatima Aisha Amina Nadia Samira Yasmin Leila Noor Zainab Mariam Hana|Mohamed Mohammed Ahmed Omar Yusuf Bilal Hamza Imran Tariq Ali Hassan Khalid Karim Samir Youssef|Khan Hussain Ahmed Iqbal Akhtar Rahman Chowdhury Begum Uddin Miah Islam Haddad Saleh
west_african|5|Precious Blessing Chioma Ngozi Adaeze Funmilayo Yetunde Abena Akosua Esi|Emeka Chinedu Oluwaseun Tunde Femi Kwame Kofi Yaw Kwabena|Okafor Okonkwo Eze Nwosu Adeyemi Adebayo Ogunleye Balogun Mensah Owusu Asante Boateng Appiah Osei
somali|2|Hodan Ayaan Nasra Fartun|Abdi Liban Mahad|Abdullahi Farah Warsame Mohamud Hassan Ali
chinese|3|Mei Xiaoling Yan Hui Jing|Wei Jun Hao Jian|Chen Wang Li Zhang Liu Huang Lin Wong Cheung Chan Ng Lau
vietnamese|1|Thuy Linh Hoa|Tuan Minh Duc|Nguyen Tran Pham Le
korean|1|Ji-woo Min-seo|Min-jun Ji-hoon|Kim Park Lee Choi
japanese|1|Yuki Haruka|Hiroshi Kenji Takumi|Sato Suzuki Tanaka Watanabe
filipino|1.5|Maricel Rowena Jocelyn|Jomar Rodel|Santos Reyes Cruz Bautista
iberian|3|Marisol Lucía Carmen Inés Beatriz Ana Mariana Gabriela Fernanda|José Juan Carlos Miguel Alejandro João Pedro Tiago|Garcia Rodríguez Fernández López Martínez Gómez Silva Pereira Costa Oliveira Ferreira|da Silva
italian|2|Chiara Giulia Francesca Sofia|Luca Marco Giovanni Matteo|Rossi Russo Bianchi Romano Esposito
polish|3|Agnieszka Katarzyna Magdalena Zofia|Piotr Tomasz Krzysztof Paweł Jakub Mateusz Dariusz|Nowak Kowalski Wiśniewski Wójcik Lewandowski
romanian|1.5|Ioana Andreea|Andrei Mihai Bogdan|Popescu Ionescu Dumitru
baltic|1|Ieva Rūta|Lukas Jonas Tomas Mindaugas|Kazlauskas Petrauskas
germanic|2.5|Ingrid Astrid Freya Annika Sanne Femke|Lars Anders Magnus Henrik Sven Jan Pieter Bram|Müller Schmidt Schneider Fischer Weber Bakker Jansen Visser Andersson Johansson Nielsen Hansen Berg Lindqvist|de Vries;van Dijk
french|1.5|Margot Camille Élodie|Luc Théo Mathieu|Dubois Lefèvre Moreau Laurent
greek|1|Eleni Dimitra|Nikos Giorgos|Papadopoulos Georgiou Nikolaidis
turkish|1|Elif Zeynep|Mehmet Emre Burak Kerem|Yılmaz Kaya Demir Çelik
iranian|1|Shirin Parisa|Reza|Hosseini Rahimi Karimi
jewish|1.5|Esther Miriam Rivka Talia Noa|Avi Eitan Moshe|Cohen Levy Goldberg Katz
caribbean|3|Shanice Keisha Latoya Jasmine Ebony Marcia|Dwayne Tyrone Marcus Andre Leroy Winston Delroy Clive Errol Everton Noel|Campbell Brown Thompson Williams Francis Henry Baptiste Grant Clarke
american|0|Madison Brittany Ashley Kayla Destiny Tiffany Crystal Star|Tyler Brandon Cody Austin Dakota Chase Hunter Mason Jay Bob Kyle|Miller Johnson Anderson Jackson Harris Lewis Walker Young Hill Green Baker
"""
NAME_GROUPS = {}
for _row in NAME_TABLE.strip().splitlines():
    _g, _w, _f, _m, _s, *_multi = _row.split("|")
    NAME_GROUPS[_g] = dict(weight=float(_w), F=_f.split(), M=_m.split(),
                           S=_s.split() + (_multi[0].split(";") if _multi else []))
F_GIVEN = [x for g in NAME_GROUPS.values() for x in g["F"]]
M_GIVEN = [x for g in NAME_GROUPS.values() for x in g["M"]]
SURNAMES = [x for g in NAME_GROUPS.values() for x in g["S"]]


def pick_group(rng, us=False):
    if us:
        return rng.choice(["american", "american", "american", "iberian", "caribbean", "anglo", "chinese", "korean",
                           "italian", "jewish", "south_asian"])
    names = [g for g in NAME_GROUPS if NAME_GROUPS[g]["weight"] > 0]
    return rng.choices(names, [NAME_GROUPS[g]["weight"] for g in names])[0]


def name_in(rng, group, sex):
    """Given name and surname, mostly from one origin, sometimes mixed (marriage, adoption, migration)."""
    g = NAME_GROUPS[group]
    given = rng.choice(g[sex]) if rng.random() < 0.88 else rng.choice(F_GIVEN if sex == "F" else M_GIVEN)
    family = rng.choice(g["S"]) if rng.random() < 0.8 else rng.choice(SURNAMES)
    return given, family


AGENTS = [("Priya", "Sandhu"), ("Tom", "Baxter"), ("Jess", "Okoro"), ("Marek", "Nowicki"), ("Aoife", "Brennan"),
          ("Daniel", "Rose"), ("Sam", "King"), ("Lucy", "Field"), ("Grace", "Mills"), ("Kwame", "Asante"),
          ("Farah", "Iqbal"), ("Ben", "Church"), ("Mei", "Lin"), ("Carlos", "Mendes"), ("Rhiannon", "Price"),
          ("Leon", "Fox"), ("Nadia", "Haddad"), ("Stuart", "Bell"), ("Ola", "Adeyemi"), ("Chloe", "Young"),
          ("Raj", "Mistry"), ("Ellie", "Winter"), ("Gareth", "Evans"), ("Zara", "Hussain"), ("Mark", "Little"),
          ("Beth", "Moss"), ("Yusuf", "Demir"), ("Ruth", "Summers"), ("Connor", "Walsh"), ("Hope", "Adjei")]
STAFF = ["Bernadette", "Darren", "Kevin", "Lorraine", "Mo", "Shaz", "Gavin", "Tina", "Andy", "Dev"]

UK_STREETS = """Elm Oak Ash Willow Beech Chestnut Station Church Mill Victoria Albert Queens Kings Park Manor
Grange Meadow Orchard Cedar Holly Rowan Hawthorn Marlow Stanley Clarence Grosvenor Windsor Wellington Nelson
Priory Abbey Chapel Bridge Brook Castle Highfield Greenfield Springfield Westfield Fairfield Beaconsfield
Cromwell Dorset Devon Warwick Lancaster York Carlton Belmont Sefton Ashby Coleridge Tennyson Milton
Shakespeare Byron Keats""".split()
ST_TYPES = ["Road", "Street", "Avenue", "Lane", "Close", "Drive", "Way", "Crescent", "Gardens", "Grove",
            "Place", "Terrace", "Court", "Rise", "Mews", "Walk", "Rd", "St", "Ave"]
NO_TYPE = ["Kingsway", "Broadway", "The Parade", "Parkside", "Northgate", "Eastbank", "Moorside", "Highgate",
           "The Green", "Southfields", "Riverside", "Westway"]
UK_TOWNS = [("Manchester", "M"), ("Leeds", "LS"), ("Bristol", "BS"), ("Edinburgh", "EH"), ("Glasgow", "G"),
            ("Cardiff", "CF"), ("Newcastle", "NE"), ("Birmingham", "B"), ("Nottingham", "NG"), ("Sheffield", "S"),
            ("Liverpool", "L"), ("Belfast", "BT"), ("Oxford", "OX"), ("Reading", "RG"), ("Brighton", "BN"),
            ("Norwich", "NR"), ("Leicester", "LE"), ("Exeter", "EX"), ("Aberdeen", "AB"), ("Swansea", "SA"),
            ("Crawley", "RH"), ("Luton", "LU"), ("Stockport", "SK"), ("Wigan", "WN"), ("Derby", "DE"),
            ("London", "SE"), ("London", "N"), ("London", "E"), ("London", "SW"), ("Croydon", "CR")]
US_PLACES = [("Portland", "OR", "972"), ("Boston", "MA", "021"), ("Austin", "TX", "787"), ("Denver", "CO", "802"),
             ("Chicago", "IL", "606"), ("Columbus", "OH", "432"), ("Raleigh", "NC", "276"), ("Tampa", "FL", "336")]
US_STREETS = ["Maple Ave", "Oak St", "Pine Street", "Elm Dr", "Cedar Lane", "Lakeview Blvd", "Washington St",
              "Highland Ave", "Sunset Drive", "Hillcrest Rd"]
IE_PLACES = [("Dublin 8", "D08"), ("Cork", "T12"), ("Galway", "H91"), ("Limerick", "V94"), ("Dublin 6W", "D6W")]
DEPS = ["Gatwick", "Manchester", "Bristol", "Birmingham", "Edinburgh", "Glasgow", "Belfast", "Newcastle",
        "Leeds Bradford", "East Midlands", "Stansted", "Cardiff", "Aberdeen", "Dublin"]
DESTS = ["Malaga", "Alicante", "Faro", "Lisbon", "Palma", "Tenerife", "Lanzarote", "Dubrovnik", "Split",
         "Corfu", "Heraklion", "Rhodes", "Nice", "Geneva", "Milan", "Rome", "Naples", "Krakow", "Prague",
         "Budapest", "Reykjavik", "Amsterdam", "Berlin", "Larnaca", "Dalaman", "Antalya", "Marrakech", "Funchal",
         "Bergerac", "Porto", "Valencia", "Ibiza", "Sofia", "Gdansk"]
PETS = ["Biscuit", "Luna", "Pepper", "Milo", "Bella", "Teddy", "Coco", "Mango", "Alfie", "Nala", "Ziggy"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]

# ------------------------------------------------------------------------------------------ request types
# Each type: fact and forms; questions; misquoted values; customer story/ask/misquote sentences; the agent's
# fact sentences (3-4 paraphrases), corrections, replies that do not state the fact, and extra sentences.
TYPES = [
    dict(
        id="delay_compensation",
        more=['We only found out about the delay from the departures board.',
              "Also I left my phone in the seat pocket (IMEI {imei}), has it been handed in?", 'Nobody from Halcyon Air came to speak to us.', 'We finally got to the hotel at 4am.', 'This was meant to be a birthday trip.', 'The app said on time right up until we got to the gate.', 'Half the plane are claiming, from what I can see.'],
        weight=80, fact="£350",
        forms=["£350", "GBP 350", "350 pounds", "three hundred and fifty pounds", "£350.00"],
        questions=["How much compensation do you pay when a flight arrives more than three hours late?",
                   "What is the delay compensation per passenger on your flights?",
                   "If my flight was delayed over 3 hours, how much can I claim?"],
        mq=["£220", "£520", "€400", "£600", "£250"],
        subject=["Delay compensation - {flight}", "claim for delayed flight", "Flight {flight} {fdate} - delay",
                 "Compensation request ref {ref}", "UK261 claim", "delayed flight AGAIN", "Delayed flight {ref}"],
        category="Delays and cancellations",
        story=["Our flight {flight} from {dep} to {dest} on {fdate} was delayed by {hours} hours. Nobody at the gate could tell us anything apart from 'technical issue'.",
               "I travelled with {tp} on {flight} to {dest} on {fdate}. We were meant to leave at {t1} and didn't take off until {t2}, so we landed way over three hours late and missed the last bus to the hotel. The taxi cost us {amount}.",
               "On {fdate} our flight home from {dest} ({flight}) was delayed {hours} hours. I had two small kids with me and all we got was a voucher that bought one sandwich.",
               "Flight {flight}, {dep} to {dest}, {fdate}. Scheduled arrival {t1}, actual arrival {t2}. Booking ref {ref}.",
               "I am writing on behalf of myself and {tp} about the delay to {flight} on {fdate}. We got to {dest} {hours} hours late and I had to pay an extra night's parking ({amount}) for my car, reg {plate}.",
               "My partner and I were booked on {flight} ({fdate}) and sat on the plane for two hours before they made everyone get off again. Total delay was {hours} hours.",
               "We had a {hours} hour delay coming back from {dest} on {fdate}, flight {flight}. The pilot said it was a crew shortage, which is surely your problem not ours.",
               "Flew {dep}-{dest} on {fdate} with {tp}, flight was delayed nearly {hours} hours and we lost a day of our holiday. {staff} at the desk told us to write in."],
        ask=["How much compensation are we entitled to?", "Please can you tell me how much I can claim per person.",
             "What compensation can I expect for this?", "I would like to claim for both of us, what is the amount?",
             "Can you confirm what we are owed under UK261?", "what do we get back for this??",
             "I'd like to know what the compensation is and how to claim it."],
        misq=["A friend who had the same thing said you pay {mq} per passenger, is that right?",
              "I've read online that it's {mq} each for this, so I'm claiming {mq} per person.",
              "The lady on your phone line said it would be {mq} per person but I've heard nothing since.",
              "According to a claims website it's {mq} a head for this distance."],
        state=["As your flight arrived more than three hours late, each passenger on the booking is entitled to {f} in compensation.",
               "For a delay of this length on this route the compensation is {f} per passenger, and I've approved it for everyone on the booking.",
               "I can confirm we'll pay {f} per person, which will go back to the card used to book.",
               "Under UK261 the amount for your flight is {f} for each passenger who travelled."],
        fix=["I'm afraid {mq} isn't right for this route. The compensation is {f} per passenger, which I have now approved.",
             "I understand why you expected {mq}, but for a flight of this distance the fixed amount is {f} per person.",
             "Just to clarify, it isn't {mq}: for a delay of over three hours on this flight we pay {f} for each passenger."],
        nostate=["So I can look into this, could you send me the names of everyone on the booking and the booking reference from your confirmation? I'll then be able to assess the claim.",
                 "I've checked the flight records and this delay was caused by an air traffic control restriction, which counts as an extraordinary circumstance, so compensation isn't payable. I can still refund reasonable expenses if you send the receipts.",
                 "I can't find a booking under the details you gave. Could you reply with the reference and the lead passenger's surname?"],
        extra=["Receipts for meals or transport during the delay can be sent in reply to this email and we'll look at those separately.",
               "Please allow a few weeks for the payment to arrive.", "I'm sorry again for the disruption to your trip.",
               "Payment will be made to the card ending {card_c}."],
        past=True),
    dict(
        id="checked_bag_weight",
        more=["We'll be away a while so need quite a lot.", "I don't want any nasty surprises at the airport.", "We're taking presents for the family too.", "I couldn't find it clearly on the website."],
        weight=62, fact="23 kg",
        forms=["23 kg", "23kg", "23 kilos", "23 kilograms", "twenty-three kilograms", "twenty-three kilos"],
        questions=["What is the maximum weight for a checked bag?", "How heavy can my hold suitcase be?",
                   "What's the weight allowance for each bag that goes in the hold?"],
        mq=["20kg", "25 kg", "15 kilos", "30kg", "20 kilos"],
        subject=["baggage allowance", "Hold luggage question", "Bag weight - {ref}", "Question about luggage",
                 "checked bag"],
        category="Baggage",
        story=["I'm flying to {dest} on {fdate} with {tp} on a {fare} fare and we've added one hold bag each.",
               "We're off to {dest} for two weeks in {month} (booking {ref}) and I always overpack.",
               "I've just bought a new suitcase for our trip to {dest} and it's quite heavy even empty, so I'm a bit worried.",
               "Last time I flew with another airline they weighed my case at check-in and charged me a fortune.",
               "Flying {dep} to {dest} next month, booking ref {ref}. Its my first time flying with you.",
               "I'm moving to {dest} for work in {month} and need to take as much as I possibly can.",
               "My daughter {kid} is flying back to uni from {dest} and is taking all her stuff."],
        ask=["What's the maximum weight for a checked bag?", "How heavy can each suitcase be?",
             "Can you tell me the weight allowance for the hold bag please?",
             "what weight can the case be before you charge extra?",
             "Is there a weight limit per bag or is it per person?"],
        misq=["My travel agent told me it's {mq} per bag, is that still the case?",
              "I think the allowance is {mq} but I wanted to check before I pack.",
              "My sister flew with you in the summer and said she was allowed {mq}."],
        state=["Each checked bag can weigh up to {f}, whichever fare you've booked.",
               "The limit is {f} per hold bag, and it's per bag rather than shared between passengers.",
               "You can check in a bag of up to {f}; anything over that is charged as excess weight at the airport.",
               "Hold bags on all our fares have an allowance of {f} each."],
        fix=["The allowance is actually {f} per bag rather than {mq}.",
             "I'm sorry if you were told {mq}; on all our flights the limit is {f} for each checked bag.",
             "That figure of {mq} may be another airline's. On Halcyon Air flights each hold bag can weigh up to {f}."],
        nostate=["Could you let me know which flight and fare you're booked on? Allowances can differ on codeshare flights, so I'd like to check before confirming.",
                 "I can see two bookings under your name. Could you tell me which one you're asking about?"],
        extra=["No single bag can weigh more than 32 kg, even if you pay for extra weight.",
               "You can add a second bag in Manage My Booking if you need one.",
               "It's cheaper to add bags online before you travel than at the airport.",
               "Halcyon Flex and Halcyon Business fares already include one hold bag.",
               "Your booking {ref_c} currently includes one hold bag per passenger."],
        past=False),
    dict(
        id="special_assistance_line",
        more=['She has never flown on her own before.', 'Last time we flew (not with you) the help never turned up.', 'I want to get everything sorted well in advance.', "I ticked the box when booking but haven't heard anything."],
        weight=50, fact=ASSIST,
        forms=[ASSIST, ASSIST_INTL],
        questions=["What number do I call to arrange wheelchair assistance?",
                   "How do I book special assistance for a passenger with reduced mobility?",
                   "Who do I phone to get help at the airport for a disabled traveller?"],
        mq=[CR_PHONE, "0808 157 0426", "0808 157 0642"],
        subject=["Wheelchair assistance", "special assistance request", "Help at airport for my mum",
                 "Assistance - {flight} {fdate}", "PRM request"],
        category="Special assistance",
        story=["My mother {tpfull} is 84 and can't walk long distances. She's flying with me to {dest} on {fdate}.",
               "I'm registered blind and will be travelling on my own on {flight} on {fdate}, booking {ref}.",
               "My son is autistic and finds queues and crowds really hard. We fly to {dest} in {month}.",
               "I use a powered wheelchair (lithium battery) and am booked on {flight} to {dest}.",
               "My husband {tp2} has just had a hip replacement and will need a wheelchair from check-in to the aircraft.",
               "I'm deaf and worried about missing gate announcements on my trip to {dest} on {fdate}.",
               "My dad is in the early stages of dementia and we're taking him to see family in {dest}. His date of birth is {dob3} in case you need it.",
               "I get PIP (NI number {ni}) and have a Blue Badge, and I'll need help boarding at {dep} on {fdate}."],
        ask=["How do I arrange assistance?", "Who do I need to contact to book help at the airport?",
             "Is there a number I can ring to set this up?", "What do I need to do to make sure someone meets us?",
             "Can you tell me how to request special assistance for this flight?"],
        misq=["I rang {mq} as it's on the booking confirmation, but was on hold for ages and then got cut off.",
              "I tried calling {mq} but the man said I'd come through to the wrong team.",
              "Someone on a Facebook group said to call {mq}, but it just rings out."],
        state=["Please call our Halcyon Assist team on {f} at least 48 hours before you fly, and they'll arrange everything with the airport.",
               "The best way to set this up is to ring the assistance line on {f}; the team there can book the wheelchair and let the crew know.",
               "Special assistance is arranged by phone on {f}, which is open 8am to 8pm every day.",
               "You can reach our dedicated assistance desk on {f} and they'll add the request to booking {ref_c}."],
        fix=["I'm sorry you were passed around. {mq} isn't the right line for this: please call the Halcyon Assist team directly on {f}.",
             "The number you used ({mq}) isn't our assistance team. They can be reached on {f}."],
        nostate=["I'm sorry to hear that. Could you tell me the flight number and the passenger's name as it appears on the booking, so I can check whether a request has already been logged?",
                 "Before I pass this on, can you confirm whether the wheelchair is manual or powered, and if powered, the battery type and watt-hours?"],
        extra=["You're welcome to bring your own mobility aids free of charge.",
               "Sunflower lanyards are available at our check-in desks if that would help.",
               "The team will arrange help on the return journey as well."],
        past=False),
    dict(
        id="seat_selection_fee",
        more=['It seems a bit much on top of the fare.', "I'd rather not pay if we'll be put together anyway.", 'The seat map shows plenty of empty seats.'],
        weight=40, fact="£12",
        forms=["£12", "GBP 12", "12 pounds", "twelve pounds", "£12.00"],
        questions=["How much does it cost to choose a seat?", "What is the fee for selecting seats in advance?",
                   "Do you charge to pick where we sit, and how much?"],
        mq=["£8", "£15", "£9.99", "£20", "£10"],
        subject=["Seats", "seat selection", "Sitting together - {ref}", "Why do I have to pay for a seat??"],
        category="Seats",
        story=["I've booked flights to {dest} for me and {kid} and we haven't been put together.",
               "We booked {fare} tickets for our anniversary trip to {dest} ({ref}).",
               "Just checked in online for {flight} and it's put me in a middle seat right at the back.",
               "I'm 6ft 5 and really need an aisle seat for the flight to {dest} on {fdate}.",
               "Flying with {tp} on {fdate} and we'd like to sit together."],
        ask=["How much does it cost to choose our seats?", "What's the charge for picking a seat?",
             "Do I have to pay to sit with my child, and if so how much?", "how much is it per seat to select?"],
        misq=["When I booked it said {mq} per seat but now it seems different?",
              "A colleague said it was {mq} to pick a seat.",
              "I paid {mq} for seat selection last year, is it still that?"],
        state=["Seat selection costs {f} per person, per flight, and you can choose seats in Manage My Booking.",
               "To pick a specific seat there's a charge of {f} per seat for each flight.",
               "Choosing your seat in advance is {f} per passenger on each flight; if you don't select, seats are allocated free at check-in.",
               "The seat fee is {f} per person each way."],
        fix=["The current price is {f} per seat per flight, not {mq}.",
             "Sorry for the confusion, but seat selection is {f} per passenger rather than {mq}."],
        nostate=["Children are always seated next to at least one adult on the same booking at no cost, so you don't need to worry about that part.",
                 "Could you let me know which flights you'd like seats on? I can see both an outbound and a return on this booking."],
        extra=["Extra Legroom seats in the exit rows are priced separately.", "Seats are free for Skyward Gold members.",
               "If you only select seats for the outbound, the return will be allocated at check-in."],
        past=False),
    dict(
        id="refund_timescale",
        more=["It's been weeks now.", 'Nobody has replied to my previous emails.', "I've been checking my statement every day."],
        weight=34, fact="7 working days",
        forms=["7 working days", "seven working days", "7 business days", "seven business days"],
        questions=["How long does a refund take to reach my account?",
                   "When will I get my money back after a cancelled flight?"],
        mq=["3 days", "48 hours", "14 days", "two weeks"],
        subject=["Refund", "Where is my refund", "refund for cancelled flight {flight}", "Refund - {ref}"],
        category="Refunds",
        story=["You cancelled our flight {flight} to {dest} on {fdate} and I chose a refund rather than rebooking.",
               "I asked for a refund on booking {ref} after the cancellation, the amount was {amount}.",
               "Our trip to {dest} was cancelled by you two days before we were due to fly. I applied for the refund on the website, case number {caseref}.",
               "I had to cancel because of a bereavement and your team agreed to refund the taxes ({amount}).",
               "I've been refunded for one passenger but not for {tp}.",
               "I'd rather have the money back to my bank than the card, account {iban}."],
        ask=["How long will the refund take?", "When can I expect to see the money back?",
             "Please can you tell me when the refund will be processed.", "how long till i get my money back"],
        misq=["The confirmation email said {mq} and it's been longer than that.",
              "I was told on the phone it would be {mq}.", "Your chat bot said refunds take {mq}."],
        state=["Refunds are processed within {f} of the request, after which it can take your bank a few days to show the credit.",
               "You should see the refund on your original payment card within {f}.",
               "Once approved, refunds take up to {f} to come through.",
               "Your refund was approved today and will reach the card ending {card_c} within {f}."],
        fix=["I'm sorry if you were told {mq}; refunds take up to {f} to process.",
             "Just to correct that, the timescale is {f} rather than {mq}."],
        nostate=["I can't see a refund request on this booking yet. Could you send the date you applied and the e-mail address you used?",
                 "Could you confirm the last four digits of the card you paid with, so I can trace the payment?"],
        extra=["Refunds are always made to the original form of payment.",
               "If you booked a package with Halcyon Holidays, the refund will come from the holidays team.",
               "If you paid with a voucher, the refund goes back as a voucher.",
               "I've added a note to your case {caseref_c}."],
        past=True),
    dict(
        id="name_change_fee",
        more=["I don't want any problems at the gate.", "We fly next month.", "Please tell me this can be sorted."],
        weight=28, fact="£45",
        forms=["£45", "GBP 45", "45 pounds", "forty-five pounds", "£45.00"],
        questions=["How much does it cost to change or correct a passenger's name on a booking?",
                   "What is your name change fee?"],
        mq=["£25", "£60", "£75", "£90"],
        subject=["Name change", "Wrong name on ticket!", "Name correction {ref}", "spelling mistake on booking"],
        category="Changes to my booking",
        story=["I've just realised I booked my wife's ticket under her maiden name, {tpfull}, but her passport is in her married name now.",
               "When I booked, my phone autocorrected my surname to {wrongname}.",
               "My friend {tpfull} can't come to {dest} with me any more and I'd like to put my brother {tp3} on the booking instead. His passport number is {passport3}.",
               "The booking ({ref}) has my first name spelt {wrongfirst} instead of {first}.",
               "The ticket says {pnrname} but I go by my middle name on my passport (passport no. {passport})."],
        ask=["How much does it cost to change the name?", "Is there a fee to correct the spelling?",
             "What is the charge to change the passenger name?", "can this be fixed and how much"],
        misq=["I was told there's a {mq} charge for this, which seems a lot for one letter.",
              "The last time I did this it cost {mq}."],
        state=["Name changes and corrections cost {f} per passenger, per flight.",
               "We can make the change for a fee of {f} per name for each flight.",
               "There's an admin fee of {f} per passenger for each flight; once it's paid we'll send a new confirmation.",
               "The name change fee is {f}, and I can take payment over the phone if you call us on {crphone}."],
        fix=["The name change fee is {f} per passenger per flight rather than {mq}."],
        nostate=["To make the change I'll need a copy of the photo page of the new passenger's passport. Could you send that in reply?"],
        extra=["Please make sure the name matches the passport exactly.",
               "Changes can be made up to three hours before departure."],
        past=False),
    dict(
        id="checkin_closing",
        more=["I don't want to risk missing the flight.", 'There was a huge queue last time.', "We'll have a lot of bags."],
        weight=24, fact="40 minutes",
        forms=["40 minutes", "forty minutes", "40 mins", "40 min"],
        questions=["When does check-in close at the airport?",
                   "How long before departure do I need to have checked in and dropped my bag?"],
        mq=["30 minutes", "an hour", "45 minutes", "one hour"],
        subject=["check in times", "Denied boarding - check-in closed", "What time does check-in close?"],
        category="At the airport",
        story=["We're flying out of {dep} on {fdate} at 6:10am with two kids and car seats.",
               "Last week I got to the desk for {flight} and was told check-in had closed, even though the flight didn't leave for ages.",
               "I'm travelling on {flight} ({ref}) with hold luggage and the airport is an hour from my house.",
               "Our train gets into {dep} at 10:50 and the flight is at 11:55."],
        ask=["What time does the check-in desk close?", "How long before the flight does bag drop close?",
             "When is the latest we can check in?"],
        misq=["I thought check-in closes {mq} before departure.",
              "The staff at the desk said {mq} but I've seen different times online."],
        state=["Check-in and bag drop close {f} before the scheduled departure time.",
               "Our desks at the airport close {f} before departure, and we can't accept passengers after that.",
               "You need to be checked in, with bags dropped, no later than {f} before the flight.",
               "Bag drop shuts {f} before departure, so please allow time for queues."],
        fix=["Check-in actually closes {f} before departure, not {mq}."],
        nostate=["Could you tell me which airport you're flying from? A few airports set their own times."],
        extra=["The gate closes 20 minutes before departure.", "Online check-in opens 30 days before you fly.",
               "If you've added Priority Plus, you can use the dedicated bag drop desk."],
        past=False),
    dict(
        id="delayed_bag_claim_deadline",
        more=["I've kept all the receipts.", "My old phone was in the case as well, IMEI {imei}.", "The airport desk gave me a form but it doesn't say much.", 'This has really spoiled the trip.'],
        weight=20, fact="21 days",
        forms=["21 days", "twenty-one days", "three weeks", "21 calendar days"],
        questions=["How long do I have to claim expenses for a delayed bag?",
                   "What is the deadline for a delayed luggage claim?"],
        mq=["7 days", "14 days", "a month", "28 days"],
        subject=["Delayed baggage claim", "Lost bag {bagref}", "My suitcase never arrived", "bag claim"],
        category="Baggage",
        story=["My suitcase didn't arrive in {dest} on {flight} ({fdate}). It turned up {days} days later and I had to buy clothes and toiletries in the meantime, about {amount}.",
               "Our bag went missing on the way back from {dest}. The report ref is {bagref} and the tracking link is {bagurl}.",
               "My case was finally delivered to {addr}, {postcode} five days after we got home, and it's damaged.",
               "I still don't have my bag. Inside were my clothes, my son's inhaler and an old phone (IMEI {imei})."],
        ask=["How long have I got to send in my claim and receipts?", "What's the deadline for claiming expenses?",
             "Is there a time limit on making a claim?"],
        misq=["The desk at the airport said I have {mq} to claim, is that right?",
              "I read somewhere there's a {mq} limit."],
        state=["For a delayed bag, claims must reach us within {f} of the date the bag was returned to you.",
               "You have {f} from getting your bag back to submit the claim and receipts.",
               "Please send the claim form and receipts within {f} of the bag being delivered."],
        fix=["The time limit for delayed baggage claims is {f} from delivery, rather than {mq}."],
        nostate=["I can't find a baggage report under that reference. Could you double-check the reference on the form the airport gave you?"],
        extra=["You can follow the bag at {bagurl_c}.", "Please keep the damaged case until the claim is settled."],
        past=True),
    dict(
        id="pet_in_cabin_weight",
        more=["She's very calm and used to her carrier.", "I'd rather not put her in the hold."],
        weight=16, fact="8 kg",
        forms=["8 kg", "8kg", "eight kilos", "eight kilograms", "8 kilograms"],
        questions=["What is the weight limit for a pet travelling in the cabin?",
                   "How heavy can my dog be, carrier included, to fly in the cabin with me?"],
        mq=["5kg", "10 kg", "6 kilos", "12kg"],
        subject=["Flying with my dog", "Pet in cabin", "Cat on flight to {dest}"],
        category="Travelling with pets",
        story=["I'd like to bring my dog {pet} (a miniature dachshund) with me to {dest} on {fdate}.",
               "We're relocating to {dest} in {month} with our cat {pet}.",
               "Can my small dog travel with me in the cabin on {flight}? Booking {ref}."],
        ask=["What's the maximum weight for a pet in the cabin?", "How heavy can she be including the carrier?",
             "is there a weight limit for pets in cabin?"],
        misq=["The vet said airlines usually allow {mq}, is that the same with you?", "I read the limit is {mq}."],
        state=["Cats and small dogs can travel in the cabin as long as the animal and carrier together weigh no more than {f}.",
               "The combined weight of the pet and its bag must be under {f}.",
               "Pets in the cabin are allowed up to {f} including the carrier."],
        fix=["The limit is {f} including the carrier, rather than {mq}."],
        nostate=["Which route are you flying? Some countries don't allow pets in the cabin at all, so I'll need to check."],
        extra=["Pets must be booked at least 48 hours in advance, and there's space for two per flight."],
        past=False),
    dict(
        id="infant_fee",
        more=["It'll be her first flight.", 'We have a car seat and a buggy too.'],
        weight=13, fact="£30",
        forms=["£30", "GBP 30", "30 pounds", "thirty pounds", "£30.00"],
        questions=["How much does it cost to take a baby on my lap?", "What is the infant fee per flight?"],
        mq=["£25", "£35", "£15", "£20"],
        subject=["Adding a baby", "infant on lap", "Baby - {ref}"],
        category="Changes to my booking",
        story=["We're taking our baby {kid} (born {dobkid}) to {dest} to meet the grandparents.",
               "I booked flights for me and my partner but forgot to add our son {kid}, he'll be 11 months when we fly."],
        ask=["How much does it cost to add an infant?", "What's the fee for a baby on my lap?"],
        misq=["My friend said it's {mq} each way."],
        state=["Infants under two travel on an adult's lap for {f} per flight.",
               "Adding an infant costs {f} each way, which includes a baby bag and pushchair.",
               "The infant fee is {f} per flight."],
        fix=["The infant charge is {f} per flight rather than {mq}."],
        nostate=["Could you send your baby's full name and date of birth as they appear on the passport so I can add them?"],
        extra=["You can also take a pushchair and a car seat free of charge."],
        past=False),
    dict(
        id="liquids_limit",
        more=["I don't want them taken off me at security."],
        weight=10, fact="100ml",
        forms=["100ml", "100 ml", "100 millilitres", "one hundred millilitres"],
        questions=["How much liquid can I take in each container in my hand luggage?",
                   "What is the biggest bottle of liquid allowed in a cabin bag?"],
        mq=["50ml", "2 litres", "250 ml"],
        subject=["Liquids in hand luggage", "hand luggage only - toiletries"],
        category="Baggage",
        story=["I'm travelling hand luggage only to {dest} and need to take my contact lens solution and some perfume.",
               "My daughter has eczema and uses big tubes of cream, we fly on {fdate}."],
        ask=["What size liquids can I take in my cabin bag?", "How big can the bottles be?"],
        misq=["I thought the rule was {mq} now at most airports?"],
        state=["Liquids in hand luggage must be in containers of {f} or less, all in one clear bag.",
               "Each container can hold a maximum of {f}.", "Hand luggage liquids are limited to {f} per item."],
        fix=["At the airports we fly from the limit is still {f} per container, not {mq}."],
        nostate=["Medicines are treated differently. Do you have a prescription or a doctor's letter for the cream?"],
        extra=["Medicines and baby milk are exempt if you show them at security."],
        past=False),
    dict(
        id="unaccompanied_minimum_age",
        more=["She's very sensible and has flown lots with us."],
        weight=7, fact="16 years old",
        forms=["16 years old", "sixteen years old", "aged 16", "aged sixteen"],
        questions=["How old does a child have to be to fly alone?",
                   "What is the minimum age to travel without an adult?"],
        mq=["aged 14", "aged 12", "18"],
        subject=["Child travelling alone", "unaccompanied minor"],
        category="Travelling with children",
        story=["My daughter {kid} wants to visit her dad in {dest} this summer on her own.",
               "My nephew's parents want him to fly out to {dest} to join them in {month}."],
        ask=["How old does she need to be to fly without an adult?", "Is there a minimum age to travel alone?"],
        misq=["A friend said kids can fly alone from {mq} with you."],
        state=["Passengers must be at least {f} to travel without an adult.",
               "Young people {f} or over can fly with us on their own.",
               "We accept passengers travelling alone once they are {f}."],
        fix=["I'm afraid it isn't {mq}: passengers must be at least {f} to travel alone."],
        nostate=["Could you let me know how old your nephew will be on the date of travel?"],
        extra=["We don't offer an escort service for younger children."],
        past=False),
    dict(
        id="sports_equipment_fee",
        more=['The clubs are in a soft travel bag.'],
        weight=5, fact="£40",
        forms=["£40", "GBP 40", "40 pounds", "forty pounds", "£40.00"],
        questions=["How much does it cost to bring golf clubs or a bike?",
                   "What's the charge for sports equipment on a flight?"],
        mq=["£25", "£60", "£35"],
        subject=["Golf clubs", "bike box"],
        category="Baggage",
        story=["Heading to {dest} for a golf week with {tp} in {month}.",
               "I want to take my bike to {dest} for a cycling holiday on {fdate}."],
        ask=["How much is it to bring them?", "What's the charge for sports equipment?",
             "how much do you charge for sports bags?"],
        misq=["I paid {mq} last time."],
        state=["Sports equipment such as golf clubs, skis or a bike costs {f} per item, per flight.",
               "There's a charge of {f} each way for sports equipment.",
               "Golf bags and bikes can be added for {f} per flight."],
        fix=["The current price is {f} per item per flight, not {mq}."],
        nostate=["How much does the bike box weigh? Anything over 32 kg has to go as cargo."],
        extra=["Bikes must be boxed or in a padded bag with the pedals removed."],
        past=False),
]

# forms that only fit some sentences ("aged 16" reads badly after "at least")
FORM_FITS = {("unaccompanied_minimum_age", 0): [0, 1], ("unaccompanied_minimum_age", 1): [2, 3],
             ("unaccompanied_minimum_age", 2): [0, 1], ("unaccompanied_minimum_age", -1): [0, 1]}


def holds(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


ALL_FORMS = [f for t in TYPES for f in t["forms"]]
for _t in TYPES:  # a misquote is never any type's fact and never inside a form
    for _m in _t["mq"]:
        assert not any(holds(_m, f) or holds(f, _m) for f in ALL_FORMS), _m

# ----------------------------------------------------------------------------------------------- helpers


class P:
    """A personal string: recorded when a template actually writes it."""
    __slots__ = ("kind", "text")

    def __init__(self, kind: str, text: str):
        self.kind, self.text = kind, text


class Rec:
    def __init__(self):
        self.pii: list[dict] = []

    def add(self, kind: str, text: str) -> None:
        if not any(p["kind"] == kind and p["text"] == text for p in self.pii):
            self.pii.append({"kind": kind, "text": text})


class Fill(dict):
    def __init__(self, rec: Rec, vals: dict):
        super().__init__(vals)
        self.rec = rec

    def __getitem__(self, key):
        return self.emit(dict.__getitem__(self, key))

    def emit(self, v):
        if isinstance(v, P):
            self.rec.add(v.kind, v.text)
            return v.text
        if isinstance(v, tuple):
            return "".join(self.emit(x) for x in v)
        return v


MISSPELL = {"receive": "recieve", "definitely": "definately", "separate": "seperate", "until": "untill",
            "tomorrow": "tommorow", "because": "becuase", "which": "wich", "luggage": "lugage",
            "baggage": "bagage", "accommodation": "accomodation", "disappointed": "dissapointed",
            "necessary": "neccessary", "their": "there", "you're": "your", "compensation": "compensaton",
            "apparently": "apparantly", "believe": "beleive", "weight": "wieght", "immediately": "immediatly",
            "flight": "fligth", "please": "pls", "really": "realy", "through": "thru", "arrived": "arived",
            "suitcase": "suitacse", "wheelchair": "wheel chair", "assistance": "assistence",
            "travelling": "travling", "received": "recieved", "would": "woud", "the": "teh", "and": "adn"}
_WORD = re.compile(r"[A-Za-z']+")
_FIELD = re.compile(r"(\{[a-z0-9_]+\})")


def _typos(rng: random.Random, s: str, rate: float) -> str:
    if rate <= 0:
        return s

    def sub(m):
        w = m.group(0)
        low = w.lower()
        if w[0].isupper() and low not in ("please", "thanks", "the"):
            return w
        if low in MISSPELL and rng.random() < rate * 4:
            return MISSPELL[low]
        if len(w) < 5 or rng.random() >= rate:
            return w
        i = rng.randrange(1, len(w) - 1)
        op = rng.randrange(3)
        if op == 0:
            return w[:i] + w[i + 1] + w[i] + w[i + 2:]
        if op == 1:
            return w[:i] + w[i + 1:]
        return w[:i] + w[i] + w[i:]
    return _WORD.sub(sub, s)


class Style:
    def __init__(self, rng: random.Random):
        self.lower = rng.random() < 0.1
        self.typo = rng.choice([0, 0, 0, 0.01, 0.02, 0.03, 0.05, 0.08])
        self.noapos = rng.random() < 0.18
        self.formal = rng.random() < 0.35
        self.exclaim = rng.random() < 0.12


def scrawl(rng: random.Random, tpl: str, st: Style) -> str:
    """The customer's way of writing a template's prose (not its fields)."""
    out = []
    for part in _FIELD.split(tpl):
        if _FIELD.fullmatch(part):
            out.append(part)
            continue
        if st.lower:
            part = part.lower()
        if st.noapos:
            part = re.sub(r"(?<=\w)'(?=(t|s|m|re|ve|ll|d)\b)", "", part)
        part = _typos(rng, part, st.typo)
        if st.exclaim:
            part = part.replace("?", "??").replace(" ??", "??")
        out.append(part)
    return "".join(out)


def luhn_complete(digits: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return digits + str((10 - total % 10) % 10)


def iban_gb(rng: random.Random) -> str:
    bank = "".join(rng.choice("ABCDEFGHJKLMNPRSTUWXYZ") for _ in range(4))
    sort = "".join(rng.choice("0123456789") for _ in range(6))
    acc = "".join(rng.choice("0123456789") for _ in range(8))
    bban = bank + sort + acc
    num = "".join(str(int(c, 36)) for c in bban + "GB00")
    check = 98 - int(num) % 97
    raw = f"GB{check:02d}{bban}"
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))


def pick_form(rng, t, template_index, counter):
    forms = t["forms"]
    if t["id"] == "special_assistance_line":
        return forms[1] if counter % 4 == 1 else forms[0]
    fits = FORM_FITS.get((t["id"], template_index))
    if fits:
        return forms[rng.choice(fits)]
    # the fact's own wording is the commonest
    return forms[0] if rng.random() < 0.45 else rng.choice(forms)


def money(rng: random.Random) -> str:
    while True:
        cur = rng.choice(["£", "£", "£", "€", "$"])
        val = rng.choice([rng.randint(18, 640), rng.randint(18, 640) + rng.randint(1, 99) / 100])
        s = f"{cur}{val:.2f}" if isinstance(val, float) else f"{cur}{val}"
        if rng.random() < 0.15 and cur == "£":
            s = f"{s[1:]} pounds" if "." not in s else s
        if not any(holds(s, f) or holds(f, s) for f in ALL_FORMS):
            return s


# ----------------------------------------------------------------------------------------------- people


def _postcode_uk(rng, area):
    d = rng.randint(1, 28) if len(area) == 1 else rng.randint(1, 20)
    tail = f"{rng.randint(1, 9)}{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}"
    return f"{area}{d} {tail}"


def make_person(rng: random.Random, pid: str) -> dict:
    origin = rng.choices(["uk", "us", "ie"], [82, 10, 8])[0]
    sex = rng.choice("FM")
    group = pick_group(rng, origin == "us")
    first, last = name_in(rng, group, sex)
    if rng.random() < 0.05:
        last = f"{last}-{rng.choice(SURNAMES)}".replace(" ", "")
    title = rng.choice(["Mrs", "Ms", "Miss", "Mrs", "Ms"]) if sex == "F" else "Mr"
    if rng.random() < 0.05:
        title = rng.choice(["Dr", "Mx"])
    ascii_first = re.sub(r"[^a-z-]", "", first.lower().translate(str.maketrans("áéíóúüłśńçėūıàè", "aeiouulsnceuiae")))
    ascii_last = re.sub(r"[^a-z]", "", last.lower().translate(str.maketrans("áéíóúüłśńçėūıàè", "aeiouulsnceuiae")))
    yy = rng.randint(40, 99) if rng.random() < 0.8 else rng.randint(0, 6)
    dob = datetime(1900 + yy if yy > 9 else 2000 + yy, rng.randint(1, 12), rng.randint(1, 28))
    dom = rng.choice(["example.com", "example.com", "example.net", "example.org"])
    email = rng.choice([f"{ascii_first}.{ascii_last}@{dom}", f"{ascii_first}{ascii_last}{yy:02d}@{dom}",
                        f"{ascii_first[0]}.{ascii_last}@{dom}", f"{ascii_last}{ascii_first[0]}@{dom}",
                        f"{ascii_first}_{ascii_last}{rng.randint(1, 999)}@{dom}", f"the{ascii_last}s@{dom}",
                        f"{ascii_first}{rng.randint(1, 99)}@{dom}"])
    if origin == "us":
        area = rng.choice(["212", "415", "503", "617", "312", "512", "720", "919"])
        phone = f"({area}) 555-01{rng.randint(0, 99):02d}"
        city, state, z = rng.choice(US_PLACES)
        addr = f"{rng.randint(10, 9899)} {rng.choice(US_STREETS)}"
        if rng.random() < 0.3:
            addr += f", Apt {rng.randint(1, 12)}{rng.choice('ABCD')}"
        town, postcode = f"{city}, {state}", f"{z}{rng.randint(0, 99):02d}"
    else:
        if rng.random() < 0.78:
            phone = f"07700 900{rng.randint(0, 999):03d}"
        else:
            phone = rng.choice([f"020 7946 0{rng.randint(0, 999):03d}", f"0161 496 0{rng.randint(0, 999):03d}",
                                f"0113 496 0{rng.randint(0, 999):03d}", f"0131 496 0{rng.randint(0, 999):03d}"])
        num = rng.randint(1, 240)
        r = rng.random()
        if r < 0.55:
            addr = f"{num} {rng.choice(UK_STREETS)} {rng.choice(ST_TYPES)}"
        elif r < 0.72:
            addr = f"{num} {rng.choice(NO_TYPE)}"
        elif r < 0.9:
            addr = f"Flat {rng.randint(1, 30)}, {num} {rng.choice(UK_STREETS)} {rng.choice(['Court', 'House', 'Road', 'Lodge'])}"
        else:
            addr = f"{num}{rng.choice('abc')} {rng.choice(UK_STREETS)} {rng.choice(ST_TYPES)}"
        if origin == "ie":
            town, pre = rng.choice(IE_PLACES)
            postcode = f"{pre} {rng.choice('ACDEFHKNPRTVWXY')}{rng.randint(1, 9)}{rng.choice('ACDEFHKNPRTVWXY')}{rng.randint(1, 9)}"
        else:
            town, area = rng.choice(UK_TOWNS)
            postcode = _postcode_uk(rng, area)
    card = luhn_complete(rng.choice(["4", "5"]) + "".join(rng.choice("0123456789") for _ in range(14)))
    handle = rng.choice([f"@{ascii_first}_{ascii_last[:4]}{yy:02d}", f"@{ascii_first}{ascii_last}",
                         f"@{ascii_last}{rng.randint(1, 99)}", f"@the_real_{ascii_first}"])
    return dict(pid=pid, group=group, first=first, last=last, title=title, sex=sex, origin=origin, email=email, phone=phone,
                addr=addr, town=town, postcode=postcode, dob=dob, card=card, handle=handle,
                passport=("".join(rng.choice("0123456789") for _ in range(9)) if origin != "us"
                          else rng.choice("ACEH") + "".join(rng.choice("0123456789") for _ in range(8))),
                club=f"{rng.randint(10, 99)}{rng.randint(0, 999999):06d}" if rng.random() < 0.45 else None,
                ni=f"{rng.choice('ABCEHJKLMNPRSTWXYZ')}{rng.choice('ABCEHJKLMNPRSTWXYZ')}{rng.randint(0, 999999):06d}{rng.choice('ABCD')}",
                style=Style(rng), records=0)


def phone_as_written(rng, p):
    c = p["phone"]
    if c.startswith("("):
        area, rest = c[1:4], c[6:]
        return rng.choice([c, f"{area}-{rest}", f"+1 {area} {rest.replace('-', ' ')}", f"{area}.{rest.replace('-', '.')}"])
    digits = c.replace(" ", "")
    if digits.startswith("07"):
        return rng.choice([c, c, digits, f"{digits[:5]} {digits[5:8]} {digits[8:]}", f"+44 {digits[1:5]} {digits[5:]}",
                           f"+44 (0){digits[1:5]} {digits[5:]}", f"+44{digits[1:]}", f"{digits[:5]}-{digits[5:]}"])
    return rng.choice([c, c, digits, f"+44 {c[1:]}", f"({c.split(' ')[0]}) {' '.join(c.split(' ')[1:])}"])


def dob_as_written(rng, d, us=False):
    m = MONTHS[d.month - 1]
    suffix = "th" if 11 <= d.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
    if us:
        return rng.choice([f"{d.month:02d}/{d.day:02d}/{d.year}", f"{m} {d.day}, {d.year}"])
    return rng.choice([f"{d.day:02d}/{d.month:02d}/{d.year}", f"{d.day}/{d.month}/{d.year % 100:02d}",
                       f"{d.day}{suffix} {m} {d.year}", f"{d.day:02d}.{d.month:02d}.{d.year}",
                       f"{d.day} {m[:3]} {d.year}", f"{d.year}-{d.month:02d}-{d.day:02d}"])


def fdate_as_written(rng, d):
    m = MONTHS[d.month - 1]
    suffix = "th" if 11 <= d.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
    return rng.choice([f"{d.day} {m}", f"{d.day:02d}/{d.month:02d}", f"{d.strftime('%A')} {d.day}{suffix} {m}",
                       f"the {d.day}{suffix}", f"{d.day} {m[:3]} {d.year}", f"{d.day}.{d.month:02d}.{d.year % 100}",
                       f"{d.day}{suffix} {m[:3]}"])


def ascii_surname(last):
    return re.sub(r"[^A-Za-z]", "", last.translate(str.maketrans("áéíóúüłśńçėūıàèÓÁŚŁ", "aeiouulsnceuiaeOASL")))


def booking_ref(rng):
    return "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))


def plate(rng):
    L = "ABCDEFGHJKLMNOPRSTUVWXY"
    s = f"{rng.choice(L)}{rng.choice(L)}{rng.choice(['15', '16', '17', '18', '19', '20', '21', '22', '23', '65', '66', '67', '68', '69', '70', '71', '72', '73'])} {''.join(rng.choice(L) for _ in range(3))}"
    return rng.choice([s, s, s.replace(" ", ""), s.lower()])


def imei(rng):
    raw = luhn_complete(rng.choice(["35", "86", "01"]) + "".join(rng.choice("0123456789") for _ in range(12)))
    return rng.choice([raw, f"{raw[:2]} {raw[2:8]} {raw[8:14]} {raw[14]}", f"{raw[:8]}-{raw[8:14]}-{raw[14]}"])


def new_name(rng, sex=None, group=None):
    sex = sex or rng.choice("FM")
    return name_in(rng, group or pick_group(rng), sex)


# ------------------------------------------------------------------------------------------------ records


def context(rng, t, p, when, mq, agent):
    """Every value a template may write; personal ones as P, recorded only if written."""
    st = p["style"]
    low = (lambda s: s.lower()) if st.lower else (lambda s: s)
    first, last = p["first"], p["last"]
    ref = booking_ref(rng)
    fd = when + timedelta(days=-rng.randint(2, 45) if t["past"] else rng.randint(4, 120))
    dep, dest = rng.choice(DEPS), rng.choice(DESTS)
    flight = rng.choice([f"HA{rng.randint(100, 2999)}", f"HA {rng.randint(100, 2999)}"])
    if st.lower:
        flight = flight.lower()
    h1 = rng.randint(6, 19)
    hours = rng.randint(3, 9)
    g = rng.choice("FM")
    tf, tl = new_name(rng, g, p["group"] if rng.random() < 0.7 else None)
    rel = rng.choice(["wife", "partner", "friend", "mum", "sister"] if g == "F" else
                     ["husband", "partner", "friend", "dad", "brother"])
    tp_name = tf if rel in ("wife", "husband", "partner", "mum", "dad") or rng.random() < 0.5 else f"{tf} {tl}"
    kf, _ = new_name(rng, None, p["group"])
    kid_age = rng.randint(3, 15)
    kd = when - timedelta(days=rng.randint(60, 600))
    caseref = f"CR-{rng.randint(1000000, 9999999)}"
    bagref = f"{rng.choice(['MAN', 'LGW', 'BRS', 'EDI', 'BHX', 'GLA'])}HA{rng.randint(10000, 99999)}"
    card = p["card"]
    card_w = rng.choice([card[-4:], card[-4:], f"*{card[-4:]}", card[-4:]])
    card_full = rng.choice([f"**** **** **** {card[-4:]}", f"xxxx-xxxx-xxxx-{card[-4:]}",
                            " ".join(card[i:i + 4] for i in range(0, 16, 4)), card])
    sort = f"{rng.randint(10, 99)}-{rng.randint(10, 99)}-{rng.randint(10, 99)}"
    acc = f"{rng.randint(10000000, 99999999)}"
    iban_v = rng.choice([(P("iban", iban_gb(rng)),), ("sort code ", P("iban", sort), ", acc no ", P("iban", acc))])
    wrong_last = last[:-1] + (last[-1] * 2 if last[-1].isalpha() else "") if len(last) > 3 else last + "e"
    pnr = f"{last.upper()}/{first.upper()} {p['title'].upper()}"
    ref_w = rng.choice([ref, ref, ref.lower(), f"{ref[:3]} {ref[3:]}"]) if not st.lower else ref.lower()
    addr_w = low(p["addr"])
    pc = p["postcode"]
    pc_w = rng.choice([pc, pc, pc.lower(), pc.replace(" ", "")]) if p["origin"] != "us" else pc
    return {
        "name": P("person_name", low(f"{first} {last}")), "first": P("person_name", low(first)),
        "first_c": P("person_name", first), "name_c": P("person_name", f"{first} {last}"),
        "first_lower": P("person_name", first.lower()), "title_c": P("person_name", f"{p['title']} {last}"),
        "manage_url": P("url_with_id", f"https://{SITE}/manage?pnr={ref}&surname={ascii_surname(last)}"),
        "title_last": P("person_name", f"{p['title']} {last}"), "pnrname": P("person_name", pnr),
        "wrongname": P("person_name", wrong_last), "wrongfirst": P("person_name", low(first[:-1] if len(first) > 3 else first + "h")),
        "ref": P("account_number", ref_w), "ref_c": P("account_number", ref),
        "club": P("account_number", p["club"] or ""),
        "flight": flight, "dep": dep, "dest": dest, "fdate": fdate_as_written(rng, fd),
        "month": MONTHS[fd.month - 1], "t1": f"{h1}:{rng.choice(['05', '15', '20', '35', '50'])}",
        "t2": f"{(h1 + hours) % 24}:{rng.choice(['10', '25', '40', '55'])}", "hours": str(hours),
        "days": str(rng.randint(2, 9)),
        "tp": (f"my {rel} ", P("third_party_name", low(tp_name))),
        "tp2": P("third_party_name", low(new_name(rng, "M", p["group"])[0])),
        "tpfull": P("third_party_name", low(" ".join(new_name(rng, "F", p["group"] if rng.random() < 0.7 else None)))),
        "tp3": P("third_party_name", low(f"{new_name(rng, 'M', p['group'])[0]} {last}")),
        "kid": (P("third_party_name", low(kf)), f" ({kid_age})" if rng.random() < 0.4 else ""),
        "dobkid": P("date_of_birth", dob_as_written(rng, kd, p["origin"] == "us")),
        "dob3": P("date_of_birth", dob_as_written(rng, datetime(rng.randint(1931, 1950), rng.randint(1, 12), rng.randint(1, 28)))),
        "fare": rng.choice(FARES), "amount": money(rng), "plate": P("licence_plate", plate(rng)),
        "staff": P("third_party_name", rng.choice(STAFF)),
        "caseref": P("account_number", caseref if rng.random() < 0.7 else caseref.replace("CR-", "")),
        "caseref_c": P("account_number", caseref),
        "bagref": P("account_number", bagref),
        "bagurl": P("url_with_id", f"https://bags.halcyonair.example.com/track/{bagref}"),
        "bagurl_c": P("url_with_id", f"https://bags.halcyonair.example.com/track/{bagref}"),
        "imei": P("imei", imei(rng)), "addr": P("address", addr_w), "postcode": P("postcode", pc_w),
        "passport": P("other_id", p["passport"]),
        "passport3": P("other_id", "".join(rng.choice("0123456789") for _ in range(9))),
        "ni": P("national_id", rng.choice([p["ni"], f"{p['ni'][:2]} {p['ni'][2:4]} {p['ni'][4:6]} {p['ni'][6:8]} {p['ni'][8]}", p["ni"].lower()])),
        "iban": iban_v, "card": P("card_number", card_w), "card_full": P("card_number", card_full),
        "dob": P("date_of_birth", dob_as_written(rng, p["dob"], p["origin"] == "us")), "card_c": P("card_number", card[-4:]),
        "phone": P("phone", phone_as_written(rng, p)), "email": P("email", p["email"]),
        "pet": rng.choice(PETS), "mq": mq or "", "crphone": CR_PHONE, "site": SITE,
        "agent": P("agent_name", agent[0]),
    }


GREET = ["Hi,", "Hello,", "Dear Sir/Madam,", "Hi there,", "Good morning,", "To whom it may concern,", "Hello Halcyon Air,",
         "Hi team,", "", "Dear Customer Relations,"]
CLOSE = ["Thanks", "Thanks in advance", "Many thanks", "Look forward to hearing from you.", "Regards", "Cheers",
         "Kind regards", "Thank you for your help", "Hope you can help", "Awaiting your reply", "thanks",
         "Best wishes"]
OPENERS_C = ["", "", "", "I hope you can help.", "Me again!", "I'm writing to ask about something before we travel.",
             "Sorry if this is the wrong place to ask.", "First time writing in so bear with me.",
             "I have tried to call but the wait time is over an hour."]
DETAILS = ["Booking ref is {ref}.", "My booking reference is {ref}.", "(ref {ref})", "Booking: {ref}, flight {flight}.",
           "The booking is under {pnrname}, ref {ref}.", "Skyward Club no. {club}, booking {ref}.",
           "I booked with the card ending {card}.", "Here is the link to my booking: {manage_url}",
           "Booking {ref} (I'm in the Skyward Club, membership {club}).", "Card used to pay: {card_full}.",
           "Lead passenger is me, DOB {dob}, booking ref {ref}.", "My Skyward number is {club} if that helps.",
           "We're on {fare} tickets, ref {ref}.", "I booked it as a package through Halcyon Holidays, ref {ref}."]
CONTACT = ["You can call me on {phone}.", "Best number is {phone}, I'm usually free after 5.", "My mobile: {phone}",
           "Please send anything in writing to {addr}, {postcode}.", "Please reply to this email, or ring {phone}.",
           "My address is {addr}, {postcode} if you need it.", "Tel {phone}"]
R_OPEN = ["Thank you for contacting Halcyon Air.", "Thanks for getting in touch.",
          "Thank you for your email about booking {ref_c}.", "I'm sorry for the delay in replying.",
          "Thanks for your message.", "Many thanks for taking the time to write to us.",
          "I've now had a chance to look at booking {ref_c}.", "Thank you for your patience while I looked into this.",
          "I'm sorry to hear about the trouble you've had."]
R_CLOSE = ["If you need anything else, just reply to this email.", "You can also manage your booking at {site}.",
           "Our Customer Relations team is on {crphone}, Monday to Saturday.", "Have a lovely trip.",
           "Thanks again for flying with us.", "", "", "Full details are on our website, {site}."]


R_OPEN_CHAT = ["Thanks for waiting.", "Sorry to hear that!", "Happy to help with that.", "Let me check that for you.",
               "Thanks, I've found your booking.", "", "Thanks for the details.", "Bear with me one moment."]
R_CLOSE_CHAT = ["Is there anything else I can help with?", "Anything else I can do for you today?", "", "Hope that helps!"]
R_OPEN_SOCIAL = ["thanks for reaching out.", "thanks for your message.", "happy to help!",
                 "thanks for getting in touch with us here."]
R_CLOSE_SOCIAL = ["", "", "Any other questions, just drop us a DM.", "Have a great trip!"]


def agent_sign(rng, agent):
    first, last = agent
    kind = rng.random()
    if kind < 0.4:
        return P("agent_name", first)
    if kind < 0.65:
        return P("agent_name", f"{first} {last[0]}.")
    if kind < 0.9:
        return P("agent_name", f"{first} {last}")
    return P("agent_name", f"Agent {last}")


def fits_story(ask, story):
    """A question that refers to a child or to 'she' only follows a story that has one."""
    if re.search(r"\bchild\b", ask) and "{kid}" not in story:
        return False
    if re.search(r"\b(she|her)\b", ask, re.I) and not re.search(r"daughter|mother|wife|dog|cat|She\b|\bher\b", story):
        return False
    return True


def build(rng, t, p, when, agent, mq, stated, nth, fmt):
    rec = Rec()
    st = p["style"]
    ctx = context(rng, t, p, when, mq, agent)
    fill = Fill(rec, ctx)

    def cust(tpl):
        return scrawl(rng, tpl, st).format_map(fill)

    def agentw(tpl):
        return tpl.format_map(fill)

    # ---- the customer's side
    age = (when - p["dob"]).days // 365
    parent = re.compile(r"\{kid\}|\bmy son\b|\bour son\b|\bbaby\b|\bkids\b|\bnephew\b|\bmy daughter\b")
    stories = [x for x in t["story"] if 25 <= age <= 62 or not parent.search(x)] or t["story"]
    sents = [rng.choice(OPENERS_C) if fmt in ("email", "form") else "", rng.choice(stories)]
    if p["records"] > 1 and rng.random() < 0.4:
        sents[0] = rng.choice(["I've been in touch before about another booking.", "Me again, different trip this time.",
                               "You helped me with something else a while ago."])
    more = [m for m in t["more"] if fits_story(m, sents[1])]
    if more and rng.random() < 0.45:
        sents.append(rng.choice(more))
    if rng.random() < 0.45:
        sents.append(rng.choice([d for d in DETAILS if (p["club"] or "{club}" not in d)
                                 and ("{ref}" not in d or "{ref}" not in sents[1])]))
    asks = [a for a in t["ask"] if fits_story(a, sents[1])] or t["ask"]
    if mq:
        sents.append(rng.choice(t["misq"]))
        if rng.random() < 0.5:
            sents.append(rng.choice(asks))
    else:
        sents.append(rng.choice(asks))
    if rng.random() < 0.4:
        sents.append(rng.choice(CONTACT if fmt in ("email", "form") else
                                [c for c in CONTACT if "{addr}" not in c and "email" not in c]))
    body = " ".join(cust(s) for s in sents if s)
    if fmt != "form" and "{ref}" not in " ".join(sents) and rng.random() < 0.3:
        body += " " + cust(rng.choice(DETAILS[:3]))

    # ---- the agent's side
    ti = -1
    if mq:
        ti = rng.randrange(len(t["fix"]))
        core = t["fix"][ti]
    elif stated:
        ti = rng.randrange(len(t["state"]))
        core = t["state"][ti]
    else:
        core = rng.choice(t["nostate"])
    f = pick_form(rng, t, ti if not mq else -1, nth)
    fill["f"] = f
    ro, rc = {"chat": (R_OPEN_CHAT, R_CLOSE_CHAT), "social": (R_OPEN_SOCIAL, R_CLOSE_SOCIAL)}.get(fmt, (R_OPEN, R_CLOSE))
    parts = [rng.choice(ro), agentw(core)]
    if rng.random() < 0.55:
        parts.append(rng.choice(t["extra"]))
    parts.append(rng.choice(rc))
    reply = " ".join(agentw(x) for x in parts if x)
    return rec, fill, body, reply


def render(rng, fmt, rec, fill, p, t, body, reply, when, agent):
    st = p["style"]
    fill["asign"] = agent_sign(rng, agent)
    fill["afirst"] = P("agent_name", agent[0])
    if p["club"]:
        fill["club_c"] = P("account_number", p["club"])
    fill["handle"] = P("other_id", p["handle"])
    def salutation():
        return rng.choice(["Dear {title_c},", "Dear {first_c},", "Hi {first_c},", "Hello {first_c},", "Hello,",
                           "Dear {name_c},"]).format_map(fill)
    if fmt == "email":
        sal = salutation()
        sig = rng.choice(["{first}", "{name}", "{name}", "{name}\n{phone}", "{title_last}", "{first_lower}"]).format_map(fill)
        tail = rng.choice(["", "", "", "\n\nSent from my iPhone", "\n\nSent from Outlook for Android"])
        subj = scrawl(rng, rng.choice(t["subject"]), st).format_map(fill)
        cust = f"{scrawl(rng, rng.choice(GREET), st)}\n\n{body}\n\n{scrawl(rng, rng.choice(CLOSE), st)}\n{sig}{tail}".strip()
        signoff = rng.choice(["Kind regards,\n{asign}\nCustomer Relations, " + COMPANY, "Best wishes,\n{asign}",
                              "Kind regards,\n{asign}\n" + COMPANY + " Customer Relations\nFlights | Halcyon Holidays | Skyward Club | Priority Plus",
                              "Regards,\n{asign} | " + COMPANY + " Customer Relations",
                              "Many thanks,\n{asign}\n" + COMPANY]).format_map(fill)
        rep = f"{sal}\n\n{reply}\n\n{signoff}"
        stamp = when.strftime("%d %b %Y %H:%M")
        if rng.random() < 0.5:
            quoted = "\n".join("> " + line if line else ">" for line in cust.split("\n"))
            return (f"Subject: RE: {subj}\nFrom: {COMPANY} Customer Relations <{CR_EMAIL}>\n\n{rep}\n\n"
                    + f"On {stamp}, " + "{name_c} <{email}> wrote:\n".format_map(fill) + quoted)
        return ("From: {name_c} <{email}>\nTo: ".format_map(fill) + f"{CR_EMAIL}\nDate: {stamp}\nSubject: {subj}\n\n"
                f"{cust}\n\n---------- Reply ----------\n{rep}")
    if fmt == "form":
        sal = salutation()
        rows = ["Enquiry type: " + t["category"], "Booking reference: {ref_c}",
                "Lead passenger: " + rng.choice(["{name_c}", "{pnrname}"]), "Email: {email}"]
        if rng.random() < 0.6:
            rows.append("Contact number: {phone}")
        if rng.random() < 0.3 and p["club"]:
            rows.append("Skyward Club number: {club_c}")
        head = "Web enquiry {caseref_c} | submitted " + when.strftime("%d/%m/%Y %H:%M")
        reply_when = (when + timedelta(hours=rng.randint(3, 70))).strftime("%d/%m/%Y")
        return ("\n".join([head] + rows).format_map(fill) + f"\nMessage: {body}\n\n"
                + f"Response ({reply_when}, " + "{asign}):\n".format_map(fill) + f"{sal}\n{reply}")
    if fmt == "chat":
        who = rng.choice(["{first_c}", "Visitor", "Customer"]).format_map(fill)
        agent_first = fill["afirst"]
        tm = when
        lines = [f"Live chat {when.strftime('%d/%m/%Y')}",
                 f"[{tm:%H:%M}] {COMPANY}: You're chatting with {agent_first}. How can I help?"]
        chunks = re.split(r"(?<=[.?!])\s+", body)
        k = max(1, len(chunks) // 2)
        for c in [" ".join(chunks[:k]), " ".join(chunks[k:])]:
            if c:
                tm += timedelta(seconds=rng.randint(20, 90))
                lines.append(f"[{tm:%H:%M}] {who}: {c}")
        tm += timedelta(seconds=rng.randint(60, 240))
        lines.append(f"[{tm:%H:%M}] {agent_first}: {reply}")
        tm += timedelta(seconds=rng.randint(30, 120))
        bye = rng.choice(['ok thanks', 'Thank you!', 'great, thanks for your help', 'ok', 'Brilliant thanks', 'right ok'])
        lines.append(f"[{tm:%H:%M}] {who}: {scrawl(rng, bye, st)}")
        return "\n".join(lines)
    # social direct message
    net = rng.choice(["X DM", "Instagram DM", "Facebook Messenger"])
    short = rng.choice(["^{asign}", "- {asign}", "Thanks, {asign}"]).format_map(fill)
    return (f"{net} from " + "{handle}".format_map(fill) + f" ({when.strftime('%d.%m.%y %H:%M')})\n{body}\n\n"
            + f"{COMPANY}: " + "Hi {first_c}, ".format_map(fill) + f"{reply} {short}")


def _counts(n):
    w = [t["weight"] for t in TYPES]
    raw = [n * x / sum(w) for x in w]
    c = [max(1, int(r)) for r in raw]
    order = sorted(range(len(w)), key=lambda i: raw[i] - int(raw[i]), reverse=True)
    i = 0
    while sum(c) < n:
        c[order[i % len(order)]] += 1
        i += 1
    while sum(c) > n:
        j = max(range(len(c)), key=lambda k: c[k])
        c[j] -= 1
    return c


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    rng = random.Random(seed * 1_000_003 + n * 7 + 11)
    counts = _counts(n)
    seq = [t for t, c in zip(TYPES, counts) for _ in range(c)]
    rng.shuffle(seq)
    persons: list[dict] = []
    records, pii_rows = [], []
    stats = {t["id"]: {"stated": 0, "mq": 0, "nth": 0} for t in TYPES}
    when = datetime(2024, 1, 2, 8, 30) + timedelta(days=rng.randint(0, 300))
    case_no = rng.randint(210000, 260000)
    # which records carry a customer's wrong figure and which replies leave the fact out: about 10% and 6%
    plan = {}
    for t, c in zip(TYPES, counts):
        k_mq, k_no = round(c * 0.1), round(c * 0.06)
        flags = ["mq"] * k_mq + ["no"] * k_no + ["ok"] * (c - k_mq - k_no)
        rng.shuffle(flags)
        plan[t["id"]] = flags
    for t in seq:
        flag = plan[t["id"]].pop()
        when += timedelta(minutes=rng.randint(25, 900))
        if when.hour < 6:
            when = when.replace(hour=rng.randint(6, 9))
        case_no += rng.randint(1, 40)
        live = [q for q in persons if q["records"] < 3]
        if live and rng.random() < 0.24:
            p = rng.choice(live[-40:])
        else:
            p = make_person(rng, f"pax-{len(persons) + 1:05d}")
            persons.append(p)
        p["records"] += 1
        agent = rng.choice(AGENTS)
        s = stats[t["id"]]
        for _attempt in range(40):
            mq = rng.choice(t["mq"]) if flag == "mq" else None
            stated = flag != "no"
            fmt = rng.choices(["email", "form", "chat", "social"], [38, 27, 20, 15])[0]
            rec, fill, body, reply = build(rng, t, p, when, agent, mq, stated, s["nth"], fmt)
            text = render(rng, fmt, rec, fill, p, t, body, reply, when, agent)
            if 50 <= len(text.split()) <= 250:
                break
        s["nth"] += 1
        ok_state = any(holds(reply, f) for f in t["forms"])
        assert ok_state == stated, (t["id"], reply)
        s["stated"] += ok_state
        s["mq"] += bool(mq)
        rid = f"HCR-{case_no}"
        records.append({"id": rid, "text": text, "person_id": p["pid"], "type": t["id"],
                        "customer_name": f"{p['first']} {p['last']}", "email": p["email"], "phone": p["phone"],
                        "booking_ref": fill.get("ref_c").text})
        assert all(x["text"] and x["text"] in text for x in rec.pii), (rec.pii, text)
        pii_rows.append({"id": rid, "pii": rec.pii})
    types = [{"id": t["id"], "records": c, "fact": t["fact"], "forms": list(t["forms"]),
              "stated_by": stats[t["id"]]["stated"], "misquoted_by": stats[t["id"]]["mq"]}
             for t, c in zip(TYPES, counts)]
    questions = [{"question": q, "answers": list(t["forms"]), "type": t["id"], "support": c}
                 for t, c in zip(TYPES, counts) for q in t["questions"]]
    public = {"company": COMPANY, "public_strings": list(PUBLIC_STRINGS), "product_names": list(PRODUCTS),
              "identifier_fields": ["customer_name", "email", "phone", "booking_ref"],
              "id_field": "id", "text_field": "text", "unit_field": "person_id"}
    return {"domain": DOMAIN, "records": records, "pii": pii_rows, "types": types, "questions": questions,
            "public": public}
