"""Per-group sums in a fixed order (issue 44): the member-score sums of private prediction
(:mod:`dpsynrag.models.private_selectors`, :mod:`dpsynrag.models.svt_selector`) without ``index_add_``, whose
CUDA kernel adds the rows of one group with atomics in whatever order the threads arrive, so the float32
rounding of a cluster's sum could change from run to run and with the other clusters in the batch.

:func:`ordered_group_sum_` adds a group's rows one at a time, in the order they appear, whatever other
groups share the tensor: step j adds to every group its j-th row (an element-wise addition over distinct
groups, no two writes to one place). A group's sum is then ``(((out + r_0) + r_1) + ...)`` bit for bit on
every device — the order CPU ``index_add_`` used, so CPU results are unchanged.
"""

from __future__ import annotations

import torch

__all__ = ["group_ranks", "ordered_group_sum_"]


def group_ranks(groups: torch.Tensor) -> torch.Tensor:
    """Each entry's rank among the earlier entries of its group: ``rank[i] = #{j < i : groups[j] == groups[i]}``.

    Args:
        groups: LongTensor ``[n]`` (any device; computed on CPU, where it is cheap: n is a number of rows).

    Returns:
        LongTensor ``[n]`` on the CPU.
    """
    g = groups.detach().to("cpu", torch.long).reshape(-1)
    n = g.numel()
    if n == 0:
        return torch.zeros(0, dtype=torch.long)
    order = torch.argsort(g, stable=True)
    ordered = g.index_select(0, order)
    position = torch.arange(n)
    start = torch.ones(n, dtype=torch.bool)
    start[1:] = ordered[1:] != ordered[:-1]
    first = torch.cummax(torch.where(start, position, torch.zeros_like(position)), 0).values
    rank = torch.empty(n, dtype=torch.long)
    rank[order] = position - first
    return rank


def ordered_group_sum_(out: torch.Tensor, groups: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """``out[groups[i]] += values[i]`` for every i, in place, each group's rows added one at a time in
    their order in ``values`` — a fixed order, so the result is bitwise the same on any device and whatever
    other groups' rows are interleaved (no atomics; a deterministic replacement of ``out.index_add_(0,
    groups, values)``, equal to it on CPU).

    Args:
        out: ``[n_groups, ...]`` (float or integer), updated in place.
        groups: LongTensor ``[n]`` of indices into ``out``'s first dimension.
        values: ``[n, ...]`` rows with ``out``'s trailing shape and dtype, on ``out``'s device.

    Returns:
        ``out``. Cost: (largest number of rows of one group) element-wise additions of at most
        ``n_groups`` rows.

    Raises:
        ValueError: ``groups`` and ``values`` differ in length.
    """
    if groups.numel() != values.shape[0]:
        raise ValueError(f"`groups` ({groups.numel()}) and `values` ({values.shape[0]} rows) differ in length.")
    if not groups.numel():
        return out
    rank = group_ranks(groups)
    groups = groups.to(out.device)
    for j in range(int(rank.max()) + 1):
        sel = torch.nonzero(rank == j).flatten().to(out.device)  # at most one row per group
        g = groups.index_select(0, sel)
        out.index_copy_(0, g, out.index_select(0, g) + values.index_select(0, sel))
    return out
