#!/usr/bin/env bash
# The verdict check of sequential sampling (issue 28): a long reference run
# (150 samples a case, three times the default count, no target, no
# budget) and the default, budgeted run of the same
# build, then `serbench compare --verdicts`: every pair of a group's members
# whose intervals are disjoint in the reference must keep its order, and
# ≥ 95% of the ratios to the limit row must lie inside the reference's
# interval widened by 5%. Exit status 1 when they do not.
#
#   scripts/verdicts.sh [WORKLOAD...]      # default: features envelope
#
# The reference takes several times the budgeted run. OUT (default: a
# temporary directory) keeps both.
set -euo pipefail
cd "$(dirname "$0")/.."
workloads=("${@:-features envelope}")
out="${OUT:-$(mktemp -d)}"
go build -o "$out/serbench" ./cmd/serbench
"$out/serbench" run ${workloads[*]} --count 150 --target 0 --budget 0 --progress lines --out "$out/reference"
"$out/serbench" run ${workloads[*]} --progress lines --out "$out/budgeted"
"$out/serbench" compare --verdicts "$out/reference/results.jsonl" "$out/budgeted/results.jsonl"
