"""A real Slurm cluster in network namespaces, started and stopped by a test.

One `slurmctld` and one `slurmd` per node, from Debian's packages: each daemon in its own network
namespace (`ip netns`, veth pairs to a bridge in the controller's namespace, addresses
10.99.0.0/24 that exist nowhere else), its own UTS namespace (the node's host name) and its own
mount namespace (a private /etc/hosts, and on a broken node whatever `breakage` binds over a file
there; the host's files are never changed). `munged` runs with a key made here. Everything
lives in one temporary directory: slurm.conf, state, spool, logs, pid files, the munge socket.
Nothing listens outside these namespaces, and `stop` ends every process started here (and
whatever they started in the namespaces), deletes the namespaces and the directory.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

DEBIAN_PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge", "iproute2", "util-linux")
PROGRAMS = ("slurmctld", "slurmd", "scontrol", "sinfo", "srun", "munged", "ip", "unshare")
SUBNET = "10.99.0"
CONTROLLER = "ctl"


def missing_programs() -> list[str]:
    return [p for p in PROGRAMS if shutil.which(p) is None]


def install_debian_packages() -> None:
    """apt-get install what is missing (as root on Debian; CI installs them up front)."""
    if not missing_programs() or os.geteuid() != 0 or shutil.which("apt-get") is None:
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], env=env, check=False, timeout=600)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *DEBIAN_PACKAGES],
        env=env,
        check=False,
        timeout=900,
        capture_output=True,
    )


@dataclass
class Node:
    name: str
    address: str
    # (a file the node sees instead of the real one, the real path): bind mounts in its own
    # mount namespace.
    breakage: Sequence[tuple[Path, Path]] = ()


@dataclass
class Cluster:
    nodes: Sequence[Node]
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="ec-slurm-")))
    # Extra environment for the client commands (srun, sbatch, scontrol) run from the controller.
    client_env: dict[str, str] = field(default_factory=dict)
    prefix: str = field(default_factory=lambda: f"ecs{os.getpid()}")
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    namespaces: list[str] = field(default_factory=list)

    # --- paths -----------------------------------------------------------------------------

    @property
    def conf(self) -> Path:
        return self.root / "etc" / "slurm.conf"

    @property
    def munge_socket(self) -> Path:
        return self.root / "munge" / "munge.socket"

    @property
    def hub(self) -> str:
        return f"{self.prefix}-hub"

    def netns(self, node: Node) -> str:
        return f"{self.prefix}-{node.name}"

    def log(self, name: str) -> Path:
        return self.root / "log" / f"{name}.log"

    # --- set-up ----------------------------------------------------------------------------

    def start(self, settings: Mapping[str, str]) -> None:
        for sub in ("etc", "munge", "state", "spool", "log", "run"):
            (self.root / sub).mkdir(mode=0o700, exist_ok=True)
        self._hosts_file()
        self._network()
        self._munge()
        self.write_conf(settings)
        self._daemon(
            "slurmctld",
            self.hub,
            CONTROLLER,
            (),
            ["slurmctld", "-D", "-f", str(self.conf)],
        )
        self.wait_for(lambda: self.client("scontrol", "ping", check=False).returncode == 0, 30)
        for node in self.nodes:
            (self.root / "spool" / node.name).mkdir(mode=0o700, exist_ok=True)
            self._daemon(
                f"slurmd-{node.name}",
                self.netns(node),
                node.name,
                node.breakage,
                ["slurmd", "-D", "-f", str(self.conf), "-N", node.name],
            )

    def _hosts_file(self) -> None:
        lines = ["127.0.0.1 localhost", f"{SUBNET}.1 {CONTROLLER}"]
        lines += [f"{node.address} {node.name}" for node in self.nodes]
        (self.root / "etc" / "hosts").write_text("\n".join(lines) + "\n")

    def _ip(self, *args: str, netns: str | None = None) -> None:
        command = ["ip", *(["-n", netns] if netns else []), *args]
        subprocess.run(command, check=True, capture_output=True, timeout=30)

    def _network(self) -> None:
        self._ip("netns", "add", self.hub)
        self.namespaces.append(self.hub)
        self._ip("link", "set", "lo", "up", netns=self.hub)
        self._ip("link", "add", "br0", "type", "bridge", netns=self.hub)
        self._ip("addr", "add", f"{SUBNET}.1/24", "dev", "br0", netns=self.hub)
        self._ip("link", "set", "br0", "up", netns=self.hub)
        for index, node in enumerate(self.nodes):
            ns = self.netns(node)
            self._ip("netns", "add", ns)
            self.namespaces.append(ns)
            self._ip("link", "set", "lo", "up", netns=ns)
            # Both ends made inside the namespaces: nothing appears in the host's network.
            veth = f"veth{index}"
            self._ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns,
                     netns=self.hub)  # fmt: skip
            self._ip("link", "set", veth, "master", "br0", "up", netns=self.hub)
            self._ip("addr", "add", f"{node.address}/24", "dev", "eth0", netns=ns)
            self._ip("link", "set", "eth0", "up", netns=ns)

    def _munge(self) -> None:
        key = self.root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        munge = self.root / "munge"
        self._start(
            "munged",
            [
                "munged",
                "--foreground",
                "--force",
                f"--socket={self.munge_socket}",
                f"--key-file={key}",
                f"--pid-file={munge / 'munged.pid'}",
                f"--log-file={self.log('munged')}",
                f"--seed-file={munge / 'munged.seed'}",
            ],
        )
        self.wait_for(self.munge_socket.exists, 15)

    def write_conf(self, settings: Mapping[str, str]) -> None:
        """slurm.conf (and an empty plugstack.conf and a cgroup.conf beside it, so that nothing
        is read from the host's /etc/slurm), with `settings` added or overriding."""
        etc = self.root / "etc"
        (etc / "plugstack.conf").write_text("")
        # No cgroups are used (proctrack/linuxproc, task/none), but slurmd 22.05 loads a cgroup
        # plugin at start: v1 on the empty tmpfs each node mounts in its own namespace.
        (etc / "cgroup.conf").write_text("CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n")
        base = {
            "ClusterName": "envchecktest",
            "SlurmctldHost": f"{CONTROLLER}({SUBNET}.1)",
            "SlurmUser": "root",
            "SlurmdUser": "root",
            "AuthType": "auth/munge",
            "CredType": "cred/munge",
            "AuthInfo": f"socket={self.munge_socket}",
            "StateSaveLocation": str(self.root / "state"),
            "SlurmdSpoolDir": str(self.root / "spool" / "%n"),
            "SlurmctldPidFile": str(self.root / "run" / "slurmctld.pid"),
            "SlurmdPidFile": str(self.root / "run" / "slurmd-%n.pid"),
            "SlurmctldLogFile": str(self.log("slurmctld")),
            "SlurmdLogFile": str(self.root / "log" / "slurmd-%n.log"),
            "SlurmctldDebug": "info",
            "SlurmdDebug": "info",
            "PlugStackConfig": str(etc / "plugstack.conf"),
            "ProctrackType": "proctrack/linuxproc",
            "TaskPlugin": "task/none",
            "JobAcctGatherType": "jobacct_gather/none",
            "AccountingStorageType": "accounting_storage/none",
            "JobCompType": "jobcomp/none",
            "SwitchType": "switch/none",
            "MpiDefault": "none",
            "SchedulerType": "sched/builtin",
            "SelectType": "select/cons_tres",
            "SelectTypeParameters": "CR_CPU",
            "SlurmdParameters": "config_overrides",
            "ReturnToService": "2",
            "SlurmdTimeout": "60",
            "MessageTimeout": "30",
            "TmpFS": str(self.root / "run"),
        }
        lines = [f"{k}={v}" for k, v in {**base, **settings}.items() if v]
        lines += [
            f"NodeName={n.name} NodeAddr={n.address} CPUs=1 RealMemory=100 State=UNKNOWN"
            for n in self.nodes
        ]
        lines.append("PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP")
        tmp = self.conf.with_suffix(".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        tmp.replace(self.conf)

    def reconfigure(self, settings: Mapping[str, str]) -> None:
        self.write_conf(settings)
        self.client("scontrol", "reconfigure")

    def _start(self, name: str, command: Sequence[str]) -> None:
        log = self.log(name).with_suffix(".out").open("wb")
        env = {"PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")}
        env["SLURM_CONF"] = str(self.conf)
        self.processes[name] = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=self.root,
            start_new_session=True,
        )
        log.close()

    def _daemon(
        self,
        name: str,
        netns: str,
        hostname: str,
        breakage: Sequence[tuple[Path, Path]],
        command: Sequence[str],
    ) -> None:
        """`command` in `netns`, in new UTS and mount namespaces: its host name, the cluster's
        /etc/hosts, and the node's breakage bound over the real files."""
        binds = [(self.root / "etc" / "hosts", Path("/etc/hosts")), *breakage]
        script = f'hostname "{hostname}"\n'
        script += "".join(f'mount --bind "{src}" "{dst}"\n' for src, dst in binds)
        script += "mount -t tmpfs -o size=1m,mode=755 cgroup /sys/fs/cgroup\n"
        script += 'exec "$@"\n'
        self._start(
            name,
            ["ip", "netns", "exec", netns, "unshare", "--uts", "--mount",
             "--propagation", "private", "sh", "-ec", script, name, *command],
        )  # fmt: skip

    # --- use -------------------------------------------------------------------------------

    def client(
        self,
        *command: str,
        check: bool = True,
        timeout: float = 120,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """A client command (scontrol, sinfo, srun) run in the controller's network."""
        full_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "SLURM_CONF": str(self.conf),
            "HOME": str(self.root),
            **self.client_env,
            **(env or {}),
        }
        done = subprocess.run(
            ["ip", "netns", "exec", self.hub, *command],
            capture_output=True,
            text=True,
            env=full_env,
            # Jobs start in this directory: a crash's core file lands here, and goes with it.
            cwd=self.root,
            timeout=timeout,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"{' '.join(command)} exited {done.returncode}\n{done.stdout}\n{done.stderr}\n"
                + self.logs_tail()
            )
        return done

    def node_states(self) -> dict[str, tuple[str, str]]:
        """{node: (state, reason)} from `sinfo -N`: the state in Slurm's long form."""
        out = self.client("sinfo", "-N", "-h", "-o", "%N|%T|%E").stdout
        states = {}
        for line in out.splitlines():
            name, state, reason = line.split("|", 2)
            states[name] = (state, "" if reason == "none" else reason)
        return states

    def running(self, text: str) -> list[int]:
        """The processes in the nodes' namespaces whose command line holds `text`."""
        found = []
        for ns in self.namespaces:
            pids = subprocess.run(
                ["ip", "netns", "pids", ns], capture_output=True, text=True, check=False
            ).stdout.split()
            for pid in pids:
                try:
                    command = Path(f"/proc/{pid}/cmdline").read_bytes()
                except OSError:
                    continue  # ended meanwhile
                if text.encode() in command:
                    found.append(int(pid))
        return found

    def wait_for(self, ready: object, seconds: float, what: str = "") -> None:
        assert callable(ready)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if ready():
                return
            self._check_alive()
            time.sleep(0.25)
        raise AssertionError(f"timed out after {seconds} s waiting for {what}\n{self.logs_tail()}")

    def _check_alive(self) -> None:
        for name, process in self.processes.items():
            if process.poll() is not None:
                raise AssertionError(f"{name} exited {process.returncode}\n{self.logs_tail()}")

    def logs_tail(self, lines: int = 15) -> str:
        parts = []
        for path in sorted((self.root / "log").glob("*")):
            text = path.read_text(errors="replace").splitlines()[-lines:]
            parts.append(f"--- {path.name}\n" + "\n".join(text))
        return "\n".join(parts)

    # --- tear-down -------------------------------------------------------------------------

    def stop(self) -> None:
        """Every process started here, then whatever is left in the namespaces (slurmstepd,
        jobs), then the namespaces and the directory. Never raises."""
        for process in reversed(list(self.processes.values())):
            _end(process)
        for ns in self.namespaces:
            pids = subprocess.run(
                ["ip", "netns", "pids", ns], capture_output=True, text=True, check=False
            ).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)
        shutil.rmtree(self.root, ignore_errors=True)


def _end(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        process.wait(timeout=10)
