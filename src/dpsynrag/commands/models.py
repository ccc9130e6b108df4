"""``dpsynrag models convert FILE.gguf --out DIR``: your own language model in one step (docs/own-model.md).

The GGUF file is dequantised into a float32 safetensors model folder (:func:`~dpsynrag.models.gguf.convert_gguf`)
that ``--model DIR`` (or any transformers code) loads in a second; the command prints the folder, the time it
took and the SHA-256 of the file and of the folder's files (what a corpus manifest built with it records).
"""

from __future__ import annotations

import time
from pathlib import Path

import typer

from dpsynrag.commands.common import console, fail
from dpsynrag.errors import ConfigError, DpsynragError

models_app = typer.Typer(
    help="Your own language model: convert a GGUF file into a model folder that --model loads.",
    no_args_is_help=True,
)


@models_app.command("convert")
def convert_command(
    gguf: Path = typer.Argument(..., help="A GGUF file of a causal language model (llama, mistral, qwen2, phi3, gemma, ...)."),
    out: Path = typer.Option(..., "--out", help="The model folder to create (must not exist)."),
) -> None:
    """Convert a GGUF file into a float32 safetensors model folder for --model (about 20 s and 0.6 GB of disk
    for a 135M-parameter model). `build --model FILE.gguf` does the same once into the dpsynrag cache, keyed by
    the file's SHA-256; this command puts the folder where you choose."""
    from dpsynrag.models.gguf import convert_gguf, file_sha256, model_file_hashes

    try:
        if not gguf.exists():
            raise ConfigError(f"GGUF: {str(gguf)!r} does not exist.")
        if not gguf.is_file() or gguf.suffix.lower() != ".gguf":
            raise ConfigError(f"GGUF: {str(gguf)!r} is not a GGUF file (*.gguf).")
        if out.exists():
            raise ConfigError(f"--out {str(out)!r} exists: choose a new folder (nothing was converted).")
        t = time.perf_counter()
        console.print(f"converting {gguf} (SHA-256 {file_sha256(gguf)}) ...", markup=False, highlight=False)
        convert_gguf(gguf, out)
        seconds = time.perf_counter() - t
    except DpsynragError as exc:
        fail(exc)
        return
    console.print(f"[bold green]converted[/] into {out} in {seconds:.1f} s; use it with --model {out}",
                  highlight=False)
    for name, digest in model_file_hashes(out).items():
        console.print(f"  {digest}  {name}", markup=False, highlight=False)
