"""CorpusWriter: atomic corpus folders, safe --overwrite, no partial folder left by a failed or killed build."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from dpsynrag.corpus import CorpusWriter, SyntheticCorpus
from dpsynrag.corpus.format import MANIFEST
from dpsynrag.errors import ConfigError


class OnesEmbedder:
    name, dim = "ones", 4

    def encode(self, texts):
        v = np.ones((len(texts), self.dim), np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


RECORDS = [{"id": 0, "text": "a synthetic note", "kept": True}, {"id": 1, "text": "", "kept": False}]


def _write(out, **kw):
    with CorpusWriter(out, **kw) as w:
        return w.finish(RECORDS, {"method": "test"}, OnesEmbedder())


def test_finish_writes_a_loadable_corpus_and_no_partial_folder(tmp_path):
    corpus = _write(tmp_path / "c")
    assert isinstance(corpus, SyntheticCorpus) and [r["id"] for r in corpus.records] == [0, 1]
    m = json.loads((tmp_path / "c" / MANIFEST).read_text())
    assert m["num_texts"] == 2 and m["num_kept"] == 1 and m["method"] == "test"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c"]


def test_overwrite_replaces_a_corpus_folder_only(tmp_path):
    _write(tmp_path / "c")
    with pytest.raises(FileExistsError, match="already exists"):
        CorpusWriter(tmp_path / "c")
    _write(tmp_path / "c", overwrite=True)  # a corpus folder: replaced
    assert (tmp_path / "c" / MANIFEST).is_file()

    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "keep.txt").write_text("precious")
    with pytest.raises(FileExistsError, match="not a corpus folder"):
        CorpusWriter(precious, overwrite=True)
    (tmp_path / "afile.txt").write_text("x")
    with pytest.raises(FileExistsError, match="not a corpus folder"):
        CorpusWriter(tmp_path / "afile.txt", overwrite=True)
    assert (precious / "keep.txt").read_text() == "precious" and (tmp_path / "afile.txt").read_text() == "x"


@pytest.mark.parametrize("out", [".", "..", "sub/.."])
def test_current_folder_and_its_parents_are_refused(tmp_path, monkeypatch, out):
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "keep.txt").write_text("precious")
    (work / MANIFEST).write_text("{}")  # even a folder that looks like a corpus
    monkeypatch.chdir(work)
    with pytest.raises(ConfigError, match="current folder"):
        CorpusWriter(out, overwrite=True)
    assert (work / "keep.txt").read_text() == "precious"


def test_a_failed_build_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError), CorpusWriter(tmp_path / "c") as w:
        assert w.partial.is_dir()
        raise RuntimeError("model crashed")
    assert list(tmp_path.iterdir()) == []


def test_stale_partial_folders_of_dead_processes_are_removed(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)  # that process has exited
    stale = tmp_path / f".c.partial-{dead_pid}"
    alive = tmp_path / f".c.partial-{os.getppid()}"  # a running process: maybe another build, left alone
    other = tmp_path / f".other.partial-{dead_pid}"  # another corpus's partial folder: not ours to touch
    for p in (stale, alive, other):
        p.mkdir()
    _write(tmp_path / "c")
    assert not stale.exists() and alive.is_dir() and other.is_dir()


def test_sigterm_during_a_build_removes_the_partial_folder(tmp_path):
    out = tmp_path / "c"
    script = textwrap.dedent(
        f"""
        import os, signal, time
        from dpsynrag.cli import _exit_on_sigterm
        from dpsynrag.corpus import CorpusWriter

        signal.signal(signal.SIGTERM, _exit_on_sigterm)
        with CorpusWriter({str(out)!r}) as w:
            (w.partial / "texts.jsonl").write_text("half written")
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 128 + 15, proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_folder_and_file_times_are_the_manifest_created_time(tmp_path):
    """Issue 12 (4): the folder's times must not tell how long the build ran: every file's and the
    folder's modification and access times equal the manifest's `created` (the end of the build)."""
    import datetime as dt
    import logging
    import time

    out = tmp_path / "c"
    with CorpusWriter(out) as w:
        logging.getLogger("dpsynrag.build").info("stage 1: a public parameter")
        assert not (w.partial / "build.log").exists()  # the log is kept in memory while the build runs
        time.sleep(2.2)  # a build that takes a while: its start must not show in any time
        corpus = w.finish(RECORDS, {"method": "test"}, OnesEmbedder())
    stats = {"c": os.stat(out)}  # before anything reads the folder or its files (atime)
    stats.update({p.name: os.stat(p) for p in out.iterdir()})
    created = dt.datetime.fromisoformat(corpus.manifest["created"]).timestamp()
    assert created == int(created) and abs(created - time.time()) < 60
    assert sorted(stats) == sorted(["c", MANIFEST, "texts.jsonl", "index.faiss", "index_ids.json", "build.log"])
    for name, st in stats.items():
        assert st.st_mtime == created and st.st_atime == created, name
    assert (out / "build.log").read_text() == "INFO dpsynrag.build stage 1: a public parameter\n"


def test_a_folder_that_appears_while_the_build_runs_is_never_deleted(tmp_path):
    out = tmp_path / "c"
    with pytest.raises(FileExistsError, match="appeared while the build ran"):
        with CorpusWriter(out) as w:
            out.mkdir()
            (out / "thesis.txt").write_text("precious")
            w.finish(RECORDS, {"method": "test"}, OnesEmbedder())
    assert (out / "thesis.txt").read_text() == "precious" and sorted(p.name for p in tmp_path.iterdir()) == ["c"]
    # with --overwrite too: only a corpus folder is ever replaced, also at the end of the build
    _write(tmp_path / "d")
    with pytest.raises(FileExistsError, match="no longer a corpus folder"):
        with CorpusWriter(tmp_path / "d", overwrite=True) as w:
            (tmp_path / "d" / MANIFEST).unlink()
            w.finish(RECORDS, {"method": "test"}, OnesEmbedder())
    assert (tmp_path / "d").is_dir() and not any(p.name.startswith(".d.partial") for p in tmp_path.iterdir())
    # a corpus folder written by another build meanwhile is replaced only with overwrite
    _write(tmp_path / "x")
    with CorpusWriter(tmp_path / "e", overwrite=True) as w:
        (tmp_path / "x").rename(tmp_path / "e")
        w.finish(RECORDS[:1], {"method": "second"}, OnesEmbedder())
    assert json.loads((tmp_path / "e" / MANIFEST).read_text())["method"] == "second"


def test_an_out_dir_that_cannot_be_created_is_a_clear_error(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="cannot create the corpus folder"):
        with CorpusWriter(tmp_path / "file" / "sub"):
            pass


def test_a_corrupt_index_or_texts_file_is_a_clear_error(tmp_path):
    from dpsynrag.corpus.format import INDEX, TEXTS
    from dpsynrag.errors import CorpusError

    _write(tmp_path / "c")
    (tmp_path / "c" / INDEX).write_bytes(b"garbage")
    with pytest.raises(CorpusError, match=f"corrupt file {INDEX}"):
        SyntheticCorpus.load(tmp_path / "c")
    _write(tmp_path / "d")
    (tmp_path / "d" / TEXTS).write_text("{not json\n")
    with pytest.raises(CorpusError, match=f"corrupt file {TEXTS}"):
        SyntheticCorpus.load(tmp_path / "d")
