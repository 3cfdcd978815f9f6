#!/usr/bin/env bash
# Fill .gpu/ with what scripts/gpu_check/check.sh needs on a GPU machine that can reach no package registry.
#
#   bash scripts/gpu_check/prepare.sh SDK_SAMPLES_DIR
#
# Run it here, where pip reaches the registry. It downloads the Python 3.12 wheels the MuJoCo Warp engine and the
# SDK's samples need beyond what a CUDA image with torch and numpy already holds, copies the SDK's samples (a
# checkout of simulo-org/simulo-samples, without its runs/), installs the wheels into one folder for Python 3.12
# (without Warp's examples, tests and CPU compiler, which a GPU does not use), and cuts its xz archive into parts
# of PART_MIB MiB (default 56): warp-lang's wheel alone is 149 MB, more than one transfer to a device machine
# carries (64 MiB a call), so the parts travel one call each and check.sh puts them together there. It prints
# the parts.
set -euo pipefail
cd "$(dirname "$0")/../.."
samples=${1:?usage: prepare.sh SDK_SAMPLES_DIR}
part_mib=${PART_MIB:-56}
[[ -f "$samples/samples/cartpole/train.py" ]] || { echo "prepare.sh: $samples has no samples/cartpole/train.py" >&2; exit 2; }

out=.gpu
rm -rf "$out" && mkdir -p "$out/wheels" "$out/bundle/sdk"
platforms=()
for p in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64; do
    platforms+=(--platform "$p")
done
# pure-Python and cp312 wheels; no dependencies are resolved, so every one is named (numpy, torch, tqdm, absl-py,
# packaging, pyyaml, fsspec, zipp and tensorboard are in the CUDA image)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp "${platforms[@]}" \
    -d "$out/wheels" \
    mujoco==4.0.0 mujoco-core==4.0.0 mujoco-studio==4.0.0 mujoco-warp==4.0.0 warp-lang==1.19.0 glfw pyopengl \
    websockets etils simulo-interfaces==0.25.0 defusedxml trimesh pycollada skrl==1.4.3 gymnasium cloudpickle \
    farama-notifications
python3 -m pip install -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp "${platforms[@]}" \
    --target "$out/bundle/site" "$out"/wheels/*.whl
rm -rf "$out/bundle/site/warp/examples" "$out/bundle/site/warp/tests" "$out/bundle/site/warp/bin/warp-clang.so"
cp -r "$samples/samples" "$samples/samples.toml" "$out/bundle/sdk/"
tar -C "$out/bundle" -cf - . | xz -9 -T2 | split -b "${part_mib}M" -d - "$out/part-"
rm -rf "$out/bundle" "$out/wheels"
ls -l "$out"
