"""The audit's canaries (step 1 of :mod:`dpsynrag.audit.run`): documents in the format of the private
records whose secret is an invented word absent from public usage, and the public coins that decide
which of them join the build. Everything comes from the audit's own seed, never from the data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpsynrag.errors import ConfigError

CANARY_ID_PREFIX = "audit-canary-"


_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "gl", "pl", "sn",
           "st", "tr", "zl")
_VOWELS = ("a", "e", "i", "o", "u")
_SUFFIXES = ("itis", "osis", "emia", "algia")
# Public, generic material for the Medical Synth record template (no value is read from the data).
_FIRST_NAMES = ("Anna", "Peter", "Maria", "Lucas", "Emma", "Noah", "Julia", "Felix", "Clara", "Oscar", "Nina", "Hugo")
_LAST_NAMES = ("Miller", "Schmidt", "Moreau", "Rossi", "Jansen", "Novak", "Keller", "Dubois", "Larsen", "Costa",
               "Weber", "Fischer")
_SYMPTOMS = ("Abdominal cramps", "Fatigue", "Rash on the palms", "Loss of appetite", "Dizziness", "Bloating",
             "Headache", "Nausea", "Fever", "Cough", "Sneezing", "Joint pain")
_TREATMENTS = ("Rest Therapy", "Herbal Tea Therapy", "Vitamin Drops", "Warm Compress Therapy", "Breathing Exercises")


@dataclass(frozen=True)
class Canary:
    """One canary document.

    Attributes:
        id: document id (``audit-canary-{j}``).
        secret: the invented word (capitalised) that only this canary holds.
        text: the full document text (it contains ``secret``).
        included: the public coin: True when the canary was added to the build's input.
    """

    id: str
    secret: str
    text: str
    included: bool


def audit_stream(seed: int, k: int) -> np.random.Generator:
    """Independent stream k of the audit's seed: 0 coins, 1 secrets, 2 record fields, 3 tie-breaks (keys
    distinct from the build's :class:`~dpsynrag.rng.SeededRandom` streams of the same seed)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0xA0D17, k)))


def _invented_word(rng: np.random.Generator) -> str:
    syllables = "".join(str(rng.choice(_ONSETS)) + str(rng.choice(_VOWELS)) for _ in range(3))
    return (syllables[:-1] + str(rng.choice(_SUFFIXES))).capitalize()  # "zlubomi" + "itis" -> "Zlubomitis"


def _medical_canary(rng: np.random.Generator, secret: str) -> str:
    from dpsynrag.tasks.medical_source import medical_document_text

    symptoms = [str(s) for s in rng.choice(_SYMPTOMS, size=int(rng.integers(3, 6)), replace=False)]
    name = f"{rng.choice(_FIRST_NAMES)} {rng.choice(_LAST_NAMES)}"
    return medical_document_text(name, secret, symptoms, str(rng.choice(_TREATMENTS)))


def make_canaries(m: int, *, seed: int, task: str | None = None, template: str | None = None) -> list[Canary]:
    """``m`` canaries with unique invented secrets and their public inclusion coins.

    The secret of each canary is an invented word (three syllables and a medical suffix, e.g.
    "Zlubomitis") with wordfreq Zipf frequency 0, distinct from every other canary's secret and not
    contained in one. Coins, secrets and record fields come from independent streams of ``seed``.

    Args:
        m: number of canaries (>= 2).
        seed: the audit's seed (public; not the build's).
        task: ``"medical"`` uses the Medical Synth record template (plain name, common symptoms and
            treatment, the secret as the diagnosis) unless ``template`` is given.
        template: a canary text with the placeholder ``{secret}`` (for other tasks: write one record in
            your documents' format by hand, with no private value in it).

    Returns:
        The canaries, in id order.

    Raises:
        ConfigError: m < 2, a template without ``{secret}``, or no template for a task other than medical.
    """
    from wordfreq import zipf_frequency

    if isinstance(m, bool) or not isinstance(m, int) or m < 2:
        raise ConfigError(f"the number of canaries (--canaries; canaries=) must be an integer >= 2. Found {m!r}.")
    if template is not None and "{secret}" not in template:
        raise ConfigError("the canary template (--canary-template; template=) must contain the placeholder {secret}.")
    if template is None and task != "medical":
        raise ConfigError(
            "the audit needs a canary in your documents' format: give a canary template with the placeholder "
            "{secret} (--canary-template; template=), or use --task medical for the built-in Medical Synth record."
        )
    coins = audit_stream(seed, 0).integers(0, 2, size=m).astype(bool)
    words_rng = audit_stream(seed, 1)
    fields_rng = audit_stream(seed, 2)
    chosen: list[str] = []
    lowered: set[str] = set()  # the chosen secrets, lower case
    inside: set[str] = set()  # every substring of a chosen secret
    while len(chosen) < m:
        word = _invented_word(words_rng)
        low = word.lower()
        subs = {low[i:j] for i in range(len(low)) for j in range(i + 1, len(low) + 1)}
        if low in inside or subs & lowered or zipf_frequency(low, "en") > 0:
            continue  # contained in a chosen secret, containing one, or a word of public English
        chosen.append(word)
        lowered.add(low)
        inside |= subs
    out = []
    for j, (secret, included) in enumerate(zip(chosen, coins)):
        text = template.replace("{secret}", secret) if template is not None else _medical_canary(fields_rng, secret)
        out.append(Canary(id=f"{CANARY_ID_PREFIX}{j}", secret=secret, text=text, included=bool(included)))
    return out
