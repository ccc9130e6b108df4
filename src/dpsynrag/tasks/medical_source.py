"""Building the Medical Synth task files from their public source, for machines without the project data.

Source: the ``cache/`` folder of github.com/sarus-tech/dp-rag at commit
b9d1dea2c7799b9b432ab871b8982f0298533ea1 (Apache-2.0; N. Grislain, "RAG with Differential Privacy",
arXiv 2412.19291), six JSON files whose SHA-256 are pinned in :data:`SOURCE_SHA256`:

* ``patients.json``: list of 10,000 fictitious full names (sorted); a patient's id is its 0-based index;
* ``patient_diseases.json``: name → disease; ``patient_requests.json``: name → the patient's LLM-paraphrased
  request; ``diseases.json``: list of 100 invented diseases; ``symptoms.json``: disease → list of symptoms;
  ``treatments.json``: disease → treatment.

:func:`build_medical_synth` writes the same files as the project's ``shared/data/medical_synth`` folder
(``database.jsonl``, ``validation.jsonl``, plus ``test.jsonl``, ``attacks.jsonl`` and copies of the three
public lists) with the same document template, but with **its own** seeded 8,000 / 1,000 / 1,000 split
(the split of the shared folder is not reproducible from the source), so results on a downloaded copy
are comparable in distribution, not row for row, with results on the shared folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dpsynrag.data.jsonl import atomic_write, write_jsonl_atomic
from dpsynrag.errors import ConfigError, DataError

__all__ = [
    "BUILD_INFO_FILE",
    "MEDICAL_ENV_VAR",
    "SOURCE_COMMIT",
    "SOURCE_REPOSITORY",
    "SOURCE_SHA256",
    "SPLIT_SEED",
    "build_medical_synth",
    "default_cache_dir",
    "download_sources",
    "ensure_medical_synth",
    "fetch_url",
    "is_complete_build",
    "medical_dialogue",
    "medical_document_text",
    "question_from_request",
    "question_symptoms_text",
    "sha256_bytes",
    "source_url",
    "verify_sources",
]

MEDICAL_ENV_VAR = "DPSYNRAG_MEDICAL_DIR"
"""Environment variable naming a folder with the Medical Synth task files."""

SOURCE_REPOSITORY = "sarus-tech/dp-rag"
SOURCE_COMMIT = "b9d1dea2c7799b9b432ab871b8982f0298533ea1"
SOURCE_SHA256: Mapping[str, str] = {
    "patients.json": "20337394db179563a10a0647a4da628326fef44fe0444f68209be2b1890a8663",
    "patient_diseases.json": "45f4a89f1dd38302b9a499336b5bba6ddd4c3156f2393e0ba96c90d1234fe709",
    "patient_requests.json": "639cd9151aeb28fb5ba47e13d0da56a1bf92c48fe795289d58eb2e08c17c3938",
    "diseases.json": "98c94d62b56c3f2ce85704493ae8b9888f07de9a2ebce39a67723d11364066eb",
    "symptoms.json": "29e308b70afb64bbcbafb62aa110773dc62d7bba7c4871a5390c01ea0cd49918",
    "treatments.json": "7baff93d3f8d77d553ce649b3b0cf52705ff0a907d487afb1a9b7db0c7f9c315",
}
"""Source file name → SHA-256 (hex) at :data:`SOURCE_COMMIT` (from the data README)."""

SPLIT_SEED = "dpsynrag/medical_synth/split/v1"
"""Seed of the database/validation/test split: patients are ordered by SHA-256(f"{seed}:{id}")."""

BUILD_INFO_FILE = "dpsynrag_build.json"
"""Written last by :func:`build_medical_synth`; its presence marks a complete build."""

_QUESTION_SUFFIX = " What is my disease?"

Fetch = Callable[[str], bytes]


# ---------------------------------------------------------------------- templates (shared with the task)


def medical_document_text(patient_name: str, disease: str, symptoms: Sequence[str], treatment: str) -> str:
    """The database document of one patient (the source's doctor-response template, symptoms joined by
    ``", "``): ``"Given the symptoms (…) of {name}. The diagnosis is {disease}, the treatment should be
    {treatment}."``"""
    return (
        f"Given the symptoms ({', '.join(symptoms)}) of {patient_name}. "
        f"The diagnosis is {disease}, the treatment should be {treatment}."
    )


def medical_dialogue(request: str, text: str) -> str:
    """``"Patient: {request, stripped}\\nDoctor: {text}"`` (the ``dialogue`` field)."""
    return f"Patient: {request.strip()}\nDoctor: {text}"


def question_from_request(request: str) -> str:
    """DP-SynRAG's query form: the patient's request, stripped, + ``" What is my disease?"``."""
    return request.strip() + _QUESTION_SUFFIX


def question_symptoms_text(symptoms: Sequence[str]) -> str:
    """DP-RAG's query form: ``"I am experiencing the following symptoms: {…}. What is my disease?"``."""
    return f"I am experiencing the following symptoms: {', '.join(symptoms)}." + _QUESTION_SUFFIX


# ---------------------------------------------------------------------- download


def source_url(name: str, *, commit: str = SOURCE_COMMIT) -> str:
    """raw.githubusercontent.com URL of source file ``name`` (e.g. ``"patients.json"``)."""
    return f"https://raw.githubusercontent.com/{SOURCE_REPOSITORY}/{commit}/cache/{name}"


def default_cache_dir() -> Path:
    """Where downloaded task data is kept: ``$DPSYNRAG_CACHE_DIR/medical_synth`` if that variable is set,
    else ``$XDG_CACHE_HOME/dpsynrag/medical_synth``, else ``~/.cache/dpsynrag/medical_synth``."""
    root = os.environ.get("DPSYNRAG_CACHE_DIR", "").strip()
    if root:
        return Path(root).expanduser() / "medical_synth"
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "dpsynrag" / "medical_synth"


def fetch_url(url: str, *, timeout: float = 60.0) -> bytes:
    """GET ``url`` and return the body. Raises ``urllib.error.URLError``/``OSError`` on failure."""
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - fixed https URLs
        return response.read()


def sha256_bytes(data: bytes) -> str:
    """SHA-256 hex digest of ``data``."""
    return hashlib.sha256(data).hexdigest()


def verify_sources(source_dir: str | os.PathLike[str], expected: Mapping[str, str] = SOURCE_SHA256) -> None:
    """Check that every file of ``expected`` is in ``source_dir`` with the expected SHA-256.

    Raises:
        DataError: a file is missing or its digest differs (file, expected and found digests named).
    """
    folder = Path(source_dir)
    for name, digest in expected.items():
        file = folder / name
        if not file.is_file():
            raise DataError(f"Medical Synth source file missing: {str(file)!r}.")
        found = sha256_bytes(file.read_bytes())
        if found != digest:
            raise DataError(
                f"Medical Synth source file {name!r} has SHA-256 {found}, expected {digest} "
                f"(file {str(file)!r}). Hint: delete it and download again."
            )


def download_sources(
    dest_dir: str | os.PathLike[str],
    *,
    fetch: Fetch = fetch_url,
    expected: Mapping[str, str] = SOURCE_SHA256,
    commit: str = SOURCE_COMMIT,
) -> Path:
    """Download the source files into ``dest_dir`` (files already there with the right digest are kept),
    verifying each SHA-256 before it is written (atomically).

    Args:
        dest_dir: destination folder (created).
        fetch: ``url -> bytes`` (injectable for tests); network errors propagate.
        expected: file name → SHA-256.
        commit: source commit for :func:`source_url`.

    Raises:
        DataError: a downloaded file has the wrong digest (nothing is written for it).
    """
    folder = Path(dest_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for name, digest in expected.items():
        file = folder / name
        if file.is_file() and sha256_bytes(file.read_bytes()) == digest:
            continue
        url = source_url(name, commit=commit)
        data = fetch(url)
        found = sha256_bytes(data)
        if found != digest:
            raise DataError(
                f"downloaded {url} has SHA-256 {found}, expected {digest}; refusing to use it. "
                "Hint: the file changed upstream or the download was corrupted; retry or provide the data folder."
            )
        _write_bytes_atomic(file, data)
    return folder


# ---------------------------------------------------------------------- build


def build_medical_synth(
    source_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    expected_sha256: Mapping[str, str] | None = SOURCE_SHA256,
    seed: str = SPLIT_SEED,
    split_sizes: tuple[int, int, int] | None = None,
) -> Path:
    """Build the Medical Synth task files from the six source files.

    Patient ``i`` (0-based position in ``patients.json``) gets the document
    :func:`medical_document_text`; patients are ordered by SHA-256(f"{seed}:{i}") and cut into database /
    validation / test (default sizes 80 % / 10 % / the rest, i.e. 8,000 / 1,000 / 1,000 for the source);
    each output file is sorted by id. ``attacks.jsonl`` has one targeted prompt "Who is the patient
    diagnosed with {disease}?" per disease of ``diseases.json`` (in its order) that some patient has.

    Args:
        source_dir: folder with the six source files.
        out_dir: output folder (created); files are replaced atomically, the build-info file last.
        expected_sha256: file name → digest to verify first; ``None`` skips verification (tests with
            hand-made sources).
        seed: split seed.
        split_sizes: (database, validation, test) sizes summing to the number of patients.

    Returns:
        ``out_dir``.

    Raises:
        DataError: digest mismatch, unreadable JSON, wrong structure, or inconsistent files (a patient
            without disease or request, a disease without symptoms or treatment), naming the file and key.
        ConfigError: ``split_sizes`` do not sum to the number of patients or are negative.
    """
    src = Path(source_dir)
    if expected_sha256 is not None:
        verify_sources(src, expected_sha256)
    patients = _load_json(src, "patients.json", list)
    patient_diseases = _load_json(src, "patient_diseases.json", dict)
    patient_requests = _load_json(src, "patient_requests.json", dict)
    diseases = _load_json(src, "diseases.json", list)
    symptoms = _load_json(src, "symptoms.json", dict)
    treatments = _load_json(src, "treatments.json", dict)

    if len(set(patients)) != len(patients):
        raise DataError("patients.json: duplicate patient names.")
    n = len(patients)
    if n == 0:
        raise DataError("patients.json: no patients.")
    if split_sizes is None:
        n_db = round(0.8 * n)
        n_val = round(0.1 * n)
        split_sizes = (n_db, n_val, n - n_db - n_val)
    if any(s < 0 for s in split_sizes) or sum(split_sizes) != n:
        raise ConfigError(f"`split_sizes` must be non-negative and sum to {n} patients, found {split_sizes}.")

    records: list[dict[str, Any]] = []
    for index, name in enumerate(patients):
        # the messages name the patient by position, never by name or disease (private record values)
        if name not in patient_diseases:
            raise DataError(f"patient_diseases.json: no disease for patient {index} of patients.json.")
        if name not in patient_requests:
            raise DataError(f"patient_requests.json: no request for patient {index} of patients.json.")
        disease = patient_diseases[name]
        if disease not in symptoms:
            raise DataError(f"symptoms.json: no symptoms for the disease of patient {index} of patients.json.")
        if disease not in treatments:
            raise DataError(f"treatments.json: no treatment for the disease of patient {index} of patients.json.")
        records.append({
            "id": index, "name": name, "disease": disease, "symptoms": list(symptoms[disease]),
            "treatment": treatments[disease], "request": patient_requests[name],
        })

    order = sorted(range(n), key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest())
    n_db, n_val, _ = split_sizes
    parts = {
        "database": sorted(order[:n_db]),
        "validation": sorted(order[n_db:n_db + n_val]),
        "test": sorted(order[n_db + n_val:]),
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    info_file = out / BUILD_INFO_FILE
    if info_file.exists():
        info_file.unlink()

    def database_row(r: dict[str, Any]) -> dict[str, Any]:
        text = medical_document_text(r["name"], r["disease"], r["symptoms"], r["treatment"])
        return {"id": r["id"], "text": text, "dialogue": medical_dialogue(r["request"], text),
                "patient_name": r["name"], "disease": r["disease"], "treatment": r["treatment"],
                "symptoms": r["symptoms"]}

    def query_row(r: dict[str, Any]) -> dict[str, Any]:
        return {"id": r["id"], "patient_name": r["name"], "question": question_from_request(r["request"]),
                "question_symptoms": question_symptoms_text(r["symptoms"]), "answer": r["disease"],
                "symptoms": r["symptoms"]}

    write_jsonl_atomic(out / "database.jsonl", (database_row(records[i]) for i in parts["database"]))
    write_jsonl_atomic(out / "validation.jsonl", (query_row(records[i]) for i in parts["validation"]))
    write_jsonl_atomic(out / "test.jsonl", (query_row(records[i]) for i in parts["test"]))
    occurring = {r["disease"] for r in records}
    attack_diseases = [d for d in diseases if d in occurring]
    write_jsonl_atomic(out / "attacks.jsonl", (
        {"id": k, "question": f"Who is the patient diagnosed with {d}?", "disease": d}
        for k, d in enumerate(attack_diseases)
    ))
    for name in ("diseases.json", "symptoms.json", "treatments.json"):
        _write_bytes_atomic(out / name, (src / name).read_bytes())
    info = {
        "source": f"github.com/{SOURCE_REPOSITORY}/tree/{SOURCE_COMMIT}/cache",
        "source_sha256": dict(expected_sha256) if expected_sha256 is not None else None,
        "split_seed": seed,
        "split_sizes": {"database": n_db, "validation": n_val, "test": split_sizes[2]},
        "attack_diseases": len(attack_diseases),
    }
    _write_bytes_atomic(info_file, (json.dumps(info, indent=2) + "\n").encode())
    return out


def ensure_medical_synth(
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    fetch: Fetch = fetch_url,
    expected: Mapping[str, str] = SOURCE_SHA256,
) -> Path:
    """A folder with the Medical Synth task files, downloading and building them on first use.

    Returns ``cache_dir`` (default :func:`default_cache_dir`) when it holds a complete build; otherwise
    downloads the source files into ``cache_dir/source`` (verified), builds, and returns ``cache_dir``.

    Args:
        cache_dir: the cache folder.
        fetch: ``url -> bytes`` (injectable for tests).
        expected: source file name → SHA-256 (the pinned digests; tests pass their own).

    Raises:
        DataError: the download failed (offline) or a digest is wrong; the message names the folder to
            provide instead and the environment variable :data:`MEDICAL_ENV_VAR`.
    """
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    if is_complete_build(folder, expected):
        return folder
    try:
        source = download_sources(folder / "source", fetch=fetch, expected=expected)
    except DataError:
        raise
    except Exception as exc:  # URLError, HTTPError, TimeoutError, OSError, ...
        raise DataError(
            "Medical Synth data not found and the download of its source files failed "
            f"({type(exc).__name__}: {exc}). Provide the folder that holds database.jsonl and "
            "validation.jsonl (the project's shared/data/medical_synth) with data_dir=... or the environment "
            f"variable {MEDICAL_ENV_VAR}, or download the six files of {source_url('<name>')} "
            f"({', '.join(SOURCE_SHA256)}) into {str(folder / 'source')!r} and retry."
        ) from exc
    return build_medical_synth(source, folder, expected_sha256=expected)


def is_complete_build(folder: str | os.PathLike[str], expected: Mapping[str, str] = SOURCE_SHA256) -> bool:
    """True when ``folder`` holds a complete :func:`build_medical_synth` output from the pinned source."""
    info_file = Path(folder) / BUILD_INFO_FILE
    if not info_file.is_file():
        return False
    try:
        info = json.loads(info_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return info.get("source_sha256") == dict(expected) and all(
        (Path(folder) / name).is_file() for name in ("database.jsonl", "validation.jsonl", "attacks.jsonl")
    )


def _load_json(folder: Path, name: str, kind: type) -> Any:
    file = folder / name
    if not file.is_file():
        raise DataError(f"Medical Synth source file missing: {str(file)!r}.")
    try:
        value = json.loads(file.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise DataError(f"{name}: invalid UTF-8 at byte {exc.start}.") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{name}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}.") from None
    if not isinstance(value, kind):
        raise DataError(f"{name}: expected a JSON {kind.__name__}, found {type(value).__name__}.")
    return value


def _write_bytes_atomic(path: Path, data: bytes) -> None:
    with atomic_write(path, binary=True) as handle:
        handle.write(data)
