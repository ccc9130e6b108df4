"""Tests of the MovieLens task (issue #7): title normalisation and matching, the document/query builders,
favourites, split and pseudonyms on a hand-made data set, and the real ml-latest-small folder."""

from __future__ import annotations

import pytest

from dpsynrag.errors import ConfigError, DataError
from dpsynrag.data.io import DataFileNotFoundError
from dpsynrag.tasks import MovieLensConfig, MovieLensTask, find_shared_dir, get_task
from dpsynrag.tasks.movielens import (
    MOVIELENS_FILTER_PROMPT,
    build_movielens,
    user_document,
    user_query,
    write_movielens_files,
)
from dpsynrag.tasks.movielens_text import (
    display_title,
    names_any_title,
    names_title,
    parse_title,
    pseudonym_for,
    taste_sentence,
    title_keys,
)

# ---------------------------------------------------------------------- titles


@pytest.mark.parametrize("raw, shown", [
    ("Godfather, The (1972)", "The Godfather (1972)"),
    ("Matrix, The (1999)", "The Matrix (1999)"),
    ("Toy Story (1995)", "Toy Story (1995)"),
    ("Seven (a.k.a. Se7en) (1995)", "Seven (a.k.a. Se7en) (1995)"),
    ("City of Lost Children, The (Cité des enfants perdus, La) (1995)",
     "The City of Lost Children (La Cité des enfants perdus) (1995)"),
    ("Misérables, Les (1995)", "Les Misérables (1995)"),
    ("Beautiful Mind, A (2001)", "A Beautiful Mind (2001)"),
    ("Babylon 5", "Babylon 5"),
    ("Star Wars: Episode IV - A New Hope (1977)", "Star Wars: Episode IV - A New Hope (1977)"),
])
def test_display_title(raw, shown):
    assert display_title(raw) == shown
    assert display_title(shown) == shown  # idempotent


def test_parse_title_parts():
    parsed = parse_title("Léon: The Professional (a.k.a. The Professional) (Léon) (1994)")
    assert parsed.main == "Léon: The Professional"
    assert parsed.alternatives == ("The Professional", "Léon") and parsed.aka == (True, False)
    assert parsed.year == 1994
    assert parse_title("Godfather, The").year is None


@pytest.mark.parametrize("answer, title", [
    ("I recommend the godfather.", "Godfather, The (1972)"),
    ("the godfather", "Godfather, The (1972)"),
    ("Godfather", "Godfather, The (1972)"),
    ("The Godfather (1972) is a classic", "Godfather, The (1972)"),
    ("The Matrix (1999)", "Matrix, The"),
    ("Watch THE MATRIX!", "The Matrix (1999)"),
    ("Schindlers List", "Schindler's List (1993)"),
    ("Schindler’s List (1993)", "Schindler's List (1993)"),
    ("Se7en", "Seven (a.k.a. Se7en) (1995)"),
    ("12 Monkeys", "Twelve Monkeys (a.k.a. 12 Monkeys) (1995)"),
    ("Star Wars: Episode IV – A New Hope", "Star Wars: Episode IV - A New Hope (1977)"),
    ("les miserables", "Misérables, Les (1995)"),
    ("Dumb and Dumber", "Dumb & Dumber (Dumb and Dumber) (1994)"),
    ("Dumb & Dumber", "Dumb & Dumber (Dumb and Dumber) (1994)"),
    ("Spiderman", "Spider-Man (2002)"),
    ("Terminator 2 - Judgment Day", "Terminator 2: Judgment Day (1991)"),
])
def test_answer_names_title(answer, title):
    assert names_title(answer, title)


@pytest.mark.parametrize("answer, title", [
    ("I like Fargonia", "Fargo (1996)"),
    ("Toy Soldiers", "Toy Story (1995)"),
    ("Star Wars: Episode V", "Star Wars: Episode IV - A New Hope (1977)"),
    ("The Matrix Revolutions", "Godfather, The (1972)"),
    ("", "Fargo (1996)"),
])
def test_answer_does_not_name_title(answer, title):
    assert not names_title(answer, title)


def test_case_sensitive_matching_and_known_limits():
    assert names_title("The Godfather", "Godfather, The (1972)", case_sensitive=True)
    assert not names_title("the godfather", "Godfather, The (1972)", case_sensitive=True)
    assert names_title("The Matrix Reloaded", "Matrix, The (1999)")  # documented limit: a sequel names its original
    assert title_keys("Godfather, The (1972)") == ("godfather",)
    assert title_keys("Up, The (2009)") == ("the up",)  # article kept: the rest is too short to stand alone
    assert names_any_title("Maybe Fargo?", ["Toy Story (1995)", "Fargo (1996)"])
    assert not names_any_title("Maybe Fargo?", [])


# ---------------------------------------------------------------------- builders on a hand-made set

MOVIES = """movieId,title,genres
1,"Godfather, The (1972)",Crime|Drama
2,"Matrix, The (1999)",Action|Sci-Fi|Thriller
3,Toy Story (1995),Adventure|Animation|Children|Comedy
4,"Lord of the Rings: The Fellowship of the Ring, The (2001)",Adventure|Fantasy
5,Obscure Film (1990),Drama|IMAX
6,Seven (a.k.a. Se7en) (1995),Mystery|Thriller
"""
# (user, movie, rating, timestamp). Rating counts: 4 -> 8, 1 -> 7, 2 -> 6, 3 -> 5, 6 -> 4, 5 -> 1.
RATINGS = [
    (1, 1, 5.0, 100), (1, 2, 5.0, 50), (1, 3, 3.0, 60), (1, 4, 5.0, 70), (1, 5, 4.5, 80),
    (2, 1, 4.0, 10), (2, 4, 4.0, 11),
    (3, 1, 3.0, 1), (3, 2, 4.0, 2), (3, 3, 4.0, 3), (3, 4, 2.0, 4), (3, 6, 5.0, 5),
    (4, 1, 2.0, 1), (4, 2, 2.5, 2), (4, 4, 1.0, 3),
    (5, 1, 4.0, 1), (5, 3, 4.0, 2), (5, 4, 4.0, 3), (5, 6, 4.0, 4),
    (6, 1, 4.0, 1), (6, 2, 4.0, 2), (6, 3, 4.0, 3), (6, 4, 4.0, 4), (6, 6, 4.0, 5),
    (7, 1, 4.0, 1), (7, 2, 4.0, 2), (7, 3, 1.0, 3), (7, 4, 4.0, 4), (7, 6, 3.0, 5),
    (8, 4, 5.0, 1), (8, 2, 3.0, 2),
]
TAGS = (
    "userId,movieId,tag,timestamp\n"
    "1,1,mafia,1\n"
    "1,1,Mafia ,2\n"
    "1,5,slow  burn,3\n"
    "1,2,the matrix,4\n"
    "1,3,pixar,5\n"
    '1,4,"Tolkien ""epic""",6\n'
)
CONFIG = MovieLensConfig(n_candidates=4, n_favourites=2, min_candidate_ratings=2,
                         split_fractions=(0.5, 0.25, 0.25))


@pytest.fixture
def tiny_dir(tmp_path):
    (tmp_path / "movies.csv").write_text(MOVIES, encoding="utf-8")
    lines = ["userId,movieId,rating,timestamp"] + [f"{u},{m},{r},{t}" for u, m, r, t in RATINGS]
    (tmp_path / "ratings.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "tags.csv").write_text(TAGS, encoding="utf-8")
    return tmp_path


def test_candidates_users_and_favourites(tiny_dir):
    data = build_movielens(tiny_dir, CONFIG)
    assert data.candidate_ids == (1, 2, 3, 6)  # film 4 (2001) is the most rated but not 20th century
    assert data.candidate_titles == ("The Godfather (1972)", "The Matrix (1999)", "Toy Story (1995)",
                                     "Seven (a.k.a. Se7en) (1995)")
    users = {u.user_id: u for u in data.users}
    assert sorted(users) == [1, 3, 4, 5, 6, 7]  # users 2 and 8 rated a single candidate
    assert users[1].favourite_ids == (2, 1)  # both 5 stars: the earlier rating first
    assert users[1].favourites == ("The Matrix (1999)", "The Godfather (1972)")
    assert users[3].favourite_ids == (6, 2)  # 5 stars, then the earlier of two 4-star ratings
    assert users[4].favourite_ids == (2, 1)  # low ratings still rank
    assert data.sizes() == {"database": 4, "validation": 1, "test": 1, "users": 6, "candidates": 4}
    unrestricted = build_movielens(tiny_dir, MovieLensConfig(n_candidates=4, n_favourites=2,
                                                             min_candidate_ratings=2, max_year=None))
    assert unrestricted.candidate_ids == (4, 1, 2, 3)
    assert len(unrestricted.users) == 8 and unrestricted.sizes()["database"] == 8  # 0.8/0.1/0.1 floors to 8/0/0


def test_taste_sentence_document_and_query(tiny_dir):
    users = {u.user_id: u for u in build_movielens(tiny_dir, CONFIG).users}
    # user 1 rated films 1, 2, 4, 5 >= 4: drama x2, then alphabetical ties; tags on those films, the one
    # naming a candidate ("the matrix") dropped, duplicates merged, quotes removed
    assert users[1].taste == ('enjoys drama, action and adventure films, especially ones tagged "mafia", '
                              '"slow burn" and "tolkien epic".')
    # user 4 rated nothing >= 4: the top-rated film (2.5 stars, The Matrix) defines the taste
    assert users[4].taste == "enjoys action, science fiction and thriller films."
    pseudonym = users[1].pseudonym
    assert user_document(users[1]) == (
        f'{pseudonym} enjoys drama, action and adventure films, especially ones tagged "mafia", "slow burn" '
        f'and "tolkien epic". In particular, they like The Matrix (1999), The Godfather (1972).')
    assert user_query(users[4]) == (
        "This user enjoys action, science fiction and thriller films. What movie is recommended for this "
        "user? Answer with movies released in the 20th century.")
    assert taste_sentence([], []) == "enjoys films of many kinds."


def test_pseudonyms_are_deterministic_unique_and_invented(tiny_dir):
    assert pseudonym_for(1) == pseudonym_for(1) != pseudonym_for(2)
    assert pseudonym_for(1) != pseudonym_for(1, attempt=1)
    first, last = pseudonym_for(42).split(" ")
    assert first.isalpha() and last.isalpha() and first[0].isupper() and last[0].isupper()
    users = build_movielens(tiny_dir, CONFIG).users
    assert len({u.pseudonym for u in users}) == len(users)
    assert all(u.pseudonym == pseudonym_for(u.user_id) for u in users)


def test_split_is_seeded(tiny_dir):
    def split_of(seed):
        config = MovieLensConfig(n_candidates=4, n_favourites=2, min_candidate_ratings=2,
                                 split_fractions=(0.5, 0.25, 0.25), seed=seed)
        return {u.user_id: u.split for u in build_movielens(tiny_dir, config).users}

    assert split_of("s1") == split_of("s1")
    assert any(split_of(s) != split_of("s1") for s in ("s2", "s3", "s4"))


def test_task_on_hand_made_data(tiny_dir, tmp_path_factory):
    task = MovieLensTask(tiny_dir, config=CONFIG)
    data = task.build()
    database = task.load_database()
    assert [d.id for d in database] == [str(u.user_id) for u in data.split("database")]
    assert task.load_database(limit=1) == database[:1]
    queries = task.load_queries()
    assert len(queries) == 1 and len(task.load_queries(split="test")) == 1
    query = queries[0]
    user = data.split("validation")[0]
    assert query.answers == user.favourites and query.meta["pseudonym"] == user.pseudonym
    assert task.is_correct(f"You should watch {user.favourites[1]} and Fargo.", query)
    assert not task.is_correct("You should watch Fargo.", query)
    assert task.private_names() == sorted(u.pseudonym for u in data.split("database"))
    assert task.attack_queries() == [] and task.support(query, database) is None
    # round trip through files (what --queries PATH reads)
    out = tmp_path_factory.mktemp("ml_out")
    sizes = write_movielens_files(out, tiny_dir, CONFIG)
    assert sizes["validation"] == 1
    from_file = task.load_queries(out / "validation.jsonl")
    assert [(q.id, q.question, q.answers) for q in from_file] == [(q.id, q.question, q.answers) for q in queries]
    with pytest.raises(ConfigError, match="`split`"):
        task.load_queries(split="train")


def test_filter_prompt_and_registry():
    assert MOVIELENS_FILTER_PROMPT == (
        "Does the following document contain specific movie titles released in the 20th century? "
        "Answer only YES or NO.\nDocument: {document}\nAnswer:")
    task = get_task("movielens")
    assert task.rag_top_k == 15 and task.filter_prompt == MOVIELENS_FILTER_PROMPT


def test_errors(tmp_path, tiny_dir):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DataFileNotFoundError, match="movies.csv not found"):
        build_movielens(empty, CONFIG)
    with pytest.raises(DataFileNotFoundError, match="folder not found"):
        MovieLensTask(tmp_path / "absent").load_database()
    (tiny_dir / "tags.csv").write_text("userId,movieId,label,timestamp\n", encoding="utf-8")
    with pytest.raises(DataError, match="tags.csv: missing column"):
        build_movielens(tiny_dir, MovieLensConfig(seed="other-for-cache"))
    with pytest.raises(ConfigError, match="split_fractions"):
        MovieLensConfig(split_fractions=(0.5, 0.5, 0.5))
    with pytest.raises(ConfigError, match="n_candidates"):
        MovieLensConfig(n_candidates=0)


# ---------------------------------------------------------------------- the real ml-latest-small folder


def test_real_movielens_numbers_and_no_title_in_queries():
    shared = find_shared_dir()
    assert shared is not None
    task = MovieLensTask()
    assert task.default_data_dir == shared / "data" / "movielens" / "ml-latest-small"
    data = task.build()
    assert data.sizes() == {"database": 362, "validation": 45, "test": 45, "users": 452, "candidates": 30}
    assert data.candidate_titles[:3] == ("Forrest Gump (1994)", "The Shawshank Redemption (1994)",
                                         "Pulp Fiction (1994)")
    assert all(parse_title(t).year <= 2000 for t in data.candidate_titles)
    queries = task.load_queries() + task.load_queries(split="test")
    assert len(queries) == 90
    for query in queries:  # the question never names a candidate film
        assert not names_any_title(query.question, data.candidate_titles), query.question
    database_queries = task.load_queries(split="database")
    documents = {d.id: d.text for d in task.load_database()}
    for query in database_queries:  # each document names all its user's favourites
        assert all(names_title(documents[query.id], title) for title in query.answers)
    assert len(set(task.private_names())) == 362
