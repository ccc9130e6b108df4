"""Personal strings a support record's layout gives away (dpsynrag.data.pii_layout, issue 51): initials ending a
call note, names after relations with a comma, date-of-birth possessives and "next door" / "spoken to" cues, a
surname in capitals beside a name, addresses by layout (house number and a place-like word in any case, address
fields, street-first addresses with a postcode, a US state and ZIP), cued registrations of any country — each
with the ordinary text that must stay."""

from __future__ import annotations

import pytest

from dpsynrag.data.pii import PIIRedactor
from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER

R = DEFAULT_PLACEHOLDER


@pytest.fixture(scope="module")
def redact():
    return PIIRedactor(model="none")


@pytest.mark.parametrize("text, expected", [
    ("Caller satisfied. - KM", f"Caller satisfied. - {R}"),
    ("Caller happy with advice. AN\nNext call", f"Caller happy with advice. {R}\nNext call"),
    ("No further action. - IS", f"No further action. - {R}"),
    ("The booking was made by my PA, Saoirse, so", f"The booking was made by my PA, {R}, so"),
    ("made by my pa, tuan, so", f"made by my pa, {R}, so"),
    ("with our friends ayesha and anand, who", f"with our friends {R} and {R}, who"),
    ("Kieran's date of birth is in May.", f"{R}'s date of birth is in May."),
    ("noise from Zainab next door, the dogs", f"noise from {R} next door, the dogs"),
    ("I've spoken to Ciarán twice", f"I've spoken to {R} twice"),
    ("[16:31] SWAN Yuki: how late", f"[16:31] {R} {R}: how late"),
    ("at my flat 141 northgate. when", f"at my flat {R}. when"),
    ("just me at 30 fairview. What", f"just me at {R}. What"),
    ("bin for 84 Northgate, ours", f"bin for {R}, ours"),
    ("Property: 144, Old Market, Leeds", f"Property: {R}"),
    ("Home address on file: 9 Elm, WA, 98107.", f"Home address on file: {R}"),
    ("posted to vesterbrogade 90, københavn, 33107? thanks", f"posted to {R}? thanks"),
    ("reg hh-np 3255. I thought", f"reg {R}. I thought"),
    ("car is M-OA 4050.", f"car is {R}."),
    ("(car m-bx 916, ref", f"(car {R}, ref"),
    ("registration b-gu 4853, booking", f"registration {R}, booking"),
    ("Agent reply - Imogen:\nDear X", f"Agent reply - {R}:\nDear X"),
    ("CALL NOTE - inbound - Gareth\nCaller:", f"CALL NOTE - inbound - {R}\nCaller:"),
    ("photo ID. - Jordan, Swiftline Parcels", f"photo ID. - {R}, Swiftline Parcels"),
    ("Reply sent by Will:\nGood", f"Reply sent by {R}:\nGood"),
    ("signed for by 'Blessing' but", f"signed for by '{R}' but"),
    ("Signed for by THOMAS.", f"Signed for by {R}."),
    ("Hello! Will here, what can", f"Hello! {R} here, what can"),
    ("leave it with Niko at the door", f"leave it with {R} at the door"),
    ("first line of address (37 oakdene) and", f"first line of address ({R}) and"),
    ("No answer at brook house, eastcote 14:08", f"No answer at {R} 14:08"),
    ("can it go to 5 greenacres? DOB", f"can it go to {R}? DOB"),
    ("drop us a DM. ^Marek", f"drop us a DM. ^{R}"),
    ("Have a great trip! ^Agent King", f"Have a great trip! ^{R}"),
    ("Thank you for your help\n> pat", f"Thank you for your help\n> {R}"),
    ("Awaiting your reply\nmin-jun\n\nSent from Outlook for Android", f"Awaiting your reply\n{R}\n\nSent from Outlook for Android"),
    ("has my first name spelt Samh instead", f"has my first name spelt {R} instead"),
    ("autocorrected my surname to Leee. can", f"autocorrected my surname to {R}. can"),
    ("under her maiden name, ananya laurent, but", f"under her maiden name, {R}, but"),
    ("Shaz at the desk told us", f"{R} at the desk told us"),
    ("delivered to Hauptstrasse 12B, 60661 five days", f"delivered to {R} five days"),
    ("Hello! My name's Priya, what can I do", f"Hello! My name's {R}, what can I do"),
    ("i'm lena, third year", f"i'm {R}, third year"),
    ("Inbound call – agent: Grace\nCaller:", f"Inbound call – agent: {R}\nCaller:"),
    ("Name: ROBERTSON, Siobhan\nEmail:", f"Name: {R}\nEmail:"),
    ("09:37 Agent (Ifeoma): Apologies", f"09:37 Agent ({R}): Apologies"),
    ("it needs to go to alejandro (alejandro@example.com).", f"it needs to go to {R} ({R})."),
    ("Hotel response – Hope Adeyemi:\nThank", f"Hotel response – {R}:\nThank"),
    ("Kind regards\nLyon\n54648\n\n--", f"Kind regards\n{R}\n{R}\n\n--"),
    ("> Chicago, IL\n> 60607", f"> Chicago, IL\n> {R}"),
    ("my ID card number is 80005735M if", f"my ID card number is {R} if"),
    ("the crime reference is 13/76976/25 and", f"the crime reference is {R} and"),
    ("posted to me at Room 8D Alder Hall, Harwick?", f"posted to me at {R}?"),
    ("my module leader, grace hill, told", f"my module leader, {R}, told"),
])
def test_layouts_give_the_string_away(redact, text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize("text", [
    "Thanks. OK",  # an abbreviation ends the line
    "I work for the NHS. NHS",
    "Please contact IT",
    "Property: Harbourline York Minster",  # a hotel of the organisation: no digit
    "book a car for 2 days",  # a vehicle cue before ordinary words
    "car is 2 years old",
    "It takes 5 working days and 3 nights",
    "costs £25 for 2 tickets; Take 2 paracetamol",
    "Our friends and family love it; my kids, two of them",
    "I spoke to someone at the desk",
    "we went to Greenway and Bridgeford",  # place-like words without a house number
    "we have 2 children and 3 grandchildren",  # a number and an uncommon word that is no place
    "Arrival - Monday:\nOpening hours - Monday to Friday\nTeam - Support:",  # header labels that are no names
    "Our house, which is big; The White House, Washington",
    "sent by post, signed by the manager; I live here now",
    "Thanks for the help\nok",  # a closing line and a frequent word
    "Kind regards\nThe Team\n\nThank you\nCustomer Services",
    "Terminal 5, 2024 was busy; Gate 12, 4000 people",  # a year or a count after a number is no postcode
    "The name is fine; change my surname to the new one",
    "Please go to the desk",
    "I'm sorry, I can't. This is fine. I am here.",  # introductions of ordinary words
    "Product name: Gold Card\nName: 12345",  # a field that is no person's name
    "write to the Support team (help@x.example.com) today",  # ordinary words before an address: no name
    "It costs\n2500\n",  # a number alone after a line that is no town
    "my friends are lovely; my kids, two of them",
])
def test_ordinary_text_stays(redact, text):
    assert [text[s:e] for s, e, entity in redact.find(text)[0] if entity not in ("EMAIL_ADDRESS", "URL")] == []


def test_card_digits_are_not_a_plate(redact):
    assert [entity for _, _, entity in redact.find("Card 4111 1111 1111 1111 expired")[0]] == ["CREDIT_CARD"]
