"""One module per blind domain, each exposing ``generate(seed, n) -> dict`` (``../CONTRACT.md``)."""
