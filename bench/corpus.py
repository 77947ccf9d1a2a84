"""How well `envcheck explain` reads the public log corpus (tests/corpus), per class and overall.

Prints the accuracy per failure class, per framework and per topic folder, the overall accuracy
against the target (95%), the false errors on logs whose cause is not the environment, and every
miss with what was expected and what was found.
Run: python bench/corpus.py [--misses] [--final-score SET]

The sealed held-out sets (tests/corpus_cases.SEALED) are neither
scored nor listed unless named with --final-score: each is scored at the start and at the end of
its issue, totals only, and tuning on their totals in between would be learning from them.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.corpus_cases reads the corpus

# After the path set-up above, which is why these are not at the top.
from envcheck.matrix.load import bundled_matrix_dir  # noqa: E402
from envcheck.matrix.model import load_matrix  # noqa: E402
from tests.corpus_cases import HOLDOUTS, SEALED, Verdict, cases, is_training, judge  # noqa: E402

TARGET = 0.95


def _table(title: str, verdicts: Iterable[Verdict], key: Callable[[Verdict], str]) -> None:
    groups: dict[str, list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        groups[key(verdict)].append(verdict)
    print(f"\n{title:40} {'cases':>6} {'right':>6} {'share':>7}")
    for name, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        right = sum(v.correct for v in members)
        print(f"{name:40} {len(members):6} {right:6} {right / len(members):7.0%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--misses", action="store_true", help="list every miss")
    parser.add_argument(
        "--final-score",
        action="append",
        default=[],
        choices=[folder.name for folder in SEALED],
        metavar="SET",
        help="also score this sealed held-out set (once at the start and once at the end of its "
        "issue); repeatable",
    )
    args = parser.parse_args()
    matrix = load_matrix(bundled_matrix_dir())
    everything = [judge(case, matrix) for case in cases()]
    verdicts = [v for v in everything if not is_training(v.case)]
    training = [v for v in everything if is_training(v.case)]
    _table("topic", everything, lambda v: v.case.topic)
    _table("framework", verdicts, lambda v: v.case.framework)
    _table("expected code", verdicts, lambda v: ",".join(v.case.expect))
    _table("failure class", verdicts, lambda v: v.case.failure_class)
    right = sum(v.correct for v in verdicts)
    share = right / len(verdicts)
    false_errors = [v for v in verdicts if v.false_error]
    not_environment = sum(not v.case.environment for v in verdicts)
    print(
        f"\noverall: {right}/{len(verdicts)} = {share:.1%} (target {TARGET:.0%}: "
        f"{'met' if share >= TARGET else 'NOT met'})"
    )
    print(
        f"false errors on the {not_environment} logs whose cause is not the environment: "
        f"{len(false_errors)}"
    )
    if training:
        trained = sum(v.correct for v in training)
        environment = [v for v in training if v.case.environment]
        print(
            f"training sets (train-*/, collected blind, then read): {trained}/{len(training)} = "
            f"{trained / len(training):.1%}; environment problems "
            f"{sum(v.correct for v in environment)}/{len(environment)}; false errors "
            f"{sum(v.false_error for v in training)}"
        )
    held_out: list[Verdict] = []
    for folder in HOLDOUTS:
        if folder in SEALED and folder.name not in args.final_score:
            print(f"held out ({folder.name}/): sealed (--final-score {folder.name} scores it)")
            continue
        these = [judge(case, matrix) for case in cases(folder)]
        if these:
            right_out = sum(v.correct for v in these)
            # Issue 22's target is the share of environment problems, apart from false errors.
            problems = [v for v in these if v.case.environment]
            solved = sum(v.correct for v in problems)
            print(
                f"held out ({folder.name}/, logs the signatures were not written from): "
                f"{right_out}/{len(these)} = {right_out / len(these):.1%}; environment problems "
                f"{solved}/{len(problems)} = {solved / max(len(problems), 1):.1%}; false errors "
                f"{sum(v.false_error for v in these)}"
            )
        held_out += these
    if args.misses:
        # A sealed set's misses are listed only with --final-score: reading them ends its use.
        for verdict in verdicts + held_out:
            if not verdict.correct:
                print(
                    f"\nMISS {verdict.case.name}: expected {list(verdict.case.expect)}, "
                    f"found {list(verdict.codes)}, errors {list(verdict.errors)}"
                )
                print(f"  {verdict.case.established}")


if __name__ == "__main__":
    main()
