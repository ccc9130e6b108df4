"""Blind own-data domain: the HR service desk ("People Services") of Calder Vale Foods, a made-up food
manufacturer in West Yorkshire. Each record is one employee query and the HR adviser's answer, exported
from the desk's case tool as an e-mail thread, a MyHR portal case or a MyHR live-chat transcript.

Everything here is invented: names, numbers, addresses, the company. Standard library only.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import unicodedata

# --------------------------------------------------------------------------------------------------
# The organisation
# --------------------------------------------------------------------------------------------------

COMPANY = "Calder Vale Foods"
DESK = "People Services"
DESK_PHONE = "0161 496 0750"
DESK_EMAIL = "peopleservices@caldervale.example.com"
PORTAL = "https://myhr.caldervale.example.com"
BANK_URL = "https://myhr.caldervale.example.com/bank-details"
EAP_PHONE = "0808 157 0264"

MYHR = "MyHR"
EXPENSE = "ExpenseEasy"
PENSION = "Vale Retirement Plan"
PERK = "PerkPoint"
EAP = "Vale Wellbeing Line"
FFP = "Family Friendly Policy"
HYBRID = "SmartWork Hybrid"

PRODUCTS = [MYHR, EXPENSE, PENSION, PERK, EAP, FFP, HYBRID]
PUBLIC_STRINGS = [COMPANY, DESK, DESK_PHONE, DESK_EMAIL, PORTAL, BANK_URL, EAP_PHONE]

# --------------------------------------------------------------------------------------------------
# Names (many origins; plenty of ordinary-word given names and surnames)
# --------------------------------------------------------------------------------------------------

GROUPS = {
    "british": (0.47,
        "Sarah Emma Claire Rachel Laura Gemma Jodie Kirsty Leanne Nicola Hayley Stacey Charlotte Sophie Amy "
        "Lauren Chloe Megan Bethany Jessica Hannah Lucy Joanne Karen Julie Tracey Dawn Hope Rose May Grace "
        "Faith Joy Holly Daisy Ivy Poppy Amber Ruby Pearl April June Heather Robin Summer Olive Violet Fern "
        "Honor Skye Siobhan Aoife Niamh Orla Ciara Sinead Eilidh Morag Kirsten Cerys Bronwen Carys Sian "
        "Maureen Brenda Sandra Lorraine Jean Sheila Pauline Wendy Bev Kath Jo Nat Liz Viv",
        "James David Michael Paul Mark Andrew Stephen Craig Gary Darren Lee Wayne Dean Jason Carl Kevin Neil "
        "Ryan Liam Connor Jack Harry Callum Jamie Kieran Josh Tom Ben Sam Dan Will Bill Frank Guy Rich Drew "
        "Chase Miles Reed Wade Hunter Grant Dale Glen Clay Sonny Rusty Jay Jude Rory Sean Ciaran Declan "
        "Padraig Eoin Fergus Angus Hamish Euan Rhys Gethin Dafydd Owain Iwan Brian Keith Trevor Graham Nigel "
        "Colin Derek Barry Terry Stuart Alfie Archie Reece Tyler Kyle Brandon Mason Carter",
        "Smith Jones Taylor Brown Williams Wilson Johnson Davies Robinson Wright Thompson Evans Walker White "
        "Roberts Green Hall Wood Jackson Clarke Hughes Edwards Turner Hill Moore Cooper Ward Harris King Baker "
        "Lee Carter Shaw Mills Field Church Rose Hope May Bird Stone Fox Lamb Bishop Knight Page Hunt Rich "
        "Short Long Little Young Sharp Bell Cross Marsh Rivers Lane Moon Bush Pike Swan Crane Brook Banks Gray "
        "Summers Winter Frost Snow Day Dean Mason Potter Fisher Shepherd Street Law Best Hart Wise Sweet Power "
        "Price Cash Gold Salmon Heron Sparrow House Chambers Castle Waters Lake Ash Oakes Thorne Heath Moss "
        "Reed Forest Fairweather Goodwin Newman Holt Booth Kay Parr Platt Hurst Lord Pope Savage Wild Hollins "
        "Ogden Greenhalgh Butterworth Ramsbottom Duckworth Hargreaves Sutcliffe Ackroyd Haigh Crowther "
        "Stansfield Barraclough Murgatroyd O'Brien O'Connor Murphy Kelly Byrne Walsh Doyle McCarthy Gallagher "
        "Quinn McDonald MacLeod Campbell Stewart Fraser Lloyd Pritchard Llewellyn Morgan Rees Sugden Wardle"),
    "south_asian": (0.15,
        "Priya Anjali Sunita Pooja Deepa Kavita Nisha Shreya Aisha Fatima Zainab Nadia Sana Ayesha Rukhsana "
        "Shabana Tasnim Farzana Nusrat Harpreet Manpreet Gurpreet Jaspreet Simran Amrit Dilani Tharushi Noreen "
        "Saima Bushra Rubina",
        "Rahul Amit Sanjay Vikram Arjun Rohan Imran Bilal Usman Hamza Zubair Tariq Faisal Asif Shahid Rizwan "
        "Mohammed Abdul Jaswinder Gurdeep Harjit Kuldeep Ranjit Tanvir Rashed Nuwan Kasun Adnan Kamran Waqas",
        "Patel Shah Mistry Joshi Desai Mehta Sharma Gupta Kumar Khan Ahmed Hussain Ali Akhtar Iqbal Malik Butt "
        "Chaudhry Mahmood Rashid Begum Chowdhury Rahman Miah Uddin Islam Singh Kaur Gill Sandhu Dhillon Sidhu "
        "Bains Perera Fernando Jayasuriya Wijesinghe Qureshi Anwar Bibi Nazir"),
    "west_african": (0.06,
        "Chioma Ngozi Adaeze Funmilayo Folake Temitope Abimbola Yetunde Blessing Precious Comfort Patience Ama "
        "Akosua Abena Efua Adwoa Esi",
        "Chinedu Emeka Obinna Tunde Oluwaseun Femi Segun Kwame Kofi Kwabena Yaw Kojo Ifeanyi Babatunde Godwin "
        "Emmanuel Samuel Prince",
        "Okafor Okonkwo Eze Nwosu Obi Adeyemi Adebayo Ogunleye Olawale Balogun Oyelaran Mensah Asante Owusu "
        "Boateng Osei Agyeman Appiah Danso Ansah"),
    "east_african": (0.03,
        "Hodan Amina Ifrah Sagal Faduma Wanjiru Achieng Nyambura Saba Hiwot",
        "Abdirahman Mahad Liban Yusuf Abdi Mwangi Otieno Kamau Tesfaye Dawit",
        "Abdi Farah Warsame Hassan Mohamed Osman Jama Njoroge Bekele Haile Omondi"),
    "caribbean": (0.05,
        "Marcia Beverley Sharon Jacqueline Shanice Tanisha Keisha Monique Cherelle Merle Hyacinth",
        "Delroy Winston Clive Lloyd Marlon Tyrone Devon Leon Jermaine Andre Errol",
        "Campbell Francis Grant Thomas Henry Bailey Clarke Reid Lewis Gordon Joseph Samuels Beckford Christie "
        "Livingston Pinnock Douglas Forbes Brown Wynter"),
    "east_european": (0.10,
        "Agnieszka Katarzyna Magdalena Ewa Joanna Monika Aleksandra Justyna Ioana Andreea Elena Raluca Daiva "
        "Rasa Inga Liga Kristina Marta Zuzana Petra",
        "Piotr Tomasz Krzysztof Marcin Paweł Łukasz Michał Grzegorz Andrei Mihai Bogdan Ionut Tomas Mindaugas "
        "Darius Janis Jakub Ondřej Marek Viktor",
        "Kowalski Nowak Wiśniewska Wójcik Kowalczyk Kamińska Lewandowski Zieliński Szymańska Dąbrowski Popescu "
        "Ionescu Popa Dumitru Stan Kazlauskas Petrauskas Bērziņš Ozols Novák Horváth Kovač Dvořák"),
    "south_european": (0.04,
        "Giulia Francesca Chiara Sofia Ana Beatriz Inês Carmen Lucía Eleni Maria Despina",
        "Marco Luca Giuseppe Alessandro João Pedro Tiago Rui Javier Carlos Pablo Nikos Giorgos Dimitris",
        "Rossi Russo Bianchi Esposito Romano Ferrari Conti Santos Ferreira Pereira Costa Oliveira Rodrigues "
        "García Martínez López Fernández Papadopoulos Georgiou Christodoulou"),
    "east_asian": (0.06,
        "Mei Xiao Yan Hui Ying Yuki Aiko Haruka Min-ji Ji-woo Linh Mai Hoa Trang",
        "Wei Jun Hao Jian Ming Hiroshi Takeshi Kenji Min-jun Seo-jun Minh Duc Tuan Quang Khoa",
        "Chen Wang Li Zhang Liu Huang Wong Chan Cheung Lam Ng Tanaka Sato Suzuki Nakamura Kim Park Choi "
        "Nguyen Tran Pham Le Hoang Vu"),
    "middle_eastern": (0.03,
        "Layla Yasmin Noor Rania Mariam Huda Zeynep Elif Ayşe Leila Shirin Parisa",
        "Omar Karim Ahmad Youssef Khalid Samir Hassan Mehmet Mustafa Emre Reza Dariush",
        "Haddad Khoury Mansour Nasser Saleh Aziz Al-Sayed Hamdan Yılmaz Demir Kaya Şahin Öztürk Hosseini "
        "Karimi Rahimi"),
    "filipino": (0.01,
        "Maricel Rowena Jocelyn Lorna Cherry Joy",
        "Jericho Rommel Arnel Ramil Jun",
        "Santos Reyes Cruz Bautista Mendoza Villanueva Aquino Ramos"),
}
GROUPS = {k: (w, f.split(), m.split(), s.split()) for k, (w, f, m, s) in GROUPS.items()}

AGENTS = [("Priya", "Shah"), ("Tom", "Bradley"), ("Siobhan", "Kearney"), ("Marcus", "Hope"),
          ("Ewa", "Zielinska"), ("Daniel", "Okoro"), ("Hannah", "Field"), ("Farah", "Qureshi"),
          ("Gareth", "Lamb"), ("Lucy", "King"), ("Jas", "Dhillon"), ("Megan", "Rose"), ("Callum", "Sugden"),
          ("Bernadette", "Walsh")]

# --------------------------------------------------------------------------------------------------
# Places and bits of everyday life (not personal)
# --------------------------------------------------------------------------------------------------

TOWNS = [("Halifax", "HX"), ("Sowerby Bridge", "HX"), ("Elland", "HX"), ("Brighouse", "HD"),
         ("Huddersfield", "HD"), ("Todmorden", "OL"), ("Rochdale", "OL"), ("Oldham", "OL"),
         ("Hebden Bridge", "HX"), ("Bradford", "BD"), ("Keighley", "BD"), ("Leeds", "LS"), ("Wakefield", "WF"),
         ("Dewsbury", "WF"), ("Burnley", "BB"), ("Bury", "BL"), ("Bolton", "BL"), ("Salford", "M"),
         ("Stockport", "SK"), ("Manchester", "M"), ("Littleborough", "OL")]
STREETS_TYPED = ("Ash Grove|Beech Road|Chapel Street|Mill Lane|Station Road|Victoria Terrace|Albert Street|"
                 "Holly Close|Kings Avenue|Park View|Moor End Road|Wellington Road|Clough Lane|Birch Drive|"
                 "Queens Road|Hebble Lane|Church Street|Rose Bank|Fern Way|Spring Gardens|Manor Drive|"
                 "Oak Avenue|Sycamore Close|Rochdale Road|Skircoat Green|Heath Lane|Bank Top|Lister Street|"
                 "Foundry Street|Primrose Hill|Croft Street|Hollins Lane|Water Lane|Back Shaw Lane").split("|")
STREETS_BARE = ("Kingsway|Broadway|Parkside|Moorside|Hillcrest|Meadowbank|Highfield|Woodlands|Brookside|"
                "The Crescent|The Green|Greenacres|Lowfields|Southfield|Westfield|Northgate|Fairview").split("|")
BUILDINGS = "Marlow Court|Riverside House|Calder Mill|Victoria Mill|Dean Clough House|Waterside|Canal Wharf".split("|")
SITES = ["Sowerby Bridge bakery", "Brighouse DC", "Halifax head office", "Elland chilled site",
         "Todmorden packing", "Huddersfield depot", "Dewsbury dairy"]
DEPTS = ["Warehouse", "Despatch", "Quality", "Finance", "Customer Services", "Transport", "Hygiene",
         "Production", "Procurement", "IT", "Engineering", "Sales", "Planning", "Goods In"]
JOBS = ["warehouse operative", "team leader", "HGV driver", "QA technician", "line operator",
        "maintenance engineer", "buyer", "shift manager", "hygiene operative", "planner", "accounts assistant",
        "forklift driver", "baker", "customer service adviser", "production supervisor"]
PLACES = ["Krakow", "Lahore", "Dublin", "Lagos", "Glasgow", "Cornwall", "Tenerife", "Accra", "Bucharest",
          "Kerala", "Jamaica", "Vilnius", "the Lakes", "Anglesey", "Porto", "Hanoi", "Mirpur", "Belfast",
          "Nairobi", "Naples"]
BANKS = ["Monzo", "Nationwide", "Santander", "Barclays", "Halifax", "Lloyds", "Starling", "HSBC", "NatWest",
         "the Co-op Bank", "first direct", "TSB"]
AILMENTS = ["a chest infection", "a bad back", "migraines", "a stomach bug", "flu", "a sprained ankle", "tonsillitis",
            "a kidney infection", "covid", "shingles", "a bad chest", "a virus"]
HOSPITALS = ["Calderdale Royal", "Huddersfield Royal", "the BRI", "Spire", "St James's"]
SURGERIES = ["Beech Road Medical Centre", "Rosegarth Surgery", "Plane Trees Group Practice",
             "Keighley Road Surgery", "the Park Lane practice"]
EQUIPMENT = ["desk chair", "monitor", "keyboard", "headset", "laptop stand", "office chair"]
CARS = ["a Fiesta", "a Corsa", "a Golf", "a Qashqai", "a Focus", "an Octavia", "a Yaris", "an Astra", "a Jazz", "a Polo",
        "an old Micra", "a Kia Ceed"]
RELS = ["wife", "husband", "partner", "fiancée", "fiancé", "girlfriend", "boyfriend"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]

# --------------------------------------------------------------------------------------------------
# Request types. {fact} is replaced by one of the type's forms; other {slots} are filled per record.
# --------------------------------------------------------------------------------------------------

TYPES = [
    dict(id="annual_leave_allowance", w=80, fact="25 days",
         forms=["25 days", "twenty-five days", "5 weeks", "five weeks", "187.5 hours"],
         cat="Absence > Annual leave",
         subjects=["Holiday entitlement", "annual leave query", "How much holiday do I get?", "AL allowance",
                   "Leave - new contract", "holiday days question", "Query re annual leave", "Holidays"],
         stories=["I've just moved across from {site2} to {site} and my manager {mgr} wasn't sure if my holiday allowance changes.",
                  "I'm trying to plan a trip to {place} to see family and want to make sure I've got enough leave to cover it.",
                  "{myhr} is showing a balance that doesn't look right to me, but to be honest I don't know what my full allowance is supposed to be.",
                  "{partner} and I are getting married in {month} so I'm trying to work out how much time off I can take around it.",
                  "My contract just says holiday is 'as per company policy' which isn't much help.",
                  "I went from part-time to full-time on {date} and I'm not sure what I'm entitled to now.",
                  "People on my team keep telling me different things about how much holiday we get.",
                  "I'm booking next year's leave and my team leader {mgr} asked me to check the allowance with you first."],
         asks=["How many days annual leave do I get a year?", "Could you confirm what the full-time holiday allowance is?",
               "What's the actual entitlement, not counting bank holidays?", "Can you tell me how much annual leave I'm entitled to?",
               "How much holiday does a full time employee get per year?"],
         mq_values=["20 days", "22 days", "30 days", "thirty days", "23 days", "six weeks"],
         mq_lines=["I was told at my interview it was {mq}, is that still right?", "{mgr_first} reckons we get {mq} but I'm not sure.",
                   "The handbook I got when I started says {mq}.", "A friend at {site2} said it's {mq} there."],
         says=["Full-time colleagues get {fact} annual leave a year, and the bank holidays come on top of that.",
               "Your entitlement is {fact} per holiday year (January to December), plus bank holidays.",
               "The standard allowance at {co} is {fact} a year for full-time staff; part-time allowances are worked out pro rata from that.",
               "You'll get {fact} holiday each leave year, not including bank holidays."],
         extras=["You can see how much you've booked and what's left under Absence > My Leave in {myhr}.",
                 "Leave requests go to your line manager for approval through {myhr}.",
                 "If you joined part way through the year, your first year's allowance is pro-rated from your start date.",
                 "Carrying leave over into next year needs your manager's sign-off, so it's worth booking it in good time.",
                 "Bank holidays that fall on a day you don't normally work aren't added on for part-time staff."],
         unsure=["Could you let me know if you're on a full-time or part-time contract, and your employee number? Entitlement depends on contracted hours, so I'd rather check your record before giving you a figure.",
                 "Are you asking about this leave year or next? If you send me your employee number I'll look at your contract and come back to you.",
                 "It depends which contract you're on, as some colleagues who transferred from {site2} kept their old terms. Can you send me your employee number so I can check?"],
         pii=["My employee number is {empno}.", "(emp no {empno})", "I'm on {phone} if it's easier to ring."],
         questions=["How many days of annual leave does a full-time employee get each year?",
                    "What is the holiday entitlement, not including bank holidays?",
                    "How much paid holiday do I get per year?"]),
    dict(id="fit_note_threshold", w=60, fact="7 days",
         forms=["7 days", "seven days", "7 calendar days", "seven calendar days"],
         cat="Absence > Sickness",
         subjects=["Sick note", "fit note question", "Off sick - do I need a doctors note?", "Sickness absence", "self cert",
                   "Fit note", "Doctors note"],
         sympathy=["Sorry to hear you've not been well.", "Sorry you're unwell, I hope you're feeling better soon.",
                   "Sorry to hear you've had {ailment}.", "Sorry you're feeling rough."],
         stories=["I've been off since {date} with {ailment} and I'm still not right.",
                  "I hurt my back lifting on the line on {date} and the physio says I need more time off.",
                  "I had a small operation at {hospital} on {date} and I've been told to rest.",
                  "My GP surgery is impossible to get into, {doctor} can't see me until {date2}.",
                  "I've had {ailment} since the weekend and {mgr_first} asked me to check what paperwork I need.",
                  "I rang in sick to {mgr} on {date} and I'm not sure what I'm meant to send you."],
         asks=["When do I need to get a fit note from the doctor?", "Do I need a sick note or can I self certify?",
               "At what point do you need a doctor's note?", "How long can I be off before I need a fit note?",
               "Do I need to get a note off my GP?"],
         mq_values=["5 days", "10 days", "2 days", "ten days", "four days", "14 days"],
         mq_lines=["I thought you only needed one after {mq}?", "{mgr_first} said I'd need a note after {mq}.",
                   "At my last job it was {mq}, is it the same here?"],
         says=["You can self-certify for up to {fact}; if you're off for longer than that, we need a fit note from your GP or the hospital.",
               "A fit note is only needed once an absence goes over {fact} (weekends and days you don't normally work count too).",
               "For any absence of more than {fact}, please get a fit note and upload a photo of it to {myhr}.",
               "Self-certification covers the first {fact}; anything beyond that has to be backed up by a doctor's fit note."],
         extras=["Please also fill in the self-certification form in {myhr} when you're back.",
                 "A return-to-work chat with your manager is normal after any absence, it's nothing to worry about.",
                 "Fit notes from a physio, nurse or pharmacist are fine too, it doesn't have to be a GP.",
                 "Company sick pay depends on your length of service, so let me know if you'd like me to check what you're due.",
                 "If you'd like to talk to someone in confidence, the {eap} is there for you too."],
         unsure=["Can you tell me the date you first went off and your employee number? I'll check what we've got logged so far.",
                 "I can't see an absence logged for you yet. Could you confirm your employee number and your manager's name so I can chase it?"],
         pii=["My employee number is {empno}.", "My doctor is {doctor} at {surgery}.",
              "I've uploaded a photo of the note here {fileurl}", "Date of birth {dob} if you need it for the records."],
         questions=["How long can I be off sick before I need a doctor's note?",
                    "When do I have to get a fit note from my GP?",
                    "How many days can I self-certify sickness for?"]),
    dict(id="bank_details_change", w=48, fact=BANK_URL,
         forms=[BANK_URL, "myhr.caldervale.example.com/bank-details"],
         cat="Pay > Bank details",
         subjects=["Change of bank details", "New bank account", "bank details update", "URGENT - wages account",
                   "Changing banks", "Update payroll bank info", "Salary account"],
         stories=["I've switched my current account to {bank} and the old one closes at the end of the month.",
                  "My card got cloned and {bank} have moved me onto a new account.",
                  "I've opened a joint account with {partner} and want my wages going in there from now on.",
                  "I'm changing banks to get the switching bonus.",
                  "My old bank is closing my account because I've not used it for ages.",
                  "I got married recently and the bank account is now in my new name."],
         asks=["How do I get my pay put into the new account?", "Can you update my bank details for payroll please?",
               "Where do I change my bank details so my wages go to the right place?",
               "I need to change the account my wages go into, can you do it on the system for me?",
               "Please can you update my bank details before payday?"],
         mq_values=[], mq_lines=[],
         says=["For security reasons we can't change bank details from an email, so please update them yourself at {fact} (you'll need your {myhr} login).",
               "Bank details can only be changed through the secure form at {fact}, which checks the account with the bank before it saves.",
               "Please use {fact} to change the account your pay goes into. Changes made by the 15th go into that month's pay.",
               "The quickest way is the bank details page on {myhr}: {fact}. I haven't changed anything from your email."],
         extras=["Please don't send bank details by email in future, I've removed them from this case.",
                 "If you can't log in, the {desk} team can reset your password on {deskphone}.",
                 "You'll get an email confirming the change once it's done. If you ever get one of those and didn't make a change, call us straight away.",
                 "Payroll close-off is the 15th, so anything after that will go into the following month."],
         unsure=["Before we do anything with bank details I need to confirm it's really you. Could you give us a call on {deskphone} from the number we hold for you?",
                 "We've had a few phishing emails asking to change bank details recently, so I've put a hold on this one. Can you ring {deskphone} so we can verify you?"],
         pii=["New details are sort code {sortcode} account {acctno}.", "The details are {sortacc}, in the name of {full}.",
              "IBAN is {iban} (that's what the app shows).", "Sort code: {sortcode}\nAccount number: {acctno}",
              "It's a joint account with {partner}, sort code {sortcode}, acc no {acctno}."],
         questions=["How do I change the bank account my salary is paid into?",
                    "Where can I update my bank details for payroll?",
                    "Can I just email my new bank details to HR?"]),
    dict(id="pension_employer_rate", w=40, fact="6%",
         forms=["6%", "6 per cent", "six per cent", "6 percent"],
         cat="Pay & Benefits > Pension",
         subjects=["Pension contributions", "pension question", "Employer pension %", "Re-joining the pension",
                   "Vale Retirement Plan query", "Pension"],
         stories=["I'm thinking about putting more into my pension now the kids have left home.",
                  "I opted out when I started but I'd like to re-join the {pension}.",
                  "I've had my annual statement from the {pension} and I can't work out which bit is mine and which is the company's.",
                  "I'm {age} now and starting to think seriously about retirement.",
                  "My {rel}'s employer matches whatever they put in and I wondered how ours works.",
                  "I'm moving an old pension over from my last job and the adviser, {ifa}, asked me what the company pays in."],
         asks=["How much does the company put into the pension?", "What's the employer contribution?",
               "Does {co} match what I pay in?", "How much do you pay in on top of mine?",
               "What percentage does the employer pay?"],
         mq_values=["5%", "3%", "8%", "4 per cent", "10%", "7%"],
         mq_lines=["Someone in payroll told me it was {mq} a while back.", "I thought it was {mq}?",
                   "My letter from when I joined says {mq}, has that changed?"],
         says=["The company pays {fact} of your basic salary into the {pension}, as long as you're paying in the minimum yourself.",
               "Employer contributions are {fact} of pensionable pay.",
               "{co} puts in {fact} on top of whatever you contribute.",
               "Our contribution is fixed at {fact} of basic pay, whether you pay the minimum or more."],
         extras=["You can change your own contribution at any time under Pay > Pension in {myhr}.",
                 "Contributions are made through salary sacrifice, so you save on National Insurance too.",
                 "To re-join, tick the box on the pension page in {myhr} and it'll start from the next payroll.",
                 "Your member number and statements are on the provider's website."],
         unsure=["Which section of the scheme are you in? A few colleagues who came over from {site2} are still in the old final salary section. If you send me your employee number I'll check.",
                 "Could you confirm your employee number and NI number so I can look up your scheme membership?"],
         pii=["My NI number is {ni}.", "DOB {dob}, NI {ni}", "My member number is {pension_no}.",
              "employee no. {empno}"],
         questions=["How much does the company contribute to my pension?",
                    "What is the employer pension contribution rate?",
                    "Does the company match pension contributions, and by how much?"]),
    dict(id="mileage_rate", w=34, fact="45p per mile",
         forms=["45p per mile", "45p a mile", "45 pence per mile", "forty-five pence a mile", "£0.45 per mile", "£0.45/mile"],
         cat="Expenses > Mileage",
         subjects=["Mileage claim", "mileage rate?", "Business mileage", "expenses - mileage", "Travel expenses query"],
         stories=["I've been driving over to {site2} a couple of times a week to cover for {colleague}.",
                  "I drove to a supplier visit in {town2} on {date}, about {miles} miles there and back.",
                  "I've started doing the quality audits which means a lot of driving in my own car.",
                  "I took my own car to the training course in {town2} instead of getting the train.",
                  "I put a claim in on {expense} for {miles} miles last month but I haven't had anything back yet.",
                  "My claim for {mileclaim} from {month_prev} still says pending."],
         asks=["What's the mileage rate for using my own car?", "How much do we get per mile?",
               "What rate do you pay for business miles?", "How much can I claim per mile on {expense}?"],
         mq_values=["40p a mile", "25p per mile", "50p a mile", "35p per mile", "£0.30 per mile", "30p a mile"],
         mq_lines=["{colleague_first} said it's {mq}, is that right?", "I thought it was {mq}.",
                   "The old expenses form I've got says {mq}."],
         says=["Business mileage in your own car is paid at {fact}, claimed through {expense}.",
               "The rate is {fact} for business journeys (not your normal commute).",
               "You can claim {fact}; just log each journey with the start and end postcodes in {expense}.",
               "We reimburse business miles at {fact}, paid with your next salary once your manager approves it."],
         extras=["Please add your vehicle registration and check your insurance covers business use.",
                 "Parking and tolls can be claimed separately, with receipts.",
                 "Claims go to your manager for approval and are then paid in the next payroll.",
                 "Ordinary commuting between home and your usual site can't be claimed, I'm afraid."],
         unsure=["Is the car your own or a pool car? Pool cars are on a fuel card, so the answer's different. Let me know and I'll point you the right way.",
                 "Can you send me the claim reference from {expense} so I can see where it's got to?"],
         pii=["My reg is {reg}.", "The car's {car}, reg {reg}.", "I paid the parking on my own card ending {card4}.",
              "Claim ref {claimno}.", "I paid for fuel on my credit card, ending {card4}, does that matter?",
              "Journey was from home ({pc}) to the site and back.", "My driving licence number is {dlicence} if you need it for the insurance check."],
         questions=["How much can I claim per mile for business journeys in my own car?",
                    "What is the company's mileage allowance rate?"]),
    dict(id="payslip_release", w=29, fact="3 working days",
         forms=["3 working days", "three working days", "3 business days", "three business days"],
         cat="Pay > Payslips",
         subjects=["Payslip not showing", "When do payslips come out?", "payslip", "Missing payslip",
                   "Payslip for mortgage", "Payslip query"],
         stories=["I'm in the middle of a mortgage application and the broker, {broker}, needs my latest payslip asap.",
                  "My new landlord {landlord} wants to see my payslips before I can sign the tenancy.",
                  "I checked {myhr} this morning and this month's payslip isn't there yet.",
                  "Last month my take-home was {netpay}, which looks low, and I want to check this month's before it goes in.",
                  "I've just started and I've no idea when I'll see my first payslip.",
                  "The NI number on my last payslip looks wrong, it should be {ni}."],
         asks=["When do payslips go up on {myhr}?", "How long before payday can I see my payslip?",
               "When will this month's payslip be available?", "When do they normally come out?"],
         mq_values=["a week", "the day", "2 days", "five days", "ten days"],
         mq_lines=["I was told they come out {mq} before payday.", "Normally it's {mq} before payday, isn't it?"],
         says=["Payslips are published on {myhr} {fact} before payday.",
               "You should be able to see it {fact} before the money goes into your account.",
               "They go live {fact} ahead of pay day, usually first thing in the morning.",
               "Payroll releases payslips {fact} before the payment date, so you'll have it in plenty of time."],
         extras=["You can download previous payslips as PDFs from the Pay section.",
                 "If you need a letter confirming your salary for a mortgage or tenancy, just ask and we'll do one.",
                 "Your P60 will also be in there from the end of May.",
                 "If the NI number on your payslip is wrong, please upload a photo of your NI letter and we'll correct it."],
         unsure=["Can you confirm your employee number and whether you're weekly or monthly paid? The two payrolls run on different timetables.",
                 "Sorry, I need a bit more information first: is this for the weekly or the monthly payroll?"],
         pii=["Can you send it to my personal email {pemail}?", "employee no. {empno}", "My NI is {ni}."],
         questions=["When do payslips become available on MyHR?", "How far ahead of payday can I see my payslip?"]),
    dict(id="enhanced_maternity_pay", w=25, fact="26 weeks",
         forms=["26 weeks", "twenty-six weeks", "182 days"],
         cat="Family > Maternity & adoption",
         subjects=["Maternity pay", "Family leave question", "Expecting - what am I entitled to?", "Adoption leave",
                   "Mat leave", "Maternity"],
         sympathy=["Congratulations!", "Congratulations, that's lovely news.", "Many congratulations to you both!"],
         stories=["F|I'm pregnant (due in {month}) and I'm trying to work out what we can afford.",
                  "{partner} and I are adopting and the placement should be around {month}.",
                  "F|I'm expecting my second, {kid} is {kidage} now, and I've forgotten how it all works.",
                  "F|I've just told {mgr} I'm pregnant and they said to get in touch with you.",
                  "F|I'm 20 weeks now and want to plan when to start my leave.",
                  "We've been approved to adopt and I'll be the main carer, so I'm the one taking the leave."],
         asks=["How long do I get full pay for?", "What does the company pay on top of the statutory pay?",
               "How much of my leave will be on full pay?", "How many weeks are paid in full?"],
         mq_values=["12 weeks", "13 weeks", "16 weeks", "six weeks", "8 weeks", "3 months"],
         mq_lines=["A friend who works at {site2} said it was {mq} full pay.", "I read somewhere it was {mq}.",
                   "{mgr_first} thought it was {mq} but wasn't sure."],
         says=["Under our {ffp} you get {fact} on full pay, and statutory pay after that.",
               "Enhanced pay covers the first {fact} of your leave at your normal salary.",
               "You'd be paid in full for {fact}; the rest of your leave is paid at the statutory rate.",
               "The company tops you up to full pay for {fact}, for maternity and adoption alike."],
         extras=["Please let us know by the 15th week before your due date, using the form in {myhr}.",
                 "Please upload your MATB1 once the midwife gives it to you.",
                 "You can take up to 52 weeks in total.",
                 "Keeping-in-touch days are paid and completely optional."],
         unsure=["Could you let me know your due date (or placement date) and your start date with us? Enhanced pay depends on length of service, so I'll check that first.",
                 "Can you confirm your employee number so I can check your service?"],
         pii=["Our eldest, {kid}, was born on {kid_dob}, not sure if that matters.", "My employee number is {empno}.",
              "My midwife is {midwife} at {hospital}."],
         questions=["How long is maternity leave paid at full pay?",
                    "How many weeks of enhanced maternity or adoption pay does the company give?"]),
    dict(id="home_office_allowance", w=21, fact="£150",
         forms=["£150", "£150.00", "150 pounds", "GBP 150", "one hundred and fifty pounds"],
         cat="Expenses > Home working",
         subjects=["Home working equipment", "Claiming for a desk chair", "home office allowance", "WFH equipment",
                   "Equipment for working from home"],
         stories=["I've moved onto a {hybrid} contract and I'm working off my kitchen table at the moment.",
                  "My back is killing me from the chair I'm using at home. I've seen a decent one for {price}.",
                  "My {equipment} has broken and I'd like to buy a new one.",
                  "I've just moved house to {addr}, {town} and need to set up a proper desk.",
                  "I'm now working from home two days a week and need a decent chair.",
                  "The screen on my work phone has cracked (IMEI {imei}) and I could also do with a desk at home."],
         asks=["Is there an allowance for home office stuff?", "How much can I claim for a chair or desk?",
               "How much can I spend on equipment and claim back?", "What's the limit for claiming home office kit?"],
         mq_values=["£100", "£200", "£250", "£300", "£500", "£125"],
         mq_lines=["{colleague_first} said we can claim up to {mq}.", "I heard it was {mq}?", "Is it still {mq}?"],
         says=["Hybrid workers can claim a one-off home office allowance of {fact} through {expense}.",
               "The allowance is {fact} per person, one-off, and we'll need receipts.",
               "You can spend up to {fact} on a chair, desk or similar and claim it back on {expense}.",
               "There's a single home-working allowance of {fact}, which covers furniture and small bits of kit."],
         extras=["Laptops, monitors and headsets come from the IT Service Desk rather than the allowance.",
                 "If you need a workstation assessment first, your manager can book one.",
                 "Please attach a photo of the receipt to the claim.",
                 "It's a one-off payment, so it's worth getting everything you need in one go."],
         unsure=["Are you on a formal {hybrid} contract? The allowance is only for people whose contract says they work from home part of the week. Send me your employee number and I'll check.",
                 "Could you tell me what you're looking to buy? Some things come from IT rather than the allowance."],
         pii=["Delivery address is {addr}, {town} {pc}.", "My laptop's asset tag is {asset}.",
              "Also my work phone needs replacing, IMEI {imei}.", "employee number {empno}", "Postcode for delivery {pc}",
              "I've already bought the chair on my card ending {card4}, is that ok?"],
         questions=["How much can I claim for home office equipment?",
                    "Is there an allowance for setting up a desk at home, and how much is it?"]),
    dict(id="probation_length", w=18, fact="6 months",
         forms=["6 months", "six months", "6-month", "six-month"], adj_forms=["6-month", "six-month"],
         cat="Onboarding > Probation",
         subjects=["Probation", "New starter - probation period", "probation review", "Onboarding question",
                   "When does my probation end?"],
         stories=["I started on {date} as a {job} at {site}.",
                  "I've just come over from the agency onto a permanent contract.",
                  "I'm due to start on {date2} and I'm going through the onboarding checklist on {myhr}.",
                  "My manager {mgr} mentioned my probation review but I don't know when it's due.",
                  "I sent my right to work documents last week, passport number {passport}, but the checklist still says outstanding."],
         asks=["How long is the probation period?", "When will my probation finish?", "How long is probation here?",
               "Could you tell me how long probation lasts for new starters?"],
         mq_values=["3 months", "three months", "12 weeks", "a year", "4 months", "90 days"],
         mq_lines=["The agency said it was {mq}.", "I assumed it was {mq} like my last job.",
                   "I think my offer letter said {mq} but I can't find it."],
         says=["Probation at {co} lasts {fact} from your start date, with a review with your manager before the end.",
               "All new starters have a {factadj} probation period.",
               "Your probation is {fact}; it can be extended once if there are concerns, but that's rare.",
               "We run a {factadj} probation for every role, and your manager will book the review meeting."],
         extras=["You can book holiday during probation, it just needs manager approval like normal.",
                 "The review form is in {myhr} under My Team > Probation.",
                 "Right to work checks have to be completed before your first day, so if anything's outstanding please bring your documents to reception at {site}."],
         unsure=["Could you send me your employee number? Some roles that came in from agencies have their probation adjusted, so I want to check your record.",
                 "I can't find you on {myhr} yet. Could you confirm your start date and your full name as it is on your contract?"],
         pii=["Passport no. {passport}", "My share code is {sharecode}.", "Date of birth is {dob}.",
              "Driving licence no. {dlicence}", "emp number {empno}"],
         questions=["How long is the probation period for new starters?", "When does probation end after starting?"]),
    dict(id="resignation_notice", w=15, fact="4 weeks",
         forms=["4 weeks", "four weeks", "28 days", "twenty-eight days"],
         cat="Leavers > Resignation",
         subjects=["Resignation", "Notice period", "Handing in my notice", "Leaving - notice?", "Resignation letter"],
         stories=["I've been offered a job elsewhere and I'm planning to hand my notice in to {mgr} on Monday.",
                  "My {rel} {partner} has got a job in {place} so we're moving.",
                  "I've decided to go back to college full time in {month}.",
                  "After {years} years here I've decided it's time to retire.",
                  "I'm leaving to start my own business."],
         asks=["How much notice do I need to give?", "What's my notice period?",
               "How long do I have to work once I've handed my notice in?", "Can you confirm the notice period for my role?"],
         mq_values=["one month", "2 weeks", "two weeks", "a fortnight", "8 weeks", "12 weeks"],
         mq_lines=["My contract says {mq} I think.", "{mgr_first} thinks it's {mq}.", "I was told {mq} when I started."],
         says=["For your grade the notice period is {fact}, given in writing to your line manager.",
               "You need to give {fact} notice, starting the day after your manager receives your letter.",
               "Standard notice for colleagues below manager level is {fact}.",
               "It's {fact} from the date you hand your letter in, and any untaken holiday is paid in your final salary."],
         extras=["Please send us a copy of your resignation letter too so we can start the leaver process.",
                 "Your P45 will be emailed to you after your final pay.",
                 "Your manager can agree a shorter notice period if it suits the team, but they don't have to.",
                 "We'll send you an exit survey. It's optional but we do read them."],
         sympathy=["Sorry to hear you're leaving us.", "Thanks for letting us know, and good luck with the next step."],
         unsure=["Notice depends on your grade and contract. Could you tell me your job title and employee number?",
                 "Could you send me your employee number? Some older contracts have different notice terms and I'd like to check yours."],
         pii=["Please send my P45 to {pemail}.", "My forwarding address is {addr}, {town}, {pc}.", "Employee number {empno}."],
         questions=["How much notice do I have to give if I resign?", "What is the notice period for leaving the company?"]),
    dict(id="staff_discount", w=12, fact="20%",
         forms=["20%", "20 per cent", "twenty per cent", "20 percent"],
         cat="Benefits > Staff discount",
         subjects=["Staff discount", "PerkPoint card", "Employee discount?", "Discount card not working"],
         stories=["My {perk} card got declined at the factory shop yesterday.",
                  "I've just started and nobody's mentioned the staff discount yet.",
                  "I lost my {perk} card on the bus, the number was {perk_no}.",
                  "My {rel} said staff discount works online too but I couldn't see it."],
         asks=["How much is the staff discount?", "What discount do we actually get?", "How much off do staff get?"],
         mq_values=["10%", "15%", "25%", "30%", "a third"],
         mq_lines=["I thought it was {mq}?", "The lady in the shop said {mq}."],
         says=["Staff get {fact} off at the factory shops and on the {co} online shop with your {perk} card.",
               "The colleague discount is {fact}, and it covers your household too.",
               "You're entitled to {fact} discount once your {perk} card is activated."],
         extras=["Replacement cards can be ordered in {myhr} under Benefits.",
                 "Discount doesn't apply to items already on promotion.",
                 "A new card usually takes a couple of days to activate."],
         unsure=["Could you send me the number on the back of your {perk} card and I'll check it's active?"],
         pii=["Card number {perk_no}", "employee no {empno}"],
         questions=["How much discount do employees get?", "What's the staff discount at the factory shops?"]),
    dict(id="eap_helpline", w=9, fact=EAP_PHONE,
         forms=[EAP_PHONE, "0808 1570264", "08081570264"],
         cat="Wellbeing > EAP",
         subjects=["Need to talk to someone", "Counselling support", "Wellbeing line number?", "Struggling a bit",
                   "Employee assistance"],
         sympathy=["I'm really sorry you're going through this.", "Thank you for reaching out, that can't have been easy to write.",
                   "I'm so sorry to hear that."],
         stories=["Things have been really hard at home since {partner} and I split up.",
                  "My dad passed away last month and I'm not coping very well.",
                  "I've got into a mess with debts and it's keeping me up at night.",
                  "Work's been really stressful since the restructure and I don't want to go to my manager about it.",
                  "My {rel} has been diagnosed with cancer and I'm trying to keep everything going."],
         asks=["Is there someone I can talk to confidentially?", "What's the number for the employee assistance line?",
               "Do we have a counselling service?"],
         mq_values=[], mq_lines=[],
         says=["The {eap} is free and confidential, 24/7, on {fact}.",
               "You can call our Employee Assistance Programme any time on {fact}. It's run independently, so nothing comes back to us or your manager.",
               "Please do give the {eap} a ring on {fact}; they can arrange up to six counselling sessions.",
               "The confidential support line is {fact}, and it's open day and night."],
         extras=["They can also help with debt advice and legal questions.",
                 "Family members living with you can use it too.",
                 "If you'd like a referral to Occupational Health as well, just let me know."],
         unsure=["Would you like someone from the wellbeing team to call you? If so, what's the best number and time?"],
         pii=["You can reach me on {phone}."],
         questions=["Is there a confidential helpline for employees who are struggling?",
                    "What number do I call for the employee assistance programme?"]),
    dict(id="compassionate_leave", w=6, fact="3 days",
         forms=["3 days", "three days"],
         cat="Absence > Compassionate",
         subjects=["Bereavement leave", "Compassionate leave", "Time off for a funeral", "Family bereavement"],
         sympathy=["I'm very sorry for your loss.", "Please accept our condolences.", "I'm so sorry to hear your news."],
         stories=["My grandmother passed away on {date} and the funeral is in {place}.",
                  "My father-in-law, {tp}, died at the weekend.",
                  "A close family member has passed away and I need to travel to {place} for the funeral.",
                  "My uncle {tp} died suddenly last week."],
         asks=["How much compassionate leave can I take?", "Do I get paid time off for the funeral?",
               "What's the bereavement leave allowance?"],
         mq_values=["5 days", "a week", "2 days", "one day", "10 days"],
         mq_lines=["{mgr_first} thought it was {mq}.", "I was told it's {mq}."],
         says=["Compassionate leave is {fact} paid for a close family member, and you can add annual or unpaid leave if you need more time.",
               "You can take up to {fact} on full pay.",
               "Our policy gives {fact} of paid leave for the death of a close relative."],
         extras=["Just let your manager know and record it in {myhr} as compassionate leave.",
                 "The {eap} is there if you'd like to talk to someone."],
         unsure=["Could you let me know your relationship to the person? The policy depends on that, no need for any more detail than that."],
         pii=["My employee number is {empno}."],
         questions=["How much paid compassionate leave do I get when a close relative dies?",
                    "What is the bereavement leave entitlement?"]),
]

# --------------------------------------------------------------------------------------------------
# Generic wording
# --------------------------------------------------------------------------------------------------

C_GREET = ["Hi,", "Hello,", "Hi there,", "{tod},", "Hi team,", "Dear HR,", "{tod},", "Hiya,",
           "Hello People Services,", "", "", "Hi all,"]
C_INTRO = ["It's {first} from {site}.", "My name is {full}, I work in {dept} at {site}.",
           "I'm a {job} at {site}.", "{full} here, {dept} ({site}).", "", "", ""]
C_CLOSE = ["Thanks", "Thanks in advance", "Many thanks", "Cheers", "Thanks for your help", "Kind regards",
           "Regards", "Ta", "Thank you", "Thanks very much", "Best wishes"]
C_GENERIC_PII = ["My employee number is {empno} if you need it.", "emp no: {empno}",
                 "Also I've moved recently, new address is {addr}, {town} {pc} if someone can update it.",
                 "(I'm at {addr}, {pc} if you need to post anything.)", "My home postcode is {pc} if that helps.",
                 "You can ring me on {phone} if that's easier.", "Best number for me is {phone}.",
                 "Please reply to my personal email {pemail} as I can't get on my work one at home.",
                 "I'm on {phone} after 3pm.", "Also can someone update my parking permit, new car reg is {reg}.",
                 "My NI number is {ni} in case you need it.", "Home number is {phone}."]
C_ASIDE = ["Sorry if this is the wrong place to ask.", "Sorry, I did try looking on {myhr} first.",
           "I couldn't find it in the handbook.", "Not urgent but would be good to know.",
           "Sorry for all the questions!", "Hope you can help."]
A_GREET = ["Hi {first},", "Hello {first},", "Dear {title_sur},", "Hi {first}", "{atod} {first},",
           "{atod} {first},", "Hi,"]
A_THANKS = ["Thanks for your email.", "Thanks for getting in touch.", "Thanks for the message.",
            "Thanks for contacting {desk}.", "", ""]
A_CLOSE = ["Hope that helps.", "Any other questions, just reply here.", "Let me know if there's anything else.",
           "If anything's unclear, give us a call on {deskphone}.", "The full policy is on {portal} under Policies.",
           "", "Hope that answers your question."]
A_CORRECT = ["Just to correct one thing: it isn't {mq}.", "I think there's been some confusion, {mq} isn't right I'm afraid.",
             "That's not quite right, sorry.", "Whoever said {mq} may have been thinking of the old policy.",
             "It's not {mq}, I'm afraid."]

# --------------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------------

SLOT = re.compile(r"\{(\w+)\}")
MISSPELL = {"receive": "recieve", "definitely": "definately", "separate": "seperate", "until": "untill",
            "which": "wich", "because": "becuase", "occurred": "occured", "necessary": "neccessary",
            "believe": "beleive", "weird": "wierd", "holiday": "hoilday", "entitled": "entitiled",
            "wondering": "wandering", "really": "realy", "doctor's": "doctors", "don't": "dont",
            "I'm": "Im", "can't": "cant", "I've": "Ive", "there": "their", "payslip": "pay slip",
            "allowance": "allowence", "account": "acount", "contract": "contarct", "please": "pls",
            "thanks": "thx", "you": "u", "know": "kno", "pension": "pention", "manager": "manger"}


def _holds(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


def _ascii(s: str) -> str:
    s = s.replace("ł", "l").replace("Ł", "L").replace("ı", "i").replace("ø", "o")
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def _luhn_complete(digits: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            d -= 9 if d > 9 else 0
        total += d
    return digits + str((10 - total % 10) % 10)


def _mess(lit: str, rng: random.Random, typo: float, lower: bool) -> str:
    """Customer-side sloppiness on literal template text (never on slots)."""
    if not lit:
        return lit
    if lower:
        lit = lit.lower()
    if typo <= 0:
        return lit

    def one(m: re.Match) -> str:
        w = m.group(0)
        if rng.random() > typo:
            return w
        if w in MISSPELL and rng.random() < 0.7:
            return MISSPELL[w]
        if len(w) < 5 or not w.isalpha():
            return w
        i = rng.randrange(1, len(w) - 2)
        op = rng.random()
        if op < 0.4:
            return w[:i] + w[i + 1] + w[i] + w[i + 2:]
        if op < 0.7:
            return w[:i] + w[i + 1:]
        return w[:i] + w[i] + w[i:]

    return re.sub(r"[A-Za-z']+", one, lit)


class _Doc:
    """Renders templates, keeping track of every personal string written."""

    def __init__(self, ctx: dict, rng: random.Random):
        self.ctx, self.rng, self.pii = ctx, rng, []

    def r(self, tpl: str, typo: float = 0.0, lower: bool = False) -> str:
        out, pos = [], 0
        for m in SLOT.finditer(tpl):
            out.append(_mess(tpl[pos:m.start()], self.rng, typo, lower))
            kind, val = self.ctx[m.group(1)]
            if kind and (kind, val) not in self.pii:
                self.pii.append((kind, val))
            out.append(val)
            pos = m.end()
        out.append(_mess(tpl[pos:], self.rng, typo, lower))
        return "".join(out)

    def name(self, kind: str, val: str) -> str:
        if (kind, val) not in self.pii:
            self.pii.append((kind, val))
        return val


# --------------------------------------------------------------------------------------------------
# People and their identifiers, written in many ways
# --------------------------------------------------------------------------------------------------

def _pick_name(rng: random.Random, female: bool | None = None) -> tuple[str, str, bool]:
    keys = list(GROUPS)
    g = rng.choices(keys, weights=[GROUPS[k][0] for k in keys])[0]
    if female is None:
        female = rng.random() < 0.5
    _, fem, mal, sur = GROUPS[g]
    given = rng.choice(fem if female else mal)
    g2 = rng.choices(keys, weights=[GROUPS[k][0] for k in keys])[0] if rng.random() < 0.2 else g
    surname = rng.choice(GROUPS[g2][3])
    if rng.random() < 0.04:
        surname = surname + "-" + rng.choice(GROUPS["british"][3])
    return given, surname, female


def _postcode(rng: random.Random, area: str) -> str:
    inward = "ABDEFGHJLNPQRSTUWXYZ"
    return f"{area}{rng.randint(1, 29 if area != 'M' else 45)} {rng.randint(0, 9)}{rng.choice(inward)}{rng.choice(inward)}"


def _address(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.55:
        num = str(rng.randint(1, 180)) + (rng.choice("ab") if rng.random() < 0.06 else "")
        return f"{num} {rng.choice(STREETS_TYPED)}"
    if r < 0.75:
        return f"{rng.randint(1, 140)} {rng.choice(STREETS_BARE)}"
    if r < 0.92:
        return f"Flat {rng.randint(1, 24)}, {rng.randint(1, 60)} {rng.choice(BUILDINGS)}"
    return f"Apartment {rng.randint(1, 40)}, {rng.choice(BUILDINGS)}, {rng.randint(1, 90)} {rng.choice(STREETS_TYPED)}"


def _plate(rng: random.Random) -> str:
    letters = "ABCDEFGHJKLMNOPRSTUVWXY"
    age = rng.choice([f"{y:02d}" for y in range(10, 24)] + [str(y) for y in range(60, 74)])
    return f"{rng.choice('YBLMSEFGHKNOPRVW')}{rng.choice(letters)}{age} {''.join(rng.choice(letters) for _ in range(3))}"


def _ni(rng: random.Random) -> str:
    first, second = "ABCEGHJKLMNOPRSTWXYZ", "ABCEGHJKLMNPRSTWXYZ"
    return rng.choice(first) + rng.choice(second) + "".join(str(rng.randint(0, 9)) for _ in range(6)) + rng.choice("ABCD")


def _iban(rng: random.Random, sort: str, acct: str) -> str:
    bank = rng.choice(["NWBK", "BARC", "LOYD", "HBUK", "MIDL", "NAIA", "MONZ", "SRLG", "ABBY", "TSBS"])
    bban = bank + sort + acct
    num = "".join(str(int(c, 36)) for c in bban + "GB00")
    check = 98 - int(num) % 97
    raw = f"GB{check:02d}{bban}"
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))


def _make_person(rng: random.Random, idx: int, used: set) -> dict:
    given, surname, female = _pick_name(rng)
    title = rng.choice(["Mrs", "Ms", "Miss", "Ms"]) if female else "Mr"
    if rng.random() < 0.03:
        title = rng.choice(["Dr", "Mx"])
    base = f"{_ascii(given).lower().replace(' ', '')}.{_ascii(surname).lower().replace(' ', '').replace(chr(39), '')}"
    email, k = base, 1
    while email in used:
        k += 1
        email = f"{base}{k}"
    used.add(email)
    town, area = rng.choice(TOWNS)
    sort = f"{rng.choice(['20', '30', '40', '60', '77', '83', '09', '04', '11', '07'])}{rng.randint(0, 99):02d}{rng.randint(0, 99):02d}"
    acct = f"{rng.randint(10000000, 99999999)}"
    dob = dt.date(1958, 1, 1) + dt.timedelta(days=rng.randint(0, 17000))
    tac = "35" + "".join(str(rng.randint(0, 9)) for _ in range(12))
    card = _luhn_complete(rng.choice(["4", "5" + str(rng.randint(1, 5))]) + "".join(str(rng.randint(0, 9)) for _ in range(14 if rng.random() < 0.5 else 13)))
    mgr_g, mgr_s, mgr_f = _pick_name(rng)
    return dict(
        pid=f"hr-p{idx:05d}", given=given, surname=surname, female=female, title=title,
        empno=f"{rng.randint(100000, 189999)}", wemail=f"{email}@caldervale.example.com",
        pemail=_personal_email(rng, given, surname, dob), mobile=f"07700 900{rng.randint(0, 999):03d}",
        landline=(f"0113 496 0{rng.randint(0, 999):03d}" if area in ("LS", "WF", "BD") else f"01632 960{rng.randint(0, 999):03d}"),
        ni=_ni(rng), dob=dob, addr=_address(rng), town=town, pc=_postcode(rng, area), plate=_plate(rng),
        sort=sort, acct=acct, iban=_iban(rng, sort, acct), imei=_luhn_complete(tac), card=card,
        site=rng.choice(SITES), dept=rng.choice(DEPTS), job=rng.choice(JOBS),
        mgr=(mgr_g, mgr_s), passport=str(rng.randint(100000000, 599999999)),
        pension_no=f"VRP{rng.randint(10000000, 99999999)}", perk_no=f"6339 {rng.randint(1000, 9999)} {rng.randint(1000, 9999)} {rng.randint(10, 99)}",
        asset=f"CVF-LT-{rng.randint(10000, 39999)}",
        sharecode=" ".join("".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ23456789") for _ in range(3)) for _ in range(3)),
        rel=rng.choice(RELS), partner=_pick_name(rng)[:2], kid=_pick_name(rng)[0],
        kid_dob=dt.date(2015, 1, 1) + dt.timedelta(days=rng.randint(0, 3000)),
    )


def _personal_email(rng: random.Random, given: str, surname: str, dob: dt.date) -> str:
    g, s = _ascii(given).lower().replace(" ", "").replace("-", ""), _ascii(surname).lower().replace(" ", "").replace("'", "")
    yy = f"{dob.year % 100:02d}"
    local = rng.choice([f"{g}.{s}", f"{g}{s}{yy}", f"{g[0]}{s}", f"{s}{g[0]}{rng.randint(1, 99)}", f"{g}_{s[:4]}",
                        f"{g}{dob.year}", f"{g}.{s}{rng.randint(1, 9)}", f"{rng.choice(['the', 'its', 'mrs', 'big', 'lil'])}{g}{yy}"])
    return f"{local}@{rng.choice(['example.com', 'example.net', 'example.org', 'mail.example.com', 'inbox.example.net'])}"


def _fmt_phone(rng: random.Random, p: dict) -> str:
    if rng.random() < 0.12:
        return p["landline"]
    d = p["mobile"].replace(" ", "")
    return rng.choice([p["mobile"], d, "+44 " + d[1:5] + " " + d[5:], "+44" + d[1:], f"{d[:5]} {d[5:8]} {d[8:]}",
                       f"{d[:4]} {d[4:7]} {d[7:]}", f"{d[:5]}-{d[5:8]}-{d[8:]}", "(+44) " + p["mobile"]])


def _fmt_dob(rng: random.Random, d: dt.date) -> str:
    suf = "th" if 11 <= d.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
    return rng.choice([f"{d.day:02d}/{d.month:02d}/{d.year}", f"{d.day}/{d.month}/{d.year % 100:02d}",
                       f"{d.day:02d}.{d.month:02d}.{d.year % 100:02d}", f"{d.day}{suf} {MONTHS[d.month - 1]} {d.year}",
                       f"{d.day} {MONTHS[d.month - 1][:3]} {d.year}", f"{d.year}-{d.month:02d}-{d.day:02d}",
                       f"{d.day}-{d.month}-{d.year}", f"{MONTHS[d.month - 1]} {d.day}{suf} {d.year}"])


def _fmt_ni(rng: random.Random, ni: str, lower: bool) -> str:
    s = rng.choice([ni, f"{ni[:2]} {ni[2:4]} {ni[4:6]} {ni[6:8]} {ni[8]}", f"{ni[:2]} {ni[2:8]} {ni[8]}", f"{ni[:2]}{ni[2:8]} {ni[8]}"])
    return s.lower() if lower or rng.random() < 0.1 else s


def _fmt_empno(rng: random.Random, e: str) -> str:
    return rng.choice([e, e, f"CV{e}", f"CV-{e}", f"cv{e}", f"CV {e}", f"0{e}"])


def _fmt_imei(rng: random.Random, i: str) -> str:
    return rng.choice([i, f"{i[:2]} {i[2:8]} {i[8:14]} {i[14]}", f"{i[:2]}-{i[2:8]}-{i[8:14]}-{i[14]}", f"{i[:6]} {i[6:12]} {i[12:]}"])


def _fmt_pc(rng: random.Random, pc: str, lower: bool) -> str:
    s = rng.choice([pc, pc, pc.replace(" ", "")])
    return s.lower() if lower else s


def _fmt_plate(rng: random.Random, pl: str, lower: bool) -> str:
    s = rng.choice([pl, pl, pl.replace(" ", "")])
    return s.lower() if lower or rng.random() < 0.1 else s


def _name_variants(rng: random.Random, given: str, surname: str) -> str:
    return rng.choice([f"{given} {surname}", given, f"{given} {surname}", f"{given[0]}. {surname}",
                       f"{surname}", f"{given} {surname[0]}."])


# --------------------------------------------------------------------------------------------------
# One record
# --------------------------------------------------------------------------------------------------

def _context(rng: random.Random, p: dict, t: dict, when: dt.datetime, agent: tuple, lower: bool,
             fact: str, mq: str | None) -> dict:
    given, surname = p["given"], p["surname"]
    mg, ms = p["mgr"]
    pg, ps = p["partner"]
    col_g, col_s, _ = _pick_name(rng)
    doc_g, doc_s, _ = _pick_name(rng)
    tp_g, tp_s, _ = _pick_name(rng, female=False)
    br_g, br_s, _ = _pick_name(rng)
    ll_g, ll_s, _ = _pick_name(rng)
    mw_g, mw_s, _ = _pick_name(rng, female=True)
    ifa_g, ifa_s, _ = _pick_name(rng)
    ag, asur = agent
    lo = (lambda s: s.lower()) if lower else (lambda s: s)
    d1 = when.date() - dt.timedelta(days=rng.randint(1, 12))
    d2 = when.date() + dt.timedelta(days=rng.randint(3, 40))
    fmt_day = lambda d: rng.choice([f"{d.day}/{d.month}", f"{d.day} {MONTHS[d.month - 1]}", f"the {d.day}{'th' if 4 <= d.day <= 20 or d.day % 10 > 3 or d.day % 10 == 0 else {1: 'st', 2: 'nd', 3: 'rd'}[d.day % 10]}", f"{d.day:02d}/{d.month:02d}/{d.year}"])
    sortcode = rng.choice([f"{p['sort'][:2]}-{p['sort'][2:4]}-{p['sort'][4:]}", p["sort"], f"{p['sort'][:2]} {p['sort'][2:4]} {p['sort'][4:]}"])
    card4 = p["card"][-4:]
    ctx = {
        "first": ("person_name", given),
        "full": ("person_name", f"{given} {surname}"),
        "title_sur": ("person_name", f"{p['title']} {surname}"),
        "empno": ("account_number", _fmt_empno(rng, p["empno"])),
        "ni": ("national_id", _fmt_ni(rng, p["ni"], lower)),
        "dob": ("date_of_birth", _fmt_dob(rng, p["dob"])),
        "phone": ("phone", _fmt_phone(rng, p)),
        "pemail": ("email", p["pemail"]),
        "wemail": ("email", p["wemail"]),
        "addr": ("address", lo(p["addr"])),
        "pc": ("postcode", _fmt_pc(rng, p["pc"], lower)),
        "town": (None, p["town"]),
        "town2": (None, rng.choice(TOWNS)[0]),
        "site": (None, p["site"]), "site2": (None, rng.choice([s for s in SITES if s != p["site"]])),
        "dept": (None, p["dept"]), "job": (None, p["job"]),
        "mgr": ("third_party_name", rng.choice([f"{mg} {ms}", mg, f"{mg} {ms}"])),
        "mgr_first": ("third_party_name", mg),
        "colleague": ("third_party_name", rng.choice([f"{col_g} {col_s}", col_g])),
        "colleague_first": ("third_party_name", col_g),
        "partner": ("third_party_name", rng.choice([pg, f"{pg} {ps}", pg])),
        "rel": (None, p["rel"]),
        "kid": ("third_party_name", p["kid"]),
        "kid_dob": ("date_of_birth", _fmt_dob(rng, p["kid_dob"])),
        "kidage": (None, rng.choice(["two", "3", "four", "nearly 5", "18 months"])),
        "doctor": ("third_party_name", rng.choice([f"Dr {doc_s}", f"Dr {doc_g} {doc_s}", f"Dr. {doc_s}"])),
        "midwife": ("third_party_name", rng.choice([mw_g, f"{mw_g} {mw_s}"])),
        "tp": ("third_party_name", rng.choice([tp_g, f"{tp_g} {tp_s}"])),
        "broker": ("third_party_name", f"{br_g} {br_s}"),
        "landlord": ("third_party_name", rng.choice([f"{ll_g} {ll_s}", f"Mr {ll_s}", f"Mrs {ll_s}"])),
        "ifa": ("third_party_name", f"{ifa_g} {ifa_s}"),
        "reg": ("licence_plate", _fmt_plate(rng, p["plate"], lower)),
        "sortcode": ("iban", sortcode), "acctno": ("iban", p["acct"]),
        "sortacc": ("iban", rng.choice([f"{sortcode} {p['acct']}", f"{sortcode} / {p['acct']}", f"{p['sort']}{p['acct']}"])),
        "iban": ("iban", rng.choice([p["iban"], p["iban"].replace(" ", "")])),
        "card4": ("card_number", rng.choice([card4, card4, f"**** {card4}", f"xxxx{card4}"])),
        "imei": ("imei", _fmt_imei(rng, p["imei"])),
        "passport": ("other_id", p["passport"]),
        "sharecode": ("other_id", rng.choice([p["sharecode"], p["sharecode"].replace(" ", "")])),
        "dlicence": ("other_id", _driving_licence(rng, p)),
        "asset": ("other_id", p["asset"]),
        "pension_no": ("account_number", p["pension_no"]),
        "perk_no": ("account_number", rng.choice([p["perk_no"], p["perk_no"].replace(" ", "")])),
        "claimno": ("account_number", f"EXP-{when.year}-{rng.randint(1000, 99999):05d}"),
        "fileurl": ("url_with_id", rng.choice([f"https://files.example.net/s/{_token(rng, 10)}",
                                               f"https://drive.example.org/d/{_token(rng, 16)}/view",
                                               f"{PORTAL}/absence/{p['empno']}/docs/{rng.randint(1000, 9999)}"])),
        "price": (None, rng.choice(["£189.99", "£129", "£215", "£89.50", "£164.99", "£119.00", "£240"])),
        "netpay": (None, f"£{rng.randint(1150, 2900):,}.{rng.randint(0, 99):02d}"),
        "mileclaim": (None, f"£{rng.randint(12, 140)}.{rng.choice(['00', '20', '40', '60', '80', '10'])}"),
        "month_prev": (None, MONTHS[(when.month - 2) % 12]),
        "car": (None, rng.choice(CARS)), "miles": (None, str(rng.choice([38, 52, 64, 86, 112, 134, 158, 212, 240, 316]))),
        "place": (None, rng.choice(PLACES)), "month": (None, MONTHS[(when.month + rng.randint(1, 6)) % 12]),
        "date": (None, fmt_day(d1)), "date2": (None, fmt_day(d2)),
        "years": (None, str(rng.randint(11, 34))), "age": (None, str(rng.randint(47, 63))),
        "ailment": (None, rng.choice(AILMENTS)), "hospital": (None, rng.choice(HOSPITALS)),
        "surgery": (None, rng.choice(SURGERIES)), "bank": (None, rng.choice(BANKS)),
        "equipment": (None, rng.choice(EQUIPMENT)),
        "co": (None, COMPANY), "desk": (None, DESK), "deskphone": (None, DESK_PHONE), "deskemail": (None, DESK_EMAIL),
        "portal": (None, PORTAL), "myhr": (None, MYHR), "expense": (None, EXPENSE), "pension": (None, PENSION),
        "perk": (None, PERK), "eap": (None, EAP), "ffp": (None, FFP), "hybrid": (None, HYBRID),
        "fact": (None, fact), "factadj": (None, fact), "mq": (None, mq or ""),
        "agent_first": ("agent_name", ag),
        "agent": ("agent_name", rng.choice([f"{ag} {asur}", ag, f"{ag} {asur[0]}.", f"{ag} {asur}"])),
    }
    reply = when + dt.timedelta(hours=rng.randint(1, 50))
    if not 8 <= reply.hour <= 17:
        reply = reply.replace(hour=rng.randint(8, 17))
    if reply.weekday() >= 5:
        reply += dt.timedelta(days=7 - reply.weekday())
    ctx["replied"] = (None, reply.strftime("%d/%m/%Y %H:%M"))
    ctx["tod"] = (None, rng.choice(["Morning", "Good morning"]) if when.hour < 12 else rng.choice(["Good afternoon", "Afternoon"]) if when.hour < 17 else "Good evening")
    ctx["atod"] = (None, "Good morning" if reply.hour < 12 else "Good afternoon")
    sign = rng.choice([given, given, f"{given} {surname}", f"{given} {surname[0]}", f"{p['title']} {surname}", lo(given)])
    ctx["sign"] = ("person_name", sign)
    return ctx


def _token(rng: random.Random, k: int) -> str:
    return "".join(rng.choice("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(k))


def _driving_licence(rng: random.Random, p: dict) -> str:
    s = re.sub(r"[^A-Z]", "", _ascii(p["surname"]).upper())[:5].ljust(5, "9")
    d = p["dob"]
    m = d.month + (50 if p["female"] else 0)
    return f"{s}{str(d.year)[2]}{m:02d}{d.day:02d}{str(d.year)[3]}{_ascii(p['given'])[0].upper()}9{rng.randint(0, 9)}{rng.choice('ABCDEFGHJKLMN')}{rng.choice('ABCDEFGHJKLMN')}"


def _customer_parts(rng: random.Random, t: dict, mq: str | None, chatty: bool, female: bool) -> list[str]:
    """Sentences of the employee's message, as templates."""
    parts = []
    if rng.random() < 0.78 or any(x.startswith("F|") for x in t["stories"]):
        pool = [x for x in t["stories"] if female or not x.startswith("F|")]
        parts.append(rng.choice(pool).removeprefix("F|"))
    ask = rng.choice(t["asks"])
    if mq:
        ml = rng.choice(t["mq_lines"])
        parts += [ask, ml] if rng.random() < 0.5 else [ml, ask]
    else:
        parts.append(ask)
    used = set()
    if rng.random() < 0.65:
        parts.append(rng.choice(t["pii"]))
        used = set(SLOT.findall(parts[-1]))
    if rng.random() < 0.35:
        pool = [g for g in C_GENERIC_PII if not used & set(SLOT.findall(g))]
        parts.append(rng.choice(pool))
    if chatty and rng.random() < 0.3:
        parts.append(rng.choice(C_ASIDE))
    return parts


def _agent_parts(rng: random.Random, t: dict, stated: bool, mq: str | None, chat: bool) -> list[str]:
    parts = []
    if t.get("sympathy") and rng.random() < 0.7:
        parts.append(rng.choice(t["sympathy"]))
    elif not chat:
        th = rng.choice(A_THANKS)
        if th:
            parts.append(th)
    if not stated:
        parts.append(rng.choice(t["unsure"]))
        if rng.random() < 0.5:
            parts.append(rng.choice(["Once I have that I'll come back to you.", "Thanks, and sorry for the extra step.",
                                     "I'll keep this case open until I hear from you."]))
        return parts
    if mq:
        parts.append(rng.choice(A_CORRECT))
    say = rng.choice(t["says"])
    parts.append(say)
    for e in rng.sample(t["extras"], k=min(len(t["extras"]), rng.choice([0, 1, 1, 1, 2]))):
        parts.append(e)
    return parts


def _render_email(rng, d: _Doc, p, t, when, cparts, aparts, typo, lower) -> tuple[str, str]:
    from_name = rng.choice(["{full}", "{full}", "{surname_first}"])
    d.ctx["surname_first"] = ("person_name", f"{p['surname']}, {p['given']}")
    subject = rng.choice(t["subjects"])
    if rng.random() < 0.15:
        subject = subject.lower()
    use_personal = rng.random() < 0.2
    hdr = [f"From: {from_name} <{{{'pemail' if use_personal else 'wemail'}}}>",
           f"Sent: {when.strftime(rng.choice(['%A, %d %B %Y %H:%M', '%d/%m/%Y %H:%M', '%a %d %b %Y %H:%M']))}",
           f"To: {DESK}" + (f" <{DESK_EMAIL}>" if rng.random() < 0.5 else ""),
           f"Subject: {subject}"]
    head = d.r("\n".join(hdr))
    body = []
    g = rng.choice(C_GREET)
    if g:
        body.append(d.r(g, typo, lower))
    intro = rng.choice(C_INTRO) if rng.random() < 0.4 else ""
    paras = ([intro] if intro else []) + cparts
    # group sentences into 1-2 paragraphs
    cut = rng.randint(1, len(paras)) if len(paras) > 1 and rng.random() < 0.6 else len(paras)
    body.append(d.r(" ".join(paras[:cut]), typo, lower))
    if paras[cut:]:
        body.append(d.r(" ".join(paras[cut:]), typo, lower))
    close = rng.choice(C_CLOSE)
    sig = d.r(close + rng.choice([",", "", ""]), typo, lower) + "\n" + d.r("{sign}")
    if rng.random() < 0.2:
        sig += "\n" + d.r(rng.choice(["{job}, {site}", "{dept} | {site}"])) + ("\n" + d.r(rng.choice(["Tel: {phone}", "M: {phone}", "{phone}"])) if rng.random() < 0.5 else "")
    body.append(sig)
    cust = head + "\n\n" + "\n\n".join(body)
    # reply
    reply_hdr = rng.choice([f"\n\n-----\nFrom: {DESK} <{DESK_EMAIL}>\nSent: {d.ctx['replied'][1]}\nSubject: RE: {subject}\n\n",
                            "\n\n--- Reply from People Services ---\n\n", "\n\n________________________________\n\n"])
    a = [d.r(rng.choice(A_GREET))] + [d.r(" ".join(aparts))]
    c = rng.choice(A_CLOSE) if "?" not in aparts[-1] else ""
    if c:
        a.append(d.r(c))
    a.append(d.r(rng.choice(["Kind regards,\n{agent}", "Thanks,\n{agent}", "Best wishes\n{agent}", "Regards\n{agent}",
                             "Many thanks,\n{agent}\nHR Adviser | {desk}", "{agent}\n{desk} | {co}\n{deskphone}",
                             "Kind regards\n{agent}\nHR Adviser\n{deskemail}"])))
    agent_text = "\n\n".join(a)
    return cust + reply_hdr + agent_text, agent_text


def _render_portal(rng, d: _Doc, p, t, when, cparts, aparts, typo, lower) -> tuple[str, str]:
    d.ctx["surname_first"] = ("person_name", f"{p['surname']}, {p['given']}")
    d.ctx["caseno"] = ("account_number", f"HRC-{rng.randint(20000, 99999):07d}")
    d.ctx["caseurl"] = ("url_with_id", f"{PORTAL}/cases/{d.ctx['caseno'][1]}")
    d.ctx["empno_plain"] = ("account_number", p["empno"])
    head = d.r(rng.choice(["Case {caseno} | Category: " + t["cat"] + " | Channel: {myhr} portal",
                           "Case ref: {caseno}\nCategory: " + t["cat"],
                           "{caseurl}\nCategory: " + t["cat"]]))
    head += "\n" + d.r(rng.choice(["Raised by: {surname_first} ({empno_plain}), {site}", "Employee: {full} - {empno_plain} - {dept}",
                                   "Raised by: {full} ({site})"]))
    head += f"\nLogged: {when.strftime('%Y-%m-%d %H:%M')}"
    q = d.r(" ".join(cparts), typo, lower)
    if rng.random() < 0.4:
        q += " " + d.r(rng.choice(["Thanks", "thanks", "Thank you", "Cheers, {sign}", "{sign}", "Thanks {sign}"]), typo, lower)
    lead = rng.choice(["Adviser response ({agent}, {desk}):", "Response from {agent}:", "Resolution note - {agent}:",
                       "Reply ({agent}):"])
    intro = rng.choice(["", "", "Hi {first}, ", "Hi {first}, it's {agent_first} from {desk}. ", "Hello {first}, "])
    ans = d.r(intro) + d.r(" ".join(aparts))
    if rng.random() < 0.5:
        ans += " " + d.r(rng.choice((A_CLOSE if "?" not in aparts[-1] else []) + ["Thanks, {agent_first}", "{agent_first}"]))
    status = "Awaiting employee" if "?" in aparts[-1] else rng.choice(["Closed - answered", "Resolved", "Closed"])
    lead_r = d.r(lead)
    text = f"{head}\n\nQuery:\n{q}\n\n{lead_r}\n{ans}\n\nStatus: {status}"
    return text, ans + lead_r


def _render_chat(rng, d: _Doc, p, t, when, cparts, aparts, typo, lower) -> tuple[str, str]:
    tm = when if 8 <= when.hour <= 17 else when.replace(hour=rng.randint(8, 17))
    lines = [f"{MYHR} Live Chat | {when.strftime('%d/%m/%Y')}"]
    cname = d.r(rng.choice(["{full}", "{full}", "{first}"]))
    aname = d.r(rng.choice(["{agent_first} ({desk})", "{agent}", "{agent_first} - HR"]))

    def say(who, txt):
        nonlocal tm
        tm += dt.timedelta(seconds=rng.randint(20, 150))
        lines.append(f"{tm.strftime('%H:%M')} {who}: {txt}")

    opener = rng.choice(["hi", "Hi", "hello", "Hiya", "hi there", "Hi, quick question.", "Hello, can someone help?"])
    if opener.endswith((".", "?")):
        say(cname, d.r(opener, typo, lower))
        say(cname, d.r(cparts[0], typo, lower))
    else:
        first = cparts[0]
        if first[:1].isupper() and not first.startswith(("I ", "I'", "{")):
            first = first[0].lower() + first[1:]
        say(cname, d.r(opener + " " + first, typo, lower))
    for c in cparts[1:]:
        say(cname, d.r(c, typo, lower))
    say(aname, d.r(rng.choice(["Hi {first}, you're through to {agent_first} in {desk}.", "Hi {first}, thanks for waiting.",
                               "Hello {first}, {agent_first} here.", "Hi {first}!"])))
    agent_chunks = []
    if rng.random() < 0.45 and not any("{empno}" in c for c in cparts):
        k = rng.randrange(3)
        say(aname, d.r(["Can I take your employee number please?", "Could you confirm your employee number and date of birth first?",
                        "Just so I've got the right record, can you confirm your NI number?"][k]))
        say(cname, d.r([rng.choice(["{empno}", "its {empno}", "sure, {empno}"]), rng.choice(["{empno}, dob {dob}", "{empno} and {dob}"]),
                        rng.choice(["{ni}", "its {ni}", "NI is {ni}"])][k], typo, lower))
    for a in aparts:
        agent_chunks.append(d.r(a))
        say(aname, agent_chunks[-1])
    say(cname, d.r(rng.choice(["ok thanks", "great, thank you", "brill thanks", "ok will do", "thanks for your help",
                               "perfect thanks", "ok", "cheers"]), typo, lower))
    if rng.random() < 0.5:
        say(aname, d.r(rng.choice(["No problem, have a good day!", "You're welcome. Take care.", "Anytime!"])))
    return "\n".join(lines), " ".join(agent_chunks)


# --------------------------------------------------------------------------------------------------
# The collection
# --------------------------------------------------------------------------------------------------

def _counts(rng: random.Random, n: int) -> list[int]:
    w = [t["w"] * rng.uniform(0.88, 1.12) for t in TYPES]
    total = sum(w)
    raw = [x * n / total for x in w]
    c = [max(1, int(x)) for x in raw]
    order = sorted(range(len(raw)), key=lambda i: raw[i] - int(raw[i]), reverse=True)
    i = 0
    while sum(c) < n:
        c[order[i % len(order)]] += 1
        i += 1
    while sum(c) > n:
        j = max(range(len(c)), key=lambda k: c[k])
        c[j] -= 1
    return c


def _all_forms() -> dict:
    return {t["id"]: t["forms"] for t in TYPES}


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    rng = random.Random(f"calder-vale-hr/{seed}/{n}")
    forms = _all_forms()
    for t in TYPES:  # sanity of the wording itself
        for v in t["mq_values"]:
            assert not any(_holds(v, f) for fs in forms.values() for f in fs), v
    counts = _counts(rng, n)
    plan = []
    for t, c in zip(TYPES, counts):
        for k in range(c):
            mq = rng.choice(t["mq_values"]) if t["mq_values"] and k > 0 and rng.random() < 0.14 else None
            stated = True if (k == 0 or mq) else rng.random() < 0.9
            plan.append((t, stated, mq, k == 0))
    rng.shuffle(plan)
    # people: 1-3 records each
    used: set = set()
    people, slots = [], []
    while len(slots) < n:
        p = _make_person(rng, len(people) + 1, used)
        people.append(p)
        slots += [p] * rng.choices([1, 2, 3], weights=[70, 22, 8])[0]
    slots = slots[:n]
    rng.shuffle(slots)
    start = dt.datetime(2023, 9, 1, 7, 0)
    stamps = sorted(start + dt.timedelta(minutes=rng.randint(0, 60 * 24 * 420)) for _ in range(n))
    stamps = [s if 7 <= s.hour <= 21 else s.replace(hour=rng.randint(8, 18)) for s in stamps]
    records, pii_rows = [], []
    stated_by = {t["id"]: 0 for t in TYPES}
    mis_by = {t["id"]: 0 for t in TYPES}
    for i, ((t, stated, mq, canon), p, when) in enumerate(zip(plan, slots, stamps)):
        text, pii = _one(rng, p, t, when, stated, mq, forms, canon)
        rid = f"hr-{i + 1:06d}"
        records.append({"id": rid, "text": text, "person_id": p["pid"], "type": t["id"],
                         "employee_name": f"{p['given']} {p['surname']}", "employee_number": f"CV{p['empno']}",
                         "work_email": p["wemail"], "mobile": p["mobile"], "ni_number": p["ni"]})
        pii_rows.append({"id": rid, "pii": [{"kind": k, "text": v} for k, v in pii]})
        stated_by[t["id"]] += stated
        mis_by[t["id"]] += bool(mq)
    order = sorted(range(len(TYPES)), key=lambda i: -counts[i])
    types = [{"id": TYPES[i]["id"], "records": counts[i], "fact": TYPES[i]["fact"], "forms": list(TYPES[i]["forms"]),
              "stated_by": stated_by[TYPES[i]["id"]], "misquoted_by": mis_by[TYPES[i]["id"]]} for i in order]
    questions = [{"question": q, "answers": list(TYPES[i]["forms"]), "type": TYPES[i]["id"], "support": counts[i]}
                 for i in order for q in TYPES[i]["questions"]]
    public = {"company": COMPANY, "public_strings": list(PUBLIC_STRINGS), "product_names": list(PRODUCTS),
              "identifier_fields": ["employee_name", "employee_number", "work_email", "mobile", "ni_number"],
              "id_field": "id", "text_field": "text", "unit_field": "person_id"}
    return {"domain": "hr", "records": records, "pii": pii_rows, "types": types, "questions": questions,
            "public": public}


def _one(rng: random.Random, p: dict, t: dict, when: dt.datetime, stated: bool, mq: str | None,
         forms: dict, canon: bool = False) -> tuple[str, list]:
    """Write one record; redraw until it is clean (length, no stray fact forms)."""
    agent = rng.choice(AGENTS)
    for _ in range(200):
        fmt = rng.choices(["email", "portal", "chat"], weights=[45, 35, 20])[0]
        lower = rng.random() < (0.3 if fmt == "chat" else 0.1)
        typo = rng.choice([0, 0, 0.02, 0.04, 0.08]) if fmt != "chat" else rng.choice([0.03, 0.06, 0.1])
        pool = t.get("adj_forms")
        fact = t["fact"] if canon else rng.choice([t["fact"]] * len(t["forms"]) + t["forms"])
        ctx = _context(rng, p, t, when, agent, lower, fact, mq)
        if pool:
            ctx["fact"] = (None, t["fact"] if canon else rng.choice([f for f in t["forms"] if f not in pool]))
            ctx["factadj"] = (None, rng.choice(pool))
        d = _Doc(ctx, rng)
        cparts = _customer_parts(rng, t, mq, fmt != "portal", p["female"])
        aparts = _agent_parts(rng, t, stated, mq, fmt == "chat")
        render = {"email": _render_email, "portal": _render_portal, "chat": _render_chat}[fmt]
        text, agent_text = render(rng, d, p, t, when, cparts, aparts, typo, lower)
        words = len(text.split())
        if not 50 <= words <= 250:
            continue
        if any(_holds(text, f) for tid, fs in forms.items() if tid != t["id"] for f in fs):
            continue
        own = any(_holds(agent_text, f) for f in t["forms"])
        if stated != own or (not stated and any(_holds(text, f) for f in t["forms"])):
            continue
        if mq and any(_holds(text.replace(agent_text, ""), f) for f in t["forms"]):
            continue
        if canon and t["fact"] not in text:
            continue
        return text, d.pii
    raise RuntimeError(f"could not write a clean record for {t['id']}")
