"""The torch thread count (issue 16, item 3): chosen from the cores free to the process, overridable."""

from __future__ import annotations

import pytest

from dpsynrag.errors import ConfigError
from dpsynrag.threads import ENV_VAR, busy_cores, choose_threads, passive_wait


def test_free_cores_are_the_affinity_minus_the_busy_ones():
    assert choose_threads(2) == 2
    assert choose_threads(2, busy=1) == 1  # the case: another process busy on one of 2 cores
    assert choose_threads(16, busy=3) == 13
    assert choose_threads(2, busy=5) == 1  # never below one thread
    assert choose_threads(4, busy=-2) == 4  # a negative count is read as none busy


def test_threads_flag_beats_the_environment_which_beats_the_cores():
    env = {ENV_VAR: "3", "OMP_NUM_THREADS": "5"}
    assert choose_threads(2, busy=1, env=env, override=7) == 7
    assert choose_threads(2, busy=1, env=env) == 3
    assert choose_threads(2, busy=1, env={"OMP_NUM_THREADS": "5"}) == 5
    assert choose_threads(8, busy=1, env={ENV_VAR: " ", "OMP_NUM_THREADS": ""}) == 7  # blank: not set


@pytest.mark.parametrize("bad", [0, -1, "two", True])
def test_bad_thread_counts_name_their_source(bad):
    with pytest.raises(ConfigError, match="--threads"):
        choose_threads(2, override=bad)
    with pytest.raises(ConfigError, match=ENV_VAR):
        choose_threads(2, env={ENV_VAR: str(bad)})


def test_busy_cores_is_a_non_negative_count_of_at_most_the_runnable_entities():
    busy = busy_cores(samples=2, interval_s=0.0)
    with open("/proc/loadavg", encoding="ascii") as f:
        total = int(f.read().split()[3].split("/")[1])
    assert 0 <= busy < total


def test_passive_wait_sets_the_policy_only_when_unset():
    env: dict[str, str] = {}
    passive_wait(env)
    assert env == {"OMP_WAIT_POLICY": "PASSIVE"}
    env = {"OMP_WAIT_POLICY": "ACTIVE"}
    passive_wait(env)
    assert env == {"OMP_WAIT_POLICY": "ACTIVE"}
