"""deploy/kubernetes: the manifests checked offline against the Kubernetes API's own schema
(kubernetes-validate, strict: an unknown or misspelt field is an error, as `kubectl apply
--validate=strict` makes it), what the schema cannot say (selectors that select the pod, the
GPU nodes, the host directories), and the containers' shell scripts run here for real."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")
kubernetes_validate = pytest.importorskip("kubernetes_validate")

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "kubernetes"
DAEMONSET = DEPLOY / "envcheck-daemonset.yaml"
JOB = DEPLOY / "envcheck-job.yaml"
MANIFESTS = sorted(DEPLOY.glob("*.yaml"))
BIN = Path(sys.executable).parent
# The oldest Kubernetes release still supported by the large providers, and a recent one: the
# manifests use nothing newer than the first.
KUBERNETES_VERSIONS = ("1.29.0", "1.33.0")
NFD_FEATURES_DIR = "/etc/kubernetes/node-feature-discovery/features.d"

Manifest = dict[str, Any]


def documents(path: Path) -> list[Manifest]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def only(path: Path, kind: str) -> Manifest:
    found = [doc for doc in documents(path) if doc["kind"] == kind]
    assert len(found) == 1, [doc["kind"] for doc in documents(path)]
    return found[0]


def test_the_manifests_are_there() -> None:
    assert [p.name for p in MANIFESTS] == ["envcheck-daemonset.yaml", "envcheck-job.yaml"]


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_every_manifest_validates_strictly(path: Path, version: str) -> None:
    for document in documents(path):
        kubernetes_validate.validate(document, version, strict=True)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["spec"]["template"]["spec"]["containers"][0].update(imagePullPolcy="x"),
        lambda d: d["spec"]["template"]["spec"].update(runtimeClassName=["nvidia"]),
        lambda d: d["spec"]["template"]["spec"]["containers"][0].pop("name"),
    ],
    ids=["misspelt-field", "wrong-type", "required-field-missing"],
)
def test_the_validation_would_catch_a_broken_manifest(change: Callable[[Manifest], object]) -> None:
    broken = copy.deepcopy(only(DAEMONSET, "DaemonSet"))
    change(broken)
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSIONS[0], strict=True)


def _pod(manifest: Manifest) -> Manifest:
    pod: Manifest = manifest["spec"]["template"]["spec"]
    return pod


def test_the_daemonset_runs_on_every_gpu_node_with_the_nvidia_runtime() -> None:
    daemonset = only(DAEMONSET, "DaemonSet")
    pod = _pod(daemonset)
    assert pod["runtimeClassName"] == "nvidia"
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert {"operator": "Exists"} in pod["tolerations"]
    labels = daemonset["spec"]["template"]["metadata"]["labels"]
    assert daemonset["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert daemonset["metadata"]["namespace"] == only(DAEMONSET, "Namespace")["metadata"]["name"]
    host_paths = {v["name"]: v["hostPath"]["path"] for v in pod["volumes"] if "hostPath" in v}
    assert host_paths["nfd-features"] == NFD_FEATURES_DIR
    assert "textfile" in host_paths
    for container in pod["containers"]:
        limits = container["resources"]["limits"]
        assert {"cpu", "memory"} <= limits.keys() <= {"cpu", "memory"}, container["name"]
        security = container["securityContext"]
        assert security["allowPrivilegeEscalation"] is False
        assert security["capabilities"]["drop"] == ["ALL"]
        assert security["readOnlyRootFilesystem"] is True
    doctor, publish = pod["containers"]
    # envcheck runs as a user; only the copy into the host's root-owned directories is root.
    assert doctor["securityContext"]["runAsNonRoot"] is True
    assert not [m for m in doctor["volumeMounts"] if m["name"] in host_paths]
    assert {m["name"] for m in publish["volumeMounts"]} == {"out", *host_paths}
    assert pod["automountServiceAccountToken"] is False


def test_the_job_runs_one_pod_per_node_of_one_pool() -> None:
    job = only(JOB, "Job")
    pod = _pod(job)
    assert pod["runtimeClassName"] == "nvidia"
    assert pod["restartPolicy"] == "Never"
    assert pod["nodeSelector"]["nvidia.com/gpu.present"] == "true"
    assert job["spec"]["completions"] == job["spec"]["parallelism"]
    (term,) = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    labels = job["spec"]["template"]["metadata"]["labels"]
    assert term["labelSelector"]["matchLabels"].items() <= labels.items()
    (container,) = pod["containers"]
    assert container["securityContext"]["runAsNonRoot"] is True
    assert {"cpu", "memory"} <= container["resources"]["limits"].keys()


# --- the containers' scripts, run here --------------------------------------------------------


def _script(container: Manifest) -> str:
    assert container["command"] == ["/bin/sh", "-c"]
    (script,) = container["args"]
    assert isinstance(script, str)
    return script


def _container_env(container: Manifest, **overrides: str) -> dict[str, str]:
    env = {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}
    env.pop("NVIDIA_VISIBLE_DEVICES", None)
    env.pop("NVIDIA_DRIVER_CAPABILITIES", None)
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")},
        **env,
        "PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "ENVCHECK_NODE": "gpu-node-7",
        **overrides,
    }


def _run_until(command: list[str], env: dict[str, str], done: Callable[[], bool]) -> str:
    """Run a container's endless loop until `done`, then stop it; its output."""
    process = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        end = time.monotonic() + 120
        while not done() and time.monotonic() < end and process.poll() is None:
            time.sleep(0.2)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        output = process.communicate(timeout=30)[0].decode(errors="replace")
    return output


def test_the_daemonset_writes_both_files_and_publishes_them_whole(tmp_path: Path) -> None:
    doctor, publish = _pod(only(DAEMONSET, "DaemonSet"))["containers"]
    out, nfd, textfile = tmp_path / "out", tmp_path / "nfd", tmp_path / "textfile"
    for folder in (out, nfd, textfile):
        folder.mkdir()

    doctor_env = _container_env(doctor, OUT=str(out), ENVCHECK_CACHE_DIR=str(tmp_path / "c"))
    log = _run_until(["/bin/sh", "-c", _script(doctor)], doctor_env, (out / "envcheck.prom").exists)
    assert (out / "envcheck.prom").exists(), log
    assert re.search(r"--format nfd: exit [014]\b", log), log

    publish_env = _container_env(
        publish, OUT=str(out), NFD_DIR=str(nfd), TEXTFILE_DIR=str(textfile)
    )
    log = _run_until(
        ["/bin/sh", "-c", _script(publish)],
        publish_env,
        lambda: (nfd / "envcheck").exists() and (textfile / "envcheck.prom").exists(),
    )
    assert sorted(p.name for p in nfd.iterdir()) == ["envcheck"], log  # no temporary left
    assert sorted(p.name for p in textfile.iterdir()) == ["envcheck.prom"], log
    labels = (nfd / "envcheck").read_text().splitlines()
    assert labels and all(re.fullmatch(r"[\w.-]+/[\w./-]+=[\w.-]*", line) for line in labels)
    metrics = (textfile / "envcheck.prom").read_text()
    assert "# TYPE " in metrics and 'node="gpu-node-7"' in metrics


def test_the_job_prints_the_report_alone_and_succeeds_with_a_verdict(tmp_path: Path) -> None:
    (container,) = _pod(only(JOB, "Job"))["containers"]
    # The pod's /tmp and /dev/termination-log, here in tmp_path.
    script = _script(container).replace("/tmp/", f"{tmp_path}/")
    script = script.replace("/dev/termination-log", str(tmp_path / "termination-log"))
    done = subprocess.run(
        ["/bin/sh", "-c", script],
        env=_container_env(container),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # nothing else on standard output
    assert report["node"] == "gpu-node-7"
    assert report["verdict"] in ("pass", "warn", "fail", "unknown")


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
@pytest.mark.parametrize(
    "container",
    [c for path in MANIFESTS for doc in documents(path) if doc["kind"] != "Namespace"
     for c in _pod(doc)["containers"]],
    ids=lambda c: str(c["name"]),
)  # fmt: skip
def test_the_container_scripts_pass_shellcheck(container: Manifest) -> None:
    done = subprocess.run(
        ["shellcheck", "--shell=sh", "-"],
        input=_script(container),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout
