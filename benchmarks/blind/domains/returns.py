"""Blind own-data domain: the returns & refunds desk of Havercroft, an online department store.

A record is one returns case as the helpdesk exports it: a ticket with the customer's e-mail and the agent's
answer, a live-chat transcript, a returns-portal request with the team's response, an Outlook-style reply
with the original message underneath, or a callback request with the agent's call notes. All names,
numbers and addresses are invented. Standard library only.
"""

from __future__ import annotations

import datetime
import random
import re
import unicodedata

BRAND = "Havercroft"
WEB = "www.havercroft.example.com"
PORTAL = "returns.havercroft.example.com"
DESK_MAIL = "returns@havercroft.example.com"
DESK_PHONE = "0808 157 0655"
PRODUCT_NAMES = ["Havercroft Unlimited", "Courier Collect", "Havercroft DropPoint", "EasyReturn",
                 "Havercroft Gift Card", "Aria 3-Seater Sofa", "Pulse X5", "Lumen Tab 10", "Cloudstep Runner",
                 "Nordvik Dining Table", "Havercroft Home", "Solace Memory Foam Mattress"]

# catalogue: (what customers call it, price, kind)
CATALOGUE = [
    ("Cloudstep Runner trainers", 64.00, "shoes"), ("Cloudstep Runner", 64.00, "shoes"), ("suede Chelsea boots", 89.50, "shoes"),
    ("linen shirt", 32.00, "fashion"), ("wrap dress", 48.00, "fashion"), ("puffer jacket", 120.00, "fashion"),
    ("wool coat", 165.00, "fashion"), ("jeans (straight leg)", 45.00, "fashion"), ("school blazer", 27.50, "fashion"),
    ("bridesmaid dress", 95.00, "fashion"), ("merino jumper", 58.00, "fashion"), ("kids' wellies", 18.00, "shoes"),
    ("Aria 3-Seater Sofa", 899.00, "furniture"), ("Nordvik Dining Table", 549.00, "furniture"),
    ("Solace Memory Foam Mattress", 429.00, "furniture"), ("oak bedside table", 139.00, "furniture"),
    ("corner desk", 219.00, "furniture"), ("Pulse X5", 679.00, "phone"), ("Pulse X5 Lite", 399.00, "phone"),
    ("Lumen Tab 10", 249.00, "phone"), ("air fryer", 89.00, "electrical"), ("coffee machine", 179.00, "electrical"),
    ("cordless vacuum", 229.00, "electrical"), ("bluetooth speaker", 59.00, "electrical"),
    ("duvet set (king)", 70.00, "home"), ("set of 4 pasta bowls", 24.00, "home"), ("blackout curtains", 55.00, "home"),
    ("table lamp", 42.00, "home"), ("bath towels", 30.00, "home"), ("perfume gift set", 38.00, "beauty"),
]

# ----------------------------------------------------------------------------------------------------- people

FIRST_F = """Hope May Rose Grace Joy Dawn Crystal Sky Brooke Summer Holly Ruby Poppy Hazel Clover Liberty Honey
Sarah Emma Laura Rachel Rebecca Hannah Jessica Lauren Stacey Danielle Natalie Vicky Zoe Abigail Megan Eleanor Alice
Lucy Charlotte Jenny Karen Susan Linda Julie Angela Michelle Tina Paula Yvonne Aisling Caoimhe Saoirse Sinead Mhairi
Isla Ffion Nia Anika Pooja Neha Simran Jaspreet Rabia Sana Hina Tasnim Shamima Adaku Ifeoma Nkechi Yaa Afia Lindiwe
Zanele Nasra Sagal Xin Yan Jing Haruka Sakura Eun-ji Seo-yeon Ngoc Hoa Marta Joanna Ewa Monika Alina Irina Oksana
Raluca Simona Daina Laura Camille Chloé Léa Manon Sophie Anna Lena Katrin Julia Lotte Fenna Saskia Sanne Lucia Paula
Alba Nerea Giorgia Martina Alessia Sara Beatriz Mariana Joana Aylin Merve Yasmin Dina Layla Rania Tamar Noa""".split()

FIRST_M = """Mark Will Jack Guy Rich Frank Grant Miles Chase Cole Brook Wolf Rusty Sonny Drew Hayden Jay
James John David Michael Paul Andrew Steven Christopher Daniel Matthew Thomas Ryan Adam Luke Jamie Ben Sam Joe Josh
Danny Lewis Nathan Kyle Aaron Ross Scott Gavin Darren Ian Phil Pete Martin Ciarán Oisín Cathal Tadhg Ruairí Euan Murdo
Gethin Huw Amit Rohit Karan Nikhil Manjit Jaswinder Zubair Usman Asif Adnan Shakil Rafiq Obinna Chidi Uche Kwaku
Kobina Sipho Bongani Abdiwali Guled Hui Zhiwei Haruto Takumi Jun-seo Dong-hyun Quang Long Paweł Kamil Marcin Rafał
Vasile Ionuț Oleksandr Taras Vytautas Mantas Antoine Julien Mathis Lukas Jonas Felix Tobias Jeroen Bram Daan Sander
Pablo Diego Alejandro Sergio Alessandro Matteo Davide Rui Pedro Duarte Kerem Onur Hakan Omid Ali Yosef Eitan""".split()

LAST = """Green Brown King Field Fields Church Stone Wood Waters Rivers Baker Carpenter Glass Steel Pike Salmon Swift
Finch Drake Crane Heron Rook Wren Noble Bull Bullock Lamb Hope May Rose Young Hardy Sharp Moody Wild Lovejoy Goodman
Newman Freeman Chapman Fairweather Sunshine Merryweather Gladwin Honey Pepper Mustard Bacon Butter Sugden Lane Street
Bridge Well Wells Pond Marsh Heath Moor Dale Holmes Castle Tower Temple Abbott Monk Prior Cannon Sergeant Marshall
Major Spencer Steward Butler Cook Smith Jones Taylor Davies Evans Wilson Johnson Walker Wright Robinson Thompson White
Hughes Edwards Hall Harrison Clarke Jackson Lewis Scott Cooper Morris Ward Turner Hill Moore Watson Mitchell Kelly
Byrne Ryan O'Sullivan Fitzgerald McGrath Kavanagh Brennan Duffy Maguire MacLeod Sinclair Gordon Cameron Mackay
Llewelyn Vaughan Powell Jenkins Patel Parekh Desai Mehta Kapoor Malhotra Bhatia Sidhu Grewal Anwar Javed Rashid
Shaikh Chowdhury Miah Islam Okoye Obi Chukwu Adewale Ogunleye Amoah Darko Agyeman Nkosi Dlamini Mohamud Ismail Yusuf
Huang Zhou Wu Xu Sun Ma Nakamura Suzuki Watanabe Choi Jung Kang Vo Hoang Dang Wojcik Kaminski Zielinski Szymanski
Dąbrowski Stan Rusu Marin Melnyk Bondarenko Petrauskas Jankauskas Bernard Laurent Lefèvre Fournier Girard Becker
Hoffmann Wagner Schulz Fischer Bakker Visser de Jong van Dijk Smit Fernández González Sánchez Romero Navarro Ricci
Marino Greco Conti Oliveira Costa Carvalho Sousa Öztürk Şahin Çelik Karimi Ahmadi Mizrahi Friedman Levy""".split()
# "de Jong" and "van Dijk" were split above; rebuild the two-word surnames
LAST = [x for x in LAST if x not in {"de", "Jong", "van", "Dijk"}] + ["de Jong", "van Dijk"]

STAFF = [("Kerry", "Pollard"), ("Dev", "Sharma"), ("Harriet", "Mills"), ("Connor", "Walsh"), ("Mo", "Abdi"),
         ("Natasha", "Greene"), ("Luis", "Ortega"), ("Bev", "Church"), ("Aiden", "Fox"), ("Jasmine", "Owusu"),
         ("Steph", "Lane"), ("Gabriel", "Nowak"), ("Tilly", "Brooks"), ("Rahul", "Verma"), ("Gemma", "Stone"),
         ("Paddy", "Doyle"), ("Hollie", "King"), ("Femi", "Ade"), ("Zara", "Iqbal"), ("Callum", "Reid"),
         ("Ruth", "Field"), ("Olu", "Bankole")]

UK_STREETS = ["Acacia Avenue", "Kingsway", "Fore Street", "Lower Road", "The Green", "Bridge Street", "Market Place",
              "Gladstone Road", "Eastfield", "Holloway", "Cherry Tree Close", "Sycamore Way", "Portland Place",
              "Havelock Street", "Oxford Road", "The Avenue", "Moor Lane", "Foxglove Close", "Queensway",
              "Riverside Walk", "Clifton Terrace", "St Mary's Road", "Rectory Lane", "Windmill Hill", "Southgate",
              "Harbour View", "Grange Park", "Copse Hill", "Whinfield", "Ladysmith Road", "Beaconsfield"]
UK_BLOCKS = ["Anchor House", "Grafton Court", "The Maltings", "Priory Mews", "Lindley Court", "Dock Building"]
UK_TOWNS = ["Bristol", "Manchester", "Sheffield", "Brighton", "Milton Keynes", "Nottingham", "Glasgow", "Belfast",
            "Cambridge", "Southampton", "Plymouth", "Newcastle", "Aberdeen", "Coventry", "Leicester"]
OUTWARD = ("BS M S BN MK NG G BT CB SO PL NE AB CV LE LS B E N SE SW W WC NW L CH CW YO HG TS DH DL SR "
           "KT CR BR DA TW UB HA EN IG RM").split()
INTL = [  # country, street list, postcode maker, town list, IBAN country + length
    ("Ireland", ["Main Street", "Griffith Avenue", "Clontarf Road", "Mount Merrion Avenue", "Shandon Street"],
     lambda r: f"{r.choice(['D04', 'D08', 'D15', 'T12', 'H91', 'V94'])} {r.choice('ACDEFHKNPRTVWXY')}{r.randint(1, 9)}{r.choice('ACDEFHKNPRTVWXY')}{r.randint(1, 9)}",
     ["Dublin", "Cork", "Galway", "Limerick"], "IE"),
    ("Netherlands", ["Keizersgracht", "Oudegracht", "Witte de Withstraat", "Lange Voorhout"],
     lambda r: f"{r.randint(1000, 9999)} {r.choice('ABCDEGHJKLMNPRSTVWXZ')}{r.choice('ABCDEGHJKLMNPRSTVWXZ')}",
     ["Rotterdam", "Utrecht", "Den Haag", "Amsterdam"], "NL"),
    ("Germany", ["Hauptstraße", "Schillerstraße", "Bergstraße", "Lindenallee"],
     lambda r: f"{r.randint(10115, 99998)}", ["Hamburg", "Köln", "Leipzig", "München"], "DE"),
    ("France", ["rue de la République", "avenue Jean Jaurès", "rue Victor Hugo", "boulevard Carnot"],
     lambda r: f"{r.randint(10, 95)}{r.randint(0, 9)}{r.randint(0, 9)}0", ["Lyon", "Lille", "Nantes", "Bordeaux"], "FR"),
    ("Spain", ["Calle Mayor", "Avenida de la Constitución", "Calle del Carmen"],
     lambda r: f"{r.randint(1, 52):02d}{r.randint(0, 999):03d}", ["Valencia", "Sevilla", "Málaga", "Bilbao"], "ES"),
]
IBAN_LEN = {"IE": 22, "NL": 18, "DE": 22, "FR": 27, "ES": 24, "GB": 22}

# ----------------------------------------------------------------------------------------------------- topics

TOPICS = [
    {"id": "return_window", "weight": 80, "fact": "30 days",
     "forms": ["30 days", "thirty days", "30-day", "thirty-day"],
     "questions": ["How long have I got to send something back?",
                   "What's the deadline for returning an item I've changed my mind about?",
                   "Until when after delivery can I still return an order?"],
     "subject": ["Can I still return this?", "Return deadline", "too late to return?", "returning <item>"],
     "situation": ["I bought the <item> on <odate> and honestly it's just not for me.",
                   "Ordered the <item> for a holiday which then got cancelled, it's still in the bag with tags on.",
                   "The <item> arrived <odate>, I've only just got round to trying it on and it's too small.",
                   "My <rel_role> <rel> ordered me the <item> on my account and I'd rather have the money back.",
                   "I've had the <item> sat in the hallway for a bit because I've been away with work.",
                   "Bit embarrassing but I bought two of the <item> by accident (order <order>).",
                   "The colour of the <item> is nothing like the photos on the website.",
                   "Just moved house and found the <item> still boxed, unused.",
                   "Bought the <item> (£<price>) in the sale and changed my mind.",
                   "Thinking of sending the <item> back but want to check I'm not too late.",
                   "I kept the receipt for the <item>, delivered <odate>, but lost track of time."],
     "ask": ["How long do I have to return it?", "is there a time limit for returns?",
             "Am I still within the returns period?", "what's your return window??",
             "How many days do I get to send stuff back?", "Can I still send it back or is it too late?"],
     "say": ["You can return most items within <F> of delivery for a full refund.",
             "Our returns window is <F> from the day your order was delivered.",
             "As long as it's unused and in its original condition, you have <F> from delivery to send it back.",
             "We accept returns up to <F> after delivery, so you're fine to go ahead."],
     "adjectival": ["30-day", "thirty-day"],
     "say_adj": ["We have a <F> returns policy, counted from the day your order is delivered.",
                 "Our <F> return window starts on the delivery date.",
                 "Everything we sell comes with a <F> returns period from delivery."],
     "more": ["Items need to be unused and in their original packaging where possible.",
              "Your order shows as delivered on the 9th, so there's plenty of time.",
              "Once it's back with us we'll email you to confirm.",
              "Personalised items and opened earrings can't be returned for hygiene reasons."],
     "wrong": ["28 days", "60 days", "a month", "21 days", "90 days"]},
    {"id": "refund_timing", "weight": 66, "fact": "5 working days",
     "forms": ["5 working days", "five working days", "5 business days", "five business days"],
     "questions": ["Once you get my parcel back, how quickly is the money refunded?",
                   "How long does a refund take after the return arrives at your warehouse?",
                   "When will I see my money after sending something back?"],
     "subject": ["Where is my refund", "REFUND", "still no refund", "refund for order <order>", "Refund timescale"],
     "situation": ["I sent back the <item> on <odate> and the tracking says you've had it since.",
                   "My refund for the <item> (£<price>) still hasn't shown on my card ending <card>.",
                   "Returned two items from order <order> at the DropPoint, got the drop-off email but nothing else.",
                   "I need the money for the <item> back before my rent goes out, to be honest.",
                   "You've refunded the jeans but not the <item> from the same parcel.",
                   "The Royal Mail receipt says my return was delivered to you on <odate>.",
                   "I paid with Klarna for the <item> and I'm getting payment reminders even though I've sent it back.",
                   "Sent the <item> back via Courier Collect, return number <rma>.",
                   "My bank says they can't see anything pending from Havercroft.",
                   "The card ending <card> I paid with has been cancelled since. Can it go to my bank instead? Sort code <sort>, account <accno>.",
                   "My <rel_role> <rel> returned the <item> for me on <odate> and I've heard nothing since."],
     "ask": ["How long does the refund take?", "when will I get my money back?", "how long do refunds normally take",
             "What's the timescale for refunds?", "How much longer will it be?"],
     "say": ["Refunds are processed within <F> of your return reaching our warehouse.",
             "Once the parcel is checked in, please allow <F> for the money to reach your account.",
             "We aim to refund within <F> from the day the return is scanned at our returns centre.",
             "Your refund will be issued within <F> of us receiving the item."],
     "more": ["Your bank may take a little longer to show it on your statement.",
              "If you paid with Klarna, your statement will update once we process the refund.",
              "I can see the parcel was checked in yesterday, so it's in the queue.",
              "You'll get an email as soon as the refund has been issued."],
     "wrong": ["10 working days", "24 hours", "7 days", "within the week"]},
    {"id": "return_label", "weight": 53, "fact": PORTAL,
     "forms": [PORTAL, f"https://{PORTAL}"],
     "questions": ["Where do I get a label to send my return?",
                   "How do I print a returns label, there wasn't one in the box?",
                   "What website do I use to create a return?"],
     "subject": ["No returns label", "Return label", "how do I send this back", "label not in parcel"],
     "situation": ["There was no returns slip in the box for my <item>.",
                   "I've lost the paperwork that came with order <order>.",
                   "My printer's broken and I need to send back the <item>.",
                   "I want to return the <item> but can't find where to start it in the app.",
                   "The label I printed last week has smudged and the barcode won't scan at the post office.",
                   "Sending back a gift from my <rel_role> <rel>, no paperwork at all.",
                   "I tried the link in my delivery email and it went to a blank page."],
     "ask": ["How do I get a returns label?", "where do I print a label from?", "what's the link for returns",
             "Can you send me a label please?", "How do I start a return?"],
     "say": ["You can create a return and a free label at <F> - just enter your order number and postcode.",
             "Please start your return at <F>; you can print the label or show a QR code at a DropPoint.",
             "Labels are generated on our returns site, <F>.",
             "Head to <F>, pick the items you're sending back and it'll give you a label."],
     "more": ["If you don't have a printer, choose the QR code option and the DropPoint will print it for you.",
              "Keep the proof of postage until your refund comes through.",
              "You can send several items from the same order in one parcel."],
     "wrong": ["www.havercroft.example.com/return-label", "returns.havercroft.example.org", "havercroft-returns.example.net"]},
    {"id": "collection_fee", "weight": 43, "fact": "£3.95",
     "forms": ["£3.95", "3.95", "GBP 3.95", "three pounds ninety-five", "£3.95 per collection"],
     "questions": ["How much does it cost to have a courier pick up my return from home?",
                   "Is the home collection service for returns free, or is there a charge?"],
     "subject": ["Collection from home", "Courier Collect cost", "pick up my return", "booking a collection"],
     "situation": ["I can't get to a drop-off point because I don't drive, so I'd like the <item> picked up from home.",
                   "I've got a bad back and the <item> box is heavy.",
                   "I booked Courier Collect for tomorrow, slot 8am-6pm, and I'm wondering what it'll cost.",
                   "Work long hours so need someone to collect the <item> from <addr>.",
                   "My <rel_role> <rel> can hand it over if I'm out, can the courier collect?",
                   "Parking on our road is residents only, the driver can use my bay - it's marked with my reg <plate>."],
     "ask": ["How much is a collection?", "Do you charge for collections?", "what's the fee for courier collect?",
             "is it free to get it collected?"],
     "say": ["Courier Collect costs <F>, which we take off your refund.",
             "There's a charge of <F> for a home collection; it's deducted from the refund amount.",
             "Home collection is <F>, or you can drop it at any Havercroft DropPoint for free.",
             "A collection is <F> and you can choose the day when you book."],
     "more": ["Collections run Monday to Saturday between 7am and 7pm.",
              "The courier will bring the label with them, so you just need the parcel sealed.",
              "Havercroft Unlimited members get collections free."],
     "wrong": ["£2.95", "£4.99", "£5", "free"]},
    {"id": "restocking_fee", "weight": 36, "fact": "15%",
     "forms": ["15%", "15 percent", "15 per cent", "fifteen percent", "fifteen per cent"],
     "questions": ["Do you take a restocking fee if I return furniture I've unwrapped?",
                   "What percentage do you keep back when a big item like a sofa is returned after opening?"],
     "subject": ["Restocking fee?", "returning <item>", "large item return", "charge for returning furniture"],
     "situation": ["We've taken the <item> out of the packaging and it's too big for the room.",
                   "Our <item> (£<price>) arrived on <odate>; we've unpacked it and don't like it.",
                   "Saw something about a restocking fee in the small print when returning the <item>.",
                   "My <rel_role> assembled the <item> before I'd checked the measurements.",
                   "Order <order> - the <item> is fine, just the wrong shade of grey for our lounge."],
     "ask": ["How much is the restocking fee?", "Will I be charged for returning it?",
             "what do you deduct for opened furniture?", "how much will I actually get back?"],
     "say": ["For large furniture that has been unpacked or assembled we charge a restocking fee of <F> of the item price.",
             "An opened large item can be returned, but a <F> restocking fee applies.",
             "We deduct <F> from the refund for furniture that's no longer in its original packaging.",
             "The restocking charge is <F> of what you paid for the item."],
     "more": ["If it's still sealed there's no fee at all.",
              "Faulty items are never charged a restocking fee.",
              "We'll book a two-person collection team for the sofa."],
     "wrong": ["10%", "20%", "25%"]},
    {"id": "damage_report_deadline", "weight": 29, "fact": "48 hours",
     "forms": ["48 hours", "forty-eight hours", "2 days", "two days"],
     "questions": ["How quickly do I need to report something that arrived damaged?",
                   "My order came broken, what's the time limit to tell you?"],
     "subject": ["arrived damaged", "Broken on arrival", "DAMAGED ITEM", "cracked <item>"],
     "situation": ["The <item> arrived with a big dent and the box was ripped open.",
                   "Opened the parcel and the <item> is cracked, photos attached.",
                   "The driver (<driver>) literally threw the box over the gate, the <item> is dented.",
                   "The courier left the <item> in the rain and it's soaked through.",
                   "My <rel_role> <rel> took the parcel in for me and only opened it today: the <item> is smashed.",
                   "One leg of the <item> is snapped clean off."],
     "ask": ["How long do I have to report it?", "Is it too late to report the damage?",
             "what's the deadline for reporting this?", "do I need to tell you by a certain time?"],
     "say": ["Damage in transit needs to be reported within <F> of delivery, with a photo if possible.",
             "Please report any delivery damage to us within <F> of receiving the parcel.",
             "We ask customers to let us know about damaged items within <F> of delivery.",
             "Any damage has to be flagged within <F>, which you've done, so that's fine."],
     "more": ["I've arranged a free collection and a replacement will go out once it's booked in.",
              "Please keep the original packaging until the courier has collected it.",
              "There's no charge for returning damaged items."],
     "wrong": ["7 days", "24 hours", "a week"]},
    {"id": "exchange_dispatch", "weight": 24, "fact": "3 working days",
     "forms": ["3 working days", "three working days", "3 business days", "three business days"],
     "questions": ["If I swap an item for a different size, how long until the replacement is sent?",
                   "How quickly do you send out an exchange?"],
     "subject": ["Exchange for a different size", "swap size", "Exchange", "exchange <item>"],
     "situation": ["I need the <item> in a size up, I've already sent the first one back.",
                   "Requested an exchange on the <item> for the navy one instead of black.",
                   "The <item> fits my <rel_role> better than me, so swapping for a smaller size.",
                   "My exchange request reference is <rma>, I need it for a wedding on <odate>."],
     "ask": ["How long will the exchange take?", "when will the new one be sent out?",
             "How soon do exchanges get posted?"],
     "say": ["Exchanges are dispatched within <F> of your return arriving at our warehouse.",
             "We send the replacement out within <F> once the original is checked in.",
             "Once your return is scanned in, your exchange is sent within <F>."],
     "more": ["If the new size sells out in the meantime we'll refund you instead.",
              "You'll get a new tracking link by email."],
     "wrong": ["next day", "10 days", "a week"]},
    {"id": "gift_return", "weight": 20, "fact": "e-gift card",
     "forms": ["e-gift card", "e-gift voucher", "electronic gift card", "digital gift card"],
     "questions": ["If I return something I was given as a present, how do I get the value back?",
                   "How are gift returns refunded when I didn't pay for the item myself?"],
     "subject": ["Returning a present", "gift return", "Return without receipt", "Returning a gift"],
     "situation": ["My <rel_role> <rel> bought me the <item> for my birthday but it doesn't fit.",
                   "Got the <item> as a wedding present and we already have one.",
                   "I have a gift receipt for the <item> but not the order number.",
                   "The <item> was a Christmas present from my <rel_role>, I don't want them to know I'm returning it."],
     "ask": ["How will I get refunded?", "will the money go back to them?", "What do I get back for a gift return?"],
     "say": ["Gift returns are refunded as an <F> sent to your email, so the buyer isn't notified.",
             "For returns made with a gift receipt we issue the value as an <F>.",
             "You'll receive the amount on an <F> rather than cash or a card refund."],
     "more": ["It can be spent online or in any of our stores.",
              "The gift card is valid for two years."],
     "wrong": ["cash", "a refund to the buyer's card", "store credit in branch"]},
    {"id": "international_return_cost", "weight": 16, "fact": "£7.50",
     "forms": ["£7.50", "7.50", "GBP 7.50", "seven pounds fifty", "7 pounds 50"],
     "questions": ["What does it cost to send a return back from outside the UK?",
                   "I live in the EU, is there a charge to return my order?"],
     "subject": ["Return from <country>", "international return", "returning from abroad"],
     "situation": ["I live in <town>, <country> and need to return the <item>.",
                   "Ordered the <item> to my address in <country>: <addr>, <pc>.",
                   "We moved to <country> last year, still shop with you, but the <item> needs to go back.",
                   "Sending the <item> back from <town>. Could the refund go to my bank instead, IBAN <iban>?",
                   "The courier here asked for my ID number (<natid>) before they'd take the parcel, is that normal?",
                   "I'm in <country> for work till summer; the <item> I ordered to <addr> <pc> isn't what I expected."],
     "ask": ["How much does an international return cost?", "is there a charge to return from abroad?",
             "What will it cost me to send it back?"],
     "say": ["International returns cost <F>, deducted from your refund.",
             "Returns from outside the UK are charged at a flat <F>.",
             "We take <F> off the refund to cover the international return label."],
     "more": ["Please tick 'returned goods' on the customs form so you aren't charged duty.",
              "The refund goes back in pounds; your bank converts it."],
     "wrong": ["£5", "£12.50", "free"]},
    {"id": "unlimited_price", "weight": 13, "fact": "£9.99",
     "forms": ["£9.99", "9.99", "GBP 9.99", "nine ninety-nine", "£9.99 a year"],
     "questions": ["How much is the membership that gives free returns?",
                   "What does Havercroft Unlimited cost?"],
     "subject": ["Havercroft Unlimited", "free returns membership", "is Unlimited worth it"],
     "situation": ["I return quite a lot (sorry!) and my friend said Havercroft Unlimited makes returns free.",
                   "Paid for two collections this month already, thinking of getting Unlimited.",
                   "Saw Havercroft Unlimited at checkout when ordering the <item>."],
     "ask": ["How much is it?", "what does it cost per year?", "is it a monthly fee?"],
     "say": ["Havercroft Unlimited is <F> and gives you free next-day delivery and free collections.",
             "Unlimited costs <F> and includes free returns collections.",
             "The membership is <F> - it covers every order you place while it's active."],
     "more": ["You can add it at checkout or from your account page.",
              "It renews automatically, but you can switch that off."],
     "wrong": ["£4.99", "£12.99", "£19.99"]},
    {"id": "droppoint_qr_validity", "weight": 11, "fact": "14 days",
     "forms": ["14 days", "fourteen days", "two weeks", "2 weeks"],
     "questions": ["How long is the QR code for a drop-off return valid?",
                   "If I generate my return code today, how long can I wait before dropping the parcel off?"],
     "subject": ["QR code expired?", "DropPoint code", "return code not working"],
     "situation": ["I made my return for the <item> on <odate> but haven't been to the DropPoint yet.",
                   "The shop said my QR code wasn't valid any more.",
                   "Generated a code for the <item>, going away for a bit before I can drop it off."],
     "ask": ["How long does the QR code last?", "when does the code expire?", "will the code still work next week?"],
     "say": ["DropPoint QR codes are valid for <F> from when they're created.",
             "Your code will work for <F>; after that just create a new one.",
             "Each QR code lasts <F>."],
     "more": ["Creating a new code doesn't affect your return window."],
     "wrong": ["7 days", "a month", "5 days"]},
    {"id": "christmas_returns", "weight": 9, "fact": "31 January",
     "forms": ["31 January", "31st January", "January 31st", "31 Jan", "31st of January"],
     "questions": ["Is there an extended returns deadline for things bought before Christmas?",
                   "Until what date can I return Christmas gifts?"],
     "subject": ["Christmas returns", "Xmas gift return", "extended returns?"],
     "situation": ["I bought the <item> in November as a Christmas present.",
                   "Got the <item> early for Christmas, ordered <odate> (November)."],
     "ask": ["When's the last date to return it?", "Is there an extended deadline over Christmas?"],
     "say": ["Anything bought from 1 November can be returned until <F>.",
             "Our extended Christmas returns run until <F> for orders placed from 1 November."],
     "more": ["Gift receipts work the same way."],
     "wrong": ["31 December", "14 January", "the end of February"]},
]

# ----------------------------------------------------------------------------------------------------- phrasing

OPEN = ["Hello", "Hi", "Hey", "Hi Havercroft", "Good evening", "Hi guys,", "Hello there,", "Dear Havercroft team,",
        "", "", "", "Evening", "Right,", "Hello again,"]
CLOSE_C = ["Thanks", "Thank you", "Cheers", "Regards", "Thanks so much", "TIA", "", "", "Many thanks",
           "Speak soon", "Thanks, appreciate it", "x"]
DETAILS = ["If I'm not in, my <rel_role> <rel> usually is.", "You can also speak to my <rel_role> <rel> about it.",
           "Order number: <order>", "order no <order>", "It was order <order>.", "The order is <order>.",
           "My customer number is <acct>.", "(acct <acct>)", "Return ref <rma>.", "return number <rma>",
           "Delivered to <addr>, <pc>.", "My postcode is <pc>.", "Best number to get me on is <phone>.",
           "phone <phone>", "email me back at <email> please", "I paid with my <scheme> ending <card>.",
           "Tracking: <trackurl>", "Courier tracking no. <track>", "account email is <email>",
           "I'm at <addr> <pc> if you need it.", "the parcel number is <track>", "Order link: <orderurl>"]
MISTOLD = ["Your chat bot said <mq>.", "The driver told me <mq>.", "I read on a forum it's <mq>.",
           "It says <mq> on the back of my delivery note?", "Your colleague on the phone said <mq> last week.",
           "I was sure it was <mq>.", "Somebody on Facebook said <mq>, is that right?"]
FIX = ["I'm sorry if you were told <mq> - that's not correct.", "Just to clear up any confusion, it isn't <mq>.",
       "Apologies for the mixed messages you've had on this.", "That isn't quite right, I'm afraid."]
ASIDE = ["Not impressed tbh.", "First time I've had to return anything with you.", "Really hope you can help!",
         "I've been a customer for years.", "Sorry, I'm rubbish with these things.", "This is my third email.",
         "I'm abroad at the moment so email's best.", "Please don't make me ring up, I'm at work all day.",
         "Apologies for the essay.", "My <rel_role> is fuming about it too."]
OPENER_A = ["Thanks for contacting Havercroft.", "Thanks for dropping us a line.", "Thank you for your email.",
            "Thanks for reaching out.", "Sorry for the hassle with this.", "Thanks for your patience.",
            "I'm sorry to hear that.", "", "", "Thanks for waiting.", "Really sorry about this."]
HOLD = ["I'd be happy to look into this, but I can't find an order under that email. Could you send me the order number?",
        "So I can check this properly, can you confirm the postcode and the last four digits of the card you paid with?",
        "I'll need to check with our warehouse team first. Could you send a photo of the item and the label, please?",
        "Can you let me know which item from the order you're asking about? There are a few on there.",
        "Could you confirm the name the order was placed under? I'll then come back to you."]
NEXT = ["I've added a note to your account.", "I've reissued the confirmation to <email>.",
        "I can see your return <rma> on the system.", "I've updated the collection address to <addr>.",
        "Order <order> is showing as returned on our side.", "We'll text updates to <phone>."]
SIGN_A = ["Warm regards,", "All the best,", "Cheers,", "Best,", "Kind regards,", "Have a lovely day,", "Thanks again,",
          "Many thanks,", ""]
CHAT_END = ["Is there anything else I can help with today?", "Anything else I can do for you?",
            "Thanks for chatting with us!"]
CHAT_BYE = ["no that's all thanks", "thats it, thanks!", "Great, thanks for your help", "ok", "👍", "perfect ta"]
REASONS = ["Too small", "Too big", "Changed my mind", "Faulty", "Arrived damaged", "Not as described",
           "Wrong item sent", "Better price elsewhere", "Gift - not wanted", "Quality not as expected"]
SLIPS = {"received": "recieved", "refund": "refnd", "return": "retrun", "tomorrow": "tomorow", "definitely": "defo",
         "because": "coz", "parcel": "parcle", "please": "pls", "you": "u", "weeks": "wks", "thanks": "thx",
         "address": "adress", "already": "allready", "courier": "currier", "receipt": "reciept", "your": "ur",
         "which": "whcih", "though": "tho", "wondering": "wonderng", "really": "rly", "the": "teh"}

MONTH = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
MONTH_FULL = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December"]

# ----------------------------------------------------------------------------------------------------- makers


def _plain(s: str) -> str:
    s = s.translate(str.maketrans({"Ł": "L", "ł": "l", "ı": "i", "ș": "s", "ț": "t", "ø": "o", "ß": "ss"}))
    return "".join(c for c in unicodedata.normalize("NFKD", s) if c.isascii() and c.isalnum()).lower()


def _mod97_iban(country: str, bban: str) -> str:
    digits = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(digits) % 97:02d}{bban}"


def _iban(r: random.Random, country: str) -> str:
    n = IBAN_LEN[country] - 4
    if country in ("IE", "GB", "NL"):
        bban = "".join(r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(4)) + \
               "".join(str(r.randint(0, 9)) for _ in range(n - 4))
    else:
        bban = "".join(str(r.randint(0, 9)) for _ in range(n))
    ib = _mod97_iban(country, bban)
    return r.choice([" ".join(ib[i:i + 4] for i in range(0, len(ib), 4)), ib])


def _imei(r: random.Random) -> str:
    body = "35" + "".join(str(r.randint(0, 9)) for _ in range(12))
    total = 0
    for i, ch in enumerate(body):
        d = int(ch)
        if i % 2:
            d *= 2
            d = d - 9 if d > 9 else d
        total += d
    return body + str((10 - total % 10) % 10)


def _uk_postcode(r: random.Random) -> str:
    a = r.choice(OUTWARD)
    return f"{a}{r.randint(1, 28)} {r.randint(0, 9)}{r.choice('ABDEFGHJLNPQRSTUWXYZ')}{r.choice('ABDEFGHJLNPQRSTUWXYZ')}"


class Customer:
    def __init__(self, r: random.Random, pid: str, cid: str):
        self.pid, self.cid = pid, cid
        self.female = r.random() < 0.55
        self.first = r.choice(FIRST_F if self.female else FIRST_M)
        self.last = r.choice(LAST)
        if r.random() < 0.03:
            self.last = f"{self.last}-{r.choice(LAST)}"
        self.title = "Ms" if self.female and r.random() < 0.4 else ("Mrs" if self.female else "Mr")
        self.born = (r.randint(1950, 2006), r.randint(1, 12), r.randint(1, 28))
        f, l = _plain(self.first), _plain(self.last)
        self.email = r.choice([f"{f}{l}", f"{f}.{l}", f"{f[0]}.{l}", f"{f}{r.randint(70, 99)}", f"{l}.{f}{r.randint(1, 9)}",
                               f"{f}_{l[:3]}", f"the.{l}s", f"{f}{l[0]}{r.randint(100, 999)}"]) + "@" + \
            r.choice(["example.com", "example.net", "example.org"])
        self.abroad = None
        if r.random() < 0.06:
            self.abroad = r.choice(INTL)
        if self.abroad:
            country, streets, pcode, towns, _ = self.abroad
            st = r.choice(streets)
            n = r.randint(1, 180)
            self.address = f"{st} {n}" if country in ("Netherlands", "Germany") else (
                f"{n} {st}" if country != "Spain" else f"{st} {n}, {r.randint(1, 6)}º")
            self.postcode = pcode(r)
            self.town = r.choice(towns)
            self.mobile = f"+44 7700 900{r.randint(0, 999):03d}"
        else:
            k = r.random()
            st = r.choice(UK_STREETS)
            if k < 0.15:
                self.address = f"Apartment {r.randint(1, 60)}, {r.choice(UK_BLOCKS)}"
            elif k < 0.22:
                self.address = f"{r.randint(1, 30)} {r.choice(UK_BLOCKS)}, {st}"
            else:
                self.address = f"{r.randint(1, 199)}{r.choice(['', '', '', '', 'A', 'B'])} {st}"
            self.postcode = _uk_postcode(r)
            self.town = r.choice(UK_TOWNS)
            self.mobile = f"07700 900{r.randint(0, 999):03d}" if r.random() < 0.85 else f"020 7946 0{r.randint(0, 999):03d}"
        self.card = f"{r.randint(0, 9999):04d}"
        self.scheme = r.choice(["Visa", "Mastercard", "Amex", "debit card", "card"])
        self.shouty = r.random() < 0.05   # writes in capitals
        self.terse = r.random() < 0.15    # lower case, no punctuation to speak of

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"


def _say_phone(r: random.Random, m: str) -> str:
    d = m.replace(" ", "").replace("+44", "0")
    if d.startswith("07"):
        return r.choice([m, d, f"{d[:5]} {d[5:8]} {d[8:]}", f"+44 (0){d[1:5]} {d[5:]}", f"{d[:4]}-{d[4:7]}-{d[7:]}",
                         f"+44{d[1:]}", f"{d[:5]}{d[5:]}"])
    return r.choice([m, d, f"({d[:3]}) {d[3:7]} {d[7:]}", f"+44 {d[1:3]} {d[3:7]} {d[7:]}"])


def _when(r: random.Random) -> str:
    d = r.randint(1, 28)
    return r.choice([f"{d} {r.choice(MONTH)}", f"{r.choice(MONTH_FULL)} {d}", f"{d}/{r.randint(1, 12)}",
                     r.choice(["last Tuesday", "Saturday", "last week", "the weekend", "Monday"]),
                     f"the {d}{'th' if 10 < d < 14 else {1: 'st', 2: 'nd', 3: 'rd'}.get(d % 10, 'th')}"])


MARK = re.compile(r"<(\w+)>")


class Case:
    """One returns case: what gets written, and every personal string in it."""

    def __init__(self, r: random.Random, c: Customer, topic: dict):
        self.r, self.c, self.topic = r, c, topic
        self.found: list[tuple[str, str]] = []
        self.memo: dict[str, str] = {}
        self.item = r.choice(self._items())
        self.staff = r.choice(STAFF)

    def _items(self) -> list[tuple]:
        tid = self.topic["id"]
        if tid == "restocking_fee":
            return [x for x in CATALOGUE if x[2] == "furniture"]
        if tid == "exchange_dispatch":
            return [x for x in CATALOGUE if x[2] in ("fashion", "shoes")]
        if tid == "damage_report_deadline":
            return [x for x in CATALOGUE if x[2] in ("furniture", "electrical", "home", "phone")]
        return CATALOGUE

    def note(self, kind: str, s: str) -> str:
        self.found.append((kind, s))
        return s

    def value(self, key: str) -> str:
        r, c = self.r, self.c
        if key == "item":
            return self.item[0]
        if key == "price":
            return f"{self.item[1]:.2f}".replace(".00", "") if r.random() < 0.5 else f"{self.item[1]:.2f}"
        if key == "odate":
            return _when(r)
        if key == "country":
            return c.abroad[0] if c.abroad else r.choice(INTL)[0]
        if key == "town":
            return c.town
        if key == "mq":
            return self.memo["mq"]
        if key in ("rel", "rel_role"):
            if "rel" not in self.memo:
                role = r.choice(["mum", "dad", "sister", "brother", "partner", "husband", "wife", "nan", "aunt",
                                 "flatmate", "neighbour", "boyfriend", "girlfriend", "son", "daughter", "colleague"])
                fem = role in ("mum", "sister", "wife", "nan", "aunt", "girlfriend", "daughter") or \
                    (role not in ("dad", "brother", "husband", "boyfriend", "son") and r.random() < 0.5)
                self.memo["rel"] = r.choice(FIRST_F if fem else FIRST_M)
                self.memo["rel_role"] = role
            return self.note("third_party_name", self.memo["rel"]) if key == "rel" else self.memo["rel_role"]
        if key == "order":
            if "order" not in self.memo:
                n = r.randint(10000000, 99999999)
                self.memo["order"] = r.choice([f"HC{n}", f"HC-{n}", f"{n}", f"hc{n}", f"#{n}",
                                               f"{str(n)[:4]}-{str(n)[4:]}"])
            return self.note("account_number", self.memo["order"])
        if key == "acct":
            return self.note("account_number", r.choice([c.cid, c.cid[3:], c.cid.replace("-", " ")]))
        if key == "rma":
            if "rma" not in self.memo:
                self.memo["rma"] = r.choice([f"RTN{r.randint(100000, 999999)}", f"RTN-{r.randint(100000, 999999)}",
                                             f"R{r.randint(1000000, 9999999)}"])
            return self.note("account_number", self.memo["rma"])
        if key == "addr":
            a = c.address
            if r.random() < 0.15:
                a = a.lower()
            return self.note("address", a)
        if key == "pc":
            pc = c.postcode
            return self.note("postcode", r.choice([pc, pc, pc.replace(" ", ""), pc.lower()]) if " " in pc else pc)
        if key == "phone":
            return self.note("phone", _say_phone(r, c.mobile))
        if key == "email":
            return self.note("email", c.email)
        if key == "card":
            return self.note("card_number", r.choice([c.card, c.card, f"*{c.card}", f"**** **** **** {c.card}"]))
        if key == "track":
            if "track" not in self.memo:
                self.memo["track"] = r.choice([f"H{r.choice('BCDFGHJKLMNPQRSTVWXZ')}{r.randint(10**8, 10**9 - 1)}GB",
                                               f"{r.randint(10**13, 10**14 - 1)}",
                                               f"1Z{r.randint(10**9, 10**10 - 1)}{r.choice('ABCDEF')}{r.randint(10**4, 10**5 - 1)}"])
            return self.note("other_id", self.memo["track"])
        if key == "trackurl":
            x = f"{r.randint(10**9, 10**10 - 1)}"
            return self.note("url_with_id", r.choice([f"https://parcelroute.example.net/t/{x}",
                                                      f"https://www.parcelroute.example.net/track?parcel={x}",
                                                      f"parcelroute.example.net/t/{x}?pc={c.postcode.replace(' ', '')}"]))
        if key == "orderurl":
            n = r.randint(10000000, 99999999)
            return self.note("url_with_id", r.choice([f"https://{WEB}/account/orders/HC{n}",
                                                      f"https://{WEB}/my-returns/RTN{r.randint(100000, 999999)}",
                                                      f"{WEB}/order-status?o={n}&e={_plain(c.first)}"]))
        if key == "scheme":
            return c.scheme
        if key == "driver":
            return self.note("third_party_name", r.choice(["Steve", "Gaz", "Marek", "Dave", "Ionut", "Shaz", "Kev", "Tomasz"]))
        if key == "sort":
            v = f"{r.randint(10, 99)}-{r.randint(10, 99)}-{r.randint(10, 99)}"
            return self.note("iban", r.choice([v, v.replace("-", " "), v.replace("-", "")]))
        if key == "accno":
            return self.note("iban", f"{r.randint(10**7, 10**8 - 1)}")
        if key == "iban":
            country = c.abroad[4] if c.abroad else "GB"
            return self.note("iban", _iban(r, country))
        if key == "natid":
            country = c.abroad[0] if c.abroad else "Ireland"
            if country == "Ireland":
                v = f"{r.randint(1000000, 9999999)}{r.choice('ABCDEFGHJKLMNPTW')}{r.choice(['', 'A', 'W'])}"
            elif country == "Spain":
                num = r.randint(10000000, 99999999)
                v = f"{num}{'TRWAGMYFPDXBNJZSQVHLCKE'[num % 23]}"
            elif country == "Netherlands":
                v = f"{r.randint(100000000, 999999999)}"
            elif country == "Germany":
                v = f"{r.randint(10, 99)} {r.randint(100, 999)} {r.randint(100, 999)} {r.randint(100, 999)}"
            else:
                v = f"{r.randint(1, 3)} {r.randint(10, 99)} {r.randint(1, 12):02d} {r.randint(10, 95)} {r.randint(100, 999)} {r.randint(100, 999)} {r.randint(10, 97)}"
            return self.note("national_id", v)
        if key == "plate":
            L = "ABCDEFGHJKLMNPRSTVWXY"
            v = f"{r.choice(L)}{r.choice(L)}{r.randint(10, 24)} {r.choice(L)}{r.choice(L)}{r.choice(L)}"
            return self.note("licence_plate", r.choice([v, v.replace(' ', ''), v.lower()]))
        if key == "imei":
            v = _imei(r)
            v = r.choice([v, f"{v[:2]} {v[2:8]} {v[8:14]} {v[14]}", f"{v[:8]}-{v[8:14]}-{v[14]}", f"{v[:5]} {v[5:10]} {v[10:]}"])
            return self.note("imei", v)
        if key == "dob":
            y, m, d = c.born
            v = r.choice([f"{d:02d}/{m:02d}/{y}", f"{d} {MONTH_FULL[m - 1]} {y}", f"{y}-{m:02d}-{d:02d}", f"{d}.{m}.{y}"])
            return self.note("date_of_birth", v)
        raise KeyError(key)

    def put(self, tpl: str, slips: float = 0.0) -> str:
        chunks = MARK.split(tpl)
        out = []
        for i, ch in enumerate(chunks):
            if i % 2:
                out.append(self.value(ch))
            else:
                out.append(_slip(self.r, ch, slips) if slips else ch)
        return "".join(out)


def _slip(r: random.Random, text: str, rate: float) -> str:
    def swap(m: re.Match) -> str:
        w = m.group(0)
        if r.random() >= rate:
            return w
        if w.lower() in SLIPS:
            return SLIPS[w.lower()]
        if len(w) > 5:
            j = r.randrange(2, len(w) - 1)
            return w[:j - 1] + w[j] + w[j - 1] + w[j + 1:] if r.random() < 0.5 else w[:j] + w[j + 1:]
        return w
    return re.sub(r"[A-Za-z]+", swap, text)


# ----------------------------------------------------------------------------------------------------- one case


def _customer_text(k: Case, misquote: str | None) -> tuple[list[str], str, str]:
    """(sentences, greeting, sign-off) in the customer's own style."""
    r, c, t = k.r, k.c, k.topic
    slips = r.choice([0, 0, 0, 0.04, 0.08, 0.12])
    first = r.choice(t["situation"])
    lines = [k.put(first, slips)]
    if r.random() < 0.25:
        lines.append(k.put(r.choice(ASIDE), slips))
    if misquote:
        k.memo["mq"] = misquote
        lines.append(k.put(r.choice(MISTOLD), slips))
    taken = set(MARK.findall(first))
    picks = []
    want = r.choice([0, 1, 1, 2, 2, 2, 3])
    for d in r.sample(DETAILS, len(DETAILS)):
        if len(picks) >= want:
            break
        keys = set(MARK.findall(d)) - {"item"}
        if keys & taken:
            continue
        taken |= keys
        picks.append(d)
    if k.item[2] == "phone" and r.random() < 0.6:
        picks.append(r.choice(["IMEI <imei>", "The IMEI on the box is <imei>.", "imei: <imei>", "(IMEI <imei>)"]))
    elif r.random() < 0.04:
        picks.append(r.choice(["Klarna needed my date of birth, it's <dob>.", "DOB <dob> if you need to verify me."]))
    q = k.put(r.choice(t["ask"]), slips)
    body = [k.put(d, slips) for d in picks]
    lines = lines + ([q] + body if r.random() < 0.4 else body + [q])
    hello = r.choice(OPEN)
    bye = r.choice(CLOSE_C)
    if c.terse:
        lines = [x.lower().rstrip(".") for x in lines]
        hello, bye = hello.lower().rstrip(","), bye.lower()
        k.found = [(kd, s.lower()) for kd, s in k.found]
    if c.shouty:
        lines = [x.upper() for x in lines]
        k.found = [(kd, s.upper()) for kd, s in k.found]
    return lines, hello, bye


def _customer_name(k: Case) -> str:
    c, r = k.c, k.r
    v = r.choice([c.first, c.first, c.name, c.name, f"{c.first[0]}. {c.last}", f"{c.title} {c.last}",
                  f"{c.first} {c.last[0]}", c.first.lower()])
    return k.note("person_name", v)


def _agent(k: Case, how: str | None = None) -> str:
    first, last = k.staff
    how = how or k.r.choice(["first", "first", "first_init", "agent_last", "full"])
    v = {"first": first, "first_init": f"{first} {last[0]}", "agent_last": f"Agent {last}", "full": f"{first} {last}"}[how]
    k.note("agent_name", v.replace("Agent ", "") if how == "agent_last" else v)
    return v


def _agent_lines(k: Case, misquote: str | None, answers: bool, spoken: bool = False) -> list[str]:
    r, t = k.r, k.topic
    out = []
    o = "" if spoken else r.choice(OPENER_A)
    if o:
        out.append(o)
    if not answers:
        out.append(r.choice(HOLD))
        return out
    if misquote:
        out.append(k.put(r.choice(FIX)))
    fact = r.choice(t["forms"])
    frames = t["say_adj"] if fact in t.get("adjectival", ()) else t["say"]
    sentence = r.choice(frames).replace("<F>", fact)
    if fact[0].lower() not in "aeiou":
        sentence = sentence.replace(f"an {fact}", f"a {fact}")
    extra = r.sample(t["more"], min(len(t["more"]), r.choice([0, 1, 1, 2])))
    if extra and r.random() < 0.3:
        out.append(extra.pop(0))
    out.append(sentence)
    if extra and r.random() < 0.35 and len(extra) > 1:
        out.append("Also:\n- " + "\n- ".join(extra))
    else:
        out += extra
    if r.random() < 0.3:
        out.append(k.put(r.choice(NEXT)))
    return out


def _stamps(r: random.Random) -> tuple[str, str]:
    """When the customer wrote, and when the agent answered (later)."""
    t0 = datetime.datetime(2024, 1, 2) + datetime.timedelta(minutes=r.randint(0, 360 * 24 * 60))
    t1 = t0 + datetime.timedelta(minutes=r.randint(12, 60 * 50))
    if t1.hour < 8 or t1.hour >= 20:
        t1 = (t1 + datetime.timedelta(hours=12)).replace(hour=r.randint(8, 11))
    fmt = "%d/%m/%Y %H:%M"
    return t0.strftime(fmt), t1.strftime(fmt)


def _case(r: random.Random, c: Customer, topic: dict, misquote: str | None, answers: bool) -> tuple[str, list]:
    k = Case(r, c, topic)
    lines, hello, bye = _customer_text(k, misquote)
    shape = r.choices(["ticket", "livechat", "portal", "outlook", "callback"], [30, 25, 18, 17, 10])[0]
    reply = _agent_lines(k, misquote, answers, spoken=shape == "callback")
    sign = r.choice(SIGN_A)

    def greet_customer(formal: bool) -> str:
        x = r.random()
        if formal and x < 0.25:
            return f"Dear {k.note('person_name', f'{c.title} {c.last}')},"
        if x < 0.85:
            return f"{r.choice(['Hi', 'Hello', 'Hi', 'Hey'])} {k.note('person_name', c.first)},"
        return "Hi there,"

    sent, answered = _stamps(r)
    if shape == "ticket":
        agent = _agent(k)
        who = k.note("person_name", c.name) if r.random() < 0.6 else k.note("email", c.email)
        subj = k.put(r.choice(topic["subject"]))
        msg = "\n".join(filter(None, [hello, " ".join(lines), bye + (" " + _customer_name(k) if r.random() < 0.6 else "")]))
        ticket = f"{r.randint(1000000, 9999999)}"
        text = (f"[Ticket #{k.note('account_number', ticket)}] {subj}\n"
                f"Channel: {r.choice(['Email', 'Web form', 'App'])} | Status: {r.choice(['Solved', 'Pending', 'Solved', 'Open'])}\n"
                f"---- {who}, {sent} ----\n{msg}\n"
                f"---- {agent} (Havercroft Returns), {answered} ----\n"
                f"{greet_customer(True)}\n" + "\n".join(reply) +
                (f"\n{sign}\n{k.note('agent_name', k.staff[0])}" if sign else f"\n{agent}"))
    elif shape == "livechat":
        agent = _agent(k, r.choice(["first", "first_init", "agent_last"]))
        vis = k.note("person_name", c.first) if r.random() < 0.5 else "Visitor"
        h, m, s = r.randint(8, 22), r.randint(0, 50), r.randint(0, 59)

        def t(step: int) -> str:
            tot = h * 3600 + m * 60 + s + step
            return f"[{tot // 3600:02d}:{tot % 3600 // 60:02d}:{tot % 60:02d}]"
        rows = [f"Live chat - Havercroft Customer Care - {r.choice(['web', 'app'])}",
                f"{t(0)} {agent} joined the chat"]
        step = 0
        chunk = [hello] + lines if hello else lines
        cut = r.randint(1, max(1, len(chunk) - 1))
        for part in (chunk[:cut], chunk[cut:]):
            if part:
                step += r.randint(15, 80)
                rows.append(f"{t(step)} {vis}: " + " ".join(part))
        first_reply = [greet_customer(False)] + reply[:1]
        for part in (first_reply, reply[1:]):
            if part:
                step += r.randint(30, 140)
                rows.append(f"{t(step)} {agent}: " + " ".join(part))
        if r.random() < 0.5:
            step += r.randint(20, 60)
            rows.append(f"{t(step)} {agent}: {r.choice(CHAT_END)}")
            step += r.randint(10, 60)
            rows.append(f"{t(step)} {vis}: {r.choice(CHAT_BYE)}")
        text = "\n".join(rows)
    elif shape == "portal":
        agent = _agent(k, r.choice(["first", "full", "first_init"]))
        name = k.note("person_name", c.name)
        order = k.value("order")
        qty = r.choice(["", "", " x2"])
        reason = r.choice(REASONS)
        comments = " ".join(([hello] if hello and r.random() < 0.3 else []) + lines)
        head = ["RETURN REQUEST", f"Name: {name}", f"Order no.: {order}", f"Item: {k.item[0]}{qty}",
                f"Reason: {reason}"]
        if r.random() < 0.5:
            head.append(f"Contact: {k.note('email', c.email)}")
        if r.random() < 0.3:
            head.append(f"Tel: {k.note('phone', _say_phone(r, c.mobile))}")
        head.append(f"Refund to: {r.choice(['Original payment', 'Original payment', 'Exchange', 'Gift card'])}")
        head.append(f"Comments: {comments}")
        text = "\n".join(head) + f"\n\n=== Response from Havercroft ===\n{greet_customer(True)}\n" + " ".join(reply) + \
            f"\n{sign + ' ' if sign else ''}{agent}, Returns Team"
    elif shape == "outlook":
        agent = _agent(k, r.choice(["first", "full", "first_init"]))
        sender_name = k.note("person_name", c.name)
        sender_mail = k.note("email", c.email)
        subj = k.put(r.choice(topic["subject"]))
        orig = "\n".join(filter(None, [hello, " ".join(lines), bye, _customer_name(k) if r.random() < 0.7 else ""]))
        foot = r.choice([f"Havercroft Returns | {DESK_PHONE}", f"{WEB}", f"Havercroft Customer Care\n{DESK_MAIL}",
                         "Havercroft", f"Havercroft Returns\nPhone {DESK_PHONE} (Mon-Sat 8am-8pm)"])
        text = (f"From: Havercroft Returns <{DESK_MAIL}>\nSubject: RE: {subj}\n\n{greet_customer(True)}\n\n" +
                "\n\n".join(reply) + f"\n\n{sign}\n{agent}\n{foot}\n\n"
                f"-----Original Message-----\nFrom: {sender_name} <{sender_mail}>\n"
                f"Sent: {sent}\nTo: {DESK_MAIL}\nSubject: {subj}\n\n{orig}")
    else:  # callback request + call notes
        agent = _agent(k, "full")
        num = k.note("phone", _say_phone(r, c.mobile))
        name = k.note("person_name", c.name if r.random() < 0.7 else c.first)
        notes = " ".join(lines)
        said = r.choice(["Advised: ", "Told customer: ", "", "Explained - "]) + " ".join(reply)
        if r.random() < 0.4:
            said = f"ID&V passed (DOB {k.value('dob')}, postcode {k.value('pc')}). " + said
        text = (f"Callback request ({r.choice(['website', 'app', 'IVR'])}) {sent}\nName: {name}\nNumber: {num}\n"
                f"Best time: {r.choice(['morning', 'after 5pm', 'lunchtime', 'any time'])}\n"
                f"Customer's note: {notes}\n\nCall notes ({agent}, {answered}): "
                f"{r.choice(['Called back, spoke to customer.', 'Customer answered first try.', 'Rang twice, got them second time.'])} "
                f"{said}")

    if r.random() < 0.2 and shape in ("ticket", "portal"):
        text += "\n" + r.choice([f"Shop more at {WEB}", f"Help centre: {WEB}/help", f"Need us? {DESK_PHONE}"])

    rows, seen = [], set()
    for kd, s in k.found:
        if (kd, s) in seen:
            continue
        if s not in text:
            raise AssertionError(f"{s!r} noted but not in text")
        seen.add((kd, s))
        rows.append({"kind": kd, "text": s})
    return text, rows


# ----------------------------------------------------------------------------------------------------- collection


def _sizes(r: random.Random, n: int) -> list[int]:
    w = [t["weight"] * (1 + r.uniform(-0.08, 0.08)) for t in TOPICS]
    share = [x / sum(w) * n for x in w]
    got = [max(1, round(x)) for x in share]
    while sum(got) > n:
        got[got.index(max(got))] -= 1
    while sum(got) < n:
        i = max(range(len(got)), key=lambda j: share[j] - got[j])
        got[i] += 1
    return got


def _whole(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    r = random.Random(f"havercroft-returns:{seed}:{n}")
    sizes = _sizes(r, n)
    plan = [t for t, k in zip(TOPICS, sizes) for _ in range(k)]
    r.shuffle(plan)

    ids: set[str] = set()

    def new_customer(abroad: bool | None = None) -> Customer:
        while True:
            pid = f"C{r.randint(1000000, 9999999)}"
            if pid not in ids:
                ids.add(pid)
                break
        c = Customer(r, pid, f"HC-{r.randint(1000000, 9999999)}")
        if abroad and not c.abroad:
            while not c.abroad:
                c = Customer(r, pid, c.cid)
        return c

    # customers write 1-3 times; international returns come from customers living abroad
    owners: list[Customer | None] = [None] * n
    pool: list[Customer] = []
    for i, t in enumerate(plan):
        if t["id"] == "international_return_cost":
            owners[i] = new_customer(abroad=True)
    free = [i for i in range(n) if owners[i] is None]
    j = 0
    while j < len(free):
        c = new_customer()
        pool.append(c)
        for _ in range(r.choices([1, 2, 3], [68, 23, 9])[0]):
            if j < len(free):
                owners[free[j]] = c
                j += 1
    # spread a person's cases through the file
    order = list(range(n))
    r.shuffle(order)

    records, pii, said, wrong = [], [], {}, {}
    quoting_wrong = set(r.sample(order, max(1, n // 10)))
    for num, i in enumerate(order):
        t, c = plan[i], owners[i]
        misquote = r.choice(t["wrong"]) if i in quoting_wrong else None
        answers = misquote is not None or r.random() >= 0.065
        for _ in range(25):
            text, rows = _case(r, c, t, misquote, answers)
            if 50 <= len(text.split()) <= 250:
                break
        rid = f"RET-{num + 1:05d}"
        said[t["id"]] = said.get(t["id"], 0) + any(_whole(text, f) for f in t["forms"])
        wrong[t["id"]] = wrong.get(t["id"], 0) + (misquote is not None)
        phone = c.mobile.replace(" ", "")
        records.append({"id": rid, "text": text, "person_id": c.pid, "type": t["id"],
                        "customer_name": c.name, "email": c.email,
                        "phone": phone if phone.startswith("+") else "+44" + phone[1:],
                        "customer_number": c.cid, "postcode": c.postcode})
        pii.append({"id": rid, "pii": rows})

    types = sorted(({"id": t["id"], "records": k, "fact": t["fact"], "forms": list(t["forms"]),
                     "stated_by": said.get(t["id"], 0), "misquoted_by": wrong.get(t["id"], 0)}
                    for t, k in zip(TOPICS, sizes)), key=lambda x: -x["records"])
    questions = [{"question": q, "answers": list(t["forms"]), "type": t["id"], "support": k}
                 for t, k in zip(TOPICS, sizes) for q in t["questions"]]
    public = {"company": BRAND,
              "public_strings": [BRAND, WEB, PORTAL, DESK_MAIL, DESK_PHONE],
              "product_names": list(PRODUCT_NAMES),
              "identifier_fields": ["customer_name", "email", "phone", "customer_number", "postcode"],
              "id_field": "id", "text_field": "text", "unit_field": "person_id"}
    return {"domain": "returns", "records": records, "pii": pii, "types": types, "questions": questions,
            "public": public}
