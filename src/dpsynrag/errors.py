"""Exception hierarchy of dpsynrag.

Every error a user can cause derives from :class:`DpsynragError` and from the matching built-in
(``ValueError`` for bad values, ``FileNotFoundError`` for missing files), so ``except ValueError``
keeps working for callers that do not know our classes. Messages follow one template: the name of the
argument, the rule it broke, the value found, and a hint where one helps.
"""

from __future__ import annotations


class DpsynragError(Exception):
    """Base class of every error raised on purpose by dpsynrag."""


class ConfigError(DpsynragError, ValueError):
    """A parameter is out of its domain (e.g. ``epsilon <= 0``, ``delta`` outside (0, 1), ``K < 1``)."""


class InfeasibleBudgetError(ConfigError):
    """The requested (epsilon, delta) cannot pay for the requested budget split.

    Raised by calibration when a fixed part of the split (histogram, threshold, embedding mean)
    already costs more than the target allows; the message names that part.
    """


class PrivacyBudgetExceededError(DpsynragError, ValueError):
    """Composing a mechanism would exceed the accountant's budget.

    Raised *before* any noise is drawn or any state changes.
    """


class UnsupportedEventError(DpsynragError, TypeError):
    """An accountant was given an event it cannot account for."""


class DataError(DpsynragError, ValueError):
    """The input collection is unusable: empty, malformed, missing a field, duplicate ids, bad UTF-8."""


class ModelLoadError(DpsynragError, ValueError):
    """A language or embedding model could not be loaded from the given id or path."""


class CorpusError(DpsynragError, ValueError):
    """A synthetic-corpus folder is missing, incomplete or from an incompatible version."""


class EndpointError(DpsynragError, RuntimeError):
    """An answering endpoint (OpenAI-compatible, ``--answer-endpoint``) could not be reached or answered
    with an error."""


class BuildInProgressError(DpsynragError, FileExistsError):
    """Another build is writing the same corpus folder (``--out``) right now: its lock is held."""


class CheckpointError(DpsynragError, ValueError):
    """A build's checkpoint (the work folder ``.NAME.work`` beside ``--out``) cannot be used: an
    interrupted build is left and ``--resume`` was not given, the input or configuration changed since
    it, there is nothing to resume, or the folder is damaged or not the user's."""
