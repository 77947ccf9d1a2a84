"""The probe is linear in the size of a site-packages (issue 24, 10).

`wheel_owners` matched every wheel against every *.dist-info folder of its site-packages: 1,000
extra `nvidia_*` distributions took 39 s, 4,000 over 5 minutes (10,000 took 2.5 minutes of
`envcheck probe` after the listing was made once per site; the matching stayed). Each site is
now listed once, its folders indexed by normalized name and each RECORD read once. The budget
below is generous (the owners of 6,000 wheels take about a second here, on a loaded 2-core
machine); the matching it replaces needs about 40 s for them. bench/probe_sitepackages.py
measures the growth of the whole probe.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from envcheck.probe.facts import WheelFacts
from envcheck.probe.libraries import dist_info_index, wheel_owners

BUDGET_S = 10.0


def nvidia_site(site: Path, count: int) -> Path:
    """`count` nvidia_* distributions, each a *.dist-info folder whose RECORD names a library."""
    site.mkdir()
    for number in range(count):
        info = site / f"nvidia_many{number}_cu12-1.0.{number}.dist-info"
        info.mkdir()
        (info / "RECORD").write_text(f"nvidia/many{number}/lib/libmany{number}.so.1,,\n")
    return site


def test_the_owners_of_six_thousand_wheels_take_seconds(tmp_path: Path) -> None:
    site = nvidia_site(tmp_path / "site-packages", 6_000)
    wheels = [WheelFacts(f"nvidia-many{n}-cu12", f"1.0.{n}", str(site)) for n in range(6_000)]
    started = time.monotonic()
    owners = wheel_owners(wheels)
    seconds = time.monotonic() - started
    assert len(owners) == 6_000
    assert owners[str(site.resolve() / "nvidia/many5999/lib/libmany5999.so.1")] == (
        "nvidia-many5999-cu12 1.0.5999 (pip)"
    )
    assert seconds < BUDGET_S


def test_each_wheel_owns_the_libraries_its_own_record_lists(tmp_path: Path) -> None:
    site = nvidia_site(tmp_path / "site-packages", 3)
    # A broken upgrade left two folders of one name: each version's RECORD is its own.
    old = site / "nvidia_many1_cu12-0.9.dist-info"
    old.mkdir()
    (old / "RECORD").write_text("nvidia/many1/lib/libold.so.0,,\n")
    (site / "nvidia.many2_cu12-x.dist-info").mkdir()  # spelled otherwise, same normalized name
    wheels = [
        WheelFacts("nvidia-many0-cu12", "1.0.0", str(site)),
        WheelFacts("nvidia-many1-cu12", "1.0.1", str(site)),
        WheelFacts("nvidia-many1-cu12", "0.9", str(site)),
        WheelFacts("nvidia-many1-cu12", "1.0.1", str(site)),  # reported twice: read once
    ]
    owners = wheel_owners(wheels)
    real = site.resolve()
    assert owners == {
        str(real / "nvidia/many0/lib/libmany0.so.1"): "nvidia-many0-cu12 1.0.0 (pip)",
        str(real / "nvidia/many1/lib/libmany1.so.1"): "nvidia-many1-cu12 1.0.1 (pip)",
        str(real / "nvidia/many1/lib/libold.so.0"): "nvidia-many1-cu12 0.9 (pip)",
    }
    index = dist_info_index(str(site))
    assert index["nvidia_many2_cu12"] == [
        "nvidia.many2_cu12-x.dist-info",
        "nvidia_many2_cu12-1.0.2.dist-info",
    ]


def test_a_fifo_planted_as_a_record_is_passed_over_not_waited_on(tmp_path: Path) -> None:
    # A plain open() of a FIFO waits for a writer that never comes: the probe hung. The RECORD
    # readers (wheel owners, copy owners) open without waiting and read regular files only. Run
    # in a child with a timeout, so that a regression fails instead of hanging the suite.
    site = nvidia_site(tmp_path / "site-packages", 2)
    record = site / "nvidia_many1_cu12-1.0.1.dist-info" / "RECORD"
    record.unlink()
    os.mkfifo(record)
    script = (
        "import sys\n"
        "from envcheck.probe.facts import WheelFacts\n"
        "from envcheck.probe.copy_owners import site_claims\n"
        "from envcheck.probe.libraries import wheel_owners\n"
        "site = sys.argv[1]\n"
        "owners = wheel_owners([WheelFacts(f'nvidia-many{n}-cu12', f'1.0.{n}', site)"
        " for n in range(2)])\n"
        "print(len(owners), sorted(site_claims(site)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(site)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "1"  # the regular RECORD's library; the FIFO's none
    assert "nvidia/many0/lib/libmany0.so.1" in done.stdout
