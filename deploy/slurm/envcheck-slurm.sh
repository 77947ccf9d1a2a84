#!/usr/bin/env bash
# envcheck on a Slurm node: the doctor's verdict acted on, in three modes.
#
#   envcheck-slurm.sh health   HealthCheckProgram: on a failing verdict, drain this node with the
#                              first failing finding as the reason. Never resumes a node.
#   envcheck-slurm.sh prolog   Prolog: on a failing verdict, refuse the job (exit 1; Slurm then
#                              requeues a batch job held, or cancels the step) and drain the node.
#   envcheck-slurm.sh check    No action: print "<verdict> <reason>" and exit 0 (pass, warn),
#                              1 (fail) or 4 (no verdict). For LBNL NHC (envcheck.nhc) and people.
#
# Without an argument the mode is `prolog` when Slurm runs it as a Prolog (SLURM_JOB_ID is set)
# and `health` otherwise, so this one file can be both HealthCheckProgram and Prolog.
#
# Settings: /etc/envcheck/slurm.conf (another file: ENVCHECK_SLURM_CONFIG), a bash file this
# script sources; see envcheck-slurm.conf.example. slurmd starts HealthCheckProgram with an
# empty environment, so everything the doctor needs is set there, not inherited.
#
# No verdict (the doctor ran past its deadline, or envcheck itself failed: exit 4, 124, 2, 3)
# drains nothing by default (ON_UNKNOWN=ignore): it says nothing about whether jobs will run
# here, and draining on it would take every node down at once the day envcheck's install or a
# shared file system it reads has a problem. ON_UNKNOWN=drain drains with "envcheck: no
# verdict (...)" instead. Either way the event is logged (syslog tag envcheck-slurm).
set -euo pipefail

PATH="${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
export PATH

# Defaults; the settings file overrides them.
ENVCHECK_BIN=envcheck         # the envcheck command (a venv's bin/envcheck)
PYTHON3=""                    # reads the JSON report; empty: envcheck's own interpreter
DOCTOR_ARGS=(--no-smoke)      # extra doctor options; the smoke test runs a framework on the GPU
PROLOG_DOCTOR_ARGS=()         # the prolog's, when set; else DOCTOR_ARGS
DEADLINE=50                   # seconds; slurmd kills a HealthCheckProgram after 60
PROLOG_DEADLINE=30
REPORT_DIR=""                 # also keep this node's latest report here, as <node>.json
ON_UNKNOWN=ignore             # ignore | drain
REASON_MAX=100                # characters of the drain reason

config="${ENVCHECK_SLURM_CONFIG:-/etc/envcheck/slurm.conf}"
if [ -r "$config" ]; then
  # shellcheck source=/dev/null
  . "$config"
fi

mode="${1:-}"
if [ -z "$mode" ]; then
  if [ -n "${SLURM_JOB_ID:-}" ]; then mode=prolog; else mode=health; fi
fi
case "$mode" in
  health | prolog | check) ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "usage: $0 [health|prolog|check]" >&2
    exit 2
    ;;
esac

node="${SLURMD_NODENAME:-$(hostname -s)}"

log() {
  echo "envcheck-slurm: $node: $*" >&2
  logger -t envcheck-slurm -- "$node: $*" 2>/dev/null || true
}

workdir="$(mktemp -d "${TMPDIR:-/tmp}/envcheck-slurm.XXXXXX")"
trap 'rm -rf "$workdir"' EXIT

if [ -z "$PYTHON3" ]; then
  # A pip-installed console script starts with its interpreter: that Python surely works.
  envcheck_path="$(command -v "$ENVCHECK_BIN" || true)"
  shebang=""
  if [ -n "$envcheck_path" ]; then
    IFS= read -r shebang <"$envcheck_path" || true
  fi
  PYTHON3="${shebang#\#!}"
  case "$PYTHON3" in
    /*/python*) [ -x "$PYTHON3" ] || PYTHON3=python3 ;;
    *) PYTHON3=python3 ;; # a wrapper script, or env: the Python on PATH
  esac
fi

# The doctor, bounded: --deadline where this envcheck has it (else --timeout, the smoke test's
# limit), --node where it has it, and `timeout` around it all as the last word.
run_doctor() {
  local deadline="$1"
  shift
  local help limits=()
  help="$("$ENVCHECK_BIN" doctor --help 2>/dev/null || true)"
  if grep -qE -e '(^|[ ,])--deadline( |$)' <<<"$help"; then
    limits=(--deadline "$deadline")
  else
    limits=(--timeout "$deadline")
  fi
  if grep -qE -e '(^|[ ,])--node( |$)' <<<"$help"; then
    limits+=(--node "$node")
  fi
  doctor_rc=0
  timeout -k 3 "$((deadline + 5))" "$ENVCHECK_BIN" doctor --format json \
    -o "$workdir/report.json" "${limits[@]}" "$@" 2>"$workdir/stderr" || doctor_rc=$?
}

# verdict, code and message from the report: its one-word verdict when it has one, else the exit
# code (0 pass or warn, 1 fail, anything else no verdict); the first error finding (a warning
# under --strict) is the reason.
read_verdict() {
  local parsed
  parsed="$("$PYTHON3" - "$workdir/report.json" "$doctor_rc" "$workdir/stderr" <<'PY'
import json
import sys

path, rc, stderr_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]


def one_line(text):
    return " ".join(str(text).split())


try:
    with open(stderr_path, encoding="utf-8", errors="replace") as f:
        stderr = one_line(f.read())[:200]
except OSError:
    stderr = ""
try:
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    if not isinstance(report, dict):
        raise ValueError("not a JSON object")
except (OSError, ValueError) as exc:
    why = "timed out" if rc in (124, 137) else f"exit {rc}"
    print("unknown", "no-verdict", one_line(f"no report ({why}): {stderr or exc}"), sep="\t")
    sys.exit(0)

findings = [f for f in report.get("findings") or [] if isinstance(f, dict)]
verdict = report.get("verdict")
if verdict not in ("pass", "warn", "fail", "unknown"):
    if rc == 0:
        warned = any(f.get("severity") == "warning" for f in findings)
        verdict = "warn" if warned else "pass"
    elif rc == 1:
        verdict = "fail"
    else:
        verdict = "unknown"
code, message = "", ""
if verdict == "fail":
    for severity in ("error", "warning"):
        worst = [f for f in findings if f.get("severity") == severity]
        if worst:
            code, message = worst[0].get("code", "?"), worst[0].get("message", "")
            break
    else:
        code, message = "failed", f"exit {rc}"
elif verdict == "unknown":
    code = "no-verdict"
    unchecked = report.get("not_checked")
    if isinstance(unchecked, list) and unchecked:
        message = "not checked: " + ", ".join(map(str, unchecked))
    else:
        message = f"exit {rc}" + (f": {stderr}" if stderr else "")
print(verdict, one_line(code), one_line(message), sep="\t")
PY
)" || parsed="$(printf 'unknown\tno-verdict\tthe report could not be read with %s' "$PYTHON3")"
  IFS=$'\t' read -r verdict code message <<<"$parsed" || true
}

# "envcheck: <code>: <message>", one line of printable ASCII (no quotes or backslashes, which
# Slurm keeps verbatim and scripts reading sinfo then trip on), at most REASON_MAX characters.
make_reason() {
  local text
  if [ "$verdict" = unknown ]; then
    text="envcheck: no verdict ($message)"
  else
    text="envcheck: $code: $message"
  fi
  text="$(printf '%s' "$text" | LC_ALL=C tr -c '[:print:]' ' ' | LC_ALL=C tr -d "\"'\\\\\`")"
  if [ "${#text}" -gt "$REASON_MAX" ]; then
    text="${text:0:$((REASON_MAX - 3))}..."
  fi
  reason="$text"
}

# Drain this node, unless someone else drained it for a reason of their own (kept as it is).
drain() {
  local line state current
  line="$(scontrol show node -o "$node" 2>/dev/null || true)"
  state="$(sed -n 's/.* State=\([^ ]*\).*/\1/p' <<<"$line")"
  current=""
  if grep -q ' Reason=' <<<"$line"; then
    current="${line##* Reason=}"
  fi
  if [[ "$state" == *DRAIN* && -n "$current" && "$current" != envcheck:* ]]; then
    log "already drained for another reason ($current); not changing it. envcheck says: $reason"
    return 0
  fi
  if scontrol update nodename="$node" state=drain reason="$reason"; then
    log "drained: $reason"
  else
    log "could not drain (scontrol failed): $reason"
    return 1
  fi
}

keep_report() {
  [ -n "$REPORT_DIR" ] && [ -s "$workdir/report.json" ] || return 0
  local target="$REPORT_DIR/$node.json"
  if cp "$workdir/report.json" "$REPORT_DIR/.$node.json.$$" 2>/dev/null \
    && mv -f "$REPORT_DIR/.$node.json.$$" "$target"; then
    return 0
  fi
  rm -f "$REPORT_DIR/.$node.json.$$"
  log "could not write $target"
}

if [ "$mode" = prolog ]; then
  if [ "${#PROLOG_DOCTOR_ARGS[@]}" -gt 0 ]; then
    run_doctor "$PROLOG_DEADLINE" "${PROLOG_DOCTOR_ARGS[@]}"
  else
    run_doctor "$PROLOG_DEADLINE" "${DOCTOR_ARGS[@]}"
  fi
else
  run_doctor "$DEADLINE" "${DOCTOR_ARGS[@]}"
fi
read_verdict
make_reason
[ "$mode" = check ] || keep_report

case "$mode:$verdict" in
  check:pass | check:warn)
    echo "$verdict"
    exit 0
    ;;
  check:fail)
    echo "fail $reason"
    exit 1
    ;;
  check:*)
    echo "unknown $reason"
    exit 4
    ;;
  *:pass | *:warn)
    exit 0
    ;;
  health:fail)
    drain || true
    exit 1
    ;;
  prolog:fail)
    log "refusing job ${SLURM_JOB_ID:-?}: $reason"
    drain || true
    # The job's owner reads this in `scontrol show job` (AdminComment).
    scontrol update jobid="${SLURM_JOB_ID:-0}" admincomment="$reason (node $node)" \
      >/dev/null 2>&1 || true
    exit 1
    ;;
  *)
    log "no verdict: $reason"
    if [ "$ON_UNKNOWN" = drain ]; then
      drain || true
      [ "$mode" = prolog ] && exit 1
    fi
    exit 0
    ;;
esac
