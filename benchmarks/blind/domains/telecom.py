"""Blind own-data domain ``telecom``: support threads of a made-up mobile network.

A thread is a live-chat transcript, an in-app message exchange, a social-media DM conversation or an e-mailed
support case, always with the network's answer.  Standard library only; ``generate(seed, n)`` is deterministic.
"""

from __future__ import annotations

import datetime
import random
import re

COMPANY = "Nimbo Mobile"
SITE = "www.nimbo.example.com"
COVERAGE = "www.nimbo.example.com/coverage"
SUPPORT_MAIL = "support@nimbo.example.com"
CARE_LINE = "0306 999 0522"
LOST_LINE = "0808 157 0644"
HANDLE = "@NimboHelp"
PLANS = ["Nimbo Unlimited 5G", "Nimbo Essentials", "Nimbo SIM Only", "Nimbo Family Share", "Nimbo Pay As You Go"]
PRODUCTS = PLANS + ["Nimbo Travel Pass", "Data Boost", "Nimbo Protect", "My Nimbo", "Nimbo Swap"]
NETWORKS = ["Tellwise", "Brightline Mobile", "Kestrel Telecom", "OneSky", "Parla", "Fenwave"]
DEVICES = ["iPhone 15", "iPhone 13 mini", "iPhone 14 Pro", "Galaxy S24", "Galaxy A54", "Pixel 8", "Pixel 7a", "Moto g84",
           "Xperia 10", "Nokia G42", "Galaxy Z Flip5", "iPhone 12"]
COUNTRIES = ["Spain", "Portugal", "France", "Greece", "Italy", "Croatia", "Cyprus", "Malta", "Poland", "the Netherlands",
             "Germany", "Tenerife", "Ibiza", "Lanzarote", "Crete", "Amsterdam", "Benidorm", "Krakow", "Dubrovnik"]

# ---------------------------------------------------------------------------- people: origin pools
# weight | female given names | male given names | surnames
ORIGINS = """
34 | Ellie Mia Zara Leah Chloe Jade Kayleigh Courtney Shannon Amber Holly Bethany Paige Molly Abbie Lacey Rose Hope May Grace
Faith Joy Daisy Poppy Ivy Summer Skye Sky Willow Honey Lily Ruby Autumn Star Dawn Heather Robin Scarlett Harriet Imogen
Georgia Lucy Kate Jenny Sian Tegan Kerry Michelle | Tyler Jayden Kai Connor Brandon Kyle Callum Lewis Reece Bradley Aaron
Josh Tom Sam Ben Joe Alfie Archie Freddie Reggie Frank Jack Mark Will Bill Rich Chase Hunter Reed Cole Grant Dean Drew Miles
Rowan Ash Jay Max Kit Ray Guy Pat Nick | Green Brown White Black Rose Hope King Field Church Bird Fox Wood Hill Stone Bell
Lamb Baker Cook Mason Young Long Short Little Moon Swan Hunter Sharp Gold Lane Ford Day Winter Frost Snow Pope Bishop Knight
Noble Strong Best Page Banks Cross Hart Love Reed Wells Mills Brook Waters Heath Park Gray Booth Potter Miller Turner Walker
Carter Cooper Parker Taylor Smith Wright Butler Archer Gardner Chambers Hood Lord Marshall Cole Sweet Head Hand Bone Bull
Lamb Crow Drake Finch Hawk Peacock Sparrow Salmon Trout Pike Herring Sands Dale Vale Marsh Street Lake Shaw Fields Rich
Payne Bacon Pepper Mustard Sugar Honey Kettle Barrow Hatch Cave Steel Price Bond Booker Clay Coleman Eastwood Goodwin
Hollis Jarvis Kemp Lowe Mann Nash Pratt Quick Ridge Stubbs Tapping Underwood Vine Wade Yates
12 | Eilidh Skye Isla Orla Aoife Niamh Caoimhe Saoirse Ciara Mairead Ffion Megan Carys Seren Lowri Catrin Kirsty Shona |
Ruairi Lachlan Finlay Cameron Euan Calum Oisin Cian Darragh Tadhg Conor Rhys Ioan Osian Gethin Emyr Aled Iestyn |
MacLeod MacKay Mackintosh Ross Munro Sinclair Boyle Gallagher Brennan Kennedy Lynch Walsh Ryan Murphy Dunne Flynn
O'Neill O'Sullivan McCarthy Fitzgerald Jones Davies Evans Rees Powell Pugh Howells Bowen Probert
13 | Aisha Riya Priyanka Sana Hira Maryam Amina Zara Noor Jasleen Navdeep Anika Ishani Tasnim Sumaiya Rumana Dilani Chathuri
Ananya Pooja | Aryan Rohan Kabir Harvinder Jaskaran Hamza Zain Ibrahim Adnan Faisal Saif Aamir Rizwan Sajid Shakil Rakib
Tharindu Kasun Vikram Aditya | Patel Shah Desai Parekh Mehta Khan Hussain Ahmed Akhtar Mahmood Rashid Javed Anwar Islam
Hoque Miah Bibi Kaur Singh Grewal Atwal Sangha Kumar Reddy Iyer Krishnan Jayasuriya Wickramasinghe Bandara Choudhury
9 | Chioma Adaeze Tolu Kemi Bisi Nneka Ebele Abimbola Akua Afia Esi Rutendo Chipo Nyasha Ayaan Sagal Ifrah Blessing Precious
Favour Mercy Patience Comfort Joy Peace Grace | Chidi Obinna Femi Dayo Tayo Kunle Kojo Kwesi Nii Tatenda Tinashe Kudzai
Abdirahman Mahad Gift Wisdom Godwin Goodluck Prince King Marvellous Justice Emmanuel | Okeke Nnamdi Adeleke Oladipo
Ogunbiyi Afolabi Adeyemi Okoro Eze Mensah Appiah Addo Darko Agyeman Quaye Mutasa Chikwava Sibanda Ncube Hassan Osman
Jama Ali Duale Obi Uche
8 | Oliwia Zuzanna Wiktoria Natalia Alicja Maja Daria Andreea Bianca Roxana Gabriela Ieva Egle Kristina Yulia Anastasia |
Jakub Kacper Szymon Mateusz Bartosz Adrian Stefan Ionut Cosmin Darius Vytautas Arturas Lukasz Pavel Maksym Artem |
Nowak Mazur Kaczmarek Grabowski Pawlak Michalski Krol Wieczorek Stan Munteanu Stoica Rusu Vasiliauskas Petrov Marchenko
Tkachenko Bondar Horvath Nagy Kovacs
5 | Leila Zeynep Ebru Dilan Rojin Shadi Roya Yasmin Hiba Dina Rana Nour | Kerem Cem Serkan Volkan Azad Soran Arash Kian
Ahmad Youssef Tarek Walid | Ozturk Aydin Arslan Dogan Kurt Sahin Ozdemir Rezaei Moradi Jafari Najafi Saleh Nasser Darwish
Habib Aziz Barzani
5 | Xinyi Yan Ling Qian Sakura Mio Eun-ji Soo-ah Trang Ngoc Thuy Angelica Kristine Jasmine | Jian Ming Zhen Tao Ren Sota
Jae-won Hyun-woo Tuan Khoa Long Paolo Mark Rommel | Huang Zhao Wu Zhou Xu Sun Ma Yang Ng Chan Yamamoto Nakamura Park Jung
Kang Hoang Vu Dang Bui Garcia Mendoza Villanueva Aquino Ramos
5 | Chiara Valentina Marta Alba Leonor Mariana Catarina Sofia Anna Katerina Eirini Fotini | Luca Lorenzo Davide Alejandro
Diego Hugo Goncalo Duarte Nuno Dimitris Yiannis Stavros | Bianchi Ricci Marino Greco Conti Fernandez Gonzalez Rodriguez
Navarro Ruiz Oliveira Sousa Rodrigues Martins Alves Nikolaidis Christodoulou Pappas Antoniou
4 | Claudette Shanice Tanisha Keisha Monique Simone Nadine | Tyrone Devon Marcus Dwayne Andre Kareem Lloyd | Campbell
Francis Forbes Gayle Henry Lindo McFarlane Samuels Powell Reid Thompson Edwards
"""


def _pools():
    out = []
    for line in re.split(r"\n(?=\d+ \|)", ORIGINS.strip()):
        w, f, m, s = (part.split() for part in line.split("|"))
        out.append((int(w[0]), f, m, s))
    return out


POOLS = _pools()
POOL_W = [p[0] for p in POOLS]

# --------------------------------------------------------------------------------------------- places
AREAS = [("LS11", "Leeds"), ("M20", "Manchester"), ("B11", "Birmingham"), ("CF11", "Cardiff"), ("NE4", "Newcastle"),
         ("BS3", "Bristol"), ("G12", "Glasgow"), ("EH11", "Edinburgh"), ("L8", "Liverpool"), ("S2", "Sheffield"),
         ("NG5", "Nottingham"), ("LE4", "Leicester"), ("CV6", "Coventry"), ("SO15", "Southampton"), ("PO4", "Portsmouth"),
         ("E1", "London"), ("E14", "London"), ("N7", "London"), ("SE5", "London"), ("SW11", "London"), ("W12", "London"),
         ("NW6", "London"), ("IG1", "Ilford"), ("RM7", "Romford"), ("SL1", "Slough"), ("HP13", "High Wycombe"),
         ("MK3", "Bletchley"), ("NN1", "Northampton"), ("PE3", "Peterborough"), ("NR3", "Norwich"), ("CB4", "Cambridge"),
         ("BN3", "Hove"), ("PL1", "Plymouth"), ("TQ1", "Torquay"), ("EX2", "Exeter"), ("BH1", "Bournemouth"),
         ("SA2", "Swansea"), ("LL11", "Wrexham"), ("CH1", "Chester"), ("WN5", "Wigan"), ("BB2", "Blackburn"),
         ("HD1", "Huddersfield"), ("WF1", "Wakefield"), ("HG1", "Harrogate"), ("TS5", "Middlesbrough"), ("DL3", "Darlington"),
         ("G51", "Govan"), ("PA3", "Paisley"), ("FK1", "Falkirk"), ("KY1", "Kirkcaldy"), ("AB10", "Aberdeen"),
         ("BT9", "Belfast"), ("DY2", "Dudley"), ("WS2", "Walsall"), ("NG18", "Mansfield"), ("ST1", "Hanley"), ("LU2", "Luton")]
ROADS = """Albion Alexandra Bath Beaconsfield Belmont Blenheim Cambridge Castle Chapel Cherry Clifton Coronation
Dale Devonshire Dover Duke Elmwood Farm Fern Gladstone Grosvenor Hamilton Harrow Hazel Highbury Hope Ivy Jubilee Kent
Lark Laurel Linden Lodge Lorne Market Mayfield Melbourne Milton Moor Newlands North Oxford Palmerston Peel Prince Priory
Raglan Regent Richmond Russell School Sefton Shaftesbury Silver South Stamford Stanhope Tennyson Thistle Trinity Union
Vicarage Warwick Waverley West Whitehall Wilton York""".split()
ROAD_TYPES = ["Road", "Road", "Road", "Street", "Street", "Avenue", "Lane", "Close", "Drive", "Grove", "Terrace",
              "Crescent", "Way", "Place", "Gardens", "Walk", "Square", "Parade"]
BARE_ROADS = ["Broadway", "High Street", "The Parade", "Kingsway", "Southgate", "Market Place", "Castlegate", "The Drive",
              "Parkway", "Eastway", "Highgate", "Moorgate", "Bridge End", "The Close", "Westway"]
BUILDINGS = ["Court", "House", "Tower", "Point", "Apartments", "Lofts", "Wharf", "Quay"]
INWARD_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
LONG_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
TACS = ["35391110", "35467312", "35209906", "86761504", "35332812", "35691208", "35875301", "86891504", "35467021"]


# -------------------------------------------------------------------------------------- request types
class Kind:
    """One request type: its fact, how agents say it, how customers ask about it."""

    def __init__(self, tid, weight, forms, wts, wrong, questions, opens, asks, say, extra, more, wrong_lines=None):
        self.id, self.weight, self.forms, self.wts, self.wrong = tid, weight, forms, wts, wrong
        self.fact = forms[0]
        self.questions, self.opens, self.asks, self.say, self.extra, self.more = questions, opens, asks, say, extra, more
        self.wrong_lines = wrong_lines


KINDS = [
    Kind("roaming_daily_charge", 80, ["£2.50", "GBP 2.50", "2.50 pounds", "two pounds fifty", "250p"], [9, 1, 1, 2, 1],
         ["£3", "£1.99", "£2.99", "£3.50", "£4"],
         ["How much does it cost per day to use my phone in Europe?", "What's the daily roaming charge?",
          "If I take my phone to Spain, what will I pay each day to use it?"],
         ["hi going to {country} on {date} for a week, will my allowance work there?",
          "Just landed in {country} and got a text about daily charges.",
          "I've been charged {amount} extra this month for roaming?? I was only in {country} for a few days",
          "my daughter {tp_daughter} is going on a school trip to {country}, her number is {phone_other}",
          "Do I need to do anything before I go to {country}? I'm on {plan}.",
          "Travelling to {country} next week with work, is roaming included on my plan or do I pay extra",
          "hiya, honeymoon in {country} soon 🥳 want to know about using data out there",
          "Off to {country} with the family on {date}, there's 4 of us on {plan}.",
          "My partner {tp_partner} is already out in {country} and says it's costing a fortune, number {phone_other}",
          "what's the situation with roaming now? used to be free in europe"],
         ["how much is it per day?", "what's the daily cost?", "how much will i pay a day?", "Is there a daily charge and how much?",
          "how much do u charge per day abroad", "What will it cost me each day?"],
         ["Using your allowance in our Roam Zone costs {f} a day, and you're only charged on days you actually use your phone there.",
          "The Nimbo Travel Pass is {f} per day and lets you use your UK minutes, texts and data as normal.",
          "It's a flat {f} daily charge while you're in a Roam Zone country.",
          "You'll pay {f} for each day you use your phone abroad, added to your next bill."],
         ["You'll get a text when you arrive confirming the Travel Pass is active.",
          "If you don't use your phone on a given day, there's no charge for that day.",
          "Countries outside the Roam Zone have separate rates, so it's worth checking before you go.",
          "Fair use still applies to data while you're away.",
          "You can switch roaming off in the My Nimbo app if you'd rather not use it."],
         ["Is it just your line that's travelling, or others on the account too? Some older plans have roaming included, so I'll check each one.",
          "Can you confirm the number that's going abroad? I'll check what's set up on that line."]),
    Kind("pac_code_validity", 62, ["30 days", "thirty days", "30 calendar days"], [8, 3, 1],
         ["14 days", "7 days", "90 days", "a week"],
         ["How long is a PAC code valid for?", "When does my porting code expire?",
          "If I get my PAC now, how long do I have before I need to use it?"],
         ["I want to leave and need my PAC code please",
          "got my PAC ({pac}) a while ago but havent used it yet",
          "moving to another network, need to keep my number",
          "My new provider says my PAC {pac} won't go through??",
          "Need to port my number out, my contract ended on {date}.",
          "Requesting PAC for {phone}. Account holder {name_full}.",
          "Hi, I'm switching to {network} and they've asked for my PAC.",
          "can I get a PAC for my son's line? he's {tp_son}, number {phone_other}"],
         ["how long does it last?", "is it still valid?", "how long have I got to use it?", "does it run out?",
          "How long is the code good for?"],
         ["Your PAC stays valid for {f} from the date it's issued.",
          "PAC codes expire after {f}, so you'll need to give it to your new provider before then.",
          "You've got {f} to use the code.",
          "Once a PAC is generated it lasts {f}; after that we'd need to issue a new one."],
         ["Your PAC is {pac_new}.", "Your new provider will handle the switch once you give them the code.",
          "Your account closes automatically when the number moves.", "Any remaining charges will be on your final bill.",
          "I've also sent the code to you by text."],
         ["Before I generate a PAC, can I confirm you're the account holder? What's your date of birth?",
          "Which number is it for? I can see more than one line on the account."]),
    Kind("lost_stolen_line", 52, [LOST_LINE, "08081570644", "+44 808 157 0644", "0808 1570 644"], [9, 1, 1, 1],
         [CARE_LINE, "0808 157 0464", "0800 157 0644"],
         ["What number do I ring to bar a lost or stolen phone?", "Who do I call if my phone gets stolen?",
          "Is there a phone line to block my SIM straight away if I lose my phone?"],
         ["my phone got nicked last night in {town}, what do i do",
          "Lost my phone on the bus this morning, need to stop anyone using it. Number {phone}.",
          "Phone was stolen from my bag at the gym. IMEI {imei}. Police ref {crimeref}.",
          "someone snatched my phone outside the station 😭 using my mates phone",
          "My partner {tp_partner} lost their phone on a night out, the number is {phone_other}",
          "I think I left my phone in a taxi last night, can you block it",
          "phone stolen from my car ({reg}) at the retail park. crime ref {crimeref}",
          "Pickpocketed in {town} centre, {device} gone. My number {phone}"],
         ["Can you block it?", "what number do i call to get it barred?", "how do I report it?",
          "is there a number I can ring 24/7 for this?", "who do I call if this happens again?"],
         ["If this ever happens again, call {f} straight away and we'll bar the SIM and handset.",
          "The quickest way to bar a lost or stolen phone is to call {f}, any time day or night.",
          "Our lost and stolen line is {f}; it's free from any phone and open 24/7.",
          "Please ring {f} to report it and the bar is put on while you're on the call."],
         ["I've put a temporary bar on the SIM and the handset now.",
          "You'll need the police crime reference if you're claiming on insurance.",
          "We can send a replacement SIM with your same number.",
          "The bar stops anyone making calls or using data on your account."],
         ["To bar the phone I need to confirm a few details first. Can you confirm your date of birth and the first line of your address?",
          "Which number on the account is it? I can see two lines."],
         ["I tried {m} but it just rang out.", "the number on your site was {m}?", "I rang {m} and got told I was in the wrong queue"]),
    Kind("upgrade_window", 44, ["60 days", "sixty days", "2 months", "two months"], [8, 2, 2, 2],
         ["3 months", "90 days", "6 weeks", "a month"],
         ["How early can I upgrade before my contract ends?", "When do I become eligible for an upgrade?"],
         ["when can i upgrade? want the new {device}",
          "My contract ends {date}, can I upgrade now?",
          "Battery on my {device} is dying, am I due an upgrade?",
          "Am I eligible for an upgrade yet? Account {acct}.",
          "my son {tp_son} wants the {device} for his birthday, can I upgrade his line {phone_other}?",
          "Got an email about upgrading early, what's the catch?",
          "I've been a customer since {year}, what upgrade deals can you do for me",
          "screen on my phone is cracked, rather upgrade than fix it tbh"],
         ["when am I allowed to upgrade?", "how early can I upgrade?", "Can I do it now or do I have to wait?",
          "what's the earliest I can upgrade?"],
         ["You can upgrade early in the last {f} of your contract with no extra charge.",
          "Upgrades open up {f} before your minimum term ends.",
          "From {f} before your end date, you can upgrade without paying anything to leave your current plan.",
          "Anyone within {f} of their contract end date can upgrade for free."],
         ["Your end date is shown in the My Nimbo app under Plan.", "You'll need to pass a credit check for the new contract.",
          "You can trade in your old phone towards the new one with Nimbo Swap.",
          "Upgrading before then means paying off the rest of your current plan."],
         ["Which line are you looking to upgrade? I can see a few on the account.",
          "Could you confirm your date of birth so I can check eligibility?"]),
    Kind("data_boost_price", 36, ["£5", "GBP 5", "5 pounds", "five pounds", "£5.00", "a fiver"], [9, 1, 1, 2, 1, 1],
         ["£10", "£3", "£7.50"],
         ["How much does a Data Boost add-on cost?", "What's the price of extra data if I run out before my bill date?"],
         ["ran out of data already and it's only the {nth} 🙄",
          "nearly out of data and I'm away from wifi all week",
          "How do I get more data without changing plan?",
          "my kid {tp_child} used all the data on his line {phone_other} watching youtube",
          "I'm on {plan} and need extra data for a work trip",
          "Is there a bolt on for data? Working from home this week and the broadband's down.",
          "my hotspot ate all my data on the train lol"],
         ["how much is a data boost?", "what does extra data cost?", "how much to add more?", "Is it expensive?",
          "how much is the add on"],
         ["A Data Boost add-on is {f} and the data lasts until your next bill date.",
          "You can add an extra bundle for {f} whenever you need it.",
          "Each Data Boost costs {f} and goes on your next bill.",
          "It's {f} for the add-on, and you can buy as many as you need in a month."],
         ["You can add it in the My Nimbo app under Add-ons.", "Unused Data Boost data doesn't roll over.",
          "If you keep running out, it might be worth looking at a bigger plan.",
          "I've added one for you now and you'll get a confirmation text."],
         ["Which number needs the extra data?",
          "Would you like me to add it now? I just need the last four digits of the card on file."]),
    Kind("sim_replacement_delivery", 30, ["2 working days", "two working days", "2 business days", "48 hours"], [8, 3, 1, 2],
         ["next day", "a week", "5 days"],
         ["How long does a replacement SIM take to arrive?", "If my SIM stops working, when will I get a new one?"],
         ["my sim has stopped working, says no sim card",
          "SIM snapped when I was swapping phones lol",
          "need a nano sim for my new {device}",
          "Phone says SIM not provisioned. SIM number {iccid}.",
          "Can I get an eSIM instead of the physical one? mine is damaged",
          "Dropped my phone in the sea and the sim is dead, phone's fine weirdly",
          "SIM card keeps saying invalid, tried it in my friend's phone and same"],
         ["how long for a new one?", "when will the new sim arrive?", "How quickly can you send one?",
          "how long does it take to come?"],
         ["A replacement SIM is sent first class and should arrive within {f}.",
          "Your new SIM will be with you in {f}.",
          "Replacement SIMs usually take {f} to arrive.",
          "We'll post it today and you should have it within {f}."],
         ["Your number and plan stay the same.", "You can track it here: {url_track}",
          "Once it arrives, activate it in the My Nimbo app.", "There's no charge for a replacement SIM."],
         ["Which address should we send it to? I need to check it matches the account.",
          "Is it the SIM or the phone? Could you try your SIM in another handset first?"]),
    Kind("bill_dispute_timescale", 25, ["28 days", "twenty-eight days", "4 weeks", "four weeks"], [8, 2, 2, 2],
         ["14 days", "10 days", "8 weeks"],
         ["How long does it take to investigate a billing dispute?", "When will I hear back after disputing a charge?"],
         ["why is my bill {amount} this month? it's normally {amount2}",
          "I've been charged for premium texts I never signed up to",
          "There's a charge of {amount} on my bill for calls to a number I don't recognise",
          "I want to dispute my latest bill, account {acct}.",
          "you've taken two payments for {month} from my card ending {card4}",
          "my ex {tp_other} is still on my account and ran up a bill",
          "got charged {amount} for international calls, I haven't called abroad"],
         ["how long will this take to sort?", "when will I hear back?", "How long does a dispute take?",
          "how long till I get an answer?"],
         ["Billing disputes are investigated within {f}, and charges under review are put on hold.",
          "Our billing team will look into this and come back to you within {f}.",
          "We aim to resolve disputes within {f}.",
          "You'll have an answer within {f}, and any refund goes on your next bill."],
         ["The disputed amount is on hold, so it won't be collected while we look into it.",
          "You'll get an email with the outcome.", "I've raised it with our billing team, reference {case}.",
          "If you're not happy with the outcome, you can ask for it to be reviewed."],
         ["Could you tell me which charges you're disputing and the dates they appear?",
          "Can you send a screenshot of the bill page so I can see the charges you mean?"]),
    Kind("early_termination_fee", 20, ["80%", "80 per cent", "80 percent", "eighty per cent", "eighty percent"],
         [8, 2, 2, 1, 1], ["100%", "50%", "the full amount"],
         ["How much is the fee for ending my contract early?", "What do I pay if I cancel before my contract ends?"],
         ["how much will it cost to cancel my contract early?",
          "moving abroad for work and need to end my contract",
          "Signal at my new place is awful, I want out of my contract",
          "I can't afford {amount} a month anymore, what happens if I leave?",
          "Been with you since {year} and found a better deal with {network}",
          "splitting up with my partner {tp_partner} and want to cancel the line in my name"],
         ["what's the cancellation fee?", "how much will I have to pay?", "What's the charge?", "how much to leave?"],
         ["If you leave early, the charge is {f} of the monthly payments left on your contract.",
          "Early termination fees are {f} of your remaining line rental.",
          "You'd pay {f} of what's left on the plan, as a one-off amount on your final bill."],
         ["Any device plan is separate and still needs paying off.", "You can check your end date in the My Nimbo app.",
          "If you're moving somewhere we don't cover, let us know as we may be able to help."],
         ["Can you tell me which number you want to cancel? Then I can work out the exact figure.",
          "Before I go into fees, could you confirm your date of birth for security?"]),
    Kind("coverage_checker", 15, [COVERAGE, "nimbo.example.com/coverage", "https://www.nimbo.example.com/coverage"],
         [7, 3, 2], ["nimbo.example.com/5g", "www.nimbo.example.com/map", "nimbo.example.com/signal"],
         ["Where can I check 5G coverage for my postcode?", "Is there a coverage map I can look at before joining?"],
         ["no 5G at my house even though I pay for it",
          "signal keeps dropping at home, postcode {pc}",
          "Thinking of moving to {town}, is there 5G there?",
          "moving to {addr_pc} next month, will I get signal there?",
          "calls keep failing at work, is there a mast down?"],
         ["where can I check?", "how do I check coverage?", "is there a map or something?", "how can I see what's near me?"],
         ["You can check 5G and 4G coverage for any postcode at {f}.",
          "Our live coverage map at {f} shows coverage and any known issues in your area.",
          "If you pop your postcode into {f} it'll show what to expect indoors and outdoors.",
          "The best place to check is {f}, which is updated daily."],
         ["Make sure 5G is switched on in your phone's network settings.",
          "Wi-Fi Calling can help indoors; you can turn it on in settings.",
          "There's planned work in the area this week, which may explain the drop-outs.", "I've logged a network report for your postcode."],
         ["Could you tell me your postcode and whether it's indoors, outdoors or both?",
          "Which phone are you using? Some older models don't support 5G."],
         ["I tried {m} but it's a dead link", "your text said to check {m} but the page doesn't load",
          "a friend told me to look at {m}, is that right?"]),
    Kind("porting_time", 12, ["1 working day", "one working day", "1 business day", "one business day"], [7, 3, 1, 1],
         ["3 days", "a week", "72 hours"],
         ["How long does it take to move my number to Nimbo?", "When will my old number start working after I switch?"],
         ["joining from {network}, how long till my number moves over?",
          "I've given you my PAC {pac}, when will my old number work on the new SIM?",
          "ported my number yesterday and still on a temporary number {phone_temp}",
          "Switching to Nimbo from {network}, got my new SIM today."],
         ["how long does it take?", "when will it move?", "How long till it's done?"],
         ["Once we have your PAC, your number moves across in {f}.",
          "Number transfers complete within {f} of the PAC being submitted.",
          "Your old number will switch over in {f}, and you'll get a text when it's done."],
         ["You might lose signal briefly while the switch happens.", "Keep your new SIM in the phone so the number can move onto it.",
          "Restart your phone once you get the confirmation text."],
         ["Could you send me the PAC and the number you're bringing over so I can check the request?"]),
    Kind("insurance_excess", 9, ["£70", "GBP 70", "70 pounds", "seventy pounds", "£70.00"], [8, 1, 1, 2, 1],
         ["£50", "£99", "£100"],
         ["What is the excess on a Nimbo Protect claim?", "How much do I pay to claim on my phone insurance?"],
         ["I've got Nimbo Protect and cracked my screen, how do I claim?",
          "phone stolen, I have insurance with you. IMEI {imei}, crime ref {crimeref}",
          "Dropped my phone in the bath, want to claim. Claim number {claim}",
          "my {device} got run over (don't ask), I pay for insurance"],
         ["what's the excess?", "how much do I have to pay to claim?", "is there an excess?"],
         ["The excess for a Nimbo Protect claim is {f} for loss, theft or damage.",
          "You'll need to pay a {f} excess before we send the replacement.",
          "Claims have an excess of {f}, taken from the card we hold for you."],
         ["Replacements are usually sent the day after approval.", "You'll need your police reference for theft claims.",
          "We'll send a prepaid envelope for the damaged phone."],
         ["Could you send me the IMEI of the phone and the date it happened?"]),
    Kind("unlock_time", 6, ["10 working days", "ten working days", "10 business days", "ten business days"], [7, 3, 1, 1],
         ["24 hours", "3 days", "a month"],
         ["How long does it take to unlock my phone?", "When will my unlock request be done?"],
         ["How do I unlock my phone to use a foreign SIM? IMEI {imei}",
          "selling my old {device}, it needs unlocking first",
          "requested an unlock on {date} still nothing. IMEI {imei}"],
         ["how long does it take?", "when will it be unlocked?", "how long is the wait?"],
         ["Unlock requests take up to {f} to process, and we'll text you when it's done.",
          "Once submitted, unlocking can take {f}.",
          "Please allow {f} for the unlock to go through."],
         ["Unlocking is free for phones bought from us.", "Once it's unlocked, pop in the new SIM and restart."],
         ["Could you send me the IMEI? You can find it by dialling *#06#."]),
    Kind("paper_bill_fee", 5, ["£1.50", "GBP 1.50", "one pound fifty", "150p"], [8, 1, 1, 2],
         ["£3", "99p", "£2.99"],
         ["Do you charge for paper bills, and how much?", "What does a printed bill cost each month?"],
         ["why am I being charged for paper bills?",
          "my dad {tp_dad} isn't online and needs his bills posted",
          "I'd like paper bills sent to {addr_pc} please"],
         ["is there a charge?", "how much is it?", "what does it cost?"],
         ["Paper bills cost {f} a month; online bills are free.",
          "There's a {f} monthly charge for a printed bill.",
          "Printed bills are {f} per month, and we can waive it if you're registered disabled."],
         ["I've switched you to online bills from your next bill date.", "You can see all your bills in the My Nimbo app."],
         ["Would you like me to switch you to online billing instead? I'll just need an email address."]),
]

DETAILS = {
    "roaming_daily_charge": ["my number is {phone}", "it's for my line and my daughter's, {phone_other}", "account {acct}",
                             "we fly on {date}", "got a text with this link {url_text} but it doesn't say the price"],
    "pac_code_validity": ["number is {phone}, DOB {dob}", "account {acct}", "my date of birth is {dob} if you need it"],
    "lost_stolen_line": ["IMEI is {imei} if that helps", "crime ref is {crimeref}", "It's a {device}, IMEI {imei}",
                         "I'm on my friend's phone, call me back on {phone_other}", "my number's {phone}, DOB {dob}"],
    "upgrade_window": ["account {acct}", "delivery to {addr_pc} please if I can", "my NI number is {ni} if you need it for the credit check",
                       "number {phone}", "the email had a link {url_text} but it just says I'm not eligible"],
    "data_boost_price": ["number {phone}", "card ending {card4}", "it's for {phone_other}"],
    "sim_replacement_delivery": ["send it to {addr_pc}", "Address: {addr_pc}", "SIM number on the card is {iccid}",
                                 "I'm at {addr_pc} but I'm out all day"],
    "bill_dispute_timescale": ["I pay by direct debit from sort code {sortcode}, account {bankacc}", "card ending {card4}",
                               "account {acct}", "bill date was {date}", "the bill is here {url_bill}"],
    "early_termination_fee": ["account {acct}", "number {phone}", "DOB {dob}"],
    "coverage_checker": ["postcode is {pc}", "home address is {addr_pc}", "it's a {device}"],
    "porting_time": ["PAC was {pac}, number {phone_other}", "temp number is {phone_temp}", "my old number is {phone_other}"],
    "insurance_excess": ["IMEI {imei}", "claim ref {claim}", "address for the replacement is {addr_pc}"],
    "unlock_time": ["IMEI {imei}", "bought it from you in {year}", "account {acct}"],
    "paper_bill_fee": ["address is {addr_pc}", "his account is {acct}", "account {acct}"],
}
ECHO = {
    "sim_replacement_delivery": ["I've ordered it to {street}.", "It'll go to the address we hold: {addr_pc_agent}."],
    "upgrade_window": ["I've added a note to account {acct}.", "I've sent the details to {email}."],
    "pac_code_validity": ["I've also texted it to {phone}."],
    "lost_stolen_line": ["The bar is on {phone} now.", "I've noted the IMEI {imei} against the account."],
    "insurance_excess": ["Your claim reference is {claim}.", "The replacement will go to {street}."],
    "bill_dispute_timescale": ["I've noted the dispute on account {acct}."],
    "data_boost_price": ["I've added it to {phone}."],
    "unlock_time": ["I've submitted the unlock for IMEI {imei}."],
}
WRONG_LINES = ["I was told {m}?", "someone on the phone said {m}", "my mate says it's {m}", "thought it was {m}",
               "your website said {m} last time I looked", "the last person I spoke to said {m}",
               "isn't it {m}?", "I read online it's {m}"]
FIXES = ["Just to correct that, it's not {m}.", "I can see why you thought {m}, but that's out of date.",
         "Sorry, whoever said {m} gave you the wrong information.", "That's not quite right, it isn't {m}.",
         "Apologies for the confusion about {m}."]
THANKS = ["ok thanks", "brilliant, thank you!", "cheers", "ok great", "thanks for your help 👍", "perfect thank you",
          "ok that's fine", "thanks", "ah ok, thanks for explaining", "Thank you so much", "ok. bit annoying but thanks"]
SECURITY = [("Can I take your date of birth please?", "dob"),
            ("For security, can you confirm the first line of your address and postcode?", "addr"),
            ("Could you confirm the last 4 digits of the card you pay with?", "card"),
            ("Can you confirm the number you're contacting us about?", "phone"),
            ("Can I get the email address on the account?", "email")]
CHAT_CLOSE = ["Is there anything else I can help with today?", "Anything else I can do for you?",
              "Is there anything else you need?", "Can I help with anything else?"]
CHAT_BYE = ["Thanks for chatting with Nimbo, have a lovely day!", "No problem at all, take care!",
            "Glad I could help. Have a good evening!", "You're welcome, enjoy the rest of your day."]
SLANG = {"you": "u", "your": "ur", "please": "pls", "thanks": "thx", "because": "cos", "I'm": "im", "don't": "dont",
         "can't": "cant", "it's": "its", "I've": "ive", "that's": "thats", "really": "rly", "tonight": "2nite",
         "tomorrow": "tmrw", "to be honest": "tbh", "doesn't": "doesnt", "haven't": "havent", "what": "wat"}


# ---------------------------------------------------------------------------------------------- helpers
def _luhn(digits: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            d -= 9 if d > 9 else 0
        total += d
    return digits + str((10 - total % 10) % 10)


def _plain(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def _ord(d: int) -> str:
    return f"{d}{'th' if 11 <= d <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(d % 10, 'th')}"


def _draw_name(rng, female, pool=None, mixed=0.1):
    pool = pool if pool is not None else rng.choices(range(len(POOLS)), weights=POOL_W)[0]
    _, fs, ms, ss = POOLS[pool]
    surname_pool = rng.choices(range(len(POOLS)), weights=POOL_W)[0] if rng.random() < mixed else pool
    return rng.choice(fs if female else ms), rng.choice(POOLS[surname_pool][3]), pool


def _split_count(rng, n):
    raw = [k.weight * rng.uniform(0.88, 1.12) for k in KINDS]
    scale = n / sum(raw)
    counts = [max(1, round(w * scale)) for w in raw]
    while sum(counts) != n:
        if sum(counts) > n:
            counts[counts.index(max(counts))] -= 1
        else:
            counts[rng.randrange(len(counts))] += 1
    return counts


class _Numbers:
    def __init__(self, rng, values):
        self.rng, self.values, self.bag = rng, values, []

    def next(self):
        if not self.bag:
            self.bag = list(self.values)
            self.rng.shuffle(self.bag)
        return self.bag.pop()


def _customer(rng, idx, mobiles, taken):
    female = rng.random() < 0.5
    first, last, pool = _draw_name(rng, female)
    if rng.random() < 0.03:
        last = f"{last}-{_draw_name(rng, female)[1]}"
    acct = f"{rng.randint(100000000, 999999999)}"
    while acct in taken:
        acct = f"{rng.randint(100000000, 999999999)}"
    taken.add(acct)
    year = rng.choices([rng.randint(1950, 1979), rng.randint(1980, 1994), rng.randint(1995, 2006)], weights=[2, 4, 5])[0]
    dob = (year, rng.randint(1, 12), rng.randint(1, 28))
    fl, ll = _plain(first), _plain(last)
    handle_base = rng.choice([fl, f"{fl}_{ll[:1]}", f"{fl}{ll}", f"its{fl}", f"{ll}{rng.randint(1, 99)}", f"{fl}x{year % 100}"])
    email = rng.choice([f"{fl}.{ll}", f"{fl}{ll}{year % 100:02d}", f"{fl[0]}.{ll}", f"{fl}{rng.randint(1, 999)}",
                        f"{ll}_{fl}", f"{handle_base}", f"{fl}.{ll}.{rng.randint(1, 9)}"])
    email += "@" + rng.choice(["example.com", "example.com", "example.net", "example.org", "inbox.example.com",
                               "webmail.example.net"])
    area, town = rng.choice(AREAS)
    tac = rng.choice(TACS)
    return {"id": f"T{idx:05d}", "first": first, "last": last, "female": female, "pool": pool,
            "title": rng.choice(["Ms", "Mrs", "Miss"]) if female else "Mr",
            "mobile": mobiles.next(), "email": email, "acct": acct, "dob": dob,
            "handle": "@" + handle_base[:15], "town": town,
            "postcode": f"{area} {rng.randint(0, 9)}{rng.choice(INWARD_LETTERS)}{rng.choice(INWARD_LETTERS)}",
            "home": _home(rng), "card4": f"{rng.randint(0, 9999):04d}",
            "imei": _luhn(tac + f"{rng.randint(0, 999999):06d}"),
            "iccid": "894411" + "".join(rng.choice("0123456789") for _ in range(13)),
            "device": rng.choice(DEVICES), "plan": rng.choices(PLANS, weights=[5, 4, 4, 2, 2])[0], "since": rng.randint(2012, 2022),
            "partner": _draw_name(rng, not female if rng.random() < 0.88 else female, pool if rng.random() < 0.75 else None)[:2]}


def _home(rng):
    roll = rng.random()
    if roll < 0.55:
        return f"{rng.randint(1, 199)} {rng.choice(ROADS)} {rng.choice(ROAD_TYPES)}"
    if roll < 0.7:
        return f"{rng.randint(1, 350)} {rng.choice(BARE_ROADS)}"
    if roll < 0.9:
        return f"Flat {rng.randint(1, 60)}, {rng.choice(ROADS)} {rng.choice(BUILDINGS)}"
    return f"{rng.randint(1, 99)}{rng.choice('ABC')} {rng.choice(ROADS)} {rng.choice(ROAD_TYPES)}"


# ---------------------------------------------------------------------------------------- one thread
class _Thread:
    """Writes one thread and keeps every personal string it puts in."""

    def __init__(self, rng, c, kind, agent, fact, wrong):
        self.rng, self.c, self.kind, self.agent = rng, c, kind, agent
        self.fact, self.wrong = fact, wrong
        self.found: list[tuple[str, str]] = []
        self.memo: dict[str, str] = {}
        self.lower = False  # the customer is typing in lower case

    def note(self, kind, s):
        if self.lower:
            s = s.lower()
        self.found.append((kind, s))
        return s

    # customer identifiers as people type them
    def number(self, raw=None):
        n = (raw or self.c["mobile"]).replace(" ", "")
        return self.note("phone", self.rng.choice([
            f"{n[:5]} {n[5:]}", n, f"{n[:5]} {n[5:8]} {n[8:]}", f"+44 {n[1:5]} {n[5:]}", f"+44{n[1:]}", f"44{n[1:]}",
            f"({n[:5]}) {n[5:]}", f"{n[:5]}-{n[5:]}"]))

    def account(self):
        a = self.c["acct"]
        return self.note("account_number", self.rng.choice([a, a, f"{a[:3]} {a[3:6]} {a[6:]}", f"{a[:3]}-{a[3:6]}-{a[6:]}"]))

    def birth(self):
        y, m, d = self.c["dob"]
        return self.note("date_of_birth", self.rng.choice([
            f"{d:02d}/{m:02d}/{y}", f"{d}/{m}/{y % 100:02d}", f"{_ord(d)} {LONG_MONTHS[m - 1]} {y}", f"{d} {MONTHS[m - 1]} {y}",
            f"{d:02d}{m:02d}{y % 100:02d}", f"{d}.{m}.{y}", f"{LONG_MONTHS[m - 1]} {d}, {y}", f"{y}-{m:02d}-{d:02d}"]))

    def postcode(self):
        pc = self.c["postcode"]
        return self.note("postcode", self.rng.choice([pc, pc, pc.lower(), pc.replace(" ", ""), pc.replace(" ", "").lower()]))

    def street(self):
        h = self.c["home"]
        if self.rng.random() < 0.25:
            h = h.replace("Road", "Rd").replace("Street", "St").replace("Avenue", "Ave")
        if self.rng.random() < 0.2:
            h = h.lower()
        return self.note("address", h)

    def imei(self):
        i = self.c["imei"]
        return self.note("imei", self.rng.choice([i, i, f"{i[:2]} {i[2:8]} {i[8:14]} {i[14]}", f"{i[:2]}-{i[2:8]}-{i[8:14]}-{i[14]}",
                                                   f"{i[:8]} {i[8:]}"]))

    def tp(self, key):
        if key not in self.memo:
            rng, c = self.rng, self.c
            if key == "partner":
                first, last = c["partner"]
                s = rng.choice([first, first, f"{first} {last}"])
            else:
                female = key in ("daughter", "mum") or (key not in ("son", "dad") and rng.random() < 0.5)
                family = key in ("daughter", "son", "child", "mum", "dad")
                first, last, _ = _draw_name(rng, female, c["pool"] if family else None)
                if family:
                    s = rng.choice([first, first, f"{first} {c['last']}"])
                else:
                    s = rng.choice([first, f"{first} {last}"])
            self.memo[key] = s
        return self.note("third_party_name", self.memo[key])

    def agent_label(self, style="first"):
        first, last = self.agent
        return self.note("agent_name", {"first": first, "full": f"{first} {last}", "init": f"{first} {last[0]}",
                                        "caps": f"{first[0]}{last[0]}"}[style])

    def slot(self, key):
        rng, c = self.rng, self.c
        if key in ("f", "m"):
            return self.fact if key == "f" else self.wrong
        if key.startswith("tp_"):
            return self.tp(key[3:])
        if key == "phone":
            return self.number()
        if key in ("phone_other", "phone_temp"):
            if key not in self.memo:
                self.memo[key] = f"07700 900{rng.randint(0, 999):03d}"
            return self.number(self.memo[key])
        if key == "acct":
            return self.account()
        if key == "dob":
            return self.birth()
        if key == "pc":
            return self.postcode()
        if key == "addr_pc":
            return f"{self.street()}{rng.choice([', ', ' ', ', '])}{self.postcode()}"
        if key == "email":
            return self.note("email", c["email"])
        if key == "street":
            return self.street()
        if key == "addr_pc_agent":
            return f"{self.note('address', c['home'])}, {self.note('postcode', c['postcode'])}"
        if key == "ni":
            x = "".join(rng.choice("ABCEGHJKLMNPRSTWXYZ") for _ in range(2)) + f"{rng.randint(0, 999999):06d}" + rng.choice("ABCD")
            return self.note("national_id", rng.choice([x, f"{x[:2]} {x[2:4]} {x[4:6]} {x[6:8]} {x[8]}", x.lower()]))
        if key == "sortcode":
            sc = f"{rng.randint(0, 999999):06d}"
            return self.note("iban", rng.choice([f"{sc[:2]}-{sc[2:4]}-{sc[4:]}", sc]))
        if key == "bankacc":
            return self.note("iban", f"{rng.randint(0, 99999999):08d}")
        if key == "name_full":
            return self.note("person_name", f"{c['first']} {c['last']}")
        if key == "imei":
            return self.imei()
        if key == "iccid":
            i = c["iccid"]
            return self.note("other_id", rng.choice([i, " ".join(i[k:k + 4] for k in range(0, len(i), 4))]))
        if key in ("pac", "pac_new"):
            if key not in self.memo:
                self.memo[key] = "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(3)) + f"{rng.randint(0, 999999):06d}"
            p = self.memo[key]
            return self.note("other_id", p if key == "pac_new" or rng.random() < 0.7 else f"{p[:3]} {p[3:]}".lower())
        if key == "crimeref":
            return self.note("other_id", rng.choice([f"CR/{rng.randint(10000, 99999)}/{rng.choice([23, 24, 25])}",
                                                     f"{rng.randint(10, 59)}/{rng.randint(100000, 999999)}/24",
                                                     f"CAD{rng.randint(1000, 9999)}"]))
        if key == "claim":
            return self.note("account_number", f"NP-{rng.randint(1000000, 9999999)}")
        if key == "case":
            return self.note("account_number", f"BD{rng.randint(100000, 999999)}")
        if key == "card4":
            return self.note("card_number", c["card4"])
        if key == "reg":
            r = f"{rng.choice('ABDEFGHKLMNOPRSVWY')}{rng.choice('ABCDEFGHJKLMNOPRSTUVWXY')}{rng.choice([15, 17, 19, 21, 23, 65, 68, 70, 72])}" \
                f" {''.join(rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ') for _ in range(3))}"
            return self.note("licence_plate", rng.choice([r, r.replace(' ', '')]))
        if key == "url_text":
            tok = "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(8))
            return self.note("url_with_id", rng.choice([f"https://nimbo.example.com/r/{tok}", f"https://my.nimbo.example.com/offer?c={c['acct']}"]))
        if key == "url_bill":
            return self.note("url_with_id", f"https://my.nimbo.example.com/bills/{c['acct']}/{rng.choice([2023, 2024])}-{rng.randint(1, 12):02d}")
        if key == "url_track":
            tok = "".join(rng.choice("0123456789") for _ in range(12))
            return self.note("url_with_id", rng.choice([f"https://track.example.net/parcel/NMB{tok}",
                                                        f"https://my.nimbo.example.com/orders/SIM-{tok[:8]}"]))
        if key == "amount" or key == "amount2":
            while True:
                v = rng.randint(12, 160)
                if v not in (5, 70):
                    return f"£{v}.{rng.randint(0, 99):02d}"
        if key == "country":
            return rng.choice(COUNTRIES)
        if key == "date":
            d, m = rng.randint(1, 28), rng.randint(0, 11)
            return rng.choice([f"{d} {MONTHS[m]}", f"the {_ord(d)}", f"{d}/{m + 1}", f"{_ord(d)} {LONG_MONTHS[m]}", f"{LONG_MONTHS[m]} {d}"])
        if key == "month":
            return rng.choice(LONG_MONTHS)
        if key == "nth":
            return _ord(rng.choice([3, 5, 8, 9, 11, 12, 14]))
        if key == "year":
            return str(c["since"])
        if key == "plan":
            return c["plan"]
        if key == "device":
            return c["device"]
        if key == "network":
            return rng.choice(NETWORKS)
        if key == "town":
            return rng.choice(AREAS)[1]
        raise KeyError(key)

    def put(self, template):
        return re.sub(r"\{(\w+)\}", lambda mm: self.slot(mm.group(1)), template)


def _chatty(rng, text, protect, casual):
    """How people type in a chat box: lower case, shortcuts, dropped letters (never inside a protected string)."""
    keep = []
    for s in protect:
        if s:
            keep += [(m.start(), m.end()) for m in re.finditer(re.escape(s), text)]

    def free(a, b):
        return not any(x < b and a < y for x, y in keep)

    def word(m):
        w = m.group(0)
        if not free(m.start(), m.end()):
            return w
        if w in SLANG and rng.random() < casual:
            return SLANG[w]
        if len(w) > 4 and rng.random() < casual * 0.08:
            i = rng.randrange(1, len(w) - 1)
            return w[:i] + w[i + 1:] if rng.random() < 0.5 else w[:i] + w[i + 1] + w[i] + w[i + 2:] if i + 2 <= len(w) else w
        return w

    out = re.sub(r"[A-Za-z']+", word, text)
    return out


def _customer_lines(th, misquote, channel):
    """The customer's side: an opening message, maybe a follow-up, maybe a wrong figure."""
    rng, k = th.rng, th.kind
    opening = th.put(rng.choice(k.opens))
    ask = rng.choice(k.asks)
    mis = th.put(rng.choice(k.wrong_lines or WRONG_LINES)) if misquote else ""
    extra = ""
    r = rng.random()
    if r < 0.4:
        extra = th.put(rng.choice(DETAILS[k.id]))
    elif r < 0.55:
        extra = th.put(rng.choice(["my number is {phone}", "acc number {acct}", "it's {phone} btw", "Account no. {acct}",
                                   "(account {acct})", "number on the account is {phone}"]))
    elif r < 0.62 and channel in ("case", "app"):
        extra = th.put(rng.choice(["You can email me on {email}.", "Address on the account is {addr_pc}.", "DOB {dob}."]))
    return opening, ask, mis, extra


def _reply(th, stated, misquote, name_in_greeting=True):
    rng, k = th.rng, th.kind
    out = []
    if misquote:
        if th.wrong == CARE_LINE:
            out.append(rng.choice([f"{CARE_LINE} is our customer services number rather than the lost and stolen line.",
                                   f"The {CARE_LINE} number is for general queries, so you'd have been queued."]))
        else:
            out.append(th.put(rng.choice(FIXES)))
    if stated:
        out.append(th.put(rng.choice(k.say)))
        if rng.random() < 0.75:
            out.append(th.put(rng.choice(k.extra)))
        if rng.random() < 0.2 and len(k.extra) > 2:
            out.append(th.put(rng.choice(k.extra)))
    else:
        out.append(th.put(rng.choice(k.more)))
    payg = th.c["plan"] == "Nimbo Pay As You Go"
    if rng.random() < 0.28 and k.id not in ("porting_time", "coverage_checker") and not (
            payg and k.id in ("upgrade_window", "early_termination_fee", "bill_dispute_timescale", "paper_bill_fee")):
        out.insert(len(out) if misquote else 0, th.put(rng.choice(["I can see you're on {plan}.", "You're on {plan} at the moment.",
                                         "Looking at your account, you're on {plan}.", "I've checked your {plan} plan."])))
    if stated and k.id in ECHO and rng.random() < 0.3:
        out.append(th.put(rng.choice(ECHO[k.id])))
    seen, uniq = set(), []
    for x in out:
        if x not in seen:
            seen.add(x)
            uniq.append(x)
    return " ".join(uniq)


def _security(th):
    rng = th.rng
    q, what = rng.choice(SECURITY)
    answer = {"dob": lambda: rng.choice(["{dob}", "it's {dob}", "{dob} "]),
              "addr": lambda: rng.choice(["{addr_pc}", "{addr_pc} ", "its {addr_pc}"]),
              "card": lambda: rng.choice(["{card4}", "ends {card4}", "{card4} i think"]),
              "phone": lambda: rng.choice(["{phone}", "it's {phone}"]),
              "email": lambda: "{email}"}[what]()
    return q, th.put(answer).strip()


def _cust_text(th, text, protect_extra, casual, lower):
    protect = [s for _, s in th.found] + th.kind.forms + PRODUCTS + [th.wrong, COMPANY] + protect_extra
    if lower:
        text = text.lower()
        protect += [x.lower() for x in protect]
    return _chatty(th.rng, text, protect, casual)


def _stamp(rng, h, m):
    m += rng.randint(0, 3)
    h += m // 60
    return h % 24, m % 60


def _render_chat(th, stated, misquote, when):
    rng, c = th.rng, th.c
    casual, lower = rng.choice([0.0, 0.3, 0.6, 0.9]), rng.random() < 0.35
    h, m = rng.randint(7, 22), rng.randint(0, 59)
    ref = th.note("account_number", f"CH-{rng.randint(10000000, 99999999)}")
    label_style = rng.choice(["full", "first", "You", "Customer"])
    who = {"full": f"{c['first']} {c['last']}", "first": c["first"]}.get(label_style, label_style)
    if label_style in ("full", "first"):
        th.note("person_name", who)
    agent_tag = th.agent_label(rng.choice(["first", "first", "init"]))
    turns = []

    def say(who_, text):
        nonlocal h, m
        h, m = _stamp(rng, h, m)
        turns.append(f"[{h:02d}:{m:02d}] {who_}: {text}")

    th.lower = lower
    opening, ask, mis, extra = _customer_lines(th, misquote, "chat")
    th.lower = False
    if rng.random() < 0.6:
        say("Nimbo Assistant", rng.choice(["Hi! I'm Nimbo's virtual assistant. What can I help with today?",
                                           "Hello, welcome to Nimbo Mobile chat. Tell us what you need help with.",
                                           "Hi there 👋 What would you like help with?"]))
    first_msg = opening if rng.random() < 0.5 else f"{opening} {ask}"
    say(who, _cust_text(th, first_msg, [], casual, lower))
    if rng.random() < 0.5:
        say("Nimbo Assistant", rng.choice(["Thanks. Connecting you to an advisor now, the wait is about 3 minutes.",
                                           "I'll get someone from the team to help with that.",
                                           "Please hold while I transfer you to one of our advisors."]))
    greet = rng.choice([lambda: f"Hi {th.note('person_name', c['first'])}, you're chatting with {th.agent_label('first')}.",
                        lambda: f"Hello, my name's {th.agent_label('first')} and I'll be helping you today.",
                        lambda: f"Hi {th.note('person_name', c['first'])}, thanks for waiting. {th.agent_label('first')} here 😊",
                        lambda: f"Good {'morning' if h < 12 else 'afternoon' if h < 18 else 'evening'}, thanks for contacting {COMPANY}."])()
    say(agent_tag, greet)
    if rng.random() < 0.55:
        th.lower = lower
        q, a = _security(th)
        th.lower = False
        say(agent_tag, q)
        say(who, _cust_text(th, a, [], casual, lower))
    follow = " ".join(x for x in [ask if ask not in first_msg else "", mis, extra] if x)
    if follow:
        say(who, _cust_text(th, follow, [], casual, lower))
    if rng.random() < 0.3:
        say(agent_tag, rng.choice(["Let me just check that for you.", "Bear with me a moment.", "One sec, just looking at your account.",
                                   "Thanks, let me have a look."]))
    answer = _reply(th, stated, misquote)
    say(agent_tag, answer)
    agent_text = answer
    if rng.random() < 0.75:
        say(who, _cust_text(th, rng.choice(THANKS), [], casual, lower))
        if rng.random() < 0.6:
            say(agent_tag, rng.choice(CHAT_CLOSE))
            say(who, _cust_text(th, rng.choice(["no that's all", "no thanks", "nope, all good", "that's it thx"]), [], casual, lower))
        say(agent_tag, rng.choice(CHAT_BYE))
    w = when.strftime("%d/%m/%Y")
    head = rng.choice([f"Live chat transcript | Ref {ref} | {w}", f"Chat {ref} ({w}, web)", f"CHAT LOG {ref} - {w}"])
    return head + "\n" + "\n".join(turns), agent_text


def _render_app(th, stated, misquote, when):
    rng, c = th.rng, th.c
    casual, lower = rng.choice([0.0, 0.0, 0.3, 0.6]), rng.random() < 0.2
    th.lower = lower
    opening, ask, mis, extra = _customer_lines(th, misquote, "app")
    hello = rng.choice(["Hi,", "Hello,", "Hi there.", "hey", "Hi", "", ""])
    sign = rng.choice([lambda: "", lambda: "", lambda: "Thanks", lambda: f"Thanks, {th.note('person_name', c['first'])}",
                       lambda: "thx", lambda: "Cheers"])()
    th.lower = False
    body = " ".join(x for x in [hello, opening, mis, ask, extra, sign] if x)
    body = _cust_text(th, body, [], casual, lower)
    h1 = rng.randint(7, 21)
    t1 = f"{h1:02d}:{rng.randint(0, 59):02d}"
    h2 = rng.randint(h1 + 1, 23) if rng.random() < 0.6 else rng.randint(8, 20)
    t2 = f"{h2:02d}:{rng.randint(0, 59):02d}"
    later = when if h2 > h1 else when + datetime.timedelta(days=1)
    first_day = f"{DAYS[when.weekday()]} {when.day} {MONTHS[when.month - 1]}"
    next_day = f"{DAYS[later.weekday()]} {later.day} {MONTHS[later.month - 1]}"
    who = th.agent_label(rng.choice(["first", "init"]))
    greeting = rng.choice([lambda: f"Hi {th.note('person_name', c['first'])},", lambda: f"Hello {th.note('person_name', c['first'])}!",
                           lambda: "Hi there,", lambda: f"Hi {th.note('person_name', c['first'])}, thanks for your message."])()
    answer = _reply(th, stated, misquote)
    tail = rng.choice([lambda: f"{th.agent_label('first')}, Nimbo Support", lambda: f"- {th.agent_label('first')}",
                       lambda: "Nimbo Support Team", lambda: f"Thanks, {th.agent_label('first')}", lambda: ""])()
    reply = " ".join(x for x in [greeting, answer, tail] if x) if rng.random() < 0.5 else "\n".join(x for x in [greeting, answer, tail] if x)
    parts = [rng.choice(["My Nimbo app > Messages", "In-app messages (My Nimbo)", "App conversation"]),
             f"-- {first_day}, {t1} - You", body, f"-- {next_day}, {t2} - {COMPANY} ({who})", reply]
    if rng.random() < 0.35:
        parts += [f"-- {next_day}, {min(h2 + rng.randint(0, 2), 23):02d}:{rng.randint(0, 59):02d} - You",
                  _cust_text(th, rng.choice(THANKS), [], casual, lower)]
    return "\n".join(parts), answer


def _render_dm(th, stated, misquote, when):
    rng, c = th.rng, th.c
    casual, lower = rng.choice([0.3, 0.6, 0.9]), rng.random() < 0.45
    handle = th.note("other_id", c["handle"])
    sig = rng.choice([lambda: "^" + th.agent_label("caps"), lambda: "- " + th.agent_label("first"),
                      lambda: th.agent_label("first") + " 🙂", lambda: ""])()
    th.lower = lower
    opening, ask, mis, extra = _customer_lines(th, misquote, "dm")
    th.lower = False
    lines = [f"Direct messages: {HANDLE} / {handle} ({when.day} {LONG_MONTHS[when.month - 1]} {when.year})"]
    lines.append(f"{handle}: " + _cust_text(th, f"{opening} {ask}", [], casual, lower))
    lines.append(f"{HANDLE}: " + rng.choice(["Hi there, sorry to hear that!", "Hey! Happy to help with this.",
                                             "Hi, thanks for getting in touch."])
                 + " " + rng.choice(["Could you send your full name and the number it's about?",
                                     "Can you pop your name and mobile number here so I can find you?",
                                     "Can I grab your name and the account number or mobile number?"]) + (" " + sig if sig else ""))
    details = rng.choice(["{name_full}, {phone}", "{name_full} {phone}", "its {phone}, name on the account is {name_full}",
                          "{name_full}, account {acct}"])
    th.lower = lower
    more = " ".join(x for x in [th.put(details), mis, extra] if x)
    th.lower = False
    lines.append(f"{handle}: " + _cust_text(th, more, [], casual, lower))
    answer = _reply(th, stated, misquote)
    lines.append(f"{HANDLE}: Thanks {th.note('person_name', c['first'])}. {answer}" + (" " + sig if sig else ""))
    if rng.random() < 0.5:
        lines.append(f"{handle}: " + _cust_text(th, rng.choice(THANKS), [], casual, lower))
    return "\n".join(lines), answer


def _render_case(th, stated, misquote, when):
    rng, c = th.rng, th.c
    casual, lower = rng.choice([0.0, 0.0, 0.0, 0.2]), rng.random() < 0.08
    case = th.note("account_number", f"{rng.randint(10000000, 99999999)}")
    cat = {"roaming_daily_charge": "Roaming", "pac_code_validity": "Leaving Nimbo", "lost_stolen_line": "Lost or stolen",
           "upgrade_window": "Upgrades", "data_boost_price": "Add-ons", "sim_replacement_delivery": "SIM card",
           "bill_dispute_timescale": "Billing", "early_termination_fee": "Contract", "coverage_checker": "Network",
           "porting_time": "Joining Nimbo", "insurance_excess": "Nimbo Protect", "unlock_time": "Device",
           "paper_bill_fee": "Billing"}[th.kind.id]
    sender = rng.choice([lambda: f"{th.note('person_name', c['first'] + ' ' + c['last'])} <{th.note('email', c['email'])}>",
                         lambda: th.note("email", c["email"])])()
    th.lower = lower
    opening, ask, mis, extra = _customer_lines(th, misquote, "case")
    greet = rng.choice(["Hello,", "Dear Nimbo,", "Hi team,", "To Nimbo customer services,", "Hi"])
    close = rng.choice(["Kind regards", "Thanks", "Regards", "Many thanks", "Thanks in advance"])
    signoff = th.note("person_name", rng.choice([c["first"], f"{c['first']} {c['last']}", f"{c['title']} {c['last']}",
                                                 f"{c['first'][0]} {c['last']}"]))
    detail = ""
    if rng.random() < 0.5:
        detail = th.put(rng.choice(["My mobile number is {phone} and my date of birth is {dob}.",
                                    "Account number {acct}, mobile {phone}.", "Number: {phone}",
                                    "The account is in my name at {addr_pc}."]))
    opening = re.sub(r"^(hi|hiya|hey|hello)[,!]?\s+", "", opening, flags=re.IGNORECASE)
    if not lower:
        opening, ask = opening[:1].upper() + opening[1:], ask[:1].upper() + ask[1:]
    body = f"{greet}\n\n" + " ".join(x for x in [opening + ".", mis, ask, extra, detail] if x) + f"\n\n{close},\n{signoff}"
    th.lower = False
    body = body.replace("?.", "?").replace("!.", "!").replace("..", ".")
    body = _cust_text(th, body, [], casual, lower)
    agent_first = th.agent_label("first")
    hi = rng.choice([lambda: f"Dear {th.note('person_name', c['title'] + ' ' + c['last'])},",
                     lambda: f"Hi {th.note('person_name', c['first'])},", lambda: f"Hello {th.note('person_name', c['first'])},"])()
    answer = _reply(th, stated, misquote)
    outro = rng.choice([f"If there's anything else, reply to this email or call {CARE_LINE}.",
                        "Did you know you can manage add-ons like Data Boost in the My Nimbo app?",
                        "Protect your phone against loss, theft and damage with Nimbo Protect.",
                        f"You can also find help at {SITE}.", f"Any questions, just reply here or email {SUPPORT_MAIL}.", ""])
    sign = rng.choice([lambda: f"Best wishes,\n{th.agent_label('full')}\nNimbo Support",
                       lambda: f"Thanks,\n{agent_first}\n{COMPANY} Customer Support",
                       lambda: f"Kind regards,\n{th.agent_label('init')}.\n{COMPANY}"])()
    text = (f"Case {case} | Category: {cat} | Status: Solved | Created {when.isoformat()}\nTo: {SUPPORT_MAIL}\nFrom: {sender}\n\n{body}\n\n"
            f"Reply from {agent_first} ({COMPANY}):\n{hi}\n\n{answer}\n\n" + (f"{outro}\n\n" if outro else "") + sign)
    return text, answer


RENDER = {"chat": _render_chat, "app": _render_app, "dm": _render_dm, "case": _render_case}


def _hits(text, form):
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


def _fits(text, agent_text, kind, stated, misquote, wrong):
    if not 50 <= len(text.split()) <= 250:
        return False
    for other in KINDS:
        if other is not kind and any(_hits(text, f) for f in other.forms):
            return False
    if stated != any(_hits(agent_text, f) for f in kind.forms):
        return False
    if not stated and any(_hits(text, f) for f in kind.forms):
        return False
    if misquote and wrong.lower() not in text.lower():
        return False
    return True


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    rng = random.Random(f"nimbo-mobile:{seed}:{n}")
    counts = _split_count(rng, n)
    order = [i for i, c in enumerate(counts) for _ in range(c)]
    rng.shuffle(order)

    mobiles = _Numbers(rng, [f"07700 900{i:03d}" for i in range(1000)])
    taken: set[str] = set()
    owners, people = [], []
    while len(owners) < n:
        people.append(_customer(rng, len(people), mobiles, taken))
        owners += [len(people) - 1] * rng.choices([1, 2, 3], weights=[72, 21, 7])[0]
    owners = owners[:n]
    rng.shuffle(owners)
    staff = [_draw_name(rng, rng.random() < 0.55)[:2] for _ in range(max(10, min(45, n // 12)))]

    records, pii = [], []
    stated_n, wrong_n = [0] * len(KINDS), [0] * len(KINDS)
    for i in range(n):
        kind, c = KINDS[order[i]], people[owners[i]]
        for _ in range(300):
            misquote = rng.random() < 0.11
            stated = misquote or counts[order[i]] < 5 or rng.random() > (0.03 if kind.id == "lost_stolen_line" else 0.08)
            fact = rng.choices(kind.forms, weights=kind.wts)[0]
            wrong = rng.choice(kind.wrong)
            th = _Thread(rng, c, kind, rng.choice(staff), fact, wrong)
            channel = rng.choices(["chat", "app", "dm", "case"], weights=[42, 22, 12, 24])[0]
            when = datetime.date(2023, 1, 1) + datetime.timedelta(days=rng.randint(0, 1000))
            text, agent_text = RENDER[channel](th, stated, misquote, when)
            if _fits(text, agent_text, kind, stated, misquote, wrong):
                break
        else:  # pragma: no cover
            raise RuntimeError(f"no fitting thread for record {i} ({kind.id})")
        rid = f"tel-{i + 1:06d}"
        seen, row = set(), []
        for k, s in th.found:
            if (k, s) not in seen and s in text:
                seen.add((k, s))
                row.append({"kind": k, "text": s})
        y, mo, d = c["dob"]
        records.append({"id": rid, "text": text, "person_id": c["id"], "type": kind.id,
                        "customer_name": f"{c['first']} {c['last']}", "mobile_number": c["mobile"], "email": c["email"],
                        "account_number": c["acct"], "date_of_birth": f"{y}-{mo:02d}-{d:02d}"})
        pii.append({"id": rid, "pii": row})
        stated_n[order[i]] += stated
        wrong_n[order[i]] += misquote

    types = sorted(({"id": k.id, "records": counts[j], "fact": k.fact, "forms": list(k.forms), "stated_by": stated_n[j],
                     "misquoted_by": wrong_n[j]} for j, k in enumerate(KINDS)), key=lambda t: -t["records"])
    questions = [{"question": q, "answers": list(k.forms), "type": k.id, "support": counts[j]}
                 for j, k in enumerate(KINDS) for q in k.questions]
    return {"domain": "telecom", "records": records, "pii": pii, "types": types, "questions": questions,
            "public": {"company": COMPANY,
                       "public_strings": [COMPANY, CARE_LINE, LOST_LINE, SITE, COVERAGE, SUPPORT_MAIL, HANDLE],
                       "product_names": list(PRODUCTS),
                       "identifier_fields": ["customer_name", "mobile_number", "email", "account_number", "date_of_birth"],
                       "id_field": "id", "text_field": "text", "unit_field": "person_id"}}
