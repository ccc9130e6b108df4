"""The empirical privacy audit of a corpus build (one-run auditing, Steinke, Nasr & Jagielski 2023):
its design and ε lower bound (:mod:`~dpsynrag.audit.bound`), canaries (:mod:`~dpsynrag.audit.canaries`),
membership scores (:mod:`~dpsynrag.audit.scoring`) and the audit itself (:mod:`~dpsynrag.audit.run`).
"""

from dpsynrag.audit.bound import AuditDesign, design_audit, epsilon_lower_bound, max_epsilon_lower_bound
from dpsynrag.audit.canaries import Canary, make_canaries
from dpsynrag.audit.run import (
    AUDIT_FILE,
    SEED_REQUIRED,
    TABLE_JSON,
    TABLE_MD,
    TABLE_PLOT,
    AuditResult,
    audit_row,
    plan_message,
    run_audit,
    run_audit_sweep,
    write_audit_table,
)
from dpsynrag.audit.scoring import guess_membership, membership_scores, score_parts

__all__ = ["AUDIT_FILE", "SEED_REQUIRED", "TABLE_JSON", "TABLE_MD", "TABLE_PLOT", "AuditDesign", "AuditResult",
           "Canary", "audit_row", "design_audit", "epsilon_lower_bound", "guess_membership", "make_canaries",
           "max_epsilon_lower_bound", "membership_scores", "plan_message", "run_audit", "run_audit_sweep",
           "score_parts", "write_audit_table"]
