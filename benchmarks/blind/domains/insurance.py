"""Blind own-data domain: claims and policy support at Corriemoor Insurance, a made-up Bristol insurer selling
motor (DriveSafe), home (HomeGuard), travel (Wanderer) and pet (PawsFirst) cover. One record is one contact
as the CRM exports it: a web-chat transcript, an online enquiry form with the handler's response, an e-mail
reply with the customer's original quoted underneath, or a handler's note of a phone call.

Everything is invented. Standard library only.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import unicodedata

CO = "Corriemoor Insurance"
CLAIMS_LINE = "0117 496 0500"
GLASS_LINE = "0808 157 0719"
WEB = "www.corriemoor.example.com"
CLAIMS_EMAIL = "claims@corriemoor.example.com"
SERVICE_EMAIL = "customercare@corriemoor.example.com"
PUBLIC = [CO, CLAIMS_LINE, GLASS_LINE, WEB, CLAIMS_EMAIL, SERVICE_EMAIL]

P_MOTOR, P_MOTOR_TP = "DriveSafe Comprehensive", "DriveSafe Third Party Plus"
P_HOME, P_HOME_BASIC = "HomeGuard Plus", "HomeGuard Essentials"
P_TRAVEL, P_TRAVEL_AMT = "Wanderer Single Trip", "Wanderer Annual Multi-Trip"
P_PET, P_PET_ACC = "PawsFirst Lifetime", "PawsFirst Accident Only"
P_GLASS, P_CC, P_KEY, P_NCD = "GlassCare", "Courtesy Car Plus", "KeySafe Cover", "Protected NCD"
PRODUCTS = [P_MOTOR, P_MOTOR_TP, P_HOME, P_HOME_BASIC, P_TRAVEL, P_TRAVEL_AMT, P_PET, P_PET_ACC, P_GLASS, P_CC,
            P_KEY, P_NCD]
LINE_PRODUCTS = {"motor": [P_MOTOR, P_MOTOR, P_MOTOR_TP], "home": [P_HOME, P_HOME, P_HOME_BASIC],
                 "travel": [P_TRAVEL, P_TRAVEL_AMT], "pet": [P_PET, P_PET, P_PET_ACC]}
LINE_CODE = {"motor": "M", "home": "H", "travel": "T", "pet": "P"}

# ---------------------------------------------------------------------------------------------- names

_F = """
welsh|Cerys Ffion Angharad Sioned Catrin Nia Rhiannon Eleri Lowri Seren Bethan Mared Gwen Elin
anglo|Hope Faith Joy Grace Rose Lily Daisy Poppy Ivy Willow Hazel Holly Ruby Amber Jade Autumn Summer Dawn Eve April May June Skye Robin Sue Jackie Debbie Michelle Kerry Zoe Tamsin Demelza Morwenna Jenna Kayleigh Shannon Abbie Millie Evie Freya Imogen Harriet Felicity Penny Carol Lynne Gill Ros Wendy Heidi Nicky
southasian|Shazia Rehana Anisa Parveen Farhana Sabrina Halima Jasmin Rekha Bhavna Hema Komal Meera Jaspal Navdeep Kiran
somali|Hodan Ubah Nimco Sahra Idil Ayaan Filsan Hibaaq
polish|Beata Dorota Gosia Iwona Ola Kasia Natalia Weronika Zofia
caribbean|Yvonne Claudette Paulette Sonia Donna Kerry-Ann Shereen Nadine
chinese|Xiu Ling Mei Fang Qing Jia Yu Jing
vietnamese|Thuy Huong Ngoc Phuong Lan
nigerian|Funke Bisi Ifeoma Nneka Chidinma Uche Damilola Ronke
zimbabwean|Tendai Rutendo Tatenda Chipo Nyasha Farai
portuguese|Fernanda Juliana Luana Raquel Carla
italian|Valentina Alessia Federica Serena
kurdish|Rojin Shilan Hana Dilan Berfin
greek|Androulla Eleni Maria Stella
"""
_M = """
welsh|Rhodri Gethin Aled Dylan Emyr Iestyn Huw Gareth Owain Tomos Rhys Geraint Cai Ioan Idris
anglo|Bill Mark Rich Guy Frank Grant Dean Art Chase Cliff Miles Rowan Forrest Hunter Ash Jay Robin Drew Will Jack Sonny Earl Duke Prince Reg Ray Vic Norman Stan Roger Clive Martin Simon Nick Pete Gavin Shaun Lee Jake Ollie Toby Charlie Freddie Alfie Ed Kit Jago Piran Tristan Lowen River Sky
southasian|Abdul Aftab Nadeem Saqib Javed Arif Ravi Nitin Hitesh Vijay Manoj Kuldip Sukhdev Parminder
somali|Abdullahi Mahamed Ahmed Hamse Guled Bashir Said Abdikarim
polish|Jacek Wojciech Sławomir Dariusz Rafał Artur Kamil Bartosz
caribbean|Desmond Everton Lennox Neville Carlton Dwayne Kemar Ricardo
chinese|Bo Lei Gang Peng Zhi Tao
vietnamese|Hung Long Thanh Dung Bao
nigerian|Chukwuma Ikenna Olumide Kayode Tobi Uchenna Rotimi
zimbabwean|Tinashe Tafadzwa Kudakwashe Farai Blessing
portuguese|Rodrigo Bruno Diogo Fábio Gonçalo
italian|Matteo Davide Stefano Andrea
kurdish|Rebwar Karwan Dilshad Shvan Azad
greek|Andreas Costas Panayiotis Yiannis
"""
_S = """
welsh|Jones Davies Williams Evans Thomas Roberts Lewis Hughes Morgan Griffiths Price Pritchard Powell Bowen Pugh Vaughan Rees Llewellyn Prosser Jenkins Parry Meredith Howells Watkins Gwilliam
anglo|Baker Carpenter Cook Fisher Hunter Mason Miller Parsons Gardener Slater Thatcher Weaver Dyer Hayward Woodward Rose Hope May Bird Lamb Wolf Finch Drake Nightingale Peacock Robins Hill Dale Brooke Ford Bridge Wells Meadows Fields Green Grey Black White Brown Gold Silver Penny Noble Friend Goodchild Love Merry Christmas Easter Sunday Summer Spring Frost Snow Storm Winter Lovelace Cornish Penhaligon Trelawny Pascoe Nance Tremayne Rowe Curnow Hocking Chenoweth Dawe Tanner Short Tucker Vowles Coombes Stokes Harvey Marsh Knight Palmer Pope Bishop Dean Chapman Webb Cox Pearce Sweet Hardy Bright Young Long Moon Barnes Church Street House Waters Banks
southasian|Begum Iqbal Hussain Rahman Ali Khan Mahmood Patel Lad Parmar Solanki Chauhan Rana Sohal Johal Dhaliwal Atwal Hoque Karim Siddique
somali|Abdullahi Egal Hersi Dahir Nur Ibrahim Ismail Aden Guled Yusuf
polish|Nowicka Kaczmarek Mazur Krawczyk Piątek Grabowski Pawlak Michalski Wróbel Jabłoński
caribbean|Barrett Gayle Bennett Blake Francis Williams Richards McKenzie Dacosta Morrison
chinese|Zhou Xu Sun Ma Zhu Hu Guo He Lin Yeung
vietnamese|Nguyen Tran Dang Bui Do Ngo Duong
nigerian|Adewale Okoye Nnamdi Ibekwe Akinola Oladipo Onyekachi Uzoma
zimbabwean|Moyo Ncube Dube Sibanda Mutasa Chikwanha Nyathi
portuguese|Almeida Carvalho Sousa Gomes Lopes Teixeira
italian|Bruno Ricci Marino Greco Gallo Colombo
kurdish|Ahmadi Barzani Rashid Mustafa Karimi
greek|Constantinou Charalambous Ioannou Demetriou Savva
"""


def _table(s: str) -> dict:
    return {k: v.split() for k, v in (line.split("|") for line in s.strip().splitlines())}


FEMALE, MALE, SURNAMES = _table(_F), _table(_M), _table(_S)
ORIGIN_WEIGHTS = {"welsh": 16, "anglo": 46, "southasian": 8, "somali": 4, "polish": 5, "caribbean": 4,
                  "chinese": 3, "vietnamese": 2, "nigerian": 3, "zimbabwean": 2, "portuguese": 2, "italian": 2,
                  "kurdish": 1.5, "greek": 1.5}

HANDLERS = [("Kirsty", "Moss"), ("Ross", "Tanner"), ("Aled", "Pritchard"), ("Nadia", "Begum"), ("Joe", "Fairweather"),
            ("Sophie", "Brooke"), ("Mohammed", "Iqbal"), ("Hollie", "Dawe"), ("Lewis", "Penhaligon"),
            ("Grace", "Adewale"), ("Dominic", "Short"), ("Ffion", "Bowen"), ("Will", "Cornish"),
            ("Agnieszka", "Nowicka"), ("Tendai", "Moyo")]

# ---------------------------------------------------------------------------------------------- places etc.

TOWNS = [("Bristol", "BS"), ("Bath", "BA"), ("Weston-super-Mare", "BS"), ("Gloucester", "GL"), ("Cheltenham", "GL"),
         ("Stroud", "GL"), ("Cardiff", "CF"), ("Newport", "NP"), ("Swansea", "SA"), ("Exeter", "EX"),
         ("Taunton", "TA"), ("Swindon", "SN"), ("Truro", "TR"), ("Plymouth", "PL"), ("Torquay", "TQ"),
         ("Yeovil", "BA"), ("Bridgwater", "TA"), ("Penarth", "CF"), ("Barry", "CF"), ("Llanelli", "SA"),
         ("Keynsham", "BS"), ("Clevedon", "BS")]
STREET_T = ("Gloucester Road|Church Lane|Cromwell Road|Harbour Walk|Station Approach|Orchard Close|Mendip Road|"
            "Severn Avenue|Quarry Lane|Clos Cae Mawr|Heol y Nant|Ffordd Las|Bishops Way|Cotham Hill|Bay View Terrace|"
            "Wells Road|Pen-y-Lan Road|Fore Street|Chapel Row|Victoria Park|Cherry Tree Close|Hawthorn Crescent|"
            "Northumberland Road|Redland Grove|Mill Leat|Coronation Road|Sea View Road|Marsh Lane|Park Street").split("|")
STREET_B = "The Paddocks|Orchard Leaze|Westering|Maes y Coed|Tŷ Gwyn|Kingsdown Parade|The Willows|Hillside|Southmead|Broadmead|Coldharbour".split("|")
BLOCKS = "Harbourside Court|Brunel House|Mariners Reach|Castle Quay|Ashton Lofts|Granary Wharf".split("|")
DESTS = ["Tenerife", "Lanzarote", "Crete", "Malaga", "the Algarve", "Florida", "Dubrovnik", "Paphos", "Barcelona",
         "Thailand", "Lake Garda", "Antalya", "Mallorca", "Iceland", "Kenya", "Orlando", "Marrakech", "Rome"]
ROADS = ["M5", "M4", "A38", "A4174 ring road", "M32", "A30", "A470", "Portway", "A370"]
SHOPS = ["Tesco", "Sainsbury's", "Asda", "Cribbs Causeway", "Aldi", "Lidl", "B&Q", "Morrisons"]
CARS = ["Ford Fiesta", "VW Golf", "Vauxhall Corsa", "Nissan Qashqai", "Kia Sportage", "Toyota Yaris", "BMW 1 Series",
        "Skoda Octavia", "Honda Jazz", "Mini Cooper", "Hyundai Tucson", "Audi A3", "Peugeot 208", "Tesla Model 3"]
PETS = [("dog", "Biscuit"), ("dog", "Bella"), ("cat", "Mog"), ("dog", "Alfie"), ("cat", "Luna"), ("dog", "Ted"),
        ("cat", "Pickle"), ("dog", "Bonnie"), ("dog", "Marley"), ("cat", "Smudge"), ("dog", "Nala"), ("cat", "Tigger"),
        ("rabbit", "Thumper"), ("dog", "Rolo"), ("cat", "Jasper"), ("dog", "Poppy"), ("dog", "Buster")]
VET_PRACTICES = ["Vale Vets", "Southville Veterinary Centre", "Pennard Vets", "Harbour Vets", "Castle Mead Vets"]
RELATIVES = [("mum", True), ("dad", False), ("husband", False), ("wife", True), ("son", False), ("daughter", True),
             ("partner", None), ("mother-in-law", True), ("father-in-law", False), ("nan", True), ("brother", False),
             ("sister", True)]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]

# ---------------------------------------------------------------------------------------------- request types
# Customer templates use slots; "{fact}" is a form of the fact; "{factadj}" an adjectival form.

TYPES = [
    dict(id="motor_compulsory_excess", w=80, line="motor", fact="£250",
         forms=["£250", "£250.00", "250 pounds", "GBP 250", "two hundred and fifty pounds"],
         subjects=["Excess on my claim", "Car accident - how much will I pay?", "Query about excess", "Claim excess",
                   "Motor claim", "Damage to my car"],
         stories=["Someone reversed into me in the {shop} car park on {date} and the rear bumper is cracked.",
                  "I hit a pothole on the {road} on {date} and it's wrecked the alloy and the tyre.",
                  "My car was keyed outside the house overnight, there's a scratch down the whole driver's side.",
                  "I skidded on ice on {date} and went into a wall. Nobody hurt but the front wing is smashed.",
                  "A deer ran out in front of me on the {road} and I couldn't avoid it.",
                  "I've had a quote of {quote} from my local garage for the damage to my {car}.",
                  "The other driver, {tp_driver}, admitted it was her fault at the scene but nobody has been in touch since.",
                  "My {relative} {rel_named} was driving my {car} when a van clipped the wing mirror.",
                  "I was parked outside {tp}'s house and a lorry took the wing mirror off, {tp} saw the whole thing."],
         asks=["How much excess will I have to pay if I claim?", "What is the excess on my policy?",
               "Can you tell me what the compulsory excess is before I decide whether to claim?",
               "What will I have to pay towards the repair?", "how much is the excess??"],
         mq_values=["£200", "£150", "£100", "£300", "£500", "two hundred pounds"],
         mq_lines=["When I took the policy out I'm sure it said {mq}.", "The comparison site showed {mq} excess.",
                   "My {relative} thinks it's {mq}.", "Last time I claimed it was {mq}."],
         says=["I can confirm that the compulsory excess on {p_motor} is {fact}, payable on any accidental damage claim.",
               "The excess you would pay is {fact}. This is either deducted from the settlement or paid to the repairer when you collect the car.",
               "Your policy carries a compulsory excess of {fact}; any voluntary excess you chose would be added on top.",
               "If you go ahead, the first {fact} of the claim is yours to pay, as that's the compulsory excess on your schedule."],
         extras=["If the other driver is found to be at fault we will try to recover your excess from their insurer.",
                 "Please note that a claim may affect your no-claims discount at renewal.",
                 "You can register the claim online at {web} or by calling {claims_line}, 24 hours a day.",
                 "It would help to have photos of the damage and the other party's details if you have them.",
                 "Once registered, you can follow the claim at {trackurl}."],
         unsure=["So that I can check which excesses apply, could you confirm your policy number and the date of the incident?",
                 "The excess depends on who was driving at the time. Could you let me know the name and age of the driver?"],
         pii=["My policy number is {polno}.", "The car is a {car}, reg {reg}.", "The other car's reg was {tp_reg}.",
              "My date of birth is {dob} if you need it.", "You can call me on {phone}.",
              "I'm happy to pay the excess now on my card ending {card4}.",
              "I've put photos here: {photourl}", "The other driver's number is {tp_phone}."],
         topic=["PH asking what XS applies to an AD claim before deciding whether to claim.",
                "PH calling re damage to {car} ({reg}), wants to know XS."],
         note_adv=["Adv compulsory XS {fact} on DS Comp.", "Confirmed XS of {fact}, PH to think about it and cb."],
         questions=["How much is the excess on a DriveSafe Comprehensive car insurance claim?",
                    "What compulsory excess do I pay if I claim on my car insurance?",
                    "How much do I have to pay towards a car insurance claim?"]),
    dict(id="windscreen_claim_line", w=60, line="motor", fact=GLASS_LINE,
         forms=[GLASS_LINE, "0808 1570719", "08081570719"],
         subjects=["Cracked windscreen", "Windscreen chip", "Stone chip on screen", "Windscreen claim", "Glass damage"],
         stories=["A stone flew up on the {road} and now there's a chip in the windscreen, about the size of a 5p.",
                  "There's a crack right across my windscreen after the frost last night.",
                  "My windscreen has a chip in the driver's line of sight and it's getting bigger.",
                  "Someone smashed my rear window trying to break into the car on {date}.",
                  "I've got an MOT on {date2} and the crack in the screen will fail it."],
         asks=["Who do I contact to get the windscreen fixed?", "Is windscreen damage covered and how do I claim?",
               "What number do I call for a windscreen repair?", "How do I book the glass repair?",
               "can someone sort the screen out for me?"],
         mq_values=[], mq_lines=[],
         says=["Glass claims are handled by our {p_glass} partner, who you can reach on {fact}. They'll book a repair or replacement, often at your home or work.",
               "Please call {fact}, which is our dedicated {p_glass} line, and they will arrange everything directly with you.",
               "For windscreen damage you don't need to go through the claims team at all: just ring {p_glass} on {fact}.",
               "The quickest way is to phone {fact} ({p_glass}, open 7 days) and quote your policy number."],
         extras=["A repair doesn't affect your no-claims discount, and a replacement has a separate glass excess.",
                 "If the chip is smaller than a £1 coin it can usually be repaired rather than replaced.",
                 "If your car has lane-assist cameras they'll need recalibrating after a new screen, which {p_glass} will arrange.",
                 "Please don't drive the car if the crack is in your line of sight."],
         unsure=["Could you let me know the registration of the car? I can't find a policy under this email address, and glass cover depends on the policy.",
                 "I can't see glass cover on the policy number you've given. Could you double-check it for me?"],
         pii=["Reg is {reg}.", "Policy no {polno}", "They can come to the house, {addr}, {pc}.", "Best number is {phone}."],
         topic=["PH reports stone chip to windscreen.", "PH calling re cracked screen, vehicle {car} {reg}."],
         note_adv=["Passed to {p_glass}, gave no. {fact}.", "Adv PH to call {p_glass} direct on {fact}."],
         questions=["What number do I call to get my windscreen repaired?", "How do I make a windscreen claim?"]),
    dict(id="courtesy_car_duration", w=48, line="motor", fact="14 days",
         forms=["14 days", "fourteen days", "2 weeks", "two weeks", "a fortnight"],
         subjects=["Courtesy car", "Hire car while mine is off the road", "Car stolen - replacement car?", "Write off - hire car",
                   "Replacement vehicle"],
         stories=["My car was stolen from outside my house on {date} and the police have given me a crime reference.",
                  "The assessor says my car is likely to be a write-off after the accident on {date}.",
                  "I need a car to get to work and do the school run while mine's off the road.",
                  "My {car} was taken from the station car park on {date}. The police think it's been cloned."],
         asks=["How long can I keep the courtesy car?", "How long do I get a hire car for?",
               "Is there a limit on how long I get a replacement car?", "How many days courtesy car am I covered for?"],
         mq_values=["7 days", "21 days", "a week", "28 days", "10 days", "a month"],
         mq_lines=["The man on the phone said {mq}?", "I read on a forum it's {mq}.", "My old insurer gave {mq}."],
         says=["With {p_cc} you're covered for a hire car for up to {fact} if your car is stolen or written off.",
               "The courtesy car cover on your policy lasts for a maximum of {fact} from the date the car is declared a total loss or stolen.",
               "Your schedule shows {p_cc}, which provides a replacement vehicle for up to {fact}.",
               "You can keep the hire car for {fact}; after that it has to go back even if the claim is still being settled."],
         extras=["The hire company will deliver the car to you and collect it at the end.",
                 "The courtesy car is a small hatchback, so it may be smaller than your own car.",
                 "If the car is being repaired by one of our approved repairers, you'll have a courtesy car for as long as the repair takes.",
                 "You can see progress on the claim at {trackurl}."],
         unsure=["Could you confirm your policy number? I need to check whether {p_cc} is on the policy before I can say how long the cover lasts.",
                 "Has the car been confirmed as a total loss yet? Once the engineer's report is in I can tell you what applies."],
         pii=["Crime ref {crimeref}.", "Policy number {polno}", "It's a {car}, {reg}.", "Claim number {claimno}",
              "The officer was PC {tp_sur}, crime reference {crimeref}.", "The engineer, {tp_m}, said he'd send the report by Friday.",
              "You can get me on {phone}.", "My tracking link says {trackurl}"],
         topic=["PH vehicle stolen {date}, crime ref {crimeref}, asking re hire car.", "Vehicle likely TL, PH asking about CC."],
         note_adv=["Adv CC+ provides hire for up to {fact}.", "Confirmed hire car cover {fact} max, hire co to contact PH."],
         questions=["How long can I keep a courtesy car if my car is stolen or written off?",
                    "For how many days does Courtesy Car Plus provide a hire car?"]),
    dict(id="travel_claim_deadline", w=40, line="travel", fact="90 days",
         forms=["90 days", "ninety days", "3 months", "three months"],
         subjects=["Travel claim", "Lost luggage claim", "Claim after holiday", "Medical expenses abroad", "Time limit for claim"],
         stories=["We got back from {dest} on {date} and my {relative}'s suitcase never turned up.",
                  "I was taken ill in {dest} and had to see a doctor at the hotel, it cost {localamt}.",
                  "Our flight home from {dest} was cancelled and we had to pay for an extra night in a hotel.",
                  "My phone was stolen on the beach in {dest} and I've got a police report, but it's not in English.",
                  "I'm still waiting on the medical report from the clinic in {dest} before I can send everything.",
                  "My {relative} {rel_named} fell on the hotel steps in {dest} and ended up in A&E."],
         asks=["How long do I have to make a claim?", "Is there a time limit for sending in a travel claim?",
               "What's the deadline to submit the claim form?", "How long after getting home can I still claim?"],
         mq_values=["30 days", "28 days", "6 months", "60 days", "a year", "one month"],
         mq_lines=["The travel agent said I only had {mq}.", "I thought it was {mq} from the incident?", "Is it still {mq}?"],
         says=["Travel claims need to be submitted within {fact} of the date you return home.",
               "You have {fact} from your return to send the claim form and receipts to us.",
               "Under {p_travel} the deadline is {fact} after you get back. If you're still waiting on documents, send what you have and follow up with the rest.",
               "We ask that all claims are made within {fact} of coming home."],
         extras=["You can upload receipts and reports through {web}.",
                 "For lost luggage please include the Property Irregularity Report from the airline.",
                 "For stolen items we need a police report from the country you were in.",
                 "Medical bills should be in the name of the person who was treated."],
         unsure=["Could you tell me when you travelled and which {p_travel} policy you have? Single trip and annual policies have slightly different claim forms.",
                 "Could you confirm your policy number and the dates of your trip so I can find your cover?"],
         pii=["Policy {polno}", "Booking ref {booking}", "Passport number {passport} (the airline asked for it)",
              "My {relative}'s name is {rel_named}, date of birth {tp_dob}.", "The phone's IMEI is {imei}.",
              "My card ending {card4} was used for the hospital bill."],
         topic=["PH back from {dest}, luggage lost, asking deadline for claim.", "PH asking how long to submit travel claim, still waiting for docs."],
         note_adv=["Adv {fact} from return date.", "Confirmed claim window of {fact}, claim pack emailed."],
         questions=["How long do I have to submit a travel insurance claim after coming home?",
                    "What's the deadline for making a travel claim?"]),
    dict(id="cancellation_fee", w=34, line="any", fact="£35",
         forms=["£35", "£35.00", "35 pounds", "GBP 35", "thirty-five pounds"],
         subjects=["Cancel my policy", "Cancellation", "Cancelling insurance", "Please cancel", "Cancel and refund"],
         stories=["motor|I've sold my car and don't need the motor policy any more.", "I've found a cheaper quote elsewhere and want to cancel.",
                  "home|I'm moving to {abroad} in {month} so won't need the home insurance after that.",
                  "motor|My {relative} is adding me to their policy so I'd like to cancel mine.",
                  "pet|Our {species} {pet} passed away last week so there's no point keeping the pet policy.",
                  "travel|We've decided not to travel this year so I don't need the annual travel policy."],
         asks=["Is there a fee to cancel?", "What will it cost to cancel the policy?", "Will I be charged anything for cancelling?",
               "How much is the cancellation charge?"],
         mq_values=["£25", "£50", "£40", "£45", "£20", "£60"],
         mq_lines=["Your website said {mq} I think.", "I was told {mq} when I bought it.", "A friend was charged {mq}."],
         says=["If you cancel after the cooling off period there is an administration fee of {fact}, and we'll refund the unused premium less that amount.",
               "There's a {fact} cancellation fee, which will be deducted from any refund due.",
               "Cancelling outside the cooling off period incurs a charge of {fact}.",
               "Our cancellation charge is {fact}; the rest of your unused premium is refunded to the card you paid with."],
         extras=["Refunds usually reach your card within 10 working days.", "If you've made a claim this policy year, no refund of premium is due.",
                 "Please don't cancel the direct debit until the policy itself is cancelled."],
         unsure=["I can help with that, but I need a few details first. Could you confirm your policy number, date of birth and the date you'd like the cover to end?"],
         pii=["Policy number {polno}", "The refund can go to my card ending {card4}.", "My DOB is {dob}.", "Card number {cardfull}",
              "Sort code {sortcode}, account {acctno} for the refund please."],
         topic=["PH wants to cancel {product}.", "PH requested cancellation, found cheaper elsewhere."],
         note_adv=["Adv cancellation fee {fact}.", "Explained {fact} admin fee, PH happy to proceed."],
         questions=["How much does it cost to cancel my policy?", "Is there a charge for cancelling a Corriemoor policy?"]),
    dict(id="ncd_maximum", w=29, line="motor", fact="65%",
         forms=["65%", "65 per cent", "sixty-five per cent", "65 percent"],
         subjects=["No claims discount", "NCD query", "No claims bonus", "Renewal price"],
         stories=["I've been driving for years without a claim and my renewal has gone up by {increase}.",
                  "I'm thinking of protecting my no-claims bonus but I'm not sure it's worth it.",
                  "I had a claim last year and want to know how my discount will be affected.",
                  "My previous insurer gave me {prevyears} years NCB and I want to make sure it's been applied."],
         asks=["What's the maximum no-claims discount you give?", "How much discount can I get for no claims?",
               "What's the most NCD I can build up?"],
         mq_values=["75%", "60%", "70%", "50%", "80%"],
         mq_lines=["My old insurer went up to {mq}.", "I assumed it was {mq}."],
         says=["Our maximum no-claims discount is {fact}, which you reach after nine claim-free years.",
               "The highest level of NCD we offer is {fact}.",
               "No-claims discount on DriveSafe goes up to {fact} off the premium.",
               "You can build your discount up to {fact}; with {p_ncd} you can then make claims without losing it."],
         extras=["{p_ncd} lets you make two claims in three years without losing your discount.",
                 "Windscreen repairs don't affect your NCD.",
                 "Proof of no-claims bonus from your previous insurer can be uploaded at {web}."],
         unsure=["Could you confirm your policy number and how many years' no claims you had when you joined? I'll check what's been applied."],
         pii=["Policy {polno}", "My reg is {reg}.", "DOB {dob}", "Tel {phone}"],
         topic=["PH querying renewal price and NCD.", "PH asking about max NCD level."],
         note_adv=["Adv max NCD {fact}.", "Explained NCD scale, max {fact}."],
         questions=["What is the maximum no-claims discount?", "How high can my no claims discount go?"]),
    dict(id="pet_excess", w=25, line="pet", fact="£99",
         forms=["£99", "£99.00", "99 pounds", "GBP 99", "ninety-nine pounds"],
         subjects=["Vet bill claim", "Pet claim excess", "Claim for {pet}", "PawsFirst claim", "Vets fees"],
         stories=["{pet} (my {species}) has been limping for a week and the vet, {vet}, wants to do an X-ray.",
                  "{pet} swallowed a hair tie and needed surgery at {vetpractice}, the bill was {vetbill}.",
                  "{pet} has been diagnosed with an ear infection and is on antibiotics.",
                  "{pet} ate some chocolate on {date} and we had to go to the emergency vet."],
         asks=["How much is the excess on a claim?", "What do I pay towards the vet bill?", "What's the excess per condition?"],
         mq_values=["£80", "£75", "£100", "£120", "£50", "£90"],
         mq_lines=["The vet receptionist said it's usually {mq}.", "I thought it was {mq}?"],
         says=["The excess on {p_pet} is {fact} per condition, per policy year.",
               "You'd pay the first {fact} of each new condition; we cover the rest up to your vet fee limit.",
               "There is a fixed excess of {fact} for each condition you claim for in a policy year.",
               "For {pet}'s claim the excess would be {fact}, deducted from what we pay the vet or you."],
         extras=["We can pay the vet directly if the practice is happy to do that.",
                 "Please ask the vet to fill in section 3 of the claim form.",
                 "Pets aged 8 and over also have a co-payment on each claim."],
         unsure=["Could you confirm your policy number and {pet}'s microchip number? I just need to check which policy {pet} is on."],
         pii=["Microchip no. {chip}", "Policy number {polno}", "The vet is {vet} at {vetpractice}.", "{pet}'s microchip is {chip}.",
              "I paid the vet on my card ending {card4}.", "Please pay me back to sort code {sortcode} acc {acctno}."],
         topic=["PH calling re vet treatment for {pet}, asking XS.", "PH wants to know XS before vet op."],
         note_adv=["Adv XS {fact} per condition per policy yr.", "Confirmed XS {fact}, claim form sent."],
         questions=["How much is the excess on a pet insurance claim?",
                    "What do I have to pay towards vet fees when I claim on PawsFirst?"]),
    dict(id="escape_of_water_excess", w=21, line="home", fact="£350",
         forms=["£350", "£350.00", "350 pounds", "GBP 350", "three hundred and fifty pounds"],
         subjects=["Water leak", "Burst pipe claim", "Escape of water", "Leak through ceiling", "Home claim - water damage"],
         stories=["We came home from holiday to find water pouring through the kitchen ceiling from the bathroom.",
                  "A pipe burst in the loft during the cold snap and the landing ceiling has come down.",
                  "The washing machine hose split and soaked the kitchen floor, the laminate is ruined.",
                  "Our neighbour, {neighbour}, in the flat above had a leak that's come through into our bathroom.",
                  "The plumber, {plumber}, says the leak under the shower has been going on for a while."],
         asks=["What's the excess for an escape of water claim?", "How much will I have to pay towards this?",
               "Is the excess different for water damage?"],
         mq_values=["£100", "£500", "£400", "£300", "£200"],
         mq_lines=["My policy booklet says {mq} I think.", "Isn't it {mq}?"],
         says=["Escape of water claims carry a higher excess of {fact} on {p_home} policies.",
               "For water damage like this the excess is {fact}, rather than the standard buildings excess.",
               "Please be aware that the escape of water excess is {fact}, which will be taken off the settlement.",
               "Your {p_home} schedule shows an escape of water excess of {fact}."],
         extras=["Please turn the water off at the stopcock and keep any damaged items for the loss adjuster.",
                 "We'll arrange for a drying company to visit.",
                 "Trace and access (finding the leak) is covered up to the limit on your schedule.",
                 "The claim is now open and you can upload photos at {trackurl}."],
         unsure=["Could you give me your policy number and the address of the property? I'd like to check whether it's a buildings or contents claim, as that affects the excess."],
         pii=["Policy no. {polno}", "The address is {addr}, {town}, {pc}.", "Best number {phone}",
              "The flat above belongs to {neighbour}, their number is {tp_phone}."],
         topic=["PH reports EoW from bathroom, ceiling damage.", "PH reports burst pipe, asking XS."],
         note_adv=["Adv EoW XS {fact}.", "Confirmed EoW XS is {fact}, drying co to be instructed."],
         questions=["What is the excess on an escape of water claim under home insurance?",
                    "How much do I pay towards a burst pipe claim?"]),
    dict(id="settlement_payment_time", w=17, line="any", fact="48 hours",
         forms=["48 hours", "forty-eight hours", "2 working days", "two working days"],
         subjects=["Settlement payment", "When will I be paid?", "Claim payment", "Still waiting for money"],
         stories=["You agreed my claim on {date} and I still haven't had the money.",
                  "motor|The engineer said my car is a write-off and I've accepted the valuation of {valuation}.",
                  "I got the email saying the claim has been settled.",
                  "home|I've signed the settlement form for the leak damage.",
                  "pet|The vet says they still haven't been paid for {pet}'s operation.",
                  "travel|You emailed to say my luggage claim was approved but nothing has arrived yet."],
         asks=["How long until the money comes through?", "When will I get the payment?",
               "How long does it take to pay out once agreed?"],
         mq_values=["24 hours", "a week", "10 working days", "5 working days", "28 days"],
         mq_lines=["The engineer said {mq}.", "I was told {mq} on the phone."],
         says=["Once a settlement is agreed, payment is made within {fact}.",
               "We aim to release the money within {fact} of you accepting the offer.",
               "Settlements go out by bank transfer within {fact}, so you should see it very soon.",
               "Payment is sent within {fact} of the claim being agreed; it can then take a day to show in your account."],
         extras=["Please check the bank details we hold for you are up to date.",
                 "If there's finance on the car, we pay the finance company first and the balance to you."],
         unsure=["Could you confirm the claim number and the account the payment should go to? I'll check the payment status."],
         pii=["Claim number {claimno}", "Please pay it into sort code {sortcode} account {acctno}.", "IBAN {iban}",
              "The account is in my {relative}'s name, {rel_named}.", "Or the card ending {card4} is fine."],
         topic=["PH chasing settlement payment on {product} claim.", "PH accepted offer, asking when paid."],
         note_adv=["Adv payment within {fact}.", "Confirmed BACS within {fact} of acceptance."],
         questions=["How long does it take to receive payment once a claim is settled?",
                    "When is the money paid after a claim is agreed?"]),
    dict(id="travel_cancellation_limit", w=14, line="travel", fact="£3,000",
         forms=["£3,000", "£3000", "3,000 pounds", "GBP 3,000", "three thousand pounds", "£3k"],
         subjects=["Cancelling our holiday", "Cancellation claim", "Trip cancelled", "Holiday cancellation cover"],
         stories=["We've had to cancel our trip to {dest} because my {relative} has been taken into hospital.",
                  "I've been called for jury service on the week we're meant to be away.",
                  "My {relative}, {rel_named}, passed away and we can't go on the holiday we booked.",
                  "The holiday cost {holidaycost} for the four of us and the travel agent won't refund it."],
         asks=["How much can I claim back for cancelling?", "What's the maximum you pay for cancellation?",
               "Is the full cost of the holiday covered?"],
         mq_values=["£5,000", "£2,000", "£2,500", "£10,000", "£1,000"],
         mq_lines=["The policy summary I've got says {mq}.", "I thought cancellation cover was {mq}."],
         says=["{p_travel} covers cancellation up to {fact} per person.",
               "The cancellation limit is {fact} for each insured traveller.",
               "You can claim up to {fact} per person for cancellation costs you can't get back."],
         extras=["We'll need evidence of the reason for cancelling, such as a medical certificate or the court summons.",
                 "Please ask the travel agent for a cancellation invoice.", "The standard excess applies per person."],
         unsure=["Could you send me your policy number and booking reference? I need to check the level of cover on your policy."],
         pii=["Booking ref {booking}", "Policy {polno}", "My {relative}'s date of birth is {tp_dob}."],
         topic=["PH cancelling trip to {dest}, relative in hospital.", "PH asking cancellation limit."],
         note_adv=["Adv cancellation limit {fact} pp.", "Confirmed {fact} per person, claim form sent."],
         questions=["How much does Wanderer travel insurance pay for cancelling a trip?",
                    "What's the cancellation cover limit per person?"]),
    dict(id="repair_guarantee", w=10, line="motor", fact="5 years",
         forms=["5 years", "five years", "60 months", "5-year", "five-year"], adj_forms=["5-year", "five-year"],
         subjects=["Problem with repair", "Repair guarantee", "Bodywork issue after claim"],
         stories=["My car was repaired by your approved garage after the accident in {month_prev} and the paint on the bumper is already bubbling.",
                  "The door they fixed is rattling again.",
                  "I'm selling the car and the buyer asked whether the accident repairs are guaranteed."],
         asks=["Are repairs guaranteed?", "How long is the guarantee on the repair?", "How long are your repairs covered for?"],
         mq_values=["3 years", "12 months", "one year", "2 years", "for life"],
         mq_lines=["The garage said it was only {mq}.", "I thought it was {mq}."],
         says=["Repairs by our approved repairers are guaranteed for {fact}.",
               "All work carried out through our approved network comes with a {factadj} guarantee.",
               "The guarantee on approved repairs is {fact} from the date the car was returned to you."],
         extras=["Please contact the repairer directly and quote your claim number; if they don't help, let me know."],
         unsure=["Could you tell me which garage did the repair and your claim number? Only repairs by our approved repairers carry our guarantee."],
         pii=["Claim number {claimno}", "Reg {reg}"],
         topic=["PH unhappy with repair quality.", "PH asking about guarantee on AR repair."],
         note_adv=["Adv repairs guaranteed {fact}.", "Confirmed {fact} guarantee, PH to contact AR."],
         questions=["How long are repairs done by approved repairers guaranteed for?", "What guarantee do I get on my car repair?"]),
    dict(id="key_cover_limit", w=7, line="home", fact="£1,500",
         forms=["£1,500", "£1500", "1,500 pounds", "GBP 1,500", "fifteen hundred pounds"],
         subjects=["Lost keys", "KeySafe claim", "Keys stolen"],
         stories=["I lost my house and car keys on a night out on {date}.",
                  "My bag was stolen with my keys in it and I've had to get the locks changed.",
                  "I dropped my car key off the pier at {beach}.",
                  "My coat was taken from the pub with my keys and phone in the pocket (IMEI {imei})."],
         asks=["How much does KeySafe Cover pay?", "Is there a limit on key replacement?",
               "How much can I claim for replacing the keys and locks?"],
         mq_values=["£500", "£1,000", "£750", "£2,000", "£1,200"],
         mq_lines=["I thought it was {mq}.", "The locksmith said most policies pay {mq}."],
         says=["{p_key} pays up to {fact} per claim for replacement keys and locks.",
               "The limit under {p_key} is {fact} in total for keys, locks and call-out.",
               "You can claim up to {fact} for replacing your keys and having the locks changed."],
         extras=["Please keep the locksmith's invoice."],
         unsure=["Could you confirm your policy number? {p_key} is an add-on, so I want to check it's on your policy."],
         pii=["Policy no {polno}", "The locksmith was {tp}.", "Address {addr}, {pc}"],
         topic=["PH lost keys, asking KeySafe limit.", "PH keys stolen, locks changed."],
         note_adv=["Adv KeySafe limit {fact}.", "Confirmed limit {fact}."],
         questions=["How much does key cover pay for lost keys?", "What is the limit for replacing lost keys and locks?"]),
]

# ---------------------------------------------------------------------------------------------- wording

OPEN = ["Hello,", "Hi,", "Good {tod},", "To whom it may concern,", "Dear Sir/Madam,", "Hi there,", "", "", "Hello there,"]
SELF_ID = ["My name is {full} and I have a {product} policy with you ({polno}).", "I'm a {product} customer, policy {polno}.",
           "I have {product} cover with you.", "Policy holder: {full}.", "", "", ""]
SIGNOFF = ["Thank you", "Many thanks", "Kind regards", "Regards", "Thanks in advance", "Look forward to hearing from you",
           "Yours faithfully", "Thanks", "Best"]
EXTRA_PII = ["My mobile is {phone}.", "Please call me on {phone} rather than email.", "DOB {dob}, postcode {pc}.",
             "My customer number is {custno}.", "I'm at {addr}, {town} {pc}.", "My email is {email} if that's easier.",
             "I'm on {phone} during the day.", "My {relative}, {rel_named}, is also on the policy.",
             "If I'm not in you can speak to my {relative} {rel_named}.", "Sorry, my new email is {email}."]
NERVES = ["I've never had to claim before so sorry if this is a silly question.", "Really hoping you can help.",
          "This is the first time I've used the online form.", "I tried ringing but the queue was over an hour."]
H_OPEN = ["Thank you for contacting {co}.", "Thank you for your enquiry.", "Thanks for getting in touch about your {product} policy.",
          "Thank you for your message.", "", "Thanks for your patience while I looked into this."]
H_SORRY = {"motor": "I'm sorry to hear about the damage to your car.", "home": "I'm sorry to hear about the damage to your home.",
           "travel": "I'm sorry your trip didn't go to plan.", "pet": "I'm sorry to hear {pet} has been poorly."}
H_CORRECT = ["I'm afraid the figure of {mq} isn't correct.", "I should clarify that it isn't {mq}.",
             "Unfortunately the information you were given was wrong.", "Just to clear up any confusion, that figure isn't right."]
H_CLOSE = ["If you have any further questions, please don't hesitate to contact us.", "You can also manage your policy online at {web}.",
           "Our claims line is open 24/7 on {claims_line}.", "I hope this helps.", "", ""]

SLOT = re.compile(r"\{(\w+)\}")
TYPOS = {"received": "recieved", "believe": "belive", "definitely": "definatly", "separate": "seperate",
         "windscreen": "windscreeen", "insurance": "insurence", "excess": "exess", "policy": "pollicy",
         "accident": "accidnet", "their": "there", "because": "cos", "whether": "wether", "guarantee": "guarentee",
         "cancel": "cancell", "courtesy": "curtesy", "you": "u", "are": "r", "please": "plz", "thanks": "thanx",
         "tomorrow": "tomorow", "neighbour": "neighbor", "ceiling": "cieling", "would": "wud"}


def _holds(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


def _plain(s: str) -> str:
    s = s.replace("ł", "l").replace("Ł", "L").replace("ŵ", "w").replace("ŷ", "y")
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def _luhn(body: str) -> str:
    tot = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        tot += d - 9 if d > 9 else d
    return body + str(-tot % 10)


def _sloppy(text: str, rng: random.Random, rate: float, lower: bool, nopunct: bool) -> str:
    if lower:
        text = text.lower()
    if nopunct:
        text = text.replace(",", "").replace("'", "")
    if rate <= 0:
        return text

    def w(m: re.Match) -> str:
        s = m.group(0)
        if rng.random() >= rate:
            return s
        if s.lower() in TYPOS and rng.random() < 0.75:
            t = TYPOS[s.lower()]
            return t.capitalize() if s[0].isupper() else t
        if len(s) < 6:
            return s
        i = rng.randrange(2, len(s) - 1)
        return rng.choice([s[:i - 1] + s[i] + s[i - 1] + s[i + 1:], s[:i] + s[i + 1:], s[:i] + s[i - 1] + s[i:]])

    return re.sub(r"[A-Za-z]+", w, text)


class _Writer:
    """Fills templates; collects each personal string written into the record."""

    def __init__(self, slots: dict, rng: random.Random):
        self.slots, self.rng, self.found = slots, rng, []

    def __call__(self, tpl: str, rate: float = 0.0, lower: bool = False, nopunct: bool = False) -> str:
        pieces, at = [], 0
        for m in SLOT.finditer(tpl):
            pieces.append(_sloppy(tpl[at:m.start()], self.rng, rate, lower, nopunct))
            kind, value = self.slots[m.group(1)]
            if kind and [kind, value] not in self.found:
                self.found.append([kind, value])
            pieces.append(value)
            at = m.end()
        pieces.append(_sloppy(tpl[at:], self.rng, rate, lower, nopunct))
        return "".join(pieces)


# ---------------------------------------------------------------------------------------------- people

def _draw_name(rng: random.Random, female: bool | None = None) -> tuple[str, str, bool]:
    origins = list(ORIGIN_WEIGHTS)
    o = rng.choices(origins, weights=list(ORIGIN_WEIGHTS.values()))[0]
    female = rng.random() < 0.5 if female is None else female
    given = rng.choice((FEMALE if female else MALE)[o])
    so = o if rng.random() < 0.78 else rng.choices(origins, weights=list(ORIGIN_WEIGHTS.values()))[0]
    sur = rng.choice(SURNAMES[so])
    if rng.random() < 0.035:
        sur = f"{sur}-{rng.choice(SURNAMES['anglo'])}"
    return given, sur, female


def _policy(rng: random.Random, line: str) -> str:
    return f"CM{LINE_CODE[line]}-{rng.randint(1000000, 9999999)}-{rng.randint(1, 3):02d}"


def _person(rng: random.Random, k: int) -> dict:
    given, sur, female = _draw_name(rng)
    town, area = rng.choice(TOWNS)
    inward = "ABDEFGHJLNPQRSTUWXYZ"
    pc = f"{area}{rng.randint(1, 40 if area == 'BS' else 24)} {rng.randint(1, 9)}{rng.choice(inward)}{rng.choice(inward)}"
    x = rng.random()
    if x < 0.6:
        addr = f"{rng.randint(1, 220)} {rng.choice(STREET_T)}"
    elif x < 0.8:
        addr = f"{rng.randint(1, 90)} {rng.choice(STREET_B)}"
    else:
        addr = f"Flat {rng.randint(1, 30)}{rng.choice(['', '', 'A', 'B'])}, {rng.choice(BLOCKS)}"
    dob = dt.date(1944, 1, 1) + dt.timedelta(days=rng.randint(0, 22500))
    g, s = _plain(given).lower(), re.sub(r"[^a-z]", "", _plain(sur).lower())
    email = rng.choice([f"{g}.{s}", f"{g}{s}", f"{g[0]}{s}{dob.year % 100:02d}", f"{s}.{g}", f"{g}{rng.randint(1, 999)}",
                        f"{g}_{s}{rng.randint(1, 9)}", f"{s}family", f"{g}.{s}.{dob.year}"])
    email += "@" + rng.choice(["example.com", "example.net", "example.org", "post.example.com", "mail.example.org"])
    phone = rng.choices([f"07700 900{rng.randint(0, 999):03d}", f"0117 496 0{rng.randint(0, 499):03d}",
                         f"029 2018 0{rng.randint(0, 999):03d}", f"01632 960{rng.randint(0, 999):03d}"],
                        weights=[70, 12, 8, 10])[0]
    letters = "ABCDEFGHJKLMNOPRSTUVWXY"
    plate = (rng.choice("WLCHYVBDEFGMOSN") + rng.choice(letters) + rng.choice([f"{y:02d}" for y in range(8, 25)] + [str(y) for y in range(58, 75)])
             + " " + "".join(rng.choice(letters) for _ in range(3)))
    species, pet = rng.choice(PETS)
    sort = f"{rng.randint(10, 99)}{rng.randint(0, 99):02d}{rng.randint(0, 99):02d}"
    acct = str(rng.randint(10000000, 99999999))
    bank = rng.choice(["NWBK", "BARC", "LOYD", "HBUK", "NAIA", "MONZ", "SRLG", "CPBK"])
    num = "".join(str(int(c, 36)) for c in bank + sort + acct + "GB00")
    iban = f"GB{98 - int(num) % 97:02d}{bank}{sort}{acct}"
    return dict(pid=f"cm-c{k:05d}", given=given, sur=sur, female=female,
                title=("Mr" if not female else rng.choice(["Mrs", "Ms", "Miss"])) if rng.random() > 0.03 else rng.choice(["Dr", "Mx", "Rev"]),
                custno=f"C{rng.randint(10000000, 99999999)}", pols={}, email=email, phone=phone, addr=addr, town=town, pc=pc,
                dob=dob, plate=plate, car=rng.choice(CARS), species=species, pet=pet,
                chip=rng.choice(["985", "977", "941", "900", "826"]) + "".join(str(rng.randint(0, 9)) for _ in range(12)),
                card=_luhn(rng.choice(["4", "5"]) + "".join(str(rng.randint(0, 9)) for _ in range(14))),
                imei=_luhn(rng.choice(["35", "86", "01"]) + "".join(str(rng.randint(0, 9)) for _ in range(12))),
                passport=str(rng.randint(100000000, 599999999)), sort=sort, acct=acct, iban=iban,
                **_relative(rng))


def _relative_dob(rng: random.Random, p: dict) -> dt.date:
    rel = p["relative"]
    years = (rng.randint(20, 36) if rel in ("mum", "dad", "mother-in-law", "father-in-law") else
             rng.randint(45, 60) if rel == "nan" else -rng.randint(20, 36) if rel in ("son", "daughter") else rng.randint(-8, 8))
    d = p["dob"] - dt.timedelta(days=int(years * 365.25) + rng.randint(-150, 150))
    return min(d, dt.date(2006, 1, 1))


def _relative(rng: random.Random) -> dict:
    rel, female = rng.choice(RELATIVES)
    return {"relative": rel, "rel_name": _draw_name(rng, female)[:2]}


def _phone_as_written(rng: random.Random, ph: str) -> str:
    d = ph.replace(" ", "")
    if d.startswith("07"):
        return rng.choice([ph, d, f"+44 {d[1:5]} {d[5:]}", f"+44{d[1:]}", f"{d[:5]} {d[5:8]} {d[8:]}", f"0{d[1:4]} {d[4:7]} {d[7:]}",
                           f"{d[:5]}.{d[5:]}", f"(0){d[1:5]} {d[5:]}"])
    return rng.choice([ph, d, f"+44 {ph[1:]}", ph.replace(" ", "-", 1)])


def _dob_as_written(rng: random.Random, d: dt.date) -> str:
    th = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}.get(d.day, "th")
    return rng.choice([f"{d.day:02d}/{d.month:02d}/{d.year}", f"{d.day}/{d.month}/{d.year}", f"{d.day:02d}-{d.month:02d}-{d.year}",
                       f"{d.day}{th} {MONTHS[d.month - 1]} {d.year}", f"{d.day} {MONTHS[d.month - 1][:3]} {d.year}",
                       f"{d.day:02d}.{d.month:02d}.{d.year % 100:02d}", f"{MONTHS[d.month - 1]} {d.day}, {d.year}",
                       f"{d.day:02d}{d.month:02d}{d.year}"])


def _policy_as_written(rng: random.Random, pol: str, lower: bool) -> str:
    core = pol.split("-")[1]
    s = rng.choice([pol, pol, pol.replace("-", ""), pol.replace("-", " "), core, f"{pol[:3]} {core}"])
    return s.lower() if lower else s


def _slots(rng: random.Random, p: dict, line: str, when: dt.datetime, handler: tuple, lower: bool) -> dict:
    if line not in p["pols"]:
        p["pols"][line] = (_policy(rng, line), rng.choice(LINE_PRODUCTS[line]))
    pol, product = p["pols"][line]
    g, s = p["given"], p["sur"]
    hg, hs = handler
    d1 = when.date() - dt.timedelta(days=rng.randint(1, 25))
    d2 = when.date() + dt.timedelta(days=rng.randint(2, 30))
    day = lambda d: rng.choice([f"{d.day}/{d.month}", f"{d.day} {MONTHS[d.month - 1]}", f"{d.day:02d}/{d.month:02d}/{d.year % 100:02d}",
                                f"{MONTHS[d.month - 1][:3]} {d.day}", f"{['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'][d.weekday()]}"])
    tp = _draw_name(rng)
    tpd = _draw_name(rng, female=True)
    nb = _draw_name(rng)
    pl = _draw_name(rng, female=False)
    vet = _draw_name(rng)
    rg, rs = p["rel_name"]
    card = p["card"]
    plate = p["plate"]
    tp_plate = plate[:2] + f"{rng.randint(10, 24)} " + "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXY") for _ in range(3))
    sortcode = rng.choice([f"{p['sort'][:2]}-{p['sort'][2:4]}-{p['sort'][4:]}", p["sort"]])
    claimno = f"CLM-{when.year % 100}-{rng.randint(1000000, 9999999)}"
    lo = (lambda x: x.lower()) if lower else (lambda x: x)
    slots = {
        "first": ("person_name", g), "full": ("person_name", f"{g} {s}"), "title_sur": ("person_name", f"{p['title']} {s}"),
        "initial_sur": ("person_name", f"{p['title']} {g[0]} {s}"),
        "sign": ("person_name", rng.choice([g, g, f"{g} {s}", f"{g[0]}. {s}", f"{p['title']} {s}", lo(f"{g} {s}")])),
        "polno": ("account_number", _policy_as_written(rng, pol, lower)), "pol_canon": ("account_number", pol),
        "custno": ("account_number", p["custno"]), "claimno": ("account_number", rng.choice([claimno, claimno.replace("-", ""), claimno.split("-", 2)[2]])),
        "booking": ("account_number", "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))),
        "crimeref": ("other_id", rng.choice([f"{rng.randint(5200000000, 5299999999)}", f"AS-{when.year % 100}-{rng.randint(100000, 999999)}",
                                             f"SWP/{rng.randint(10000, 99999)}/{when.year % 100}"])),
        "chip": ("other_id", rng.choice([p["chip"], " ".join([p["chip"][:3], p["chip"][3:6], p["chip"][6:9], p["chip"][9:12], p["chip"][12:]])])),
        "passport": ("other_id", p["passport"]),
        "phone": ("phone", _phone_as_written(rng, p["phone"])),
        "tp_phone": ("phone", f"07700 900{rng.randint(0, 999):03d}"),
        "email": ("email", p["email"]),
        "addr": ("address", lo(p["addr"])), "pc": ("postcode", lo(p["pc"]) if rng.random() < 0.85 else p["pc"].replace(" ", "")),
        "town": (None, p["town"]),
        "dob": ("date_of_birth", _dob_as_written(rng, p["dob"])),
        "tp_dob": ("date_of_birth", _dob_as_written(rng, _relative_dob(rng, p))),
        "reg": ("licence_plate", rng.choice([plate, plate, plate.replace(" ", ""), plate.lower()])),
        "tp_reg": ("licence_plate", rng.choice([tp_plate, tp_plate.replace(" ", "")])),
        "card4": ("card_number", rng.choice([card[-4:], card[-4:], f"**** **** **** {card[-4:]}"])),
        "cardfull": ("card_number", rng.choice([" ".join(card[i:i + 4] for i in range(0, 16, 4)), card, "-".join(card[i:i + 4] for i in range(0, 16, 4))])),
        "sortcode": ("iban", sortcode), "acctno": ("iban", p["acct"]),
        "iban": ("iban", rng.choice([p["iban"], " ".join(p["iban"][i:i + 4] for i in range(0, 22, 4))])),
        "imei": ("imei", rng.choice([p["imei"], f"{p['imei'][:2]}-{p['imei'][2:8]}-{p['imei'][8:14]}-{p['imei'][14]}", f"{p['imei'][:2]} {p['imei'][2:8]} {p['imei'][8:14]} {p['imei'][14]}"])),
        "tp": ("third_party_name", rng.choice([f"{tp[0]} {tp[1]}", tp[0]])),
        "tp_sur": ("third_party_name", tp[1]),
        "tp_m": ("third_party_name", f"{pl[0]} {rng.choice([pl[1], pl[1][0] + '.'])}"),
        "tp_driver": ("third_party_name", rng.choice([f"{tpd[0]} {tpd[1]}", f"Mrs {tpd[1]}", tpd[0]])),
        "neighbour": ("third_party_name", rng.choice([f"{nb[0]} {nb[1]}", f"Mr {nb[1]}", f"Mrs {nb[1]}"])),
        "plumber": ("third_party_name", rng.choice([pl[0], f"{pl[0]} {pl[1]}"])),
        "vet": ("third_party_name", rng.choice([f"Dr {vet[1]}", f"{vet[0]} {vet[1]}", vet[0]])),
        "photourl": ("url_with_id", rng.choice([f"https://photos.example.com/album/{rng.randint(10**9, 10**10 - 1)}",
                                                f"https://share.example.net/{''.join(rng.choice('abcdefghkmnpqrstuvwxyz23456789') for _ in range(8))}"])),
        "trackurl": ("url_with_id", f"https://{WEB}/claims/track/{claimno.replace('-', '')}"),
        "relative": (None, p["relative"]), "rel_named": ("third_party_name", rng.choice([rg, f"{rg} {rs}"])),
        "car": (None, p["car"]), "pet": (None, p["pet"]), "species": (None, p["species"]),
        "product": (None, product), "date": (None, day(d1)), "date2": (None, day(d2)),
        "month": (None, MONTHS[(when.month + rng.randint(1, 4)) % 12]), "month_prev": (None, MONTHS[(when.month - 3) % 12]),
        "road": (None, rng.choice(ROADS)), "shop": (None, rng.choice(SHOPS)), "dest": (None, rng.choice(DESTS)),
        "abroad": (None, rng.choice(["Spain", "Canada", "Australia", "Portugal", "New Zealand", "Dubai"])),
        "beach": (None, rng.choice(["Clevedon", "Weston", "Penarth", "Mumbles", "Paignton"])),
        "vetpractice": (None, rng.choice(VET_PRACTICES)),
        "quote": (None, rng.choice(["£640", "£1,180", "£875", "£2,340", "£460", "£1,020.50", "£795"])),
        "vetbill": (None, rng.choice(["£1,240", "£860.45", "£2,115", "£1,689.20", "£744"])),
        "localamt": (None, rng.choice(["€180", "€420", "$260", "€95", "280 euros", "€1,150"])),
        "valuation": (None, rng.choice(["£6,450", "£11,200", "£3,875", "£8,900", "£14,350"])),
        "holidaycost": (None, rng.choice(["£4,860", "£6,200", "£3,740", "£5,395"])),
        "increase": (None, rng.choice(["£140", "£212", "nearly £300", "£96", "40%"])),
        "prevyears": (None, rng.choice(["6", "7", "8", "9", "10", "12"])),
        "co": (None, CO), "web": (None, WEB), "claims_line": (None, CLAIMS_LINE), "claims_email": (None, CLAIMS_EMAIL),
        "service_email": (None, SERVICE_EMAIL),
        "p_motor": (None, P_MOTOR), "p_glass": (None, P_GLASS), "p_cc": (None, P_CC), "p_travel": (None, rng.choice([P_TRAVEL, P_TRAVEL_AMT])),
        "p_pet": (None, rng.choice([P_PET, P_PET_ACC])), "p_home": (None, rng.choice([P_HOME, P_HOME_BASIC])), "p_key": (None, P_KEY),
        "p_ncd": (None, P_NCD),
        "h": ("agent_name", rng.choice([hg, f"{hg} {hs}", f"{hg} {hs[0]}", f"{hg[0]}. {hs}"])),
        "h_first": ("agent_name", hg), "h_full": ("agent_name", f"{hg} {hs}"),
    }
    return slots


# ---------------------------------------------------------------------------------------------- the four layouts

def _customer_sentences(rng: random.Random, t: dict, mq: str | None, form_like: bool, line: str) -> list[str]:
    out = []
    if rng.random() < 0.8:
        pool = [x.split("|", 1)[-1] for x in t["stories"] if "|" not in x or x.startswith(line + "|")]
        out.append(rng.choice(pool))
    ask = rng.choice(t["asks"])
    if mq:
        out += [ask, rng.choice(t["mq_lines"])] if rng.random() < 0.6 else [rng.choice(t["mq_lines"]), ask]
    else:
        out.append(ask)
    taken = {x for s in out for x in SLOT.findall(s)}
    for src, pr in ((t["pii"], 0.62), (EXTRA_PII, 0.33)):
        pool = [x for x in src if not taken & set(SLOT.findall(x))]
        if pool and rng.random() < pr:
            out.append(rng.choice(pool))
            taken |= set(SLOT.findall(out[-1]))
    if not form_like and rng.random() < 0.15:
        out.insert(rng.randrange(len(out) + 1), rng.choice(NERVES))
    return out


def _handler_sentences(rng: random.Random, t: dict, stated: bool, mq: str | None) -> list[str]:
    out = []
    if rng.random() < 0.35 and t["line"] in H_SORRY and t["id"] not in ("cancellation_fee", "ncd_maximum"):
        out.append(H_SORRY[t["line"]])
    if not stated:
        out.append(rng.choice(t["unsure"]))
        return out
    if mq:
        out.append(rng.choice(H_CORRECT))
    out.append(rng.choice(t["says"]))
    k = rng.choice([0, 1, 1, 2])
    out += rng.sample(t["extras"], min(k, len(t["extras"])))
    return out


def _layout_chat(rng, w: _Writer, p, t, when, cust, hand, rate, lower, stated):
    label = rng.choice(["You", "You", "{first}", "{full}"])
    hname = rng.choice(["{h_first} (Claims)", "{h_first}", "{h} | Claims Team", "Agent {h_first}"])
    start = when if 8 <= when.hour < 20 else when.replace(hour=rng.randint(8, 19))
    out = [f"{CO} | web chat transcript", f"Started {start.strftime('%d %b %Y, %H:%M')} | Topic: " + w(rng.choice(t["subjects"])), "----"]
    H = w(hname)
    C = w(label)
    tod = "morning" if start.hour < 12 else "afternoon" if start.hour < 18 else "evening"
    out.append(f"{H}: " + w(rng.choice(["Hello, you're chatting with {h_first}. How can I help today?",
                                        "Hi, my name is {h_first} and I'm part of the claims team. What can I do for you?",
                                        f"Good {tod}, thanks for contacting {{co}}. You're through to {{h_first}}."])))
    out.append(f"{C}: " + w(" ".join(cust[:2]), rate, lower, lower))
    for c in cust[2:]:
        out.append(f"{C}: " + w(c, rate, lower, lower))
    if rng.random() < 0.55:
        k = rng.randrange(3)
        out.append(f"{H}: " + w(["Before I look into that, can I take your policy number and postcode please?",
                                 "Can you confirm your date of birth and the first line of your address for security?",
                                 "I'll need to pass security first. What's your policy number?"][k]))
        out.append(f"{C}: " + w(rng.choice([["{polno}, {pc}", "{polno} postcode {pc}", "{polno}\n{pc}"],
                                            ["{dob} and {addr}", "{dob}, {addr}", "{addr} and {dob}"],
                                            ["its {polno}", "{polno}", "I think it's {polno}"]][k]), rate, lower, lower))
        out.append(f"{H}: " + w(rng.choice(["Thank you.", "Thanks, that's all fine.", "Thanks for confirming."])))
    said = [w(h) for h in hand]
    out += [f"{H}: {x}" for x in said]
    out.append(f"{C}: " + w(rng.choice(["ok thank you", "Great, thanks for your help", "thanks", "OK. Bye", "brilliant thanks",
                                        "right ok", "ok that's clear"] if stated else
                                       ["ok I'll have to find it and come back to you", "hang on, it's in the other room. I'll message back later",
                                        "ok will do", "I'll check the paperwork and email it over"]), rate, lower, lower))
    if rng.random() < 0.6:
        out.append(f"{H}: " + w(rng.choice(["You're welcome. Is there anything else I can help with today?",
                                            "No problem at all, take care.", "Thanks for chatting with us. Goodbye."])))
    out.append(rng.choice(["-- chat ended by visitor --", "-- chat closed --", ""]))
    return "\n".join(x for x in out if x), " ".join(said)


def _layout_form(rng, w: _Writer, p, t, when, cust, hand, rate, lower, stated):
    rows = [f"ONLINE ENQUIRY #E{rng.randint(100000, 999999)}", f"Received: {when.strftime('%d/%m/%Y %H:%M')}",
            "Product: {product}"]
    if rng.random() < 0.8:
        rows.append("Policy number: {polno}")
    rows.append(rng.choice(["Name: {initial_sur}", "Name: {full}", "Name: {title_sur}"]))
    rows.append(rng.choice(["Contact tel: {phone}", "Email: {email}", "Contact tel: {phone}\nEmail: {email}"]))
    if t["line"] == "motor" and rng.random() < 0.6:
        rows.append("Vehicle reg: {reg}")
    head = w("\n".join(rows))
    body = w(" ".join(cust), rate, lower)
    reply_when = when + dt.timedelta(hours=rng.randint(3, 70))
    lead = w(rng.choice(["HANDLER RESPONSE (sent {rd} by {h_full}, Claims Handler)", "Response from {h} - {rd}",
                         "Reply sent {rd} | handler: {h}"]).replace("{rd}", reply_when.strftime("%d/%m/%Y")))
    said = w(rng.choice(["Dear {title_sur},", "Dear {first},", "Hello {first},", "Dear {initial_sur},"]))
    opener = rng.choice(H_OPEN)
    txt = " ".join(([opener] if opener else []) + hand)
    said_body = w(txt)
    close = rng.choice(H_CLOSE) if stated else ""
    sign = w(rng.choice(["Kind regards,\n{h}", "Regards,\n{h_full}\nClaims Team", "{h}", "Many thanks\n{h_first}"]))
    reply = "\n".join([said, said_body + (" " + w(close) if close else ""), sign])
    return f"{head}\nEnquiry:\n{body}\n\n{lead}\n{reply}", said_body


def _layout_email(rng, w: _Writer, p, t, when, cust, hand, rate, lower, stated):
    subj = rng.choice(t["subjects"])
    subj = w(subj)
    if rng.random() < 0.2:
        subj = subj.upper() if rng.random() < 0.3 else subj.lower()
    claimish = t["id"] not in ("cancellation_fee", "ncd_maximum")
    ref = w(rng.choice([" [Ref: {claimno}]" if claimish else " [Policy {polno}]", " [{polno}]", "", ""]))
    greet = w(rng.choice(["Dear {title_sur},", "Dear {first},", "Hello {first},", "Hi {first},", "Dear {full},"]))
    opener = rng.choice(H_OPEN)
    body = w(" ".join(([opener] if opener else []) + hand))
    close = w(rng.choice(H_CLOSE)) if stated else ""
    sig = w(rng.choice(["Kind regards,\n{h}\nClaims Handler, {co}",
                        "Yours sincerely,\n{h_full}\nCustomer Claims Team\n{co} | {claims_line} | {web}",
                        "Best wishes,\n{h_first}\n{co}\n{claims_email}",
                        "Regards\n{h}\n{co} Customer Care\n{service_email}"]))
    top = f"Subject: RE: {subj}{ref}\n\n{greet}\n\n{body}" + (f"\n\n{close}" if close else "") + f"\n\n{sig}"
    c_open = w(rng.choice(OPEN), rate, lower)
    selfid = rng.choice(SELF_ID)
    c_text = w(" ".join(([selfid] if selfid and rng.random() < 0.5 else []) + cust), rate, lower)
    c_sign = w(rng.choice(SIGNOFF) + rng.choice([",", ""]), rate, lower) + "\n" + w("{sign}")
    original = "\n\n".join(x for x in [c_open, c_text, c_sign] if x)
    sent = when.strftime(rng.choice(["%d %B %Y %H:%M", "%a, %d %b %Y at %H:%M", "%d/%m/%Y %H:%M"]))
    if rng.random() < 0.5:
        quoted = "\n".join("> " + ln if ln else ">" for ln in original.split("\n"))
        tail = w("On " + sent + ", {full} <{email}> wrote:") + "\n" + quoted
    else:
        tail = (w("-----Original Message-----\nFrom: {full} <{email}>") + f"\nSent: {sent}\n"
                + w(f"To: {rng.choice([CLAIMS_EMAIL, SERVICE_EMAIL])}") + f"\nSubject: {subj}\n\n" + original)
    return top + "\n\n" + tail, body


NOTE_BITS = {"phone": "Alt tel {phone}.", "email": "Email updated to {email}.", "reg": "Veh reg {reg}.",
             "tp_reg": "TP veh {tp_reg}.", "tp_driver": "TP driver {tp_driver}.", "crimeref": "Crime ref {crimeref}.",
             "claimno": "Claim {claimno}.", "booking": "Booking ref {booking}.", "passport": "Passport no {passport} given for airline.",
             "chip": "Chip {chip}.", "vet": "Treating vet {vet}.", "neighbour": "Upstairs flat owner {neighbour}.",
             "card4": "Card on file ends {card4}.", "sortcode": "New bank {sortcode} {acctno}.", "rel_named": "Named contact {rel_named} ({relative}).",
             "imei": "IMEI {imei}.", "tp": "Other party {tp}.", "photourl": "Photos at {photourl}"}


def _layout_note(rng, w: _Writer, p, t, when, cust, hand, rate, lower, stated, mq):
    when = when if 8 <= when.hour < 20 else when.replace(hour=rng.randint(8, 19))
    head = w(f"CALL NOTE | inbound | {when.strftime('%d/%m/%Y %H:%M')} | " + rng.choice(["handler: {h}", "by {h}", "{h}"]))
    dpa = w(rng.choice(["DPA: name, DOB ({dob}) and postcode ({pc}) confirmed.", "DPA passed - {dob}, {addr}.",
                        "ID&V ok (DOB {dob}, pc {pc}).", "DPA passed."]))
    pol = w(rng.choice(["Policy: {polno} ({product})", "Pol {polno}", "Cust no {custno} / {polno}"]))
    bits = [w(rng.choice(t["topic"]))]
    if rng.random() < 0.7:
        bits.append(w('PH asked: "' + rng.choice(t["asks"]) + '"'))
    if mq:
        bits.append(w(rng.choice(["PH thought it was {mq}.", "PH had been told {mq}.", "PH quoted {mq} from somewhere."])))
    have = {x for line in t["pii"] for x in SLOT.findall(line)} | {"phone", "email", "rel_named"}
    options = [v for k, v in NOTE_BITS.items() if k in have and k not in SLOT.findall(" ".join(bits))]
    for extra in rng.sample(options, k=min(len(options), rng.choice([0, 1, 1, 2]))):
        bits.append(w(extra))
    if stated:
        adv = w(rng.choice(t["note_adv"]))
        if mq:
            adv = w(rng.choice(["Corrected - ", "Explained not {mq}. ", ""])) + adv
        more = rng.choice(["", "Sent policy wording by email.", "No further action.", "PH satisfied.", "Claim not registered yet."])
    else:
        adv = w(rng.choice(["Unable to confirm - PH to call back with policy no.", "Asked PH to email docs to {claims_email}, will cb once received.",
                            "Need to check cover on schedule, cb within 24h."]))
        more = ""
    text = "\n".join([head, dpa, pol, "Notes: " + " ".join(bits), "Outcome: " + adv + (" " + more if more else "")])
    return text, adv


# ---------------------------------------------------------------------------------------------- collection

def _type_counts(rng: random.Random, n: int) -> list[int]:
    w = [t["w"] * rng.uniform(0.88, 1.12) for t in TYPES]
    share = [x / sum(w) * n for x in w]
    out = [max(1, int(x)) for x in share]
    rest = sorted(range(len(out)), key=lambda i: int(share[i]) - share[i])
    j = 0
    while sum(out) < n:
        out[rest[j % len(rest)]] += 1
        j += 1
    while sum(out) > n:
        out[out.index(max(out))] -= 1
    return out


def _write_one(rng: random.Random, p: dict, t: dict, when: dt.datetime, stated: bool, mq: str | None,
               canon: bool = False) -> tuple[str, list]:
    handler = rng.choice(HANDLERS)
    others = [f for u in TYPES if u is not t for f in u["forms"]]
    for _ in range(300):
        layout = rng.choices(["chat", "form", "email", "note"], weights=[30, 24, 32, 14])[0]
        lower = rng.random() < {"chat": 0.22, "note": 0.0}.get(layout, 0.07)
        rate = rng.choice([0, 0, 0.03, 0.05, 0.1]) if layout != "note" else 0
        line = t["line"] if t["line"] != "any" else rng.choice(["motor", "motor", "home", "pet", "travel"])
        slots = _slots(rng, p, line, when, handler, lower)
        adj = t.get("adj_forms", [])
        slots["fact"] = (None, t["fact"] if canon else rng.choice([t["fact"]] * 3 + [f for f in t["forms"] if f not in adj]))
        slots["factadj"] = (None, rng.choice(adj) if adj else t["fact"])
        slots["mq"] = (None, mq or "")
        slots["tod"] = (None, "morning" if when.hour < 12 else "afternoon" if when.hour < 18 else "evening")
        w = _Writer(slots, rng)
        cust = _customer_sentences(rng, t, mq, layout == "form", line)
        hand = _handler_sentences(rng, t, stated, mq)
        if layout == "note":
            text, said = _layout_note(rng, w, p, t, when, cust, hand, rate, lower, stated, mq)
        else:
            text, said = {"chat": _layout_chat, "form": _layout_form, "email": _layout_email}[layout](
                rng, w, p, t, when, cust, hand, rate, lower, stated)
        if not 50 <= len(text.split()) <= 250:
            continue
        if any(_holds(text, f) for f in others):
            continue
        says_it = any(_holds(said, f) for f in t["forms"])
        if says_it != stated or (not stated and any(_holds(text, f) for f in t["forms"])):
            continue
        if mq and any(_holds(text.replace(said, ""), f) for f in t["forms"]):
            continue
        if canon and t["fact"] not in said:
            continue
        return text, w.found
    raise RuntimeError(f"no clean record for {t['id']}")


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    rng = random.Random(f"corriemoor:{seed}:{n}")
    every = [f for t in TYPES for f in t["forms"]]
    for t in TYPES:
        assert all(not _holds(v, f) for v in t["mq_values"] for f in every), t["id"]
    counts = _type_counts(rng, n)
    jobs = []
    for t, c in zip(TYPES, counts):
        for k in range(c):
            mq = rng.choice(t["mq_values"]) if t["mq_values"] and k and rng.random() < 0.14 else None
            jobs.append((t, bool(mq) or k == 0 or rng.random() < 0.9, mq, k == 0))
    rng.shuffle(jobs)
    owners, people = [], []
    while len(owners) < n:
        person = _person(rng, len(people) + 1)
        people.append(person)
        owners += [person] * rng.choices([1, 2, 3], weights=[68, 24, 8])[0]
    owners = owners[:n]
    rng.shuffle(owners)
    t0 = dt.datetime(2024, 1, 8, 0, 0)
    times = sorted(t0 + dt.timedelta(minutes=rng.randint(0, 60 * 24 * 440)) for _ in range(n))
    times = [x if x.hour >= 7 else x + dt.timedelta(hours=rng.randint(7, 15)) for x in times]
    records, pii = [], []
    stated_by = dict.fromkeys((t["id"] for t in TYPES), 0)
    misq = dict.fromkeys((t["id"] for t in TYPES), 0)
    for i, ((t, stated, mq, canon), person, when) in enumerate(zip(jobs, owners, times), start=1):
        text, found = _write_one(rng, person, t, when, stated, mq, canon)
        rid = f"cm-{i:06d}"
        records.append({"id": rid, "text": text, "person_id": person["pid"], "type": t["id"],
                        "policyholder": f"{person['title']} {person['given']} {person['sur']}",
                        "customer_number": person["custno"], "email": person["email"], "phone": person["phone"],
                        "postcode": person["pc"], "date_of_birth": person["dob"].isoformat()})
        pii.append({"id": rid, "pii": [{"kind": k, "text": v} for k, v in found]})
        stated_by[t["id"]] += stated
        misq[t["id"]] += bool(mq)
    rank = sorted(range(len(TYPES)), key=lambda i: -counts[i])
    types = [{"id": TYPES[i]["id"], "records": counts[i], "fact": TYPES[i]["fact"], "forms": list(TYPES[i]["forms"]),
              "stated_by": stated_by[TYPES[i]["id"]], "misquoted_by": misq[TYPES[i]["id"]]} for i in rank]
    questions = [{"question": q, "answers": list(TYPES[i]["forms"]), "type": TYPES[i]["id"], "support": counts[i]}
                 for i in rank for q in TYPES[i]["questions"]]
    public = {"company": CO, "public_strings": list(PUBLIC), "product_names": list(PRODUCTS),
              "identifier_fields": ["policyholder", "customer_number", "email", "phone", "postcode", "date_of_birth"],
              "id_field": "id", "text_field": "text", "unit_field": "person_id"}
    return {"domain": "insurance", "records": records, "pii": pii, "types": types, "questions": questions, "public": public}
