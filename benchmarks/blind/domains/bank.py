"""Blind own-data domain ``bank``: customer-support exports of Northmoor Bank, an invented UK retail bank.

Every record is one customer contact (a live chat, an e-mail thread, a call note, a web enquiry form or a
secure in-app message) with the bank's reply.  Standard library only; deterministic in ``(seed, n)``.
"""

from __future__ import annotations

import random
import re

__all__ = ["generate"]

COMPANY = "Northmoor Bank"
FRAUD_LINE = "0800 915 4420"
HELP_LINE = "0345 266 0190"
WEB = "www.northmoor.example.com"
HELP_EMAIL = "help@northmoor.example.com"
MORT_EMAIL = "mortgages@northmoor.example.com"

PUBLIC_STRINGS = [COMPANY, FRAUD_LINE, HELP_LINE, WEB, HELP_EMAIL, MORT_EMAIL]

PRODUCTS = {
    "p_card": ["Northmoor Visa Debit"],
    "p_credit": ["Northmoor Platinum Credit Card"],
    "p_acct": ["Northmoor Everyday Account", "Northmoor Plus Account", "Northmoor Reward Account"],
    "p_app": ["Northmoor Mobile"],
    "p_online": ["Northmoor Online Banking"],
    "p_secure": ["Northmoor SecurePass"],
    "p_od": ["Arranged Overdraft"],
    "p_mort": ["First Home Mortgage", "Northmoor Fixed Rate Mortgage", "Northmoor Tracker Mortgage"],
    "p_switch": ["Current Account Switch Service"],
    "p_intl": ["Northmoor Pay Abroad"],
    "p_save": ["Easy Access Saver", "Northmoor Cash ISA"],
}
PRODUCT_NAMES = sorted({p for v in PRODUCTS.values() for p in v})

IDENTIFIER_FIELDS = ["customer_name", "email", "phone", "account_number", "customer_id", "date_of_birth"]

# --------------------------------------------------------------------------------------------------------
# names and places

MALE = ["Callum", "James", "Oliver", "Mohammed", "Arjun", "Tomasz", "Kwame", "Chidi", "Liam", "Connor", "Rhys",
        "Dylan", "Hamish", "Ravi", "Sanjay", "Wei", "Hiroshi", "Mateo", "Luca", "Jakub", "Ibrahim", "Yusuf",
        "Tunde", "Daniel", "George", "Harry", "Mark", "Will", "Jack", "Bill", "Grant", "Dean", "Gordon",
        "Aleksander", "Dmitri", "Kofi", "Emeka", "Diego", "Pedro", "Sean", "Niall", "Owain", "Ahmed", "Bilal",
        "Darnell", "Marcus", "Tyrone", "Ethan", "Noah", "Kenji", "Minh", "Farid", "Omar", "Stanley", "Reggie",
        "Gareth", "Piotr", "Rajesh", "Cormac", "Angus", "Florin", "Matteo", "Hassan", "Kieran", "Victor"]
FEMALE = ["Ada", "Priya", "Grace", "Hope", "May", "Rose", "Joy", "Faith", "Dawn", "Summer", "Chloe", "Amelia",
          "Siobhan", "Aoife", "Megan", "Eilidh", "Fatima", "Aisha", "Zainab", "Anjali", "Deepa", "Mei", "Yuki",
          "Lucia", "Sofia", "Agnieszka", "Olena", "Ngozi", "Amara", "Abena", "Chanel", "Keisha", "Hannah",
          "Sarah", "Emma", "Charlotte", "Nadia", "Leila", "Ingrid", "Freya", "Iris", "Holly", "Ivy", "Olive",
          "Pearl", "Ruby", "Amber", "Jade", "Precious", "Blessing", "Halima", "Kateryna", "Beatriz", "Camille",
          "Bridget", "Penny", "Sunita", "Gwen", "Marta", "Roisin"]
NEUTRAL = ["Alex", "Sam", "Jordan", "Robin", "Charlie", "Sky", "Kai", "Jo"]
SURNAMES = ["Green", "Brown", "Rose", "Hope", "May", "Field", "Church", "King", "Bell", "Wood", "Hill", "Stone",
            "Baker", "Cook", "Page", "Hall", "Lamb", "Fox", "Frost", "Love", "Rice", "Mills", "Marsh", "Lane",
            "Banks", "Black", "White", "Young", "Long", "Sharp", "Bird", "Moss", "Little", "Short", "Day",
            "Waters", "Gold", "Cash", "Sterling", "Penny", "Knight", "Bishop", "Parish", "Smith", "Jones",
            "Evans", "Davies", "Williams", "Taylor", "O'Brien", "MacLeod", "McAllister", "Okafor", "Adeyemi",
            "Mensah", "Boateng", "Osei", "Mwangi", "Abubakar", "Nwosu", "Patel", "Sharma", "Khan", "Begum",
            "Ahmed", "Hussain", "Singh", "Kaur", "Dhillon", "Chaudhry", "Iqbal", "Chen", "Wong", "Nguyen", "Tran",
            "Kim", "Park", "Tanaka", "Sato", "Li", "Zhang", "García", "Fernández", "Rodríguez", "Rossi",
            "Bianchi", "Müller", "Schmidt", "Nowak", "Kowalski", "Wiśniewska", "Ivanova", "Petrov", "Horváth",
            "Papadopoulos", "Yılmaz", "Haddad", "Nasser", "da Silva", "Santos", "Oliveira", "Campbell", "Fraser",
            "Murphy", "Kelly", "Doherty", "Lloyd", "Pritchard", "Reid", "Thompson", "Clarke", "Walker",
            "Robinson", "Wright", "Edwards", "Hughes", "Chambers", "Forde", "Joseph", "Francis", "Grant",
            "Brook", "Summers", "Winter", "Rivers", "Ward", "Cross"]

STREETS = [("Elm", "Road"), ("Kingsway", ""), ("Church", "Lane"), ("Marlow", "Court"), ("Station", "Road"),
           ("High", "Street"), ("Victoria", "Avenue"), ("Rowan", "Close"), ("Hope", "Street"), ("Mill", "Lane"),
           ("The Paddocks", ""), ("Parkside", ""), ("Queens", "Drive"), ("Beech", "Grove"), ("Meadow", "View"),
           ("Albert", "Terrace"), ("Rose", "Hill"), ("Chapel", "Street"), ("Greenway", ""), ("Woodland", "Rise"),
           ("Orchard", "Way"), ("Cromwell", "Road"), ("Moorside", ""), ("Harbour", "Walk"), ("Brunswick", "Square"),
           ("Nelson", "Street"), ("Larch", "Crescent"), ("Foxglove", "Way"), ("Clifton", "Gardens"),
           ("Northgate", ""), ("Saint Mary's", "Road"), ("Bridge", "Street"), ("Windsor", "Avenue"),
           ("Carlton", "Place"), ("Holly", "Bank"), ("Wellington", "Street"), ("Ash", "Grove"), ("Broadway", "")]
ABBR = {"Road": "Rd", "Street": "St", "Avenue": "Ave", "Lane": "Ln", "Drive": "Dr", "Close": "Cl",
        "Crescent": "Cres", "Gardens": "Gdns", "Square": "Sq", "Terrace": "Terr"}
BUILDINGS = ["Marlow Court", "Jubilee House", "Canal Wharf", "The Old Mill", "Regent Mansions", "Albion Works",
             "Linden Court", "St James Court"]
TOWNS = [("Leeds", "LS"), ("Manchester", "M"), ("Bristol", "BS"), ("Cardiff", "CF"), ("Glasgow", "G"),
         ("Edinburgh", "EH"), ("Sheffield", "S"), ("Norwich", "NR"), ("Leicester", "LE"), ("Brighton", "BN"),
         ("Newcastle", "NE"), ("Nottingham", "NG"), ("Belfast", "BT"), ("Swansea", "SA"), ("York", "YO"),
         ("Plymouth", "PL"), ("Birmingham", "B"), ("London", "SE"), ("London", "N"), ("Reading", "RG"),
         ("Exeter", "EX"), ("Aberdeen", "AB"), ("Derby", "DE"), ("Hull", "HU"), ("Harrogate", "HG"),
         ("Stockport", "SK")]
POST_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"
SORT_CODES = ["40-17-22", "40-17-58", "40-21-06", "40-23-91", "40-35-14", "40-42-77"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
MERCHANTS = ["QUICKBUY*ONLINE", "Stellar Pizza Ltd", "PAYPAL *GAMEHUB", "Brightlane Fashion", "ZIPCAB* TRIP",
             "Holloway Electronics", "VEXO DIGITAL", "Mondial Tickets", "SKYLARK VPN", "Luma Beauty Co",
             "FASTFUEL 2291", "CRYPTOWAVE EU"]
PLACES = ["Leeds station", "the Trafford Centre", "a pub on Deansgate", "the gym", "the Co-op on Park Road",
          "a festival at the weekend", "the school gates", "Piccadilly", "a Christmas market", "the bus station"]
COUNTRIES = ["Poland", "India", "Nigeria", "Spain", "Portugal", "Greece", "Canada", "Jamaica", "Pakistan",
             "the Philippines", "Ghana", "Italy", "Turkey", "Kenya", "the US", "Romania", "Australia"]
BRANCHES = ["Kirkgate", "Harrogate", "Stockport", "Canton", "Headingley", "Byres Road", "Clifton", "Jesmond",
            "Market Street"]
REL = {"m": ["husband", "partner", "son", "dad", "brother", "flatmate"],
       "f": ["wife", "partner", "daughter", "mum", "sister", "flatmate"]}

# --------------------------------------------------------------------------------------------------------
# request types.  Placeholders in {braces} are filled per record; {f} is a surface form of the fact, {wrong}
# the customer's misquoted value.

TYPES = [
    dict(
        id="fraud_lost_card_line", weight=84, fact=FRAUD_LINE,
        forms=[FRAUD_LINE, "0800 9154420", "08009154420", "+44 800 915 4420"],
        form_weights=[6, 1, 1, 1],
        topic=["Lost / stolen card", "Fraud - unrecognised payments", "Suspected scam", "Card security"],
        questions=["What number do I ring to report my bank card lost or stolen?",
                   "How do I report a payment on my account that I didn't make?",
                   "Who should I phone if I think I've been scammed out of money?"],
        subjects=["Lost card", "payments I dont recognise!!", "Help - fraud?", "Suspicious transactions",
                  "Fraud?", "URGENT", "someone using my card", "card security", "Please help"],
        asks=[
            "I lost my purse at {place} yesterday evening and my {p_card} was in it (card ending {card4}). I've "
            "frozen it in the app but I don't know what else I need to do. Who do I need to contact?",
            "There are three payments on my account to {merchant} on {date}, {amount} each, that I definitely did not "
            "make. My card is still in my wallet so somebody must have the details. What do I do now?",
            "My phone got nicked on the bus last night. It had {p_app} on it and my card in Apple Pay. IMEI is "
            "{imei} if that's any use. I'm worried someone will get into my account, what should I do?",
            "I had a call this morning from a man who said he was {tpm_full} from your fraud department, he knew my "
            "name and my address ({addr}). He talked me into moving {amount_big} to a 'safe account'. Now I think it "
            "was a scam. Please help, I am really upset.",
            "Just checked my statement and there's a payment of {amount} to {merchant} that I don't recognise. Could "
            "it be something my {rel} {tp_first} set up? If not how do I report it as fraud?",
            "I'm on holiday in {country} and my bag was stolen with my {p_card} and my credit card in it. Card number "
            "was {cardfull}. How do I stop them and report it?",
            "Someone has been trying to use my card, I've had two texts asking me to confirm payments to {merchant} "
            "that weren't me. Card ends {card4}. Who do I speak to?",
            "I got an email confirming an order I never placed, paid with my {p_credit}: {url_order} . How do I "
            "report this? I haven't given my card to anyone.",
        ],
        notes=["Cust lost purse at {place}, {p_card} ending {card4} inside. Asked how to report.",
               "Cust reports {amount} payment to {merchant} on {date}, not recognised, card still in possession.",
               "Cust distressed - moved {amount_big} after call from someone calling himself {tpm_full}.",
               "Phone stolen (IMEI {imei}), {p_app} + Apple Pay on it, worried about access."],
        wrongs=["0800 915 4402", "0800 195 4420", "0800 915 4240", "0845 915 4420"],
        misquotes=["I tried ringing {wrong}, which I found online, but it just rang out.",
                   "The number on an old letter says {wrong} but nobody answered.",
                   "I called {wrong} twice this morning and got a recorded message saying it's not in use."],
        corrections=["Just so you know, {wrong} isn't one of our numbers, so please don't use it.",
                     "I'm sorry you had trouble - that number isn't ours.",
                     "The number you tried ({wrong}) isn't the right one, I'm afraid."],
        states=["Please call our Fraud & Security team on {f} straight away. They're open 24/7 and can block the "
                "card, check the payments and start a claim.",
                "The quickest thing is to ring {f}. It's free and open round the clock, and they'll cancel the card "
                "and send a replacement.",
                "For fraud we can't raise a claim over {channel}, I'm afraid; you need to speak to the fraud team "
                "directly on {f}.",
                "I've put a temporary block on the card for you. To report the transactions and get the money looked "
                "at, please phone {f} (free from a UK landline or mobile)."],
        note_states=["Card blocked. Advised to call fraud line {f} to report and raise claim.",
                     "Gave fraud team number {f}, cust calling now. Card stopped."],
        extras=["Please never share your PIN or one-time passcodes with anyone, even if they say they're from "
                "Northmoor Bank.",
                "A new card will be sent out once the old one is cancelled.",
                "We will never ask you to move money to a 'safe account'."],
        nostate=["I'm sorry to hear this. Can you tell me which card is affected and the dates of the payments you "
                 "don't recognise? Please don't send your full card number here.",
                 "Thanks for letting us know. Could you confirm whether the card is still in your possession and when "
                 "you last used it? Then I can point you to the right team."],
    ),
    dict(
        id="online_transfer_daily_limit", weight=66, fact="£15,000",
        forms=["£15,000", "£15k", "GBP 15,000", "15,000 pounds", "fifteen thousand pounds", "£15000"],
        form_weights=[6, 1, 1, 1, 1, 1],
        topic=["Payments - limits", "Online transfer declined", "Payment limit"],
        questions=["What's the maximum I can transfer online in one day?",
                   "Is there a daily limit on payments from the banking app?",
                   "How much money can I send by online banking per day?"],
        subjects=["Transfer limit", "Payment limit?", "how much can I send?", "Payment declined",
                  "Daily limit question", "payment keeps failing", "Large transfer"],
        asks=[
            "We're completing on our house on {date} and I need to send the deposit of {amount_huge} to our "
            "solicitor, {tp_full}. The app won't let me do it in one go. What is the limit?",
            "I'm buying a used car ({plate}) from a private seller tomorrow and need to transfer {amount_big}. Is "
            "there a max I can send from {p_app} in a day?",
            "Trying to move savings over to my {rel}'s account (sort code {tp_sort}, acc {tp_acct}) and it keeps "
            "failing. How much can I send per day online?",
            "Our builder {tpm_full} needs paying {amount_big} by Friday and the payment was declined in {p_online}. "
            "I have the money in my {p_acct}. What's the daily limit?",
            "How much can I transfer in a single day? I want to move money from my {p_acct} (account {acct}) to an "
            "ISA with another bank.",
            "Paying for my daughter's wedding venue, {amount_big}, and the transfer just says 'limit exceeded'. What "
            "is the limit please??",
        ],
        notes=["Cust trying to pay {amount_big} for a car ({plate}), payment declined online. Asked daily limit.",
               "Cust completing house purchase on {date}, deposit {amount_huge} to solicitor {tp_full}, app rejecting.",
               "Caller wants to move {amount_big} to savings elsewhere, asked about limits."],
        wrongs=["£10,000", "£25,000", "£5,000", "£20k", "£50,000"],
        misquotes=["I thought the limit was {wrong}?", "Your website said {wrong} a day when I last looked.",
                   "My friend who banks with you says it's {wrong}."],
        corrections=["The limit isn't {wrong}, I'm afraid.", "Just to clear that up, it's not {wrong}.",
                     "That information is out of date."],
        states=["The daily limit for payments made in {p_app} and {p_online} is {f}, and that's across all payments "
                "on the day.",
                "You can send up to {f} per day online. For anything larger you can make the payment in a branch "
                "with photo ID, or over the phone on " + HELP_LINE + ".",
                "Our online transfer limit is {f} a day, so the easiest option is to split it across two days.",
                "I'm afraid {f} is the maximum for app and online payments in one day; the limit resets at midnight."],
        note_states=["Advised online daily limit {f}; suggested branch for the rest.",
                     "Explained {f} per day cap on app payments. Cust will split payment."],
        extras=["For large payments we may also call you to check it's genuine.",
                "Please double-check the payee details before you send, as we can't always recover money sent to the "
                "wrong account."],
        nostate=["Could you let me know what error message you saw and roughly what time you tried the payment? Then "
                 "I can check whether it was the limit or a security check.",
                 "I can see a declined payment but I'll need a little more information before I can say why. Was it "
                 "to a new payee?"],
    ),
    dict(
        id="overdraft_interest_rate", weight=54, fact="39.9% EAR",
        forms=["39.9% EAR", "39.9%", "39.9 per cent", "39.9 percent", "thirty-nine point nine per cent"],
        form_weights=[4, 3, 1, 1, 1],
        topic=["Overdraft", "Overdraft - interest", "Borrowing"],
        questions=["What interest rate do you charge on an arranged overdraft?",
                   "How much interest will I pay if I go into my overdraft?",
                   "What's the overdraft rate on your current accounts?"],
        subjects=["Overdraft interest", "overdraft rate?", "Overdraft query", "Interest rate question",
                  "Overdraft"],
        asks=[
            "I'm starting uni in September and thinking of applying for an {p_od} on my {p_acct}. What interest would "
            "I pay on it?",
            "I was charged {amount_small} overdraft interest on my statement dated {date} and I'd like to understand "
            "what rate you use to work it out.",
            "I'd like to increase my overdraft from {od_old} to {od_new}, but before I do, what's the interest rate?",
            "Comparing bank accounts with my {rel} {tp_first}. What's the overdraft interest with you?",
            "my account {acct} went overdrawn when my wages were late ({date}). what rate is the overdraft? i "
            "didnt even know i had one",
        ],
        notes=["Cust asking rate on {p_od}, considering applying.",
               "Cust queried {amount_small} overdraft interest on statement, wanted the rate.",
               "Caller wants to raise limit {od_old} -> {od_new}, asked rate first."],
        wrongs=["19.9%", "29.9%", "35%", "49.9%", "21%"],
        misquotes=["My mate said it's {wrong}, which seems a lot.", "I was told {wrong} in branch.",
                   "The leaflet I have says {wrong}."],
        corrections=["That figure of {wrong} isn't correct.", "It's not {wrong}, I'm afraid.",
                     "That leaflet must be an old one."],
        states=["Our {p_od} is charged at {f} (variable), and there are no other fees for using it.",
                "The rate on an arranged overdraft is {f}. Interest is worked out daily on the amount you're "
                "overdrawn and taken monthly.",
                "Every one of our current accounts has the same overdraft rate, {f} variable, whatever the limit.",
                "It's {f} variable. There's a cost calculator on " + WEB + " if you want to see what that means "
                "in pounds."],
        note_states=["Confirmed overdraft rate {f} variable.", "Advised {f}, no monthly fee. Cust happy."],
        extras=["Any change to your limit is subject to a credit check.",
                "You'll get a text before any interest is taken."],
        nostate=["Could you tell me which account this relates to (just the last four digits is fine)? Then I can "
                 "look at the charges on it.",
                 "I'll need to pass this to our lending team to review. They'll be in touch within a few days."],
    ),
    dict(
        id="replacement_card_delivery", weight=44, fact="5 working days",
        forms=["5 working days", "five working days", "5 business days", "five business days"],
        form_weights=[4, 2, 1, 1],
        topic=["Cards - replacement", "Card not received", "Damaged card"],
        questions=["How long will it take for my replacement card to arrive?",
                   "When should I expect a new debit card in the post?"],
        subjects=["New card", "replacement card", "Card query", "card delivery", "Replacement debit card",
                  "new card please"],
        asks=[
            "My {p_card} snapped in half this morning (the one ending {card4}). I've ordered a new one in the app, "
            "how long will it take to arrive?",
            "The chip on my card has stopped working, shops keep declining it. Can I get a replacement and when will "
            "it come?",
            "I've moved to {addr_full} and need a new card sent there. My old one expires at the end of the month. "
            "How long does delivery take?",
            "I ordered a replacement card on {date} and it still hasn't turned up. The tracking link says "
            "dispatched: {url_track} - how long is it supposed to take?",
            "I got married recently and changed my name from {maiden} to {last}. Can you send me a card in my new "
            "name, and how long will it take?",
        ],
        notes=["Card ending {card4} damaged, replacement ordered.", "Cust moved, new address {addr_full}, "
               "card reissued.", "Chip faulty, new card requested."],
        wrongs=["3 working days", "48 hours", "10 working days", "2 days"],
        misquotes=["The app said {wrong}.", "I thought it would be {wrong}?", "Last time it only took {wrong}."],
        corrections=["It can take a little longer than {wrong}.", "Sorry for any confusion there.",
                     "It isn't {wrong}, I'm afraid."],
        states=["Your new card is on its way and should arrive within {f}. Your PIN will stay the same.",
                "Replacement cards take up to {f} to reach you by post.",
                "Please allow {f} for the card to arrive; if it hasn't come by then, get back to us and we'll cancel "
                "it and send another.",
                "I've ordered it for you now. It normally takes {f}, and you can use Apple Pay or Google Pay straight "
                "away in the meantime."],
        note_states=["New card ordered, advised {f} delivery.", "Reissued card, told cust {f}."],
        extras=["Your card details will be shown in the app as soon as the new card is issued.",
                "You can follow the delivery here: {url_track}",
                "Cards are sent in a plain white envelope."],
        nostate=["Can you confirm the address you'd like it sent to? For security I can't update it over this "
                 "channel, so you may need to call us on " + HELP_LINE + ".",
                 "I'm checking with our card team whether the card was returned to us. I'll update you shortly."],
    ),
    dict(
        id="app_lockout_duration", weight=36, fact="24 hours",
        forms=["24 hours", "twenty-four hours", "24hrs", "24 hrs"],
        form_weights=[5, 2, 1, 1],
        topic=["App / online banking access", "Login problems", "Locked out"],
        questions=["I've been locked out of the banking app, how long before I can try again?",
                   "How long does the app lock last after too many wrong passcodes?"],
        subjects=["Locked out of app", "can't log in!!", "App locked", "App says account locked",
                  "Login problem"],
        asks=[
            "I put my passcode in wrong too many times and now {p_app} says I'm locked out. How long until I can get "
            "back in? I need to pay my rent to {tp_full} today.",
            "Got a new phone and tried to set up the app, now it says it's locked. Old phone IMEI {imei} if you need "
            "it to remove it. When can I log in?",
            "I'm abroad in {country} and the {p_secure} codes aren't coming through, I tried a few times and now I'm "
            "locked. My mobile is {phone}.",
            "App locked me out after I forgot my passcode. Username is {username}. How long do I have to wait?",
            "My elderly mum {tpf_full} is locked out of her app, she's sat next to me. How long does the lock last?",
        ],
        notes=["Cust locked out of {p_app} after wrong passcodes.", "New device setup failed, app locked. "
               "Old IMEI {imei}.", "{p_secure} codes not arriving abroad ({country}), account locked."],
        wrongs=["1 hour", "30 minutes", "12 hours", "48 hours"],
        misquotes=["The screen said to wait {wrong}.", "I thought it was only {wrong}.",
                   "I've waited {wrong} already and it's still locked."],
        corrections=["It's longer than {wrong}, I'm afraid.", "I know it's frustrating.",
                     "Unfortunately it isn't {wrong}."],
        states=["After five wrong attempts the app locks for {f} for your security. After that you can reset your "
                "passcode using your card and a {p_secure} code.",
                "The lock lifts automatically after {f}; unfortunately we can't remove it any sooner.",
                "You'll be able to try again in {f}. It's a security block, there's nothing wrong with your account."],
        note_states=["Explained app lock lasts {f}, then reset via card + {p_secure}.",
                     "Lock in place, advised wait {f}."],
        extras=["In the meantime you can still use your card as normal.",
                "If you need to make a payment urgently, our branches can help."],
        nostate=["Could you tell me the exact message the app is showing? There are a few different locks and I "
                 "want to make sure I give you the right advice.",
                 "I can't see a lock on your profile at the moment. Could you try reinstalling the app and let me know "
                 "what happens?"],
    ),
    dict(
        id="international_payment_fee", weight=30, fact="£9.50",
        forms=["£9.50", "GBP 9.50", "9.50 pounds", "nine pounds fifty", "9 pounds 50"],
        form_weights=[5, 1, 1, 1, 1],
        topic=["International payments", "Fees and charges", "Payments abroad"],
        questions=["How much does it cost to send money abroad from my account?",
                   "What's the fee for making an international transfer?"],
        subjects=["Sending money abroad", "International payment fee", "Overseas transfer",
                  "fees to send money?"],
        asks=[
            "I send money to my parents in {country} every month, around {amount}. What do you charge per payment?",
            "We've booked a villa and need to pay the deposit to the owner, {tp_full}, IBAN {tp_iban}. What's the "
            "fee for sending it?",
            "My {rel} is studying in {country} and I need to pay the rent over there. How much is an international "
            "transfer?",
            "I was charged a fee when I sent {amount} to {country} on {date}. How much is it normally?",
        ],
        notes=["Cust sends money to family in {country} monthly, asked fee.", "Cust paying deposit abroad to "
               "{tp_full}, asked cost."],
        wrongs=["£5", "£25", "£4.50", "£12", "£20"],
        misquotes=["I thought it was {wrong}.", "My last bank charged {wrong} and someone told me you're the same.",
                   "The app showed {wrong} I think."],
        corrections=["It's not {wrong}.", "That was our old charge.", "I'm afraid it isn't {wrong}."],
        states=["An international (SWIFT) payment costs {f} per payment, whatever the amount; the receiving bank "
                "might take its own charge.",
                "We charge a flat {f} for each payment sent abroad, and you'll see the exchange rate before you "
                "confirm.",
                "There's a fee of {f} per international transfer. You can make it in {p_app} under {p_intl}."],
        note_states=["Advised SWIFT fee {f} per payment.", "Told cust {f} flat fee, plus possible receiving "
                     "bank charge."],
        extras=["Payments in euros to most of Europe usually arrive in 1-2 days.",
                "Please check the IBAN carefully, as returned payments can take a while."],
        nostate=["Which currency will you be sending, and is the account in the recipient's name? I'll check the "
                 "options for you.",
                 "I'll need to check this with our international payments team and come back to you."],
    ),
    dict(
        id="statement_history_period", weight=24, fact="7 years",
        forms=["7 years", "seven years", "84 months"],
        form_weights=[4, 2, 1],
        topic=["Statements", "Statement copies"],
        questions=["How far back can I download my bank statements?",
                   "How many years of old statements do you keep?"],
        subjects=["Old statements", "Statement request", "Statements", "Copy statements request",
                  "How far back?"],
        asks=[
            "I need statements for my mortgage application going back a while. How far back can I get them in "
            "{p_online}?",
            "My solicitor, {tp_full}, needs my statements for my divorce settlement. How far back can I get them?",
            "My father {tpm_full} passed away in {month} and I'm the executor. I need his old statements for "
            "probate, his account number was {tp_acct}. How many years can you provide?",
            "HMRC have asked about my income in the {year} tax year. Can I still get statements from then? "
            "Acc {acct}.",
        ],
        notes=["Cust needs statements for probate (late father {tpm_full}).", "Cust asked how far back statements "
               "available for mortgage application."],
        wrongs=["6 years", "12 months", "2 years", "10 years"],
        misquotes=["Someone told me you only keep {wrong}.", "I read online it's only {wrong}."],
        corrections=["It's actually longer than {wrong}.", "That's not quite right."],
        states=["You can download statements going back {f} from {p_online} under Accounts > Statements.",
                "We hold statements for {f}, and any within that period can be reprinted free of charge.",
                "Statements for the last {f} are available as PDFs in the app; older ones aren't kept."],
        note_states=["Advised statements available for {f}, ordered copies.", "Told cust {f} of statements online."],
        extras=["Printed copies are sent to the address we have on file.",
                "Each statement can be saved or printed as a PDF."],
        nostate=["Which account and which dates do you need? I'll check what we can send.",
                 "I've passed this to our statements team; they'll contact you within 5 days to confirm."],
    ),
    dict(
        id="mortgage_aip_validity", weight=20, fact="90 days",
        forms=["90 days", "ninety days", "3 months", "three months"],
        form_weights=[4, 1, 2, 1],
        topic=["Mortgages - agreement in principle", "Mortgage enquiry"],
        questions=["How long does a mortgage agreement in principle last?",
                   "When does my mortgage AIP expire after it's issued?"],
        subjects=["AIP question", "Agreement in principle", "Mortgage query", "Mortgage - how long is AIP valid"],
        asks=[
            "We got an Agreement in Principle for a {p_mort} last month (reference {aip_ref}). We're still house "
            "hunting, how long is it valid?",
            "Our offer on {prop_addr} has just been accepted! The estate agent, {tp_full}, wants to know when our AIP "
            "expires.",
            "I'm applying for a {p_mort} with my partner {tp_full}. My NI number is {ni}. How long will the agreement "
            "in principle last once we get it?",
            "Uploaded my payslips here {url_upload} - how long do we have before the AIP runs out?",
        ],
        notes=["Cust has AIP {aip_ref}, still house hunting, asked validity.",
               "Offer accepted on {prop_addr}, cust asked AIP expiry."],
        wrongs=["60 days", "6 months", "30 days", "12 months"],
        misquotes=["The broker said {wrong}.", "I assumed it was {wrong} like my last bank."],
        corrections=["It's not {wrong} with us.", "That may be true elsewhere."],
        states=["An Agreement in Principle from us is valid for {f} from the date it's issued.",
                "Your AIP lasts {f}; if you haven't found somewhere by then, we can simply run it again.",
                "It stays valid for {f}, after which we'd need to do a fresh soft credit search."],
        note_states=["Advised AIP valid {f}.", "Confirmed AIP expiry {f} from issue."],
        extras=["You can reach our mortgage team directly at " + MORT_EMAIL + ".",
                "Our mortgage advisers can be contacted at " + MORT_EMAIL + " or in any branch."],
        nostate=["I'll pass this to our mortgage team at " + MORT_EMAIL + ", who can look at your application.",
                 "Could you send the AIP reference so I can check the details?"],
    ),
    dict(
        id="atm_daily_cash_limit", weight=16, fact="£500",
        forms=["£500", "500 pounds", "five hundred pounds", "GBP 500"],
        form_weights=[5, 1, 1, 1],
        topic=["Cash withdrawals", "Cards - limits"],
        questions=["How much cash can I take out of a cash machine in one day?",
                   "What's the daily ATM withdrawal limit on my debit card?"],
        subjects=["Cash limit", "ATM refused", "withdrawal limit?"],
        asks=[
            "I'm buying a second-hand car from a guy who only wants cash, reg {plate}. How much can I take out at a "
            "cash machine per day?",
            "Tried to take out {amount_cash} at the ATM at {place} and it was refused. What's my limit?",
            "Going to a wedding abroad and need cash for gifts. What's the most I can withdraw in a day with my "
            "{p_card}?",
        ],
        notes=["Cust refused at ATM trying {amount_cash}. Asked limit.", "Cust buying car ({plate}) for cash."],
        wrongs=["£300", "£250", "£1,000", "£750"],
        misquotes=["I thought it was {wrong}.", "The cashpoint let me take {wrong} last year."],
        corrections=["It isn't {wrong}.", "The limit changed a while ago."],
        states=["The daily cash withdrawal limit on a {p_card} is {f}.",
                "You can take out up to {f} a day from cash machines; for more, withdraw over the counter in a branch "
                "with photo ID.",
                "ATM withdrawals are limited to {f} per day for security reasons."],
        note_states=["Advised ATM limit {f}/day.", "Told cust {f} daily cash limit, branch for more."],
        extras=["The limit resets at midnight.", "Cash machine operators may set lower limits of their own."],
        nostate=["I'll need to check the limit set on your particular card. Could you confirm the last four digits?",
                 "Can you tell me which cash machine you used and at what time?"],
    ),
    dict(
        id="foreign_card_transaction_fee", weight=12, fact="2.99%",
        forms=["2.99%", "2.99 per cent", "2.99 percent", "two point nine nine per cent"],
        form_weights=[5, 1, 1, 1],
        topic=["Card use abroad", "Fees and charges"],
        questions=["Do you charge a fee when I use my debit card abroad?",
                   "What's the foreign transaction fee on card purchases in another currency?"],
        subjects=["Card charges abroad", "foreign fee", "Using card abroad"],
        asks=[
            "Just back from {country} and I see extra charges on my statement next to each card payment. What is "
            "the fee for using my card abroad?",
            "I bought something online priced in dollars for {amount} and was charged more than I expected. Is "
            "there a fee?",
            "Going to {country} next month, will I be charged for using my {p_card} out there?",
        ],
        notes=["Cust back from {country}, queried non-sterling fees.", "Cust asking card fees before trip."],
        wrongs=["1.5%", "3%", "2.75%", "1%"],
        misquotes=["I thought it was {wrong}.", "The website said {wrong}."],
        corrections=["It's not {wrong}.", "That's not the current fee."],
        states=["Card payments and withdrawals in a foreign currency have a non-sterling transaction fee of {f}.",
                "We add {f} to each purchase made in another currency, which is what you're seeing.",
                "The fee is {f} of each transaction and shows as a separate line on your statement."],
        note_states=["Explained {f} non-sterling fee.", "Advised {f} foreign transaction fee."],
        extras=["The {p_acct} doesn't charge this fee, if you'd like to look at switching.",
                "Always choose to pay in the local currency when the card machine asks."],
        nostate=["Could you send me the dates and amounts of the charges? I'll look into each one.",
                 "I'll check with our cards team and get back to you."],
    ),
    dict(
        id="account_switch_duration", weight=9, fact="7 working days",
        forms=["7 working days", "seven working days", "7 business days", "seven business days"],
        form_weights=[4, 2, 1, 1],
        topic=["Switching", "Opening an account"],
        questions=["How long does it take to switch my current account over to you?",
                   "If I move my account with the switching service, how many days does it take?"],
        subjects=["Switching to Northmoor", "switch date", "Account switch"],
        asks=[
            "I want to move my salary and direct debits from my old bank to a {p_acct}. How long will the switch "
            "take?",
            "I've applied to switch using the {p_switch}, reference {switch_ref}. When will it be done? My rent goes "
            "out on the {day_ord}.",
            "Thinking of switching to you from my joint account with {tp_full}. How long does it take?",
        ],
        notes=["Cust asked switch timescale, ref {switch_ref}.", "Cust considering switching salary account."],
        wrongs=["10 working days", "14 days", "3 weeks"],
        misquotes=["My friend said {wrong}.", "I read it takes {wrong}."],
        corrections=["It's quicker than {wrong}.", "That's not quite right."],
        states=["A full switch through the {p_switch} takes {f}, and all your payments are moved over for you.",
                "The switch completes in {f} from the date you choose.",
                "It takes {f}; your old account closes on the switch date and anything paid into it is redirected."],
        note_states=["Advised switch takes {f}.", "Explained {p_switch}, {f}."],
        extras=["You can pick your switch date when you apply.", "Your new card will arrive before the switch date."],
        nostate=["Could you confirm the reference so I can look up your switch?",
                 "I'll check the status of your switch and come back to you."],
    ),
    dict(
        id="complaint_final_response_time", weight=5, fact="8 weeks",
        forms=["8 weeks", "eight weeks", "56 days"],
        form_weights=[4, 2, 1],
        topic=["Complaint", "Complaints"],
        questions=["How long does the bank have to respond to my complaint?",
                   "When will I get a final answer to a complaint I've made?"],
        subjects=["Formal complaint", "COMPLAINT", "Complaint"],
        asks=[
            "I want to make a formal complaint about how my fraud claim was handled (case {case}). How long do you "
            "have to reply?",
            "I was spoken to very rudely by a member of staff called {tp_first} at your {branch} branch on {date}. I "
            "want to complain. How long will this take?",
            "I've been waiting weeks about my complaint. What's the deadline for your response?",
        ],
        notes=["Cust making formal complaint re fraud claim {case}.", "Complaint about branch staff at {branch}."],
        wrongs=["28 days", "4 weeks", "14 days", "12 weeks"],
        misquotes=["I was told {wrong}.", "I thought you had to reply within {wrong}."],
        corrections=["It's not {wrong}.", "That isn't quite right."],
        states=["We aim to resolve complaints as soon as we can, but we'll send you a final response within {f} at "
                "the latest.",
                "We have up to {f} to give you our final response; if you're unhappy with it, you can then go to the "
                "Financial Ombudsman Service.",
                "You'll receive our final response within {f} of the complaint being raised."],
        note_states=["Complaint logged, advised final response within {f}.", "Explained {f} timescale + FOS."],
        extras=["I've logged your complaint under reference {case}.",
                "A complaint handler will contact you to talk it through."],
        nostate=["I'm sorry you've had this experience. I've logged your complaint and a handler will be in touch.",
                 "Could you give me a bit more detail about what happened so I can log this properly?"],
    ),
]

TYPO_MAP = {"definitely": "definately", "received": "recieved", "separate": "seperate", "account": "acount",
            "because": "becuase", "tomorrow": "tomorow", "really": "realy", "payment": "paymnet",
            "please": "pls", "thanks": "thx", "which": "wich", "their": "thier", "again": "agian",
            "statement": "statment", "transfer": "tranfer", "wondering": "wondring",
            "mortgage": "morgage", "immediately": "immediatly", "cancel": "cancell", "limit": "limt"}


# --------------------------------------------------------------------------------------------------------
# helpers


def _luhn_digit(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def _iban(sort_code: str, account: str) -> str:
    bban = "NMOR" + sort_code.replace("-", "") + account
    rearranged = bban + "GB00"
    num = "".join(str(int(ch, 36)) for ch in rearranged)
    check = 98 - int(num) % 97
    return f"GB{check:02d}{bban}"


def _iban_groups(s: str) -> str:
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


def _ordinal(d: int) -> str:
    suf = "th" if 11 <= d % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    return f"{d}{suf}"


def _digits(rng: random.Random, k: int) -> str:
    return str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(k - 1))


class Person:
    def __init__(self, rng: random.Random, pid: str, used_phones: set):
        self.pid = pid
        g = rng.random()
        if g < 0.47:
            self.gender, self.first = "m", rng.choice(MALE)
        elif g < 0.94:
            self.gender, self.first = "f", rng.choice(FEMALE)
        else:
            self.gender, self.first = "x", rng.choice(NEUTRAL)
        self.last = rng.choice(SURNAMES)
        self.title = {"m": rng.choice(["Mr", "Mr", "Mr", "Dr"]),
                      "f": rng.choice(["Mrs", "Ms", "Miss", "Ms", "Dr"]),
                      "x": rng.choice(["Mx", "Mx", "Dr"])}[self.gender]
        self.dob = (rng.randint(1942, 2005), rng.randint(1, 12), rng.randint(1, 28))
        for _ in range(50):  # only 1,000 reserved numbers: repeats are allowed once they run short
            ph = f"07700 900{rng.randint(0, 999):03d}"
            if ph not in used_phones:
                break
        used_phones.add(ph)
        self.phone = ph
        self.landline = f"020 7946 0{rng.randint(0, 999):03d}" if rng.random() < 0.3 else None
        fl, ll = self._ascii(self.first).lower(), self._ascii(self.last).lower().replace(" ", "").replace("'", "")
        yy = str(self.dob[0])[2:]
        dom = rng.choice(["example.com", "example.com", "example.org", "example.net"])
        self.email = rng.choice([f"{fl}.{ll}@{dom}", f"{fl}{ll}{yy}@{dom}", f"{fl[0]}{ll}@{dom}",
                                 f"{fl}_{ll}{rng.randint(1, 99)}@{dom}", f"{ll}.{fl}@{dom}",
                                 f"{fl}{self.dob[0]}@{dom}", f"the{ll}s@{dom}"])
        self.username = rng.choice([f"{fl[0]}{ll}{yy}", f"{fl}_{ll[:1]}{self.dob[0]}", f"{ll}{fl[:3]}{rng.randint(1, 999)}"])
        self.account = _digits(rng, 8)
        self.sort = rng.choice(SORT_CODES)
        self.iban = _iban(self.sort, self.account)
        self.custid = _digits(rng, 10)
        body = "4" + "".join(str(rng.randint(0, 9)) for _ in range(14))
        self.card = body + _luhn_digit(body)
        self.credit = None
        num = rng.randint(1, 180)
        street, kind = rng.choice(STREETS)
        self.street_name, self.street_kind = street, kind
        self.house = str(num)
        self.flat = str(rng.randint(1, 24)) if rng.random() < 0.25 else None
        self.building = rng.choice(BUILDINGS) if self.flat and rng.random() < 0.4 else None
        self.town, area = rng.choice(TOWNS)
        self.postcode = (f"{area}{rng.randint(1, 28)} {rng.randint(1, 9)}"
                         f"{rng.choice(POST_LETTERS)}{rng.choice(POST_LETTERS)}")
        self.ni = (rng.choice(["JT", "AB", "PX", "KL", "NR", "SH", "WM", "CE", "HP", "RT"])
                   + "".join(str(rng.randint(0, 9)) for _ in range(6)) + rng.choice("ABCD"))
        self.passport = _digits(rng, 9)
        body = "35" + "".join(str(rng.randint(0, 9)) for _ in range(12))
        self.imei = body + _luhn_digit(body)
        L = "ABCDEFGHJKLMNOPRSTUVWXY"
        self.plate = (rng.choice(L) + rng.choice(L) + f"{rng.choice([15, 16, 17, 18, 19, 20, 21, 22, 23, 65, 66, 67, 68, 69, 70, 71, 72, 73]):02d}"
                      + " " + "".join(rng.choice(L) for _ in range(3)))

    @staticmethod
    def _ascii(s: str) -> str:
        table = str.maketrans("áéíóúñüöçıśłÓ", "aeiounuocisl" + "O")
        return s.translate(table)

    def full(self) -> str:
        return f"{self.first} {self.last}"

    def fields(self) -> dict:
        y, m, d = self.dob
        return {"customer_name": self.full(), "email": self.email, "phone": self.phone,
                "account_number": self.account, "customer_id": self.custid,
                "date_of_birth": f"{y:04d}-{m:02d}-{d:02d}"}


class Ctx:
    """One record under construction: fills placeholders and remembers every personal string it writes."""

    def __init__(self, rng: random.Random, person: Person, agent: tuple, t: dict, fmt: str, wrong: str | None):
        self.rng, self.p, self.agent, self.t, self.fmt, self.wrong = rng, person, agent, t, fmt, wrong
        self.pii: list[tuple[str, str]] = []
        self.cache: dict[str, str] = {}
        self.tps: dict[str, tuple] = {}
        self.f = None

    def add(self, kind: str, s: str) -> str:
        if (kind, s) not in self.pii:
            self.pii.append((kind, s))
        return s

    # --- the customer's own identifiers, written in several ways
    def name_first(self, lower=False):
        return self.add("person_name", self.p.first.lower() if lower else self.p.first)

    def name_full(self):
        return self.add("person_name", self.p.full())

    def name_title(self):
        return self.add("person_name", f"{self.p.title} {self.p.last}")

    def name_sign(self):
        r = self.rng.random()
        if r < 0.35:
            return self.name_first()
        if r < 0.75:
            return self.name_full()
        if r < 0.85:
            return self.add("person_name", f"{self.p.first[0]}. {self.p.last}")
        if r < 0.93:
            return self.name_first(lower=True)
        return self.add("person_name", f"{self.p.title} {self.p.full()}")

    def phone(self, landline_ok=True):
        num = self.p.landline if (landline_ok and self.p.landline and self.rng.random() < 0.3) else self.p.phone
        digits = num.replace(" ", "")
        r = self.rng.random()
        if num.startswith("020"):
            s = self.rng.choice([num, digits, f"({num[:3]}) {num[4:]}", "+44 20 " + num[4:]])
        elif r < 0.35:
            s = num
        elif r < 0.55:
            s = digits
        elif r < 0.7:
            s = "+44 " + digits[1:5] + " " + digits[5:]
        elif r < 0.8:
            s = "+44" + digits[1:]
        elif r < 0.9:
            s = f"{digits[:5]}-{digits[5:8]}-{digits[8:]}"
        else:
            s = f"{digits[:4]} {digits[4:7]} {digits[7:]}"
        return self.add("phone", s)

    def email(self):
        e = self.p.email
        if self.rng.random() < 0.1:
            e = e.upper() if self.rng.random() < 0.3 else e.capitalize()
        return self.add("email", e)

    def dob(self):
        y, m, d = self.p.dob
        r = self.rng.random()
        if r < 0.3:
            s = f"{d:02d}/{m:02d}/{y}"
        elif r < 0.45:
            s = f"{d:02d}.{m:02d}.{str(y)[2:]}"
        elif r < 0.6:
            s = f"{_ordinal(d)} {MONTHS[m - 1]} {y}"
        elif r < 0.7:
            s = f"{d} {MONTHS[m - 1][:3]} {y}"
        elif r < 0.8:
            s = f"{y}-{m:02d}-{d:02d}"
        elif r < 0.9:
            s = f"{d}/{m}/{str(y)[2:]}"
        else:
            s = f"{MONTHS[m - 1]} {d}, {y}"
        return self.add("date_of_birth", s)

    def acct(self):
        a = self.p.account
        s = self.rng.choice([a, a, a, f"{a[:4]} {a[4:]}"])
        return self.add("account_number", s)

    def sort(self):
        s = self.p.sort
        s = self.rng.choice([s, s, s.replace("-", ""), s.replace("-", " ")])
        return self.add("iban", s)

    def sortacct(self):
        r = self.rng.random()
        if r < 0.5:
            return f"sort code {self.sort()} account {self.add('iban', self.p.account)}"
        if r < 0.8:
            return self.add("iban", f"{self.p.sort} {self.p.account}")
        return "IBAN " + self.add("iban", self.rng.choice([self.p.iban, _iban_groups(self.p.iban)]))

    def custno(self):
        c = self.p.custid
        return self.add("account_number", self.rng.choice([c, c, f"{c[:4]} {c[4:7]} {c[7:]}"]))

    def card4(self):
        return self.add("card_number", self.p.card[-4:])

    def cardfull(self):
        c = self.p.card
        s = self.rng.choice([" ".join(c[i:i + 4] for i in range(0, 16, 4)), c, "-".join(c[i:i + 4] for i in range(0, 16, 4))])
        return self.add("card_number", s)

    def addr(self):
        p = self.p
        kind = p.street_kind
        if kind and self.rng.random() < 0.3:
            kind = ABBR.get(kind, kind)
        street = f"{p.street_name} {kind}".strip()
        line = f"{p.house} {street}"
        if p.flat:
            line = (f"Flat {p.flat}, {p.building}" if p.building else f"Flat {p.flat}, {line}")
        if self.rng.random() < 0.15:
            line = line.lower()
        return self.add("address", line)

    def postcode(self):
        pc = self.p.postcode
        pc = self.rng.choice([pc, pc, pc, pc.lower(), pc.replace(" ", "")])
        return self.add("postcode", pc)

    def addr_full(self):
        a = self.addr()
        sep = self.rng.choice([", ", ", ", " "])
        return f"{a}, {self.p.town}{sep}{self.postcode()}"

    def ni(self):
        n = self.p.ni
        s = self.rng.choice([n, f"{n[:2]} {n[2:4]} {n[4:6]} {n[6:8]} {n[8]}", n.lower()])
        return self.add("national_id", s)

    def imei(self):
        i = self.p.imei
        s = self.rng.choice([i, f"{i[:2]} {i[2:8]} {i[8:14]} {i[14]}", f"{i[:2]}-{i[2:8]}-{i[8:14]}-{i[14]}"])
        return self.add("imei", s)

    def plate(self):
        pl = self.p.plate
        s = self.rng.choice([pl, pl, pl.replace(" ", ""), pl.lower()])
        return self.add("licence_plate", s)

    def passport(self):
        return self.add("other_id", self.p.passport)

    def licence(self):
        if "licence" in self.cache:
            return self.cache["licence"]
        p = self.p
        r = random.Random(p.pid)
        sur = (Person._ascii(p.last).upper().replace(" ", "").replace("'", "") + "99999")[:5]
        y, m, d = p.dob
        mm = m + 50 if p.gender == "f" else m
        code = f"{sur}{str(y)[2]}{mm:02d}{d:02d}{str(y)[3]}{p.first[0].upper()}9{r.choice('ABCDEFGHJKLMN')}{r.randint(10, 99)}"
        self.cache["licence"] = code
        return self.add("other_id", code)

    def username(self):
        return self.add("other_id", self.p.username)

    # --- third parties
    def tp(self, which: str):
        if which not in self.tps:
            g = {"tpm": "m", "tpf": "f"}.get(which) or self.rng.choice("mf")
            first = self.rng.choice(MALE if g == "m" else FEMALE)
            last = self.rng.choice(SURNAMES)
            while last == self.p.last:
                last = self.rng.choice(SURNAMES)
            title = "Mr" if g == "m" else self.rng.choice(["Mrs", "Ms"])
            self.tps[which] = (g, first, last, title)
        return self.tps[which]

    # --- placeholder filling
    def val(self, key: str) -> str:
        rng = self.rng
        if key == "f":
            return self.f
        if key == "wrong":
            return self.wrong
        if key in PRODUCTS:
            if key not in self.cache:
                self.cache[key] = rng.choice(PRODUCTS[key])
            return self.cache[key]
        m = re.fullmatch(r"(tp|tpm|tpf)_(full|first|title)", key)
        if m:
            g, first, last, title = self.tp(m.group(1))
            s = {"full": f"{first} {last}", "first": first, "title": f"{title} {last}"}[m.group(2)]
            return self.add("third_party_name", s)
        simple = {"first": self.name_first, "full": self.name_full, "card4": self.card4, "cardfull": self.cardfull,
                  "acct": self.acct, "sort": self.sort, "sortacct": self.sortacct, "custno": self.custno,
                  "phone": self.phone, "email": self.email, "dob": self.dob, "addr": self.addr,
                  "addr_full": self.addr_full, "postcode": self.postcode, "ni": self.ni, "imei": self.imei,
                  "plate": self.plate, "passport": self.passport, "licence": self.licence,
                  "username": self.username}
        if key in simple:
            return simple[key]()
        if key == "last":
            return self.add("person_name", self.p.last)
        if key in self.cache:
            return self.cache[key]
        if key == "rel":
            v = rng.choice(REL[self.tp("tp")[0]])
        elif key == "maiden":
            v = rng.choice([s for s in SURNAMES if s != self.p.last])
            self.add("person_name", v)
        elif key == "amount":
            v = f"£{rng.randint(4, 480)}.{rng.choice(['00', '99', '50', str(rng.randint(10, 89))])}"
            if rng.random() < 0.3:
                v = v.split(".")[0]
        elif key == "amount_small":
            v = f"£{rng.randint(2, 48)}.{rng.randint(10, 99)}"
        elif key == "amount_big":
            v = f"£{rng.randint(62, 118) * 250:,}"
        elif key == "amount_huge":
            v = f"£{rng.randint(64, 190) * 500:,}"
        elif key == "amount_cash":
            v = rng.choice(["£600", "£800", "£1,200", "£700", "£650"])
        elif key in ("od_old", "od_new"):
            a, b = rng.choice([("£400", "£900"), ("£1,100", "£1,600"), ("£200", "£600"), ("£1,250", "£2,000")])
            self.cache["od_old"], self.cache["od_new"] = a, b
            v = self.cache[key]
        elif key == "merchant":
            v = rng.choice(MERCHANTS)
        elif key == "place":
            v = rng.choice(PLACES)
        elif key == "country":
            v = rng.choice(COUNTRIES)
        elif key == "date":
            d, mo = rng.randint(1, 28), rng.randint(0, 11)
            v = rng.choice([f"{_ordinal(d)} {MONTHS[mo]}", f"{d}/{mo + 1}", f"{d} {MONTHS[mo][:3]}",
                            rng.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"])])
        elif key == "month":
            v = rng.choice(MONTHS)
        elif key == "year":
            y = rng.randint(2017, 2022)
            v = f"{y}/{str(y + 1)[2:]}"
        elif key == "day_ord":
            v = _ordinal(rng.randint(1, 28))
        elif key == "branch":
            v = rng.choice(BRANCHES)
        elif key == "channel":
            v = {"chat": "chat", "email": "email", "form": "email", "secure": "secure message"}.get(self.fmt, "here")
        elif key == "tp_sort":
            v = self.add("iban", rng.choice(["20-45-", "30-91-", "60-83-", "09-01-"]) + f"{rng.randint(10, 99)}")
        elif key == "tp_acct":
            v = self.add("iban", _digits(rng, 8))
        elif key == "tp_iban":
            cc = rng.choice(["ES", "PT", "IT", "GR", "FR"])
            body = "".join(str(rng.randint(0, 9)) for _ in range(20))
            v = self.add("iban", f"{cc}{rng.randint(10, 99)} " + " ".join(body[i:i + 4] for i in range(0, 20, 4)))
        elif key == "url_track":
            v = self.add("url_with_id", f"https://track.northmoor.example.com/card/NC{_digits(rng, 8)}")
        elif key == "url_order":
            v = self.add("url_with_id", f"https://www.shop.example.net/orders/{_digits(rng, 4)}-{_digits(rng, 4)}-{rng.randint(10, 99)}")
        elif key == "url_upload":
            v = self.add("url_with_id", f"https://secure.northmoor.example.com/upload?ref=UP{_digits(rng, 8)}")
        elif key == "aip_ref":
            v = self.add("account_number", f"AIP-{_digits(rng, 6)}")
        elif key == "switch_ref":
            v = self.add("account_number", f"SW{_digits(rng, 8)}")
        elif key == "case":
            v = self.add("account_number", f"NMB-{_digits(rng, 7)}")
        elif key == "prop_addr":
            street, kind = rng.choice(STREETS)
            v = self.add("address", f"{rng.randint(1, 140)} {street} {kind}".strip())
        else:
            raise KeyError(key)
        self.cache[key] = v
        return v

    def fill(self, template: str, noisy: float = 0.0, lower: bool = False) -> str:
        parts = re.split(r"\{(\w+)\}", template)
        out = []
        for i, part in enumerate(parts):
            if i % 2:
                out.append(self.val(part))
            else:
                if lower:
                    part = part.lower().replace("i'm", "im").replace("don't", "dont").replace("can't", "cant")
                if noisy:
                    part = self._typos(part, noisy)
                out.append(part)
        return "".join(out)

    def _typos(self, text: str, rate: float) -> str:
        def sub(m):
            w = m.group(0)
            if self.rng.random() >= rate:
                return w
            if w in TYPO_MAP and self.rng.random() < 0.6:
                return TYPO_MAP[w]
            i = self.rng.randrange(1, len(w) - 2)
            op = self.rng.random()
            if op < 0.45:
                return w[:i] + w[i + 1] + w[i] + w[i + 2:]
            if op < 0.75:
                return w[:i] + w[i + 1:]
            return w[:i] + w[i] + w[i:]
        return re.sub(r"(?<![\w'])[a-z]{5,}(?![\w'])", sub, text)


# --------------------------------------------------------------------------------------------------------
# record assembly

CUST_GREET = ["Hi,", "Hello,", "Hi there,", "Good morning,", "Dear Sir/Madam,", "To whom it may concern,", "Hiya",
              "Hello Northmoor Bank,", "", "", "Afternoon,"]
DETAIL_LINES = [
    "My account number is {acct}, sort code {sort}.",
    "You can call me on {phone}.",
    "Best number to reach me is {phone} or email {email}.",
    "DOB {dob} if you need to check it's me.",
    "Address is {addr_full}.",
    "Customer number {custno}.",
    "My details: {sortacct}.",
    "I'm on {phone} after 5pm.",
    "my date of birth is {dob} and postcode {postcode}",
    "I can send ID if needed, passport no. {passport}.",
    "Driving licence number {licence} if that helps with ID.",
    "NI number is {ni} in case you need it.",
]
AGENT_CLOSE = ["Is there anything else I can help with?",
               "If you need anything else, call us on " + HELP_LINE + " or visit " + WEB + ".",
               "Thanks for banking with " + COMPANY + ".",
               "You can also find help at " + WEB + ".",
               "Take care.", ""]
EMPATHY = ["Thanks for getting in touch.", "Thanks for your message.", "Thanks for your patience.",
           "Thank you for contacting " + COMPANY + ".", "Good question.", "Happy to help with this.", ""]
NOTE_MISQ = ["Cust had been told {wrong}; corrected.", "Cust quoted {wrong} - corrected.",
             "Caller thought {wrong}, put right."]
NOTE_NOSTATE = ["Cust didn't have the details to hand, asked to call back.",
                "Transferred to specialist team, no answer given on call.",
                "Call dropped before advice given. Callback requested."]
OUTCOMES = ["Resolved first contact.", "Resolved.", "Cust satisfied.", "Follow-up SMS sent.",
            "No further action.", "Callback booked on {phone}."]


def _form(rng: random.Random, t: dict) -> str:
    return rng.choices(t["forms"], weights=t["form_weights"])[0]


def _time(rng: random.Random) -> tuple[int, int]:
    return rng.randint(7, 21), rng.randint(0, 59)


def _cdate(rng: random.Random) -> tuple[int, int, int]:
    return rng.choice([2023, 2024]), rng.randint(1, 12), rng.randint(1, 28)


def _agent_names(rng: random.Random, k: int = 28) -> list[tuple[str, str]]:
    out, seen = [], set()
    while len(out) < k:
        first = rng.choice(MALE + FEMALE + NEUTRAL)
        last = rng.choice(SURNAMES)
        if first not in seen:
            seen.add(first)
            out.append((first, last))
    return out


def _build(rng: random.Random, person: Person, agent: tuple, t: dict, fmt: str, misq: bool, stated: bool,
           repeat: bool) -> tuple[str, list]:
    wrong = rng.choice(t["wrongs"]) if misq else None
    c = Ctx(rng, person, agent, t, fmt, wrong)
    c.f = _form(rng, t)
    chatty = fmt == "chat" and rng.random() < 0.45
    noisy = rng.choice([0.0, 0.0, 0.04, 0.08]) if fmt != "call" else 0.0

    if fmt == "call":
        return _call(rng, c, misq, stated, agent[0], agent[1]), c.pii

    # ---- customer's message
    ask = c.fill(rng.choice(t["asks"]), noisy=noisy, lower=chatty)
    mis = c.fill(rng.choice(t["misquotes"]), noisy=noisy, lower=chatty) if misq else ""
    story_pre = ""
    if repeat and rng.random() < 0.5:
        story_pre = rng.choice(["I contacted you before about something else, ", "Me again, sorry. ",
                                "Second time writing this month. "])
    details = []
    k = rng.choice([0, 0, 1, 1, 1, 2, 2, 3]) if fmt in ("email", "secure", "chat") else 0
    for line in rng.sample(DETAIL_LINES, k):
        details.append(c.fill(line, noisy=noisy, lower=chatty))
    pieces = [x.strip() for x in [story_pre + ask, mis] + details if x.strip()]
    body = " ".join(x if x[-1] in ".?!)" or x is pieces[-1] else x + "." for x in pieces)

    # ---- agent's answer
    agent_first, agent_last = agent
    if stated:
        core = c.fill(rng.choice(t["states"]))
    else:
        core = c.fill(rng.choice(t["nostate"]))
    corr = c.fill(rng.choice(t["corrections"])) if misq else ""
    extra = c.fill(rng.choice(t["extras"])) if rng.random() < 0.45 else ""
    if t["id"] == "mortgage_aip_validity" and MORT_EMAIL not in core + extra:
        extra = c.fill(t["extras"][0])
    reply_core = " ".join(x for x in [corr, core, extra] if x)

    if fmt == "chat":
        return _chat(rng, c, body, reply_core, agent_first, agent_last, chatty), c.pii
    if fmt == "email":
        return _email(rng, c, body, reply_core, agent_first, agent_last), c.pii
    if fmt == "form":
        return _webform(rng, c, body, reply_core, agent_first, agent_last), c.pii
    return _secure(rng, c, body, reply_core, agent_first, agent_last), c.pii


def _agent_display(rng, c: Ctx, first, last, style=None):
    r = rng.random() if style is None else style
    if r < 0.4:
        s = first
    elif r < 0.7:
        s = f"{first} {last[0]}."
    elif r < 0.9:
        s = f"{first} {last}"
    else:
        s = f"Agent {last}"
    return c.add("agent_name", s)


def _cust_greet_reply(rng, c: Ctx) -> str:
    r = rng.random()
    if r < 0.45:
        return f"Hi {c.name_first()},"
    if r < 0.75:
        return f"Dear {c.name_title()},"
    if r < 0.9:
        return f"Hello {c.name_first()}, thanks for getting in touch."
    return "Hello,"


def _chat(rng, c: Ctx, body, reply, first, last, chatty) -> str:
    y, mo, d = _cdate(rng)
    h, mi = _time(rng)
    aname = _agent_display(rng, c, first, last, style=rng.random() * 0.7)
    cname = c.add("person_name", c.p.first) if rng.random() < 0.7 else "Customer"
    lines = [f"Live chat transcript - {rng.choice(['Northmoor Mobile', 'Northmoor Online Banking', COMPANY + ' website'])}",
             f"Started {d:02d}/{mo:02d}/{y} {h:02d}:{mi:02d}"]

    def stamp():
        nonlocal mi, h
        mi += rng.randint(0, 3)
        if mi >= 60:
            mi -= 60
            h += 1
        return f"[{h:02d}:{mi:02d}]"

    lines.append(f"{stamp()} {COMPANY}: You're chatting with {aname}{'' if aname.endswith('.') else '.'} "
                 f"How can I help today?")
    sentences = re.split(r"(?<=[.?!]) ", body)
    if len(sentences) > 2 and rng.random() < 0.6:
        cut = rng.randint(1, len(sentences) - 1)
        first_part, rest = " ".join(sentences[:cut]), " ".join(sentences[cut:])
        opener = rng.choice(["hi ", "hello, ", "Hi. ", ""]) if chatty else rng.choice(["Hi, ", "Hello. ", ""])
        lines.append(f"{stamp()} {cname}: {opener}{first_part}")
        lines.append(f"{stamp()} {cname}: {rest}")
    else:
        lines.append(f"{stamp()} {cname}: {body}")
    verified = rng.random() < 0.55
    if verified:
        ask = rng.choice(["Before I go on, can you confirm your date of birth and postcode please?",
                          "For security, could you confirm your full name and date of birth?",
                          "Can I take the first line of your address and your postcode to check it's you?"])
        lines.append(f"{stamp()} {aname}: {ask}")
        if "full name" in ask:
            ans = f"{c.name_full()}, {c.dob()}"
        elif "first line" in ask:
            ans = f"{c.addr()} {c.postcode()}"
        else:
            ans = f"{c.dob()} and {c.postcode()}"
        if chatty and rng.random() < 0.5:
            ans = ans.lower()
            for kind, surf in list(c.pii):
                if surf.lower() != surf and surf.lower() in ans:
                    c.add(kind, surf.lower())
        lines.append(f"{stamp()} {cname}: {ans}")
        lines.append(f"{stamp()} {aname}: Thanks {c.name_first()}, that's all verified.")
    greet = rng.choice(["Thanks {first}. ", "Thanks for waiting. ", "", "Sorry to hear that. "]
                       if not verified else ["", "", "Thanks for waiting. ", "OK. "])
    greet = c.fill(greet)
    lines.append(f"{stamp()} {aname}: {greet}{reply}")
    lines.append(f"{stamp()} {cname}: {rng.choice(['ok thanks', 'Thank you!', 'great, thanks for your help', 'ok', 'right, cheers', 'Thanks, will do'])}")
    close = rng.choice(AGENT_CLOSE[:4])
    lines.append(f"{stamp()} {aname}: {close or 'Have a good day!'}")
    lines.append(f"Chat ended {h:02d}:{mi:02d}")
    return "\n".join(lines)


def _email(rng, c: Ctx, body, reply, first, last) -> str:
    y, mo, d = _cdate(rng)
    subj = rng.choice(c.t["subjects"])
    sender = c.name_full() if rng.random() < 0.8 else c.name_first()
    greet = rng.choice(CUST_GREET)
    sign = rng.choice(["Thanks", "Regards", "Many thanks", "Kind regards", "Cheers", "Thank you", "thanks"])
    signname = c.name_sign()
    tail = ""
    if rng.random() < 0.25:
        tail = "\n" + c.phone()
    if rng.random() < 0.15:
        tail += "\nSent from my iPhone"
    cust = (f"{greet}\n\n" if greet else "") + f"{body}\n\n{sign},\n{signname}{tail}"
    case = c.val("case") if rng.random() < 0.4 else None
    aname = _agent_display(rng, c, first, last, style=0.5 + rng.random() * 0.5)
    hello = _cust_greet_reply(rng, c)
    empathy = "" if "thanks" in hello.lower() else rng.choice(EMPATHY)
    reply_txt = (f"{hello}\n\n{empathy} {reply}\n\n{rng.choice(AGENT_CLOSE)}\n\n"
                 f"Kind regards,\n{aname}\nCustomer Care, {COMPANY}\n{HELP_LINE} | {WEB}")
    reply_txt = re.sub(r"\n{3,}", "\n\n", reply_txt.replace("\n\n ", "\n\n"))
    rsubj = f"RE: {subj}" + (f" [Case {case}]" if case else "")
    em = c.email()
    head_c = f"From: {sender} <{em}>\nTo: {HELP_EMAIL}\nDate: {d} {MONTHS[mo - 1][:3]} {y}\nSubject: {subj}"
    head_r = f"From: {COMPANY} Customer Care <{HELP_EMAIL}>\nDate: {d + 1} {MONTHS[mo - 1][:3]} {y}\nSubject: {rsubj}"
    if rng.random() < 0.5:
        return f"{head_c}\n\n{cust}\n\n-----\n{head_r}\n\n{reply_txt}"
    quoted = "\n".join("> " + ln if ln else ">" for ln in cust.split("\n"))
    return (f"{head_r}\n\n{reply_txt}\n\nOn {d} {MONTHS[mo - 1][:3]} {y}, {sender} <{em}> wrote:\n"
            f"> Subject: {subj}\n{quoted}")


def _call(rng, c: Ctx, misq, stated, first, last) -> str:
    y, mo, d = _cdate(rng)
    h, mi = _time(rng)
    t = c.t
    ag = c.add("agent_name", rng.choice([f"{first[0]}. {last}", f"{first} {last[0]}", first, f"{first} {last}"]))
    caller = rng.choice([f"{c.p.title} {c.p.full()}", c.p.full(), f"{c.p.title} {c.p.last}"])
    c.add("person_name", caller)
    r = rng.random()
    if r < 0.4:
        idv = f"passed (DOB {c.dob()}, postcode {c.postcode()})"
    elif r < 0.6:
        idv = f"passed via {c.val('p_secure')}"
    elif r < 0.8:
        idv = f"passed - DOB {c.dob()}, card ending {c.card4()}"
    else:
        idv = f"passed (address {c.addr()}, {c.postcode()})"
    lines = [f"CALL NOTE | {d:02d}/{mo:02d}/{y} {h:02d}:{mi:02d} | Agent: {ag} (Contact Centre)",
             f"Caller: {caller} | Cust no: {c.custno()} | Tel: {c.phone()}",
             f"ID&V: {idv}",
             f"Reason: {rng.choice(t['topic'])}"]
    note = c.fill(rng.choice(t["notes"]))
    parts = [note]
    if misq:
        parts.append(c.fill(rng.choice(NOTE_MISQ)))
    if stated:
        parts.append(c.fill(rng.choice(t["note_states"])))
    else:
        parts.append(rng.choice(NOTE_NOSTATE))
    if rng.random() < 0.3:
        parts.append(c.fill(rng.choice(["Cust also updated mobile to {phone}.", "Cust confirmed email {email}.",
                                        "Reminded cust never to share OTPs.",
                                        "Cust asked about {p_save} rates, sent link.",
                                        "Cust mentioned recent house move to {addr_full}; address updated."])))
    lines.append("Notes: " + " ".join(parts))
    lines.append("Outcome: " + c.fill(rng.choice(OUTCOMES)))
    return "\n".join(lines)


def _webform(rng, c: Ctx, body, reply, first, last) -> str:
    y, mo, d = _cdate(rng)
    fname = c.name_full() if rng.random() < 0.85 else c.add("person_name", rng.choice([c.p.full().upper(), c.p.full().lower()]))
    fields = [f"Full name: {fname}", f"Email: {c.email()}", f"Phone: {c.phone()}"]
    if rng.random() < 0.6:
        fields.append(f"Account number (optional): {c.acct()}")
    if rng.random() < 0.5:
        fields.append(f"Date of birth: {c.dob()}")
    if rng.random() < 0.3:
        fields.append(f"Postcode: {c.postcode()}")
    fields.append(f"Topic: {rng.choice(c.t['topic'])}")
    fields.append(f"Message: {body}")
    aname = _agent_display(rng, c, first, last)
    resp = (f"{_cust_greet_reply(rng, c)} {reply} {rng.choice(AGENT_CLOSE)} {aname}, {COMPANY}").replace("  ", " ")
    return (f"Online enquiry form - {WEB}/contact\nSubmitted: {d:02d}/{mo:02d}/{y}\n" + "\n".join(fields)
            + f"\n----\nResponse sent {d:02d}/{mo:02d}/{y} by {aname}:\n{resp}")


def _secure(rng, c: Ctx, body, reply, first, last) -> str:
    y, mo, d = _cdate(rng)
    h, mi = _time(rng)
    subj = rng.choice(c.t["subjects"])
    aname = _agent_display(rng, c, first, last, style=rng.random() * 0.9)
    sign = c.name_sign() if rng.random() < 0.7 else ""
    greet = rng.choice(CUST_GREET[:5] + [""])
    cust = " ".join(x for x in [greet, body, ("Thanks " + sign) if sign else ""] if x)
    intro = rng.choice([f"My name is {aname} and I'm replying to your message.",
                        f"It's {aname} from the Customer Care team here.", ""])
    resp = " ".join(x for x in [_cust_greet_reply(rng, c), intro, reply, rng.choice(AGENT_CLOSE), f"- {aname}"] if x)
    return (f"Secure message (Northmoor Mobile inbox)\nSubject: {subj}\n"
            f"Customer wrote ({d:02d}/{mo:02d}/{y} {h:02d}:{mi:02d}):\n{cust}\n\n"
            f"Our reply ({d:02d}/{mo:02d}/{y} {min(h + rng.randint(1, 3), 23):02d}:{rng.randint(0, 59):02d}):\n{resp}")


# --------------------------------------------------------------------------------------------------------


def _holds(text: str, form: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


def _counts(n: int) -> list[int]:
    total = sum(t["weight"] for t in TYPES)
    counts = [max(2, round(t["weight"] * n / total)) for t in TYPES]
    counts[0] += n - sum(counts)
    return counts


def generate(seed: int, n: int = 400) -> dict:
    """The collection of `n` records for `seed` (deterministic in (seed, n))."""
    rng = random.Random(f"northmoor-bank/{seed}/{n}")
    counts = _counts(n)
    plan = [i for i, k in enumerate(counts) for _ in range(k)]
    rng.shuffle(plan)
    agents = _agent_names(rng)
    agent_w = [rng.choice([1, 2, 3, 5, 8]) for _ in agents]
    people: list[Person] = []
    used: dict[str, int] = {}
    used_phones: set = set()
    records, pii_rows = [], []
    stated_by = [0] * len(TYPES)
    misq_by = [0] * len(TYPES)
    fmts = ["chat", "email", "call", "form", "secure"]
    fmt_w = [33, 25, 20, 10, 12]
    # a spread of the public strings at small n: make sure each appears
    for idx, ti in enumerate(plan):
        t = TYPES[ti]
        reuse = [p for p in people if used[p.pid] < 3]
        if reuse and rng.random() < 0.22:
            person = rng.choice(reuse)
            repeat = True
        else:
            person = Person(rng, f"nmb-c{len(people) + 1:05d}", used_phones)
            people.append(person)
            used[person.pid] = 0
            repeat = False
        used[person.pid] += 1
        agent = rng.choices(agents, weights=agent_w)[0]
        fmt = rng.choices(fmts, weights=fmt_w)[0]
        misq = rng.random() < 0.11
        stated = misq or rng.random() > 0.08
        for _attempt in range(60):
            text, pii = _build(rng, person, agent, t, fmt, misq, stated, repeat)
            if _valid(text, t, stated):
                break
        else:  # pragma: no cover - should not happen
            raise RuntimeError(f"could not build a clean record of type {t['id']}")
        stated_by[ti] += stated
        misq_by[ti] += misq
        rid = f"nmb-{idx + 1:06d}"
        rec = {"id": rid, "text": text, "person_id": person.pid, "type": t["id"]}
        rec.update(person.fields())
        records.append(rec)
        pii = [(k, s if s in text else s.lower()) for k, s in pii]
        pii = [x for i, x in enumerate(pii) if x not in pii[:i]]
        missing = [s for _, s in pii if s not in text]
        if missing:  # pragma: no cover - a personal string was registered but not written
            raise RuntimeError(f"{rid}: registered PII not in text: {missing}")
        pii_rows.append({"id": rid, "pii": [{"kind": k, "text": s} for k, s in pii]})

    types = [{"id": t["id"], "records": counts[i], "fact": t["fact"], "forms": list(t["forms"]),
              "stated_by": stated_by[i], "misquoted_by": misq_by[i]} for i, t in enumerate(TYPES)]
    questions = [{"question": q, "answers": list(t["forms"]), "type": t["id"], "support": counts[i]}
                 for i, t in enumerate(TYPES) for q in t["questions"]]
    public = {"company": COMPANY, "public_strings": list(PUBLIC_STRINGS), "product_names": list(PRODUCT_NAMES),
              "identifier_fields": list(IDENTIFIER_FIELDS), "id_field": "id", "text_field": "text",
              "unit_field": "person_id"}
    return {"domain": "bank", "records": records, "pii": pii_rows, "types": types, "questions": questions,
            "public": public}


def _valid(text: str, t: dict, stated: bool) -> bool:
    for u in TYPES:
        hit = any(_holds(text, f) for f in u["forms"])
        if u is t:
            if hit != stated:
                return False
        elif hit:
            return False
    words = len(text.split())
    return 50 <= words <= 250
