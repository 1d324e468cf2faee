#!/usr/bin/env bash
# A sharded leaselab run (a campaign, or the safety battery) as a Slurm job
# array, merged when every task is done.
#
#   bash cmd/leaselab/deploy/slurm-array.sh submit    # the array, and a merge job that waits for it
#   sbatch cmd/leaselab/deploy/slurm-array.sh         # the array alone; then, when it has ended:
#   bash cmd/leaselab/deploy/slurm-array.sh merge     # merged.json, and the table on stdout
#
# Task i of the array (SLURM_ARRAY_TASK_ID=i) runs
# `leaselab $COMMAND $ARGS --shard auto/$SHARDS`. COMMAND check runs the
# seeds [i·K/n, (i+1)·K/n) of the campaign's K; COMMAND verify runs the
# configurations [i·T/n, (i+1)·T/n) of the battery's T, each part with the
# whole --budget (`leaselab help verify`; keep it under --time below), e.g.
#   COMMAND=verify ARGS='--algo paxoslease --budget 1h' RUN=paxoslease-verify \
#     bash cmd/leaselab/deploy/slurm-array.sh submit
# A task writes its JSON result to $RESULTS/$RUN/part-i.json (to a .tmp
# file, then renamed, so a file that is there is whole) and, when it finds
# a violation, its counterexample to counterexample-i.txt. Exit status 1
# with a whole result means the part found violations: the task succeeds
# (the result says what it found), so the merge job's afterok dependency
# holds; any other failure fails the task: `sbatch --array=I` with the
# failed index runs the same seeds or configurations again.
#
# The merge (`leaselab merge`; DESIGN.md, "Sharded runs") gives the result
# one process gives for the whole run (a battery's: as far as it does not
# depend on the machine's speed). It exits 1 when the run found a
# violation and 2 when a part does not belong (another spec or revision, a
# part twice or missing; the message names the files).
#
# Settings, from the environment (sbatch passes the submitting shell's
# environment on): SHARDS (the array's size: keep it equal to --array
# below, which `submit` sets from it), COMMAND (check or verify), ARGS
# (its flags, split at spaces), RUN (the run's directory: give every run
# its own), RESULTS (a directory every node sees), LEASELAB (the binary:
# build it with `go build -o leaselab ./cmd/leaselab` in a checkout, so
# every result carries the revision). %K in --array caps how many tasks
# run at once.
#
#SBATCH --job-name=leaselab
#SBATCH --array=0-2%3
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=04:00:00
#SBATCH --output=leaselab-%A_%a.log
set -euo pipefail

SHARDS=${SHARDS:-3}
RUN=${RUN:-paxoslease-300-all}
RESULTS=${RESULTS:-${SLURM_SUBMIT_DIR:-$PWD}/leaselab-results}
COMMAND=${COMMAND:-check}
ARGS=${ARGS:---algo paxoslease --seeds 300 --faults all}
LEASELAB=${LEASELAB:-leaselab}
dir="$RESULTS/$RUN"

part() {
  if [ -n "${SLURM_ARRAY_TASK_COUNT:-}" ] && [ "$SLURM_ARRAY_TASK_COUNT" != "$SHARDS" ]; then
    echo "slurm-array.sh: the array has $SLURM_ARRAY_TASK_COUNT tasks but SHARDS=$SHARDS; submit with --array=0-$((SHARDS - 1))" >&2
    exit 2
  fi
  mkdir -p "$dir"
  local i=$SLURM_ARRAY_TASK_ID out="$dir/part-$SLURM_ARRAY_TASK_ID.json" rc=0
  # shellcheck disable=SC2086 # ARGS is a list of flags
  "$LEASELAB" "$COMMAND" $ARGS --shard "auto/$SHARDS" \
    --out "$dir/counterexample-$i.txt" --format json --quiet >"$out.tmp" || rc=$?
  if [ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] && [ "$(tail -n 1 "$out.tmp")" = "}" ]; }; then
    mv "$out.tmp" "$out"
    echo "part $i/$SHARDS: $out ($COMMAND exit $rc)"
    return 0
  fi
  rm -f "$out.tmp"
  return "$rc"
}

merge() {
  local rc=0
  "$LEASELAB" merge --format json "$dir"/part-*.json >"$dir/merged.json.tmp" || rc=$?
  if [ "$rc" -le 1 ]; then
    mv "$dir/merged.json.tmp" "$dir/merged.json"
    "$LEASELAB" merge "$dir"/part-*.json 2>/dev/null || true # the table
    echo "merged: $dir/merged.json (merge exit $rc)"
  else
    rm -f "$dir/merged.json.tmp"
  fi
  return "$rc"
}

case "${1:-}" in
  submit)
    script=$(realpath "$0")
    jid=$(sbatch --parsable --array="0-$((SHARDS - 1))" "$script")
    jid=${jid%%;*} # --parsable may add ";cluster"
    sbatch --parsable --job-name=leaselab-merge --dependency="afterok:$jid" \
      --output="leaselab-merge-%j.log" --wrap "bash '$script' merge"
    echo "array job $jid runs $SHARDS parts into $dir; the merge job waits for it" >&2
    ;;
  merge)
    merge
    ;;
  "")
    if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
      echo "slurm-array.sh: not a job array task (no SLURM_ARRAY_TASK_ID): sbatch it, or run it with 'submit' or 'merge'" >&2
      exit 2
    fi
    part
    ;;
  *)
    echo "usage: slurm-array.sh [submit|merge] (no argument: one array task, under sbatch)" >&2
    exit 2
    ;;
esac
