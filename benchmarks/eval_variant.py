"""``dpsynrag eval`` with a preset's DP-SynRAG fields changed: the harness, questions and scoring of the
evaluation, for a DP-SynRAG variant that no preset holds (issue 27: the same change judged on every task).

The variant is registered as a preset named ``VARIANT`` (the base preset with ``synrag`` fields replaced) for
this process only, then the command line after ``--`` runs as ``dpsynrag eval ... --preset VARIANT``.

Usage::

    python benchmarks/eval_variant.py --base cpu --name cpu-keyword-rephrase \\
        --set 'rephrase_prompt="Rephrase the following document about {keyword} ...\\nDocument: {document}"' \\
        -- --task movielens --methods dp-synrag --seed 0 --out /tmp/ml-kw-s0
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from types import MappingProxyType

from dpsynrag.cli import app
from dpsynrag.eval import presets


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="cpu", help="the preset to start from")
    parser.add_argument("--name", required=True, help="the variant's preset name (shown in the results)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=JSON",
                        help="a DP-SynRAG field and its JSON value (repeatable)")
    args = parser.parse_args(argv[:split])
    changes = {}
    for item in args.set:
        field, _, value = item.partition("=")
        changes[field] = json.loads(value)
    base = presets.get_preset(args.base)
    presets.PRESETS[args.name] = dataclasses.replace(
        base, name=args.name, synrag=MappingProxyType({**base.synrag, **changes}))
    return app(["eval", *argv[split + 1:], "--preset", args.name], standalone_mode=False) or 0


if __name__ == "__main__":
    sys.exit(main())
