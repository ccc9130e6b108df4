"""CPU cost per document of each stage of a DP-SynRAG build at 2,000, 8,000 and 32,000 documents, the embedder's
matmul bound, a projection to 1,000,000 documents, and ``--ray`` against the local build (issue 44, item 5).

Workload: the first N Medical Synth notes (``shared/data/medical_synth/database.jsonl``, 8,000 rows, ids below
10,000). Beyond 8,000 the file is replicated: copy c (c = 0, 1, ...) of a row has id ``id + 10,000·c`` and, for
c >= 1, the patient's name with the Roman numeral c + 1 appended ("Achille Ketterer" -> "Achille Ketterer III")
in ``patient_name`` and wherever ``text`` and ``dialogue`` name the patient, so every row is another document
(another fingerprint) of another person. Redaction replaces the whole name, so a copy's redacted text equals
its original's: each document costs what its original costs, and keyword counts and cluster sizes grow with
N as in a collection of repeated records. Built from the file path with the cpu preset (rarity keywords,
R = 48, k = 30, T = 48, public-prior decoding, the fluency filter), each document's own name redacted
(``--identifier-field patient_name``), seeded, one torch thread, the offline models (SmolLM2-135M-Instruct,
all-MiniLM-L6-v2).

Local runs: each size runs in a fresh subprocess that runs ``dpsynrag build`` in-process with the clock of
the owner record's stage times (``time.time`` in :mod:`dpsynrag.pipeline.build`, :mod:`dpsynrag.pipeline.run`,
:mod:`dpsynrag.corpus.writer`) replaced by the process's CPU clock (``time.process_time``): the owner record's
``*_s`` are CPU seconds of each stage, its ``total_s`` the CPU seconds from the start of the build (models
loaded inside it, ~6 s); "outside the stages" is total minus the stages. The embedder's private encoding
(``Embedder.encode_private``, the outlier-removal embeddings) is timed on the CPU clock as a whole and per
model forward (forward hooks), and its texts are kept in a temporary file; after the build they are counted
with the embedder's tokenizer (special tokens included, cut at its 256 tokens).

Matmul bound of the embedder's forwards: FLOPs = sum over the embedded texts of s·2P + 4·layers·hidden·s² +
2P_pool (s: the text's tokens; P: the weights of the encoder's linear layers, 10.6 M; the s² term: QKᵀ and
attention·V; P_pool: the pooler's 384x384, once per text) divided by the fp32 rate of ``torch.matmul`` on one
thread at the forward's shapes (8 rows x the most common padded width, times each linear layer's weight),
measured in the same process after the build: the median of 7 repeats on the CPU clock. The forwards compute
more than that (each text padded to a multiple of 8 tokens, the last forward of a width filled with copies):
those FLOPs are reported too.

Ray runs (``--ray-sizes``, each also a local size): the same build with ``--ray --ray-workers W`` on a local Ray
cluster, wall clock stage times; CPU is the driver's own plus that of every process below it, sampled from
``/proc`` every 0.5 s: the actors (a process ever titled ``ray::Class.method``) apart from Ray's own
processes (daemons, idle workers). The extra CPU of the driver and the actors over the local build of the
same size, fitted over two sizes as fixed + per shard (shards of 1,024 documents: the reading pass's and the
keywords' of every document, the embeddings' of the clusters' members), is the Ray overhead; the slope of the
driver's own CPU over the two sizes is what stays on the driver per document (reading the rows, the input
fingerprint, spooling, the DP draws).

Projection to 1,000,000 documents (largest local size L): one core = the per-document stages' ms at L x N +
private prediction and the filter as measured at L (both are flat in N once the clusters fill). Sixteen
workers = the driver's ms per document (Ray runs) x N + ((the per-document stages' ms at L less the driver's)
x N + overhead per shard x shards) / 16 + private prediction + filter + the fixed Ray overhead (neither
divided over the workers, the driver's part not overlapped with the workers': an upper bound); Ray's own
processes run beside them (on a cluster, on the head node) and are reported, not added. Both are also given
with the per-document stages a line a + b·N through the two largest local sizes (the flat part counted
once). Peak memory: the child's ``ru_maxrss`` (the driver's only in Ray runs).

Writes ``benchmarks/results/bench_scale.json`` and ``bench_scale.md``.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_scale.py          # 2,000 / 8,000 / 32,000; Ray at 2,000 and 8,000
    OMP_NUM_THREADS=1 python benchmarks/bench_scale.py --sizes 500 --ray-sizes 500 --out /tmp/scale
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _scale_report import acceptance, markdown, projection, ray_overhead  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DATA = Path(os.environ.get("DPSYNRAG_SHARED", "/work/shared")) / "data" / "medical_synth" / "database.jsonl"
STAGES = ("read_and_redact_s", "keywords_s", "outlier_removal_s", "private_prediction_s", "self_filter_s")
ID_STRIDE = 10_000  # above every id of database.jsonl: copy c's ids are id + c * ID_STRIDE
ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
         (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


def roman(k: int) -> str:
    """``k`` (>= 1) in Roman numerals: 2 -> "II", 4 -> "IV"."""
    out = ""
    for value, letters in ROMAN:
        count, k = divmod(k, value)
        out += letters * count
    return out


def write_notes(n: int, path: Path) -> None:
    """The first ``n`` rows of Medical Synth replicated as the module docstring says, as JSONL at ``path``."""
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    if max(r["id"] for r in rows) >= ID_STRIDE:
        raise SystemExit(f"{DATA}: an id is >= {ID_STRIDE}; the copies' ids would collide.")
    with open(path, "w", encoding="utf-8") as out:
        for j in range(n):
            copy, row = divmod(j, len(rows))
            r = dict(rows[row])
            if copy:
                name = r["patient_name"]
                new = f"{name} {roman(copy + 1)}"
                r.update(id=r["id"] + copy * ID_STRIDE, patient_name=new, text=r["text"].replace(name, new),
                         dialogue=r["dialogue"].replace(name, new))
            out.write(json.dumps(r) + "\n")


class CPUClock:
    """The ``time`` module with ``time()`` and ``perf_counter()`` reading the process's CPU seconds (stage timers
    and probes given it measure CPU; also used by ``plan_vs_measured.py``)."""

    def __getattr__(self, name):
        return getattr(time, name)

    @staticmethod
    def perf_counter():
        return time.process_time()

    time = perf_counter


def instrument_embedder(folder: Path) -> dict:
    """Make ``Embedder.encode_private`` record its texts (one JSON string a line in ``folder``), its CPU seconds,
    and its forwards' CPU seconds and padded shapes; returns the dict it fills."""
    from dpsynrag.models.embedder import Embedder

    stats = {"texts": 0, "encode_cpu_s": 0.0, "forward_cpu_s": 0.0, "forwards": 0, "rows": 0,
             "padded_tokens": 0, "padded_square_tokens": 0, "widths": {}, "_active": False}
    record = open(folder / "embedded.jsonl", "w", encoding="utf-8")  # noqa: SIM115 - closed in child()
    stats["_file"] = record
    original = Embedder.encode_private
    hooked: set[int] = set()

    def before(module, args):
        if stats["_active"]:
            rows, width = args[0]["input_ids"].shape
            stats.update(forwards=stats["forwards"] + 1, rows=stats["rows"] + rows,
                         padded_tokens=stats["padded_tokens"] + rows * width,
                         padded_square_tokens=stats["padded_square_tokens"] + rows * width * width)
            stats["widths"][int(width)] = stats["widths"].get(int(width), 0) + 1
            stats["_t"] = time.process_time()

    def after(module, args, output):
        if stats["_active"]:
            stats["forward_cpu_s"] += time.process_time() - stats["_t"]

    def encode_private(self, texts, *args, **kwargs):
        if id(self.model) not in hooked:
            self.model.register_forward_pre_hook(before)
            self.model.register_forward_hook(after)
            hooked.add(id(self.model))
        texts = list(texts)
        t = time.process_time()
        stats["_active"] = True
        try:
            return original(self, texts, *args, **kwargs)
        finally:
            stats["_active"] = False
            stats["encode_cpu_s"] += time.process_time() - t
            stats["texts"] += len(texts)
            record.writelines(json.dumps(x) + "\n" for x in texts)

    Embedder.encode_private = encode_private
    return stats


def embedder_flops(model) -> dict:
    """The embedder's matmul FLOPs: per token (2 x the encoder's linear weights), per text (the pooler's), and
    the attention term's factor (4 x layers x hidden: FLOPs = factor x s² for a text of s tokens)."""
    import torch

    per_token = per_text = 0
    layer_shapes = []
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Linear):
            if "pooler" in name:
                per_text += 2 * module.weight.numel()
            else:
                per_token += 2 * module.weight.numel()
                if ".layer.0." in name:
                    layer_shapes.append(list(module.weight.shape))  # [out, in]
    config = model[0].auto_model.config
    return {"per_token": per_token, "per_text": per_text,
            "attention_factor": 4 * config.num_hidden_layers * config.hidden_size, "layer_shapes": layer_shapes}


def matmul_rate(m: int, shapes: list[list[int]], repeats: int = 7, calls: int = 20) -> dict:
    """fp32 ``torch.matmul`` GFLOP/s on this process's threads: ``[m, in] @ [in, out]`` for each weight shape of
    one layer, ``calls`` rounds a repeat; the median and best of ``repeats`` on the CPU clock."""
    import torch

    gen = torch.Generator().manual_seed(0)
    pairs = [(torch.randn(m, i, generator=gen), torch.randn(i, o, generator=gen)) for o, i in shapes]
    flops = calls * sum(2 * m * i * o for o, i in shapes)
    rates = []
    with torch.inference_mode():
        for a, b in pairs:
            torch.matmul(a, b)  # warm-up
        for _ in range(repeats):
            t = time.process_time()
            for _ in range(calls):
                for a, b in pairs:
                    torch.matmul(a, b)
            rates.append(flops / (time.process_time() - t) / 1e9)
    return {"rows": m, "gflops_median": statistics.median(rates), "gflops_best": max(rates),
            "threads": torch.get_num_threads()}


def embedder_bound(stats: dict, folder: Path) -> dict:
    """Tokens of the embedded texts, the FLOPs and the matmul bound of the embedder's forwards (module docstring)."""
    from dpsynrag.models.embedder import Embedder

    embedder = Embedder.load(None, device="cpu")
    f = embedder_flops(embedder.model)
    tokenizer, limit = embedder.model.tokenizer, embedder.max_tokens
    tokens = square = texts = 0
    with open(folder / "embedded.jsonl", encoding="utf-8") as src:
        while chunk := [json.loads(line) for _, line in zip(range(4096), src)]:
            for ids in tokenizer(chunk, add_special_tokens=True, truncation=True, max_length=limit)["input_ids"]:
                tokens, square, texts = tokens + len(ids), square + len(ids) ** 2, texts + 1
    useful = f["per_token"] * tokens + f["attention_factor"] * square + f["per_text"] * texts
    computed = (f["per_token"] * stats["padded_tokens"] + f["attention_factor"] * stats["padded_square_tokens"]
                + f["per_text"] * stats["rows"])
    width = max(stats["widths"], key=stats["widths"].get) if stats["widths"] else 56
    rate = matmul_rate(8 * width, f["layer_shapes"])
    bound = useful / (rate["gflops_median"] * 1e9)
    return {"texts": texts, "tokens": tokens, "mean_tokens": tokens / max(texts, 1),
            "flops_per_token_linear": f["per_token"], "flops_per_text_pooler": f["per_text"],
            "attention_flops_factor": f["attention_factor"], "useful_gflop": useful / 1e9,
            "computed_gflop": computed / 1e9, "padded_tokens": stats["padded_tokens"], "forward_rows": stats["rows"],
            "forwards": stats["forwards"], "most_common_width": width, "matmul": rate, "bound_s": bound,
            "forward_cpu_s": stats["forward_cpu_s"], "encode_cpu_s": stats["encode_cpu_s"],
            "ratio": stats["forward_cpu_s"] / bound if bound else None,
            "computed_over_rate_s": computed / (rate["gflops_median"] * 1e9)}


def child(n: int, folder: Path, ray_workers: int) -> dict:
    """One build of ``n`` notes (locally with CPU stage clocks, or on Ray with wall ones); its timings and more."""
    stats = None
    if not ray_workers:
        import dpsynrag.corpus.writer as writer
        import dpsynrag.pipeline.build as build
        import dpsynrag.pipeline.run as run

        build.time = run.time = writer.time = CPUClock()
        stats = instrument_embedder(folder)
    docs = folder / f"notes{n}.jsonl"
    write_notes(n, docs)
    from dpsynrag.cli import app

    out = folder / "corpus"
    args = ["build", str(docs), "--out", str(out), "--epsilon", "10", "--delta", "1e-3", "--task", "medical",
            "--preset", "cpu", "--identifier-field", "patient_name", "--seed", "7", "--threads", "1", "--yes",
            "--ledger", str(folder / "ledger")]
    if ray_workers:
        args += ["--ray", "--ray-workers", str(ray_workers)]
    try:
        app(args, standalone_mode=False)
    except SystemExit as exc:
        if exc.code:
            raise
    usage = resource.getrusage(resource.RUSAGE_SELF)
    owner = json.loads((folder / "corpus.owner.json").read_text(encoding="utf-8"))
    result = {"documents": n, "ray_workers": ray_workers, "timings_s": owner["timings"],
              "texts_sha256": hashlib.sha256((out / "texts.jsonl").read_bytes()).hexdigest(),
              "peak_rss_mib": usage.ru_maxrss / 1024, "self_cpu_s": usage.ru_utime + usage.ru_stime}
    if stats is not None:
        stats.pop("_file").close()
        result["embedder"] = embedder_bound(stats, folder)
    return result


def _proc_table() -> dict[int, tuple[int, int, str]]:
    """pid -> (parent pid, CPU ticks user + system, start time) of every process in ``/proc``."""
    table = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()  # from field 3 (state) on
            table[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]), fields[19])
    return table


ACTOR_IDLE = ("ray::IDLE", "ray::DashboardAgent", "ray::RuntimeEnvAgent")  # Ray's own processes, not actors


class DescendantCPU:
    """The CPU seconds of every process below ``root`` (not ``root`` itself), from samples of ``/proc``: each
    process counts with its last sample (a process that ends loses at most one interval). A process that was
    ever seen titled as a Ray actor (``ray::Class.method``, not ``ray::IDLE`` or an agent) counts as an actor;
    the others (Ray's daemons and idle workers) as Ray's own."""

    def __init__(self, root: int):
        self.root, self.ticks, self.actors = root, {}, set()

    def sample(self) -> None:
        table = _proc_table()
        children: dict[int, list[int]] = {}
        for pid, (ppid, _, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        stack = list(children.get(self.root, []))
        while stack:
            pid = stack.pop()
            key = (pid, table[pid][2])
            self.ticks[key] = table[pid][1]
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    title = f.read().split(b"\0")[0].decode("utf-8", "replace")
            except OSError:
                title = ""
            if title.startswith("ray::") and not title.startswith(ACTOR_IDLE):
                self.actors.add(key)
            stack.extend(children.get(pid, []))

    def seconds(self, actors: bool | None = None) -> float:
        """CPU seconds of all of them (None), of the actors (True) or of Ray's own processes (False)."""
        keys = [k for k in self.ticks if actors is None or (k in self.actors) == actors]
        return sum(self.ticks[k] for k in keys) / os.sysconf("SC_CLK_TCK")


def run_child(n: int, ray_workers: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        load = os.getloadavg()[0]
        t = time.time()
        with open(Path(folder) / "stdout", "w") as out, open(Path(folder) / "stderr", "w") as err:
            proc = subprocess.Popen([sys.executable, __file__, "--child", str(n), "--ray-workers", str(ray_workers),
                                     "--folder", folder], stdout=out, stderr=err,
                                    env={**os.environ, "OMP_NUM_THREADS": "1"})
            below = DescendantCPU(proc.pid)
            while proc.poll() is None:
                below.sample()
                time.sleep(0.5)
        wall = time.time() - t
        stdout = (Path(folder) / "stdout").read_text()
        if proc.returncode:
            sys.exit((Path(folder) / "stderr").read_text()[-4000:])
        result = json.loads(next(line[7:] for line in stdout.splitlines() if line.startswith("RESULT ")))
    return {**result, "wall_s": wall, "descendants_cpu_s": below.seconds(), "descendants": len(below.ticks),
            "actors_cpu_s": below.seconds(actors=True), "ray_own_cpu_s": below.seconds(actors=False),
            "cpu_s": result["self_cpu_s"] + below.seconds(), "loadavg_1min": [load, os.getloadavg()[0]]}


def per_document(result: dict) -> dict:
    """ms per document of each stage (local runs: CPU) and of the sums the acceptance names."""
    t, n = result["timings_s"], result["documents"]
    stages = {k: t.get(k, 0.0) for k in STAGES}
    ms = {k.removesuffix("_s"): 1e3 * v / n for k, v in stages.items()}
    ms["outside_stages"] = 1e3 * (t["total_s"] - sum(stages.values())) / n
    ms["all_but_private_prediction"] = 1e3 * (t["total_s"] - stages["private_prediction_s"]) / n
    ms["bookkeeping"] = ms["read_and_redact"] + ms["keywords"] + ms["outside_stages"]
    if "embedder" in result:
        e = result["embedder"]
        ms["embedder_forwards"] = 1e3 * e["forward_cpu_s"] / n
        ms["embedder_encode"] = 1e3 * e["encode_cpu_s"] / n
        ms["outside_model_forwards"] = ms["bookkeeping"] + ms["outlier_removal"] - ms["embedder_forwards"]
    return ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000, 32000])
    parser.add_argument("--ray-sizes", type=int, nargs="*", default=[2000, 8000],
                        help="sizes also built with --ray (each must be in --sizes)")
    parser.add_argument("--ray-workers", type=int, default=2)
    parser.add_argument("--note", default="", help="a line on the machine's load, written to the results")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder of bench_scale.json and .md")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print("RESULT " + json.dumps(child(args.child, Path(args.folder), args.ray_workers)))
        return
    if not set(args.ray_sizes) <= set(args.sizes):
        parser.error("every --ray-sizes size must be one of --sizes (the local build to compare with)")
    runs, ray_runs = [], []
    for n in args.ray_sizes:  # first: a Ray failure shows before the long local runs
        ray_runs.append(run_child(n, args.ray_workers))
        print(json.dumps({k: ray_runs[-1][k] for k in ("documents", "wall_s", "cpu_s", "texts_sha256")}), flush=True)
    for n in args.sizes:
        runs.append(run_child(n, 0))
        runs[-1]["ms_per_document"] = per_document(runs[-1])
        print(json.dumps({"documents": n, **runs[-1]["ms_per_document"]}), flush=True)
    for r in ray_runs:
        local = next(x for x in runs if x["documents"] == r["documents"])
        r["same_texts_as_local"] = r["texts_sha256"] == local["texts_sha256"]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    record = {"commit": commit, "note": args.note,
              "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform()},
              "runs": runs, "ray_runs": ray_runs}
    record["ray_overhead"] = ray_overhead(runs, ray_runs) if ray_runs else None
    record["projection"] = projection(runs, record["ray_overhead"], documents=1_000_000, workers=16)
    record["acceptance"] = acceptance(record)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_scale.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    text = markdown(record)
    (args.out / "bench_scale.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
