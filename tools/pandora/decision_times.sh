#!/usr/bin/env bash
# Paper 002's Fig. 11 measured outside the study: CPU seconds per decision of each rule over a
# box, one process after another on the same machine (so in one run, under the same load), on
# Ackley in d dimensions with uniform costs, MAP refits every round and paper 002's optimiser
# (200d raw samples, 10d restarts), 10d iterations from the 2(d + 1) initial points.
#
#   tools/pandora/decision_times.sh COSTBO DIMS RULES [SEED]
#   e.g. tools/pandora/decision_times.sh target/release/costbo "4 8" "pbgi log-ei ts-psq mes kg"
#
# Prints one line per rule and dimension: the median and mean of `costbo pandora`'s
# decide_seconds column (refit and acquisition optimisation) and the number of decisions.
set -euo pipefail
costbo=$1
dims=$2
rules=$3
seed=${4:-0}
echo "d,rule,median_seconds,mean_seconds,decisions"
for d in $dims; do
    for rule in $rules; do
        "$costbo" pandora --objective ackley-pbgi --dim "$d" --rule "$rule" \
            --budget "$((10 * d))" --seed "$seed" |
            awk -F, 'NR > 1 { print $6 }' | sort -g |
            awk -v d="$d" -v rule="$rule" '{ t[n++] = $1; s += $1 }
                END {
                    m = (n % 2) ? t[(n - 1) / 2] : (t[n / 2 - 1] + t[n / 2]) / 2
                    printf "%s,%s,%.4f,%.4f,%d\n", d, rule, m, s / n, n
                }'
    done
done
