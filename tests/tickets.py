"""A generated support-ticket collection for tests and benchmarks (invented people, never real data).

Each ticket is ``{"id", "body", "customer_name", "email", "order_number", "topic"}``: a customer (invented
Latin-script or Chinese name) writes about one of :data:`TOPICS` (refund, warranty, login, ...), naming
themselves, their order number (``ORD-123456``) and often their e-mail, sometimes in other capitals, as new
users' own data does. About one ticket in ten is written in Chinese, with the order number between CJK
characters. Topic frequencies are uneven (a few frequent topics, a long tail), content varies within a topic
(products, days, amounts, wording), so cluster members agree on the topic but not on every token.

``topic`` is the ground truth of the generator (for scoring whether a synthetic text names its cluster's
topic); a build must not read it.

Command line: ``python tests/tickets.py OUT.jsonl [--n 300] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

__all__ = ["TOPICS", "make_tickets", "write_tickets"]

_FIRST = ["Olivia", "Liam", "Amelia", "Noah", "Harper", "Mateo", "Ingrid", "Tobias", "Chiara", "Rafael",
          "Aisha", "Kenji", "Maren", "Dmitri", "Leona", "Yusuf", "Sofia", "Emeka", "Greta", "Anton"]
_LAST = ["Okafor", "Lindqvist", "Moreau", "Castellanos", "Brandt", "Nakamura", "Van der Berg", "Kowalczyk",
         "Haddad", "Fitzgerald", "Romero", "Aaltonen", "Osei", "Petrov", "Delacroix", "Whitfield"]
_CJK_NAMES = ["张敏", "李娜", "王伟", "刘洋", "陈静", "杨磊", "赵丽", "黄勇"]
_PRODUCTS = ["wireless headphones", "coffee grinder", "standing desk", "air purifier", "hiking backpack",
             "smart thermostat", "electric kettle", "running shoes", "robot vacuum", "office chair"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "last week", "two weeks ago"]

TOPICS: dict[str, list[str]] = {
    "refund": [
        "I returned the {product} on {day} and I am still waiting for my refund of {amount} dollars.",
        "Could you tell me when the refund for the {product} will reach my card? It has been {n} days.",
        "The refund for my returned {product} shows as pending. Please process the refund.",
    ],
    "shipping": [
        "My {product} has not arrived yet. The tracking page says the shipping is delayed since {day}.",
        "The courier marked the {product} as shipped {day} but the tracking number does not work.",
        "Shipping was supposed to take {n} days and the {product} is still not delivered.",
    ],
    "warranty": [
        "My {product} stopped working after {n} months. Is it still covered by the warranty?",
        "I would like to make a warranty claim: the {product} broke on {day}.",
        "The warranty card for the {product} was missing. How do I register the warranty?",
    ],
    "login": [
        "I cannot log in to my account since {day}. The login page says my password is wrong.",
        "The login code never arrives, so I am locked out of my account.",
        "After the update I cannot login on the app; the website login works.",
    ],
    "invoice": [
        "The invoice for my {product} shows the wrong billing address. Please send a corrected invoice.",
        "I need an invoice with my company name for the {product}, {amount} dollars.",
    ],
    "damaged": [
        "The {product} arrived damaged: the box was crushed and the {product} is cracked.",
        "Part of the {product} was damaged in transit. Can you send a replacement part?",
    ],
    "subscription": [
        "Please cancel my subscription. I was charged {amount} dollars again on {day}.",
        "How do I pause my subscription for {n} months?",
    ],
    "exchange": [
        "The {product} is the wrong size. I would like an exchange for a larger one.",
    ],
}
_WEIGHTS = {"refund": 0.22, "shipping": 0.2, "warranty": 0.15, "login": 0.13, "invoice": 0.1, "damaged": 0.09,
            "subscription": 0.07, "exchange": 0.04}

_CJK_TOPICS = {
    "refund": "您好，我是{name}。订单{order}的退款还没有到账，请尽快处理退款。",
    "shipping": "您好，我是{name}。我的订单{order}到现在还没有发货，物流信息一直没有更新。",
    "warranty": "你好，我是{name}，订单{order}里的{product}坏了，还在保修期内吗？",
}

_OPENINGS = ["Hello, this is {name}.", "Hi, my name is {name}.", "Dear support team, I am {name}.", "Hello,"]
_ORDER = ["My order number is {order}.", "Order {order}.", "This is about order {order}.", "(order #{order})"]
_CLOSINGS = ["You can reach me at {email}.", "Please reply to {email}.", "Thanks, {name}",
             "Best regards, {name} ({email})", "Thank you."]


def _email(name: str, rng: random.Random) -> str:
    if not name.isascii():
        return f"user{rng.randrange(1000, 9999)}@example.cn"
    local = ".".join(name.lower().split())
    return f"{local}{rng.randrange(10, 99)}@example.com"


def _cased(email: str, rng: random.Random) -> str:
    """The e-mail as a customer may type it: as stored, capitalised, or in upper case."""
    return rng.choice([email, email.capitalize(), email.upper(), email])


def make_tickets(n: int = 300, seed: int = 0) -> list[dict]:
    """``n`` invented support tickets (module docstring), reproducible from ``seed``.

    Raises:
        ValueError: ``n`` < 1.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1. Found {n!r}.")
    rng = random.Random(f"dpsynrag/tickets/{seed}")
    topics = list(_WEIGHTS)
    tickets = []
    for i in range(n):
        topic = rng.choices(topics, weights=[_WEIGHTS[t] for t in topics])[0]
        cjk = topic in _CJK_TOPICS and rng.random() < 0.12
        name = rng.choice(_CJK_NAMES) if cjk else f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
        email = _email(name, rng)
        order = f"ORD-{rng.randrange(100000, 999999)}"
        slots = dict(product=rng.choice(_PRODUCTS), day=rng.choice(_DAYS), amount=rng.randrange(15, 480),
                     n=rng.randrange(2, 30), name=name, order=order, email=_cased(email, rng))
        if cjk:
            body = _CJK_TOPICS[topic].format(**slots)
        else:
            sentences = rng.sample(TOPICS[topic], k=min(len(TOPICS[topic]), rng.choice([1, 2])))
            parts = [rng.choice(_OPENINGS), rng.choice(_ORDER), *sentences, rng.choice(_CLOSINGS)]
            body = " ".join(p.format(**slots) for p in parts)
        tickets.append({"id": f"T{i:05d}", "body": body, "customer_name": name, "email": email,
                        "order_number": order, "topic": topic})
    return tickets


def write_tickets(path: str | Path, n: int = 300, seed: int = 0) -> Path:
    """Write :func:`make_tickets` as JSON lines to ``path``; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for ticket in make_tickets(n, seed):
            f.write(json.dumps(ticket, ensure_ascii=False) + "\n")
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="output JSON lines file")
    parser.add_argument("--n", type=int, default=300, help="number of tickets (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    args = parser.parse_args()
    print(write_tickets(args.out, args.n, args.seed))
