"""`dpsynrag budget`: calibrated parameters and the privacy report, as JSON and as tables."""

import json

import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app

runner = CliRunner()


def test_budget_json_paper_values():
    result = runner.invoke(app, ["budget", "--epsilon", "10", "--delta", "1e-3", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    for key in ("rho_total", "epsilon", "delta", "epsilon_tight", "sigma_hist", "sigma_embed", "epsilon_theta", "clip", "mechanisms"):
        assert key in report
    assert report["rho_total"] == pytest.approx(2.2012, abs=1e-4)
    assert report["epsilon"] == pytest.approx(10.0, abs=1e-6) and report["epsilon"] <= 10.0
    assert report["epsilon_tight"] == pytest.approx(8.955, abs=0.01)
    assert report["sigma_hist"] == pytest.approx(7.071, abs=5e-4)
    assert report["sigma_embed"] == pytest.approx(7.454, abs=5e-4)
    assert report["clip"] == pytest.approx(0.1057, abs=5e-4)
    kinds = [m["mechanism"] for m in report["mechanisms"]]
    assert kinds == ["gaussian", "overlapping_parallel_composition"]
    assert report["mechanisms"][1]["multiplier"] == 5


def test_budget_table_and_options():
    result = runner.invoke(
        app, ["budget", "--epsilon", "10", "--delta", "1e-3", "--K", "5", "--L", "3", "--T", "32", "--conversion", "cks"]
    )
    assert result.exit_code == 0, result.output
    assert "Privacy report" in result.output and "epsilon (tight, CKS)" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--epsilon", "1", "--delta", "1e-3"], "keyword histogram"),
        (["--epsilon", "0", "--delta", "1e-3"], "epsilon"),
        (["--epsilon", "10", "--delta", "2"], "delta"),
        (["--epsilon", "10", "--delta", "1e-3", "--tau", "0"], "temperature"),
        (["--epsilon", "10", "--delta", "1e-3", "--T", "0"], "`T`"),
    ],
)
def test_budget_bad_input_exits_2_with_message(args, message):
    result = runner.invoke(app, ["budget", *args])
    assert result.exit_code == 2
    assert message in result.output
