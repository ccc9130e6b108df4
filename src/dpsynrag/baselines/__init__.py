"""The baselines of DP-SynRAG's comparison (METHOD.md §5; DP-SynRAG §6.1), on the same language model,
embedder, privacy accountant and RAG as DP-SynRAG itself.

* :class:`DPRAGSession` / :class:`DPRAGConfig` — DP-RAG (Grislain 2024): a DP retrieval threshold and
  private prediction at query time, paid per query (basic and zCDP composition).
* :func:`build_dp_synth` / :class:`DPSynthConfig` — DP-Synth (Amin et al. 2024): private prediction
  over random disjoint batches, one synthetic text per batch (parallel composition).
* :func:`build_aug_pe` / :class:`AugPEConfig` — Aug-PE (Xie et al. 2024): private evolution with a DP
  nearest-neighbour vote histogram per iteration.

The two corpus builders write the same corpus folders as :func:`dpsynrag.pipeline.build.build_corpus`
(``dpsynrag query`` / ``dpsynrag report`` work on them).
"""

from dpsynrag.baselines.aug_pe import AugPECalibration, AugPEConfig, build_aug_pe
from dpsynrag.baselines.dp_rag import DPRAGSession
from dpsynrag.baselines.dp_rag_config import DPRAGCalibration, DPRAGConfig
from dpsynrag.baselines.dp_rag_threshold import top_k_utility, top_p_threshold, top_p_utility
from dpsynrag.baselines.dp_synth import (
    DPSynthCalibration,
    DPSynthConfig,
    build_dp_synth,
)

__all__ = [
    "AugPECalibration",
    "AugPEConfig",
    "DPRAGCalibration",
    "DPRAGConfig",
    "DPRAGSession",
    "DPSynthCalibration",
    "DPSynthConfig",
    "build_aug_pe",
    "build_dp_synth",
    "top_k_utility",
    "top_p_threshold",
    "top_p_utility",
]
