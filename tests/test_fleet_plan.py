"""`envcheck fleet plan --image REPORT --nodes DIR` (issue 21, 6): per group of nodes, will the
image run there, and why not. The image's report is what its Docker build step writes
(`envcheck doctor --format json --target-driver ...` in a build: no driver, no GPU); the nodes'
are their doctors' reports; both are written here by `envcheck doctor --facts` itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from envcheck.probe.facts import Facts, facts_from_json
from envcheck.probe.platform_facts import container_toolkit
from tests.facts_builder import LINUX, driver, gpu, lib, machine, torch

TORCH_CUDA13 = (torch("2.14.1", "13.0"),)  # needs a CUDA 13 driver: R580 or newer
IMAGE = machine(
    driver=driver(None, None, "missing"), gpus=(), frameworks=TORCH_CUDA13, libraries=(),
    platform=replace(LINUX, device_nodes=(), container="docker"),
)  # fmt: skip
WITH_TOOLKIT = replace(LINUX, container_toolkit=("nvidia-container-cli", "nvidia-ctk"))


def node(driver_version: str, cuda: str, gpu_name: str, cc: str, **platform: Any) -> Facts:
    return machine(
        driver=driver(driver_version, cuda), gpus=(gpu(gpu_name, cc),), frameworks=TORCH_CUDA13,
        libraries=(), platform=replace(WITH_TOOLKIT, **platform),
    )  # fmt: skip


NODES = {
    "h": (node("580.65.06", "13.0", "NVIDIA H100 80GB HBM3", "9.0"), ["h001", "h002", "h003"]),
    "a": (node("535.104.05", "12.2", "NVIDIA A100-SXM4-80GB", "8.0"), ["a01", "a02"]),
    "g": (node("535.104.05", "12.2", "NVIDIA GeForce RTX 4090", "8.9", container_toolkit=()),
          ["ws1"]),
    "k": (node("470.256.02", "11.4", "Tesla K80", "3.7"), ["old1"]),
    "w": (node("581.57", "13.0", "NVIDIA GeForce RTX 4090", "8.9", os="windows"), ["win1"]),
    "c": (node("580.65.06", "13.0", "NVIDIA H100 80GB HBM3", "9.0", container="kubernetes",
               container_toolkit=None), ["k8s1"]),
    "u": (node("580.65.06", "13.0", "NVIDIA H100 80GB HBM3", "9.0", container_toolkit=None),
          ["legacy1"]),
}  # fmt: skip


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}


def doctor(facts: Facts, directory: Path, output: Path, *args: str) -> None:
    source = directory / f"{output.stem}.facts.json"
    source.write_text(json.dumps(facts.to_json()))
    done = subprocess.run(
        [sys.executable, "-m", "envcheck", "doctor", "--facts", str(source), "--format", "json",
         "-o", str(output), *args],
        capture_output=True, text=True, env=_env(), timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr


def plan(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "fleet", "plan", *args],
        capture_output=True, text=True, env=_env(), timeout=120, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def rollout(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("plan")
    image = root / "image.json"
    doctor(IMAGE, root, image, "--target-driver", "580.65.06", "--target-gpu", "H100")
    nodes = root / "nodes"
    nodes.mkdir()
    for facts, names in NODES.values():
        for name in names:
            doctor(facts, root, nodes / f"{name}.json", "--node", name)
    return image, nodes


def _groups(done: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    result = json.loads(done.stdout)
    return {g["hostlist"]: g for g in result["groups"]}


def _outcomes(group: dict[str, Any]) -> dict[str, str]:
    return {r["check"]: r["outcome"] for r in group["reasons"]}


def test_each_group_gets_its_answer(rollout: tuple[Path, Path]) -> None:
    image, nodes = rollout
    done = plan("--image", str(image), "--nodes", str(nodes), "--format", "json")
    assert done.returncode == 1, done.stderr  # some groups fail: CI can gate the rollout
    groups = _groups(done)
    assert _outcomes(groups["h[001-003]"]) == {
        "platform": "ok", "container-runtime": "ok", "driver": "ok", "gpu-architecture": "ok"
    }  # fmt: skip
    assert groups["h[001-003]"]["verdict"] == "pass"
    # A driver too old for CUDA 13; on a data-center GPU forward compatibility is named.
    a100 = groups["a[01-02]"]
    assert a100["verdict"] == "fail"
    (too_old,) = [r for r in a100["reasons"] if r["check"] == "driver"]
    assert too_old["outcome"] == "fail" and "535.104.05" in too_old["message"]
    assert "cuda-compat" in too_old["fix"] and "data-center" in too_old["fix"]
    # The same driver on a GeForce card: only a newer driver helps; and no container toolkit.
    geforce = groups["ws1"]
    assert _outcomes(geforce)["container-runtime"] == "fail"
    (too_old,) = [r for r in geforce["reasons"] if r["check"] == "driver"]
    assert "forward compatibility is for data-center GPUs only" in too_old["fix"]
    # Kepler: no kernels in a CUDA 13 build.
    assert _outcomes(groups["old1"])["gpu-architecture"] == "fail"
    assert _outcomes(groups["win1"])["platform"] == "fail"
    # The doctor ran in a pod that had the GPU: the runtime works there.
    assert _outcomes(groups["k8s1"])["container-runtime"] == "ok"
    assert groups["k8s1"]["verdict"] == "pass"
    # A report that does not say: unknown, never guessed.
    assert _outcomes(groups["legacy1"])["container-runtime"] == "unknown"
    assert groups["legacy1"]["verdict"] == "unknown"
    verdicts = [g["verdict"] for g in json.loads(done.stdout)["groups"]]
    assert verdicts == sorted(verdicts, key=["fail", "unknown", "warn", "pass"].index)


def test_every_group_passing_exits_0(rollout: tuple[Path, Path], tmp_path: Path) -> None:
    image, nodes = rollout
    for name in ("h001", "h002", "k8s1"):
        (tmp_path / f"{name}.json").write_text((nodes / f"{name}.json").read_text())
    done = plan("--image", str(image), "--nodes", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0].endswith("on 3 node(s) in 2 group(s): 3 pass.")


def test_an_image_carrying_cuda_compat_runs_on_data_center_gpus(tmp_path: Path) -> None:
    compat = lib("cuda-driver", "libcuda.so.1", "/usr/local/cuda-13.0/compat/libcuda.so.1",
                 "580.65.06", found_via="ld.so.cache")  # fmt: skip
    image = tmp_path / "image.json"
    doctor(replace(IMAGE, libraries=(compat,)), tmp_path, image, "--target-driver", "580.65.06")
    nodes = tmp_path / "nodes"
    nodes.mkdir()
    for key in ("a", "g"):
        facts, names = NODES[key]
        doctor(facts, tmp_path, nodes / f"{names[0]}.json", "--node", names[0])
    groups = _groups(plan("--image", str(image), "--nodes", str(nodes), "--format", "json"))
    assert _outcomes(groups["a01"])["driver"] == "warn"  # runs through forward compatibility
    assert _outcomes(groups["ws1"])["driver"] == "fail"  # a GeForce card cannot


def test_the_images_own_errors_fail_every_group(rollout: tuple[Path, Path], tmp_path: Path) -> None:
    _, nodes = rollout
    image = tmp_path / "image.json"
    cpu_only = replace(IMAGE, frameworks=(torch("2.14.1", None),))
    doctor(cpu_only, tmp_path, image, "--target-driver", "580.65.06", "--target-gpu", "H100")
    report = json.loads(image.read_text())
    assert report["verdict"] == "fail", report["findings"]
    groups = _groups(plan("--image", str(image), "--nodes", str(nodes), "--format", "json"))
    assert {g["verdict"] for g in groups.values()} == {"fail"}
    assert all(_outcomes(g).get("image") == "fail" for g in groups.values())


def test_text_and_csv_answers(rollout: tuple[Path, Path]) -> None:
    image, nodes = rollout
    text = plan("--image", str(image), "--nodes", str(nodes)).stdout
    assert "FAIL         2 node(s)  a[01-02]" in text
    assert "  fail    driver: The NVIDIA driver is too old" in text
    rows = plan("--image", str(image), "--nodes", str(nodes), "--format", "csv").stdout
    assert rows.splitlines()[0] == "verdict,nodes,hostlist,driver,gpus,check,outcome,message,fix"


def test_a_bad_image_report_is_a_usage_error(rollout: tuple[Path, Path], tmp_path: Path) -> None:
    _, nodes = rollout
    node_report = next(nodes.glob("*.json"))
    not_report = tmp_path / "x.json"
    not_report.write_text('{"schema": "envcheck.facts/1"}')
    for image, words in (
        (tmp_path / "missing.json", "cannot be read"),
        (not_report, "is not an envcheck.report/1 report"),
        (tmp_path, "is a directory, not a regular file"),
    ):
        done = plan("--image", str(image), "--nodes", str(node_report))
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.splitlines()) == 1 and words in done.stderr, done.stderr
    done = plan("--nodes", str(nodes))
    assert done.returncode == 2 and "--image is required" in done.stderr


# --- the probe's fact behind container-runtime ------------------------------------------------


def test_the_container_toolkit_is_found_on_path_and_as_cdi_specs(tmp_path: Path) -> None:
    (tmp_path / "usr" / "bin").mkdir(parents=True)
    (tmp_path / "usr" / "bin" / "nvidia-ctk").write_text("#!/bin/sh\n")
    (tmp_path / "opt" / "tk").mkdir(parents=True)
    (tmp_path / "opt" / "tk" / "nvidia-container-cli").write_text("#!/bin/sh\n")
    (tmp_path / "etc" / "cdi").mkdir(parents=True)
    (tmp_path / "etc" / "cdi" / "nvidia.yaml").write_text("cdiVersion: 0.5.0\n")
    (tmp_path / "etc" / "cdi" / "other.yaml").write_text("cdiVersion: 0.5.0\n")
    found = container_toolkit(tmp_path, {"PATH": "/opt/tk:/nowhere"})
    assert found == ("nvidia-container-cli", "nvidia-ctk", "cdi:nvidia.yaml")
    assert container_toolkit(tmp_path / "empty", {"PATH": "/usr/bin"}) == ()


def test_a_facts_file_without_the_toolkit_field_says_not_asked() -> None:
    data = json.loads(json.dumps(machine().to_json()))  # as a facts file holds it
    del data["platform"]["container_toolkit"]
    assert facts_from_json(data).platform.container_toolkit is None
    data["platform"]["container_toolkit"] = []
    assert facts_from_json(data).platform.container_toolkit == ()
