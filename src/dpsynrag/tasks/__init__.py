"""Pluggable task definitions: what data to protect, which queries to ask, how to score the answers.

Built-in tasks: ``"medical"`` (:class:`MedicalTask`, Medical Synth), ``"movielens"``
(:class:`MovieLensTask`, GroupLens ml-latest-small), ``"searchqa"`` (:class:`SearchQATask`, SearchQA
from a folder the user downloads) and ``"own"`` (:class:`OwnDataTask`: your own document and question files). Add your own by subclassing :class:`Task` and calling
:func:`register_task`, or pass ``"package.module:MyTask"`` wherever a task name is accepted.
"""

from dpsynrag.tasks.base import (
    Query,
    Task,
    available_tasks,
    find_shared_dir,
    get_task,
    read_query_file,
    register_task,
    resolve_data_dir,
    support_bucket_label,
)
from dpsynrag.tasks.medical import MedicalTask
from dpsynrag.tasks.movielens import MovieLensConfig, MovieLensTask
from dpsynrag.tasks.owndata import OwnDataTask
from dpsynrag.tasks.searchqa import SearchQAConfig, SearchQATask

register_task(MedicalTask())
register_task(MovieLensTask())
register_task(SearchQATask())
register_task(OwnDataTask())

__all__ = [
    "MedicalTask",
    "MovieLensConfig",
    "MovieLensTask",
    "OwnDataTask",
    "Query",
    "SearchQAConfig",
    "SearchQATask",
    "Task",
    "available_tasks",
    "find_shared_dir",
    "get_task",
    "read_query_file",
    "register_task",
    "resolve_data_dir",
    "support_bucket_label",
]
