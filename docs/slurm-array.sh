#!/bin/bash
# Run one experiment spec as a SLURM job array: each array task runs every N-th run of the spec
# (`bohf run --shard K/N`), all tasks writing into the same results folder, one file per finished run.
# `bohf` must be on the PATH of the compute nodes (sbatch passes on the submitting shell's environment).
# The last task to finish writes steps.csv, summary.json and the plots:
#
#   sbatch docs/slurm-array.sh specs/mrlpf-fig1d-ackley-se.toml results/fig1d
#   bohf summary results/fig1d
#
# The array's task ids must be 0..N-1; N is the number of tasks (8 by default, 0..7; sbatch options
# override the lines below, e.g. `sbatch --array=0-3 --cpus-per-task=2 …` on smaller nodes). Results do
# not depend on N or on the threads per task (every run has its own random streams), so the merged
# results equal those of a single `bohf run`. If a task failed or timed out, resubmit it alone with N
# as a third argument (--resume skips the runs it already wrote), then merge:
#
#   sbatch --array=3 docs/slurm-array.sh specs/mrlpf-fig1d-ackley-se.toml results/fig1d 8
#   bohf merge results/fig1d            # only needed if the folder has no summary.json yet
#
# .ci/slurm-check runs this script on a single-node SLURM and checks its results against a `bohf run`.
#SBATCH --job-name=bohf
#SBATCH --array=0-7
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=slurm-%A_%a.out

set -euo pipefail
SPEC=${1:?usage: sbatch slurm-array.sh SPEC.toml OUT_DIR [N]}
OUT=${2:?usage: sbatch slurm-array.sh SPEC.toml OUT_DIR [N]}
K=${SLURM_ARRAY_TASK_ID:?not running inside a job array}
# N: the array's size, or the third argument (a task resubmitted alone is an array of one).
N=${3:-$SLURM_ARRAY_TASK_COUNT}

# --resume makes a resubmitted task skip the runs it already finished before it was stopped.
bohf run "$SPEC" --out "$OUT" --shard "$K/$N" --threads "${SLURM_CPUS_PER_TASK:-1}" --resume
