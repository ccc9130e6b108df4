"""Own-data QA benchmark (issue 41): seeded made-up private collections in three domains (bank messages, SaaS
support tickets, IT/HR helpdesk requests) with known facts, known PII and known public strings
(:mod:`benchmarks.owndata.generate`), and the PII left after a redaction (:mod:`benchmarks.owndata.pii_residual`).
See README.md in this folder."""
