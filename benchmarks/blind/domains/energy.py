"""Blind own-data domain ``energy``: the customer-service export of a made-up gas and electricity supplier.

Each record is one enquiry (an e-mail thread with the reply on top, a web-form submission, a ticket note or
a scanned letter) and the supplier's answer.  Standard library only; ``generate(seed, n)`` is deterministic.
"""

from __future__ import annotations

import random
import re

COMPANY = "Ashgrove Energy"
WEB = "www.ashgrove.example.com"
READINGS = "www.ashgrove.example.com/readings"
MAIL = "help@ashgrove.example.com"
LINE = "0306 999 0147"
EMERGENCY = "0808 157 0389"

PRODUCTS = ["Ashgrove Fixed Saver", "Ashgrove Flex", "Ashgrove Green Fix", "Ashgrove EV Nights", "SmartPay",
            "Ashgrove Online Fix", "Ashgrove Standard Variable", "My Ashgrove", "Ashgrove HomeCare"]
TARIFFS = PRODUCTS[:3] + PRODUCTS[5:7]
FOOTERS = ["Ashgrove HomeCare: boiler and heating cover from Ashgrove Energy.", "Manage your account on the go with the My Ashgrove app.",
           "Fixed prices for longer: ask us about Ashgrove Green Fix.", "Going paperless? Switch to e-bills in My Ashgrove."]
RIVALS = ["Northway Energy", "Fenlow Power", "Corrin Gas & Electric", "Tidemark Energy", "Halden Power", "Oakridge Utilities"]

# --------------------------------------------------------------------------------------------------- names
# (weight, female given names, male given names, surnames): most people's names come from one group,
# some marry or mix across groups.
NAME_GROUPS = {
    "english": (38, """Margaret Sandra Susan Julie Karen Tracey Lisa Claire Emma Sophie Chloe Lauren Hannah Jessica Megan
        Amy Charlotte Olivia Amelia Poppy Freya Eleanor Beth Gemma Nicola Joanne Lesley Pauline Brenda Doreen Maureen
        Rose Hope May Grace Faith Joy Sue Carol Iris Daisy Ivy Hazel Holly Heather Dawn Penny Olive Amber Ruby Pearl
        Summer Autumn Jean Joan Valerie Wendy Yvonne Violet Marigold Jasmine Angel Robin Kay Gail Lily April""",
                """Oliver Harry George Jack Charlie Thomas James William Daniel Matthew Luke Ryan Liam Jamie Stephen Gary
        Paul Darren Kevin Neil Stuart Graham Keith Trevor Derek Colin Nigel Barry Dennis Alan Brian Mark Will Bill
        Frank Pat Robin Victor Ray Rich Don Guy Art Chase Hunter Miles Sterling Clive Roger Norman Reginald Cyril
        Geoffrey Malcolm Rowan Basil Nathaniel Dean Lee Carl Wayne Shane Terry""",
                """Green Brown White Black Rose Hope May Field Church King Bird Fox Wood Hill Marsh Stone Bell Lamb
        Fisher Baker Cook Mason Young Long Little Moon Swan Dove Hunter Sharp Gold Bush Lane Ford Day Winter Frost Snow
        Rice Pope Bishop Knight Noble Strong Sweet Best Page Banks Cross Hart Salt Pound Love Reed Wells Crane House
        Mills Brook Waters Rivers Heath Park Gray Hale Booth Farmer Potter Miller Turner Walker Carter Cooper Parker
        Taylor Smith Wright Butler Archer Gardner Chambers Fairweather Goodman Goodchild Hood Lord Marshall Cole
        Thompson Robinson Wilson Clarke Jackson Harris Martin Anderson Scott Mitchell Phillips Watson Morris Bailey
        Ward Cox Richardson Howard Brooks Bennett Ellis Reynolds Fletcher Dixon Holmes Barker Ashworth Whitfield
        Sparrow Finch Lark Wren Marchant Chaplin Palmer Pike Spear Tower Castle Temple Lake Bridge Street Wall Hedges
        Moss Ash Oak Birch Holly Berry Cherry Plum Sage Dear Friend Guest Rich Bond Cash Penny Money Nice Wise Gentle
        Light Bright Brave Free Fair Good Meadows Orchard Garden Summers Spring Hardy Cheeseman Bacon Savage"""),
    "celtic": (11, """Gwen Rhian Cerys Eilidh Mhairi Niamh Siobhan Aoife Roisin Catriona Ffion Nia Aisling Orla Dervla
        Anwen Morag Isla Kirsty Bronwen Sian Caitlin Fiona Shona""",
               """Dafydd Gareth Rhys Iwan Fraser Hamish Ewan Ciaran Declan Padraig Duncan Angus Seamus Brendan Eoin
        Cormac Huw Owain Aled Callum Ruaridh Lachlan Niall Sean Dylan Gethin""",
               """Jones Williams Davies Evans Thomas Roberts Hughes Lewis Edwards Morgan Griffiths Pritchard Llewellyn
        MacDonald McKenzie Campbell Fraser Robertson Murray O'Brien O'Connor Murphy Byrne Kelly Doyle Gallagher Quinn
        Sutherland Gilchrist Maguire Kavanagh Flanagan Rees Jenkins Vaughan Price Bevan Nolan Stewart Hamilton Graham
        MacLeod Mac an tSaoir Ó Súilleabháin Ni Bhriain"""),
    "south_asian": (13, """Priya Anjali Sunita Harpreet Gurpreet Manpreet Jaspreet Ayesha Fatima Zainab Nadia Shabana
        Tahmina Sabrina Kavya Meera Lakshmi Thilini Farida Hafsa Rukhsana Parveen Kiran Simran Deepa Nasreen""",
                    """Deepak Rajesh Imran Farhan Bilal Usman Rahim Arjun Nikhil Sanjay Nuwan Dilshan Anil Ravi Sunil
        Tariq Asif Zubair Kamal Amrit Harjit Mohammed Shahid Kiran Jasvir""",
                    """Patel Shah Mistry Chauhan Khan Hussain Ahmed Ali Begum Akhtar Rahman Chowdhury Uddin Iqbal Malik
        Singh Kaur Sandhu Gill Dhillon Sharma Gupta Nair Menon Perera Fernando Siddiqui Qureshi Bhatt Joshi Pillai
        Rajapaksa Sidhu Bains Miah"""),
    "african": (8, """Ngozi Adaeze Folake Ama Abena Efua Tendai Thandiwe Nomvula Amara Chiamaka Ifeoma Yetunde Hodan
        Faduma Temitope Funmilayo Nkechi Akosua Wanjiru Blessing Precious Patience Mercy Comfort Favour""",
                """Chinedu Oluwaseun Tunde Kwame Kofi Yaw Farai Sipho Emeka Bolaji Abdi Mohamed Segun Kwabena Themba
        Tafadzwa Olu Gift Wisdom Godwin Goodluck Innocent Samuel Emmanuel""",
                """Okafor Adeyemi Okonkwo Balogun Mensah Owusu Asante Boateng Moyo Ndlovu Dube Mwangi Otieno Abdi
        Warsame Farah Nwosu Eze Oyelaran Adebayo Osei Acheampong Achieng Oduya Chikwanha Mahlangu"""),
    "caribbean": (3, """Marcia Beverley Shereen Paulette Sonia Jacqueline Hyacinth Precious Grace""",
                  """Delroy Winston Errol Leroy Jermaine Clifton Desmond Marlon Linton""",
                  """Campbell Brown Williams Clarke Thomas Francis Grant Bailey Reid Gordon Morgan Richards Walters"""),
    "eastern_european": (8, """Kasia Agnieszka Magdalena Marta Ioana Elena Jurgita Rasa Ivana Petra Zuzana Olena Oksana
        Zofia Dorota Anca Simona Teodora""",
                         """Tomasz Piotr Krzysztof Andrei Mihai Vasile Tomas Dovydas Lukas Dmitri Bogdan Wojciech
        Marek Radu Florin Mindaugas Goran""",
                         """Nowak Mazur Kaczmarek Popescu Ionescu Dumitru Krawczyk Zając Novak
        Horvat Bondarenko Kovalenko Shevchenko Wójcik Balan Jankauskas Kowalczyk"""),
    "southern_european": (4, """Ines Beatriz Giulia Francesca Sofia Lucia Carmen Eleni Despina Rosa Dolores Aurelia""",
                          """Joao Rui Marco Alessandro Javier Pablo Nikos Giorgos Tiago Matteo Sergio Andreas Kostas""",
                          """Santos Pereira Ferreira Costa Rossi Russo Esposito Romano Garcia Martinez Lopez
        Papadopoulos Georgiou Sánchez Da Silva Moretti"""),
    "east_asian": (4, """Mei Yuki Ji-woo Seo-yeon Xiu Ying Aiko Hana Li Na""",
                   """Wei Jun Hiroshi Haruto Min-jun Hao Lei Kenji""",
                   """Chen Wang Li Zhang Liu Wong Cheung Tanaka Sato Kim Lee Choi Ho Lam"""),
    "southeast_asian": (3, """Linh Huong Maricel Rowena Hoa Mai Bich Joy""",
                        """Thanh Minh Jericho Arnel Duc Quang Dante""",
                        """Nguyen Tran Pham Le Reyes Cruz Bautista Santos Dela Cruz"""),
    "middle_eastern": (5, """Layla Mariam Noor Samira Elif Aylin Shirin Parisa Hevi""",
                       """Omar Yusuf Hassan Karim Emre Mehmet Dariush Reza Rebin Ali Samir Khalid Burak Baris""",
                       """Yilmaz Demir Kaya Celik Hosseini Ahmadi Karimi Haddad Khoury Mansour Mahmoud El-Amin Abu Bakr"""),
    "north_european": (3, """Anna Ingrid Freja Saskia Lotte Astrid""",
                       """Lars Jan Sven Pieter Klaus Henrik""",
                       """Jansen Bakker Schmidt Becker Dubois Moreau Johansson Lindqvist Hansen Nielsen de Vries van Dijk
        Müller Le Roux"""),
}


def _split(block: str) -> list[str]:
    # "Mac an tSaoir", "Li Na", "Dela Cruz" and the like stay whole
    words = block.split()
    out, i = [], 0
    joined = {("Mac", "an"): 3, ("Ó", "Súilleabháin"): 2, ("Ni", "Bhriain"): 2, ("Li", "Na"): 2, ("Dela", "Cruz"): 2,
              ("de", "Vries"): 2, ("van", "Dijk"): 2, ("Le", "Roux"): 2, ("Da", "Silva"): 2, ("Abu", "Bakr"): 2,
              ("Xiu", "Ying"): 2}
    while i < len(words):
        k = joined.get(tuple(words[i:i + 2]), 1)
        out.append(" ".join(words[i:i + k]))
        i += k
    return out


GROUPS = {g: (w, _split(f), _split(m), _split(s)) for g, (w, f, m, s) in NAME_GROUPS.items()}
GIVEN_F = [x for g in GROUPS.values() for x in g[1]]
GIVEN_M = [x for g in GROUPS.values() for x in g[2]]
SURNAMES = [x for g in GROUPS.values() for x in g[3]]
TITLES_F = ["Mrs", "Ms", "Miss", "Mrs", "Ms", "Dr"]
TITLES_M = ["Mr", "Mr", "Mr", "Dr"]

# ------------------------------------------------------------------------------------------------ places
TOWNS = [("LS6", "Leeds"), ("M14", "Manchester"), ("B29", "Birmingham"), ("CF24", "Cardiff"), ("NE6", "Newcastle"),
         ("BS5", "Bristol"), ("G42", "Glasgow"), ("EH7", "Edinburgh"), ("L15", "Liverpool"), ("S10", "Sheffield"),
         ("NG7", "Nottingham"), ("LE2", "Leicester"), ("CV1", "Coventry"), ("SO17", "Southampton"), ("PL4", "Plymouth"),
         ("EX4", "Exeter"), ("NR2", "Norwich"), ("IP4", "Ipswich"), ("YO10", "York"), ("HU5", "Hull"),
         ("DN4", "Doncaster"), ("BD8", "Bradford"), ("HX1", "Halifax"), ("OL8", "Oldham"), ("BL3", "Bolton"),
         ("WA4", "Warrington"), ("LL57", "Bangor"), ("SA1", "Swansea"), ("NP20", "Newport"), ("TR1", "Truro"),
         ("BN2", "Brighton"), ("RG1", "Reading"), ("OX4", "Oxford"), ("MK9", "Milton Keynes"), ("LU1", "Luton"),
         ("CM1", "Chelmsford"), ("CT1", "Canterbury"), ("E17", "London"), ("N15", "London"), ("SE15", "London"),
         ("SW9", "London"), ("NW10", "London"), ("CR0", "Croydon"), ("AB24", "Aberdeen"), ("DD1", "Dundee"),
         ("IV2", "Inverness"), ("BT7", "Belfast"), ("DE1", "Derby"), ("ST4", "Stoke-on-Trent"), ("WV3", "Wolverhampton"),
         ("TF1", "Telford"), ("GL1", "Gloucester"), ("SN1", "Swindon"), ("BA1", "Bath"), ("BH8", "Bournemouth"),
         ("PE1", "Peterborough"), ("CB1", "Cambridge"), ("LN1", "Lincoln"), ("CA1", "Carlisle"), ("PR1", "Preston"),
         ("FY1", "Blackpool"), ("SK4", "Stockport"), ("TS1", "Middlesbrough"), ("DH1", "Durham"), ("SR1", "Sunderland"),
         ("NE46", "Hexham"), ("KA1", "Kilmarnock"), ("DG1", "Dumfries"), ("HR1", "Hereford"), ("WR1", "Worcester")]
STREETS = """Elm Oak Ash Beech Willow Chestnut Maple Hawthorn Rowan Cedar Larch Station Church Mill Victoria Albert
Queens Kings Park Grange Manor Orchard Meadow Brook Spring Mount Hill Lime Poplar Sycamore Holly Heather Primrose
Clover Marlow Ashby Fenwick Carlton Granville Clarence Stanley Cromwell Nelson Wellington Addison Balmoral Windsor
Lansdowne Montague Ravensworth Hartley Holloway Shipley Fairfield Bramley Thornton Whitley Burnside Glebe Hollins
Tanner Cooper Cotton Ropewalk Foundry Canal Wharf Harbour Quarry Forge Pump Wool""".split()
STREET_TYPES = ["Road", "Road", "Street", "Street", "Avenue", "Lane", "Close", "Drive", "Grove", "Crescent", "Terrace",
                "Way", "Gardens", "Place", "Court", "Walk", "Rise", "View", "Mews", "Row"]
NO_TYPE = ["Kingsway", "Broadway", "Parkside", "Westgate", "Highfield", "Meadowbank", "Eastgate", "Woodlands",
           "The Crescent", "The Avenue", "Northgate", "Riverside", "Hillcrest", "Fairview", "Larchfield", "The Green",
           "Moorside", "Brookfield", "Southfields", "The Paddock", "Oakleigh", "Netherfield"]
ABBR = {"Road": "Rd", "Street": "St", "Avenue": "Ave", "Lane": "Ln", "Close": "Cl", "Drive": "Dr", "Crescent": "Cres",
        "Terrace": "Terr", "Gardens": "Gdns", "Place": "Pl", "Court": "Ct"}
BLOCKS = ["Court", "House", "Lodge", "Heights", "Point", "Mansions", "Buildings"]
HOUSE_NAMES = ["Rose Cottage", "The Old Forge", "Ivy House", "Hillview", "Orchard Barn", "Brookside", "The Laurels",
               "Holly Lodge", "Fern Cottage", "Stable End"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
          "December"]
INWARD = "ABDEFGHJLNPQRSTUWXYZ"
NI_FIRST = "ABCEGHJKLMNOPRSTWXYZ"
NI_SECOND = "ABCEGHJKLMNPRSTWXYZ"


# ---------------------------------------------------------------------------------------------- the types
def _t(tid, w, fact, forms, fw, mis, questions, say, asks, extra, more, stories):
    return {"id": tid, "w": w, "fact": fact, "forms": forms, "fw": fw, "mis": mis, "questions": questions,
            "say": say, "asks": asks, "extra": extra, "more": more, "stories": stories}


TYPES = [
    _t("meter_reading_online", 80, READINGS,
       [READINGS, "ashgrove.example.com/readings", "https://www.ashgrove.example.com/readings"], [6, 3, 2],
       ["www.ashgrove.example.com/meter", "ashgrove.example.com/submit-reading", "www.ashgrove.example.com/myreadings"],
       ["Where can I send you my meter readings?", "How do I give you a reading so my bill isn't estimated?",
        "Is there a web page for submitting my gas and electricity readings?"],
       ["You can submit readings any time at {f} and they go straight onto your account.",
        "The quickest way to send them is online at {f}; you'll just need your account number to hand.",
        "Please pop your readings in at {f} and the bill will be re-issued using them.",
        "Readings can be sent through {f}, where you can also upload a photo of the meter if that's easier."],
       ["Where do I send the readings?", "how do i submit them online?", "Can you send me the link to put readings in please?",
        "What's the best way to get readings to you so the bill gets corrected?",
        "Is there a website I can use rather than sitting on hold?", "where am I supposed to enter them??"],
       ["Once they're in, the bill will be recalculated with actual figures rather than estimates.",
        "I've also added a note asking our metering team to check why the smart meter has stopped sending data.",
        "If the smart meter still isn't communicating next month, we can book an engineer to take a look.",
        "I've put a hold on the estimated bill for now so nothing is collected until it's corrected."],
       ["Could you send me a clear photo of each meter showing the serial number as well as the reading? Then I can correct the bill for you.",
        "So I can find the right meter points, could you confirm the full supply address and the serial number printed on the meter?"],
       ["I've just had a bill for {amount} which is way more than normal and it says the readings were ESTIMATED.",
        "Our smart meter stopped sending readings back in {month} (the display just says no signal) so the last few bills have been guesses.",
        "We moved into {addr_pc} on {date} and want to make sure we only pay from our own reading. Gas meter serial is {gserial}.",
        "I tried to give a reading over the phone but the automated line kept cutting me off.",
        "Your app won't let me log in since the update so I can't put my readings in. Account {acct}.",
        "The bill dated {date} has the electric reading as {reading} but the meter actually says {reading2}, photos are here {url_photo}",
        "My partner {tp_partner} normally deals with the bills but is working away and we've had a letter saying you need a reading.",
        "I'm on {product} and got a text asking for a reading. Meter number is {eserial} if that helps.",
        "Estimated again! Third time this year. I'm not paying {amount} for gas we havent used.",
        "I'm {age} and don't really do computers, my daughter {tp_daughter} is helping me send this.",
        "The bill on my online account ({url_bill}) still shows the estimate even though I sent a photo.",
        "Electric meter {eserial} reads {reading} today, gas reads {reading2}. Account ref {acct}."]),
    _t("smart_install_duration", 62, "2 hours", ["2 hours", "two hours", "120 minutes", "2 hrs"], [6, 4, 1, 1],
       ["half a day", "4 hours", "45 minutes", "all day"],
       ["How long does a smart meter installation take?",
        "How much time should I set aside for the smart meter engineer's visit?",
        "How long will the engineer need to be at my house to fit a smart meter?"],
       ["The installation usually takes around {f}, and your supply will be off for part of that time.",
        "Our engineer will need about {f} at the property to fit both meters and set up the in-home display.",
        "Please allow {f} for the appointment itself, from the engineer arriving to everything being switched back on.",
        "A standard dual fuel installation takes roughly {f} from start to finish."],
       ["How long will the engineer actually be here?", "how long does the install take, roughly?",
        "Can you tell me how long it takes so I know how much time to book off?",
        "Will it take long? I'll need to arrange for someone to be in.", "how long is the actual job?"],
       ["You don't need to do anything beforehand apart from making sure the engineer can get to both meters.",
        "The engineer will show you how the in-home display works before they leave.",
        "You'll get a text the day before with a more precise arrival window.",
        "If anyone in the household relies on powered medical equipment, please let us know before the visit."],
       ["Could you let me know where the gas and electricity meters are located (inside, outside box, cupboard)? That decides which engineer we send.",
        "Before I confirm anything, can you tell me whether you own the property or rent it?"],
       ["I've booked a smart meter install for {date} (booking ref {booking}) and need to know how long to book off work.",
        "Got a text with a link {url_booking} saying your engineer is coming {date} between 8 and 12.",
        "I rent the flat at {addr} and my landlord {tp_landlord} is fine with a smart meter being fitted.",
        "My mum {tp_mum} is {age} and lives alone at {addr_pc}, I want to be there when the engineer comes.",
        "I work shifts so I need to plan around the appointment. Best number is {phone}.",
        "We've finally agreed to have a smart meter after all your letters, lol.",
        "The meters are in a cupboard under the stairs which is full of stuff so I need to clear it first.",
        "I have an appointment next {weekday} for the smart meter. Account no {acct}.",
        "Parking is permit only on our road so I'll move my car ({reg}) off the drive for the engineer.",
        "The engineer can park on the drive, I'll leave my car {reg} on the street."]),
    _t("dd_change_notice", 50, "10 working days",
       ["10 working days", "ten working days", "10 business days", "ten business days"], [6, 3, 2, 1],
       ["3 working days", "a week", "7 days"],
       ["How much notice do you need to change my Direct Debit date?",
        "If I want to change my monthly payment amount, how far ahead do I have to tell you?"],
       ["We need at least {f} notice before your next collection to make a change.",
        "Any change made less than {f} before the payment date will only apply from the following month.",
        "Changes to a Direct Debit take {f} to go through with your bank, so the new details will apply after that.",
        "As long as you let us know {f} before the collection date, the new date or amount will be used."],
       ["how much notice do you need?", "Can this be done before the next payment?",
        "When will the change kick in?", "How far ahead do I need to tell you about changes?",
        "will the new date apply this month or next?"],
       ["I've updated the account and you'll get a confirmation letter with the new schedule.",
        "Your payment amount is reviewed every six months, so it may change slightly after your next review.",
        "The Direct Debit Guarantee still covers you if anything is taken in error.",
        "You'll see the new collection date on your next statement."],
       ["For security, could you confirm your date of birth and the first line of the supply address before I make the change?",
        "Could you confirm the name of the account holder on the bank account? I can't set it up until that matches."],
       ["I've changed jobs and now get paid on the {nth} so need to move my direct debit date.",
        "Please change my direct debit to my new bank, sort code {sortcode} account {bankacc}.",
        "Our monthly payment went up to {amount} which we can't afford, can it come down?",
        "I want to switch the DD from my partner's account to mine (sort code {sortcode}, account number {bankacc}). Partner is {tp_partner}.",
        "Can I move my payments to the {nth} of the month? DOB {dob} for security.",
        "We're {amount} in credit so I'd like the direct debit reduced please. Acc {acct}.",
        "My bank changed my account details after a fraud issue. New details: {sortacc_line}",
        "I'm on {product} and would like to pay by direct debit instead of on receipt of bill.",
        "Last month's DD bounced so I paid {amount} by card (ending {card4}). I want the DD moved to after payday."]),
    _t("moving_home_notice", 41, "48 hours",
       ["48 hours", "forty-eight hours", "2 working days", "two working days"], [6, 2, 3, 2],
       ["a week", "24 hours", "a month", "5 days"],
       ["How far in advance should I tell you I'm moving house?", "What's the minimum notice you need before I move out?"],
       ["We just need at least {f} notice before your moving date.",
        "Please tell us about your move {f} before you leave so we can set up the final bill correctly.",
        "As long as we hear from you {f} before the move, we'll close the account on the day you leave.",
        "Let us know a minimum of {f} ahead and we'll take care of the rest."],
       ["How much notice do you need?", "Is it too late to tell you now?", "when do I need to let you know by?",
        "What do I need to do and how far ahead?", "Have I left it too late??"],
       ["On moving day, please take readings of both meters and keep a photo of each.",
        "We can also supply your new home if it's on our network area; just reply and we'll quote.",
        "Your final bill will go to the forwarding address you've given.",
        "If the new occupants don't contact us, the property will move to our standard tariff in their name."],
       ["So I can arrange this, could you send me the exact date you're moving and a forwarding address?",
        "Can you confirm the address you're moving out of and whether you'd like us to supply the new one?"],
       ["We're moving out of {addr_pc} on {date}. New address will be {addr2}.",
        "Moving in with my partner {tp_partner} next month so I need to close my account.",
        "I've sold the house at {addr} and completion is {date}. The buyers are {tp_other}.",
        "I'm a tenant, the tenancy ends {date}. Landlord is {tp_landlord} if you need them.",
        "We completed on our new house yesterday and I only just realised I have to tell you.",
        "Emigrating to Canada on {date}!! Forwarding email {email} and phone {phone}.",
        "Moving from {addr} to a flat in {town}, account {acct}.",
        "My dad {tp_dad} is going into a care home and we're clearing his bungalow at {addr_pc}."]),
    _t("final_bill_timing", 34, "6 weeks", ["6 weeks", "six weeks", "42 days", "forty-two days"], [6, 4, 2, 1],
       ["a month", "10 days", "8 weeks", "30 days"],
       ["How long after I leave will I get my final bill?", "When should my closing bill arrive after I switch away?"],
       ["Final bills are issued within {f} of the account closing.",
        "You should receive your final statement no later than {f} after your supply end date.",
        "Please allow up to {f} for the final bill to be produced.",
        "We aim to send all final bills within {f} once we have the closing readings."],
       ["When will I get the final bill?", "how long does the final bill take?", "Why haven't I had it yet?",
        "Any idea when the closing bill will turn up?", "when can I expect it?"],
       ["Any credit on the final bill will be refunded to you automatically.",
        "If we don't have closing readings, the final bill will use an estimate that you can challenge.",
        "I can see the account was closed correctly on our side.",
        "Please keep your closing meter readings safe in case we need to check them."],
       ["Can you confirm the date you left the property and the meter readings on that day?",
        "Could you give me a forwarding address so the bill reaches you?"],
       ["I moved out of {addr_pc} on {date} and still no final bill.",
        "I switched to {rival} on {date}. I'm owed money I think, there was {amount} credit.",
        "My father {tp_father} passed away in {month}. I'm the executor and need the final bill for his estate.",
        "Closing account {acct} as we've moved. Forwarding address: {addr2}.",
        "I left my rented flat {addr} when my tenancy ended, the letting agent {tp_other} says you need to send the last bill to me.",
        "The previous occupier was {tp_other} and I keep getting post, but I need MY final bill from my old place.",
        "Our solicitor {tp_solicitor} is asking for the final energy bill for {addr}.",
        "My online account still shows a balance of {amount} ({url_bill}) even though I left on {date}."]),
    _t("emergency_line", 30, EMERGENCY, [EMERGENCY, "08081570389", "+44 808 157 0389", "0808-157-0389"], [8, 1, 1, 1],
       [LINE, "0808 157 0398", "0800 157 0389"],
       ["What number do I call if my supply goes off out of hours?",
        "Is there an emergency phone line for meter problems at night?",
        "Who do I ring in an emergency with my energy supply?"],
       ["If you ever lose supply out of hours, call our 24-hour emergency line on {f}.",
        "For anything urgent like this, our emergency team is on {f}, day or night.",
        "Please ring {f} straight away if the meter cuts off again; it's free and answered 24/7.",
        "Save {f} in your phone: it's our round-the-clock line for supply emergencies."],
       ["what number do I ring if it happens again at night?", "Who do I call out of hours?",
        "Is there a number I can actually get through on at night?", "What should I do next time?",
        "surely there's an emergency number??"],
       ["An engineer will be sent if the fault can't be fixed over the phone.",
        "If a neighbour's supply is off too, it's likely a network fault rather than your meter.",
        "I've added you to our Priority Services Register as well, so you'll be put first in an emergency.",
        "I've raised a meter fault report today so someone will contact you to check the meter."],
       ["Is the supply back on now? If not, please reply with a number we can reach you on and the meter serial number.",
        "Could you tell me exactly what the meter display showed when it cut off?"],
       ["Last night our electric went off at about 11pm and the meter just said 'supply interrupted'.",
        "My SmartPay meter cut off on Sunday even though there was credit on it. I have a baby and no heating.",
        "I'm disabled and the meter at {addr_pc} beeps and flashes at night.",
        "My neighbour {tp_neighbour} had to lend me a heater because our gas went off on {date}.",
        "I rang {wrongline} at 10pm and it was closed.",
        "Smart meter {eserial} is showing an error and the power keeps tripping.",
        "My elderly mum {tp_mum} was without power all evening and couldn't get through to anyone. Her number is {phone}."]),
    _t("exit_fee_amount", 25, "£75", ["£75", "GBP 75", "75 pounds", "seventy-five pounds", "£75.00"], [8, 1, 2, 2, 1],
       ["£50", "£100", "£30", "£120"],
       ["How much is the exit fee if I leave my fixed tariff early?",
        "What does it cost to switch away before my fixed deal ends?"],
       ["The exit fee on your tariff is {f} per fuel.",
        "If you leave before the end of your fixed term, there's a charge of {f} for each fuel.",
        "Leaving early means an exit fee of {f} per fuel, which appears on your final bill.",
        "It's {f} per fuel to leave early; there's no charge if you switch in the last 49 days."],
       ["How much will it cost me to leave?", "what's the exit fee?", "What will I be charged to switch?",
        "Is there a penalty for leaving early and how much?", "how much to get out of the contract?"],
       ["If you're moving home rather than switching supplier, the fee doesn't apply.",
        "Your new supplier will handle the switch and let us know the date.",
        "I've checked and you're on the tariff until the end date shown on your annual statement."],
       ["Could you confirm which tariff you're on? Some older fixes have different terms.",
        "Can you let me know the date you're planning to switch so I can check where you are in the fixed term?"],
       ["I found a cheaper deal with {rival} but I'm on the {product} until next year.",
        "We're selling the house at {addr} and want to end the fixed tariff.",
        "Your prices are ridiculous, I want to leave. Account {acct}.",
        "I signed up to {product} in {month} without realising there were fees.",
        "My partner {tp_partner} and I are splitting up and I want the account closed.",
        "The {product} price looked good at the time but {rival} is cheaper now."]),
    _t("warm_home_discount_amount", 21, "£150",
       ["£150", "GBP 150", "150 pounds", "one hundred and fifty pounds", "£150.00"], [8, 1, 2, 1, 1],
       ["£140", "£200", "£300", "£100"],
       ["How much is the Warm Home Discount worth?", "What amount will I get off my bill with the Warm Home Discount?"],
       ["The Warm Home Discount is a one-off {f} credit applied to your electricity account.",
        "Eligible customers get {f} off their electricity bill each winter.",
        "Once your eligibility is confirmed, {f} will be credited to your account, usually between December and March.",
        "The scheme is worth {f}, and you don't need to do anything else once you've been matched."],
       ["How much do I get?", "how much is it worth?", "What's the amount?", "Will I get it this year and how much?",
        "how much should it be?"],
       ["If you're on a prepayment meter, the discount is added as a top-up voucher instead.",
        "Matching is done through government data, so there's no form to fill in if you get the Guarantee Credit element of Pension Credit.",
        "If you're not matched automatically, a letter will explain how to apply."],
       ["To check your eligibility I'll need the name of the account holder and their date of birth. Could you send those?",
        "Could you confirm which benefits you receive? That decides whether you're matched automatically."],
       ["I'm on pension credit and didn't get the warm home discount last winter. NI number {ni}.",
        "My partner {tp_partner} gets the guarantee credit, we didn't receive anything.",
        "I had a letter about the warm home discount. I was born {dob} and my NI is {ni}.",
        "I'm a carer for my son {tp_son} and we're struggling with bills. Account {acct}.",
        "Has my discount been put on my account yet? I live at {addr_pc}.",
        "My neighbour {tp_neighbour} got the discount from her supplier but I haven't had it from you."]),
    _t("refund_timescale", 16, "5 working days",
       ["5 working days", "five working days", "5 business days", "five business days"], [6, 3, 2, 1],
       ["3 days", "24 hours", "a fortnight"],
       ["How long does it take to get a credit refund into my bank?", "When will my refund arrive once you've approved it?"],
       ["Refunds reach your bank within {f} of us approving them.",
        "I've requested the refund today and it should be with you in {f}.",
        "Once processed, please allow {f} for the money to show in your account.",
        "Credit refunds are paid back to your nominated account within {f}."],
       ["When will I get it?", "how long will the refund take?", "How soon can I have my money back?",
        "when will it be in my account?"],
       ["The refund will show as ASHGROVE ENERGY REFUND on your statement.",
        "We keep a small balance in credit over winter, so I've refunded the rest.",
        "If the original payment was by card, the refund goes back to the same card."],
       ["Before I can refund, I need to confirm your bank details. Could you call us or send the name on the account?",
        "Could you send a current meter reading first? We need it to make sure the credit is accurate."],
       ["I've got {amount} credit on my account and would like it refunded please.",
        "Please refund the credit to sort code {sortcode} account {bankacc}.",
        "I paid my final bill twice by mistake using my card ending {card4}.",
        "Refund please to the card I paid with, {cardfull}, it was {amount}.",
        "I closed my account on {date} and was told I'm owed {amount}. Still nothing.",
        "There's {amount} sitting on my account, can I have it back? Acc no: {acct}."]),
    _t("prepay_emergency_credit", 12, "£10", ["£10", "GBP 10", "10 pounds", "ten pounds", "£10.00"], [8, 1, 2, 2, 1],
       ["£5", "£15", "£20"],
       ["How much emergency credit is on a prepayment meter?",
        "If I run out of credit on my SmartPay meter, how much can I borrow?"],
       ["Your meter has up to {f} of emergency credit that you can switch on when the balance runs low.",
        "Emergency credit of {f} is available on all SmartPay meters.",
        "You can borrow {f} of emergency credit, which is paid back from your next top-up.",
        "When the balance gets low, press A then the red button to use the {f} emergency credit."],
       ["How much emergency credit do I get?", "what's the emergency credit on these meters?",
        "How much can I use before I top up?", "is there any emergency credit?"],
       ["Friendly credit hours mean the meter won't cut off overnight or on Sundays.",
        "Top-ups can be made at any PayPoint or in the My Ashgrove app.",
        "If you're struggling to top up, we can talk about a support credit."],
       ["Could you send me the serial number of the meter so I can check its settings?",
        "Can you read me the number on the front of your top-up card?"],
       ["My top up hasn't gone through on the SmartPay meter. Key number {paykey}.",
        "I ran out of credit last night. I'm at {addr_pc}.",
        "I'm new to prepay, the previous tenant {tp_other} left the meter on emergency credit.",
        "I topped up {topup} at the shop and it's not showing. Card ending {card4}.",
        "Kids are cold, no credit left till payday. Call me on {phone}."]),
    _t("cooling_off_period", 9, "14 days", ["14 days", "fourteen days", "2 weeks", "two weeks"], [6, 3, 1, 2],
       ["7 days", "30 days", "28 days"],
       ["How long do I have to cancel after switching to you?", "What is the cooling-off period for a new energy contract?"],
       ["You have {f} from the day you agreed the contract to cancel without any charge.",
        "The cooling-off period is {f}, so you're still well within it.",
        "Under your cooling-off rights you can cancel within {f} of signing up."],
       ["Can I still cancel?", "how long have I got to change my mind?", "Am I too late to cancel?"],
       ["I've cancelled the switch, so your current supplier will carry on supplying you.",
        "You won't be charged anything for cancelling."],
       ["Could you tell me the date you signed up and whether it was online or over the phone?"],
       ["I signed up to {product} online on {date} but my other half {tp_partner} found a better deal.",
        "A salesman came to the door and signed my mum {tp_mum} up. She didn't understand what she agreed to.",
        "I switched to you last {weekday} but have changed my mind. Email {email}.",
        "Please cancel my application. Name {name_full}, address {addr_pc}."]),
    _t("meter_accuracy_test_fee", 8, "£60", ["£60", "GBP 60", "60 pounds", "sixty pounds"], [6, 1, 2, 2],
       ["£80", "£45", "£100"],
       ["What do you charge to test whether my meter is accurate?", "Is there a fee for a meter accuracy test?"],
       ["If the meter is found to be accurate there's a {f} charge for the test; if it's faulty, the test is free.",
        "An accuracy test costs {f}, refunded in full if the meter turns out to be faulty.",
        "We do charge {f} when the test shows the meter is within legal limits."],
       ["Is there a charge for testing it?", "how much is a meter test?", "What would it cost to get it checked?"],
       ["The test is done by an independent meter examiner.", "Any overcharge found would be refunded in full."],
       ["Could you send readings taken at the same time on two days a week apart? That helps us see whether a test is needed."],
       ["I think my electric meter {eserial} is running fast, usage has doubled.",
        "Our gas meter {gserial} spins even when everything is off.",
        "The bills at {addr} are twice what the previous owner {tp_other} paid.",
        "Our usage went up massively since {month}, MPAN {mpan}."]),
    _t("backbilling_limit", 6, "12 months", ["12 months", "twelve months", "1 year", "one year"], [6, 3, 1, 1],
       ["6 months", "2 years", "3 years"],
       ["How far back can you bill me for energy you didn't charge for?", "What's the limit on catch-up bills for old usage?"],
       ["We can't bill you for energy used more than {f} ago if we hadn't billed you correctly at the time.",
        "Under the back-billing rules you'll only be charged for the last {f} of usage.",
        "Anything older than {f} has been written off from this catch-up bill."],
       ["Can you really charge all that?", "how far back can you bill?", "Is this even allowed?"],
       ["A corrected bill will follow in the post.", "I've put the account on hold while the bill is corrected."],
       ["Could you send me the gas meter serial and a current reading so I can check the billing history?"],
       ["I've just had a catch-up bill for {amount} for gas going back to when we moved in.",
        "You never billed us for gas at {addr_pc} and now want {amount}. MPRN {mprn}.",
        "My late father {tp_father} never got a gas bill and now there's a huge catch-up bill.",
        "Bill is here {url_bill}, it's for {amount} and covers years of gas."]),
    _t("ev_offpeak_rate", 5, "7.5p per kWh",
       ["7.5p per kWh", "7.5p/kWh", "7.5 pence per kWh", "seven and a half pence per kWh"], [5, 3, 2, 1],
       ["9p per kWh", "6p per kWh", "8.5p/kWh"],
       ["What's the off-peak rate on the EV tariff?", "How much do I pay per unit for overnight car charging?"],
       ["On Ashgrove EV Nights, off-peak electricity is {f} between midnight and 5am.",
        "Overnight charging is billed at {f} during the off-peak hours.",
        "The off-peak unit rate is {f}, and it applies to your whole house, not just the charger."],
       ["What's the night rate?", "how cheap is the off peak?", "What would I pay per unit at night?"],
       ["You'll need a smart meter sending half-hourly readings for the tariff to apply.",
        "Your charger doesn't need to be registered with us, just your car."],
       ["Could you send the make and model of your charger so I can check it's compatible?"],
       ["Just got an EV, reg {reg}, charger serial {charger}.",
        "We've had a home charger fitted at {addr_pc} and want to switch to {product}.",
        "My car is on a lease, registration {reg}. Is EV Nights worth it?"]),
]

# --------------------------------------------------------------------------------------- common phrases
OPENERS = ["Hi", "Hello", "Dear Sir/Madam", "Good morning", "Hi there", "To whom it may concern", "Hiya", "Dear Ashgrove",
           "Hello Ashgrove team", "Afternoon", ""]
SIGNOFFS = ["Thanks", "Many thanks", "Regards", "Cheers", "Thank you in advance", "Kind regards", "Thanks for your help",
            "Thanks,", "Best wishes", "Rgds", "Yours faithfully", "Thank you"]
MIS_LINES = ["I was told on the phone it was {m}.", "Your website said {m}?", "The letter I got said {m} but that doesn't seem right.",
             "A friend who's with you said {m}.", "I thought it was {m}, is that still right?", "Someone in your chat said {m}.",
             "I'd read somewhere it was {m}."]
_MIS_BY_TYPE = {
    "emergency_line": ["I tried {m} but nobody answered.", "The number I had written down was {m}.",
                       "I rang {m} like it says on the letter and it was a recorded message.", "Is it still {m}?"],
    "meter_reading_online": ["I tried {m} like the letter said but it just goes to an error page.",
                             "Someone on your phone line told me to use {m} but that page doesn't exist?",
                             "I've been going to {m} but it won't accept them."],
}
CORRECT = ["Just to clear up any confusion, it isn't {m}.", "I'm sorry if you were told {m}; that isn't correct.",
           "Apologies for the mix-up about {m}, that information was wrong.", "You mentioned {m}, but that's not right, I'm afraid.",
           "I'm sorry for the confusion over {m}."]
EMPATHY = ["Thanks for getting in touch.", "Thank you for your email.", "Thanks for contacting us about this.",
           "I'm sorry to hear about the trouble you've had.", "Thanks for letting us know.", "Thank you for your message.",
           "I'm sorry for the delay in replying.", "Thanks for your patience while we looked into this.", ""]
INTROS = ["My name is {agent_first} and I'll be looking after your enquiry.", "I'm {agent_first} from the Customer Care team.",
          "{agent_first} here, I've picked up your message.", "I'm {agent_first} and I've been asked to reply to you.",
          "It's {agent_first} here.", "", ""]
CLOSERS = ["If there's anything else, just reply to this email or call us on {LINE}.",
           "If you have any other questions, you can reach us on {LINE}, Monday to Friday 8am to 8pm.",
           "You can manage your account any time at {WEB}.", "Let me know if there's anything else I can help with.",
           "Any questions, we're here to help.", "I hope this helps.", "Thanks again for being an Ashgrove Energy customer.",
           "You can also message us through the My Ashgrove app.", "Please quote your account number if you get in touch again.", ""]
VALEDICTIONS = ["Kind regards", "Best wishes", "Many thanks", "Regards", "Warm regards", "All the best"]
CONTEXT = ["I've been with you for years and never had a problem until now.", "I'm on the {product} tariff.",
           "We're on {product} if that matters.", "This is the second time I've emailed about this.",
           "I tried ringing but was on hold for ages and gave up.", "Sorry if this is the wrong place to ask.",
           "We only switched to you in {month}.", "Can someone please actually get back to me this time.",
           "Not impressed so far to be honest.", "I work nights so email is easier than the phone.",
           "Apologies if you already have this information.", "The chatbot on your website was no help at all.",
           "We're a family of five so the bills are never small.", "I'm registered blind so please reply by email.",
           "I'd appreciate a quick reply as this is stressing me out.", "Your app keeps logging me out as well btw.",
           "Money is tight at the moment so I need to get this sorted.", "First time I've had to contact you.",
           "I did fill in the online form last week but heard nothing.", "My English is not so good, sorry for mistakes."]
PS_LINES = ["PS the app still shows the old address.", "P.S. please don't phone before 10, I work late.",
            "ps. sorry for the long email", "PS - letters to me keep going to the wrong name, it's {name_full} not the previous tenant."]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
COMMON_TYPOS = {"received": "recieved", "definitely": "definately", "until": "untill", "because": "becuase",
                "address": "adress", "separate": "seperate", "tomorrow": "tommorow", "which": "wich", "their": "thier",
                "account": "acount", "appointment": "appointmnet", "electricity": "electricty", "payment": "payemnt",
                "really": "realy", "know": "no", "there": "their", "would": "woud", "engineer": "enginner",
                "meter": "meater", "the": "teh", "you": "u", "please": "pls", "thanks": "thx", "through": "thru"}


# --------------------------------------------------------------------------------------------- helpers
def _ascii(s: str) -> str:
    table = str.maketrans("śüáóúéíñ", "suaouein")
    return re.sub(r"[^a-z0-9]", "", s.lower().translate(table))


def _alloc(rng: random.Random, n: int) -> list[int]:
    ws = [t["w"] * rng.uniform(0.9, 1.1) for t in TYPES]
    total = sum(ws)
    raw = [w * n / total for w in ws]
    counts = [max(1, int(r)) for r in raw]
    order = sorted(range(len(raw)), key=lambda i: raw[i] - int(raw[i]), reverse=True)
    k = 0
    while sum(counts) < n:
        counts[order[k % len(order)]] += 1
        k += 1
    while sum(counts) > n:
        i = max(range(len(counts)), key=lambda j: counts[j])
        counts[i] -= 1
    return counts


class _Pool:
    """Draws without repeats until the pool runs dry, then starts over (the reserved ranges are small)."""

    def __init__(self, rng, items):
        self.rng, self.items, self.left = rng, list(items), []

    def take(self):
        if not self.left:
            self.left = self.items[:]
            self.rng.shuffle(self.left)
        return self.left.pop()


_GROUP_KEYS = list(GROUPS)
_GROUP_W = [GROUPS[g][0] for g in _GROUP_KEYS]


def _name(rng, female, group=None, mix=0.12):
    """A (given name, surname, group): mostly from one group, sometimes mixed."""
    group = group or rng.choices(_GROUP_KEYS, weights=_GROUP_W)[0]
    g = GROUPS[group]
    first = rng.choice(g[1] if female else g[2])
    sg = GROUPS[rng.choices(_GROUP_KEYS, weights=_GROUP_W)[0]] if rng.random() < mix else g
    return first, rng.choice(sg[3]), group


def _person(rng, pid, phones, used_acct):
    female = rng.random() < 0.52
    first, last, group = _name(rng, female)
    if rng.random() < 0.04:
        last = f"{last}-{_name(rng, female)[1]}"
    title = rng.choice(TITLES_F if female else TITLES_M)
    while True:
        acct = "AE" + "".join(rng.choice("0123456789") for _ in range(8))
        if acct not in used_acct:
            used_acct.append(acct)
            break
    outward, town = rng.choice(TOWNS)
    pc = f"{outward} {rng.randint(1, 9)}{rng.choice(INWARD)}{rng.choice(INWARD)}"
    fa, la = _ascii(first), _ascii(last)
    dom = rng.choice(["example.com", "example.com", "example.net", "example.org", "mail.example.com", "post.example.net"])
    yy = rng.randint(1940, 2004)
    local = rng.choice([f"{fa}.{la}", f"{fa}{la}{yy % 100:02d}", f"{fa[0]}{la}", f"{la}.{fa[0]}{rng.randint(1, 99)}",
                        f"{fa}_{la}{rng.randint(1, 9)}", f"the{la}s", f"{fa}{yy}", f"{la}{fa[0]}"])
    return {"pid": pid, "female": female, "first": first, "last": last, "title": title, "acct": acct,
            "outward": outward, "town": town, "pc": pc, "email": f"{local}@{dom}", "phone": phones[0].take() if rng.random() < 0.8 else phones[1].take(),
            "house": _house(rng), "dob": (rng.randint(1, 28), rng.randint(1, 12), yy),
            "ni": rng.choice(NI_FIRST) + rng.choice(NI_SECOND) + "".join(rng.choice("0123456789") for _ in range(6)) + rng.choice("ABCD"),
            "sortcode": "".join(rng.choice("0123456789") for _ in range(6)),
            "bankacc": "".join(rng.choice("0123456789") for _ in range(8)),
            "card4": f"{rng.randint(0, 9999):04d}",
            "mpan": str(rng.randint(10, 23)) + "".join(rng.choice("0123456789") for _ in range(11)),
            "mprn": str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(rng.randint(6, 9))),
            "eserial": rng.choice(["L", "S", "E"]) + f"{rng.randint(10, 24)}{rng.choice('ABCDEFHKLMP')}{rng.randint(0, 999999):06d}",
            "gserial": f"G4{rng.choice('AKPW')}{rng.randint(0, 99999999):08d}{rng.choice('ABDEF')}",
            "group": group, "partner": _partner(rng, female, group, last),
            "tariff": rng.choices(TARIFFS + ["SmartPay", "Ashgrove EV Nights"], weights=[5, 3, 3, 4, 4, 2, 1])[0]}


def _partner(rng, female, group, last):
    first, other, _ = _name(rng, (not female) if rng.random() < 0.9 else female, group if rng.random() < 0.8 else None)
    return first, last if rng.random() < 0.55 else other


def _house(rng):
    r = rng.random()
    if r < 0.62:
        return ("num", str(rng.randint(1, 240)) + ("a" if rng.random() < 0.05 else ""), rng.choice(STREETS), rng.choice(STREET_TYPES))
    if r < 0.78:
        return ("num", str(rng.randint(1, 180)), rng.choice(NO_TYPE), "")
    if r < 0.93:
        return ("flat", f"{rng.randint(1, 24)}{rng.choice(['', '', 'A', 'B'])}", str(rng.randint(1, 90)),
                rng.choice(STREETS) + " " + rng.choice(BLOCKS))
    return ("named", rng.choice(HOUSE_NAMES), rng.choice(STREETS), rng.choice(["Lane", "Road", "Way"]))


def _street(rng, h, abbreviate=False):
    kind = h[0]
    if kind == "num":
        typ = ABBR.get(h[3], h[3]) if abbreviate and rng.random() < 0.7 else h[3]
        return f"{h[1]} {h[2]} {typ}".strip()
    if kind == "flat":
        return rng.choice([f"Flat {h[1]}, {h[2]} {h[3]}", f"Flat {h[1]} {h[3]}", f"{h[1]} {h[3]}"])
    return f"{h[1]}, {h[2]} {h[3]}"


class _Rec:
    """One record being written: draws surfaces, remembers every personal string it writes."""

    def __init__(self, rng, p, t, agent, when, agents):
        self.rng, self.p, self.t, self.agent, self.when, self.agents = rng, p, t, agent, when, agents
        self.items: list[tuple[str, str]] = []
        self.cache: dict[str, str] = {}

    def reg(self, kind, s):
        self.items.append((kind, s))
        return s

    # -- surfaces of the customer's own identifiers
    def name(self, how=None):
        p, rng = self.p, self.rng
        how = how or rng.choice(["first", "first", "full", "full", "title", "initial"])
        s = {"first": p["first"], "full": f"{p['first']} {p['last']}", "title": f"{p['title']} {p['last']}",
             "initial": f"{p['first'][0]}{rng.choice(['.', ''])} {p['last']}", "upper": f"{p['last'].upper()} {p['first']}"}[how]
        return self.reg("person_name", s)

    def phone(self):
        ph, rng = self.p["phone"], self.rng
        d = ph.replace(" ", "")
        if d.startswith("07"):
            s = rng.choice([ph, d, f"{d[:5]} {d[5:8]} {d[8:]}", f"+44 {d[1:5]} {d[5:]}", f"+44{d[1:]}", f"{d[:5]}-{d[5:]}",
                            f"0044 {d[1:5]} {d[5:]}"])
        else:
            s = rng.choice([ph, d, f"{d[:4]} {d[4:7]} {d[7:]}", f"(020) {d[3:7]} {d[7:]}", f"+44 20 {d[3:7]} {d[7:]}"])
        return self.reg("phone", s)

    def acct(self):
        a, rng = self.p["acct"], self.rng
        s = rng.choice([a, a, f"{a[:2]} {a[2:6]} {a[6:]}", a[2:], f"{a[2:6]} {a[6:]}", a.lower(), f"{a[:2]}-{a[2:]}"])
        return self.reg("account_number", s)

    def pc(self):
        pc, rng = self.p["pc"], self.rng
        return self.reg("postcode", rng.choice([pc, pc, pc, pc.replace(" ", ""), pc.lower(), pc.title()]))

    def addr(self, with_town=None):
        s = _street(self.rng, self.p["house"], abbreviate=self.rng.random() < 0.3)
        if with_town if with_town is not None else self.rng.random() < 0.35:
            s = f"{s}, {self.p['town']}"
        return self.reg("address", s)

    def addr_pc(self):
        a = self.addr()
        return f"{a}{self.rng.choice([' ', ', ', ' '])}{self.pc()}"

    def other_addr(self):
        rng = self.rng
        h = _house(rng)
        outward, town = rng.choice(TOWNS)
        pc = f"{outward} {rng.randint(1, 9)}{rng.choice(INWARD)}{rng.choice(INWARD)}"
        a = self.reg("address", _street(rng, h) + (f", {town}" if rng.random() < 0.6 else ""))
        return f"{a} {self.reg('postcode', pc)}" if rng.random() < 0.8 else a

    def dob(self):
        d, m, y = self.p["dob"]
        s = self.rng.choice([f"{d:02d}/{m:02d}/{y}", f"{d}/{m}/{y % 100:02d}", f"{d} {MONTHS[m - 1]} {y}",
                             f"{d}{_nth(d)} {MONTHS[m - 1][:3]} {y}", f"{d:02d}.{m:02d}.{y}", f"{d:02d}-{m:02d}-{y}"])
        return self.reg("date_of_birth", s)

    def ni(self):
        x = self.p["ni"]
        s = self.rng.choice([x, f"{x[:2]} {x[2:4]} {x[4:6]} {x[6:8]} {x[8]}", x.lower(), f"{x[:2]}{x[2:8]} {x[8]}"])
        return self.reg("national_id", s)

    def sortcode(self):
        sc = self.p["sortcode"]
        return self.reg("iban", self.rng.choice([f"{sc[:2]}-{sc[2:4]}-{sc[4:]}", sc, f"{sc[:2]} {sc[2:4]} {sc[4:]}"]))

    def bankacc(self):
        return self.reg("iban", self.p["bankacc"])

    def sortacc_line(self):
        if self.rng.random() < 0.3:
            b = f"GB{self.rng.randint(10, 99)}{self.rng.choice(['ABBY', 'MIDL', 'BARC', 'LOYD', 'NWBK'])}{self.p['sortcode']}{self.p['bankacc']}"
            b = " ".join(b[i:i + 4] for i in range(0, len(b), 4)) if self.rng.random() < 0.6 else b
            return f"IBAN {self.reg('iban', b)}"
        return f"sort code {self.sortcode()}, account {self.bankacc()}"

    # -- third parties, the agent
    def third(self, key, rel):
        if key not in self.cache:
            rng, p = self.rng, self.p
            female = True if rel in ("mum", "daughter") else False if rel in ("dad", "father", "son") else rng.random() < 0.5
            family = rel in ("mum", "daughter", "dad", "father", "son")
            first, last, _ = _name(rng, female, p["group"] if family or rng.random() < 0.3 else None)
            while not family and last == p["last"]:
                first, last, _ = _name(rng, female)
            if rel == "partner":
                first, last = p["partner"]
                s = rng.choice([first, first, f"{first} {last}"])
            elif rel in ("landlord", "solicitor"):
                s = rng.choice([f"{rng.choice(['Mr', 'Mrs', 'Ms'])} {last}", f"{first} {last}", f"{first} {last}"])
            elif rel in ("mum", "dad", "father"):
                title = "Mrs" if rel == "mum" else "Mr"
                s = rng.choice([f"{first} {p['last']}", f"{title} {p['last']}", f"{first} {p['last']}", first])
            elif rel in ("son", "daughter"):
                s = rng.choice([first, first, f"{first} {p['last']}"])
            else:
                s = rng.choice([f"{first} {last}", first, f"{first} {last[0]}.", f"{rng.choice(['Mr', 'Mrs', 'Ms'])} {last}"])
            self.cache[key] = s
        return self.reg("third_party_name", self.cache[key])

    def agent_name(self, how=None):
        first, last = self.agent
        how = how or self.rng.choice(["first", "first", "full", "initial"])
        s = {"first": first, "full": f"{first} {last}", "initial": f"{first} {last[0]}."}[how]
        return self.reg("agent_name", s)

    # -- template filling
    def val(self, key):
        rng, p = self.rng, self.p
        if key == "f":
            return self.cache["f"]
        if key == "m":
            return self.cache["m"]
        simple = {
            "acct": self.acct, "phone": self.phone, "pc": self.pc, "addr": self.addr, "addr_pc": self.addr_pc,
            "addr2": self.other_addr, "dob": self.dob, "ni": self.ni, "sortcode": self.sortcode, "bankacc": self.bankacc,
            "sortacc_line": self.sortacc_line,
        }
        if key in simple:
            return simple[key]()
        if key.startswith("tp_"):
            return self.third(key, key[3:])
        if key == "email":
            return self.reg("email", p["email"])
        if key == "name_full":
            return self.name("full")
        if key == "cardfull":
            c = rng.choice("45") + "".join(rng.choice("0123456789") for _ in range(15))
            return self.reg("card_number", rng.choice([" ".join(c[i:i + 4] for i in range(0, 16, 4)), c]))
        if key == "topup":
            return rng.choice(["£25", "£30", "£40", "£35", "£12.50", "£22"])
        if key == "card4":
            return self.reg("card_number", p["card4"])
        if key == "eserial":
            return self.reg("other_id", p["eserial"])
        if key == "gserial":
            return self.reg("other_id", p["gserial"])
        if key == "mpan":
            m = p["mpan"]
            return self.reg("other_id", rng.choice([m, f"{m[:2]} {m[2:6]} {m[6:10]} {m[10:]}"]))
        if key == "mprn":
            return self.reg("other_id", p["mprn"])
        if key == "paykey":
            k = "98" + "".join(rng.choice("0123456789") for _ in range(17))
            return self.reg("other_id", rng.choice([k, " ".join(k[i:i + 4] for i in range(0, len(k), 4))]))
        if key == "charger":
            return self.reg("other_id", f"{rng.choice(['WB', 'ZP', 'HC'])}{rng.randint(100000, 999999)}")
        if key == "reg":
            r = f"{rng.choice('ABCDEFGHKLMNOPRSVWY')}{rng.choice('ABCDEFGHJKLMNOPRSTUVWXY')}{rng.choice([16, 17, 18, 19, 20, 21, 22, 23, 66, 67, 68, 69, 70, 71, 72, 73])} " \
                f"{''.join(rng.choice('ABCDEFGHJKLMNOPRSTUVWXYZ') for _ in range(3))}"
            return self.reg("licence_plate", rng.choice([r, r, r.replace(" ", ""), r.lower()]))
        if key == "url_photo":
            tok = "".join(rng.choice("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(10))
            return self.reg("url_with_id", rng.choice([f"https://photos.example.net/share/{tok}", f"https://drive.example.org/f/{tok}"]))
        if key == "url_bill":
            inv = f"{rng.randint(10000000, 99999999)}"
            return self.reg("url_with_id", rng.choice([f"https://my.ashgrove.example.com/account/{p['acct']}/bills/{inv}",
                                                       f"https://my.ashgrove.example.com/bills/{inv}?acc={p['acct']}"]))
        if key == "url_booking":
            tok = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(8))
            return self.reg("url_with_id", f"https://book.ashgrove.example.com/appt/{tok}")
        if key == "booking":
            if "booking" not in self.cache:
                self.cache["booking"] = f"SMI-{rng.randint(100000, 999999)}"
            return self.reg("account_number", self.cache["booking"])
        if key == "amount":
            while True:
                pounds = rng.randint(18, 640)
                if pounds not in (60, 75, 150, 10):
                    return f"£{pounds}.{rng.randint(0, 99):02d}"
        if key in ("reading", "reading2"):
            return f"{rng.randint(0, 99999):05d}"
        if key == "date":
            return _date_phrase(rng, self.when)
        if key == "month":
            return rng.choice(MONTHS)
        if key == "weekday":
            return rng.choice(WEEKDAYS)
        if key == "nth":
            d = rng.choice([1, 3, 8, 15, 20, 22, 25, 28])
            return f"{d}{_nth(d)}"
        if key == "age":
            return str(rng.randint(67, 93))
        if key == "tariff":
            return p["tariff"]
        if key == "product":
            tid = self.t["id"]
            fixed = ["Ashgrove Fixed Saver", "Ashgrove Green Fix", "Ashgrove Online Fix"]
            if tid == "exit_fee_amount":
                return p["tariff"] if p["tariff"] in fixed else rng.choice(fixed)
            if tid == "ev_offpeak_rate":
                return "Ashgrove EV Nights"
            return p["tariff"] if p["tariff"] in TARIFFS else rng.choice(TARIFFS)
        if key == "rival":
            return rng.choice(RIVALS)
        if key == "town":
            return rng.choice(TOWNS)[1]
        if key == "wrongline":
            return self.cache["m"] if "m" in self.cache else LINE
        raise KeyError(key)

    def fill(self, tpl):
        return re.sub(r"\{(\w+)\}", lambda mm: self.val(mm.group(1)), tpl)


def _nth(d):
    return "th" if 11 <= d <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")


def _date_phrase(rng, when):
    d, m, y = when
    d2 = max(1, min(28, d + rng.randint(-20, 20)))
    m2 = m if rng.random() < 0.6 else (m % 12) + 1
    return rng.choice([f"{d2} {MONTHS[m2 - 1]}", f"the {d2}{_nth(d2)}", f"{d2:02d}/{m2:02d}", f"{MONTHS[m2 - 1][:3]} {d2}",
                       f"{d2}{_nth(d2)} {MONTHS[m2 - 1]}", f"{d2}/{m2}/{y % 100}"])


def _typos(rng, text, rate, protect):
    spans = []
    for s in protect:
        if s:
            for mm in re.finditer(re.escape(s), text):
                spans.append((mm.start(), mm.end()))

    def repl(mm):
        w = mm.group(0)
        if any(a < mm.end() and mm.start() < b for a, b in spans) or rng.random() > rate:
            return w
        low = w.lower()
        if low in COMMON_TYPOS and rng.random() < 0.6:
            return COMMON_TYPOS[low]
        if len(w) < 4:
            return w
        i = rng.randrange(1, len(w) - 2)
        op = rng.randrange(3)
        if op == 0:
            return w[:i] + w[i + 1] + w[i] + w[i + 2:]
        if op == 1:
            return w[:i] + w[i + 1:]
        return w[:i] + w[i] + w[i:]

    return re.sub(r"[A-Za-z]+", repl, text)


# ----------------------------------------------------------------------------------------- record writing
def _customer_body(r: _Rec, misquote: bool, fmt: str) -> str:
    rng, t = r.rng, r.t
    parts = []
    opener = rng.choice(OPENERS if fmt != "letter" else ["Dear Sir/Madam", "Dear Ashgrove Energy", "Dear Sirs", "To whom it may concern"])
    if opener:
        parts.append(opener + (",\n" if fmt == "letter" else rng.choice([",", "", ",\n"])))
    stories = [rng.choice(t["stories"])]
    for s in stories:
        parts.append(r.fill(s))
    if rng.random() < 0.4:
        parts.insert(len(parts) - len(stories) if rng.random() < 0.5 else len(parts), r.fill(rng.choice(CONTEXT)))
    if misquote:
        parts.append(r.fill(rng.choice(_MIS_BY_TYPE.get(t["id"], MIS_LINES))))
    parts.append(rng.choice(t["asks"]))
    # identifiers the customer volunteers
    extras = []
    if rng.random() < 0.45 and "{acct}" not in " ".join(stories):
        extras.append(rng.choice(["My account number is {acct}.", "Account: {acct}", "(acc no {acct})", "Ref {acct}",
                                  "account number {acct}", "My customer number is {acct}."]))
    if rng.random() < 0.3:
        mob = r.p["phone"].startswith("07")
        extras.append(rng.choice(["You can reach me on {phone}.", "Mob: {phone}" if mob else "Home phone: {phone}",
                                  "Please call me on {phone} if easier.", "Tel {phone}", "my number is {phone}",
                                  "Text me on {phone}" if mob else "Landline {phone} (evenings)"]))
    if rng.random() < 0.2 and "{addr" not in " ".join(stories):
        extras.append(rng.choice(["The address is {addr_pc}.", "Property: {addr_pc}", "I'm at {addr}, {pc}."]))
    if rng.random() < 0.14:
        extras.append(rng.choice(["DOB {dob}", "My date of birth is {dob} if you need it for security.", "d.o.b. {dob}",
                                  "(born {dob}, the account is in my name)"]))
    if rng.random() < 0.04:
        extras.append(rng.choice(["My NI number is {ni} if you need to verify me.", "NI: {ni}",
                                  "I've had to give my national insurance number ({ni}) to everyone else so here it is."]))
    if rng.random() < 0.05 and t["id"] in ("dd_change_notice", "refund_timescale", "final_bill_timing", "prepay_emergency_credit",
                                          "exit_fee_amount", "backbilling_limit", "meter_reading_online"):
        extras.append(rng.choice(["I paid {amount} by card ending {card4} on {date}.", "Card used was the one ending {card4}.",
                                  "I made a payment of {amount} on {date} with my debit card {cardfull}."]))
    for e in extras:
        parts.append(r.fill(e))
    sign = rng.choice(SIGNOFFS)
    how = rng.choice(["first", "full", "full", "title", "initial", "none"])
    parts.append(sign + ("\n" + r.name(how) if how != "none" else ""))
    if rng.random() < 0.05:
        parts.append(r.fill(rng.choice(PS_LINES)))
    joiner = rng.choice([" ", " ", "\n"])
    return joiner.join(parts).replace("\n ", "\n")


ACKS = ["I've had a look at your account.", "I can see what's happened here.", "I've checked the notes on your account.",
        "I understand how frustrating this must be.", "That's no problem at all.", "Happy to help with this.",
        "I've gone through your account history.", "Sorry this has been such a hassle.", "Thanks for explaining everything so clearly."]
TEAMS = {"meter_reading_online": "Billing Team", "smart_install_duration": "Smart Metering Team",
         "dd_change_notice": "Payments Team", "moving_home_notice": "Home Moves Team", "final_bill_timing": "Final Billing Team",
         "emergency_line": "Customer Care", "exit_fee_amount": "Customer Care", "warm_home_discount_amount": "Customer Support Team",
         "refund_timescale": "Payments Team", "prepay_emergency_credit": "SmartPay Team", "cooling_off_period": "Switching Team",
         "meter_accuracy_test_fee": "Metering Team", "backbilling_limit": "Customer Relations", "ev_offpeak_rate": "EV Team"}


def _agent_body(r: _Rec, stated: bool, misquote: bool, fmt: str) -> tuple[str, bool]:
    rng, t = r.rng, r.t
    lines = []
    g = rng.random()
    if g < 0.4 or (fmt == "letter" and g < 0.8):
        lines.append(f"Dear {r.name('title')},")
    elif g < 0.8:
        lines.append(f"{rng.choice(['Hi', 'Hello', 'Hi', 'Good morning', 'Good afternoon'])} {r.name('first')},")
    elif g < 0.9:
        lines.append(f"Dear {r.name('full')},")
    else:
        lines.append(rng.choice(["Hello,", "Dear customer,", "Hi there,"]))
    emp = rng.choice(EMPATHY) if fmt != "letter" else rng.choice(["Thank you for your letter.", "Thank you for writing to us.",
                                                                     "Thank you for your recent letter.", ""])
    intro = rng.choice(INTROS)
    head = [x for x in [emp, r.fill(intro.replace("{agent_first}", "{AG}")) if intro else ""] if x]
    signed = "{agent_first}" in intro
    body = []
    if rng.random() < 0.35:
        body.append(rng.choice(ACKS))
    if stated:
        if misquote:
            if r.cache.get("m") == LINE:
                body.append(rng.choice([f"{LINE} is our main customer line, which isn't staffed overnight.",
                                        f"The {LINE} number is for general enquiries and closes in the evening."]))
            else:
                body.append(r.fill(rng.choice(CORRECT)))
        body.append(r.fill(rng.choice(t["say"])))
        body.extend(rng.sample(t["extra"], k=rng.choice([0, 1, 1, 2]) if len(t["extra"]) > 1 else 1))
    else:
        body.append(rng.choice(t["more"]))
        if rng.random() < 0.4:
            body.append(rng.choice(t["extra"]))
    if rng.random() < 0.3 and t["id"] not in ("exit_fee_amount", "ev_offpeak_rate", "prepay_emergency_credit") \
            and r.p["tariff"] != "SmartPay":
        body.insert(len(body) if misquote or rng.random() < 0.5 else 1 if body and body[0] in ACKS else 0,
                    r.fill(rng.choice(["I can see you're on our {tariff} tariff.", "Your account is on {tariff} at the moment.",
                                       "I've checked your {tariff} account."])))
    if rng.random() < 0.25:
        body.append(r.fill(rng.choice(["I've noted the account as {acct}.", "I've checked account {acct} and everything else looks fine.",
                                       "I've added a note to your account ({acct}).", "I've updated the contact number to {phone}.",
                                       "For your records, this relates to account {acct}."])))
    if head and rng.random() < 0.5:
        lines.append(" ".join(head))
        head = []
    cut = rng.randint(1, len(body)) if len(body) > 2 and rng.random() < 0.5 else len(body)
    lines.append(" ".join(head + body[:cut]))
    if body[cut:]:
        lines.append(" ".join(body[cut:]))
    closer = rng.choice(CLOSERS).replace("{LINE}", LINE).replace("{WEB}", WEB)
    if closer:
        lines.append(closer)
    return "\n\n".join(lines), signed


def _signature(r: _Rec, signed_already: bool, fmt: str) -> str:
    rng = r.rng
    val = "Yours sincerely" if fmt == "letter" and rng.random() < 0.7 else rng.choice(VALEDICTIONS)
    team = TEAMS[r.t["id"]] if rng.random() < 0.5 else "Customer Care"
    roll = rng.random()
    foot = "\n\n" + rng.choice(FOOTERS) if rng.random() < 0.15 else ""
    return _sig_core(r, val, team, roll, signed_already) + foot


def _sig_core(r, val, team, roll, signed_already):
    rng = r.rng
    if roll < 0.35:
        return f"{val},\n{r.agent_name()}\n{COMPANY} {team}"
    if roll < 0.5:
        return f"{val},\n{r.agent_name('full')} | {COMPANY} | {LINE}"
    if roll < 0.62:
        return f"{val},\n{r.agent_name(rng.choice(['full', 'initial']))}\n{team}\n{COMPANY}\n{WEB}"
    if roll < 0.8 or signed_already:
        return f"{val},\n{r.agent_name('first')}" + ("" if rng.random() < 0.5 else f" - {team}")
    if roll < 0.9:
        return f"{val},\nThe {COMPANY} Team\n{WEB}"
    return f"{val},\n{team}, {COMPANY}"


def _fmt_date(when, style):
    d, m, y = when
    return {0: f"{d:02d}/{m:02d}/{y}", 1: f"{d} {MONTHS[m - 1]} {y}", 2: f"{y}-{m:02d}-{d:02d}"}[style]


def _compose(r: _Rec, stated: bool, misquote: bool, fmt: str) -> str:
    rng, p, t = r.rng, r.p, r.t
    # customer's free text: written first, then lower-cased and given typos the way people type
    mark = len(r.items)
    body = _customer_body(r, misquote, fmt)
    if rng.random() < 0.13:
        body = body.lower()
        r.items[mark:] = [(k, s.lower()) for k, s in r.items[mark:]]
    rate = rng.choice([0, 0, 0, 0.01, 0.02, 0.04])
    if rate:
        protect = [s for _, s in r.items[mark:]] + t["forms"] + PRODUCTS + RIVALS + [COMPANY, LINE, WEB, MAIL]
        if "m" in r.cache:
            protect.append(r.cache["m"])
        body = _typos(rng, body, rate, protect)

    # the agent's reply
    reply, signed = _agent_body_with_agent(r, stated, misquote, fmt)
    sig = _signature(r, signed, fmt)
    hh, mm = rng.randint(7, 22), rng.randint(0, 59)
    d1 = _fmt_date(r.when, 1)
    if fmt == "email":
        subj = rng.choice(["Your enquiry", "Your message to " + COMPANY, rng.choice(_TOPICS[t["id"]]),
                           rng.choice(["my account", "question", "bill", "meter", "help please", "URGENT", "complaint",
                                       "account query", "(no subject)"])])
        cust_from = f"{r.name('full')} <{r.reg('email', p['email'])}>" if rng.random() < 0.8 else r.reg("email", p["email"])
        return (f"Subject: RE: {subj}\nFrom: {COMPANY} <{MAIL}>\nDate: {_fmt_date(r.when, 0)} {hh:02d}:{mm:02d}\n\n"
                f"{reply}\n\n{sig}\n\n-----Original Message-----\nFrom: {cust_from}\nSent: {d1}\nTo: {MAIL}\n\n{body}")
    if fmt == "webform":
        ref = r.reg("account_number", f"WEB-{r.when[2]}-{rng.randint(100000, 999999)}")
        fields = [f"Web enquiry {ref}", f"Topic: {rng.choice(_TOPICS[t['id']])}"]
        fields.append(f"Name: {r.name(rng.choice(['full', 'full', 'title', 'initial']))}")
        if rng.random() < 0.7:
            fields.append(f"Account number: {r.acct()}")
        else:
            fields.append("Account number:")
        fields.append(f"Email: {r.reg('email', p['email'])}")
        if rng.random() < 0.6:
            fields.append(f"Phone: {r.phone()}")
        if rng.random() < 0.5:
            fields.append(f"Supply postcode: {r.pc()}")
        return ("\n".join(fields) + f"\nMessage: {body}\n\n--- Response sent {_fmt_date(r.when, 0)} ---\n{reply}\n\n{sig}")
    if fmt == "ticket":
        tid = r.reg("account_number", f"{rng.randint(3000000, 3999999)}")
        ch = rng.choice(["Email", "Email", "Web chat (offline)", "Facebook message", "Online account"])
        return (f"Ticket #{tid} | Channel: {ch} | Opened {_fmt_date(r.when, 2)} {hh:02d}:{mm:02d}\n"
                f"CUSTOMER:\n{body}\n\nAGENT REPLY ({r.agent_name(rng.choice(['first', 'initial']))}):\n{reply}\n\n{sig}")
    # a scanned letter and the posted reply
    top = f"{r.name(rng.choice(['title', 'initial', 'full']))}\n{r.addr(with_town=True)}\n{r.pc()}"
    return (f"[Letter received {_fmt_date(r.when, 0)}, scanned]\n{top}\n\n{body}\n\n[Reply sent by post]\n"
            f"{reply}\n\n{sig}")


def _agent_body_with_agent(r, stated, misquote, fmt):
    # {AG} in the intro line is the agent's first name
    orig = r.val

    def val(key):
        return r.agent_name("first") if key == "AG" else orig(key)

    r.val = val
    try:
        return _agent_body(r, stated, misquote, fmt)
    finally:
        r.val = orig


_TOPICS = {
    "meter_reading_online": ["Meter readings", "My bill", "Billing query"],
    "smart_install_duration": ["Smart meters", "Appointments"],
    "dd_change_notice": ["Payments", "Direct Debit"],
    "moving_home_notice": ["Moving home", "Moving home"],
    "final_bill_timing": ["Closing my account", "My bill"],
    "emergency_line": ["Supply problem", "Complaint", "Other"],
    "exit_fee_amount": ["Tariffs", "Leaving Ashgrove"],
    "warm_home_discount_amount": ["Help with bills", "Warm Home Discount"],
    "refund_timescale": ["Refunds", "Payments"],
    "prepay_emergency_credit": ["Prepayment", "SmartPay"],
    "cooling_off_period": ["Joining Ashgrove", "Cancel my switch"],
    "meter_accuracy_test_fee": ["Meter problem", "Billing query"],
    "backbilling_limit": ["Billing query", "Complaint"],
    "ev_offpeak_rate": ["Tariffs", "Electric vehicles"],
}


def _words(text):
    return len(text.split())


def _ok(text, t, stated, misquote, mis_value, reply_start):
    if not 50 <= _words(text) <= 250:
        return False
    for u in TYPES:
        if u is t:
            continue
        if any(_holds(text, f) for f in u["forms"]):
            return False
    own = [f for f in t["forms"] if _holds(text, f)]
    if stated and not any(_holds(text[reply_start:], f) for f in t["forms"]):
        return False
    if not stated and own:
        return False
    if misquote and mis_value.lower() not in text.lower():
        return False
    return True


def _holds(text, form):
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


def _reply_start(text, fmt):
    for marker in ("--- Response sent", "AGENT REPLY", "[Reply sent by post]"):
        i = text.find(marker)
        if i >= 0:
            return i
    return 0 if fmt == "email" else len(text)


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    rng = random.Random(f"ashgrove-energy/{seed}/{n}")
    counts = _alloc(rng, n)
    labels = [i for i, c in enumerate(counts) for _ in range(c)]
    rng.shuffle(labels)

    phones = (_Pool(rng, [f"07700 900{i:03d}" for i in range(1000)]), _Pool(rng, [f"020 7946 0{i:03d}" for i in range(1000)]))
    used_acct: list[str] = []
    owners: list[int] = []
    people = []
    while len(owners) < n:
        pid = len(people)
        people.append(_person(rng, f"cust-{pid:05d}", phones, used_acct))
        owners.extend([pid] * rng.choices([1, 2, 3], weights=[74, 19, 7])[0])
    owners = owners[:n]
    rng.shuffle(owners)

    agents = []
    for _ in range(max(12, min(40, n // 15))):
        agents.append(_name(rng, rng.random() < 0.6)[:2])

    records, pii_rows = [], []
    stated_by = [0] * len(TYPES)
    mis_by = [0] * len(TYPES)
    for i in range(n):
        t = TYPES[labels[i]]
        p = people[owners[i]]
        for _attempt in range(200):
            misquote = rng.random() < 0.11
            stated = misquote or counts[labels[i]] < 5 or rng.random() > (0.03 if t["id"] == "emergency_line" else 0.07)
            when = (rng.randint(1, 28), rng.randint(1, 12), rng.choice([2023, 2024, 2024, 2025]))
            agent = rng.choice(agents)
            fmt = rng.choices(["email", "webform", "ticket", "letter"], weights=[38, 27, 25, 10])[0]
            r = _Rec(rng, p, t, agent, when, agents)
            r.cache["f"] = rng.choices(t["forms"], weights=t["fw"])[0]
            mis_value = rng.choice(t["mis"])
            if misquote:
                r.cache["m"] = mis_value
            text = _compose(r, stated, misquote, fmt)
            text = re.sub(r"[ \t]+\n", "\n", text)
            if _ok(text, t, stated, misquote, mis_value, _reply_start(text, fmt)):
                break
        else:  # pragma: no cover - the retries above always find a fitting draw
            raise RuntimeError(f"could not write record {i} of type {t['id']}")
        rid = f"nrg-{i + 1:06d}"
        seen, items = set(), []
        for kind, s in r.items:
            if s and (kind, s) not in seen and s in text:
                seen.add((kind, s))
                items.append({"kind": kind, "text": s})
        records.append({"id": rid, "text": text, "person_id": p["pid"], "type": t["id"],
                        "customer_name": f"{p['first']} {p['last']}", "email": p["email"], "phone": p["phone"],
                        "account_number": p["acct"], "supply_postcode": p["pc"]})
        pii_rows.append({"id": rid, "pii": items})
        stated_by[labels[i]] += int(stated)
        mis_by[labels[i]] += int(misquote)

    types = []
    for k, t in enumerate(TYPES):
        types.append({"id": t["id"], "records": counts[k], "fact": t["fact"], "forms": list(t["forms"]),
                      "stated_by": stated_by[k], "misquoted_by": mis_by[k]})
    types.sort(key=lambda x: -x["records"])
    questions = []
    for k, t in enumerate(TYPES):
        for q in t["questions"]:
            questions.append({"question": q, "answers": list(t["forms"]), "type": t["id"], "support": counts[k]})
    return {
        "domain": "energy",
        "records": records,
        "pii": pii_rows,
        "types": types,
        "questions": questions,
        "public": {"company": COMPANY, "public_strings": [COMPANY, LINE, EMERGENCY, WEB, READINGS, MAIL],
                   "product_names": list(PRODUCTS),
                   "identifier_fields": ["customer_name", "email", "phone", "account_number", "supply_postcode"],
                   "id_field": "id", "text_field": "text", "unit_field": "person_id"},
    }
