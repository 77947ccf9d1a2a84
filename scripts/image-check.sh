#!/usr/bin/env bash
# The images, built and run for real (issue 21, part 4): Debian's Docker engine started here,
# a base image made from Debian's packages (no registry needed), `Dockerfile` built on it and
# its `doctor` run, then `examples/Dockerfile` built, whose build step is the doctor judging the
# image for its target fleet, and the image run.
#
#   scripts/image-check.sh [--no-examples] [--fresh-base]
#
#   --no-examples  skip examples/Dockerfile (TensorFlow with its CUDA wheels: about 5 minutes
#                  and 8 GB of disk)
#   --fresh-base   make the base image again even when a cached one exists (CI does)
#
# Needs root and Debian's docker.io (dockerd, containerd, runc, the docker client) and
# debootstrap. The engine gets its own data root, exec root, socket and pid file in a temporary
# directory, no iptables rules and no bridge (builds use the host's network), and is stopped
# and deleted at the end, also on failure or Ctrl-C. The host's Docker (its socket,
# /var/lib/docker, /etc/docker) is never used.
#
# pip inside the builds uses this machine's pip configuration: its index settings (index-url,
# extra-index-url, trusted-host, timeout, retries; local file paths left out) written to a file
# passed as the build secret `pipconf`, and the CA bundle its `cert` names as the secret
# `pipcert`: mounted only while a RUN step runs, never stored in the image (the script checks
# that by searching the saved images for the configuration).
#
# The base is Debian 12 (DEBIAN_SUITE; its Python 3.11), from this machine's Debian mirror
# (DEBIAN_MIRROR). Its root file system (debootstrap, about 2 minutes) is cached as a tarball in
# ${XDG_CACHE_HOME:-~/.cache}/envcheck/image-check/ for the next local run.
set -euo pipefail

examples=1
fresh_base=0
for arg in "$@"; do
  case "$arg" in
    --no-examples) examples=0 ;;
    --fresh-base) fresh_base=1 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "usage: $0 [--no-examples] [--fresh-base]" >&2
      exit 2
      ;;
  esac
done

repo="$(cd "$(dirname "$0")/.." && pwd)"
say() { printf '== %s\n' "$*"; }
fail() {
  printf 'image-check: %s\n' "$*" >&2
  exit 1
}
started=$SECONDS
lap=$SECONDS
took() {
  printf '   (%s: %d s)\n' "$1" "$((SECONDS - lap))"
  timings+=("$1: $((SECONDS - lap)) s")
  lap=$SECONDS
}
timings=()

[ "$(id -u)" -eq 0 ] || fail "needs root (it starts a Docker engine)"
for program in dockerd containerd runc debootstrap; do
  command -v "$program" >/dev/null || fail "$program not found: apt-get install docker.io debootstrap"
done
# The client that comes with Debian's engine (BuildKit is built into it), not another one on PATH.
docker_client="${DOCKER:-/usr/bin/docker}"
[ -x "$docker_client" ] || docker_client="$(command -v docker)" || fail "no docker client"

# A short path: the engine's unix socket must fit in 108 bytes.
work="$(mktemp -d /tmp/envcheck-image.XXXXXX)"
dockerd_pid=""

cleanup() {
  local status=$?
  if [ -n "$dockerd_pid" ] && kill -0 "$dockerd_pid" 2>/dev/null; then
    kill -TERM "$dockerd_pid" 2>/dev/null || true
    for _ in $(seq 1 60); do
      kill -0 "$dockerd_pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -KILL "$dockerd_pid" 2>/dev/null || true
    wait "$dockerd_pid" 2>/dev/null || true
  fi
  # Whatever the engine left mounted under the work directory (a killed engine leaves overlays).
  { grep -o " $work/[^ ]*" /proc/mounts || true; } | sort -r | while read -r mountpoint; do
    umount -l "$mountpoint" 2>/dev/null || true
  done
  rm -rf "$work" || true
  if [ "$status" -ne 0 ]; then
    echo "image-check: failed (exit $status)" >&2
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

docker() { DOCKER_HOST="unix://$work/docker.sock" DOCKER_BUILDKIT=1 "$docker_client" "$@"; }

say "the Docker engine (its own data root, socket and pid file under $work)"
echo '{}' >"$work/daemon.json"
dockerd \
  --config-file "$work/daemon.json" \
  --data-root "$work/data" \
  --exec-root "$work/exec" \
  --pidfile "$work/docker.pid" \
  --host "unix://$work/docker.sock" \
  --storage-driver overlay2 \
  --iptables=false \
  --ip-masq=false \
  --bridge=none \
  >"$work/dockerd.log" 2>&1 &
dockerd_pid=$!
for _ in $(seq 1 120); do
  docker version >/dev/null 2>&1 && break
  kill -0 "$dockerd_pid" 2>/dev/null || {
    tail -20 "$work/dockerd.log" >&2
    fail "dockerd exited"
  }
  sleep 0.25
done
docker version --format 'engine {{.Server.Version}}, client {{.Client.Version}}' \
  || fail "dockerd did not answer: $(tail -5 "$work/dockerd.log")"
took "engine started"

# --- the base image: Debian's python3 in a venv at /opt/python, `python` on PATH ------------
# Debian 12's Python 3.11: one that every framework examples/Dockerfile installs has wheels for
# (Debian 13's 3.13 is too new for TensorFlow 2.18), on whichever Debian this machine runs.
suite="${DEBIAN_SUITE:-bookworm}"
# shellcheck source=/dev/null
. /etc/os-release
host_suite="${VERSION_CODENAME:-}"
mirror="${DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  # This machine's own Debian mirror, from its apt sources (deb822 files, then sources.list):
  # the one that serves its own release serves the others too.
  mirror="$(
    cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v suite="$host_suite" '
      /^URIs:/ { uris = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) hit = 1 }
      /^$/ { if (hit && uris != "") { print uris; exit } hit = 0; uris = "" }
      END { if (hit && uris != "") print uris }' | head -1
  )"
fi
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
  mirror="$(awk -v suite="$host_suite" '$1 == "deb" && $3 == suite { print $2; exit }' /etc/apt/sources.list)"
fi
[ -n "$mirror" ] || fail "no Debian mirror in this machine's apt sources: set DEBIAN_MIRROR"

cache="${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/envcheck/image-check"
rootfs_tar="$cache/debian-$suite-python3.tar"
base="envcheck-image-check/base:$suite"
if [ "$fresh_base" -eq 1 ] || [ ! -s "$rootfs_tar" ]; then
  say "debootstrap $suite (minbase, python3, python3-venv) from the apt sources' mirror"
  rootfs="$work/rootfs"
  debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || fail "debootstrap failed: $(tail -5 "$work/debootstrap.log")"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  mkdir -p "$cache"
  tar --numeric-owner -C "$rootfs" -cf "$rootfs_tar.tmp" .
  mv -f "$rootfs_tar.tmp" "$rootfs_tar"
  rm -rf "$rootfs"
  took "debootstrap"
else
  say "the base's root file system from the cache: $rootfs_tar (--fresh-base to make it again)"
fi
docker import "$rootfs_tar" "$base-raw" >/dev/null
# Debian's python3 is externally managed (PEP 668): the image's `python` is a venv's, as in the
# python images, so that `python -m pip install` works as the Dockerfiles expect.
docker rm -f envcheck-image-check-base >/dev/null 2>&1 || true
docker run --name envcheck-image-check-base --network none "$base-raw" \
  python3 -m venv /opt/python >/dev/null
docker commit \
  --change 'ENV PATH=/opt/python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["python3"]' \
  envcheck-image-check-base "$base" >/dev/null
docker rm envcheck-image-check-base >/dev/null
docker run --rm --network none "$base" python --version
took "base image"

# --- pip's configuration for the builds: this machine's index settings ---------------------
marker="envcheck-image-check-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
pip_command=(python3 -m pip)
if [ -x "$repo/.venv/bin/pip" ]; then pip_command=("$repo/.venv/bin/pip"); fi
{
  echo "# $marker: must never be found in an image"
  echo "[global]"
  "${pip_command[@]}" config list 2>/dev/null | awk -F= '
    {
      key = $1; sub(/^[^.]*\./, "", key)
      value = substr($0, length($1) + 2); gsub(/^'\''|'\''$/, "", value)
    }
    key == "index-url" || key == "extra-index-url" || key == "trusted-host" \
      || key == "timeout" || key == "default-timeout" || key == "retries" {
      if (key ~ /index-url$/) {
        # Only indexes a container can reach: http(s), never this machine'\''s file paths.
        n = split(value, urls, /[ \t]+/); value = ""
        for (i = 1; i <= n; i++) if (urls[i] ~ /^https?:\/\//) value = value " " urls[i]
        sub(/^ /, "", value)
      }
      if (key == "default-timeout") key = "timeout"
      if (value != "" && !(key in seen)) { seen[key] = 1; print key " = " value }
    }'
  # The CA bundle pip trusts here (a TLS-inspecting proxy's CA, a private index's) goes in as
  # the secret `pipcert`.
  cert="$("${pip_command[@]}" config list 2>/dev/null | sed -n "s/^[^.]*\.cert='\(.*\)'$/\1/p" | tail -1)"
  cert="${PIP_CERT:-$cert}"
  if [ -n "$cert" ] && [ -r "$cert" ]; then
    cp "$cert" "$work/pipcert"
    echo "cert = /run/secrets/pipcert"
  fi
} >"$work/pip.conf"
chmod 600 "$work/pip.conf"
[ -e "$work/pipcert" ] || : >"$work/pipcert"
echo "pip configuration for the builds: $(grep -c ' = ' "$work/pip.conf" || true) setting(s) from this machine's"

build_args=(--network host --build-arg "BASE_IMAGE=$base")
build_args+=(--secret "id=pipconf,src=$work/pip.conf" --secret "id=pipcert,src=$work/pipcert")
for proxy in HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy; do
  # Docker's predefined proxy arguments: used by the build, kept out of the image's history.
  if [ -n "${!proxy:-}" ]; then build_args+=(--build-arg "$proxy"); fi
done

not_in_image() {
  if docker save "$1" | tar -xO --wildcards '*/layer.tar' 2>/dev/null | grep -aq "$marker"; then
    fail "the build's pip configuration is inside $1"
  fi
}

# --- the project's image ----------------------------------------------------------------------
say "docker build Dockerfile"
image="envcheck-image-check/envcheck:test"
docker build "${build_args[@]}" --progress plain -t "$image" "$repo" >"$work/build.log" 2>&1 \
  || fail "docker build failed: $(tail -30 "$work/build.log")"
took "project image"
not_in_image "$image"

say "docker run $image (its default command: doctor; no GPU here)"
rc=0
docker run --rm --network none "$image" >"$work/doctor.txt" 2>&1 || rc=$?
cat "$work/doctor.txt"
[ "$rc" -eq 0 ] || fail "the image's doctor exited $rc on a machine without a GPU (expected 0)"
rc=0
docker run --rm --network none "$image" doctor --format json >"$work/doctor.json" || rc=$?
[ "$rc" -eq 0 ] || fail "doctor --format json exited $rc"
python3 - "$work/doctor.json" <<'PY' || fail "the image's JSON report is not the doctor's"
import json
import sys

report = json.load(open(sys.argv[1], encoding="utf-8"))
codes = {f["code"] for f in report["findings"]}
# No NVIDIA GPU and no framework in this image: said, not an error.
assert "no-gpu" in codes or "framework-missing" in codes, codes
assert not [f for f in report["findings"] if f["severity"] == "error"], report["findings"]
print("report:", ", ".join(sorted(codes)), "| verdict:", report.get("verdict"))
PY
user="$(docker run --rm --network none --entrypoint id "$image" -u)"
[ "$user" = 10001 ] || fail "the image runs as uid $user, not 10001"
took "project image run"

# --- examples/Dockerfile: the doctor as a build step ------------------------------------------
if [ "$examples" -eq 1 ]; then
  say "docker build examples/Dockerfile (TensorFlow with its CUDA wheels; the doctor is a step)"
  example="envcheck-image-check/example:test"
  docker build "${build_args[@]}" --progress plain -f "$repo/examples/Dockerfile" \
    -t "$example" "$repo" >"$work/example-build.log" 2>&1 \
    || fail "docker build examples/Dockerfile failed: $(tail -40 "$work/example-build.log")"
  grep -A12 -e 'envcheck doctor --no-smoke --target-driver' "$work/example-build.log" | head -30
  took "examples image"
  not_in_image "$example"

  say "the build step's gate: the same image judged for a driver too old for its CUDA"
  rc=0
  docker run --rm --network none "$example" \
    envcheck doctor --no-smoke --target-driver 450.80.02 --target-gpu A100 --strict \
    >"$work/gate.txt" 2>&1 || rc=$?
  grep -m3 -e 'driver' "$work/gate.txt" || true
  [ "$rc" -eq 1 ] || fail "a driver too old for the image's CUDA gave exit $rc, not 1"

  say "docker run $example (its command: TensorFlow lists the GPUs it sees; none here)"
  docker run --rm --network none "$example" | tail -3
  took "examples image run"
fi

say "done in $((SECONDS - started)) s"
printf '   %s\n' "${timings[@]}"
