"""Privacy units: a build per person, not per document (``--privacy-unit-field FIELD``; issue 30).

Where several documents belong to one person (a patient's notes, a customer's tickets), the collection is
read with a unit field (:attr:`~dpsynrag.data.io.Document.unit`) and **neighbouring collections differ by
all documents of one unit** (add/remove one person). METHOD.md §0: contributions are bounded per unit
first, so that each mechanism keeps the per-document sensitivity of METHOD.md §1–§2 per unit, and ρ and ε
are unchanged. The bounds, all public:

* keywords (§1a): each document's keywords are extracted and capped to K as today (a function of that
  document alone); the unit's set is then at most K words of their union, by a rule that depends on that
  unit's documents alone (:func:`~dpsynrag.pipeline.keywords.unit_keyword_sets`). The histogram counts
  units: L2 sensitivity √K per unit.
* clusters (§1b): the units are soft-clustered on their keyword sets (or, with ``match_text``, on the
  released keywords found in any of their texts): a unit joins at most L clusters. Inside a cluster it is
  **one member**: its most relevant document holding the cluster's keyword
  (:func:`~dpsynrag.pipeline.clustering.soft_cluster` with ``units``). So each unit adds one unit-norm embedding
  to the noisy sum (L2 sensitivity 1), one vote to the threshold's utility (sensitivity 1) and one clipped
  logit vector to each token's score (sensitivity c, bounded range 2c/τ), in at most L clusters: the
  overlapping parallel composition of Theorem 1 holds with "unit" for "document".

The stages after clustering read the members as document indices, as without units.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from dpsynrag.errors import ConfigError, DataError
from dpsynrag.textkeys import unit_key


class PrivacyUnits:
    """The grouping of a collection's documents into privacy units (persons).

    Units are numbered 0, 1, … in order of their first document; a unit's documents keep file order.
    Only the grouping is kept (an int per document), never the unit keys: they are private.

    Args:
        unit_of: ``[n_documents]`` int array, the unit index of each document (numbered by first appearance).
        field: the unit field's name (public; the report says "per person (FIELD)").

    Raises:
        ConfigError: ``unit_of`` is not a 1-D array of integers numbered 0, 1, … by first appearance
            (a float, a negative, a gap or another order). The message names a position, never a key.

    Attributes:
        unit_of: as given. field: as given. starts, order: CSR layout: unit u's documents are
        ``order[starts[u]:starts[u + 1]]``.
    """

    def __init__(self, unit_of: np.ndarray, field: str):
        given = np.asarray(unit_of)
        if given.ndim != 1 or (given.size and (given.dtype == bool or not np.issubdtype(given.dtype, np.integer))):
            raise ConfigError(f"PrivacyUnits: unit_of must be a 1-D array of integers (one unit index per document). "
                              f"Found dtype {given.dtype}, shape {given.shape}.")
        self.unit_of = given.astype(np.int64)
        self.field = field
        if self.unit_of.size:
            # the first appearances of 0, 1, 2, ... in order: a number's first document comes after the previous one's
            seen = np.maximum.accumulate(self.unit_of)
            bad = np.flatnonzero((self.unit_of < 0) | (self.unit_of > np.concatenate(([-1], seen[:-1])) + 1))
            if bad.size:
                raise ConfigError(f"PrivacyUnits: unit_of must number units 0, 1, 2, ... in order of their first "
                                  f"document; document {int(bad[0])} breaks it (a negative, a gap or another order). "
                                  f"PrivacyUnits.from_documents numbers them for you.")
        count = int(self.unit_of.max()) + 1 if len(self.unit_of) else 0
        self.order = np.argsort(self.unit_of, kind="stable")
        self.starts = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.unit_of, minlength=count), out=self.starts[1:])

    @classmethod
    def from_documents(cls, documents: Iterable, field: str) -> "PrivacyUnits":
        """The units of ``documents`` (anything with a ``unit`` attribute: :class:`~dpsynrag.data.io.Document`),
        by their :attr:`~dpsynrag.data.io.Document.unit` keys in normal form (:func:`~dpsynrag.textkeys.unit_key`:
        "Alice Smith" and "alice  smith" are one person, as in the privacy ledger; merging is conservative).

        Raises:
            DataError: a document without a unit key (None or empty): it names the document's position,
                never its text or key.
        """
        index: dict[str, int] = {}
        unit_of = []
        for i, d in enumerate(documents):
            key = getattr(d, "unit", None)
            if not isinstance(key, str) or not key.strip():
                raise DataError(
                    f"document {i} has no privacy unit value (field {field!r}): the build is per person, so every "
                    "document needs its person's key. Hint: read the collection with the unit field "
                    "(--privacy-unit-field; privacy_unit_field=) or give each Document its unit=..."
                )
            unit_of.append(index.setdefault(unit_key(key), len(index)))
        return cls(np.asarray(unit_of, dtype=np.int64), field)

    def __len__(self) -> int:
        """The number of units."""
        return len(self.starts) - 1

    @property
    def num_documents(self) -> int:
        """The number of documents grouped."""
        return len(self.unit_of)

    def documents(self, u: int) -> np.ndarray:
        """Unit ``u``'s document indices, increasing."""
        return self.order[self.starts[u]:self.starts[u + 1]]
