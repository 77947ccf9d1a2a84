"""Node names compressed as Slurm writes them (envcheck/fleet/hostlist.py).

Checked two ways: cases whose answers were read from a real `scontrol show hostlistsorted`
(Slurm 22.05, Debian bookworm), and, where scontrol is installed (`apt-get install
slurm-client`), against scontrol itself: its expansion of every compressed list must be the
names given, and for names of one padding style its own compression must be ours, character
for character. scontrol needs a configuration to start; a minimal one is written for it.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from envcheck.fleet.hostlist import compress

# What Slurm printed for these (scontrol show hostlistsorted, read by hand).
SLURM_ANSWERS = {
    "gpu001,gpu002,gpu003,gpu005": "gpu[001-003,005]",
    "gpu9,gpu10,gpu11": "gpu[9-11]",
    "gpu09,gpu10": "gpu[09-10]",
    "n1,n01": "n[1,01]",
    "a,b,a1": "a,a1,b",
    "gpu001,cpu1,gpu002": "cpu1,gpu[001-002]",
    "x1y2,x1y3": "x1y[2-3]",
    "n-1,n-2": "n-[1-2]",
    "n0,n00,n000": "n[0,00,000]",
    "n099,n100,n101": "n[099-101]",
    "n98,n099,n100": "n[98,099-100]",
    "gpu1,gpu01,gpu2,gpu02": "gpu[1-2,01-02]",
    "A1,a2": "A1,a2",
    "n1a,n1b": "n1a,n1b",
}
# Slurm's own order differs here (its comparison of widths is not a total order) but the names
# are the same: what matters is the set a hostlist expands to.
SAME_NAMES = {
    "n007,n8,n9": "n[007,8-9]",  # Slurm: n[8-9,007]
    "n9,n10,n08": "n[08,9-10]",  # Slurm: n[9-10,08]
    "n1,n3,n2,n2": "n[1-3]",  # Slurm keeps the duplicate: n[1-2,2-3]
}


@pytest.mark.parametrize(("names", "expected"), sorted({**SLURM_ANSWERS, **SAME_NAMES}.items()))
def test_hand_checked_cases(names: str, expected: str) -> None:
    assert compress(names.split(",")) == expected


def test_a_big_cluster_with_a_gap() -> None:
    names = [f"gpu{n:03d}" for n in range(1, 129)] + ["gpu130"]
    assert compress(names) == "gpu[001-128,130]"
    assert compress(reversed(names)) == "gpu[001-128,130]"


def test_one_name_has_no_brackets() -> None:
    assert compress(["gpu007"]) == "gpu007"
    assert compress([]) == ""


_RANGE = re.compile(r"^(?P<lo>[0-9]+)(?:-(?P<hi>[0-9]+))?$")


def expand(hostlist: str) -> list[str]:
    """A hostlist expression's names, as Slurm expands it (prefix[lo-hi,...], the width of lo
    kept): the test's own reader, for machines without scontrol."""
    names, depth, start = [], 0, 0
    parts = []
    for position, character in enumerate(hostlist + ","):
        depth += {"[": 1, "]": -1}.get(character, 0)
        if character == "," and depth == 0:
            parts.append(hostlist[start:position])
            start = position + 1
    for part in filter(None, parts):
        if "[" not in part:
            names.append(part)
            continue
        prefix, inside = part[:-1].split("[", 1)
        for item in inside.split(","):
            match = _RANGE.match(item)
            assert match, item
            lo, hi = match["lo"], match["hi"] or match["lo"]
            names += [f"{prefix}{str(n).zfill(len(lo))}" for n in range(int(lo), int(hi) + 1)]
    return names


def _random_names(seed: int) -> list[str]:
    chance = random.Random(seed)
    names = set()
    for _ in range(chance.randint(1, 60)):
        prefix = chance.choice(["gpu", "n", "rack1-node", "a100-", ""])
        style = chance.choice(["padded", "plain", "mixed"])
        number = chance.randint(0, 130)
        width = 3 if style == "padded" else (chance.choice([1, 2, 3]) if style == "mixed" else 0)
        names.add(f"{prefix}{str(number).zfill(width)}" if prefix else f"h{number}")
    return sorted(names)


@pytest.mark.parametrize("seed", range(40))
def test_compressed_lists_expand_to_the_names(seed: int) -> None:
    names = _random_names(seed)
    assert sorted(expand(compress(names))) == names


# --- against a real scontrol -----------------------------------------------------------------


@pytest.fixture(scope="module")
def scontrol(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, str]]:
    found = shutil.which("scontrol")
    if found is None:
        pytest.skip("scontrol is not installed (apt-get install slurm-client)")
    conf = tmp_path_factory.mktemp("slurm") / "slurm.conf"
    conf.write_text(
        "ClusterName=hostlist\nSlurmctldHost=localhost\n"
        "NodeName=n1 CPUs=1 State=UNKNOWN\nPartitionName=p Nodes=n1\n"
    )
    env = {"SLURM_CONF": str(conf), "PATH": str(Path(found).parent)}
    done = subprocess.run([found, "show", "hostnames", "n[1-2]"], env=env, capture_output=True,
                          text=True, timeout=30, check=False)  # fmt: skip
    if done.stdout.split() != ["n1", "n2"]:
        pytest.skip(f"scontrol does not run here: {done.stderr.strip()[-200:]}")
    return found, env


def _scontrol(tool: tuple[str, dict[str, str]], *args: str) -> str:
    done = subprocess.run([tool[0], "show", *args], env=tool[1], capture_output=True, text=True,
                          timeout=30, check=True)  # fmt: skip
    return done.stdout.strip()


@pytest.mark.parametrize("seed", range(40))
def test_scontrol_expands_our_lists_to_the_names(
    scontrol: tuple[str, dict[str, str]], seed: int
) -> None:
    names = _random_names(seed)
    assert sorted(_scontrol(scontrol, "hostnames", compress(names)).split()) == names


@pytest.mark.parametrize("names", sorted(SLURM_ANSWERS))
def test_scontrol_compresses_the_hand_checked_cases_alike(
    scontrol: tuple[str, dict[str, str]], names: str
) -> None:
    assert _scontrol(scontrol, "hostlistsorted", names) == compress(names.split(","))


@pytest.mark.parametrize("seed", range(20))
def test_scontrol_compresses_one_padding_style_alike(
    scontrol: tuple[str, dict[str, str]], seed: int
) -> None:
    chance = random.Random(1000 + seed)
    width = chance.choice([0, 3, 4])
    names = sorted({f"gpu{str(chance.randint(0, 300)).zfill(width)}" for _ in range(80)} |
                   {f"cpu{chance.randint(1, 9)}" for _ in range(3)})  # fmt: skip
    if width == 0:  # unpadded numbers of one prefix: all one width class for Slurm too
        names = [n for n in names if not re.search(r"\D0\d", n)]
    assert _scontrol(scontrol, "hostlistsorted", ",".join(names)) == compress(names)
