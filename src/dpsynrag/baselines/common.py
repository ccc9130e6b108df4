"""Helpers shared by the baselines: input documents, tasks, models, calibration and reports.

Nothing here releases private data; the functions only normalise inputs and assemble the privacy
report that each baseline writes next to its output.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from dpsynrag.pipeline.run import NOT_FOR_RELEASE_NOTE, BuildRun
from dpsynrag.errors import ConfigError, InfeasibleBudgetError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon
from dpsynrag.privacy.events import PrivacyEvent
from dpsynrag.privacy.report import PrivacyReport
from dpsynrag.rng import RandomSource

# Calibrated values are shrunk by this relative margin so that floating-point rounding can never push
# the composed epsilon above the target (as in dpsynrag.privacy.calibration).
SAFETY = 1e-10
# Relative slack when comparing a spent epsilon with a total budget (sums of the same terms in
# another order differ by a few ulps).
BUDGET_RTOL = 1e-9



def resolve_task(task):
    """A :class:`~dpsynrag.tasks.Task` from a Task, a registered name, or None (returns None)."""
    if task is None:
        return None
    from dpsynrag.tasks import Task, get_task

    if isinstance(task, Task):
        return task
    if isinstance(task, str):
        return get_task(task)
    raise ConfigError(f"`task` must be a Task, a task name or None. Found {type(task).__name__}.")


def load_models(lm, embedder, *, model: str | None, embedder_spec: str | None, need_embedder: bool = True):
    """The given models, or the ones named by a config (None: the offline defaults). The embedder loads
    first: a bad embedder name fails before the (larger) language model loads."""
    if embedder is None and need_embedder:
        from dpsynrag.models import Embedder

        embedder = Embedder.load(embedder_spec)
    if lm is None:
        from dpsynrag.models import LanguageModel

        lm = LanguageModel.load(model)
    return lm, embedder


def build_baseline(method: str, generate, config_type: type, documents, out_dir, config, *, prepare=None,
                   **options):
    """Build a baseline's corpus: a :class:`~dpsynrag.pipeline.run.BuildRun` named ``method`` around
    ``generate(run)`` (what :meth:`dpsynrag.methods.CorpusMethod.build` does for a registered method;
    here without the registry, which imports the baselines).

    Args:
        prepare: ``prepare(config)``, the public values the build needs before it reads a document.
        options: :class:`~dpsynrag.pipeline.run.BuildRun`'s keywords (``lm``, ``embedder``,
            ``text_field``, ``id_field``, ``identifier_fields``, ``overwrite``, ``progress``, ``ledger``).

    Raises:
        ConfigError: ``config`` is not a ``config_type``. TypeError: an unknown keyword.
    """
    if not isinstance(config, config_type):
        raise ConfigError(f"`config` must be a {config_type.__name__}. Found {type(config).__name__}.")
    run = BuildRun(method, documents, out_dir, config, prepare=lambda cal: prepare(config) if prepare else None,
                   **options)
    with run:
        return generate(run)


def rho_target(epsilon: float, delta: float, conversion: str, *, what: str) -> float:
    """The zCDP budget ρ of a target (ε, δ), shrunk by :data:`SAFETY`.

    Raises:
        ConfigError: on ε <= 0, δ outside (0, 1) or an unknown conversion.
    """
    rho = rho_from_epsilon(epsilon, delta, conversion=conversion)  # type: ignore[arg-type]
    if not rho > 0:  # pragma: no cover - rho_from_epsilon is > 0 for every valid input
        raise InfeasibleBudgetError(f"{what}: epsilon={epsilon!r}, delta={delta!r} leave no zCDP budget.")
    return rho * (1.0 - SAFETY)


def check_achieved(rho: float, *, epsilon: float, delta: float, conversion: str, what: str) -> float:
    """ε of ``rho`` at ``delta``; a guard that it does not exceed the target (never a silent overshoot).

    Raises:
        ConfigError: internal calibration error (the achieved ε exceeds the target).
    """
    achieved = epsilon_from_rho(rho, delta, conversion=conversion)  # type: ignore[arg-type]
    if achieved > epsilon * (1 + BUDGET_RTOL):
        raise ConfigError(f"internal calibration error in {what}: achieved epsilon {achieved!r} > target {epsilon!r}.")
    return achieved


def make_report(
    accountant: ZCDPAccountant,
    *,
    delta: float,
    composition: str,
    parameters: dict[str, Any],
    random: RandomSource,
    notes: Sequence[str] = (),
    plan: PrivacyEvent | None = None,
) -> PrivacyReport:
    """The privacy report of a baseline run, with the baseline's own composition statement.

    ``plan``: the run's composition fixed before any data is read, which is the guarantee (see
    :meth:`~dpsynrag.privacy.report.PrivacyReport.from_accountant`); None when the ledger is the plan."""
    all_notes = list(notes)
    if not random.is_secure:
        all_notes.append(NOT_FOR_RELEASE_NOTE)
    report = PrivacyReport.from_accountant(
        accountant, delta=delta, plan=plan, parameters=parameters, secure_randomness=random.is_secure, notes=all_notes
    )
    return dataclasses.replace(report, composition=composition)

