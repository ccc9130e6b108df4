"""Issue 44, item 4: member-score sums in a fixed order (no index_add_ atomics). A group's float32 sum is
bitwise the same whatever other groups' rows share the batch and wherever the chunks are cut, on the very
function CUDA runs (ordered_group_sum_ has no device branch), and equal to CPU index_add_ (so seeded CPU
builds are unchanged)."""

from __future__ import annotations

import torch

from dpsynrag.models.private_selectors import PaperSelector
from dpsynrag.models.reduction import group_ranks, ordered_group_sum_
from dpsynrag.rng import make_random


def _rows(n, vocab=257, seed=0):
    g = torch.Generator().manual_seed(seed)
    # magnitudes over six decades: float32 sums then depend on the order of the additions
    return (torch.randn(n, vocab, generator=g) * 10.0 ** torch.randint(-3, 3, (n, 1), generator=g)).float()


def test_group_ranks_count_the_earlier_rows_of_the_same_group():
    assert group_ranks(torch.tensor([2, 0, 2, 2, 1, 0])).tolist() == [0, 0, 1, 2, 0, 1]
    assert group_ranks(torch.tensor([], dtype=torch.long)).tolist() == []


def test_a_groups_sum_is_bitwise_independent_of_the_batch_and_chunks():
    mine = _rows(9, seed=1)  # the rows of the group under test, in their order
    alone = ordered_group_sum_(torch.zeros(1, mine.shape[1]), torch.zeros(9, dtype=torch.long), mine)[0]
    others = _rows(40, seed=2)
    # the group's rows interleaved with 40 rows of 6 other groups, its index 3 of 7, summed in chunks of 5 rows
    slots = torch.randperm(49, generator=torch.Generator().manual_seed(3))[:9].sort().values
    values, groups = torch.empty(49, mine.shape[1]), torch.empty(49, dtype=torch.long)
    rest = [i for i in range(49) if i not in set(slots.tolist())]
    values[slots], groups[slots] = mine, 3
    values[rest], groups[rest] = others, torch.tensor([0, 1, 2, 4, 5, 6] * 7)[:40]
    z = torch.zeros(7, mine.shape[1])
    for i in range(0, 49, 5):
        ordered_group_sum_(z, groups[i:i + 5], values[i:i + 5])
    assert torch.equal(z[3], alone)
    # CPU index_add_ adds in the same order: the same bits (seeded CPU builds unchanged)
    assert torch.equal(z, torch.zeros(7, mine.shape[1]).index_add_(0, groups, values))
    # the test can fail: another order of the same rows rounds differently
    reverse = ordered_group_sum_(torch.zeros(1, mine.shape[1]), torch.zeros(9, dtype=torch.long), mine.flip(0))[0]
    assert not torch.equal(reverse, alone)
    torch.testing.assert_close(alone.double(), mine.double().sum(0), rtol=0, atol=9 * 2**-23 * mine.abs().sum(0).max())


def test_integer_sums_are_exact():
    q = ordered_group_sum_(torch.zeros(3, dtype=torch.long), torch.tensor([2, 0, 2]), torch.tensor([5, -1, 7]))
    assert q.tolist() == [-1, 0, 12]


class _Layout:
    """A RowLayout stand-in: rows' groups, no public row, no weights."""

    def __init__(self, group):
        self.group = torch.tensor(group)
        self.n_groups = int(self.group.max()) + 1
        self.public = torch.zeros(len(group), dtype=torch.bool)
        self.weight = None

    def public_rows(self):
        return torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.long)


def test_paper_selector_scores_of_a_cluster_do_not_depend_on_the_other_clusters():
    vocab = 300
    sel = PaperSelector(vocab, clip=0.5, temperature=1.0, random=make_random(0))
    mine = _rows(70, vocab, seed=4) * 3  # 70 rows: more than one clip chunk (64 rows)
    alone = sel.scores(mine, _Layout([0] * 70))[0]
    others = _rows(50, vocab, seed=5) * 3
    mixed = torch.cat([others[:20], mine[:30], others[20:], mine[30:]])
    group = [1] * 20 + [0] * 30 + [2] * 30 + [0] * 40
    assert torch.equal(sel.scores(mixed, _Layout(group))[0], alone)
