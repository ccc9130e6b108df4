"""Seeded outputs of every method equal the golden files made before the methods moved to the registry
(issue 13): texts, index ids and privacy sections of each corpus method, DP-RAG's answers and report.
Regenerate with ``python tests/golden/make_golden.py`` only for a change meant to alter seeded output."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "golden"))

from make_golden import GOLDEN, outputs  # noqa: E402


@pytest.fixture(scope="module")
def now():
    return outputs()


@pytest.mark.parametrize("method", sorted(json.loads(GOLDEN.read_text(encoding="utf-8"))))
def test_seeded_output_equals_golden(now, method):
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))[method]
    assert set(now[method]) == set(golden)
    for name, text in golden.items():
        assert now[method][name] == text, f"{method}: {name} differs from the golden file"
