"""Write blind own-data collections (``CONTRACT.md``), checked against the contract.

    python -m benchmarks.blind.generate --domain telecom --seed 0 --n 400 --out runs/blind/telecom-s0
    python -m benchmarks.blind.generate --split tuning --seeds 0 1 2 --out runs/blind   # runs/blind/hr-s0, ...
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run by path: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.blind.contract import write  # noqa: E402

SPLIT = json.loads((Path(__file__).parent / "split.json").read_text(encoding="utf-8"))


def generate(domain: str, seed: int, n: int, out: Path) -> Path:
    module = importlib.import_module(f"benchmarks.blind.domains.{domain}")
    return write(module.generate(seed, n), out, seed=seed, n=n)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--domain", choices=SPLIT["domains"] + SPLIT["held_out_2"] + SPLIT["held_out_3"])
    which.add_argument("--split", choices=["tuning", "held_out", "held_out_2", "held_out_3"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, nargs="+")
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.domain:
        print(generate(args.domain, args.seed, args.n, args.out))
        return
    for domain in SPLIT[args.split]:
        for seed in args.seeds or SPLIT["seeds"]:
            print(generate(domain, seed, args.n, args.out / f"{domain}-s{seed}"))


if __name__ == "__main__":
    main()
