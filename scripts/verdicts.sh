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
# temporary directory) keeps all three runs.
#
# A second reference, the same command run again, is checked against the
# first as well: it shows what the check can ask on this machine. When two
# long runs of the same build disagree (a shared host whose speed moves
# between runs moves every interval with it), the budgeted run cannot agree
# better, and its check says more of the host than of the budget.
set -euo pipefail
cd "$(dirname "$0")/.."
workloads=("${@:-features envelope}")
out="${OUT:-$(mktemp -d)}"
go build -o "$out/serbench" ./cmd/serbench
"$out/serbench" run ${workloads[*]} --count 150 --target 0 --budget 0 --progress lines --out "$out/reference"
"$out/serbench" run ${workloads[*]} --progress lines --out "$out/budgeted"
"$out/serbench" run ${workloads[*]} --count 150 --target 0 --budget 0 --progress lines --out "$out/reference2"
echo "== the second reference against the first (what this machine allows)"
"$out/serbench" compare --verdicts "$out/reference/results.jsonl" "$out/reference2/results.jsonl" || true
echo "== the budgeted run against the first reference"
"$out/serbench" compare --verdicts "$out/reference/results.jsonl" "$out/budgeted/results.jsonl"
