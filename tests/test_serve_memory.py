"""The server's malloc arena cap (``dpsynrag.commands.serve.limit_malloc_arenas``): glibc keeps one arena per
thread that allocates concurrently (up to 8 per core), the source of the server's memory growth under load."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from dpsynrag.commands.serve import limit_malloc_arenas

HEAPS = textwrap.dedent("""
    import ctypes, re, sys, tempfile, threading
    from dpsynrag.commands.serve import limit_malloc_arenas
    if sys.argv[1] == "cap":
        assert limit_malloc_arenas(1, env={})
    def allocate():
        for _ in range(2000):
            blocks = [bytearray(4096) for _ in range(50)]
    threads = [threading.Thread(target=allocate) for _ in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    libc = ctypes.CDLL("libc.so.6")
    libc.fdopen.restype = ctypes.c_void_p
    with tempfile.NamedTemporaryFile("r") as out:
        stream = ctypes.c_void_p(libc.fdopen(out.fileno(), b"w"))
        libc.malloc_info(0, stream)
        libc.fflush(stream)
        out.seek(0)
        print(len(re.findall(r'<heap nr="', out.read())))  # glibc's arenas (malloc_info XML)
""")


def heaps(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", HEAPS, mode], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_the_cap_holds_eight_allocating_threads_to_one_arena():
    assert heaps("nocap") > 1  # the growth the cap prevents: 8 threads allocating at once get arenas of their own
    assert heaps("cap") == 1


def test_malloc_arena_max_set_by_the_operator_wins():
    assert limit_malloc_arenas(2, env={"MALLOC_ARENA_MAX": "4"}) is False
    assert limit_malloc_arenas(2, env={}) is True  # glibc (the machines of this project)


def test_serve_caps_the_arenas_before_it_loads_anything(monkeypatch, tmp_path):
    """Arenas made while the models load stay: the cap must come first (a new user counted 5 when it came after)."""
    from typer.testing import CliRunner

    from dpsynrag.cli import app
    from dpsynrag.commands import serve
    from dpsynrag.errors import CorpusError
    from dpsynrag.serve import CorpusService

    calls = []
    monkeypatch.setattr(serve, "limit_malloc_arenas", lambda *a, **k: calls.append("cap") or True)

    def load(cls, *args, **kwargs):
        calls.append("load")
        raise CorpusError("stop here")

    monkeypatch.setattr(CorpusService, "load", classmethod(load))
    from servers import free_port

    result = CliRunner().invoke(app, ["serve", str(tmp_path), "--retrieval-only", "--port", str(free_port())])
    assert calls == ["cap", "load"] and result.exit_code == 2, result.output
