#!/usr/bin/env bash
# build.sh [OUTDIR]: builds the accuracy programs (default OUTDIR: tests/gpu/accuracy/bin) with nvcc for
# sm_90 (plus compute_90 PTX).  Math libraries are linked shared, so the binaries stay small; the cudart
# column says how each program links the CUDA runtime.  NVCC=... picks the compiler (default
# /usr/local/cuda/bin/nvcc), JOBS=n the parallel compilations (default: the number of CPUs).
set -u
src=$(cd "$(dirname "$0")" && pwd)
out=${1:-$src/bin}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
cuda=$(cd "$(dirname "$NVCC")/.." && pwd)
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$out/gen" || exit 1
out=$(cd "$out" && pwd)

# program               source                   cudart   libraries
programs="
first_launch            first_launch.cu          static   -
module_load             module_load.cpp          none     -lcuda
nvrtc                   nvrtc.cu                 static   -lnvrtc,-lcuda
pipeline_1thread        pipeline_1thread.cu      static   -
pipeline_8threads       pipeline_8threads.cu     shared   -
launch_once             launch_once.cu           static   -
first_call_is_launch    first_call_is_launch.cu  static   -
first_call_is_launch_shared first_call_is_launch.cu shared -
short_idle              short_idle.cu            static   -
short_back_to_back      short_back_to_back.cu    shared   -
long_kernels            long_kernels.cu          static   -
after_memset_and_wait   after_memset_and_wait.cu static   -
copy_beside_compute     copy_beside_compute.cu   shared   -
cublas                  cublas.cu                shared   -lcublas
cufft                   cufft.cu                 static   -lcufft
thrust                  thrust.cu                static   -
graphs_conditional      graphs_conditional.cu    shared   -
graph_and_direct        graph_and_direct.cu      static   -
param_blocks            param_blocks.cu          static   -
concurrent_streams      concurrent_streams.cu    static   -
shared_stream_threads   shared_stream_threads.cu shared   -
sync_copy_loop          sync_copy_loop.cu        shared   -
launch_apis             launch_apis.cu           static   -
skewed_lengths          skewed_lengths.cu        static   -
"
arch="-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
# Shared libraries are found at run time in the GPU machine's CUDA 13.0 tree or this toolkit's (and
# LD_LIBRARY_PATH); libcuda.so comes from the driver, the stub only serves the link.
link="-L$cuda/lib64 -L$cuda/lib64/stubs -Xlinker -rpath,/usr/local/cuda-13.0/targets/x86_64-linux/lib
      -Xlinker -rpath,$cuda/lib64"

# module_load embeds module_kernels.cu as PTX (JIT-compiled when loaded) and as a cubin.
"$NVCC" -ptx -arch=compute_90 "$src/module_kernels.cu" -o "$out/gen/module_kernels.ptx" &&
"$NVCC" -cubin -arch=sm_90 "$src/module_kernels.cu" -o "$out/gen/module_kernels.cubin" &&
"$cuda/bin/bin2c" -c -st -p 0 -n module_ptx "$out/gen/module_kernels.ptx" >"$out/gen/module_kernels.ptx.h" &&
"$cuda/bin/bin2c" -c -st -n module_cubin "$out/gen/module_kernels.cubin" >"$out/gen/module_kernels.cubin.h" ||
    { echo "build.sh: module_kernels.cu failed" >&2; exit 1; }

build() { # build NAME SOURCE CUDART LIBS
    local libs=${4//,/ }
    [ "$libs" = - ] && libs=
    # shellcheck disable=SC2086
    "$NVCC" -O2 -std=c++17 $arch -cudart "$3" -I"$src" -I"$out/gen" "$src/$2" -o "$out/$1" $link $libs \
        >"$out/gen/$1.log" 2>&1 || { echo "build.sh: $1 failed:" >&2; cat "$out/gen/$1.log" >&2; return 1; }
    echo "  built $1 (cudart $3${libs:+, $libs})"
}

pids=() names=()
while read -r name source cudart libs; do
    [ -n "$name" ] || continue
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    build "$name" "$source" "$cudart" "$libs" &
    pids+=($!) names+=("$name")
done <<<"$programs"
failed=0
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed=$((failed + 1))
done
echo "build.sh: $(( ${#pids[@]} - failed )) of ${#pids[@]} programs built in $out ($(du -sh "$out" | cut -f1))"
[ "$failed" = 0 ]
