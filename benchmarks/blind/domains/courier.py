"""Blind own-data domain: a parcel courier's customer service export (Swiftline Parcels, made up).

Each record is one contact: an e-mail thread, a web form with its answer, a live chat, an agent's call
note, a driver's note with the customer's follow-up, or a social-media direct message. Standard library
only; deterministic in ``(seed, n)``.
"""

from __future__ import annotations

import random
import re

COMPANY = "Swiftline Parcels"
ORG_PHONE = "0808 157 0246"
ORG_WEB = "www.swiftline.example.com"
ORG_REDELIVER = "www.swiftline.example.com/redeliver"
ORG_HELP = "help@swiftline.example.com"
ORG_CLAIMS = "claims@swiftline.example.com"
ORG_SOCIAL = "@SwiftlineHelp"

PRODUCTS = ["Swiftline Standard", "Swiftline Next Day", "Swiftline Timed 12", "MySwiftline", "Swiftline Locker",
            "ParcelPoint", "Parcel Shield", "Holiday Hold", "Swiftline Freight", "Swiftline Business"]

# ---------------------------------------------------------------------------------------------- names

FIRST = """James Oliver Callum Liam Noah Harry George Jack Mark Will Bill Frank Drew Robin Victor Mohammed Ahmed
Omar Yusuf Imran Tariq Bilal Hamza Arjun Rohan Vikram Sanjay Raj Deepak Kwame Kofi Chinedu Emeka Tunde
Oluwaseun Jamal Malik Andre Marcus Luca Marco Giovanni Pablo Diego Javier Mateo Tomasz Piotr Krzysztof Pawel
Lukas Jan Dmitri Ivan Alexei Stefan Niko Sven Lars Erik Kenji Hiroshi Wei Jun Minh Duc Hyun Cormac Declan
Ciaran Sean Aled Rhys Gethin Iain Angus Euan Hamish Fraser Gary Darren Wayne Keith Colin Trevor Derek Nigel
Olivia Amelia Isla Ava Emily Sophie Grace Hope May Rose Faith Joy Dawn Summer Amber Ruby Jade Holly Iris Ivy
Hazel Olive Poppy Daisy Autumn Priya Ananya Aisha Fatima Zainab Maryam Noor Leila Yasmin Amira Chioma Ngozi
Adaeze Folake Abena Ama Precious Blessing Sofia Giulia Chiara Lucia Carmen Ines Marta Agnieszka Katarzyna Ewa
Zofia Anja Ingrid Freya Astrid Yuki Mei Hana Lan Thu Siobhan Niamh Aoife Sinead Ffion Cerys Seren Eilidh Morag
Kirsty Tracey Sharon Janet Pauline Beverley Lorraine Dorothy Margaret Pat Sunny Bernadette Gwen Esther""".split()

FEMALE = set("""Olivia Amelia Isla Ava Emily Sophie Grace Hope May Rose Faith Joy Dawn Summer Amber Ruby Jade Holly
Iris Ivy Hazel Olive Poppy Daisy Autumn Priya Ananya Aisha Fatima Zainab Maryam Noor Leila Yasmin Amira Chioma
Ngozi Adaeze Folake Abena Ama Precious Blessing Sofia Giulia Chiara Lucia Carmen Ines Marta Agnieszka Katarzyna
Ewa Zofia Anja Ingrid Freya Astrid Yuki Mei Hana Lan Thu Siobhan Niamh Aoife Sinead Ffion Cerys Seren Eilidh
Morag Kirsty Tracey Sharon Janet Pauline Beverley Lorraine Dorothy Margaret Bernadette Gwen Esther""".split())

LAST = """Green Brown White Black Rose Hope May Field Church King Bishop Bell Hill Wood Stone Baker Cook Fox Hunter
Lamb Little Long Young Rich Price Sharp Moon Frost Snow Marsh Brook Bird Swan Wolf Day Law Page Hall Park Wall
Lane Street Mason Carpenter Fisher Shepherd Miller Smith Taylor Walker Turner Chambers Summers Winter Moore Gold
Silver Bloom Nightingale Peacock Sparrow Cross Fairweather Goodchild Okafor Adeyemi Mensah Owusu Boateng Nwosu
Eze Abubakar Patel Shah Khan Hussain Ahmed Begum Iqbal Chaudhry Singh Kaur Gill Sandhu Sharma Gupta Nair Menon
Reddy Rao Kowalski Nowak Kowalczyk Wojcik Lewandowski Zielinska Novak Horvat Popescu Ionescu Petrov Ivanova
Schmidt Muller Fischer Becker Hansen Larsen Johansson Nielsen Rossi Bianchi Romano Esposito Garcia Fernandez
Lopez Martinez Santos Silva Pereira Costa Oliveira Nguyen Tran Pham Kim Choi Wang Zhang Chen Liu Huang Tanaka
Suzuki Sato Yamamoto O'Brien O'Connor Murphy Kelly Byrne Doyle McCarthy Gallagher MacDonald Campbell Stewart
Robertson Fraser Jones Williams Davies Evans Thomas Roberts Hughes Lewis Morgan Griffiths Pryce Haddad Khoury
Mansour Yilmaz Demir Kaya Ozturk Cohen Levy Friedman Quaye Achterberg Lindqvist Delacroix Moreau""".split()

AGENTS = [("Priya", "Shah"), ("Tom", "Bright"), ("Sinead", "Mills"), ("Marcus", "Reid"), ("Aisha", "Karim"),
          ("Dan", "Holloway"), ("Kerry", "Ash"), ("Femi", "Adebayo"), ("Lucy", "Wren"), ("Gareth", "Pugh"),
          ("Hannah", "Lowe"), ("Raj", "Mistry"), ("Beth", "Carver"), ("Connor", "Quinn"), ("Zara", "Malik"),
          ("Steve", "Dunn"), ("Megan", "Frost"), ("Joel", "Atkins"), ("Natalia", "Rusu"), ("Imogen", "Hart"),
          ("Kieran", "Walsh"), ("Yasmin", "Rahman"), ("Ollie", "Grant"), ("Chloe", "Bennett"), ("Ade", "Okoro"),
          ("Fiona", "Baird"), ("Jordan", "Cole"), ("Nadia", "Hussain"), ("Ryan", "Booth"), ("Ellie", "Sparks"),
          ("Leon", "Fairbairn"), ("Mia", "Castle"), ("Sam", "Ogden"), ("Harriet", "Vance"), ("Kai", "Jennings"),
          ("Jas", "Dhillon"), ("Rosa", "Marin"), ("Owain", "Pritchard"), ("Amy", "Hope"), ("Will", "Brook")]

DRIVERS = ["Kev", "Big Dave", "Tomasz", "Sandeep", "Lee", "Gaz", "Marek", "Jonno", "Abdul", "Craig", "Shaun", "Vlad"]

AREAS = [("LS", "Leeds"), ("M", "Manchester"), ("B", "Birmingham"), ("BS", "Bristol"), ("CF", "Cardiff"),
         ("EH", "Edinburgh"), ("G", "Glasgow"), ("NE", "Newcastle"), ("NG", "Nottingham"), ("S", "Sheffield"),
         ("L", "Liverpool"), ("SO", "Southampton"), ("PL", "Plymouth"), ("EX", "Exeter"), ("OX", "Oxford"),
         ("CB", "Cambridge"), ("NR", "Norwich"), ("YO", "York"), ("HU", "Hull"), ("LE", "Leicester"),
         ("CV", "Coventry"), ("ST", "Stoke"), ("BN", "Brighton"), ("RG", "Reading"), ("SE", "London"),
         ("N", "London"), ("E", "London"), ("SW", "London"), ("BT", "Belfast"), ("AB", "Aberdeen"),
         ("SA", "Swansea"), ("BA", "Bath"), ("GL", "Gloucester"), ("WA", "Warrington"), ("OL", "Oldham"),
         ("HD", "Huddersfield"), ("BD", "Bradford"), ("DL", "Darlington"), ("PR", "Preston"), ("TR", "Truro")]

STREET_BASES = """Elm Oak Station Church Mill Park Victoria Albert Queen's King's Manor Orchard Meadow Beech Ash
Willow Chestnut Hawthorn Rosemary Falcon Cromwell Windsor Lansdowne Grange Priory Abbey Hollybank Thornton
Ashford Greenhill Westfield Springfield Brookside Ferncliffe Cavendish Marlborough Stanley Gladstone Nelson
Tanners Coopers Heather Bramble Lime Sycamore Juniper Moorland Kestrel Linden Rowan Hazelwood Fairfield
Hartley Belgrave Clarendon Pembroke Regent Wellington Osborne Burns Tennyson Shakespeare Dale""".split()
STREET_TYPES = [("Road", "Rd"), ("Street", "St"), ("Lane", "Ln"), ("Avenue", "Ave"), ("Close", "Cl"),
                ("Drive", "Dr"), ("Way", "Way"), ("Crescent", "Cres"), ("Grove", "Gr"), ("Terrace", "Terr"),
                ("Gardens", "Gdns"), ("Place", "Pl"), ("Court", "Ct"), ("Mews", "Mews"), ("Rise", "Rise"),
                ("View", "View"), ("Walk", "Walk"), ("Row", "Row")]
BARE_STREETS = """Kingsway Broadway Parkside Highfield Westgate Northgate Moorside Bankside Millbrook Longacre
Fairholme Riverside Woodlands Sandringham Hillcrest Glebelands Elmfield Netherfield Southview Eastcote Greenacres
Stonegate Blackfriars Cheapside Hollins Bridgefoot Meadowbank Larchwood Oakdene Springbank""".split()
HOUSE_NAMES = ["Rose Cottage", "The Old Forge", "Ivy House", "Holly Lodge", "The Granary", "Meadow View",
               "Orchard House", "The Laurels", "Fern Cottage", "Brook House"]
BLOCKS = ["Cavendish Court", "Riverside House", "Marlow Court", "Kestrel House", "Victoria Mansions",
          "Albion Works", "The Maltings", "Foundry Wharf", "Bridgewater Point", "Lister Mills"]

DEPOTS = ["Leeds Stourton depot", "Park Royal depot", "Avonmouth depot", "Trafford Park depot",
          "Hillington depot", "Wentloog depot", "Minworth depot", "Hellesdon depot", "Sherburn depot",
          "Dartford depot", "Eastleigh depot", "Team Valley depot"]
SHOPS = ["Harlow Home", "Kestrel Sports", "Little Fern Kids", "Maple & Finch", "PixelHub", "Bramble & Co",
         "Northwind Outdoor", "Cobalt Audio", "the Etsy seller", "a seller on Vinted", "Greenleaf Books",
         "Otter Pet Supplies", "Lumen Lighting"]
ITEMS = ["pair of trainers", "coffee machine", "mirror", "laptop", "set of wine glasses", "kids' bike helmet",
         "phone", "lamp", "dinner set", "printer", "pair of headphones", "jacket", "guitar pedal", "food processor",
         "box of books", "games console", "vase", "standing desk frame", "baby monitor", "prescription glasses"]

# ---------------------------------------------------------------------------------------------- request types

TYPES = [
    dict(
        id="missed_redelivery", weight=82,
        fact=ORG_REDELIVER,
        forms=[ORG_REDELIVER, "swiftline.example.com/redeliver", "https://www.swiftline.example.com/redeliver"],
        misquotes=["www.swiftline.example.com/missed", "swiftline.example.com/rebook",
                   "swiftline.example.com/booking"],
        subjects=["Missed delivery", "Sorry we missed you card", "redelivery", "Parcel not delivered - card left",
                  "Rebook delivery", "Missed parcel", "card through door but I was in!!"],
        story=["I got a 'sorry we missed you' card {day} but I was in all day and the doorbell works fine.",
               "Your driver left a card saying nobody was home at {addr}. I was literally working from home.",
               "I missed my parcel {day} because I was on the school run. The card has reference {cardref} on it.",
               "Tracking says delivery attempted but there was no card and no knock. My partner {partner} was home too.",
               "I work nights so I'm asleep during the day and I've now missed the driver twice.",
               "My car ({plate}) was on the drive the whole time so obviously I was in.",
               "The driver tried at 7:40am when I was in the shower. Card ref is {cardref}.",
               "I'm waiting on a {item} from {shop} and the tracking says 'we missed you'.",
               "Came home to a card on the mat for a parcel that needs a signature. I live at {addr}, {pc}."],
        ask=["How do I get it redelivered?", "Can I rebook it for Saturday?", "What do I do now to get it delivered again?",
             "Can you send it out again tomorrow please?", "Where do I rebook this?", "how do i get a new delivery day"],
        mqs=["The card says to go to {mq} but that page just gives an error.",
             "A friend said to use {mq} to rebook but it doesn't recognise my number.",
             "I tried {mq} like it says on the card and it won't load."],
        facts=["You can choose a new delivery day at {f} - just enter the tracking number and your postcode.",
               "The quickest way to rebook is online at {f}, and redelivery doesn't cost anything.",
               "Please rebook through {f}, where you can also nominate a neighbour or a ParcelPoint shop instead.",
               "If you go to {f} and put in the card reference, you can pick any day that suits, Saturday included."],
        corr=["That link is out of date, sorry about that. ", "I'm afraid that page isn't ours any more. ",
              "Apologies, some older cards have the wrong web address printed on them. "],
        extra=["I've passed feedback about the attempt to the {depot} team.",
               "I've added a note for the driver that you're usually in after 5pm.",
               "If it's easier, you can collect from the {depot} from 4pm the next working day, just bring photo ID.",
               "Your case reference is {case} if you need to come back to us."],
        nofact=["I can't find a parcel under the reference on the card. Could you send me the tracking number from your order confirmation and the postcode it's going to?",
                "Before I do anything, can you confirm the full delivery address and the name on the order? The number you gave doesn't match anything on our side."],
        issue=["missed delivery, card left", "delivery attempted while cust says they were in", "wants to rebook missed parcel",
               "2nd failed attempt, cust works shifts"],
        driver=["No answer at {addr}, card {cardref} left through door.", "Carded 11:42, no reply, no safe place on handset.",
                "Customer not in, neighbours not answering, carded {cardref}.", "Signature required, no answer. Carded."],
        questions=["How do I rebook a delivery I missed?",
                   "The driver left a card because I was out - how can I get the parcel delivered again?",
                   "Where do I go to arrange a redelivery?"]),
    dict(
        id="delivery_timeframe", weight=62,
        fact="3 working days",
        forms=["3 working days", "three working days", "3 business days", "three business days", "72 hours"],
        misquotes=["next day", "same day", "5 working days", "four working days"],
        subjects=["Where is my parcel?", "Delivery time", "How long will delivery take", "Parcel still not arrived",
                  "Tracking not updated", "when will my order arrive", "Standard delivery"],
        story=["I ordered a {item} from {shop} on {date} and the tracking has said 'in transit' since.",
               "My parcel was collected from the sender on {date} and I still haven't got it.",
               "I need a birthday present for my daughter by Saturday and the tracking hasn't moved.",
               "The seller sent it Swiftline Standard and gave me this link: {trkurl}",
               "It's been sat at the hub for ages according to the tracking.",
               "Ordered a {item} (£{amt}) and it's showing 'received by Swiftline' and nothing else."],
        ask=["How long does it normally take?", "When will I actually get it?", "Is this normal or has it gone missing?",
             "How long should Standard delivery take?", "any idea when it will turn up?"],
        mqs=["The shop said it would be {mq} but it's already longer than that.", "I was told delivery was {mq}.",
             "Your website said {mq}, which is why I picked you."],
        facts=["Swiftline Standard parcels are normally delivered within {f} of us collecting them from the sender.",
               "Our standard service takes up to {f}, not counting weekends and bank holidays.",
               "Please allow {f} from the date the sender hands the parcel over to us.",
               "It's still inside the {f} we quote for Standard, so it isn't late yet."],
        corr=["Just to clarify, that sounds like our Swiftline Next Day service rather than Standard. ",
              "I'm sorry if you were told otherwise. ", "That's not quite right, I'm afraid. "],
        extra=["The last scan was at our {depot} this morning, so it is moving.",
               "If the sender paid for Swiftline Next Day, that's something they'd need to raise with us.",
               "You can follow it live at www.swiftline.example.com or in the MySwiftline app."],
        nofact=["I can't see that tracking number on our system yet, so the sender may not have handed it over. Could you check the number with {shop} and send it back to me?",
                "Could you send me the full tracking number? The one you've given is missing a few characters."],
        issue=["chasing parcel, tracking not moving", "asking how long standard delivery takes", "wants ETA for order"],
        questions=["How long does standard delivery take?", "How long will my parcel take to arrive with the normal service?"]),
    dict(
        id="safe_place", weight=46,
        fact="10pm",
        forms=["10pm", "10 pm", "22:00", "ten o'clock at night"],
        misquotes=["midnight", "8am", "6pm", "7am on the day"],
        subjects=["Safe place", "Leave parcel in porch", "Delivery instructions", "Safe place ignored",
                  "Driver didn't use safe place", "leave with neighbour"],
        story=["I set a safe place (the blue bin by the side gate) but the driver still took it back to the depot.",
               "Can parcels be left in my porch at {addr}? I'm at work until 6.",
               "I added an instruction to leave it with {nb} at {nbaddr} but it went back to the depot.",
               "I put 'shed behind the garage' as the safe place and the driver ignored it.",
               "My parcel was left on the doorstep in full view of the road. I asked for it to go behind the bins.",
               "I'd like a permanent instruction for {addr} - leave in the greenhouse, back garden, gate code {gatecode}."],
        ask=["What's the cut-off for setting it?", "Why wasn't it followed?", "How late can I change the instructions?",
             "When do I need to set it by for tomorrow?"],
        mqs=["I thought I could change it up to {mq}?", "The app said I had until {mq}.",
             "Someone on your chat told me {mq} was fine."],
        facts=["Safe place instructions need to be set by {f} the evening before delivery, otherwise they don't reach the driver's handset.",
               "As long as you add it in MySwiftline before {f} the day before, the driver will see it.",
               "The cut-off for setting or changing a safe place is {f} the night before.",
               "Anything added after {f} the previous evening won't make it onto that day's route."],
        corr=["I'm sorry, that information was wrong. ", "Unfortunately that's not the case. ",
              "Apologies for the mix-up. "],
        extra=["I've fed this back to the driver's manager at the {depot}.",
               "Please note anything with Parcel Shield cover over £250 can't be left in a safe place.",
               "I've saved the instruction on your profile so it applies to future parcels too."],
        nofact=["Could you tell me which parcel this was about? I can see more than one delivery to your postcode and want to check the right driver's notes.",
                "Can you send the tracking number and a photo of where it was left so I can raise it with the depot?"],
        issue=["safe place not used", "asking about safe place cut-off", "parcel left in view, wants instruction"],
        dstory=["I set a safe place (the blue bin by the side gate) but the driver still took it back to the depot.",
                "I put 'shed behind the garage' as the safe place and the driver ignored it.",
                "Why was my parcel taken back when I'd asked for it to be left in the porch at {addr}?"],
        driver=["Safe place not on handset at time of route, carded.", "No safe place on handset, no answer. Returned to depot.",
                "Safe place 'bin' - side gate locked, could not access. Returned to depot."],
        questions=["What time do I need to set a safe place by?",
                   "How late can I add or change delivery instructions for the next day?"]),
    dict(
        id="lost_parcel", weight=40,
        fact="10 working days",
        forms=["10 working days", "ten working days", "10 business days", "two weeks"],
        misquotes=["5 days", "30 days", "a month", "3 days"],
        subjects=["Lost parcel", "Parcel missing", "Never received parcel", "Tracking stopped", "Parcel lost in transit?",
                  "Says delivered - NOT received"],
        story=["My parcel has been stuck on 'at hub' since {date}. It's a {item} worth £{amt}.",
               "Tracking says delivered but it never came. I've checked with {nb} next door and the building's post room.",
               "I sent a parcel to my brother {tpm} on {date} and it still hasn't arrived.",
               "I'm the sender: it's a phone, IMEI {imei}, and the buyer says it hasn't turned up.",
               "Tracking hasn't updated since {date} and the seller won't refund me until you confirm it's lost.",
               "I've paid £{amt} for this and honestly I'm fed up. If it's lost please refund to sort code {sort}, account {acct}."],
        ask=["When can it be declared lost?", "How long do I have to wait before claiming?",
             "At what point do you treat it as lost?", "Can I claim now?"],
        mqs=["The shop told me you'd class it as lost after {mq}.", "I read online it's {mq} and then you refund.",
             "Your colleague said {mq} last time."],
        facts=["We can only class a parcel as lost once it's {f} past the expected delivery date, then we open a claim.",
               "If there's no scan for {f} after the due date it's treated as lost and the sender can claim.",
               "Our trace takes up to {f}; if it hasn't turned up by then we'll confirm it as lost.",
               "A parcel is declared lost {f} after the expected delivery date."],
        corr=["I'm afraid that isn't right. ", "I'm sorry, you've been given the wrong information there. ",
              "That's not our policy, sorry. "],
        extra=["I've opened a trace under case {case}.",
               "Please send a description of the packaging and contents to claims@swiftline.example.com quoting {case}.",
               "Compensation for lost items is paid to the sender, as they have the contract with us.",
               "We can't take bank details over chat or e-mail, so please don't send them again."],
        nofact=["I'm sorry it hasn't arrived. Could you confirm the tracking number and the full delivery address so I can check the driver's GPS record?",
                "I'll need the tracking number from the sender before I can look into this. Could you ask {shop} for it?"],
        issue=["parcel not received, tracking stalled", "says delivered, not received", "sender chasing lost item"],
        dstory=["Tracking says delivered but it never came. I've checked with {nb} next door and the building's post room.",
                "The app says it was left with a neighbour but none of my neighbours have it.",
                "It says delivered this afternoon but I was home and nobody came to the door."],
        driver=["Delivered to door, no photo (handset fault).", "Left with neighbour - name not recorded.",
                "Scanned delivered at {addr} 14:08."],
        questions=["How long before a missing parcel counts as lost?", "When can I report my parcel as lost?",
                   "How long do you search for a parcel before it is declared lost?"]),
    dict(
        id="damaged_claim", weight=34,
        fact="48 hours",
        forms=["48 hours", "forty-eight hours", "2 days", "two days"],
        misquotes=["28 days", "30 days", "a month", "5 working days"],
        subjects=["Damaged parcel", "Item arrived broken", "Claim for damage", "Box crushed", "Damaged delivery",
                  "BROKEN ITEM"],
        story=["My parcel arrived {day} with the box completely crushed and the {item} inside is cracked.",
               "The {item} I ordered was smashed when I opened it. Photos here: {photo}",
               "The driver threw the parcel over the gate (my neighbour {nb} saw it) and it's damaged.",
               "Parcel came soaking wet and the contents are ruined.",
               "It's a phone (IMEI {imei}) and the screen is cracked, the box has a hole in the corner.",
               "I'm a small business sender, account {bizacct}, and one of my parcels arrived damaged at the customer's.",
               "The {item} is dented. I paid with my card ending {card4} so can the refund go back on that?",
               "The {item} arrived in pieces. Please pay any compensation into my account, IBAN {iban}."],
        ask=["How long do I have to report it?", "Is it too late to claim?", "What's the time limit for a damage claim?",
             "How do I claim and by when?"],
        mqs=["I thought the time limit was {mq}?", "The seller said I had {mq} to report it.",
             "I was told {mq} on the phone."],
        facts=["Damage needs reporting within {f} of delivery, with photos of the outer box and the item.",
               "We accept damage reports up to {f} after the parcel was delivered.",
               "Claims for damage have to reach us within {f} of the delivery scan.",
               "The limit for reporting damage is {f} from delivery, so please send everything over now."],
        corr=["I'm sorry, that's not correct. ", "I'm afraid that was wrong. ", "Apologies for any confusion. "],
        extra=["Please e-mail the photos to claims@swiftline.example.com quoting {case}.",
               "Keep the packaging in case we need to inspect it.",
               "If the sender took Parcel Shield, the cover goes up to £{amt2}.",
               "Refunds for claims are paid to the sender, not to a card."],
        nofact=["Sorry to see this. Could you send photos of the outer box, the label and the damage so I can check whether it was damaged with us?",
                "Can you tell me who sent the parcel and the tracking number? I can't find it under your name."],
        issue=["item arrived damaged", "wants to claim for broken item", "box crushed, contents damaged"],
        driver=["Box wet on loading, delivered as addressed.", "Parcel damaged in transit - taped and delivered.",
                "Delivered to {addr}, outer box dented, noted on handset."],
        questions=["How long do I have to report a parcel that arrived damaged?",
                   "What's the deadline for making a damage claim after delivery?"]),
    dict(
        id="depot_collection", weight=30,
        fact="7 days",
        forms=["7 days", "seven days", "a week", "one week"],
        misquotes=["3 days", "5 days", "10 days", "a month"],
        subjects=["Collect from depot", "Collection", "Pick up parcel from depot", "Depot collection",
                  "collecting my parcel"],
        story=["I got a card saying my parcel has gone to the {depot}. I'd like to collect it myself.",
               "Can my partner {partner} collect my parcel? They'll bring their driving licence.",
               "I don't drive so I haven't got a licence. Would my national insurance card do? It's {ni}.",
               "I'm away for work until next Thursday and the parcel is at the depot.",
               "I'll come by car to pick it up, reg {plate}. Is there parking at the {depot}?",
               "What ID do I need? I've got my driving licence ({dl}) and my passport, number {passport}.",
               "The parcel is age-restricted (wine). My DOB is {dob} if you need it."],
        ask=["How long will you keep it there?", "How long before it goes back to the sender?",
             "How long do I have to pick it up?"],
        mqs=["The card said {mq}, is that right?", "I was told you only keep them for {mq}.",
             "Is it {mq} before it's returned?"],
        facts=["Parcels are kept at the depot for {f} before they're returned to the sender.",
               "We'll hold it at the {depot} for {f} from the first delivery attempt.",
               "You've got {f} to collect it; after that it goes back to the sender.",
               "The depot holds items for {f}, so there's no rush."],
        corr=["Sorry, that's not quite right. ", "I'm afraid the card's wording is confusing. ",
              "That isn't correct, sorry. "],
        extra=["Please bring photo ID and the card; if someone collects for you they need a signed note and their own ID.",
               "The collection counter is open 8am to 8pm, Monday to Saturday.",
               "There is free customer parking at the front of the building."],
        nofact=["I can't see that the parcel has reached a depot yet. Could you confirm the card reference so I can check where it's being held?",
                "Could you send me the tracking number? I need it to check which depot is holding your parcel."],
        issue=["wants to collect from depot", "asking how long depot holds parcel", "third party collection query"],
        driver=["No answer, taken back to {depot} for customer collection.", "Customer requested depot collection."],
        questions=["How long will the depot keep my parcel before sending it back?",
                   "How long do I have to collect a parcel from the depot?"]),
    dict(
        id="customs_charges", weight=26,
        fact="£8.50",
        forms=["£8.50", "GBP 8.50", "8.50 pounds", "eight pounds fifty", "8 pounds 50"],
        misquotes=["£11", "£5", "£12.50", "£6.99"],
        subjects=["Customs charge", "Import fee", "Why am I paying duty?", "Customs charges on parcel from USA",
                  "Pay import VAT", "is this text a scam?"],
        story=["I've had a text asking me to pay £{vat} before you'll deliver a parcel from the US.",
               "I ordered a {item} from a shop in Japan for ${usd} and now there's a customs bill.",
               "Is this text real? It has a link {paylink} and wants £{vat} from me.",
               "I already paid VAT at checkout so why are you charging me again? I paid on my card ending {card4}.",
               "It's a gift from my sister {tpf} in Canada, surely there's no duty on gifts.",
               "I tried to pay on the link with my card {cardfull} exp 09/27 but the page timed out.",
               "The payment page asked for an ID number so I put my national insurance number, {ni}. Was that right?"],
        ask=["What is the extra fee on top of the VAT?", "Why is there a handling charge as well?", "How much is your fee?",
             "What's the Swiftline part of the charge for?"],
        mqs=["Your fee was {mq} last time.", "My friend said your charge is {mq}.", "The website says {mq}?"],
        facts=["On top of the import VAT there's our clearance fee of {f}, which covers paying HMRC on your behalf.",
               "The {f} is our handling fee for processing the customs declaration.",
               "Our fee is a flat {f} per parcel, whatever the value of the goods.",
               "Of the total, {f} is Swiftline's handling charge and the rest goes to HMRC."],
        corr=["I'm sorry, that figure isn't right. ", "That's not our current charge, I'm afraid. ",
              "I can see why that's confusing. "],
        extra=["You can pay securely at {paylink}.",
               "The VAT itself is set by HMRC, so if you think it's wrong you'd need to reclaim it from them.",
               "We never need your national insurance number, so please ignore any page asking for it.",
               "Once it's paid the parcel goes out on the next working day."],
        nofact=["Could you send the tracking number from the text message? I need it to see the customs declaration the sender filled in.",
                "I can't see any charges against that reference. Can you forward the text you received, including the link?"],
        issue=["query on customs charge", "questions handling fee on import", "thinks customs text is scam"],
        questions=["How much is Swiftline's own handling fee on an import?",
                   "What do you charge for dealing with customs on a parcel from abroad?"]),
    dict(
        id="address_change", weight=22,
        fact="£3",
        forms=["£3", "GBP 3", "3 pounds", "three pounds", "£3.00"],
        misquotes=["free", "£5", "£2", "£1.50"],
        subjects=["Change delivery address", "Wrong address on parcel", "Redirect parcel", "Moved house",
                  "Address update"],
        story=["I've just moved from {addr} to {newaddr}, {newpc} and I've got a parcel on its way to the old place.",
               "The seller put the wrong house number on it, it should be {newaddr}.",
               "Can you send my parcel to my work address instead: {newaddr}, {newpc}?",
               "I'd like it delivered to my mum's, {newaddr} {newpc}. Her name is {tpf}.",
               "I'm staying at my partner's for a bit so can it go to {newaddr}? DOB {dob} if you need to check it's me."],
        ask=["Is there a charge for changing it?", "How much does it cost to redirect?",
             "Can you change it, and is there a fee?"],
        mqs=["I thought it was {mq}?", "I read it's {mq}.", "Your chat bot said {mq}."],
        facts=["Redirecting a parcel to a different address costs {f}, and it has to be done before it's out for delivery.",
               "There's a {f} charge to change the address once the parcel is in our network.",
               "Address changes are {f}; you can pay by card in MySwiftline.",
               "I can do that for you now for {f}."],
        corr=["Sorry, that's not right. ", "I'm afraid there is a charge. ", "Unfortunately that's out of date. "],
        extra=["For security I've checked your date of birth against the account.",
               "I've updated it and you'll get a new estimated delivery date by e-mail.",
               "I've taken the payment from the card ending {card4}.",
               "If the parcel is already out for delivery, the change will apply from the next day."],
        nofact=["I need to confirm you're the recipient first. Could you reply with the e-mail address the order was placed with and the original postcode?",
                "Can you check the new address for me? The postcode you've given doesn't match the street."],
        issue=["wants to redirect parcel", "moved house, parcel to old address", "wrong house no. on parcel"],
        questions=["Does it cost anything to change the delivery address on my parcel?",
                   "How much is it to redirect a parcel to another address?"]),
    dict(
        id="send_parcel", weight=19,
        fact="£4.79",
        forms=["£4.79", "GBP 4.79", "4.79 pounds", "four pounds seventy-nine"],
        misquotes=["£6.50", "£5.49", "£2.99", "£7.20"],
        subjects=["Sending a parcel", "Price to send", "How much to post a parcel", "Sending to my son at uni",
                  "business account query"],
        story=["I want to send a small box (about 1.5kg) to my son {tpm} at uni.",
               "I sell a few bits online and need to send a pair of trainers, box is 35x25x12cm.",
               "What's the cheapest way to send a parcel to my friend at {tpaddr}?",
               "Can I drop a parcel at a Swiftline Locker or do I need a ParcelPoint shop? I'm in {pc}.",
               "We've got a Swiftline Business account ({bizacct}) but I'm sending something personal."],
        ask=["How much does a small parcel cost?", "What's the price for a small parcel?", "How much would it be?"],
        mqs=["I paid {mq} last month, has it gone up?", "It showed {mq} on a comparison site.", "Is it still {mq}?"],
        facts=["A small parcel (up to 2kg) with Swiftline Standard is {f} if you drop it at a ParcelPoint shop or Swiftline Locker.",
               "Sending a small parcel costs {f} when you book online.",
               "Our small parcel price is {f}, tracking included.",
               "For that size it would be {f} with Swiftline Standard."],
        corr=["Prices did change recently. ", "I'm not sure where that price came from. ", "That's not our price, sorry. "],
        extra=["You can book at www.swiftline.example.com and either print a label or show a QR code.",
               "If you'd like it collected from your door there's an extra charge.",
               "Business account prices are different, so it's best to book this as a personal parcel."],
        nofact=["Could you tell me the weight and measurements of the box? Then I can tell you which size band it falls into.",
                "Where is it going? Prices are different for Northern Ireland, the islands and abroad."],
        issue=["price to send parcel", "wants to book a send", "asking about drop off points"],
        questions=["How much does it cost to send a small parcel?", "What's your price for posting a small package?"]),
    dict(
        id="proof_of_delivery", weight=15,
        fact="24 hours",
        forms=["24 hours", "twenty-four hours", "24 hrs"],
        misquotes=["12 hours", "a few minutes", "5 working days"],
        subjects=["Proof of delivery", "POD request", "Who signed for my parcel?", "Need proof parcel was delivered"],
        story=["The tracking shows delivered and signed for by '{sig}' but nobody here has that name.",
               "My customer says they never got the parcel and I need proof of delivery for a marketplace dispute.",
               "I need proof of delivery for a parcel I sent to {tpaddr}.",
               "Could I have the photo the driver took? The link {trkurl} just says delivered."],
        ask=["How long does it take to get a POD?", "How soon can I get the proof of delivery?", "When will I get it?"],
        mqs=["Last time it took {mq}.", "The website said I'd get it within {mq}.", "Your colleague said {mq}."],
        facts=["I've requested the proof of delivery (signature, photo and GPS location) and it'll be e-mailed to you within {f}.",
               "POD requests are usually turned round within {f}.",
               "You should receive the POD by e-mail within {f}."],
        corr=["Sorry, I can't promise that. ", "I'm afraid it isn't quite that quick. ", "That's not right, sorry. "],
        extra=["The GPS puts the driver at the front door of {addr} at 13:12.",
               "Once it's ready you can also view it at {podurl}.",
               "I've logged this under {case}."],
        nofact=["Could you confirm whether you're the sender or the recipient? I can only release the POD to the sender or the named recipient.",
                "Could you send me the tracking number? I can't find a signed delivery under your e-mail address."],
        issue=["POD request", "wants signature/photo proof", "dispute, needs POD"],
        driver=["Signed for by {sig}.", "Left with neighbour at {nbaddr}, signature taken."],
        questions=["How long does it take to get proof of delivery?", "When will I receive the proof of delivery I asked for?"]),
    dict(
        id="delivery_window", weight=11,
        fact="1-hour window",
        forms=["1-hour window", "one-hour window", "60-minute window", "1 hour window"],
        misquotes=["2-hour window", "4-hour slot", "30-minute slot"],
        subjects=["Delivery time slot", "What time will my parcel come?", "Delivery window", "Timed delivery"],
        story=["I've got a hospital appointment tomorrow and need to know when my parcel will arrive.",
               "The app just says 'tomorrow'. Can I get a time?",
               "I need to sign for my new {item} and can't wait in all day.",
               "I'm at {addr} and I have to pick the kids up at 3, so I need some idea of time.",
               "I'll be parked outside in the car ({plate}) waiting, so the driver can just hand it to me."],
        ask=["How precise is the delivery time you send?", "Will I get a time slot?", "Can you give me a narrower time?"],
        mqs=["I was told I'd get a {mq}.", "Last time you gave me a {mq}."],
        facts=["On the morning of delivery we text you a {f} once the driver's route is planned.",
               "You'll get a {f} by text and e-mail on the day, usually by 8am.",
               "We can't give an exact time in advance, but you'll get a {f} on the morning of delivery."],
        corr=["Sorry, we don't offer that. ", "I'm afraid that's not how it works. "],
        extra=["If you need a guaranteed time, the sender can choose Swiftline Timed 12.",
               "You can watch the van on the map in MySwiftline once you're a few stops away."],
        nofact=["The parcel hasn't been allocated to a route yet. Could you send your mobile number so I can make sure the texts reach you?"],
        issue=["wants delivery time", "asking for time slot", "needs to be in for signature"],
        questions=["Will you tell me what time my parcel is coming?", "How narrow is the delivery time slot you send on the day?"]),
    dict(
        id="weight_limit", weight=8,
        fact="25kg",
        forms=["25kg", "25 kg", "25 kilos", "twenty-five kilos", "25 kilograms"],
        misquotes=["30kg", "20kg", "15 kg", "35kg"],
        subjects=["Weight limit", "Sending a heavy item", "Max weight", "heavy box"],
        story=["I need to send a box of books, about {kg}kg.",
               "I'm moving out of halls and want to send my stuff home in two suitcases.",
               "I'm sending a set of dumbbells to my brother {tpm}.",
               "I want to send an old sewing machine to my daughter at {tpaddr}."],
        ask=["What's the heaviest parcel you take?", "Is there a maximum weight?", "How heavy can one box be?"],
        mqs=["I thought the limit was {mq}?", "My friend sent {mq} with you last year."],
        facts=["The maximum weight for a single parcel is {f}.",
               "Anything over {f} has to go with Swiftline Freight instead.",
               "Each item must be {f} or under for our standard network."],
        corr=["That limit has changed. ", "I'm afraid not. "],
        extra=["Splitting it into two boxes is usually cheaper than freight.",
               "Please make sure the box is taped well and the old labels are removed."],
        nofact=["Could you give me the dimensions too? Size matters as much as weight for us."],
        issue=["max weight query", "heavy parcel to send"],
        questions=["What is the maximum weight of a parcel you will carry?", "How heavy can a single parcel be?"]),
    dict(
        id="holiday_hold", weight=5,
        fact="14 days",
        forms=["14 days", "fourteen days", "a fortnight", "14 calendar days"],
        misquotes=["21 days", "30 days", "a month"],
        subjects=["Holiday Hold", "Going on holiday", "Hold my parcels", "Pause deliveries"],
        story=["We're away in Portugal from the {dnum}th and I've got a couple of parcels due.",
               "I'm going into hospital for a bit and won't be home at {addr}.",
               "Can you hold everything while I'm away? My neighbour {nb} is away as well so nobody can take them in."],
        ask=["How long can you hold them for?", "What's the longest you can keep them?", "How long can Holiday Hold last?"],
        mqs=["I thought it was {mq}?", "I was told up to {mq}."],
        facts=["Holiday Hold can keep your parcels at the depot for up to {f}.",
               "You can set Holiday Hold in MySwiftline for a maximum of {f}.",
               "The longest we can pause deliveries is {f}, after which they're delivered as normal."],
        corr=["Sorry, that's longer than we can do. ", "I'm afraid not. "],
        extra=["I've switched it on for you from the date you gave.", "It's free of charge."],
        nofact=["Could you give me the dates you're away? Then I can see which of your parcels it would cover."],
        issue=["holiday hold request", "wants deliveries paused"],
        questions=["How long can you hold my parcels while I'm on holiday?",
                   "What's the longest period I can pause my deliveries for?"]),
]

# ---------------------------------------------------------------------------------------------- small pieces

DAYS = ["yesterday", "this morning", "on Monday", "on Tuesday", "on Wednesday", "on Thursday", "on Friday",
        "on Saturday", "today", "at lunchtime"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
TYPOS = {"received": "recieved", "definitely": "definately", "address": "adress", "delivery": "delivary",
         "parcel": "parcle", "tomorrow": "tommorow", "because": "becuase", "until": "untill", "separate": "seperate",
         "which": "wich", "really": "realy", "their": "there", "know": "no", "literally": "literaly",
         "collect": "colect", "arrived": "arived", "instruction": "instuction", "neighbour": "nieghbour",
         "weight": "wieght", "thought": "thougth", "already": "allready", "business": "buisness"}
CONTRACT = {"I'm": "Im", "I've": "Ive", "don't": "dont", "doesn't": "doesnt", "can't": "cant", "it's": "its",
            "won't": "wont", "haven't": "havent", "isn't": "isnt", "I'd": "id", "I'll": "ill"}

SLOT = re.compile(r"\{(\w+)\}")


def _holds(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


ALL_FORMS = [f for t in TYPES for f in t["forms"]]
ALL_MISQUOTES = [m for t in TYPES for m in t["misquotes"]]


def _clean(s: str) -> bool:
    return not any(_holds(s, f) for f in ALL_FORMS + ALL_MISQUOTES)


# ---------------------------------------------------------------------------------------------- people

def _digits(rng, k):
    return "".join(rng.choice("0123456789") for _ in range(k))


def _postcode(rng):
    area, town = rng.choice(AREAS)
    district = str(rng.randint(1, 28 if len(area) == 2 else 20))
    inward = str(rng.randint(0, 9)) + "".join(rng.choice("ABDEFGHJLNPQRSTUWXYZ") for _ in range(2))
    return f"{area}{district} {inward}", town


def _street(rng):
    r = rng.random()
    if r < 0.25:
        return rng.choice(BARE_STREETS), None
    name, abbr = rng.choice(STREET_TYPES)
    return f"{rng.choice(STREET_BASES)} {name}", (name, abbr)


def _address(rng):
    """(canonical, [variants]) for a home address."""
    street, typ = _street(rng)
    num = rng.randint(1, 180)
    r = rng.random()
    if r < 0.15:
        base = f"Flat {rng.randint(1, 24)}, {num} {street}"
    elif r < 0.22:
        base = f"Flat {rng.randint(1, 40)}{rng.choice(['', 'A', 'B'])} {rng.choice(BLOCKS)}, {street}"
    elif r < 0.28:
        base = f"{rng.choice(HOUSE_NAMES)}, {street}"
    else:
        base = f"{num} {street}"
    variants = [base, base]
    if typ:
        variants.append(base.replace(typ[0], typ[1]))
        variants.append(base.replace(typ[0], typ[1].lower()).lower())
    variants.append(base.lower())
    variants.append(base.replace(", ", " "))
    return base, variants


def _phone(rng):
    r = rng.random()
    if r < 0.7:
        tail = f"{rng.randint(0, 999):03d}"
        canon = f"07700 900{tail}"
        forms = [canon, f"07700900{tail}", f"07700 900 {tail}", f"+44 7700 900{tail}", f"+447700900{tail}",
                 f"(07700) 900{tail}", f"07700-900-{tail}", f"+44 (0)7700 900 {tail}"]
    elif r < 0.85:
        tail = f"{rng.randint(0, 999):03d}"
        canon = f"020 7946 0{tail}"
        forms = [canon, f"0207 946 0{tail}", f"+44 20 7946 0{tail}", f"02079460{tail}", f"(020) 7946 0{tail}"]
    else:
        code = rng.choice(["0113", "0161", "0121", "0117", "0131", "0141"])
        tail = f"{rng.randint(0, 999):03d}"
        canon = f"{code} 496 0{tail}"
        forms = [canon, f"{code}4960{tail}", f"({code}) 496 0{tail}", f"+44 {code[1:]} 496 0{tail}"]
    return canon, forms


def _email(rng, first, last):
    f = re.sub(r"[^a-z]", "", first.lower())
    la = re.sub(r"[^a-z]", "", last.lower())
    dom = rng.choice(["example.com", "example.com", "example.org", "example.net", "mail.example.com",
                      "inbox.example.net"])
    pat = rng.choice([f"{f}.{la}", f"{f}{la}", f"{f[0]}{la}{rng.randint(1, 99)}", f"{la}.{f}", f"{f}_{la}{rng.randint(70, 99)}",
                      f"{f}{rng.randint(1960, 2005)}", f"the{la}family", f"{f}.{la[0]}", f"{la}{f[0]}"])
    return f"{pat}@{dom}"


def _dob(rng):
    y, m, d = rng.randint(1942, 2004), rng.randint(1, 12), rng.randint(1, 28)
    canon = f"{d:02d}/{m:02d}/{y}"
    forms = [canon, f"{d}/{m}/{y}", f"{d} {MONTHS[m - 1]} {y}", f"{d:02d}.{m:02d}.{str(y)[2:]}",
             f"{y}-{m:02d}-{d:02d}", f"{d}{'th' if d not in (1, 2, 3, 21, 22, 23) else {1: 'st', 2: 'nd', 3: 'rd', 21: 'st', 22: 'nd', 23: 'rd'}[d]} {MONTHS[m - 1][:3]} {y}",
             f"{d:02d}-{m:02d}-{y}"]
    return forms


def _tracking(rng):
    d = _digits(rng, 9)
    canon = f"SW{d}GB"
    forms = [canon, canon, f"SW {d[:3]} {d[3:6]} {d[6:]} GB", canon.lower(), f"SW{d}", d, f"SW-{d}-GB",
             f"sw {d} gb"]
    return canon, forms


class Person:
    def __init__(self, rng, pid):
        self.pid = pid
        self.first = rng.choice(FIRST)
        self.last = rng.choice(LAST)
        female = self.first in FEMALE
        self.title = rng.choice(["Mrs", "Ms", "Miss"]) if female else "Mr"
        if rng.random() < 0.05:
            self.title = rng.choice(["Dr", "Mx"])
        self.female = female
        self.email = _email(rng, self.first, self.last)
        self.phone, self.phone_forms = _phone(rng)
        self.addr, self.addr_forms = _address(rng)
        self.pc, self.town = _postcode(rng)
        self.dob_forms = _dob(rng)
        self.card4 = _digits(rng, 4)
        self.partner = f"{rng.choice(FIRST)}"
        self.plate = (rng.choice("ABCDEFGHKLMNOPRSVWY") + rng.choice("ABCDEFGHJKLMNOPRSTUVWXY")
                      + f"{rng.choice([rng.randint(51, 74), rng.randint(10, 24)])} "
                      + "".join(rng.choice("ABCDEFGHJKLMNOPRSTUVWXYZ") for _ in range(3)))
        self.bizacct = f"SWB{_digits(rng, 6)}"
        self.handle = "@" + rng.choice([f"{self.first.lower()}_{self.last.lower()[:4]}{rng.randint(1, 99)}",
                                        f"{self.first.lower()}{self.last.lower()}", f"{self.last.lower()}{rng.randint(70, 99)}",
                                        f"real{self.first.lower()}x"]).replace("'", "")

    @property
    def name(self):
        return f"{self.first} {self.last}"


# ---------------------------------------------------------------------------------------------- one record

class Rec:
    """Fills templates and keeps the list of personal strings written."""

    def __init__(self, rng, person, t, tracking, agent, misquote, lower):
        self.rng, self.p, self.t = rng, person, t
        self.trk, self.trk_forms = tracking
        self.agent = agent
        self.mq = misquote
        self.lower = lower
        self.cache = {}
        self.pii = []

    def tag(self, kind, s):
        self.pii.append((kind, s))
        return s

    def get(self, key):
        if key == "f":
            return self.fact_form()
        if key not in self.cache:
            self.cache[key] = getattr(self, "m_" + key)()
        return self.cache[key]

    def fill(self, tpl, style=None):
        parts = SLOT.split(tpl)
        out = []
        for i, part in enumerate(parts):
            if i % 2:
                out.append(self.get(part))
            else:
                out.append(style(part) if style else part)
        return "".join(out)

    def fact_form(self):
        forms = self.t["forms"]
        return forms[0] if self.rng.random() < 0.4 else self.rng.choice(forms)

    # --- customer's own strings
    def m_full(self):
        p, r = self.p, self.rng.random()
        s = p.name if r < 0.7 else (f"{p.first[0]}. {p.last}" if r < 0.8 else (p.name.lower() if r < 0.9 else f"{p.title} {p.last}"))
        return self.tag("person_name", s)

    def m_first(self):
        return self.tag("person_name", self.p.first)

    def m_formal(self):
        return self.tag("person_name", f"{self.p.title} {self.p.last}")

    def m_sign(self):
        p = self.p
        s = self.rng.choice([p.first, p.first, p.name, f"{p.first} {p.last[0]}", p.first.lower(), f"{p.first[0]} {p.last}"])
        return self.tag("person_name", s)

    def m_email(self):
        e = self.p.email
        if self.rng.random() < 0.08:
            e = e.upper() if self.rng.random() < 0.3 else e[0].upper() + e[1:]
        return self.tag("email", e)

    def m_phone(self):
        return self.tag("phone", self.rng.choice(self.p.phone_forms))

    def m_addr(self):
        a = self.rng.choice(self.p.addr_forms)
        if self.lower:
            a = a.lower()
        if self.rng.random() < 0.25:
            a = f"{a}, {self.p.town}"
        return self.tag("address", a)

    def m_pc(self):
        pc = self.p.pc
        pc = self.rng.choice([pc, pc, pc.lower(), pc.replace(" ", ""), pc.lower().replace(" ", "")])
        if self.lower:
            pc = pc.lower()
        return self.tag("postcode", pc)

    def m_trk(self):
        return self.tag("account_number", self.rng.choice(self.trk_forms))

    def m_trkurl(self):
        u = self.rng.choice([f"https://track.swiftline.example.com/t/{self.trk}", f"track.swiftline.example.com/t/{self.trk}",
                             f"https://www.swiftline.example.com/track?ref={self.trk}&pc={self.p.pc.replace(' ', '')}",
                             f"https://track.swiftline.example.com/t/{self.trk}?utm_source=sms"])
        return self.tag("url_with_id", u)

    def m_paylink(self):
        return self.tag("url_with_id", self.rng.choice([f"https://pay.swiftline.example.com/duty/{self.trk}",
                                                        f"pay.swiftline.example.com/duty/{self.trk}"]))

    def m_podurl(self):
        return self.tag("url_with_id", f"https://pod.swiftline.example.com/v/{self.trk.lower()}-{_digits(self.rng, 4)}")

    def m_photo(self):
        code = "".join(self.rng.choice("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(8))
        return self.tag("url_with_id", self.rng.choice([f"https://photos.example.net/share/{code}",
                                                        f"https://drive.example.org/file/d/{code}/view",
                                                        f"https://imgs.example.com/a/{code}"]))

    def m_dob(self):
        return self.tag("date_of_birth", self.rng.choice(self.p.dob_forms))

    def m_card4(self):
        return self.tag("card_number", self.p.card4)

    def m_cardfull(self):
        d = "4" + _digits(self.rng, 11) + self.p.card4
        s = self.rng.choice([" ".join(d[i:i + 4] for i in range(0, 16, 4)), d])
        return self.tag("card_number", s)

    def m_sort(self):
        d = _digits(self.rng, 6)
        s = self.rng.choice([f"{d[:2]}-{d[2:4]}-{d[4:]}", d, f"{d[:2]} {d[2:4]} {d[4:]}"])
        return self.tag("iban", s)

    def m_acct(self):
        return self.tag("iban", _digits(self.rng, 8))

    def m_iban(self):
        raw = f"GB{_digits(self.rng, 2)}{self.rng.choice(['NWBK', 'BARC', 'LOYD', 'MIDL', 'HBUK'])}{_digits(self.rng, 14)}"
        s = self.rng.choice([raw, " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))])
        return self.tag("iban", s)

    def m_imei(self):
        d = "35" + _digits(self.rng, 13)
        s = self.rng.choice([d, f"{d[:2]} {d[2:8]} {d[8:14]} {d[14]}", f"{d[:2]}-{d[2:8]}-{d[8:14]}-{d[14]}"])
        return self.tag("imei", s)

    def m_ni(self):
        a = "ABCEGHJKLMNPRSTWXYZ"
        s = self.rng.choice(a) + self.rng.choice(a.replace("O", "")) + _digits(self.rng, 6) + self.rng.choice("ABCD")
        s = self.rng.choice([s, f"{s[:2]} {s[2:4]} {s[4:6]} {s[6:8]} {s[8]}", s.lower()])
        return self.tag("national_id", s)

    def m_plate(self):
        pl = self.p.plate
        return self.tag("licence_plate", self.rng.choice([pl, pl.replace(" ", ""), pl.lower()]))

    def m_passport(self):
        return self.tag("other_id", _digits(self.rng, 9))

    def m_dl(self):
        la = re.sub(r"[^A-Z]", "", self.p.last.upper())[:5].ljust(5, "9")
        s = f"{la}{_digits(self.rng, 6)}{self.p.first[0].upper()}{self.rng.choice('ABCDEFGHJ')}{self.rng.randint(1, 9)}{self.rng.choice(['AB', 'CD', 'XY', 'LM'])}"
        return self.tag("other_id", s)

    def m_cardref(self):
        d = _digits(self.rng, 8)
        return self.tag("other_id", self.rng.choice([f"MC{d}", f"MC {d[:4]} {d[4:]}", d, f"mc-{d}"]))

    def m_case(self):
        d = _digits(self.rng, 7)
        return self.tag("account_number", self.rng.choice([f"SWC-{d}", f"SWC-{d}", f"SWC{d}", f"swc-{d}"]))

    def m_bizacct(self):
        b = self.p.bizacct
        return self.tag("account_number", self.rng.choice([b, f"{b[:3]} {b[3:]}", b.lower()]))

    def m_gatecode(self):
        return self.tag("other_id", self.rng.choice([_digits(self.rng, 4), "C" + _digits(self.rng, 4) + "X", _digits(self.rng, 4) + "#"]))

    def m_handle(self):
        return self.tag("other_id", self.p.handle)

    def _other_name(self, formal_p=0.4):
        first, last = self.rng.choice(FIRST), self.rng.choice(LAST)
        r = self.rng.random()
        if r < formal_p:
            return f"{'Mrs' if first in FEMALE else 'Mr'} {last}"
        if r < formal_p + 0.3:
            return first
        return f"{first} {last}"

    def m_nb(self):
        return self.tag("third_party_name", self._other_name())

    def m_tp(self):
        return self.tag("third_party_name", self._other_name(0.1))

    def _gname(self, female):
        while True:
            f = self.rng.choice(FIRST)
            if (f in FEMALE) == female:
                break
        return f if self.rng.random() < 0.6 else f"{f} {self.rng.choice(LAST)}"

    def m_tpm(self):
        return self.tag("third_party_name", self._gname(False))

    def m_tpf(self):
        return self.tag("third_party_name", self._gname(True))

    def m_sig(self):
        return self.tag("third_party_name", self.rng.choice([self.rng.choice(LAST).upper(), self.rng.choice(FIRST),
                                                             f"{self.rng.choice(FIRST)[0]} {self.rng.choice(LAST)}"]))

    def m_partner(self):
        return self.tag("third_party_name", self.p.partner)

    def m_driver(self):
        return self.tag("third_party_name", self.rng.choice(DRIVERS))

    def m_nbaddr(self):
        street, _ = _street(self.rng)
        if self.rng.random() < 0.5 and not self.p.addr.startswith(("Flat", *HOUSE_NAMES)):
            num, _, street = self.p.addr.partition(" ")
            try:
                s = f"{int(num) + self.rng.choice([-2, 2, 1, -1])} {street}" if int(num) > 2 else f"number {int(num) + 2}"
            except ValueError:
                s = f"{self.rng.randint(1, 90)} {street}"
        else:
            s = f"{self.rng.randint(1, 90)} {street}"
        return self.tag("address", s)

    def m_tpaddr(self):
        street, _ = _street(self.rng)
        pc, town = _postcode(self.rng)
        a = self.tag("address", f"{self.rng.randint(1, 120)} {street}, {town}")
        return f"{a} {self.tag('postcode', pc)}"

    def m_newaddr(self):
        a, forms = _address(self.rng)
        return self.tag("address", self.rng.choice(forms))

    def m_newpc(self):
        pc, _ = _postcode(self.rng)
        return self.tag("postcode", self.rng.choice([pc, pc.lower(), pc.replace(" ", "")]))

    # --- agent
    def m_agent(self):
        a, b = self.agent
        return self.tag("agent_name", self.rng.choice([a, a, f"{a} {b[0]}.", f"{a} {b}", f"{a} {b[0]}"]))

    def m_agentfirst(self):
        return self.tag("agent_name", self.agent[0])

    # --- not personal
    def m_mq(self):
        return self.mq

    def m_day(self):
        return self.rng.choice(DAYS)

    def m_date(self):
        d = self.rng.randint(1, 28)
        return self.rng.choice([f"the {d}{'th' if d > 3 and d not in (21, 22, 23) else {1: 'st', 2: 'nd', 3: 'rd', 21: 'st', 22: 'nd', 23: 'rd'}[d]}",
                                f"{d}/{self.rng.randint(1, 12)}", f"{self.rng.choice(MONTHS)} {d}", "Monday", "last Thursday",
                                f"{d} {self.rng.choice(MONTHS)}"])

    def _amount(self, lo, hi, pennies=True):
        while True:
            v = self.rng.randint(lo, hi)
            s = f"{v}.{self.rng.randint(0, 99):02d}" if pennies and self.rng.random() < 0.6 else str(v)
            if _clean("£" + s) and _clean(s):
                return s

    def m_amt(self):
        return self._amount(15, 900)

    def m_amt2(self):
        return self.rng.choice(["500", "1,000", "2,500"])

    def m_vat(self):
        return self._amount(9, 140)

    def m_usd(self):
        return self._amount(40, 600, pennies=False)

    def m_kg(self):
        return self.rng.choice(["18", "22", "28", "31", "40", "12"])

    def m_dnum(self):
        return str(self.rng.choice([4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17, 18, 19, 20]))

    def m_depot(self):
        return self.rng.choice(DEPOTS)

    def m_shop(self):
        return self.rng.choice(SHOPS)

    def m_item(self):
        return self.rng.choice(ITEMS)


def _typos(rng, s, rate):
    def word(m):
        w = m.group(0)
        if rng.random() < rate:
            low = w.lower()
            if low in TYPOS:
                return TYPOS[low]
            if len(w) > 5 and rng.random() < 0.5:
                i = rng.randint(1, len(w) - 3)
                return w[:i] + w[i + 1] + w[i] + w[i + 2:]
        return w
    return re.sub(r"[A-Za-z]+", word, s)


def _customer_style(rng):
    lower = rng.random() < 0.15
    rate = rng.choice([0, 0, 0, 0.03, 0.06, 0.1])
    contr = rng.random() < 0.2
    shout = rng.random() < 0.08

    def style(s):
        if contr:
            for a, b in CONTRACT.items():
                s = s.replace(a, b)
        if rate:
            s = _typos(rng, s, rate)
        if lower:
            s = s.lower()
        if shout:
            s = s.replace("?", "??")
        return s
    return style, lower


GREET_C = ["Hi,", "Hello,", "Hi there,", "Dear Sir/Madam,", "Good morning,", "hiya", "To whom it may concern,", "",
           "Hello Swiftline,", "Hi team,"]
THANKS_C = ["ok thanks", "Brilliant, thank you!", "that's annoying but fine", "ok. not impressed tbh", "Great, cheers",
            "Thanks for your help", "ok will do", "right, thanks"]
SYMPATHY = ["I'm sorry to hear about this.", "Thanks for getting in touch.", "Sorry for the hassle with this one.",
            "Apologies for the inconvenience.", "Thanks for your message.", "I understand how frustrating that is.", ""]
CONTACT_LINES = [f"If you need anything else, call us on {ORG_PHONE} (8am-8pm).",
                 f"You can also reach us at {ORG_HELP}.", f"Tracking and FAQs are at {ORG_WEB}.",
                 f"For anything else please call {ORG_PHONE} or e-mail {ORG_HELP}.", ""]
ID_LINES = ["My tracking number is {trk} and the postcode is {pc}.", "Tracking: {trk}", "ref {trk}, postcode {pc}",
            "It's going to {addr}, {pc}.", "You can call me on {phone}.", "The tracking link is {trkurl}",
            "My email is {email} if that helps.", "Tracking no {trk}. Mobile {phone}.", "Parcel number {trk}",
            "Address: {addr}, {pc}. Tel {phone}."]
SIGN_C = ["Thanks,\n{sign}", "Regards, {sign}", "Cheers {sign}", "{sign}", "Many thanks\n{full}\n{phone}",
          "Thanks in advance", "Kind regards\n{full}", "Sent from my iPhone", "Thanks\n{sign}\n{email}"]
GREET_A = ["Hi {first},", "Dear {formal},", "Hello {first},", "Hi,", "Good afternoon {formal},", "Hi {first}!",
           "Dear {full},"]
CLOSE_A = ["Kind regards,\n{agent}\nSwiftline Parcels Customer Care", "Best wishes, {agent} (Swiftline Customer Care)",
           "Thanks, {agent}", "{agent} | Swiftline Parcels | " + ORG_PHONE, "Many thanks,\nThe Swiftline Parcels team",
           "Regards\n{agent}\nCustomer Experience Team, Swiftline Parcels", "Kind regards, Customer Care"]
INTRO_A = ["My name's {agent} and I'll be looking after this for you.", "{agent} here from Swiftline Parcels.",
           "Thanks for contacting Swiftline Parcels, this is {agent}.", ""]


class Builder:
    def __init__(self, rng, rec: Rec, t, misquoted, states):
        self.rng, self.r, self.t = rng, rec, t
        self.misquoted, self.states = misquoted, states
        self.style, self.lower = _customer_style(rng)
        rec.lower = self.lower

    def c(self, tpl):
        return self.r.fill(tpl, self.style)

    def a(self, tpl):
        return self.r.fill(tpl)

    def pick(self, lst):
        return self.rng.choice(lst)

    # pieces
    def story(self, stories=None):
        parts = [self.c(self.pick(stories or self.t["story"]))]
        if self.misquoted:
            parts.append(self.c(self.pick(self.t["mqs"])))
        parts.append(self.c(self.pick(self.t["ask"])))
        return " ".join(parts)

    def ids(self, k=None):
        k = self.rng.choice([0, 1, 1, 2]) if k is None else k
        return " ".join(self.c(x) for x in self.rng.sample(ID_LINES, k))

    def body(self):
        rng, t = self.rng, self.t
        out = []
        s = self.pick(SYMPATHY)
        if s:
            out.append(s)
        if self.states:
            lead = self.pick(t["corr"]) if self.misquoted else ""
            out.append(lead + self.a(self.pick(t["facts"])))
            for e in rng.sample(t["extra"], rng.choice([0, 1, 1, 2])):
                out.append(self.a(e))
        else:
            out.append(self.a(self.pick(t["nofact"])))
        return " ".join(out)

    def contact(self):
        return self.pick(CONTACT_LINES)

    # formats
    def email(self):
        rng = self.rng
        subj = self.pick(self.t["subjects"])
        head = self.a(f"From: {{full}} <{{email}}>\nSubject: {subj}" if rng.random() < 0.6 else f"Subject: {subj}")
        cust = "\n".join(x for x in [self.c(self.pick(GREET_C)), self.story() + " " + self.ids(), self.c(self.pick(SIGN_C))] if x)
        reply = "\n".join(x for x in [self.a(self.pick(GREET_A)), self.a(self.pick(INTRO_A)), self.body(), self.contact(),
                                      self.a(self.pick(CLOSE_A))] if x)
        if rng.random() < 0.3:
            return f"Re: {subj}\n\n{reply}\n\n-----Original message-----\n{head}\n\n{cust}"
        return f"{head}\n\n{cust}\n\n--- Reply from Swiftline Parcels ---\n{reply}"

    def webform(self):
        rng = self.rng
        fields = [f"Topic: {self.pick(self.t['subjects'])}", self.a("Name: {full}"), self.a("Email: {email}")]
        if rng.random() < 0.6:
            fields.append(self.a("Phone: {phone}"))
        if rng.random() < 0.7:
            fields.append(self.a("Tracking number: {trk}"))
        if rng.random() < 0.5:
            fields.append(self.a("Postcode: {pc}"))
        msg = self.story() + (" " + self.ids(1) if rng.random() < 0.3 else "")
        hdr = self.pick(["WEB FORM SUBMISSION", "Contact us form", "[webform] Customer enquiry", "Online form - Help centre"])
        reply = " ".join(x for x in [self.a(self.pick(GREET_A)), self.body(), self.contact()] if x)
        close = self.a(self.pick(CLOSE_A)).replace("\n", " ")
        who = self.a(self.pick(["Response ({agent})", "Agent reply - {agent}", "Reply sent by {agent}", "Our reply"]))
        return f"{hdr}\n" + "\n".join(fields) + f"\nMessage: {msg}\n\n{who}:\n{reply}\n{close}"

    def chat(self):
        rng = self.rng
        h, m = rng.randint(8, 19), rng.randint(0, 50)
        stamp = rng.random() < 0.6

        def ts(k):
            return f"[{h:02d}:{m + k:02d}] " if stamp else ""
        you = self.a(self.pick(["{first}", "Customer", "You", "Visitor", "{full}"]))
        ag = self.a("{agentfirst}")
        lines = [f"{ts(0)}{ag}: " + self.a(self.pick(["Hi, you're chatting with {agentfirst}. How can I help?",
                                                       "Hello! {agentfirst} here, what can I do for you today?",
                                                       "Welcome to Swiftline Parcels live chat, I'm {agentfirst}."])),
                 f"{ts(1)}{you}: " + (self.c(self.pick(["Hi, ", "hello - ", "", "hi. "])) + self.story())]
        if rng.random() < 0.65:
            lines.append(f"{ts(2)}{ag}: " + self.pick(["Could I take the tracking number and postcode please?",
                                                      "Sorry to hear that. Can I have the tracking number?",
                                                      "Let me look into this. What's the tracking number?"]))
            lines.append(f"{ts(3)}{you}: " + self.ids(rng.choice([1, 2])))
        lines.append(f"{ts(4)}{ag}: " + self.body())
        lines.append(f"{ts(5)}{you}: " + self.c(self.pick(THANKS_C)))
        lines.append(f"{ts(6)}{ag}: " + self.a(self.pick(["You're welcome, have a good day.", "No problem. Anything else I can help with?",
                                                          "Thanks for chatting with us, take care.", "Sorry again for the trouble. Bye for now."])))
        hdr = self.pick(["Live chat transcript", "Chat log", "WEBCHAT", "Transcript - Swiftline Parcels chat"])
        return f"{hdr}\n" + "\n".join(lines)

    def callnote(self):
        rng = self.rng
        hdr = self.a(self.pick(["CALL NOTE - inbound - {agent}", "Inbound call, handled by {agent}", "Phone call logged by {agent}",
                                "Call (inbound) - agent {agent}"]))
        idv = self.a(self.pick(["postcode {pc} and DOB {dob}", "first line of address ({addr}) and postcode {pc}",
                                "tracking no. {trk}", "email on file {email}", "DOB {dob}, postcode {pc}"]))
        lines = [hdr, self.a("Caller: {full}, tel {phone}. ID&V: ") + idv + ".",
                 "Reason: " + self.pick(self.t["issue"]) + "."]
        lines.append("Cust says: " + self.c(self.pick(self.t["story"])))
        if self.misquoted:
            lines.append("Cust said they'd been told " + self.r.get("mq") + ".")
        if self.states:
            out = "Advised: " + self.a(self.pick(self.t["facts"]))
            if rng.random() < 0.6:
                out += " " + self.a(self.pick(self.t["extra"]))
            lines.append(out)
        else:
            lines.append("Asked cust for more info: " + self.a(self.pick(self.t["nofact"])))
        if rng.random() < 0.5:
            lines.append(self.a("Ref {case}. ") + self.pick(["No further action.", "Cust happy.", "Cust not happy, wants callback.",
                                                              "Closed."]))
        return "\n".join(lines)

    def driver(self):
        rng = self.rng
        route = f"{rng.randint(1, 60)}{rng.choice('ABCDEF')}"
        note = self.a(self.pick(self.t["driver"]))
        drv = self.a("{driver}")
        cust = " ".join(x for x in [self.c(self.pick(GREET_C)), self.story(self.t.get("dstory")), self.ids(rng.choice([1, 2])),
                                    self.c(self.pick(["{sign}", "Thanks {sign}", ""]))] if x)
        reply = " ".join(x for x in [self.a(self.pick(GREET_A)), self.body(), self.a(self.pick(["{agent}", "Thanks, {agent}",
                                                                                                 "- {agent}, Swiftline Parcels"]))] if x)
        return (f"Driver note (route {route}, driver {drv}, {rng.randint(7, 19):02d}:{rng.randint(0, 59):02d}): {note}\n"
                f"Customer message ({self.pick(['web', 'e-mail', 'app'])}): {cust}\n"
                f"Reply: {reply}")

    def social(self):
        rng = self.rng
        cust = self.story() + " " + self.ids(1)
        init = self.r.tag("agent_name", self.r.agent[0][0] + self.r.agent[1][0])
        reply = (self.a(self.pick(["Hi {first}, ", "Hi there, ", "Hey {first}, "])) + self.a(self.pick(["{agentfirst} here. ", ""]))
                 + self.body() + f" ^{init}")
        return (self.a(self.pick(["Twitter DM from {handle}", "Facebook message - {full}", "Instagram DM {handle}"])) + f":\n{cust}\n\n"
                f"{ORG_SOCIAL}: {reply}")

    def build(self):
        r = self.rng.random()
        if self.t.get("driver") and r < 0.12:
            return self.driver()
        if r < 0.40:
            return self.email()
        if r < 0.60:
            return self.webform()
        if r < 0.80:
            return self.chat()
        if r < 0.93:
            return self.callnote()
        return self.social()


# ---------------------------------------------------------------------------------------------- the collection

def _counts(n):
    w = [t["weight"] for t in TYPES]
    tot = sum(w)
    c = [max(2, round(x * n / tot)) for x in w]
    c[0] += n - sum(c)
    return c


def generate(seed: int, n: int = 400) -> dict:
    master = random.Random(f"courier/{seed}/{n}")
    counts = _counts(n)
    tlist = [t for t, k in zip(TYPES, counts) for _ in range(k)]
    master.shuffle(tlist)

    slots = []
    k = 0
    while len(slots) < n:
        k += 1
        cap = master.choices([1, 2, 3], weights=[70, 20, 10])[0]
        slots += [k] * cap
    slots = slots[:n]
    master.shuffle(slots)
    persons = {}
    assign = []
    for pk in slots:
        if pk not in persons:
            persons[pk] = Person(master, f"cust-{pk:05d}")
        assign.append(persons[pk])

    records, pii = [], []
    stats = {t["id"]: {"stated": 0, "mq": 0} for t in TYPES}
    last_trk = {}
    for i, (t, p) in enumerate(zip(tlist, assign)):
        rid = f"cou-{i + 1:06d}"
        for attempt in range(40):
            rng = random.Random(f"courier/{seed}/{n}/{i}/{attempt}")
            misquoted = rng.random() < 0.1
            states = misquoted or rng.random() > 0.07
            if p.pid in last_trk and rng.random() < 0.3:
                trk = last_trk[p.pid]
            else:
                trk = _tracking(rng)
            agent = rng.choice(AGENTS)
            mq = rng.choice(t["misquotes"])
            rec = Rec(rng, p, t, trk, agent, mq, lower=False)
            b = Builder(rng, rec, t, misquoted, states)
            text = b.build()
            text = re.sub(r"[ \t]+", " ", text).replace(" \n", "\n").strip()
            words = len(text.split())
            if 50 <= words <= 250:
                break
        last_trk[p.pid] = trk
        seen, items = set(), []
        for kind, s in rec.pii:
            if (kind, s) not in seen and s in text:
                seen.add((kind, s))
                items.append({"kind": kind, "text": s})
        stats[t["id"]]["stated"] += states
        stats[t["id"]]["mq"] += misquoted
        records.append({"id": rid, "text": text, "person_id": p.pid, "type": t["id"],
                        "customer_name": p.name, "email": p.email, "phone": p.phone, "postcode": p.pc,
                        "tracking_number": trk[0]})
        pii.append({"id": rid, "pii": items})

    types = []
    for t, k in sorted(zip(TYPES, counts), key=lambda x: -x[1]):
        types.append({"id": t["id"], "records": k, "fact": t["fact"], "forms": list(t["forms"]),
                      "stated_by": stats[t["id"]]["stated"], "misquoted_by": stats[t["id"]]["mq"]})
    questions = [{"question": q, "answers": list(t["forms"]), "type": t["id"], "support": k}
                 for t, k in zip(TYPES, counts) for q in t["questions"]]
    public = {"company": COMPANY,
              "public_strings": [COMPANY, ORG_PHONE, ORG_WEB, ORG_REDELIVER, ORG_HELP, ORG_CLAIMS, ORG_SOCIAL],
              "product_names": list(PRODUCTS),
              "identifier_fields": ["customer_name", "email", "phone", "postcode", "tracking_number"],
              "id_field": "id", "text_field": "text", "unit_field": "person_id"}
    return {"domain": "courier", "records": records, "pii": pii, "types": types, "questions": questions,
            "public": public}
