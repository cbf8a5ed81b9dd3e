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


def agreement(replies: list[Reply]) -> dict[str, float]:
    """Accuracy, Cohen's kappa, and each class's precision and recall against the labels."""
    pairs = [(r.label, classify(r.text, r.role)) for r in replies]
    out = {"n": float(len(pairs)), "accuracy": ratio(sum(a == b for a, b in pairs), len(pairs)),
           "kappa": cohen_kappa(pairs)}
    for kind in Playing:
        c = Confusion(tp=sum(a is kind and b is kind for a, b in pairs),
                      fp=sum(a is not kind and b is kind for a, b in pairs),
                      fn=sum(a is kind and b is not kind for a, b in pairs))
        out |= {f"{kind}_precision": c.precision, f"{kind}_recall": c.recall}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the fitted split's replies the rules get wrong")
    args = parser.parse_args()
    replies = load()
    parts = {f"round {n} ({split})": [r for r in replies if r.round == n]
             for n, split in sorted({(r.round, r.split) for r in replies})}
    parts |= {split: [r for r in replies if r.split == split] for split in SPLITS} | {"all": replies}
    print("| replies | n | accuracy | kappa | played P / R | refused P / R | self-exposing P / R |")
    print("|---|---|---|---|---|---|---|")
    for name, part in parts.items():
        a = agreement(part)
        classes = " | ".join(f"{a[f'{k}_precision']:.2f} / {a[f'{k}_recall']:.2f}" for k in Playing)
        print(f"| {name} | {a['n']:.0f} | {a['accuracy']:.3f} | {a['kappa']:.3f} | {classes} |")
    if args.misses:
        for r in replies:
            got = classify(r.text, r.role)
            if r.split == "dev" and got is not r.label:
                print(f"- {r.label} read as {got}: {r.text} ({r.note})")


if __name__ == "__main__":
    main()
