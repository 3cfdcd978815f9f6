#!/usr/bin/env bash
# The MuJoCo Warp engine's checks on a GPU (issue 29), in stages that each fit one 10-minute device call.
#
#   bash scripts/gpu_check/check.sh receive     # keep the carried .gpu/part-NN in /tmp/gpu (one call per part)
#   bash scripts/gpu_check/check.sh install     # put the parts together; install the wheels and this checkout
#   bash scripts/gpu_check/check.sh suite       # the Warp engine's tests and the contract suite on cuda, and
#                                               # benchmarks/engines.py at N = 1,024, 4,096 and 16,384
#   bash scripts/gpu_check/check.sh samples     # the SDK's cartpole to best_reward >= 270, and 600 iterations
#                                               # of its humanoid, both at the samples' default flags
#
# Stages after `receive` may be given together (`check.sh install samples`, the goals first). The parts come from prepare.sh. Every
# stage writes its log to $OUT (default /tmp/gpu/out) as well as to the terminal. DEVICE (default cuda) is the
# Warp device; `DEVICE=cpu bash scripts/gpu_check/check.sh suite` with QUICK=1 runs the stage here, small.
set -uo pipefail
cd "$(dirname "$0")/../.."
work=/tmp/gpu
out=${OUT:-$work/out}
device=${DEVICE:-cuda}
quick=${QUICK:-0}
mkdir -p "$work" "$out"
export SIMULO_WARP_DEVICE=$device PYTHONUNBUFFERED=1 PYTHONPATH=$work/bundle/site

stage_receive() {
    cp -v .gpu/part-* "$work/"
}

stage_install() {
    rm -rf "$work/bundle" && mkdir -p "$work/bundle"
    cat "$work"/part-* | python3 -c "import sys, tarfile; tarfile.open(fileobj=sys.stdin.buffer, mode='r|xz').extractall(
        sys.argv[1], filter='data')" "$work/bundle" || return 1
    python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . || return 1
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
    python3 -c "import warp, mujoco_warp, simulo; warp.init(); print('warp', warp.__version__, warp.get_cuda_devices())"
}

stage_suite() {
    local sizes=(1024 4096 16384) robots=(cartpole humanoid)
    if ((quick)); then sizes=(8); robots=(cartpole); fi
    timeout 420 python3 -m pytest -q -p no:cacheprovider tests/engine/mujoco_warp tests/sim/contract -k mujoco_warp \
        2>&1 | tee "$out/suite.log"
    timeout 300 python3 benchmarks/engines.py --robots "${robots[@]}" --envs "${sizes[@]}" --no-pybullet --warp \
        --repeats "$((quick ? 2 : 5))" 2>&1 | tee "$out/engines.log"
}

stage_samples() {
    local sdk="$work/bundle/sdk" cartpole=() humanoid=(--max-iterations 600)
    if ((quick)); then
        sdk=${SDK:?QUICK=1 samples needs SDK=path of the SDK samples}
        cartpole=(--num-envs 16 --max-iterations 2); humanoid=(--num-envs 16 --max-iterations 2)
    fi
    timeout 300 python3 benchmarks/sample_time_to_reward.py --cwd "$sdk" samples/cartpole/train.py --target 270 \
        --timeout 240 --engine mujoco_warp "${cartpole[@]}" 2>&1 | tee "$out/cartpole.log"
    local simulo
    simulo="$(dirname "$(python3 -c 'import sys; print(sys.executable)')")/simulo"
    (cd "$sdk" && time timeout 300 "$simulo" run samples/humanoid/train.py --engine mujoco_warp "${humanoid[@]}") \
        2>&1 | tail -40 | tee "$out/humanoid.log"
}

(($#)) || { echo "usage: check.sh receive | install | suite | samples ..." >&2; exit 2; }
status=0
for stage in "$@"; do
    case $stage in
        receive|install|suite|samples) echo "== $stage ($(date -u +%T), device $device)"; "stage_$stage" || status=1 ;;
        *) echo "check.sh: unknown stage '$stage' (expected receive, install, suite or samples)" >&2; exit 2 ;;
    esac
done
exit "$status"
