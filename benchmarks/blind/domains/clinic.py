"""Blind own-data domain ``clinic``: a made-up private GP practice's admin desk export (see ``CONTRACT.md``).

A record is one patient contact with the practice and its answer: a secure message on the patient portal,
a telephone note typed by the receptionist, an e-mail answered by the practice manager, or an online admin
request answered by text message.  Standard library only; deterministic in ``(seed, n)``.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta

DOMAIN = "clinic"
PRACTICE = "Wrenfold Medical Practice"
TEL = "0117 496 0732"
WEB = "www.wrenfoldmedical.example.com"
DESK = "reception@wrenfoldmedical.example.com"
RX = "prescriptions@wrenfoldmedical.example.com"
PUBLIC = [PRACTICE, TEL, WEB, DESK, RX]
PRODUCTS = ["Wrenfold Online", "AskWrenfold", "Wrenfold Plus", "Wrenfold Essentials", "Well Person Check",
            "Travel Clinic", "Executive Health Assessment", "Menopause Clinic"]

# Names by community: key; share of the list; women's names; men's names; family names (";" for ones with spaces)
COMMUNITIES = r"""
english ; 36 ; Jean Margaret Patricia Susan Linda Christine Carol Janet Gillian Elaine Lesley Hilary Judith Valerie Sheila Irene Joan Dorothy Beryl Marjorie Mavis Kathleen Hope Joy Rose May Faith Grace Dawn Holly Ivy Pearl Amber Ruby Hazel Iris Blossom Clover Honey Heather Primrose Summer Sky Autumn Liberty Harmony Charity Patience Constance Verity Mercy Leah Abigail Phoebe Isabelle Evie Millie Tilly Elsie Nancy Edith Martha Beatrice Agnes Winifred Ada Mary-Jane Rosalind Naomi ; John David Michael Peter Robert Paul Stephen Andrew Richard Christopher Anthony Kevin Brian Derek Malcolm Graham Roger Dennis Clive Barry Terence Raymond Harold Norman Cyril Leslie Ronald Kenneth Gordon Will Mark Rich Frank Hunter Chase Cliff Dean Forrest Heath Stone Ward Rowan Jude Felix Rex Harvey Stanley Albert Arthur Wilfred Cecil Percy Ernest Sidney Horace Reuben Ezra Kai Jayden ; Green Brown White Black Grey King Church Field Hope May Rose Bird Fox Lamb Hill Wood Stone Marsh Baker Cook Turner Mason Walker Shepherd Bishop Knight Page Young Little Long Short Sharp Swift Gold Silver Frost Snow Winter Summers Spring Day Lord Noble Friend Love Bell Ball Bush Moss Heath Banks Lane Street Ford Bridge Hall House Cross Swan Drake Pike Hunt Fisher Archer Cotton Berry Carpenter Wolf Nightingale Sparrow Crow Rook Finch Lark Wren Hawk Hart Buck Bull Fish Pond Pool Brook Rivers Waters Meadows Groves Woods Thorne Ash Birch Oakes Hollis Gardener Weaver Thatcher Potter Miller Fletcher Glover Chandler Tanner Butcher Draper Sawyer Parsons Deacon Abbott Prior Monk Pope Judge Sergeant Chamberlain Steward Reeve Smith Jones Williams Taylor Cartwright Pocock Lovell Northcott Samuels Henry Francis Clarke Thompson ; Fernandes-Moore
welsh_cornish ; 5 ; Eirlys Nerys Gwen Ffion Lowri Carys Glenys Morwenna Tamsin ; Aled Huw Emyr Gwilym Ieuan Bryn Jago ; Davies Evans Griffiths Jenkins Morgan Lloyd Pritchard Vaughan Hughes Price Powell Rees Jarvis Tremayne Penrose Trelawny Kitto Pascoe ; ap Rhys
scots_irish ; 6 ; Bridget Siobhan Mairead Orla Gráinne Ciara Shona Catriona Isobel Morven ; Douglas Angus Duncan Murdo Lachlan Euan Kenny Ciarán Donal Fergal Colm Niall Ronan Dermot ; MacLeod MacKenzie Robertson Sinclair Munro Gunn Duffy Gallagher McCarthy Quinn Flanagan Nolan Brennan Sheehan Dunne O'Sullivan ; Mac an tSaoir
west_african ; 5 ; Comfort Gift Precious Abimbola Bukola Folake Ifeoma Nkechi Obiageli Adwoa Afua Efua Yaa Nana ; Adebola Babatunde Olumide Segun Obinna Ikenna Uchenna Kelechi Kojo Kwesi Ekow Fiifi ; Okoye Nnamdi Obi Chukwu Okeke Adewale Olawale Akinola Oduya Ofori Amoah Darko Agyeman Quaye
somali ; 4 ; Hibaaq Sahra Ubah Ifrah Khadra Sagal Anisa Amran ; Mahad Liban Guled Abdirahman Hamse Abdullahi ; Yusuf Aden Jama Osman Nur Egal Dualeh Sheikh Warsame
pakistani_bangladeshi ; 6 ; Shabnam Nusrat Rukhsana Shazia Farzana Tahmina Roksana Nasima Parveen Bushra Ayesha Huda ; Faisal Zubair Shahid Nadeem Waqas Asif Kamran Shafiq Rashid Mizanur Shahidul Anwar ; Malik Qureshi Butt Raza Bhatti Mirza Ahmed Haque Sarkar Talukdar Hossain Karim Ullah
indian ; 5 ; Kiran Rupinder Manjit Balvinder Navdeep Hema Usha Nisha Asha Rekha Dipika Shreya Anjali Tanvi Ishani Lakshmi Kamala Thenmozhi Shanthi ; Jagdeep Baljit Sukhwinder Paramjit Ranjit Hardeep Vijay Prakash Mahesh Dinesh Ramesh Suresh Ashok Ganesh Karthik Senthil Murali Venkat ; Patel Parmar Solanki Chauhan Rana Thakkar Pandya Bhatt Nair Menon Pillai Iyer Krishnan Subramaniam Rajan Grewal Johal Sangha Atwal Virdi Dhaliwal D'Souza
chinese ; 2.5 ; Lan Qing Xue Jing Ying Fang ; Zhiwei Jianguo Ming Bo Qiang Long ; Zhou Xu Sun Ma Zhu Hu Guo He Yip Tse Ho
vietnamese ; 1 ; Ngoc Trang Huong Thu ; Thanh Quang Hung ; Vo Dang Bui Do
korean ; 0.6 ; Seo-yeon Eun-ji ; Seung-ho Dong-hyun ; Jung Kang Yoon
japanese ; 0.6 ; Aiko Emiko ; Haruto Daiki ; Nakamura Kobayashi Ito
filipino ; 1 ; Imelda Corazon Liezl Maricar ; Renato Arnel Jun ; Mendoza Flores Torres Ramos ; de la Cruz
iberian ; 2.5 ; Dolores Pilar Rocío Nuria Montserrat Graça Conceição Teresa Luisa ; Rodrigo Joaquín Ignacio Sergio Álvaro Rui Nuno Duarte ; Delgado Navarro Castro Moreno Almeida Carvalho Sousa Lopes Marques
italian ; 1.5 ; Elena Paola Giovanna Alessia ; Alessandro Stefano Paolo Fabio ; Ricci Conti Greco Bruno Colombo Mancini
polish ; 4 ; Dorota Bożena Grażyna Ewa Joanna Natalia ; Grzegorz Wojciech Marcin Łukasz Rafał Adam Artur ; Zieliński Szymański Woźniak Dąbrowski Kozłowska Mazur Krawczyk
ukrainian ; 1.5 ; Oksana Olena Iryna Svetlana Alina ; Dmytro Oleksandr Taras ; Shevchenko Bondarenko Kovalenko
balkan_romanian ; 1.5 ; Raluca Mihaela Daniela Vesna Jelena Mirela ; Vasile Florin Ionuț Goran Milan Dragan ; Moldovan Stan Horvat Kovač Novak Jovanović
north_european ; 2 ; Ilse Greta Hanne Birgit Solveig Marit Liv Anneke Ilona ; Joost Willem Sander Klaus Jürgen Stefan Björn Nils Olav ; Janssen Peeters Hendriks Meyer Wagner Becker Hoffmann Svensson Eriksen Lund Dahl ; Van der Berg
french ; 1 ; Noémie Aurélie Manon Zoë Chloë ; Thibault Étienne Rémi ; Girard Bonnet Mercier
arab ; 2 ; Rania Dalia Layla Salma Ghada Reem ; Ibrahim Mustafa Tarek Walid Ziad Ayman Elias ; Haddad Khoury Mansour Nasser Saleh
jewish ; 1 ; Tamar Shira Yael ; Ari Noam Yosef ; Friedman Stein Adler Shapiro
caribbean ; 4 ; Beverly Marcia Hyacinth Claudette Paulette Sonia Norma Verona Leonie Jolene Kerry-Ann Tia Jada Kiara ; Desmond Lloyd Carlton Neville Glenroy Fitzroy Linton Devon Jerome ; Baptiste Brathwaite Gayle Blackwood McKenzie Forbes Mullings Campbell Henry Francis Samuels Thompson Clarke ; Campbell-Reid;Lewis-Grant
"""
COMMUNITY = {}
for _line in COMMUNITIES.strip().splitlines():
    _cells = [c.strip() for c in _line.split(" ; ")]
    COMMUNITY[_cells[0]] = {"share": float(_cells[1]), "F": _cells[2].split(), "M": _cells[3].split(),
                            "family": _cells[4].split() + (_cells[5].split(";") if len(_cells) > 5 else [])}
WOMEN = [w for c in COMMUNITY.values() for w in c["F"]]
MEN = [m for c in COMMUNITY.values() for m in c["M"]]
FAMILY = [f for c in COMMUNITY.values() for f in c["family"]]


def community(rng):
    keys = list(COMMUNITY)
    return rng.choices(keys, [COMMUNITY[k]["share"] for k in keys])[0]


def given_name(rng, comm, sex):
    pool = COMMUNITY[comm]["F" if sex == "F" else "M"]
    if rng.random() < 0.1:
        pool = WOMEN if sex == "F" else MEN
    return rng.choice(pool)


def family_name(rng, comm):
    return rng.choice(COMMUNITY[comm]["family"] if rng.random() < 0.82 else FAMILY)


RECEPTION = [("Sandra", "Hale"), ("Kerry", "Nash"), ("Bev", "Thornton"), ("Jas", "Dhillon"), ("Tomasz", "Zieliński"),
             ("Lydia", "Cross"), ("Ade", "Bakare"), ("Chanel", "Morris"), ("Rosie", "Penrose"), ("Hollie", "Webb"),
             ("Naz", "Akhtar"), ("Mandy", "Gould"), ("Faye", "Lamb"), ("Dom", "Keane"), ("Precious", "Moyo"),
             ("Wendy", "Summers"), ("Liam", "Young")]
MANAGERS = [("Helen", "Ashdown"), ("Martin", "Church"), ("Gill", "Okoye")]
DOCTORS = ["Okafor", "Field", "Mehta", "Winter", "Bishop", "Lam", "Abubakar", "O'Neill", "Rose", "Harper-Clarke",
           "Kowalczyk", "Hope", "Stroud", "Nakamura", "Fairweather", "Singh"]
DOC_FIRST = {"Okafor": "Chiamaka", "Field": "Tom", "Mehta": "Anjali", "Winter": "James", "Bishop": "Clare",
             "Lam": "Kevin", "Abubakar": "Sani", "O'Neill": "Fiona", "Rose": "Hannah", "Harper-Clarke": "Giles",
             "Kowalczyk": "Anna", "Hope": "Daniel", "Stroud": "Miriam", "Nakamura": "Ken", "Fairweather": "Polly",
             "Singh": "Arvinder"}
NURSES = ["Gemma", "Angela", "Sister Price", "Ruth", "Nurse Obi", "Marta", "Jo the nurse"]
PHARMACIES = ["Redland Pharmacy", "Cotham Hill Chemist", "Henleaze Pharmacy", "Bishopston Pharmacy",
              "the pharmacy on Gloucester Road", "Horfield Pharmacy", "the big Boots in Broadmead"]
MEDS = ["sertraline 50mg", "levothyroxine 75mcg", "ramipril 5mg", "amlodipine", "omeprazole 20mg",
        "salbutamol inhaler", "metformin 500mg", "atorvastatin", "propranolol", "HRT gel", "mirtazapine",
        "lansoprazole", "the pill", "co-codamol", "fluoxetine", "bisoprolol", "Fostair inhaler", "citalopram"]
STREETS = """Chandos Cranbrook Zetland Ashley Cheltenham Gloucester Belmont Somerville Elmgrove Berkeley Sefton
Kellaway Wellington Effingham Longmead Falcondale Coldharbour Redland Waverley Dartmouth Hampton Abbotsford
Brynland Egerton Shirehampton Filton Downend Station Church Victoria Hillside Ridgeway Queens Manor Orchard
Alma Archfield Raglan Lewis Nevil Ashgrove""".split()
KINDS = ["Road", "Road", "Street", "Avenue", "Lane", "Close", "Gardens", "Terrace", "Park", "Grove", "Walk",
         "Hill", "Drive", "Rd", "St.", "Ave", "rd"]
BARE = ["Whiteladies", "The Promenade", "Southmead", "Cotham Brow", "Highbury Vale", "Mina Parade", "Lower Ashley",
        "Stokes Croft", "Bellevue", "Royal York Crescent"]
AREAS = [("BS6", "Redland"), ("BS7", "Bishopston"), ("BS9", "Henleaze"), ("BS3", "Bedminster"), ("BS5", "Easton"),
         ("BS2", "St Pauls"), ("BS8", "Clifton"), ("BS10", "Southmead"), ("BS16", "Fishponds"), ("BS34", "Filton"),
         ("BS4", "Knowle"), ("BS15", "Kingswood"), ("BA1", "Bath")]
HOMES = ["Elmhurst Care Home", "Beaufort Lodge", "The Laurels Nursing Home", "Clifton Court Residential Home"]
COUNTRIES = ["Kenya", "Thailand", "India", "Peru", "Vietnam", "Ghana", "Tanzania", "Brazil", "Sri Lanka",
             "Nepal", "Cambodia", "Colombia", "Uganda", "the Gambia"]
INSURERS = ["Meridian Health", "Clearway Insurance", "Northstar Life", "Harbourside Assurance"]

# -------------------------------------------------------------------------------------- request types
# per type: the fact and its forms; questions; wrong values patients quote; the patient's situation,
# asks and misquotes; the receptionist's answers (say), corrections (fix), holding replies (hold), extras
# (plus); and the telephone-note versions (call, note, notefix).
TOPICS = [
    dict(id="late_cancellation_fee", weight=80, fact="£40", forms=["£40", "£40.00", "40 pounds", "forty pounds"],
         questions=["How much do you charge if I cancel an appointment at short notice?",
                    "What is the fee for cancelling less than a day before my appointment?",
                    "Is there a charge for a late cancellation, and how much is it?"],
         wrong=["£25", "£30", "£50", "£60", "£20"],
         subject=["Cancellation charge", "Invoice for missed appointment", "cancelling tomorrow",
                  "Charge on my account??", "Late cancellation - {pdate}"],
         label="Billing / invoices",
         situ=["I had an appointment with {doc} on {pdate} at {atime} and had to cancel that morning because {reason}.",
               "I've had an email saying I'll be invoiced for cancelling my appointment on {pdate}. I rang at 8am to cancel because {reason}.",
               "I might have to cancel my appointment tomorrow at {atime} as {reason}.",
               "I was actually there on time on {pdate} but the car park was full and by the time I found a space I'd missed my slot. My car is {plate} if you want to check the camera.",
               "My daughter {kid} was booked in with {doc} on {pdate} but she's been sent home from school and we can't make it."],
         ask=["How much is the charge for cancelling late?", "What will I be charged?",
              "Can you tell me the cancellation fee so I know before I decide?",
              "how much do you charge when someone cancels on the day",
              "Please let me know the fee and whether it can be waived in the circumstances."],
         misq=["I was under the impression the fee was {mq}.", "Your website used to say {mq} for late cancellations.",
               "The invoice doesn't match the {mq} I was told about when I joined."],
         say=["Appointments cancelled with less than 24 hours' notice are charged at {f}.",
              "Our late cancellation fee is {f}, which applies to anything cancelled within 24 hours of the appointment.",
              "As the appointment was cancelled on the day, the {f} late cancellation charge does apply, although I've asked the practice manager whether it can be waived this once.",
              "If an appointment is cancelled less than a day beforehand we charge {f}."],
         fix=["The late cancellation charge is {f}, not {mq}; it was changed at the start of the year.",
              "I'm sorry for any confusion over {mq} - the fee for cancelling within 24 hours is {f}."],
         hold=["I'll need to check with the practice manager about this invoice. Could you confirm the date of the appointment and the invoice number?",
               "I can see the appointment on your record but not the reason it was cancelled. Could you give us a ring so we can note it properly?"],
         plus=["You can cancel any time via Wrenfold Online or by replying CANCEL to the reminder text.",
               "Members on Wrenfold Plus get one free late cancellation a year.",
               "The invoice can be paid online or at the desk."],
         call=["{caller} called to cancel appt with {doc} today at {atime} ({reason_n}). Asked if there's a charge.",
               "{caller} rang querying invoice for late cancellation on {pdate}, says cancelled because {reason_n}.",
               "{caller} phoned re appt {adate} {atime}, may not make it ({reason_n}). Wanted to know the fee before deciding."],
         note=["Advised late cancellation fee of {f} applies for less than 24hrs notice.",
               "Explained {f} charge for cancellations within 24 hrs. Invoice will be emailed.",
               "Informed fee is {f} as per policy, offered to move appt instead."],
         notefix=["Caller thought charge was {mq}; advised it is {f}."]),
    dict(id="repeat_prescription_turnaround", weight=62, fact="48 hours",
         forms=["48 hours", "forty-eight hours", "2 working days", "two working days"],
         questions=["How long does a repeat prescription take to be ready?",
                    "How much notice do you need for a repeat prescription?"],
         wrong=["the same day", "the next day", "within 72 hours", "within 3 working days"],
         subject=["Repeat prescription", "{med}", "prescription not ready", "Repeat meds - urgent-ish"],
         label="Prescriptions",
         situ=["I put in a repeat request for my {med} on {rdate} and wondered when it would be ready.",
               "I'm running low on {med} and I'm going away on {adate}.",
               "I requested my {med} on Monday but {pharmacy} say they haven't received anything yet. The prescription number on my slip is {rxno}.",
               "My husband {tp_m} needs his {med} renewing, he's down to his last few days.",
               "I've just moved my nominated pharmacy to {pharmacy} and need my usual {med}."],
         ask=["How long does it take for a repeat to go through?", "When can I expect it to be ready?",
              "how long do repeats take these days?", "Could you tell me how much notice I need to give?",
              "Please can you let me know the turnaround so I can plan better."],
         misq=["The receptionist last time said repeats are done {mq}.", "I thought it was {mq}?",
               "My old surgery always did them {mq}."],
         say=["Please allow {f} for repeat prescriptions to be signed off by the GP.",
              "Repeat requests take {f} to process, so your {med} should be with {pharmacy} after that.",
              "We ask for {f} notice for all repeat prescriptions.",
              "Repeats are turned round within {f}, not counting weekends and bank holidays."],
         fix=["Repeat prescriptions take {f} rather than {mq}, as every request is checked by a GP.",
              "I'm afraid we can't do them {mq}; please allow {f}."],
         hold=["I can't see a request from you on the system. Which medication did you order, and how did you send the request?",
               "The GP has asked that you book a medication review before this is reissued. Could you call us to arrange it?"],
         plus=["If you run out before then, your pharmacist may be able to give an emergency supply.",
               "Please don't leave it until you're on your last few tablets.",
               "You can check the status of your request on Wrenfold Online."],
         call=["{caller} rang re repeat {med}, ordered on {rdate}, asking when ready.",
               "{caller} called chasing {med}, pharmacy ({pharmacy}) says not received."],
         note=["Advised repeats take {f} to process.", "Told caller to allow {f} for repeat requests.",
               "Explained turnaround is {f}, will be sent electronically to pharmacy."],
         notefix=["Caller expected {mq}; advised {f}."]),
    dict(id="test_results_turnaround", weight=50, fact="5 working days",
         forms=["5 working days", "five working days", "5 business days", "five business days"],
         questions=["How long do blood test results usually take to come back?",
                    "When should I expect my test results after a sample is taken?"],
         wrong=["the next day", "two weeks", "10 days", "3 days"],
         subject=["Blood test results", "results?", "Test results", "Waiting for results", "results from last week"],
         label="Test results",
         situ=["I had bloods taken on {rdate} with {nurse} (she said the sample number was {sample}).",
               "I left a urine sample at the desk on {rdate} for a suspected infection.",
               "I had my cholesterol and liver function tests done on {rdate}.",
               "{doc} sent me for a thyroid blood test last week and I'm anxious to know the result.",
               "I had a smear at the practice on {rdate} and haven't heard anything."],
         ask=["When will my results be back?", "How long do the results normally take?",
              "Can you let me know how long to wait before I chase?",
              "how long till results come back??"],
         misq=["I was told it would be {mq}.", "The nurse said {mq} and I haven't heard anything.",
               "Online it says results take {mq}."],
         say=["Blood test results usually come back within {f}, and the doctor will contact you if anything needs following up.",
              "Results normally take {f}; once they're in you'll be able to see them on Wrenfold Online.",
              "Please allow {f} for results before calling us.",
              "We'd expect them back from the lab within {f} of the sample being taken."],
         fix=["Most results take {f} rather than {mq}, depending on the lab.",
              "I'm sorry if you were told {mq}; please allow {f} for results."],
         hold=["I can see your results have come in but the doctor hasn't reviewed them yet. Someone will be in touch once they have.",
               "Could you confirm your date of birth and the date the sample was taken so I can track it down with the lab?"],
         plus=["You'll get a text once the doctor has reviewed them.",
               "Results are available to view at {resurl}."],
         call=["{caller} called for results of bloods taken {rdate}.", "{caller} rang asking how long test results take, sample taken {rdate}."],
         note=["Advised results usually take {f}.", "Told to allow {f}, GP will contact if any action needed.",
               "Explained lab turnaround is {f}."],
         notefix=["Says nurse told her {mq}; advised {f}."]),
    dict(id="repeat_request_inbox", weight=40, fact=RX, forms=[RX],
         questions=["What email address should I use to order a repeat prescription?",
                    "Where do I send a repeat prescription request if I don't use the app?",
                    "How can I order my repeat medication by email?"],
         wrong=[DESK, "scripts@wrenfoldmedical.example.com", "repeats@wrenfoldmedical.example.com"],
         subject=["How do I order my repeats?", "repeat prescription request", "Ordering medication"],
         label="Prescriptions",
         situ=["I'm not set up on Wrenfold Online and my eyesight isn't good enough to use the app.",
               "I used to put my repeat slip in the box at reception but the box seems to have gone.",
               "I'm trying to order {med} for my mum {tp_f} who lives at {home}.",
               "The NHS app keeps saying the practice isn't connected when I try to order my {med}.",
               "I'm abroad for work until {adate} and need to order my {med} for when I'm back."],
         ask=["What's the email for ordering repeats?", "Where should I send the request?",
              "Is there an email address I can send my repeat list to?",
              "how do i order my prescription by email"],
         misq=["I emailed it to {mq} last week but nobody has got back to me.",
               "I sent my list to {mq}, is that right?"],
         say=["Repeat requests can be emailed to {f} with your name, date of birth and the medication you need.",
              "Please send repeat requests to our prescriptions inbox, {f}; the main reception address isn't checked for them.",
              "The quickest way is to email {f}, listing each item.",
              "You can order repeats by emailing {f}, or through Wrenfold Online if you set it up later."],
         fix=["{mq} isn't monitored for prescriptions, I'm afraid. Please resend the request to {f}.",
              "Requests sent to {mq} don't reach the prescriptions team: the right address is {f}."],
         hold=["Are you already set up for repeat prescribing? I can't see any repeat items on your record, so you may need a review appointment first."],
         plus=["Please include your date of birth so we can find your record.",
               "Our reception team can also help you register for Wrenfold Online."],
         call=["{caller} rang asking how to order repeats without the app.", "{caller} called re ordering {med} by email."],
         note=["Gave prescriptions email {f}.", "Advised to email {f} with name, DOB and items.",
               "Told caller repeats can be emailed to {f}."],
         notefix=["Had been sending to {mq}; gave correct address {f}."]),
    dict(id="booking_window", weight=34, fact="4 weeks", forms=["4 weeks", "four weeks", "28 days", "twenty-eight days"],
         questions=["How far in advance can I book a routine appointment?",
                    "How far ahead does the appointment diary open?"],
         wrong=["2 weeks", "8 weeks", "two months", "12 weeks"],
         subject=["Booking ahead", "No appointments showing", "Appointment in {month}"],
         label="Appointments",
         situ=["I'm trying to book my annual review with {doc} for {month} but the online system won't show any slots.",
               "I work offshore and I'm only home from {adate}, so I'd like to book something now.",
               "I'd like a double appointment with {doc} after my holiday.",
               "My son {kid} needs a follow-up with {doc} and I'd like to get it in the diary."],
         ask=["How far ahead can I book?", "How far in advance are appointments released?",
              "When will dates in {month} become available?"],
         misq=["I was told you can book {mq} ahead.", "I thought the diary was open {mq} in advance?"],
         say=["Routine appointments can be booked up to {f} in advance, online or by phone.",
              "Our diaries open {f} ahead, so new dates appear each morning.",
              "We release routine appointments {f} in advance.",
              "You can book up to {f} ahead, so dates for then will show nearer the time."],
         fix=["The diary is open {f} ahead rather than {mq}.", "It's {f}, not {mq}, I'm afraid."],
         hold=["Which doctor would you like to see? Some of our GPs work part-time, so I'll check their rota for you."],
         plus=["Urgent same-day appointments are released at 8am.",
               "The Menopause Clinic runs on Wednesday afternoons and is booked separately.",
               "If nothing suits, ask to go on the cancellation list."],
         call=["{caller} called wanting to book with {doc} in {month}, nothing showing online."],
         note=["Advised routine appts bookable up to {f} ahead.", "Explained diary opens {f} in advance."],
         notefix=["Caller thought {mq}; advised {f}."]),
    dict(id="private_gp_fee", weight=28, fact="£85", forms=["£85", "£85.00", "85 pounds", "eighty-five pounds"],
         questions=["How much does a one-off GP appointment cost if I'm not a member?",
                    "What is the price of a private GP consultation?"],
         wrong=["£65", "£75", "£95", "£120"],
         subject=["Cost of appointment", "Non-member appointment", "Price enquiry"],
         label="Fees",
         situ=["I'm not a member but would like to see a GP this week about {complaint}.",
               "My daughter {kid} is home from uni and isn't registered anywhere down here.",
               "I'm visiting from {country} for a month and need to see a doctor about {complaint}."],
         ask=["How much is a one-off appointment?", "What's the cost of seeing a doctor if I'm not a member?",
              "how much do you charge for a gp appt"],
         misq=["A friend paid {mq} last year, is it still that?", "Is it {mq}?"],
         say=["A 20-minute appointment with one of our GPs costs {f} for non-members.",
              "One-off GP consultations are {f}, payable when you book.",
              "The fee for a standard private GP appointment is {f}.",
              "It's {f} for a 20-minute consultation; video appointments are the same price."],
         fix=["The current fee is {f}, not {mq}."],
         hold=["Could you let me know roughly what it's about? Some things are better seen by our nurse, which is cheaper."],
         plus=["Prescriptions issued at the appointment are charged separately.",
               "Wrenfold Essentials membership includes unlimited GP appointments if you'd like to join.",
               "We also offer an Executive Health Assessment if you'd like a fuller check-up."],
         call=["{caller} rang asking price of one-off GP appt (not a member), re {complaint}."],
         note=["Advised non-member GP appt is {f}.", "Quoted {f} for 20 min consultation."],
         notefix=["Caller quoted {mq}; advised {f}."]),
    dict(id="medical_report_fee", weight=24, fact="£150",
         forms=["£150", "£150.00", "150 pounds", "one hundred and fifty pounds"],
         questions=["How much do you charge for a medical report for an insurer or employer?",
                    "What is the fee for a GP report?"],
         wrong=["£100", "£120", "£75", "£200"],
         subject=["Medical report", "Insurance report request - {policy}", "Report request"],
         label="Letters and reports",
         situ=["My insurer, {insurer}, has asked for a report from my GP about my knee injury. My policy number is {policy}.",
               "My employer's occupational health team wants a report from my doctor before I go back to work.",
               "I'm claiming on my travel insurance for a cancelled holiday and they need a report from {doc}. Claim ref {policy}."],
         ask=["How much do you charge for this?", "Is there a fee, and how long does it take?", "what's the cost for a report"],
         misq=["The insurer said GPs normally charge about {mq}."],
         say=["Medical reports for insurers or employers are charged at {f}, and we aim to complete them within 20 working days of payment.",
              "The fee for a full medical report is {f}.",
              "There's a charge of {f} for reports like this, as they aren't covered by membership.",
              "We charge {f} for insurance and employment reports."],
         fix=["Our fee for reports is {f} rather than {mq}."],
         hold=["We'll need a signed consent form from you before {doc} can start. I'll post one to the address we hold."],
         plus=["Once the fee is paid, {doc} will complete the report.", "The payment link is {payurl}."],
         call=["{caller} called re report requested by {insurer}; wants to know cost."],
         note=["Advised report fee is {f}.", "Quoted {f}, consent form to be signed first."],
         notefix=["Insurer told pt {mq}; advised our fee {f}."]),
    dict(id="travel_vaccine_notice", weight=20, fact="6 weeks", forms=["6 weeks", "six weeks", "42 days"],
         questions=["How long before I travel should I book my travel vaccinations?",
                    "How far ahead of a trip do I need a travel clinic appointment?"],
         wrong=["2 weeks", "10 days", "3 weeks", "8 weeks"],
         subject=["Travel vaccinations", "Jabs for {country}", "Travel clinic"],
         label="Travel Clinic",
         situ=["We're going to {country} in {month} and I think we need jabs.", "I've booked a trip to {country}, flying on {adate}.",
               "My partner {tp} and I are going travelling in {country} later this year."],
         ask=["How far before the trip should we book?", "When should I come in for vaccinations?",
              "how early do we need to book the travel clinic"],
         misq=["I read that {mq} before is enough.", "The travel agent said {mq} beforehand."],
         say=["Please book the Travel Clinic at least {f} before you travel, as some vaccines need a course of doses.",
              "We recommend coming in {f} before departure.", "Ideally we need to see you {f} before you fly."],
         fix=["We'd recommend {f} rather than {mq}, as some courses take a while to complete."],
         hold=["Could you fill in the travel questionnaire on our website first? The nurse will then advise which vaccines you need."],
         plus=["Some travel vaccines are charged; the nurse will give you a price at the appointment."],
         call=["{caller} called re jabs for {country}, travelling {adate}."],
         note=["Advised to book travel clinic {f} before departure.", "Told caller we need {f} notice before travel."],
         notefix=["Caller thought {mq}; advised {f}."]),
    dict(id="registration_proof_of_address", weight=16, fact="3 months", forms=["3 months", "three months", "90 days"],
         questions=["How recent does my proof of address need to be to register with the practice?",
                    "What proof of address do you need when joining, and how old can it be?"],
         wrong=["6 months", "12 months", "a year"],
         subject=["Registering", "New patient registration", "Joining the practice"],
         label="Registration",
         situ=["We've just moved to {addr}, {postcode} and want to register the whole family.",
               "I'd like to join the practice, I've moved here from {country} for work.",
               "I'm registering my mum who has moved into {home}."],
         ask=["What proof of address do I need?", "How recent does the proof of address have to be?"],
         misq=["Is a bank statement from {mq} ago OK?"],
         say=["Please bring photo ID and proof of address dated within the last {f}, such as a utility bill or bank statement.",
              "Proof of address must be no older than {f}.",
              "We'll need a bill or statement from the last {f} showing your new address."],
         fix=["I'm afraid {mq} is too old; proof of address needs to be from the last {f}."],
         hold=["Could you let me know whether you are joining as Wrenfold Plus or Wrenfold Essentials members? The forms are different."],
         plus=["You can also start registration online at " + WEB + "."],
         call=["{caller} called asking about registering, moved to {postcode}."],
         note=["Advised photo ID + proof of address within {f}.", "Explained proof of address must be dated in last {f}."],
         notefix=["Caller has letter from {mq} ago; advised must be within {f}."]),
    dict(id="fit_note_self_certification", weight=13, fact="7 days",
         forms=["7 days", "seven days", "7 calendar days", "seven calendar days"],
         questions=["How long can I be off sick before I need a fit note from the doctor?",
                    "For how many days can I self-certify sickness?"],
         wrong=["3 days", "10 days", "two weeks", "14 days"],
         subject=["Sick note", "fit note for work", "Sick note for employer"],
         label="Letters and reports",
         situ=["I've been off work with {illness} since {rdate} and my manager {tp} is asking for a sick note.",
               "My employer needs my NI number ({ni}) and a fit note, I've been off since {rdate}."],
         ask=["Do I need a fit note yet?", "How long can I be off before I need one from the doctor?"],
         misq=["HR say I need one after {mq}."],
         say=["You can self-certify for the first {f} of sickness, so you only need a fit note from us after that.",
              "For absences of up to {f} your employer should accept a self-certification form.",
              "A fit note is only needed once you've been off for more than {f}."],
         fix=["Employees can self-certify for the first {f}, not {mq}."],
         hold=["The doctor will need to speak to you before issuing a fit note. Can we book you a telephone appointment?"],
         plus=["If you need one after that, {doc} can issue it after a phone consultation."],
         call=["{caller} rang re sick note, off work with {illness} since {rdate}."],
         note=["Advised can self-certify for first {f}.", "Explained fit note only needed after {f}."],
         notefix=["Employer told pt {mq}; advised self-cert for {f}."]),
    dict(id="evening_opening", weight=10, fact="8pm", forms=["8pm", "8 pm", "8.00pm", "20:00"],
         questions=["How late is the practice open on weekday evenings?",
                    "Until what time can I get an evening appointment?"],
         wrong=["7pm", "7.30pm", "9pm"],
         subject=["Evening appointments", "Late opening?"],
         label="Appointments",
         situ=["I work 9 to 5 in town and can't get time off for appointments.",
               "My husband {tp_m} commutes to London and only gets back in the evening."],
         ask=["How late are you open?", "Do you do evening appointments, and until when?"],
         misq=["Someone said you're open till {mq}?"],
         say=["We're open until {f} on Tuesdays and Thursdays for pre-booked appointments.",
              "Late appointments run until {f} twice a week.",
              "On Tuesday and Thursday evenings the last appointments finish at {f}."],
         fix=["We're open until {f} on those evenings, not {mq}."],
         hold=["Which doctor would you like to see? Not all of them do evening surgeries."],
         plus=["We're also open Saturday mornings."],
         call=["{caller} asked about evening appts."],
         note=["Advised open until {f} Tues and Thurs.", "Told caller late surgery runs to {f}."],
         notefix=["Caller thought {mq}; advised {f}."]),
    dict(id="records_copy_timescale", weight=7, fact="one month",
         forms=["one month", "1 month", "one calendar month", "a calendar month"],
         questions=["How long does it take to get a copy of my medical records?",
                    "When will I receive my records after a subject access request?"],
         wrong=["40 days", "two weeks", "10 working days"],
         subject=["Copy of my records", "Subject access request"],
         label="Medical records",
         situ=["I'm moving to {country} and my new doctor wants a copy of my records.",
               "My solicitor has asked for a copy of my medical records."],
         ask=["How long will it take to get them?", "When can I expect the copy?"],
         misq=["I thought it had to be done within {mq}?"],
         say=["We'll send your records within {f} of receiving your request and ID.",
              "Subject access requests are completed within {f}.", "Please allow {f} for copies of records."],
         fix=["The legal timescale is {f}, rather than {mq}."],
         hold=["Could you confirm whether you want the full record or just the last few years?"],
         plus=["There's no charge for a copy of your own records."],
         call=["{caller} called re copy of records for solicitor."],
         note=["Advised SAR completed within {f}.", "Told caller records sent within {f}."],
         notefix=["Caller thought {mq}; advised {f}."]),
    dict(id="fasting_blood_test", weight=5, fact="12 hours", forms=["12 hours", "twelve hours"],
         questions=["How long do I need to fast before a fasting blood test?",
                    "How long before my blood test should I stop eating?"],
         wrong=["8 hours", "6 hours", "4 hours"],
         subject=["Fasting blood test", "fasting?"],
         label="Test results",
         situ=["I've got a fasting blood test on {adate} at {atime} with {nurse}."],
         ask=["How long do I need to fast for?", "When should I stop eating the night before?"],
         misq=["I was told {mq}, is that right?"],
         say=["Please don't eat for {f} before the test; water is fine.", "You'll need to fast for {f} beforehand.",
              "Nothing to eat for {f} before the appointment, but do drink water."],
         fix=["It's {f}, not {mq}, for this test."],
         hold=["Which test has the doctor requested? Not all blood tests need fasting."],
         plus=["Take your usual medication unless the doctor has said otherwise."],
         call=["{caller} asked how long to fast before bloods {adate}."],
         note=["Advised fast for {f}, water OK.", "Told to fast {f} before test."],
         notefix=["Caller thought {mq}; advised {f}."]),
]


def holds(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


EVERY_FORM = [f for t in TOPICS for f in t["forms"]]
for _t in TOPICS:
    for _w in _t["wrong"]:
        assert not any(holds(_w, f) or holds(f, _w) for f in EVERY_FORM), _w

REASONS = [("my son was sent home from school with a temperature", "son sent home from school with temp"),
           ("I was stuck on the M32 behind an accident", "stuck in traffic on M32"),
           ("I woke up with a migraine", "migraine"), ("my shift got changed at the last minute", "shift changed"),
           ("the bus didn't turn up", "no bus"), ("my mum had a fall and I had to go round", "mother had a fall"),
           ("I had food poisoning", "unwell, D&V"), ("work called me in", "called into work"),
           ("the childminder cancelled", "no childcare")]
COMPLAINTS = ["a chest infection that won't clear", "ear pain", "a rash", "back pain", "heavy periods",
              "a cough that's been going for weeks", "a painful knee", "anxiety", "a UTI", "a mole that has changed"]
ILLNESSES = ["flu", "a chest infection", "back pain", "covid", "a stomach bug", "stress", "a migraine"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]

# ------------------------------------------------------------------------------------------ machinery


class Priv:
    """A personal string, recorded in the record's PII list when a template writes it."""
    __slots__ = ("kind", "text")

    def __init__(self, kind, text):
        self.kind, self.text = kind, text


class Slots(dict):
    def __init__(self, values):
        super().__init__(values)
        self.found: list[dict] = []

    def __getitem__(self, key):
        return self.put(dict.__getitem__(self, key))

    def put(self, v):
        if isinstance(v, Priv):
            if not any(x["kind"] == v.kind and x["text"] == v.text for x in self.found):
                self.found.append({"kind": v.kind, "text": v.text})
            return v.text
        if isinstance(v, (list, tuple)):
            return "".join(self.put(x) for x in v)
        return v

    def fmt(self, template):
        return template.format_map(self)


SLIPS = {"prescription": "perscription", "appointment": "appointmnet", "doctor": "docter", "receive": "recieve",
         "results": "resluts", "medication": "medicaton", "cancelled": "canceled", "vaccinations": "vacinations",
         "immediately": "immediatley", "certificate": "certifcate", "surgery": "surgury", "tomorrow": "tomorow",
         "definitely": "defiantly", "necessary": "neccesary", "receptionist": "receptionest", "because": "cos",
         "know": "no", "there": "their", "you": "u", "please": "plz", "wondered": "wonderd", "really": "realy",
         "separate": "seperate", "address": "adress", "whether": "wether", "thanks": "thx", "should": "shoud"}
_TOK = re.compile(r"[A-Za-z']+")
_SLOT = re.compile(r"(\{[a-z0-9_]+\})")


class Voice:
    """How one patient writes."""

    def __init__(self, rng):
        r = rng.random()
        self.case = "upper" if r < 0.03 else "lower" if r < 0.12 else "normal"
        self.slip = rng.choice([0, 0, 0, 0, 0.01, 0.025, 0.04, 0.07])
        self.no_apostrophe = rng.random() < 0.15
        self.chatty = rng.random() < 0.3
        self.dots = rng.random() < 0.1


def write_as(rng, voice, template):
    pieces = []
    for bit in _SLOT.split(template):
        if _SLOT.fullmatch(bit):
            pieces.append(bit)
            continue
        if voice.case == "lower":
            bit = bit.lower()
        elif voice.case == "upper":
            bit = bit.upper()
        if voice.no_apostrophe:
            bit = re.sub(r"(?<=\w)'(?=(t|s|m|re|ve|ll|d)\b)", "", bit)
        if voice.dots:
            bit = bit.replace(". ", "... ")
        if voice.slip:
            def slip(m):
                w = m.group(0)
                lw = w.lower()
                if lw in SLIPS and rng.random() < voice.slip * 5:
                    return SLIPS[lw].upper() if voice.case == "upper" else SLIPS[lw]
                if len(w) > 5 and rng.random() < voice.slip and not w[0].isupper():
                    k = rng.randrange(1, len(w) - 2)
                    return w[:k] + w[k + 1] + w[k] + w[k + 2:] if rng.random() < 0.5 else w[:k] + w[k + 1:]
                return w
            bit = _TOK.sub(slip, bit)
        pieces.append(bit)
    return "".join(pieces)


def cased(voice, s):
    return s.lower() if voice.case == "lower" else s.upper() if voice.case == "upper" else s


def nhs_number(rng):
    while True:
        d = [rng.randint(0, 9) for _ in range(9)]
        if d[0] == 0:
            continue
        chk = 11 - sum(x * (10 - i) for i, x in enumerate(d)) % 11
        if chk == 11:
            chk = 0
        if chk == 10:
            continue
        s = "".join(map(str, d)) + str(chk)
        return s


def ordinal(d):
    return f"{d}{'th' if 11 <= d <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(d % 10, 'th')}"


def write_dob(rng, d):
    m = MONTHS[d.month - 1]
    return rng.choice([f"{d.day:02d}/{d.month:02d}/{d.year}", f"{d.day}/{d.month}/{d.year % 100:02d}",
                       f"{ordinal(d.day)} {m} {d.year}", f"{d.day}.{d.month}.{d.year % 100:02d}",
                       f"{d.day} {m[:3]} {d.year}", f"{d.day:02d}-{d.month:02d}-{d.year}", f"{d.day} {m} {d.year}",
                       f"{m[:3]} {ordinal(d.day)} {d.year}"])


def day_phrase(rng, d):
    m = MONTHS[d.month - 1]
    return rng.choice([f"{d.strftime('%A')} {ordinal(d.day)}", f"{d.day}/{d.month}", f"{ordinal(d.day)} {m}",
                       f"{d.day} {m[:3]}", f"{d.strftime('%a')} {d.day:02d}/{d.month:02d}", f"the {ordinal(d.day)}"])


def patient(rng, k):
    sex = rng.choices("FMX", [52, 46, 2])[0]
    comm = community(rng)
    given = given_name(rng, comm, sex if sex != "X" else rng.choice("FM"))
    family = family_name(rng, comm)
    if rng.random() < 0.04:
        family = f"{family}-{rng.choice(FAMILY)}"
    title = {"F": rng.choice(["Mrs", "Ms", "Miss", "Mrs"]), "M": "Mr", "X": "Mx"}[sex]
    if rng.random() < 0.03:
        title = rng.choice(["Dr", "Rev", "Prof"])
    born = date(rng.randint(1932, 2006), rng.randint(1, 12), rng.randint(1, 28))
    flat = re.sub(r"[^a-z]", "", given.lower().translate(str.maketrans("áéíóúñçãõèëêłśżźćąęńöüåøœ", "aeiouncaoeeelszzcaenouaoo")))
    flatf = re.sub(r"[^a-z]", "", family.lower().translate(str.maketrans("áéíóúñçãõèëêłśżźćąęńöüåøœ", "aeiouncaoeeelszzcaenouaoo")))
    host = rng.choice(["example.com", "example.net", "example.org", "example.com"])
    mail = rng.choice([f"{flat}.{flatf}@{host}", f"{flat[0]}{flatf}{born.year % 100:02d}@{host}",
                       f"{flatf}.{flat[0]}@{host}", f"{flat}{born.year}@{host}", f"{flat}.{flatf}{rng.randint(1, 99)}@{host}",
                       f"{flatf}family@{host}", f"{flat}_{flatf[:3]}@{host}"])
    tel = rng.choice([f"07700 900{rng.randint(0, 999):03d}"] * 4 + [f"0117 496 0{rng.randint(0, 999):03d}",
                                                                   f"01632 960{rng.randint(0, 999):03d}"])
    pc_out, area = rng.choice(AREAS)
    postcode = f"{pc_out} {rng.randint(1, 9)}{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}"
    u = rng.random()
    num = rng.randint(1, 199)
    if u < 0.5:
        street = f"{num} {rng.choice(STREETS)} {rng.choice(KINDS)}"
    elif u < 0.68:
        street = f"{num} {rng.choice(BARE)}"
    elif u < 0.85:
        street = f"Flat {rng.choice([str(rng.randint(1, 24)), 'A', 'B', 'C', 'G01'])}, {num} {rng.choice(STREETS)} {rng.choice(KINDS)}"
    elif u < 0.93:
        street = f"{rng.choice(['Rose', 'Ivy', 'Wisteria', 'Yew Tree', 'Old School', 'Hillview'])} Cottage, {rng.choice(STREETS)} Lane"
    else:
        street = f"{num}{rng.choice('ab')} {rng.choice(STREETS)} {rng.choice(KINDS)}"
    card = "".join(rng.choice("0123456789") for _ in range(4))
    ni = (rng.choice("ABCEGHJKLMNPRSTWXYZ") + rng.choice("ABCEGHJKLMNPRSTWXYZ")
          + "".join(rng.choice("0123456789") for _ in range(6)) + rng.choice("ABCD"))
    return dict(pid=f"PT{k:05d}", comm=comm, sex=sex, given=given, family=family, title=title, born=born, mail=mail, tel=tel,
                street=street, area=area, postcode=postcode, patno=f"WF-{rng.randint(100000, 399999)}",
                nhs=nhs_number(rng), card=card, ni=ni, voice=Voice(rng), seen=0)


def tel_written(rng, t):
    digits = t.replace(" ", "")
    if digits.startswith("07"):
        return rng.choice([t, t, digits, f"{digits[:5]} {digits[5:8]} {digits[8:]}", f"+44 {digits[1:5]} {digits[5:]}",
                           f"+44 (0) {digits[1:5]} {digits[5:]}", f"{digits[:5]}.{digits[5:]}", f"(07700) {digits[5:]}"])
    return rng.choice([t, digits, f"({t[:4] if t.startswith('0117') else t[:5]}) {t[5:] if t.startswith('0117') else t[6:]}",
                       f"+44 {t[1:]}"])


def plate(rng):
    A = "ABCDEFGHJKLMNOPRSTUVWXY"
    s = f"W{rng.choice('AFGJKLMNPRU')}{rng.choice(['09', '12', '14', '15', '61', '64', '18', '19', '68', '69', '21', '71', '23', '73'])} {''.join(rng.choice(A) for _ in range(3))}"
    if rng.random() < 0.4:
        s = f"{rng.choice(A)}{rng.choice(A)}{s[2:]}"
    return rng.choice([s, s, s.replace(" ", ""), s.lower()])


def money(rng):
    while True:
        s = rng.choice([f"£{rng.randint(4, 480)}.{rng.randint(0, 99):02d}", f"£{rng.randint(4, 480)}"])
        if not any(holds(s, f) or holds(f, s) for f in EVERY_FORM):
            return s


# ---------------------------------------------------------------------------------------- one record


def slots_for(rng, topic, pt, when, wrong):
    v = pt["voice"]
    gv, fm = pt["given"], pt["family"]
    appt = when + timedelta(days=rng.choice([1, 1, 2, 3, 5, 9, 16, 23]))
    reason = rng.choice(REASONS)
    past = when - timedelta(days=rng.choice([0, 1, 1, 2, 3, 6]))
    req = when - timedelta(days=rng.randint(1, 8))
    doc = rng.choice(DOCTORS)
    doc_w = rng.choice([f"Dr {doc}", f"Dr {doc}", f"Dr. {doc}", f"Dr {DOC_FIRST[doc]} {doc}", f"dr {doc.lower()}"])
    if v.case == "upper":
        doc_w = doc_w.upper()
    rel_sex = rng.choice("FM")
    tp_given = given_name(rng, pt["comm"] if rng.random() < 0.75 else community(rng), rel_sex)
    tp_w = tp_given if rng.random() < 0.6 else f"{tp_given} {fm if rng.random() < 0.6 else family_name(rng, pt['comm'])}"
    kid = given_name(rng, pt["comm"], rng.choice("FM"))
    kid_born = date(rng.randint(2008, 2022), rng.randint(1, 12), rng.randint(1, 28))
    sort = f"{rng.randint(10, 99)}-{rng.randint(10, 99)}-{rng.randint(10, 99)}"
    acct = f"{rng.randint(10000000, 99999999)}"
    nhs = pt["nhs"]
    nhs_w = rng.choice([f"{nhs[:3]} {nhs[3:6]} {nhs[6:]}", nhs, f"{nhs[:3]}-{nhs[3:6]}-{nhs[6:]}"])
    pc = pt["postcode"]
    inv = f"INV-{rng.randint(20000, 48999)}"
    mi = rng.choice(["A", "J", "M", "R", "S", "L", "K"])
    dl = (re.sub(r"[^A-Z]", "", fm.upper().translate(str.maketrans("ÁÉÍÓÚÑÇÃÕÈËÊŁŚŻŹĆĄĘŃÖÜ", "AEIOUNCAOEEELSZZCAENOU"))) + "99999")[:5] \
        + f"{pt['born'].year % 100 // 10}{pt['born'].month + (50 if pt['sex'] == 'F' else 0):02d}{pt['born'].day:02d}{pt['born'].year % 10}{gv[0].upper()}{mi}9{rng.choice('ABCDEFGHJK')}{rng.choice('ABCDEFGHJK')}"
    return {
        "name": Priv("person_name", cased(v, f"{gv} {fm}")), "given": Priv("person_name", cased(v, gv)),
        "name_c": Priv("person_name", f"{gv} {fm}"), "given_c": Priv("person_name", gv),
        "formal": Priv("person_name", f"{pt['title']} {fm}"),
        "initials": Priv("person_name", f"{gv[0]}. {fm}" if rng.random() < 0.5 else f"{pt['title']} {gv[0]} {fm}"),
        "dob": Priv("date_of_birth", write_dob(rng, pt["born"])),
        "dob_c": Priv("date_of_birth", pt["born"].strftime("%d/%m/%Y")),
        "patno": Priv("account_number", pt["patno"]),
        "patno_w": Priv("account_number", rng.choice([pt["patno"], pt["patno"].replace("-", ""), pt["patno"].lower(), pt["patno"][3:]])),
        "nhs": Priv("other_id", nhs_w), "ni": Priv("national_id", rng.choice([pt["ni"], f"{pt['ni'][:2]} {pt['ni'][2:4]} {pt['ni'][4:6]} {pt['ni'][6:8]} {pt['ni'][8]}"])),
        "tel": Priv("phone", tel_written(rng, pt["tel"])), "tel_c": Priv("phone", pt["tel"]), "mail": Priv("email", pt["mail"]),
        "addr": Priv("address", cased(v, pt["street"])),
        "postcode": Priv("postcode", rng.choice([pc, pc, pc.lower(), pc.replace(" ", "")])),
        "area": pt["area"],
        "doc": Priv("third_party_name", doc_w), "docx": Priv("third_party_name", f"Dr {doc}"),
        "nurse": Priv("third_party_name", rng.choice(NURSES)),
        "tp": Priv("third_party_name", cased(v, tp_w)), "tp_c": Priv("third_party_name", tp_w), "tp_sex": rel_sex,
        "tp_m": Priv("third_party_name", cased(v, given_name(rng, pt["comm"] if rng.random() < 0.8 else community(rng), "M"))),
        "tp_f": Priv("third_party_name", cased(v, given_name(rng, pt["comm"] if rng.random() < 0.8 else community(rng), "F"))),
        "kid": Priv("third_party_name", cased(v, kid)), "kid_c": Priv("third_party_name", kid),
        "kid_dob": Priv("date_of_birth", write_dob(rng, kid_born)),
        "home": rng.choice(HOMES), "reason": reason[0], "reason_n": reason[1], "complaint": rng.choice(COMPLAINTS),
        "illness": rng.choice(ILLNESSES), "country": rng.choice(COUNTRIES), "insurer": rng.choice(INSURERS),
        "policy": Priv("account_number", f"{rng.choice(['MH', 'CW', 'NS', 'HA'])}{rng.randint(1000000, 9999999)}"),
        "med": rng.choice(MEDS), "pharmacy": rng.choice(PHARMACIES),
        "rxno": Priv("other_id", f"{rng.randint(100000, 999999)}{rng.choice('ABCDEFGHJK')}"),
        "sample": Priv("other_id", f"{rng.choice(['BH', 'LB', 'SM'])}{rng.randint(1000000, 9999999)}"),
        "adate": day_phrase(rng, appt), "rdate": day_phrase(rng, req), "pdate": day_phrase(rng, past),
        "atime": rng.choice(["8.40", "9:10am", "10.20", "11:30", "2.50pm", "3:40", "4.10pm", "5pm", "ten past nine"]),
        "month": MONTHS[(when.month + rng.randint(0, 3)) % 12],
        "plate": Priv("licence_plate", plate(rng)),
        "card": Priv("card_number", rng.choice([pt["card"], pt["card"], f"*{pt['card']}", f"xxxx {pt['card']}"])),
        "bank": ("sort code ", Priv("iban", sort), " account ", Priv("iban", acct)),
        "resurl": Priv("url_with_id", f"https://{WEB}/online/results/{rng.randint(1000000, 9999999)}"),
        "payurl": Priv("url_with_id", f"https://pay.wrenfoldmedical.example.com/{inv}"),
        "inv": Priv("account_number", inv), "dl": Priv("other_id", dl),
        "money": money(rng), "today": when.date(), "mq": wrong or "", "web": WEB, "tel_practice": TEL,
    }


OPEN_LINES = ["", "", "", "Hope you are well.", "Sorry to bother you.", "I hope someone can help me with this.",
              "Quick question if that's OK.", "I've tried ringing but can't get through."]
ID_LINES = ["My date of birth is {dob}.", "DOB {dob}", "(DOB {dob})", "My patient number is {patno_w}.",
            "NHS number {nhs}.", "DOB: {dob}, patient no {patno_w}", "I'm registered under {name}, born {dob}.",
            "For reference my NHS no. is {nhs} and DOB {dob}."]
REACH = ["Best to call me on {tel}.", "You can text me on {tel}.", "My number is {tel} if easier.",
         "I'm on {tel} all day.", "Please reply by email, I'm in meetings all day.", "Mobile {tel}"]
PAT_END = ["Thanks", "Many thanks", "Thank you", "Kind regards", "Regards", "Best wishes", "Thanks so much",
           "Yours faithfully", "Thank you in advance", "Cheers", "thanks"]
DESK_OPEN = ["Thank you for your message.", "Thanks for getting in touch.", "Thanks for your email.",
             "Thank you for contacting the practice.", "Many thanks for your message.", "",
             "Sorry for the slow reply, it's been a busy week.", "Thank you for letting us know."]
DESK_END = ["Kind regards", "Best wishes", "Many thanks", "Warm regards", "Thanks"]
DESK_TAIL = ["", "", "", "If you have any other questions please call us on " + TEL + ".",
             "Further information is on our website, " + WEB + ".", "Please don't hesitate to get in touch if we can help further.",
             "Reception is open 8am to 6.30pm, Monday to Friday, on " + TEL + ".",
             "Wrenfold Plus members can book a Well Person Check once a year at no extra cost."]


ASIDES = {
    "late_cancellation_fee": ["I'm happy to pay by card, it's the one ending {card}.",
                              "If it's already been taken from my card ({card}) please refund it to {bank}.",
                              "My car reg is {plate} in case the car park camera matters."],
    "private_gp_fee": ["I can pay over the phone, card ending {card}.", "My NI number is {ni} if you need it to register me."],
    "medical_report_fee": ["The insurer asked me to pass on my NI number, it's {ni}.", "I can pay by card - last 4 digits {card}."],
    "fit_note_self_certification": ["My NI number is {ni} if it needs to go on the note."],
    "registration_proof_of_address": ["My NI number is {ni}.", "My driving licence number is {dl} if that counts as photo ID."],
    "travel_vaccine_notice": ["We'll pay on the day, card ending {card}."],
    "other": ["My driving licence number is {dl} if you need ID.", "I'll be driving, reg {plate}, is there parking?",
              "I can pay for anything by card, ending {card}.", "National insurance no. {ni} in case it's needed."],
}


def patient_message(rng, topic, pt, slots, wrong):
    v = pt["voice"]
    parts = []
    if pt["seen"] > 1 and rng.random() < 0.35:
        parts.append(rng.choice(["Following on from my earlier message,", "Me again, sorry!", "A different question this time."]))
    else:
        parts.append(rng.choice(OPEN_LINES))
    age = (slots["today"] - pt["born"]).days // 365
    fits = [x for x in topic["situ"] if "{kid}" not in x or 24 <= age <= 60]
    situ = rng.choice(fits)
    parts.append(situ)
    if v.chatty:
        parts.append(rng.choice(["It's been a stressful few weeks to be honest.", "I don't want to waste anyone's time.",
                                 "Your staff are always lovely so I hope this isn't a silly question.",
                                 "I couldn't find the answer on the website.", "I did look on the website but got confused."]))
    asks = [a for a in topic["ask"] if "decide" not in a or "might" in situ]
    if wrong:
        parts.append(rng.choice(topic["misq"]))
        if rng.random() < 0.4:
            parts.append(rng.choice(asks))
    else:
        parts.append(rng.choice(asks))
    if rng.random() < 0.5:
        parts.append(rng.choice(ID_LINES))
    if rng.random() < 0.3:
        parts.append(rng.choice(REACH))
    if rng.random() < 0.17:
        parts.append(rng.choice(ASIDES.get(topic["id"], ASIDES["other"])))
    return " ".join(slots.fmt(write_as(rng, v, p)) for p in parts if p)


def desk_answer(rng, topic, slots, wrong, tells, brief=False):
    if wrong:
        core = rng.choice(topic["fix"])
    elif tells:
        core = rng.choice(topic["say"])
    else:
        core = rng.choice(topic["hold"])
    bits = [] if brief else [rng.choice(DESK_OPEN)]
    bits.append(core)
    if rng.random() < (0.25 if brief else 0.5):
        bits.append(rng.choice(topic["plus"]))
    if not brief:
        bits.append(rng.choice([x for x in DESK_TAIL if WEB not in x or WEB not in " ".join(bits)]))
    return " ".join(slots.fmt(b) for b in bits if b)


def pick(rng, topic, k):
    forms = topic["forms"]
    if len(forms) == 1:
        return forms[0]
    return forms[0] if rng.random() < 0.5 else forms[1 + (k + rng.randrange(len(forms) - 1)) % (len(forms) - 1)]


def office_hours(rng, when):
    """When the desk got round to answering: the same or a later weekday, 8am to 6.30pm."""
    t = when + timedelta(hours=rng.choice([1, 2, 3, 5, 20, 26, 48]), minutes=rng.randint(0, 59))
    if t.hour < 8 or t.hour >= 18:
        t = (t + timedelta(days=1 if t.hour >= 18 else 0)).replace(hour=rng.randint(8, 11))
    while t.weekday() >= 5:
        t += timedelta(days=1)
    return t


def portal(rng, topic, pt, slots, when, wrong, tells, staff):
    v = pt["voice"]
    msg = patient_message(rng, topic, pt, slots, wrong)
    end = write_as(rng, v, rng.choice(PAT_END))
    sig = slots.fmt(rng.choice(["{given}", "{name}", "{name}", "{initials}", ""]))
    subj = slots.fmt(write_as(rng, v, rng.choice(topic["subject"])))
    back = office_hours(rng, when)
    who = slots.fmt(rng.choice(["{staff}, Reception Team", "{staff} (Reception)", "Reception - {staff}",
                                "{staff} | Patient Services"]))
    hello = slots.fmt(rng.choice(["Dear {given_c},", "Hi {given_c},", "Dear {formal},", "Hello {given_c},", "Good morning,"]))
    reply = desk_answer(rng, topic, slots, wrong, tells)
    head = slots.fmt(rng.choice(["WRENFOLD ONLINE - secure message", "Wrenfold Online | Secure message"]) + "\nPatient: {name_c} | DOB {dob_c} | " + rng.choice(["Patient no. {patno}", "NHS no. {nhs}"]))
    return (f"{head}\nReceived {when:%d/%m/%Y %H:%M}   Subject: {subj}\n\n{msg}\n{end}\n{sig}".rstrip()
            + f"\n\nReply sent {back:%d/%m/%Y %H:%M} by {who}:\n{hello}\n{reply}\n"
            + slots.fmt(rng.choice(DESK_END) + ",\n{staff_short}"))


def phone_note(rng, topic, pt, slots, when, wrong, tells, staff):
    v = pt["voice"]
    # the receptionist types names as they are on the record, not as the patient writes them
    for k, canon in (("doc", "docx"), ("tp", "tp_c"), ("kid", "kid_c")):
        slots[k] = dict.__getitem__(slots, canon)
    if rng.random() < 0.6:
        slots["caller"] = slots.fmt(rng.choice(["Pt", "Patient", "Pt", "{formal}"]))
        caller_line = rng.choice(["Caller: patient", "Caller: pt (verified name, DOB, address)", "Caller: patient, ID checked"])
    else:
        rel = rng.choice(["wife", "daughter", "carer", "partner", "mum"] if dict.__getitem__(slots, "tp_sex") == "F"
                         else ["husband", "son", "carer", "partner", "dad"])
        slots["caller"] = slots.fmt(rng.choice([f"Pt's {rel}", f"{rel.capitalize()} " + "{tp}", "Caller"]))
        caller_line = f"Caller: {rel} " + "{tp}" + rng.choice([" (consent on file)", " - consent on record",
                                                               ", verbal consent given by pt", ""])
    call = slots.fmt(rng.choice(topic["call"]))
    call = call[0].upper() + call[1:]
    if wrong:
        advice = rng.choice(topic["notefix"])
    elif tells:
        advice = rng.choice(topic["note"])
    else:
        advice = rng.choice(["Unable to confirm on the phone - message sent to practice manager to call back.",
                             "Need more info - asked caller to email " + DESK + " with details.",
                             "Checked record, passed query to admin team. Will call back tomorrow."])
    extra = ""
    if rng.random() < 0.45:
        extra = " " + rng.choice(["Caller happy with this.", "Caller not happy, asked for manager to call back.",
                                  "Confirmed mobile number on record.", "Updated contact details.",
                                  "Caller will ring back if any problems.", "Also reminded re Wrenfold Online."])
    lines = [f"TELEPHONE ENCOUNTER  {when:%d.%m.%y %H:%M}  recorded by " + "{staff}" + rng.choice([" (Reception)", " - Reception", " (Admin)"]),
             caller_line,
             "Patient: {name_c}, DOB {dob}" + rng.choice(["", ", " + "{patno}", ", NHS no {nhs}"]) + rng.choice(["", "  Tel: {tel_c}"]),
             "Reason: " + call.replace("{", "{{").replace("}", "}}"),
             "Action/advice: " + slots.fmt(advice).replace("{", "{{").replace("}", "}}") + extra]
    if rng.random() < 0.5:
        # the note often carries the receptionist's own words to the caller, quoted
        lines.append("Said to caller: \"" + desk_answer(rng, topic, slots, wrong, tells, brief=True).replace("{", "{{").replace("}", "}}") + "\"")
    if rng.random() < 0.35:
        lines.append("Address checked: {addr}, {postcode}")
    return slots.fmt("\n".join(lines))


def manager_email(rng, topic, pt, slots, when, wrong, tells, staff):
    v = pt["voice"]
    hello = write_as(rng, v, rng.choice(["Dear Sir or Madam,", "Hello,", "Hi Wrenfold team,", "To the practice manager,", "Dear Reception,", "Hi"]))
    msg = patient_message(rng, topic, pt, slots, wrong)
    end = write_as(rng, v, rng.choice(PAT_END))
    sig = rng.choice(["{name}", "{name}\n{addr}\n{postcode}", "{initials}\n{tel}", "{given}", "{name}\nDOB {dob}"])
    subj = write_as(rng, v, rng.choice(topic["subject"]))
    dear = rng.choice(["Dear {formal},", "Dear {given_c},", "Dear {name_c},"])
    reply = desk_answer(rng, topic, slots, wrong, tells)
    role = "Practice Manager" if staff in MANAGERS else rng.choice(["Senior Receptionist", "Reception Team Lead", "Patient Services"])
    mgr = rng.choice(["{staff_full}\n" + role + "\n" + PRACTICE, "{staff_full}, " + role,
                      "{staff_full}\n" + role + " | " + PRACTICE + " | " + TEL])
    sent = when.strftime("%A %d %B %Y %H:%M")
    text = ("From: {mail}\nTo: " + DESK + f"\nSent: {sent}\nSubject: " + subj + "\n\n" + hello + "\n\n"
            + msg.replace("{", "{{").replace("}", "}}") + "\n\n" + end + "\n" + sig
            + "\n\n----- Response -----\n" + dear + "\n\n" + reply.replace("{", "{{").replace("}", "}}")
            + "\n\nYours sincerely,\n" + mgr)
    return slots.fmt(text)


def ask_form(rng, topic, pt, slots, when, wrong, tells, staff):
    v = pt["voice"]
    msg = patient_message(rng, topic, pt, slots, wrong).replace("{", "{{").replace("}", "}}")
    rows = [f"AskWrenfold admin request - submitted {when:%d/%m/%Y %H:%M}", "Name: {name}", "Date of birth: {dob}",
            ("Mobile: {tel}" if pt["tel"].startswith("07") else "Phone: {tel}")]
    if rng.random() < 0.6:
        rows.append("Email: {mail}")
    if rng.random() < 0.3:
        rows.append("Address: {addr}, {postcode}")
    rows += [f"What do you need help with? {topic['label']}", "Tell us more: " + msg,
             "OK to reply by text? " + rng.choice(["Yes", "Yes", "yes please", "Yes (mobile above)"])]
    sms = desk_answer(rng, topic, slots, wrong, tells, brief=True).replace("{", "{{").replace("}", "}}")
    hi = rng.choice(["Hi {given_c}, ", "Hello {given_c}. ", "Dear {formal}, ", ""])
    if hi.endswith(", ") and not re.match(r"I\b|I'", sms):
        sms = sms[0].lower() + sms[1:]
    sig = rng.choice(["{staff}, " + PRACTICE, PRACTICE + " ({staff})", "From {staff} at " + PRACTICE])
    rows += ["", f"SMS sent {office_hours(rng, when):%d/%m/%y %H:%M}: " + hi + sms + " " + sig
             + rng.choice([". Please do not reply to this message.", ".", ". Replies to this number are not monitored."])]
    return slots.fmt("\n".join(rows))


CHANNELS = [(portal, 34), (phone_note, 24), (manager_email, 20), (ask_form, 22)]


def staff_for(rng, channel):
    if channel is manager_email and rng.random() < 0.8:
        return rng.choice(MANAGERS)
    return rng.choice(RECEPTION)


def apportion(n):
    w = [t["weight"] for t in TOPICS]
    exact = [n * x / sum(w) for x in w]
    out = [max(1, int(e)) for e in exact]
    rest = sorted(range(len(w)), key=lambda i: int(exact[i]) - exact[i])
    j = 0
    while sum(out) < n:
        out[rest[j % len(rest)]] += 1
        j += 1
    while sum(out) > n:
        out[out.index(max(out))] -= 1
    return out


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    rng = random.Random(f"wrenfold/{seed}/{n}")
    sizes = apportion(n)
    queue = [t for t, k in zip(TOPICS, sizes) for _ in range(k)]
    rng.shuffle(queue)
    roster: list[dict] = []
    records, pii = [], []
    tally = {t["id"]: [0, 0, 0] for t in TOPICS}  # told, misquoted, seen
    clock = datetime(2023, rng.randint(1, 12), rng.randint(1, 28), 8, 0)
    # which contacts quote a wrong figure (about 10%) and which answers hold off (about 6%)
    plan = {}
    for t, k in zip(TOPICS, sizes):
        k_wrong, k_hold = round(k * 0.1), round(k * 0.06)
        marks = ["wrong"] * k_wrong + ["hold"] * k_hold + ["tell"] * (k - k_wrong - k_hold)
        rng.shuffle(marks)
        plan[t["id"]] = marks
    for i, topic in enumerate(queue):
        mark = plan[topic["id"]].pop()
        clock += timedelta(minutes=rng.randint(10, 700))
        if clock.weekday() == 6:
            clock += timedelta(days=1)
        if clock.hour < 8 or clock.hour > 19:
            clock = clock.replace(hour=rng.randint(8, 18))
        returning = [q for q in roster if q["seen"] < 3]
        if returning and rng.random() < 0.26:
            pt = rng.choice(returning[-60:])
        else:
            pt = patient(rng, len(roster) + 1)
            roster.append(pt)
        pt["seen"] += 1
        channel = rng.choices([c for c, _ in CHANNELS], [w for _, w in CHANNELS])[0]
        staff = staff_for(rng, channel)
        tal = tally[topic["id"]]
        for _ in range(50):
            wrong = rng.choice(topic["wrong"]) if mark == "wrong" else None
            tells = mark != "hold"
            slots = Slots(slots_for(rng, topic, pt, clock, wrong))
            slots["f"] = pick(rng, topic, tal[2])
            slots["staff"] = Priv("agent_name", staff[0])
            slots["staff_short"] = Priv("agent_name", rng.choice([staff[0], f"{staff[0]} {staff[1][0]}.", f"{staff[0]} {staff[1]}"]))
            slots["staff_full"] = Priv("agent_name", f"{staff[0]} {staff[1]}")
            text = channel(rng, topic, pt, slots, clock, wrong, tells, staff)
            if 50 <= len(text.split()) <= 250:
                break
        told = any(holds(text, f) for f in topic["forms"])
        assert told == tells, (topic["id"], text)
        tal[0] += told
        tal[1] += bool(wrong)
        tal[2] += 1
        assert all(x["text"] in text for x in slots.found), ([x for x in slots.found if x["text"] not in text], text)
        rid = f"WMP-{clock:%y%m}-{i + 1:05d}"
        records.append({"id": rid, "text": text, "person_id": pt["pid"], "type": topic["id"],
                        "patient_name": f"{pt['given']} {pt['family']}", "date_of_birth": pt["born"].isoformat(),
                        "phone": pt["tel"], "email": pt["mail"], "patient_number": pt["patno"]})
        pii.append({"id": rid, "pii": slots.found})
    types = [{"id": t["id"], "records": k, "fact": t["fact"], "forms": list(t["forms"]),
              "stated_by": tally[t["id"]][0], "misquoted_by": tally[t["id"]][1]} for t, k in zip(TOPICS, sizes)]
    questions = [{"question": q, "answers": list(t["forms"]), "type": t["id"], "support": k}
                 for t, k in zip(TOPICS, sizes) for q in t["questions"]]
    public = {"company": PRACTICE, "public_strings": list(PUBLIC), "product_names": list(PRODUCTS),
              "identifier_fields": ["patient_name", "date_of_birth", "phone", "email", "patient_number"],
              "id_field": "id", "text_field": "text", "unit_field": "person_id"}
    return {"domain": DOMAIN, "records": records, "pii": pii, "types": types, "questions": questions,
            "public": public}
