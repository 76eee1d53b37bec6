#!/bin/bash
# Run one experiment spec as a SLURM job array: each array task runs every N-th run of the spec
# (`bohf run --shard K/N`), all tasks writing into the same results folder, one file per finished run.
# The last task to finish writes steps.csv, summary.json and the plots; if a task failed or timed out,
# resubmit it (the same command with --resume skips the runs already written), then merge:
#
#   sbatch docs/slurm-array.sh specs/mrlpf-fig1d-ackley-se.toml results/fig1d
#   bohf merge results/fig1d            # only needed if the folder has no summary.json yet
#   bohf summary results/fig1d
#
# The number of tasks N must equal the --array size below (here 8 tasks: 0..7). Results do not depend
# on N or on the threads per task (every run has its own random streams), so the merged results equal
# those of a single `bohf run`.
#SBATCH --job-name=bohf
#SBATCH --array=0-7
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=slurm-%A_%a.out

set -euo pipefail
SPEC=${1:?usage: sbatch slurm-array.sh SPEC.toml OUT_DIR}
OUT=${2:?usage: sbatch slurm-array.sh SPEC.toml OUT_DIR}
N=${SLURM_ARRAY_TASK_COUNT:-8}
K=${SLURM_ARRAY_TASK_ID:?not running inside a job array}

# --resume makes a resubmitted task skip the runs it already finished before it was stopped.
bohf run "$SPEC" --out "$OUT" --shard "$K/$N" --threads "${SLURM_CPUS_PER_TASK:-1}" --resume
