"""One fact, one form (issue 51): the public rule that writes English figures in one canonical form
(dpsynrag.data.figures), so a figure's paraphrases pool their counts in the phrase release."""

from __future__ import annotations

import pytest

from dpsynrag.data.figures import canonical_figures, number_value


@pytest.mark.parametrize("text, expected", [
    ("forty-five pounds, GBP 45, 45 GBP, £45.00, 45 quid, £ 45", "£45, £45, £45, £45, £45, £45"),
    ("£1,500.00 or 7 pounds 50 or £9.90", "£1,500 or £7.50 or £9.90"),
    ("45p per mile, £0.45 per mile, forty-five pence a mile, 45 pence, 45 p", "45p per mile, 45p per mile, "
     "45p a mile, 45p, 45p"),
    ("EUR 15, 15 euros, €15.00; USD 10, 10 dollars, $9.99", "€15, €15, €15; $10, $10, $9.99"),
    ("six per cent, 6 percent, 20 pct", "6%, 6%, 20%"),
    ("two hours, 2 hrs, 2hrs, 30 mins, 48h, 3 wks, 10 GB", "2 hours, 2 hours, 2 hours, 30 minutes, 48 hours, "
     "3 weeks, 10GB"),
    ("the tenth of each month, the first of May", "the 10th of each month, the 1st of May"),
    ("a six-month probation, twenty-five days, one hundred and fifty pounds", "a 6-month probation, 25 days, £150"),
])
def test_paraphrases_of_a_figure_are_written_alike(text, expected):
    assert canonical_figures(text) == expected


@pytest.mark.parametrize("text", [
    "One of our agents will call you first time tomorrow.",  # a number word not before a unit; "first" not before "of"
    "The 5G network and the 4K screen, flight BA 123 on 05/06/2024 at 10:30; 1 in 5 orders.",
    "Your PIN is sent within 3 working days.",
])
def test_what_is_not_a_paraphrase_is_kept(text):
    assert canonical_figures(text) == text


def test_number_words_and_other_languages():
    assert [number_value(w) for w in ("forty-five", "one hundred and fifty", "two thousand", "eleven", "dozen")] == [
        45, 150, 2000, 11, None]
    assert canonical_figures("cuarenta y cinco euros, 45 euros", language="es") == "cuarenta y cinco euros, 45 euros"
