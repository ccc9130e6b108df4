"""The MovieLens recommendation task (EVALUATION.md § MovieLens; adaptation of DP-SynRAG's MovieLens-1M task
to GroupLens ml-latest-small).

Construction (all deterministic; parameters in :class:`MovieLensConfig`):

1. **Candidate films**: the ``n_candidates`` (30) films with the most ratings (ties: smaller movieId first),
   among films released in or before ``max_year`` (default 2000, i.e. 20th-century films, because the
   question asks for 20th-century films; ``max_year=None`` ranks all films).
2. **Users kept**: users with at least ``min_candidate_ratings`` (5) ratings among the candidates.
3. **Favourites** of a user: their ``n_favourites`` (10) highest-rated candidates; ties broken by the
   earlier rating timestamp, then the smaller movieId. Every rated candidate counts (no rating floor), so
   a user with 5–10 candidate ratings has all of them as favourites.
4. **Taste sentence** (no film titles): from the films the user rated ``>= high_rating`` (4.0; when none,
   the films with the user's top rating): the ``n_genres`` most frequent genres and the user's own
   ``n_tags`` most used tags on those films (tags that name a candidate film are dropped), e.g.
   ``enjoys drama, crime and thriller films, especially ones tagged "mafia" and "twist ending".``
5. **Pseudonym**: an invented full name built from syllables, seeded by the user id only
   (:func:`pseudonym_for`), never real data.
6. **Document** (one private document per user):
   ``"{pseudonym} {taste} In particular, they like {film_1}, {film_2}, …, {film_k}."`` with titles in
   display form ("The Godfather (1972)"; MovieLens stores "Godfather, The (1972)").
7. **Split**: users ordered by SHA-256(f"{seed}:{user_id}") and cut into database / validation / test
   (fractions 0.8 / 0.1 / 0.1; validation and test sizes rounded down).
8. **Query**: ``"This user {taste} What movie is recommended for this user? Answer with movies released in
   the 20th century."``; gold answers = the favourites. **Correct** when the answer names any favourite
   (:func:`names_any_title`: leading article moved to the front or dropped, year optional, alternative
   titles in parentheses accepted, case-insensitive, accents/punctuation tolerant).

Data folder: ``data_dir`` argument, else env ``DPSYNRAG_MOVIELENS_DIR``, else
``shared/data/movielens/ml-latest-small`` found above the current directory or the package.
License of the data: GroupLens terms (research use, citation; see the data folder's README.txt).
"""

from __future__ import annotations

import csv
import functools
import hashlib
import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dpsynrag.data.io import DataFileNotFoundError, Document
from dpsynrag.data.jsonl import write_jsonl_atomic
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.tasks.base import Query, Task, read_query_file
from dpsynrag.tasks.movielens_text import (
    display_title,
    match_text,
    names_any_title,
    parse_title,
    pseudonym_for,
    taste_sentence,
    title_keys,
)

__all__ = [
    "MOVIELENS_ENV_VAR",
    "MOVIELENS_FILTER_PROMPT",
    "MovieLensConfig",
    "MovieLensData",
    "MovieLensTask",
    "MovieLensUser",
    "QUERY_TEMPLATE",
    "build_movielens",
    "user_document",
    "user_query",
    "write_movielens_files",
]

MOVIELENS_ENV_VAR = "DPSYNRAG_MOVIELENS_DIR"
MOVIELENS_FILTER_PROMPT = (
    "Does the following document contain specific movie titles released in the 20th century? "
    "Answer only YES or NO.\nDocument: {document}\nAnswer:"
)
"""Self-filter prompt of the MovieLens task, ``{document}`` replaced by the synthetic text."""

QUERY_TEMPLATE = (
    "This user {taste} What movie is recommended for this user? "
    "Answer with movies released in the 20th century."
)
"""Query template; ``{taste}`` is the user's taste sentence (it ends with a period)."""

_SPLITS = ("database", "validation", "test")

_IGNORED_GENRES = frozenset({"(no genres listed)", "IMAX"})


# ---------------------------------------------------------------------- builder


@dataclass(frozen=True)
class MovieLensConfig:
    """Parameters of the MovieLens task construction (public; defaults = EVALUATION.md).

    Attributes:
        n_candidates: number of most-rated films that can be favourites (30).
        n_favourites: favourites per user (10).
        min_candidate_ratings: users need at least this many candidate ratings (5).
        high_rating: rating (stars, 0.5–5) from which a film counts as rated highly for the taste (4.0).
        max_year: only films released in or before this year are candidates (2000 = 20th century);
            None for no restriction.
        n_genres: genres in the taste sentence (3).
        n_tags: tags in the taste sentence (3).
        split_fractions: (database, validation, test) fractions of the kept users, summing to 1.
        seed: split seed (a string; users ordered by SHA-256(f"{seed}:{user_id}")).
    """

    n_candidates: int = 30
    n_favourites: int = 10
    min_candidate_ratings: int = 5
    high_rating: float = 4.0
    max_year: int | None = 2000
    n_genres: int = 3
    n_tags: int = 3
    split_fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)
    seed: str = "dpsynrag/movielens/split/v1"

    def __post_init__(self) -> None:
        for name in ("n_candidates", "n_favourites", "min_candidate_ratings"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"`{name}` must be a positive integer. Found {value!r}.")
        for name in ("n_genres", "n_tags"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"`{name}` must be a non-negative integer. Found {value!r}.")
        fractions = tuple(self.split_fractions)
        if len(fractions) != 3 or any(f < 0 for f in fractions) or not math.isclose(sum(fractions), 1.0):
            raise ConfigError(
                f"`split_fractions` must be three non-negative numbers summing to 1. Found {self.split_fractions!r}."
            )
        object.__setattr__(self, "split_fractions", fractions)


@dataclass(frozen=True)
class MovieLensUser:
    """One kept user.

    Attributes:
        user_id: MovieLens userId.
        pseudonym: invented full name (:func:`pseudonym_for`).
        split: ``"database"``, ``"validation"`` or ``"test"``.
        taste: taste sentence (:func:`taste_sentence`).
        favourite_ids: movieIds of the favourites, best first.
        favourites: display titles of the favourites, same order.
    """

    user_id: int
    pseudonym: str
    split: str
    taste: str
    favourite_ids: tuple[int, ...]
    favourites: tuple[str, ...]


def user_document(user: MovieLensUser) -> str:
    """``"{pseudonym} {taste} In particular, they like {film_1}, {film_2}, …."`` (the private document)."""
    return f"{user.pseudonym} {user.taste} In particular, they like {', '.join(user.favourites)}."


def user_query(user: MovieLensUser) -> str:
    """The question of :data:`QUERY_TEMPLATE` for ``user``."""
    return QUERY_TEMPLATE.format(taste=user.taste)


@dataclass(frozen=True)
class MovieLensData:
    """The built task: candidates and kept users (sorted by user id) with their split."""

    config: MovieLensConfig
    candidate_ids: tuple[int, ...]
    candidate_titles: tuple[str, ...]
    users: tuple[MovieLensUser, ...]
    source: str = ""
    _by_split: dict[str, tuple[MovieLensUser, ...]] = field(default_factory=dict, repr=False, compare=False)

    def split(self, name: str) -> tuple[MovieLensUser, ...]:
        """Users of split ``name`` sorted by user id. Raises ConfigError for an unknown split."""
        if name not in _SPLITS:
            raise ConfigError(f"`split` must be one of {', '.join(_SPLITS)}, found {name!r}.")
        if name not in self._by_split:
            self._by_split[name] = tuple(u for u in self.users if u.split == name)
        return self._by_split[name]

    def sizes(self) -> dict[str, int]:
        """Number of users per split, plus ``"users"`` in total and ``"candidates"``."""
        sizes = {name: len(self.split(name)) for name in _SPLITS}
        sizes["users"] = len(self.users)
        sizes["candidates"] = len(self.candidate_ids)
        return sizes


def _read_csv(folder: Path, name: str, columns: Sequence[str]) -> list[dict[str, str]]:
    file = folder / name
    if not file.is_file():
        raise DataFileNotFoundError(
            f"movielens: {name} not found in {str(folder)!r}. Hint: the folder must be GroupLens "
            f"ml-latest-small (movies.csv, ratings.csv, tags.csv); set data_dir=... or {MOVIELENS_ENV_VAR}."
        )
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{name}: invalid UTF-8 at byte {exc.start}.") from None
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in columns if c not in (reader.fieldnames or [])]
    if missing:
        raise DataError(
            f"{name}: missing column(s) {', '.join(missing)}; available: {', '.join(reader.fieldnames or [])}."
        )
    return list(reader)


def _number(row: dict[str, str], column: str, kind: type, name: str, line: int) -> int | float:
    try:
        return kind(row[column])
    except (TypeError, ValueError):
        raise DataError(f"{name}, line {line}: column {column!r} must be {kind.__name__} "
                        "(its value is not quoted: the file is private).") from None


def build_movielens(data_dir: str | os.PathLike[str], config: MovieLensConfig = MovieLensConfig()) -> MovieLensData:
    """Build candidates, users, favourites, taste sentences, pseudonyms and the split (module docstring).

    Args:
        data_dir: folder with ``movies.csv`` (movieId,title,genres), ``ratings.csv``
            (userId,movieId,rating,timestamp) and ``tags.csv`` (userId,movieId,tag,timestamp).
        config: construction parameters.

    Returns:
        The built data; cached per folder, config and file modification times.

    Raises:
        DataFileNotFoundError: a file is missing. DataError: malformed CSV or no user kept.
    """
    folder = Path(data_dir).resolve()
    stamps = tuple(
        (name, (folder / name).stat().st_mtime_ns if (folder / name).exists() else None)
        for name in ("movies.csv", "ratings.csv", "tags.csv")
    )
    return _build_cached(str(folder), config, stamps)


@functools.lru_cache(maxsize=8)
def _build_cached(folder_name: str, config: MovieLensConfig, _stamps: tuple) -> MovieLensData:
    folder = Path(folder_name)
    movie_rows = _read_csv(folder, "movies.csv", ("movieId", "title", "genres"))
    rating_rows = _read_csv(folder, "ratings.csv", ("userId", "movieId", "rating", "timestamp"))
    tag_rows = _read_csv(folder, "tags.csv", ("userId", "movieId", "tag", "timestamp"))

    titles: dict[int, str] = {}
    genres: dict[int, tuple[str, ...]] = {}
    for line, row in enumerate(movie_rows, start=2):
        movie = int(_number(row, "movieId", int, "movies.csv", line))
        titles[movie] = row["title"]
        genres[movie] = tuple(g for g in (row["genres"] or "").split("|") if g and g not in _IGNORED_GENRES)

    ratings: dict[int, list[tuple[int, float, int]]] = defaultdict(list)  # user -> (movie, rating, ts)
    counts: Counter[int] = Counter()
    for line, row in enumerate(rating_rows, start=2):
        user = int(_number(row, "userId", int, "ratings.csv", line))
        movie = int(_number(row, "movieId", int, "ratings.csv", line))
        rating = float(_number(row, "rating", float, "ratings.csv", line))
        stamp = int(_number(row, "timestamp", int, "ratings.csv", line))
        if movie not in titles:
            raise DataError(f"ratings.csv, line {line}: movieId {movie} is not in movies.csv.")
        ratings[user].append((movie, rating, stamp))
        counts[movie] += 1

    user_tags: dict[int, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for line, row in enumerate(tag_rows, start=2):
        user = int(_number(row, "userId", int, "tags.csv", line))
        movie = int(_number(row, "movieId", int, "tags.csv", line))
        user_tags[user][movie].append(row["tag"] or "")

    eligible = [m for m in counts if config.max_year is None
                or (parse_title(titles[m]).year is not None and parse_title(titles[m]).year <= config.max_year)]
    eligible.sort(key=lambda m: (-counts[m], m))
    candidate_ids = tuple(eligible[: config.n_candidates])
    candidate_set = set(candidate_ids)
    candidate_titles = tuple(display_title(titles[m]) for m in candidate_ids)
    candidate_keys = [k for t in candidate_titles for k in title_keys(t)]

    kept: list[tuple[int, str, tuple[int, ...]]] = []
    for user in sorted(ratings):
        rated = [r for r in ratings[user] if r[0] in candidate_set]
        if len(rated) < config.min_candidate_ratings:
            continue
        rated.sort(key=lambda r: (-r[1], r[2], r[0]))
        favourites = tuple(r[0] for r in rated[: config.n_favourites])
        kept.append((user, _user_taste(ratings[user], user_tags.get(user, {}), genres, candidate_keys, config),
                     favourites))
    if not kept:
        raise DataError(
            f"movielens: no user has {config.min_candidate_ratings} or more ratings among the "
            f"{len(candidate_ids)} candidate films in {folder_name!r}."
        )

    split_of = _split_users([u for u, _, _ in kept], config)
    used: set[str] = set()
    users: list[MovieLensUser] = []
    for user, taste, favourites in kept:
        attempt = 0
        name = pseudonym_for(user)
        while name in used:
            attempt += 1
            name = pseudonym_for(user, attempt)
        used.add(name)
        users.append(MovieLensUser(
            user_id=user, pseudonym=name, split=split_of[user], taste=taste, favourite_ids=favourites,
            favourites=tuple(display_title(titles[m]) for m in favourites),
        ))
    return MovieLensData(config=config, candidate_ids=candidate_ids, candidate_titles=candidate_titles,
                         users=tuple(users), source=folder_name)


def _user_taste(
    user_ratings: list[tuple[int, float, int]],
    tags_by_movie: dict[int, list[str]],
    genres: dict[int, tuple[str, ...]],
    candidate_keys: Sequence[str],
    config: MovieLensConfig,
) -> str:
    high = [m for m, rating, _ in user_ratings if rating >= config.high_rating]
    if not high:
        top = max(rating for _, rating, _ in user_ratings)
        high = [m for m, rating, _ in user_ratings if rating == top]
    genre_counts = Counter(g for m in high for g in genres.get(m, ()))
    top_genres = [g for g, _ in sorted(genre_counts.items(), key=lambda kv: (-kv[1], kv[0]))][: config.n_genres]
    tag_counts: Counter[str] = Counter()
    for movie in set(high):
        for tag in {_clean_tag(t) for t in tags_by_movie.get(movie, ())}:
            if tag and not _tag_names_candidate(tag, candidate_keys):
                tag_counts[tag] += 1
    top_tags = [t for t, _ in sorted(tag_counts.items(), key=lambda kv: (-kv[1], kv[0]))][: config.n_tags]
    return taste_sentence(top_genres, top_tags)


def _clean_tag(tag: str) -> str:
    tag = " ".join(tag.replace('"', " ").split()).lower()
    if not tag or len(tag) > 40 or not re.search(r"[^\W\d_]", tag):
        return ""
    return tag


def _tag_names_candidate(tag: str, candidate_keys: Sequence[str]) -> bool:
    """A tag is dropped when it names a candidate film or is a multi-word piece of one's title."""
    key = match_text(tag)
    padded_tag = f" {key} "
    for candidate in candidate_keys:
        if f" {candidate} " in padded_tag:
            return True
        if f" {key} " in f" {candidate} " and (" " in key or key == candidate):
            return True
    return False


def _split_users(user_ids: Sequence[int], config: MovieLensConfig) -> dict[int, str]:
    order = sorted(user_ids, key=lambda u: hashlib.sha256(f"{config.seed}:{u}".encode()).hexdigest())
    n = len(order)
    _, f_val, f_test = config.split_fractions
    n_val, n_test = math.floor(n * f_val), math.floor(n * f_test)
    n_db = n - n_val - n_test
    split: dict[int, str] = {}
    for rank, user in enumerate(order):
        split[user] = "database" if rank < n_db else "validation" if rank < n_db + n_val else "test"
    return split


def write_movielens_files(
    out_dir: str | os.PathLike[str],
    data_dir: str | os.PathLike[str],
    config: MovieLensConfig = MovieLensConfig(),
) -> dict[str, int]:
    """Write the built task as JSON lines (for inspection or ``--queries PATH``), atomically:
    ``database.jsonl`` (id, text, user_id, pseudonym, favourites) and ``validation.jsonl`` /
    ``test.jsonl`` (id, question, answers, user_id, pseudonym). Returns :meth:`MovieLensData.sizes`.
    Never write these into the repository: they are private data."""
    data = build_movielens(data_dir, config)
    out = Path(out_dir)
    write_jsonl_atomic(out / "database.jsonl", (
        {"id": str(u.user_id), "text": user_document(u), "user_id": u.user_id, "pseudonym": u.pseudonym,
         "favourites": list(u.favourites)} for u in data.split("database")))
    for split in ("validation", "test"):
        write_jsonl_atomic(out / f"{split}.jsonl", (
            {"id": str(u.user_id), "question": user_query(u), "answers": list(u.favourites),
             "user_id": u.user_id, "pseudonym": u.pseudonym} for u in data.split(split)))
    return data.sizes()


# ---------------------------------------------------------------------- task


class MovieLensTask(Task):
    """MovieLens recommendation: describe a user's tastes, ask for a 20th-century film they like.

    Args:
        data_dir: the ml-latest-small folder (default: env ``DPSYNRAG_MOVIELENS_DIR`` or
            ``shared/data/movielens/ml-latest-small``).
        config: construction parameters (:class:`MovieLensConfig`).
    """

    name = "movielens"
    description = (
        "MovieLens: one document per user describing the genres and tags of the films they rate highly "
        "and naming their favourite popular films. A question describes a user's tastes and asks for a "
        "20th-century film to recommend."
    )
    filter_prompt = MOVIELENS_FILTER_PROMPT
    answer_system_prompt = (
        "You are a movie recommender. Use the documents provided, which describe users with their tastes "
        "and favourite films, to recommend films to the user described in the question. Answer with "
        "titles of movies released in the 20th century."
    )
    rag_top_k = 15
    data_env_var = MOVIELENS_ENV_VAR
    shared_subdir = "data/movielens/ml-latest-small"
    identifier_fields = ("pseudonym",)
    # no response_template: the document format as slot template, "[REDACTED] enjoys {16}. In particular, they
    # like {}", raised context recall (77.0% -> 80.7%) but lowered accuracy (54.1% -> 44.4%) at --preset cpu
    # over 3 seeds (benchmarks/results/bench_utility_slots.md)

    def __init__(self, data_dir: str | os.PathLike[str] | None = None, *,
                 config: MovieLensConfig | None = None) -> None:
        super().__init__(data_dir)
        self.config = config if config is not None else MovieLensConfig()

    def build(self, data_dir: str | os.PathLike[str] | None = None) -> MovieLensData:
        """The built task for the data folder (cached). Raises DataError when no folder is found."""
        return build_movielens(self.data_dir(data_dir), self.config)

    def load_database(self, data_dir: str | os.PathLike[str] | None = None, *,
                      limit: int | None = None) -> list[Document]:
        """One document per database user (id = userId as a string, identifiers = its pseudonym, the
        task's :attr:`identifier_fields`), sorted by user id; ``limit`` keeps the first ``limit`` of them
        (smallest user ids)."""
        _check_limit(limit)
        users = self.build(data_dir).split("database")[:limit]
        return [Document(id=str(u.user_id), text=user_document(u), identifiers=(u.pseudonym,)) for u in users]

    def load_queries(self, path: str | os.PathLike[str] | None = None, *, limit: int | None = None,
                     split: str = "validation") -> list[Query]:
        """Queries with the favourites as gold answers.

        Args:
            path: a JSON-lines file with fields ``question`` and ``answers`` (list of titles, or one
                string), optional ``id``, ``user_id``, ``pseudonym`` (as written by
                :func:`write_movielens_files`); None builds the queries of ``split`` from the data folder.
            limit: the first ``limit`` queries (smallest user ids), ``None`` for all.
            split: ``"validation"`` or ``"test"`` (``"database"`` is allowed, for RAG sanity checks).
        """
        _check_limit(limit)
        if path is not None:
            return read_query_file(path, answer_field="answers", limit=limit,
                                   meta_fields=("user_id", "pseudonym"))
        users = self.build().split(split)[:limit]
        return [
            Query(id=str(u.user_id), question=user_query(u), answers=u.favourites,
                  meta={"user_id": u.user_id, "pseudonym": u.pseudonym, "favourite_ids": u.favourite_ids,
                        "taste": u.taste, "split": u.split})
            for u in users
        ]

    def is_correct(self, answer: str, query: Query, *, case_sensitive: bool = False) -> bool:
        """True when ``answer`` names any of the user's favourites (:func:`names_any_title`)."""
        return names_any_title(answer, query.answers, case_sensitive=case_sensitive)

    def private_names(self, data_dir: str | os.PathLike[str] | None = None, *,
                      limit: int | None = None) -> list[str]:
        """Sorted pseudonyms of the database users (the first ``limit`` by user id when given)."""
        _check_limit(limit)
        return sorted(u.pseudonym for u in self.build(data_dir).split("database")[:limit])


def _check_limit(limit: int | None) -> None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ConfigError(f"`limit` must be a positive integer or None. Found {limit!r}.")
