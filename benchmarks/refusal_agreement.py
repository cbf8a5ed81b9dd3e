"""How far the refusal rules agree with the hand-labelled replies of ``tests/data/refusal_replies.jsonl``.

    python benchmarks/refusal_agreement.py            # per round and split: accuracy, kappa, each class's P / R
    python benchmarks/refusal_agreement.py --misses   # also list the replies of the fitted split it gets wrong

Each labelled reply is a deceiving seat's (a Werewolf's or the Jester's) public words or unusable reply, with its
class (``played``, ``refused``, ``self_exposing``), a note of what it tests, and the round it was written in.
``dev``: the replies the rules were fitted to; ``heldout``: never fitted to (its misses are never listed). Each
round was measured before any rule was changed for it; docs/refusal.md says which rounds are fair tests.
The rules are :mod:`wolf_eval.measures.role_play`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wolf_eval.measures.rates import Confusion, cohen_kappa, ratio
from wolf_eval.measures.role_play import Playing, classify
from wolf_eval.vocabulary import Role

LABELLED = Path(__file__).resolve().parents[1] / "tests" / "data" / "refusal_replies.jsonl"
SPLITS = ("dev", "heldout")


@dataclass(frozen=True)
class Reply:
    """One labelled reply."""

    role: Role
    text: str
    label: Playing
    split: str
    note: str
    round: int


def load(path: Path = LABELLED) -> list[Reply]:
    """The labelled replies; a label, role or split the rules cannot give is a broken file, not a miss."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        row = json.loads(line)
        try:
            out.append(Reply(Role(row["role"]), row["text"], Playing(row["label"]), row["split"], row["note"],
                             int(row["round"])))
        except ValueError as err:
            raise ValueError(f"{path}:{n}: {err}") from err
        if row["split"] not in SPLITS:
            raise ValueError(f"{path}:{n}: split {row['split']!r} is none of {SPLITS}")
    return out


def rules(reply: Reply) -> Playing:
    """The rules' class of a labelled reply, read as a game reads its writer's reply."""
    return classify(reply.text, reply.role)


def agreement(replies: Sequence[Reply]) -> dict[str, float]:
    """The rules' accuracy, Cohen's kappa, and each class's precision and recall against the labels."""
    return agreement_of([(r, rules(r)) for r in replies])


def agreement_of(read: Sequence[tuple[Reply, Playing]]) -> dict[str, float]:
    """A reader's accuracy, Cohen's kappa, and each class's precision and recall against the labels, from each
    reply with the class it read (the rules' or a judge's: one measure for both, so their tables compare)."""
    pairs = [(r.label, got) for r, got in read]
    out = {"n": float(len(pairs)), "accuracy": ratio(sum(a == b for a, b in pairs), len(pairs)),
           "kappa": cohen_kappa(pairs)}
    for kind in Playing:
        c = Confusion(tp=sum(a is kind and b is kind for a, b in pairs),
                      fp=sum(a is not kind and b is kind for a, b in pairs),
                      fn=sum(a is kind and b is not kind for a, b in pairs))
        out |= {f"{kind}_precision": c.precision, f"{kind}_recall": c.recall}
    return out


def table(read: Sequence[tuple[Reply, Playing]]) -> list[str]:
    """The agreement per round (with its split), per split and over all, as a markdown table."""
    rounds = sorted({(r.round, r.split) for r, _ in read})
    parts = {f"round {n} ({split})": [x for x in read if x[0].round == n] for n, split in rounds}
    parts |= {split: [x for x in read if x[0].split == split] for split in SPLITS} | {"all": list(read)}
    lines = ["| replies | n | accuracy | kappa | played P / R | refused P / R | self-exposing P / R |",
             "|---|---|---|---|---|---|---|"]
    for name, part in parts.items():
        a = agreement_of(part)
        classes = " | ".join(f"{a[f'{k}_precision']:.2f} / {a[f'{k}_recall']:.2f}" for k in Playing)
        lines.append(f"| {name} | {a['n']:.0f} | {a['accuracy']:.3f} | {a['kappa']:.3f} | {classes} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the fitted split's replies the rules get wrong")
    args = parser.parse_args(argv)
    replies = load()
    print("\n".join(table([(r, rules(r)) for r in replies])))
    if args.misses:
        for r in replies:
            got = rules(r)
            if r.split == "dev" and got is not r.label:
                print(f"- {r.label} read as {got}: {r.text} ({r.note})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
