"""Medical Synth notes grouped by a synthetic patient id, for a build per person (``--privacy-unit-field``).

Medical Synth has one note per patient. To try the per-person guarantee on the shipped data, this script
takes the demo's subset of the notes (2,000 by default: the same seeded sample as ``dpsynrag demo``) and
gives runs of 3 to 6 of them, in a seeded random order, one made-up ``patient_id`` ("patient-0001", ...), so
a patient's notes lie anywhere in the file. It writes them as JSON lines with the fields ``id``, ``text``,
``patient_name`` (the note's own name, for ``--identifier-field``) and ``patient_id``.

Usage::

    python examples/per_person.py runs/notes_by_patient.jsonl            # 2,000 notes
    python examples/per_person.py runs/notes_by_patient.jsonl --documents 300
    .venv/bin/dpsynrag build runs/notes_by_patient.jsonl --out runs/per_patient --epsilon 10 --delta 1e-3 \\
        --preset demo --identifier-field patient_name --privacy-unit-field patient_id

The ids are public made-up values; the notes are the private data (keep the file where the data is).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from dpsynrag.data.io import Document
from dpsynrag.data.jsonl import write_jsonl_atomic


def assign_patients(n: int, *, seed: int = 0, smallest: int = 3, largest: int = 6) -> list[str]:
    """A made-up patient id for each of ``n`` notes: runs of ``smallest`` to ``largest`` notes (the last run
    may be shorter) of a seeded random order share one id ("patient-0001", ...).

    Raises:
        ValueError: ``n`` < 1 or sizes not 1 <= smallest <= largest.
    """
    if n < 1 or not 1 <= smallest <= largest:
        raise ValueError(f"need n >= 1 and 1 <= smallest <= largest; found n={n}, sizes {smallest}..{largest}.")
    rng = random.Random(seed)
    order = list(range(n))
    rng.shuffle(order)
    ids = [""] * n
    start, patient = 0, 0
    while start < n:
        patient += 1
        size = rng.randint(smallest, largest)
        for i in order[start:start + size]:
            ids[i] = f"patient-{patient:04d}"
        start += size
    return ids


def demo_notes(documents: int, *, subset_seed: int = 0) -> list[Document]:
    """The demo's subset of Medical Synth: ``documents`` notes drawn with ``random.Random(subset_seed)``, in
    file order (all of them when ``documents`` is at least the database size)."""
    from dpsynrag.tasks import get_task

    database = get_task("medical").load_database()
    if documents < len(database):
        keep = sorted(random.Random(subset_seed).sample(range(len(database)), documents))
        database = [database[i] for i in keep]
    return database


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="JSONL file to write")
    parser.add_argument("--documents", type=int, default=2000, help="notes (the demo's seeded subset; default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the patient assignment (public; default 0)")
    args = parser.parse_args(argv)
    notes = demo_notes(args.documents)
    patients = assign_patients(len(notes), seed=args.seed)
    write_jsonl_atomic(args.out, ({"id": d.id, "text": d.text, "patient_name": d.identifiers[0] if d.identifiers else "",
                                   "patient_id": p} for d, p in zip(notes, patients)))
    print(f"wrote {len(notes)} notes of {len(set(patients))} made-up patients (3 to 6 notes each) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
