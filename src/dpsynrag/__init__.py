"""dpsynrag: differentially private synthetic corpora for retrieval-augmented generation (DP-SynRAG).

The privacy budget is paid once, when the corpus is built; every later query is post-processing.
"""

__version__ = "0.1.0"
