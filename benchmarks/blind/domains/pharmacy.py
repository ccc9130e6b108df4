"""Blind own-data domain: patient support at Alderbrook Pharmacy (online + high-street branches).

Each record is one patient contact as the support desk exports it: a web contact form with the team's
reply, an in-app chat, an e-mail exchange (sometimes with the original quoted under the reply) or a
telephone note written up by the dispensary. Everything here is invented. Standard library only.
"""

from __future__ import annotations

import random
import re
import unicodedata

COMPANY = "Alderbrook Pharmacy"
SITE = "www.alderbrookpharmacy.example.com"
HELP_EMAIL = "care@alderbrookpharmacy.example.com"
MAIN_PHONE = "0306 999 0214"
PHARMACIST_LINE = "0808 157 0192"
PRODUCTS = ["Alderbrook Repeat", "Next Day Meds", "MedLocker", "CareBox", "Travel Health Clinic",
            "Ask the Pharmacist", "Alderbrook App", "Repeat Reminder"]

# --------------------------------------------------------------------------------------------- names

# origin -> (given names, female; given names, male; surnames), with a weight. Most people get a given name
# and surname of one origin, some a mix (marriage, adoption, second generation).
ORIGINS = {
    "english": (40, """Olivia Amelia Grace Hope May Rose Faith Joy Dawn Holly Ivy Amber Pearl Daisy Heather Robin Summer
Iris Ruby Jade Sandy Chloe Emily Sophie Charlotte Margaret Jean Sheila Brenda Pauline Janet Gillian Kelly Tracey
Philippa Imogen Harriet Florence Violet Autumn Brooke Skye Willow Poppy Lorraine Doreen Maureen Valerie Deborah
Joanne Nicola Claire Lesley Wendy Denise Carol Kerry Gemma Hayley Jasmine Beverley Sylvia Norma""",
                """Oliver George Harry Jack Noah Leo Mark Will Bill Frank Victor Rich Bob Clay Reed Hunter Chance Dean
Rocky Glen Cliff Earl Ray Art Wade Dale Norman Percy Clement Ambrose Godfrey Terry Colin Darren Wayne Kevin Gary
Derek Nigel Malcolm Keith Barry Graham Stuart Rupert Hugo Jasper Archie Alfie Freddie Stanley Reginald Ernest
Trevor Lee Craig Neil Brian Alan Roger Jake""",
                """Green Brown White Black Rose Hope May King Field Church Wood Hill Stone Hall Bell Cook Baker Fisher
Shepherd Marsh Lamb Fox Bird Swan Young Short Long Little Hart Ward Moss Brook Banks Rivers Sharp Sweet Wise Strong
Frost Snow Winter Day Knight Bishop Mason Potter Weaver Miller Smith Turner Price Page Best Good Hunt Rice Cross
Dean Gold Silver Lord Law Power Peacock Crow Nightingale Sparrow Parsons Chambers Friend Bright Cotton Barley Ash
Birch Oakley Taylor Clarke Wright Walker Robinson Thompson Harris Martin Jackson Wilson Edwards Collins Stevens
Palmer Gardner Sheppard Booth Fletcher Chandler Goodchild Underwood Lightfoot Sugden Ramsbottom Featherstone
Cheeseman Pickles Hollingworth Barlow Whitworth Ogden Marshall Newton Spencer Webb Hodgson Holt"""),
    "celtic": (10, """Siobhan Aoife Niamh Ciara Róisín Mairead Eilidh Morag Catriona Rhiannon Cerys Ffion Bethan Siân
Bridget Orla Bernadette Kirsty Fiona Shona""",
               """Callum Liam Connor Seamus Pádraig Cian Eoin Ewan Hamish Fraser Angus Rhys Dafydd Gareth Iwan Aled
Kieran Declan Ciaran Alistair Lachlan Ruaridh""",
               """Jones Williams Davies Evans Thomas Roberts Hughes Lewis Morgan Griffiths Owen Pritchard Jenkins
MacDonald Campbell Stewart Robertson McLeod Fraser Murray O'Brien O'Connor Murphy Kelly Byrne Doyle Walsh Nolan
Quinn McCarthy Gallagher Ó_Súilleabháin MacAulay Llewellyn Bevan Rees Sweeney"""),
    "south_asian": (14, """Priya Anjali Sunita Harpreet Manpreet Nusrat Farzana Ayesha Fatima Zainab Parveen Rukhsana
Shabana Kavita Meera Divya Lakshmi Noor Sadia Tahmina""",
                    """Rajesh Sanjay Arjun Vikram Gurpreet Harjit Imran Tariq Bilal Omar Yusuf Hamza Mohammed Sunil
Deepak Ravi Ashok Faisal Shahid Nadeem Jaspal Anil Rohan""",
                    """Patel Shah Singh Kaur Sharma Gupta Mistry Chauhan Begum Khan Hussain Ahmed Akhtar Iqbal Chaudhry
Rahman Uddin Ali Malik Mahmood Siddiqui Qureshi Bhatt Joshi Nair Menon Pillai Sandhu Gill Bains Dhillon"""),
    "west_african": (6, """Chiamaka Ngozi Adaeze Folake Abena Ama Efua Blessing Precious Comfort Patience Mercy Funmilayo
Yetunde Akosua""",
                     """Chinedu Emeka Oluwaseun Tunde Kwame Kofi Yaw Kwabena Ikenna Femi Segun Kojo""",
                     """Okafor Adeyemi Okonkwo Balogun Eze Nwosu Mensah Asante Owusu Boateng Osei Acheampong Oyelaran
Adebayo Olawale Nnamdi Danso Appiah"""),
    "east_african": (3, """Wanjiru Amina Hodan Faduma Nyokabi Halima Ayaan""",
                     """Abdi Mohamed Tendai Themba Abdirahman Juma Kipchoge Tafadzwa""",
                     """Mwangi Kamau Otieno Abdullahi Farah Warsame Moyo Ndlovu Hassan Nyambura Odhiambo"""),
    "caribbean": (4, """Shanice Tanisha Keisha Marcia Hyacinth Charity Precious Sonia Paulette""",
                  """Jamal Tyrone Dwayne Delroy Winston Errol Desmond Lloyd Royal Leroy Clive""",
                  """Campbell Clarke Bailey Grant Francis Thompson Samuels Brown Reid Richards Forbes Beckford"""),
    "east_asian": (5, """Mei Xiu Lan Yuki Hana Ji-woo Linh Thuy Min-jung Xiaoling""",
                   """Wei Jun Hiroshi Kenji Min-ho Duc Minh Hao Jae-won Takeshi""",
                   """Chen Wang Li Zhang Liu Wong Lam Cheung Tanaka Sato Kim Park Lee Nguyen Tran Pham Ho Yeung"""),
    "eastern_european": (6, """Agnieszka Katarzyna Magdalena Zofia Ioana Elena Andreea Olena Svetlana Daiva Jurgita""",
                         """Piotr Tomasz Krzysztof Łukasz Andrei Mihai Bogdan Dmytro Sergei Mindaugas Wojciech""",
                         """Kowalski Nowak Wiśniewska Lewandowski Popescu Ionescu Kovalenko Shevchenko Ivanova Horvat
Novak Dimitrov Kazlauskas Zielinska Mazur"""),
    "southern_european": (5, """Maria Ana Lucía Carmen Inês Beatriz Giulia Francesca Chiara Eleni Sofia Dimitra""",
                          """José Javier Carlos Miguel João Tiago Luca Marco Giovanni Nikos Giorgos""",
                          """Santos Silva Pereira Fernandes Garcia Rodriguez Lopez Martinez Rossi Russo Bianchi Esposito
Papadopoulos Georgiou Fonseca D'Souza Pinto Gomes Ferreira"""),
    "middle_eastern": (4, """Mariam Yasmin Leila Amira Zeynep Elif Ayşe Shirin Nadia Rana""",
                       """Karim Mehmet Emre Burak Samir Nasser Mustafa Ibrahim Idris Reza Kaveh""",
                       """Yilmaz Demir Kaya Haddad Khoury Abboud Rahimi Hosseini Aziz Saleh"""),
    "northern_european": (3, """Ingrid Astrid Freya Anneke Sabine Margot""",
                          """Lars Sven Henrik Jürgen Pieter Mathieu""",
                          """Andersen Johansson Müller Schmidt Dubois Moreau Cohen Levi Goldberg de_Vries Jansen"""),
}
ORIGINS = {k: (w, f.split(), m.split(), [x.replace("_", " ") for x in s.split()]) for k, (w, f, m, s) in ORIGINS.items()}
GIVEN_F = [x for v in ORIGINS.values() for x in v[1]]
GIVEN_M = [x for v in ORIGINS.values() for x in v[2]]
SURNAMES = [x for v in ORIGINS.values() for x in v[3]]

# pharmacy staff: (first, last, role)
STAFF = [("Priya", "Chandra", "Pharmacist"), ("Tom", "Beckett", "Dispensary"), ("Hannah", "Lowe", "Pharmacist"),
         ("Siobhan", "Kerr", "Patient Care"), ("Jordan", "Field", "Patient Care"), ("Ahmed", "Rashid", "Pharmacy Technician"),
         ("Grace", "Obi", "Pharmacist"), ("Marcus", "Hill", "Dispensary"), ("Leanne", "Pryce", "Patient Care"),
         ("Wojciech", "Zielinski", "Pharmacy Technician"), ("Fiona", "MacAskill", "Pharmacist"), ("Dev", "Mistry", "Patient Care"),
         ("Amy", "Stone", "Patient Care"), ("Rob", "Church", "Dispensary"), ("Yetunde", "Bakare", "Pharmacist"),
         ("Kirsty", "Ng", "Patient Care"), ("Sam", "Hope", "Dispensary"), ("Nasreen", "Akhtar", "Pharmacist"),
         ("Owen", "Parry", "Patient Care"), ("Lucy", "Bell", "Pharmacy Technician"), ("Imran", "Sheikh", "Dispensary"),
         ("Becky", "Marsh", "Patient Care"), ("Chidi", "Okoro", "Pharmacist"), ("Ellie", "Green", "Patient Care")]

RELATIONS = [("husband", "M"), ("wife", "F"), ("partner", "X"), ("son", "M"), ("daughter", "F"), ("mum", "F"),
             ("dad", "M"), ("neighbour", "X"), ("carer", "X"), ("sister", "F"), ("brother", "M"), ("friend", "X")]

SURGERIES = ["Riverside Surgery", "Beechwood Medical Centre", "Kingsmead Health Centre", "The Old Mill Practice",
             "Parkview Surgery", "Northgate Medical Practice", "Lime Tree Surgery", "Castle Street Surgery",
             "Hollybank Health Centre", "St Anne's Medical Group"]

MEDS = ["sertraline 50mg", "levothyroxine 100mcg", "amlodipine 5mg", "omeprazole 20mg", "ramipril 2.5mg",
        "atorvastatin 40mg", "metformin 500mg", "salbutamol inhaler", "Fostair inhaler", "lansoprazole",
        "citalopram", "bisoprolol 2.5mg", "mirtazapine", "propranolol 10mg", "the contraceptive pill", "HRT patches",
        "Estradot patches", "folic acid", "apixaban", "co-codamol 30/500", "naproxen", "gabapentin", "insulin pens",
        "my eye drops", "Epipens", "montelukast", "fluoxetine 20mg", "losartan", "furosemide", "warfarin"]
CD_MEDS = ["methylphenidate", "Elvanse", "Concerta XL", "pregabalin", "oxycodone", "morphine sulfate tablets",
           "diazepam", "zopiclone", "tramadol", "buprenorphine patches", "lisdexamfetamine", "temazepam"]
DESTINATIONS = ["Kenya", "Thailand", "Peru", "Ghana", "Vietnam", "India", "Tanzania", "Brazil", "Nigeria",
                "Cambodia", "Uganda", "Colombia", "Sri Lanka", "Bali", "Morocco", "Nepal", "the Gambia"]

STREETS = ["Elm Road", "Kingsway", "Broadway", "The Crescent", "Station Road", "Church Street", "Mill Lane",
           "Victoria Road", "Queens Drive", "Highfield", "Meadowbank", "Northgate", "Albert Terrace", "Orchard Close",
           "Brook Street", "Cedar Avenue", "Wellington Road", "Park View", "Beech Grove", "The Paddocks",
           "Sandringham Gardens", "Ash Walk", "Westway", "Parkside", "Fairholme", "Moorside", "Greenacres",
           "Chapel Row", "Hawthorn Drive", "Lark Rise", "Cromwell Street", "Belgrave Road", "Tennyson Avenue",
           "Whitehall Rise", "Ferndale", "Coppice Way", "Nelson Street", "Pendle View", "Stanley Road", "Bankside"]
BUILDINGS = ["Marlow Court", "Kestrel House", "Riverside Apartments", "Albion Mews", "Weavers Yard",
             "Jubilee Court", "Canal Wharf", "Sovereign House", "Oak Lodge", "Millbrook House"]
HOUSE_NAMES = ["Rose Cottage", "The Laurels", "Hillcrest", "Old School House", "Ty Gwyn", "Windrush"]
TOWNS = ["Leeds", "Bradford", "Croydon", "Salford", "Swansea", "Dundee", "Luton", "Preston", "Ipswich", "Norwich",
         "Wakefield", "Harrogate", "Bolton", "Reading", "Exeter", "Stoke", "Cardiff", "Derby", "Gateshead", "Hull"]
PC_AREAS = ("LS BD M B BS CF EH G NE SW SE N E W NW L S NG LE CV OX RG PL EX BN CB NR YO HU DN SK WA PR BB HX HD "
            "DE ST WV TF SY LL SA NP AB DD KY PH IV TR TA BA GL HR WR NN MK LU AL SG CM CO IP SS CT ME TN RH GU "
            "PO SO BH SP DT SN").split()
PC_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"

# --------------------------------------------------------------------------------------------- types

TYPES = [
    dict(id="repeat_order_timing", w=80, fact="7 days", forms=["7 days", "seven days", "one week"],
         topic="Repeat prescriptions",
         subjects=["Repeat prescription", "ran out again", "repeat not ready", "When to reorder?", "repeat meds"],
         questions=["How early should I put in my repeat prescription order?",
                    "How long before my tablets run out do I need to request a repeat?",
                    "When should I reorder my regular medication so it arrives in time?"],
         stories=["I've been on {med} for years and this month I actually ran out because the repeat didn't come through in time.",
                  "My {relrole} {rel} gets {med} on repeat every month and we're never sure when to order it.",
                  "Ordered my {med} last night through the app and it says it won't be ready till next week, I've only got 3 left.",
                  "I've just moved my prescriptions over to you from my old chemist, my GP is {gp} at {surgery}.",
                  "I signed up to Repeat Reminder but the reminder seemed to come far too late for me.",
                  "I put the request in on {odate} and it still says 'with your GP'.",
                  "Second month running I've been left short of my {med}, had to beg the surgery for an emergency supply.",
                  "I'm going away soon and want to make sure my {med} is sorted before I go.",
                  "The surgery says they sent it over on {odate} but your app still shows nothing for my {med}.",
                  "I look after my {relrole} {rel}'s medicines as well as my own and the dates never line up.",
                  "I got an email saying my {med} was 'requested' but then nothing, I'm down to the last strip.",
                  "Every month it's a panic with my {med}, I'd like to get into a proper routine.",
                  "Since the surgery changed to online requests I keep getting the timing wrong.",
                  "My {med} and my {relrole}'s come on different days, which is a pain."],
         asks=["How far ahead do I need to order so this doesn't keep happening?",
               "when is the best time to request the next one?",
               "How many days before I run out should I be ordering?",
               "Is there a cut off for ordering repeats so they arrive on time?",
               "what's the earliest I'm supposed to order it?"],
         answers=["Please request your repeat at least {f} before you're due to run out - that gives the surgery time to sign it off and us time to dispense and post it.",
                  "We recommend ordering {f} before your last dose so there's no gap.",
                  "The safest window is {f} ahead of your supply finishing; surgeries vary in how quickly they approve requests.",
                  "If you put the request in {f} before you run out it should reach you in plenty of time."],
         extras=["You can switch on Repeat Reminder in the Alderbrook App so it nudges you at the right point.",
                 "I can see your GP approved the latest request this morning and it's now in the dispensary queue.",
                 "If you're ever left without, any of our branches can do an emergency supply for most medicines.",
                 "I've added a note to your record so the team keeps an eye on this one."],
         misquotes=["5 days", "10 days", "a couple of days", "the day before"]),
    dict(id="standard_delivery_time", w=64, fact="3 working days",
         forms=["3 working days", "three working days", "3 business days", "three business days"],
         topic="Delivery",
         subjects=["Where is my order", "delivery?", "Order not arrived", "How long for delivery", "still waiting"],
         questions=["How long does standard delivery take once my prescription is sent out?",
                    "If I pick the normal postage option, when will my medicine get here?",
                    "What's the usual wait for a standard delivery of my prescription?"],
         stories=["My order {order} was dispatched on {odate} and nothing has turned up yet.",
                  "I'm waiting on {med} for my {relrole} {rel} and she's nearly out.",
                  "The app just says 'dispatched' with no date on it.",
                  "I chose the free delivery when I ordered but I've no idea when it actually comes.",
                  "Tracking hasn't updated since it left you, order ref {order}.",
                  "Last time my parcel came really quickly, this time it's been a while.",
                  "I'm working from home most of this week so want to make sure I'm in for it.",
                  "Paid £9.40 postage on {odate} thinking it'd be quicker, still waiting.",
                  "My {relrole} {rel} is housebound and relies on the post for the {med}.",
                  "Got the 'your order is on its way' email {odate} but no sign of the postman.",
                  "It's my first order with Alderbrook, used to get my {med} from the supermarket pharmacy."],
         asks=["How long does standard delivery normally take?",
               "when should I expect it?",
               "How long is standard post supposed to be??",
               "is there any way to know when it will come?",
               "Can you tell me how long the normal delivery takes please"],
         answers=["Standard tracked delivery takes {f} from the day your order is dispatched.",
                  "Once an order leaves us, standard delivery is usually {f}.",
                  "Our standard service aims to get to you within {f} of dispatch (weekends and bank holidays don't count).",
                  "With the standard option please allow {f} after the dispatch email."],
         extras=["If it's urgent next time, Next Day Meds is available at checkout.",
                 "Your parcel was handed to the courier yesterday afternoon.",
                 "I've checked the courier's system and it's showing as in transit in your area.",
                 "If it still hasn't arrived after that, reply here and we'll chase it straight away."],
         misquotes=["next day", "2 working days", "5 working days", "within 24 hrs"]),
    dict(id="prescription_charge", w=52, fact="£9.90",
         forms=["£9.90", "9.90", "GBP 9.90", "£9.90 per item", "nine pounds ninety", "9 pounds 90"],
         topic="Prescription charges",
         subjects=["charge for my prescription", "NHS charge", "How much per item", "paying for prescription"],
         questions=["What's the NHS charge for each item on a prescription?",
                    "How much will I pay per medicine on my prescription if I'm not exempt?",
                    "What does one prescription item cost in England?"],
         stories=["I've just turned off my exemption because I'm back at work and I've never actually paid for a prescription before.",
                  "I was charged £19.80 for my last order and I wasn't expecting it.",
                  "My {relrole} {rel} has 4 items on repeat and we're trying to work out the cost.",
                  "I'm 59 so I still pay for mine, just want to budget for the year.",
                  "First time using your online service, the checkout shows a charge but I wanted to check.",
                  "My HRT used to be one charge and now it seems to be two?",
                  "I was charged twice for order {order}, can the extra go back to my bank? sort code {sortcode} account {acct}.",
                  "I paid for prescription {rx} online, then realised I'd never checked what the charge actually is."],
         asks=["How much is it per item now?",
               "what do I pay for each item?",
               "Is the charge per item or per prescription, and how much?",
               "can you confirm the current prescription charge"],
         answers=["The NHS prescription charge in England is {f} for each item.",
                  "It's {f} per item on the prescription unless you're exempt or have a prepayment certificate.",
                  "Each item costs {f} (this is the national NHS charge, we don't set it).",
                  "You'll be charged {f} for every item dispensed."],
         extras=["If you have more than a few items a month, a Prescription Prepayment Certificate may save you money.",
                 "Contraception is always free, so that one won't be charged.",
                 "You can update your exemption status in the Alderbrook App before your next order.",
                 "I've checked your last order and both items were charged correctly."],
         misquotes=["£9.65", "£9.35", "£8.60", "£10"]),
    dict(id="pharmacist_advice_line", w=43, fact=PHARMACIST_LINE,
         forms=[PHARMACIST_LINE, "0808 1570192", "08081570192"],
         topic="Medicines advice",
         subjects=["side effects question", "can I take these together", "Speak to a pharmacist", "advice please"],
         questions=["What number can I ring to speak to one of your pharmacists?",
                    "Is there a phone line for advice about side effects or mixing medicines?",
                    "How do I get hold of a pharmacist by phone?"],
         stories=["I started {med} on Monday and I've been feeling dizzy and a bit sick since.",
                  "Can I take ibuprofen with my {med}? My back is killing me.",
                  "I missed two doses of {med} while I was away and don't know whether to double up.",
                  "My {relrole} {rel} has come out in a rash since starting the new tablets.",
                  "I'm 8 weeks pregnant and currently on {med}, GP appointment isn't till next month.",
                  "{gp} changed my dose of {med} but the label on the box says something different.",
                  "I've been prescribed {med} and also take St John's Wort, is that OK?",
                  "The tablets in my last delivery look a different colour to usual ({med}).",
                  "I've been getting headaches every afternoon since the dose of {med} went up.",
                  "Can I drink alcohol at a wedding on Saturday while taking {med}?"],
         asks=["Is there a number I can ring to talk to a pharmacist?",
               "can I speak to someone on the phone about this?",
               "Who can I call for advice?",
               "is there a pharmacist I can phone"],
         answers=["Please call our pharmacist advice line on {f} and one of our pharmacists will talk it through with you.",
                  "The best thing is to ring {f} - it's free and goes straight to a pharmacist.",
                  "You can speak to a pharmacist directly on {f} (8am-8pm Mon-Sat).",
                  "For anything like this, our pharmacists are on {f}."],
         extras=["If you feel very unwell or have any swelling of the face or throat please call 999 straight away.",
                 "Have your medicine boxes to hand when you ring so the pharmacist can check the strengths.",
                 "Outside those hours NHS 111 can help.",
                 "Please don't stop taking anything until you've spoken to a pharmacist or your GP."],
         misquotes=["0808 157 0129", "0800 157 0192", "0808 175 0192"]),
    dict(id="controlled_drug_collection", w=35, fact="28 days",
         forms=["28 days", "twenty-eight days", "4 weeks", "four weeks"],
         topic="Controlled drugs",
         subjects=["collecting controlled medication", "CD prescription", "can my son collect", "Prescription expired?"],
         questions=["How long do I have to pick up a controlled drug prescription before it runs out?",
                    "My prescription is for a controlled medicine, how long is it valid for collection?",
                    "When does a prescription for something like morphine or ADHD medication expire if I don't collect it?"],
         stories=["My {cdmed} prescription is waiting at the branch but I'm stuck in hospital at the moment.",
                  "Can my {relrole} {rel} collect my {cdmed} for me? I can't get there this week.",
                  "The GP issued my {cdmed} script on {odate} and I haven't been able to pick it up yet.",
                  "I went in to collect {cdmed} and was told I needed ID, which I didn't have on me.",
                  "My {relrole} will be picking up for me in the car, reg {plate} - can they use the drive-thru?"],
         asks=["How long have I got before it expires?",
               "is there a time limit on collecting it?",
               "How long will it be valid for?",
               "will it still be ok if I collect it next week?"],
         answers=["Prescriptions for controlled drugs are only valid for {f} from the date on the prescription, so it needs collecting within that time.",
                  "A controlled drug prescription can be collected up to {f} after the date it was written.",
                  "By law we can only supply controlled drugs within {f} of the prescription date.",
                  "You have {f} from the prescription date - after that the GP would have to issue a new one."],
         extras=["Whoever collects will need photo ID and will be asked to sign the back of the prescription.",
                 "We can't deliver some controlled drugs to a locker, so it will be a branch collection.",
                 "I've put a note on the bag so the branch knows someone else is collecting.",
                 "If it does run out, the surgery will need to issue a new prescription."],
         misquotes=["6 months", "30 days", "60 days", "a month"]),
    dict(id="exemption_refund", w=29, fact="3 months", forms=["3 months", "three months", "90 days"],
         topic="Exemptions & refunds",
         subjects=["refund - I'm exempt", "Exemption certificate arrived late", "paid when I shouldn't have",
                   "FP57 refund"],
         questions=["I paid for a prescription but I'm actually exempt, how long have I got to claim the money back?",
                    "What's the deadline for getting a prescription charge refunded once my exemption certificate arrives?"],
         stories=["I paid for my prescriptions while I was waiting for my maternity exemption certificate to arrive.",
                  "My medical exemption certificate came through last week, number {exempt}, but I'd already paid for two items.",
                  "I'm on Universal Credit and got charged, my NI number is {ni} if that helps.",
                  "I lost my exemption certificate and ended up paying, I've found it now.",
                  "I paid £29.70 at your {town} branch before my certificate arrived.",
                  "My prepayment certificate {exempt} started on {odate} but the order before it was charged. Bank for any refund: {iban}.",
                  "I had a maternity exemption (cert no. {exempt}) but the delivery driver took payment on my card ending {card}."],
         asks=["Can I get a refund and how long do I have?",
               "is there a deadline for claiming it back?",
               "How long have I got to sort the refund out?",
               "what's the time limit on getting my money back?"],
         answers=["Ask for an FP57 refund receipt when you pay and claim within {f} of the date you paid.",
                  "You have {f} from paying to claim the refund using your FP57 receipt.",
                  "Refund claims must be made within {f} of the charge, and you'll need the FP57 receipt we gave you.",
                  "As long as you claim within {f} of paying, the NHS will refund the charge."],
         extras=["I've emailed you a copy of the FP57 from your order.",
                 "The refund comes from the NHS Business Services Authority rather than from us.",
                 "Please update your exemption in your account so future orders aren't charged.",
                 "Your branch can print a duplicate receipt if you've lost the original."],
         misquotes=["6 months", "30 days", "a year"]),
    dict(id="travel_vaccine_timing", w=24, fact="6 weeks", forms=["6 weeks", "six weeks", "42 days"],
         topic="Travel Health Clinic",
         subjects=["travel jabs", "Vaccines for my trip", "booking travel vaccines", "yellow fever"],
         questions=["How far before my trip should I book travel jabs?",
                    "When do I need to get vaccinated before going abroad?",
                    "How long before departure should I arrange my travel vaccinations?"],
         stories=["We're going to {dest} on {odate} and I've no idea which jabs we need.",
                  "I'm off to {dest} with my {relrole} {rel} for a month in the spring.",
                  "I need a yellow fever certificate for {dest}, passport number is {passport} if you need it for the certificate.",
                  "Booked a last-minute trip to {dest}, we fly out the week after next.",
                  "My work is sending me to {dest} later this year."],
         asks=["How far in advance should we book the Travel Health Clinic?",
               "when do I need to have the vaccines by?",
               "How long before I go should I come in?",
               "Am I leaving it too late?"],
         answers=["Ideally book your Travel Health Clinic appointment at least {f} before you travel, as some vaccines need more than one dose.",
                  "We advise coming in {f} before departure so the vaccines have time to work.",
                  "Try to have your appointment no later than {f} before you fly.",
                  "The recommendation is {f} before travel, though we can still help closer to the date."],
         extras=["You can book online and the pharmacist will go through your itinerary with you.",
                 "Bring your passport and any vaccination records to the appointment.",
                 "Some courses, like rabies, are three doses spread over a few weeks.",
                 "Malaria tablets can be supplied at the same appointment."],
         misquotes=["10 days", "3 weeks", "a month"]),
    dict(id="missing_parcel_report", w=20, fact="48 hours", forms=["48 hours", "forty-eight hours", "two days"],
         topic="Missing parcel",
         subjects=["parcel says delivered but isn't", "Missing parcel", "lost delivery", "not received"],
         questions=["My parcel says delivered but it's not here, how soon do I have to tell you?",
                    "How long after a 'delivered' scan can I still report a missing medicine parcel?"],
         stories=["The tracking says delivered ({trackurl}) but there's nothing here.",
                  "Courier claims it was left in a safe place, I've looked everywhere.",
                  "Tracking number {track} shows delivered at 14:02 yesterday but I was home all day.",
                  "I think it's been left with a neighbour but nobody has it.",
                  "My {relrole} {rel} says nothing came and it was their inhalers.",
                  "Order {order} - the link you sent ({trackurl}) shows a photo of someone else's door."],
         asks=["How long do I have to report it?",
               "is it too late to report this?",
               "What's the time limit for telling you it's missing?",
               "what do I do now?"],
         answers=["Missing parcels need to be reported to us within {f} of the delivered scan so we can open a claim with the courier.",
                  "Please let us know within {f} of it being marked delivered.",
                  "The courier only accepts claims raised within {f} of delivery, so you've done the right thing getting in touch.",
                  "We need to hear from you within {f} of the delivery scan."],
         extras=["I've raised a claim and we'll send a replacement free of charge.",
                 "The courier's photo shows a blue front door - does that match yours?",
                 "Controlled drugs can't be replaced this way, so we'll need to speak to your GP.",
                 "It's worth checking bins and porches, couriers do sometimes hide parcels."],
         misquotes=["5 days", "a month", "10 working days"]),
    dict(id="next_day_price", w=16, fact="£4.95",
         forms=["£4.95", "4.95", "GBP 4.95", "four pounds ninety-five", "£4.95 per order"],
         topic="Delivery options",
         subjects=["next day delivery cost", "Next Day Meds", "express delivery"],
         questions=["How much extra is next-day delivery for my medicine?",
                    "What do you charge for the express option?"],
         stories=["I need my {med} quickly this time as I forgot to order.",
                  "I'm flying out on {odate} and need the parcel before then.",
                  "Saw the Next Day Meds option but it didn't show a price on my phone."],
         asks=["How much is Next Day Meds?",
               "what does next day delivery cost?",
               "how much do you charge to get it tomorrow?"],
         answers=["Next Day Meds costs {f} if you order before 2pm on a weekday.",
                  "It's {f} for next-day delivery.",
                  "The Next Day Meds charge is {f}, added at checkout."],
         extras=["Orders after 2pm on Friday arrive on Monday.",
                 "It's tracked, and you'll get a one-hour delivery window by text.",
                 "Your prescription still needs to be approved by the GP first."],
         misquotes=["£3.95", "£5.99", "£2.50"]),
    dict(id="travel_consultation_fee", w=13, fact="£25",
         forms=["£25", "GBP 25", "25 pounds", "twenty-five pounds", "£25.00"],
         topic="Travel Health Clinic",
         subjects=["travel clinic cost", "consultation fee", "price of travel appointment"],
         questions=["Is there a fee for the travel health appointment itself?",
                    "What does the travel clinic consultation cost before any vaccines?"],
         stories=["Thinking of booking the Travel Health Clinic for me and my {relrole} {rel} before {dest}.",
                  "I only need advice about {dest}, probably no jabs.",
                  "My GP surgery doesn't do travel vaccines anymore and sent me to you."],
         asks=["How much is the consultation?",
               "is there a charge just for the appointment?",
               "What's the fee before vaccines?"],
         answers=["The Travel Health Clinic consultation is {f} per person, and that's deducted if you go ahead with any vaccines.",
                  "There's a {f} consultation fee, which comes off your vaccine cost.",
                  "The appointment costs {f} per traveller."],
         extras=["Some vaccines such as hepatitis A are free on the NHS through your GP.",
                 "Vaccine prices are listed on the clinic page once you pick your destination."],
         misquotes=["£40", "£15", "£20"]),
    dict(id="medlocker_hold_time", w=10, fact="72 hours",
         forms=["72 hours", "seventy-two hours", "3 days", "three days"],
         topic="MedLocker",
         subjects=["MedLocker code", "locker collection", "how long in the locker"],
         questions=["How long will my order stay in the collection locker?",
                    "If I can't get to the MedLocker straight away, how long is it kept for me?"],
         stories=["Got a text saying my order is in the MedLocker at the {town} branch but I'm working late.",
                  "My locker code came through but I'm away till the weekend.",
                  "My {relrole} {rel} usually grabs it from the locker for me."],
         asks=["How long will it be kept there?",
               "how long before it goes back?",
               "Will it still be there at the weekend?"],
         answers=["Items stay in the MedLocker for {f} from the time you get your collection code.",
                  "We hold orders in the locker for {f}; after that they go back to the dispensary.",
                  "You've got {f} to collect before it's returned to the branch."],
         extras=["If you miss it, the branch team can get it out for you during opening hours.",
                 "You can forward the code to someone else to collect."],
         misquotes=["5 days", "a week"]),
    dict(id="carebox_change_notice", w=8, fact="14 days",
         forms=["14 days", "fourteen days", "two weeks", "2 weeks", "a fortnight"],
         topic="CareBox",
         subjects=["CareBox change", "dosette box changes", "new tablets in my CareBox"],
         questions=["How much notice do you need to change what's in my CareBox?",
                    "If my GP changes my tablets, how soon before the next pack do I need to tell you?"],
         stories=["{gp} has stopped one of my {relrole}'s tablets and added {med}.",
                  "Mum's CareBox still has the old {med} in it after the hospital changed things.",
                  "I've been discharged with new medication and my CareBox needs updating."],
         asks=["How much notice do you need?",
               "when do I need to tell you by?",
               "will the next box be right?"],
         answers=["We need {f} notice to change a CareBox, as each one is prepared and checked in advance.",
                  "Please give us {f} before the next box is due for any changes.",
                  "Changes need {f} notice so the pharmacist can re-check the whole pack."],
         extras=["I've flagged the change to the pharmacist checking your next pack."],
         misquotes=["5 days", "a month"]),
    dict(id="nomination_change", w=6, fact="24 hours", forms=["24 hours", "twenty-four hours", "1 day"],
         topic="Nominating Alderbrook",
         subjects=["nominate you as my pharmacy", "changing pharmacy", "nomination"],
         questions=["How long does it take for my nomination to switch to you?",
                    "After I nominate you as my pharmacy, when will my GP's prescriptions start coming through?"],
         stories=["I've just nominated you in the NHS app instead of my local chemist.",
                  "I want my prescriptions from {surgery} to come to you now."],
         asks=["How long until it takes effect?",
               "when will it switch over?"],
         answers=["A nomination change normally updates on the NHS system within {f}.",
                  "It usually takes {f} for the nomination to go through."],
         extras=["Any prescription already sent to your old pharmacy will stay there."],
         misquotes=["a week", "5 days"]),
]

# --------------------------------------------------------------------------------------------- text bits

CUST_HELLO = ["Hi", "Hello", "Good morning", "Dear Alderbrook", "Hi there", "To whom it may concern,", "", "", "Hiya",
              "Morning,", "Dear Sir/Madam", "Hello team", "Afternoon", "hi"]
CUST_BYE = ["Thanks", "Many thanks", "Regards", "Cheers", "thank you", "Kind regards", "Best wishes",
            "Thanks in advance", "", "Ta", "Thanks again", "Much appreciated"]
IDENT = ["My date of birth is {dob} if you need it.", "Prescription no. {rx}", "order link: {orderurl}",
         "the token on my paper script says {rx}.", "My prepayment cert is {exempt}.", "DOB {dob}, NHS no {nhs}.", "It's under {name}, dob {dob}.",
         "My details: {name}, {addr}, {pc}.", "You can call me on {phone} if easier.", "Order number {order}.",
         "my account ref is {ref}", "email is {email} in case it matters", "Address is {addr} {pc} (same as always).",
         "Mob: {phone}", "NHS number {nhs}", "born {dob}", "I'm at {addr}, {pc}.", "ref {ref}",
         "You can reach me at {email} or {phone}.", "the order was {order}, paid with my card ending {card}",
         "(it's {name}, {dob})", "Postcode {pc}."]
MISQ = ["I was told {mq} by someone at the branch.", "Your website said {mq}?", "A friend said it's {mq}, is that right?",
        "Last time someone told me {mq}.", "I thought it was {mq}.", "The leaflet in my bag said {mq} I think."]
CORRECT = ["Just to correct what you were told - it isn't {mq}.", "I'm sorry for the confusion, but {mq} isn't right.",
           "That information was out of date I'm afraid.", "Apologies, you were given the wrong information there."]
AGENT_EMPATHY = ["Thanks for your message.", "Sorry to hear you've had trouble with this.",
                 "Thanks for bearing with us.", "Thanks for getting in touch with Alderbrook.",
                 "Good question, and thanks for checking with us first.", "Sorry for the slow reply.", "",
                 "Thanks for the detail, that really helps.", "", "Thanks for letting us know."]
EMPATHY_ORDER = ["I'm sorry your medication hasn't been straightforward this month - I know how worrying that is.",
                 "Apologies for the worry this has caused.", "Sorry you've been left waiting."]
ASIDES = ["Sorry if this is the wrong place to ask.", "I tried ringing but was on hold for ages.",
          "I'm housebound so I rely on you delivering.", "Your app keeps logging me out btw.",
          "My {relrole} normally deals with all this.", "I'm not very good with computers so bear with me.",
          "This is the second time I've written.", "I did try the FAQs first.", "Really appreciate your help.",
          "I'm on nights this week so email is best.", "I'm writing from my {relrole}'s phone.",
          "Sorry for the long message!", "(I'm registered at {surgery} if that matters.)"]
ASK_MORE = ["Before I can look into this, could you confirm your date of birth and the postcode on your account?",
            "I can't find an account under this email address - could you send your full name and date of birth so I can locate you?",
            "Could you tell me the order number or the name of the medicine so I can check this for you?",
            "I'll need to check a couple of things with the dispensary first. Can you confirm the best number to reach you on?",
            "Could you let me know which branch you usually use? I'll come back to you as soon as I have an answer."]
ECHO_ORDER = ["I can see order {order} on your account.", "I've updated your mobile to {phone}.",
              "I've checked and we're delivering to {addr}, {pc}.", "Your order {order} is showing as dispatched.",
              "We'll text updates to {phone}."]
ECHO = ["I've found your record ({ref}).", "Thanks, I've matched you using your date of birth.",
        "We'll send confirmation to {email}.", "I've updated your mobile to {phone}.",
        "I've added a note to your patient record ({ref})."]
CLOSE = ["If there's anything else, just reply to this message.", "Take care,", "Best wishes,", "Kind regards,",
         "Hope that helps.", "Any problems, let us know.", "Speak soon,", "Thanks,"]
FOLLOW_UPS = [("ok thanks, can my {relrole} {rel} collect it instead?", "Yes, that's fine - just make sure they bring ID."),
              ("Brilliant, thank you!", "You're welcome, take care."),
              ("ok. and what if I'm not in?", "The courier will leave a card and try again the next working day."),
              ("thanks - is the {town} branch open on Sunday?", "It is, 10 till 4. Opening hours are on the branch page too."),
              ("great, can you text me on {phone} when it's ready", "Yes, I've added that number to your account."),
              ("does that include bank holidays?", "No, bank holidays aren't counted."),
              ("Sorry one more thing, can I change my address to {addr}?", "Done - I've updated it for your next order.")]

TYPOS = {"received": "recieved", "definitely": "definately", "prescription": "perscription", "tomorrow": "tommorow",
         "pharmacy": "pharmacey", "because": "becuase", "until": "untill", "which": "wich", "thanks": "thnks",
         "appointment": "appointmant", "medication": "medicaton", "delivery": "delivary", "separate": "seperate",
         "collect": "colect", "tablets": "tablest", "actually": "acutally", "know": "kno", "the": "teh",
         "really": "realy", "there": "their", "collection": "collectoin", "because.": "cos.", "before": "befor"}


# --------------------------------------------------------------------------------------------- helpers

def _ascii(s: str) -> str:
    s = s.translate(str.maketrans({"Ł": "L", "ł": "l", "ø": "o", "Ø": "O", "ß": "ss", "'": "", "-": ""}))
    return "".join(c for c in unicodedata.normalize("NFKD", s) if c.isalnum() and ord(c) < 128).lower()


def _nhs(rng: random.Random) -> str:
    while True:
        d = [9, 9, 9] + [rng.randint(0, 9) for _ in range(6)]
        check = 11 - sum(x * (10 - i) for i, x in enumerate(d)) % 11
        if check == 11:
            check = 0
        if check != 10:
            return "".join(map(str, d)) + str(check)


def _ni(rng: random.Random) -> str:
    first, second = "ABCEGHJKLMNOPRSTWXYZ", "ABCEGHJKLMNPRSTWXYZ"
    while True:
        p = rng.choice(first) + rng.choice(second)
        if p not in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}:
            return p + "".join(str(rng.randint(0, 9)) for _ in range(6)) + rng.choice("ABCD")


def _postcode(rng: random.Random) -> str:
    area = rng.choice(PC_AREAS)
    district = str(rng.randint(1, 29 if len(area) == 2 else 20))
    if rng.random() < 0.08 and len(area) == 1:
        district += rng.choice("ABCEHNW")
    return f"{area}{district} {rng.randint(1, 9)}{rng.choice(PC_LETTERS)}{rng.choice(PC_LETTERS)}"


def _address(rng: random.Random) -> str:
    r = rng.random()
    street = rng.choice(STREETS)
    if r < 0.16:
        return f"Flat {rng.randint(1, 40)}{rng.choice(['', '', 'a', 'b'])}, {rng.randint(1, 120)} {rng.choice(BUILDINGS)}"
    if r < 0.24:
        return f"Flat {rng.randint(1, 9)}, {rng.randint(2, 200)} {street}"
    if r < 0.29:
        return f"{rng.choice(HOUSE_NAMES)}, {street}"
    if r < 0.37:
        return f"{rng.randint(1, 99)}{rng.choice('abc')} {street}"
    return f"{rng.randint(1, 240)} {street}"


def _phone(rng: random.Random) -> str:
    if rng.random() < 0.8:
        return f"07700900{rng.randint(0, 999):03d}"
    return f"0207946{rng.randint(0, 999):04d}"


def _last4(rng: random.Random) -> str:
    return f"{rng.randint(0, 9999):04d}"


def _name_pick(rng: random.Random) -> tuple[str, str, str]:
    keys = list(ORIGINS)
    origin = rng.choices(keys, [ORIGINS[k][0] for k in keys])[0]
    sex = rng.choice("FM")
    _, fem, mal, sur = ORIGINS[origin]
    if rng.random() < 0.15:  # given name and surname of different origins
        _, fem, mal, _ = ORIGINS[rng.choice(keys)]
    first = rng.choice(fem if sex == "F" else mal)
    last = rng.choice(sur)
    if rng.random() < 0.04:
        last = f"{last}-{rng.choice(SURNAMES)}"
    return first, last, sex


class Person:
    def __init__(self, rng: random.Random, pid: str):
        self.pid = pid
        self.first, self.last, self.sex = _name_pick(rng)
        self.title = rng.choice(["Mr"] if self.sex == "M" else ["Mrs", "Ms", "Miss", "Mrs"])
        if rng.random() < 0.04:
            self.title = "Dr"
        y, m, d = rng.randint(1934, 2005), rng.randint(1, 12), rng.randint(1, 28)
        self.dob = (y, m, d)
        self.nhs = _nhs(rng)
        self.ni = _ni(rng)
        self.phone = _phone(rng)
        a, b = _ascii(self.first), _ascii(self.last)
        pat = rng.randrange(7)
        local = [f"{a}.{b}", f"{a[0]}{b}{y % 100:02d}", f"{b}{a[0]}", f"{a}{rng.randint(1, 999)}", f"{a}_{b}_{m}",
                 f"{a}{b}", f"{b}.{a}{rng.randint(1, 99)}"][pat]
        self.email = f"{local}@{rng.choice(['example.com', 'example.org', 'example.net', 'example.com'])}"
        self.address = _address(rng)
        self.town = rng.choice(TOWNS)
        self.postcode = _postcode(rng)
        self.ref = f"ALD-{rng.randint(1000000, 9999999)}"
        self.card = _last4(rng)
        self.lower = rng.random() < 0.09  # writes everything in lower case

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


def _dob_text(rng: random.Random, dob: tuple[int, int, int]) -> str:
    y, m, d = dob
    suffix = "th" if 11 <= d <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    return rng.choice([f"{d:02d}/{m:02d}/{y}", f"{d}/{m}/{y % 100:02d}", f"{d}.{m}.{y}", f"{d}{suffix} {MONTHS[m - 1]} {y}",
                       f"{d} {MONTHS[m - 1][:3]} {y}", f"{MONTHS[m - 1]} {d} {y}", f"{d:02d}-{m:02d}-{y}",
                       f"{d}/{m}/{y}"])


def _phone_text(rng: random.Random, p: str) -> str:
    if p.startswith("07"):
        a, b = p[:5], p[5:]
        return rng.choice([f"{a} {b}", f"{a} {b[:3]} {b[3:]}", p, f"+44 {a[1:]} {b}", f"+44{p[1:]}",
                           f"{p[:4]} {p[4:7]} {p[7:]}", f"({a}) {b}", f"{a}-{b[:3]}-{b[3:]}"])
    return rng.choice([f"{p[:3]} {p[3:7]} {p[7:]}", f"{p[:4]} {p[4:7]} {p[7:]}", f"({p[:3]}) {p[3:7]} {p[7:]}",
                       f"+44 {p[1:3]} {p[3:7]} {p[7:]}", p])


def _typo(rng: random.Random, text: str, rate: float) -> str:
    def one(m: re.Match) -> str:
        w = m.group(0)
        if rng.random() >= rate:
            return w
        low = w.lower()
        if low in TYPOS:
            return TYPOS[low]
        if len(w) > 4 and w.isalpha():
            i = rng.randrange(1, len(w) - 2)
            k = rng.randrange(3)
            if k == 0:
                return w[:i] + w[i + 1] + w[i] + w[i + 2:]
            if k == 1:
                return w[:i] + w[i + 1:]
            return w[:i] + w[i] + w[i:]
        return w
    return re.sub(r"[A-Za-z]+\.?", one, text)


SLOT = re.compile(r"\{(\w+)\}")


class Builder:
    """One record's text, with every personal string it writes."""

    def __init__(self, rng: random.Random, person: Person, staff: tuple[str, str, str]):
        self.rng, self.p, self.staff = rng, person, staff
        self.pii: list[tuple[str, str]] = []
        self.cache: dict[str, str] = {}

    def add(self, kind: str, s: str) -> str:
        self.pii.append((kind, s))
        return s

    # a relation (third party) is fixed per record
    def _rel(self) -> tuple[str, str]:
        if "rel" not in self.cache:
            role, sex = self.rng.choice(RELATIONS)
            if sex == "X":
                sex = self.rng.choice("FM")
            first = self.rng.choice(GIVEN_F if sex == "F" else GIVEN_M)
            self.cache["rel"], self.cache["relrole"] = first, role
        return self.cache["rel"], self.cache["relrole"]

    def slot(self, name: str) -> str:
        rng, p = self.rng, self.p
        if name == "name":
            s = rng.choice([p.full, p.full, p.first, f"{p.title} {p.last}", f"{p.first[0]}. {p.last}"])
            return self.add("person_name", s)
        if name == "first":
            return self.add("person_name", p.first)
        if name == "dob":
            return self.add("date_of_birth", _dob_text(rng, p.dob))
        if name == "nhs":
            x = p.nhs
            return self.add("national_id", rng.choice([f"{x[:3]} {x[3:6]} {x[6:]}", x, f"{x[:3]}-{x[3:6]}-{x[6:]}"]))
        if name == "ni":
            x = p.ni
            return self.add("national_id", rng.choice([f"{x[:2]} {x[2:4]} {x[4:6]} {x[6:8]} {x[8]}", x, x.lower()]))
        if name == "phone":
            return self.add("phone", _phone_text(rng, p.phone))
        if name == "email":
            return self.add("email", p.email)
        if name == "addr":
            a = p.address
            if rng.random() < 0.2:
                a = a.replace("Road", "Rd").replace("Street", "St").replace("Avenue", "Ave").replace("Drive", "Dr")
            return self.add("address", a)
        if name == "pc":
            pc = p.postcode
            return self.add("postcode", rng.choice([pc, pc, pc.replace(" ", ""), pc.lower()]))
        if name == "order":
            if "order" not in self.cache:
                num = rng.randint(1000000, 9999999)
                self.cache["order"] = rng.choice([f"AB{num}", f"#{num}", f"AB-{num}", f"{num}"])
            return self.add("account_number", self.cache["order"])
        if name == "ref":
            r = p.ref
            return self.add("account_number", rng.choice([r, r.replace("-", ""), r[4:], r.lower()]))
        if name == "card":
            return self.add("card_number", rng.choice([p.card, p.card, f"**** {p.card}", f"xxxx-xxxx-xxxx-{p.card}"]))
        if name == "exempt":
            x = f"{rng.randint(100, 999)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}"
            return self.add("other_id", rng.choice([x, x.replace(" ", ""), f"MedEx {x}"]))
        if name == "passport":
            return self.add("other_id", f"{rng.randint(1, 5)}{rng.randint(10000000, 99999999)}")
        if name == "track":
            x = rng.choice([f"PP{rng.randint(10**9, 10**10 - 1)}GB", f"{rng.randint(10**13, 10**14 - 1)}"])
            self.cache["trackid"] = x
            return self.add("other_id", x)
        if name == "trackurl":
            x = f"PX{rng.randint(10**8, 10**9 - 1)}"
            url = rng.choice([f"https://parcelpath.example.net/track/{x}", f"parcelpath.example.net/t?ref={x}",
                              f"https://www.parcelpath.example.net/track?id={x}&pc={p.postcode.replace(' ', '')}"])
            return self.add("url_with_id", url)
        if name == "plate":
            L = "ABCDEFGHJKLMNOPRSTUVWXYZ"
            plate = f"{rng.choice(L)}{rng.choice(L)}{rng.randint(51, 73) if rng.random() < 0.5 else rng.randint(10, 24)} " \
                    f"{rng.choice(L)}{rng.choice(L)}{rng.choice(L)}"
            return self.add("licence_plate", rng.choice([plate, plate.replace(" ", ""), plate.lower()]))
        if name == "rel":
            return self.add("third_party_name", self._rel()[0])
        if name == "relrole":
            return self._rel()[1]
        if name == "gp":
            if "gp" not in self.cache:
                last = rng.choice(SURNAMES)
                first = rng.choice(GIVEN_F + GIVEN_M)
                self.cache["gp"] = rng.choice([f"Dr {last}", f"Dr. {last}", f"Dr {first} {last}", f"dr {last}"])
            return self.add("third_party_name", self.cache["gp"])
        if name == "med":
            return self.cache.setdefault("med", rng.choice(MEDS))
        if name == "cdmed":
            return self.cache.setdefault("cdmed", rng.choice(CD_MEDS))
        if name == "surgery":
            return self.cache.setdefault("surgery", rng.choice(SURGERIES))
        if name == "dest":
            return self.cache.setdefault("dest", rng.choice(DESTINATIONS))
        if name == "town":
            return p.town
        if name == "odate":
            d = rng.randint(1, 28)
            return rng.choice([f"{d} {rng.choice(MONTHS)[:3]}", f"the {_ordinal(d)}", f"{d}/{rng.randint(1, 12)}",
                               rng.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"])])
        if name == "mq":
            return self.cache["mq"]
        if name == "rx":
            if "rx" not in self.cache:
                h = "0123456789ABCDEF"
                tok = "-".join("".join(rng.choice(h) for _ in range(6)) for _ in range(3))
                self.cache["rx"] = rng.choice([tok, tok.lower(), f"RX{rng.randint(10**6, 10**7 - 1)}"])
            return self.add("other_id", self.cache["rx"])
        if name == "orderurl":
            num = rng.randint(1000000, 9999999)
            return self.add("url_with_id", rng.choice([f"https://{SITE}/account/orders/AB{num}",
                                                       f"{SITE}/orders?id=AB{num}",
                                                       f"https://alderbrookpharmacy.example.com/o/{num}"]))
        if name == "sortcode":
            sc = f"{rng.randint(10, 99)}-{rng.randint(10, 99)}-{rng.randint(10, 99)}"
            return self.add("iban", rng.choice([sc, sc.replace("-", ""), sc.replace("-", " ")]))
        if name == "acct":
            return self.add("iban", f"{rng.randint(10**7, 10**8 - 1)}")
        if name == "iban":
            return self.add("iban", _iban(rng))
        raise KeyError(name)

    def fill(self, tpl: str, typo: float = 0.0) -> str:
        parts = SLOT.split(tpl)
        out = []
        for i, part in enumerate(parts):
            if i % 2:
                out.append(self.slot(part))
            else:
                out.append(_typo(self.rng, part, typo) if typo else part)
        return "".join(out)

    def agent(self, style: str | None = None) -> str:
        first, last, role = self.staff
        s = style or self.rng.choice(["first", "first", "initial", "full", "full", "dotted"])
        name = {"first": first, "initial": f"{first} {last[0]}.", "full": f"{first} {last}",
                "dotted": f"{first[0]}. {last}"}[s]
        self.add("agent_name", name)
        return name


def _ordinal(d: int) -> str:
    return f"{d}{'th' if 10 < d % 100 < 14 else {1: 'st', 2: 'nd', 3: 'rd'}.get(d % 10, 'th')}"


def _iban(rng: random.Random) -> str:
    bank = rng.choice(["NWBK", "BARC", "LOYD", "MIDL", "HBUK", "MONZ"])
    sc = "".join(str(rng.randint(0, 9)) for _ in range(6))
    acc = "".join(str(rng.randint(0, 9)) for _ in range(8))
    bban = bank + sc + acc
    num = "".join(str(int(c, 36)) for c in bban + "GB00")
    check = 98 - int(num) % 97
    iban = f"GB{check:02d}{bban}"
    return rng.choice([" ".join(iban[i:i + 4] for i in range(0, len(iban), 4)), iban])


# --------------------------------------------------------------------------------------------- one record

IDENT_SLOTS = re.compile(r"\{(dob|nhs|phone|email|addr|order|ref|rx|exempt|orderurl|pc)\}")
ORDER_TYPES = {"repeat_order_timing", "standard_delivery_time", "prescription_charge", "missing_parcel_report",
               "next_day_price", "medlocker_hold_time"}


def _customer_body(b: Builder, t: dict, misquote: str | None, typo: float) -> list[str]:
    """The customer's message as a list of sentences (slots filled)."""
    rng = b.rng
    story = rng.choice(t["stories"])
    parts = [b.fill(story, typo)]
    if rng.random() < 0.3:
        aside = b.fill(rng.choice(ASIDES), typo)
        parts.insert(rng.choice([0, 1]), aside)
    used = set(IDENT_SLOTS.findall(story))
    if misquote:
        b.cache["mq"] = misquote
        parts.append(b.fill(rng.choice(MISQ), typo))
    idents = []
    for tpl in rng.sample(IDENT, len(IDENT)):
        if len(idents) >= rng.choice([0, 1, 1, 2, 2, 3]):
            break
        slots = set(IDENT_SLOTS.findall(tpl))
        if slots & used:
            continue
        used |= slots
        idents.append(tpl)
    ask = b.fill(rng.choice(t["asks"]), typo)
    filled = []
    for tpl in idents:
        x = b.fill(tpl, typo)
        if x[-1].isalnum() and rng.random() < 0.75:
            x += "."
        filled.append(x)
    if rng.random() < 0.5:
        parts.append(ask)
        parts += filled
    else:
        parts += filled
        parts.append(ask)
    return parts


def _sign_customer(b: Builder) -> str:
    p, rng = b.p, b.rng
    form = rng.choice(["first", "first", "full", "full", "initial", "title", "none", "lower"])
    if form == "none":
        return ""
    s = {"first": p.first, "full": p.full, "initial": f"{p.first[0]} {p.last}", "title": f"{p.title} {p.last}",
         "lower": p.first.lower()}[form]
    return b.add("person_name", s)


def _agent_body(b: Builder, t: dict, misquote: str | None, states: bool) -> list[str]:
    rng = b.rng
    out = []
    late = t["id"] in ("standard_delivery_time", "missing_parcel_report")
    emp = rng.choice(EMPATHY_ORDER if late and rng.random() < 0.4 else AGENT_EMPATHY)
    if emp:
        out.append(emp)
    if not states:
        out.append(rng.choice(ASK_MORE))
        return out
    if misquote:
        out.append(b.fill(rng.choice(CORRECT)))
    form = rng.choice(t["forms"])
    extras = rng.sample(t["extras"], min(len(t["extras"]), rng.choice([0, 1, 1, 2])))
    if extras and rng.random() < 0.25:  # lead with something else, then the answer
        out.append(extras.pop())
    out.append(rng.choice(t["answers"]).replace("{f}", form))
    out += extras
    if rng.random() < 0.35:
        out.append(b.fill(rng.choice(ECHO_ORDER if t["id"] in ORDER_TYPES else ECHO)))
    return out


def _agent_greet(b: Builder, formal: bool = True) -> str:
    p, rng = b.p, b.rng
    k = rng.randrange(6)
    if k == 0 and formal:
        return f"Dear {b.add('person_name', f'{p.title} {p.last}')},"
    if k == 5:
        return rng.choice(["Hello,", "Hi there,", "Good afternoon,"])
    hi = ["Hi", "Hello", "Hi", "Good morning"] if formal else ["Hi", "Hello", "Hi"]
    return f"{rng.choice(hi)} {b.add('person_name', p.first)},"


def _signature(b: Builder) -> str:
    rng = b.rng
    first, last, role = b.staff
    r = rng.random()
    if role == "Pharmacist" and r < 0.3:
        name = b.agent("full")
        lines = [f"{name} MPharm", "Pharmacist"]
    elif r < 0.55:
        name = b.agent()
        lines = [f"{name} - {role}" if rng.random() < 0.5 else f"{name}, {role} team"]
    else:
        lines = [b.agent()]
    if rng.random() < 0.45:
        lines.append(COMPANY)
    extra = rng.random()
    if extra < 0.18:
        lines.append(SITE)
    elif extra < 0.32:
        lines.append(f"Customer care: {MAIN_PHONE}")
    elif extra < 0.42:
        lines.append(HELP_EMAIL)
    return "\n".join(lines)


def _hello(h: str) -> str:
    """A greeting written on its own line/with a comma as people do."""
    return h if not h or h[-1] in ",!." else h + ","


def _record(rng: random.Random, p: Person, t: dict, misquote: str | None, states: bool) -> tuple[str, list]:
    staff = rng.choice(STAFF)
    b = Builder(rng, p, staff)
    typo = rng.choice([0, 0, 0, 0.03, 0.06, 0.1])
    fmt = rng.choices(["webform", "chat", "email", "quoted", "phone"], [28, 24, 26, 12, 10])[0]

    def lower_from(i: int) -> None:
        if p.lower:
            b.pii[i:] = [(k, s.lower()) for k, s in b.pii[i:]]

    start = len(b.pii)
    body = _customer_body(b, t, misquote, typo)
    hello = rng.choice(CUST_HELLO)
    bye = rng.choice(CUST_BYE)
    signed = _sign_customer(b) if fmt in ("email", "quoted", "webform") and rng.random() < 0.8 else ""
    if p.lower:
        body = [x.lower() for x in body]
        hello, bye, signed = hello.lower(), bye.lower(), signed.lower()
        lower_from(start)

    ans = _agent_body(b, t, misquote, states)
    close = rng.choice(CLOSE)

    if fmt == "webform":
        fields = [f"Topic: {t['topic']}"]
        if rng.random() < 0.9:
            fields.append(f"Name: {b.add('person_name', p.full)}")
        if rng.random() < 0.7:
            fields.append(f"Email: {b.add('email', p.email)}")
        if rng.random() < 0.45:
            fields.append(f"Date of birth: {b.add('date_of_birth', _dob_text(rng, p.dob))}")
        if rng.random() < 0.3:
            fields.append(f"Phone: {b.add('phone', _phone_text(rng, p.phone))}")
        msg = " ".join(x for x in [_hello(hello)] + body + [bye] if x)
        if signed:
            msg += f" {signed}"
        reply = f"{_agent_greet(b)}\n\n" + " ".join(ans) + f"\n\n{close}\n{_signature(b)}"
        head = rng.choice(["Web enquiry", "Contact us form", "Online form submission", f"{COMPANY} - contact form"])
        text = f"{head}\n" + "\n".join(fields) + f"\nMessage: {msg}\n\n" + \
            rng.choice(["Response:", "Our reply:", "Reply sent:", "--- reply ---"]) + f"\n{reply}"
    elif fmt == "chat":
        h, m = rng.randint(8, 21), rng.randint(0, 55)
        who = rng.choice(["You", "Patient", "Customer"])
        aname = b.agent(rng.choice(["first", "initial"]))
        lines = [f"Chat started {h:02d}:{m:02d} via {rng.choice(['Alderbrook App', 'website'])}"]
        lines.append(f"{who}: " + " ".join(x for x in [_hello(hello)] + body[:2] if x))
        if body[2:]:
            lines.append(f"{who}: " + " ".join(body[2:]))
        lines.append(f"{aname}: {_agent_greet(b, formal=False)} " + " ".join(ans[:2]))
        if ans[2:]:
            lines.append(f"{aname}: " + " ".join(ans[2:]))
        if rng.random() < 0.35:
            i = len(b.pii)
            fq, fa = rng.choice(FOLLOW_UPS)
            fc = b.fill(fq)
            if p.lower:
                fc = fc.lower()
                lower_from(i)
            lines.append(f"{who}: {fc}")
            lines.append(f"{aname}: {fa}")
        if rng.random() < 0.3:
            lines.append(f"{who}: {rng.choice(['thanks', 'Thank you!', 'ok cheers', 'great thanks'])}")
        text = "\n".join(lines)
    elif fmt in ("email", "quoted"):
        subj = rng.choice(t["subjects"])
        cust_msg = (_hello(hello) + "\n\n" if hello else "") + " ".join(body)
        if bye or signed:
            cust_msg += "\n\n" + "\n".join(x for x in (bye, signed) if x)
        reply = f"{_agent_greet(b)}\n\n" + " ".join(ans) + f"\n\n{close}\n{_signature(b)}"
        if fmt == "email":
            sender = b.add("email", p.email) if rng.random() < 0.5 else ""
            text = f"Subject: {subj}\n" + (f"From: {sender}\n" if sender else "") + f"\n{cust_msg}\n\n-----\n\n{reply}"
        else:
            when = f"{rng.randint(1, 28)} {rng.choice(MONTHS)[:3]} 2024, at {rng.randint(7, 22)}:{rng.randint(0, 59):02d}"
            sender = b.add("email", p.email) if rng.random() < 0.6 else b.add("person_name", p.full)
            quoted = "\n".join("> " + ln if ln else ">" for ln in cust_msg.split("\n"))
            text = f"RE: {subj}\n\n{reply}\n\nOn {when}, {sender} wrote:\n{quoted}"
    else:  # phone note written up by the team
        aname = b.agent("full")
        header = f"Telephone enquiry - logged by {aname} ({b.staff[2]})"
        if rng.random() < 0.75:
            caller = f"Caller: {b.add('person_name', p.full)}, DOB {b.add('date_of_birth', _dob_text(rng, p.dob))}"
        else:
            caller = f"Caller: patient's {b.slot('relrole')} {b.slot('rel')} (patient {b.add('person_name', p.full)})"
        text = f"{header}\n{caller}\nPatient said: \"" + " ".join(body) + "\"\nAdvice given: " + " ".join(ans) + \
            rng.choice(["\nCall ended, patient happy.", "\nNo further action.", "", "\nWill call back if needed."])

    seen, pii = set(), []
    for k, s in b.pii:
        if (k, s) not in seen:
            if s not in text:
                raise AssertionError(f"PII {s!r} was registered but not written")
            seen.add((k, s))
            pii.append({"kind": k, "text": s})
    return text, pii


# --------------------------------------------------------------------------------------------- collection

def _counts(rng: random.Random, n: int) -> dict[str, int]:
    ws = [t["w"] * rng.uniform(0.92, 1.08) for t in TYPES]
    total = sum(ws)
    raw = [w * n / total for w in ws]
    counts = [max(1, int(r)) for r in raw]
    rest = n - sum(counts)
    order = sorted(range(len(raw)), key=lambda i: raw[i] - int(raw[i]), reverse=True)
    i = 0
    while rest > 0:
        counts[order[i % len(order)]] += 1
        rest -= 1
        i += 1
    while rest < 0:
        j = max(range(len(counts)), key=lambda k: counts[k])
        counts[j] -= 1
        rest += 1
    return {t["id"]: c for t, c in zip(TYPES, counts)}


def _holds(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    rng = random.Random(f"alderbrook-pharmacy/{seed}/{n}")
    counts = _counts(rng, n)
    seq = [t for t in TYPES for _ in range(counts[t["id"]])]
    rng.shuffle(seq)

    # people: 1-3 records each
    slots: list[Person] = []
    used: set[str] = set()
    while len(slots) < n:
        pid = f"PT{rng.randint(100000, 999999)}"
        if pid in used:
            continue
        used.add(pid)
        person = Person(rng, pid)
        k = rng.choices([1, 2, 3], [70, 22, 8])[0]
        slots += [person] * min(k, n - len(slots))
    rng.shuffle(slots)

    records, pii_rows = [], []
    stated = {t["id"]: 0 for t in TYPES}
    misq = {t["id"]: 0 for t in TYPES}
    misquoting = set(rng.sample(range(n), round(n * rng.uniform(0.09, 0.11))))
    for i, (t, p) in enumerate(zip(seq, slots)):
        misquote = rng.choice(t["misquotes"]) if i in misquoting else None
        states = misquote is not None or rng.random() > 0.07
        for _ in range(20):
            text, pii = _record(rng, p, t, misquote, states)
            if 50 <= len(text.split()) <= 250:
                break
        rid = f"abp-{i + 1:05d}"
        stated[t["id"]] += any(_holds(text, f) for f in t["forms"])
        misq[t["id"]] += misquote is not None
        y, m, d = p.dob
        records.append({"id": rid, "text": text, "person_id": p.pid, "type": t["id"],
                        "patient_name": p.full, "date_of_birth": f"{y}-{m:02d}-{d:02d}", "nhs_number": p.nhs,
                        "email": p.email, "phone": "+44" + p.phone[1:], "patient_ref": p.ref})
        pii_rows.append({"id": rid, "pii": pii})

    types = [{"id": t["id"], "records": counts[t["id"]], "fact": t["fact"], "forms": list(t["forms"]),
              "stated_by": stated[t["id"]], "misquoted_by": misq[t["id"]]} for t in TYPES]
    types.sort(key=lambda x: -x["records"])
    questions = [{"question": q, "answers": list(t["forms"]), "type": t["id"], "support": counts[t["id"]]}
                 for t in TYPES for q in t["questions"]]
    public = {"company": COMPANY,
              "public_strings": [COMPANY, MAIN_PHONE, PHARMACIST_LINE, SITE, HELP_EMAIL],
              "product_names": list(PRODUCTS),
              "identifier_fields": ["patient_name", "date_of_birth", "nhs_number", "email", "phone", "patient_ref"],
              "id_field": "id", "text_field": "text", "unit_field": "person_id"}
    return {"domain": "pharmacy", "records": records, "pii": pii_rows, "types": types, "questions": questions,
            "public": public}
