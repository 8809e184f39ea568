# Evidence for docs/aoti.md "CUDA models: the model's own C++ runtime": run on the GPU machine as
#   bash scripts/gpu_stdcxx_evidence.sh CHECKOUT_WITHOUT_LOCALIZE  (its prefix-imports makes the "old" models)
set -u -o pipefail
ROOT=$1; W=/tmp/w; mkdir -p $W
export PYTHONUNBUFFERED=1
PY=python3
{ ldd --version | head -1; nvidia-smi -L; $PY -c "import torch;print('torch', torch.__version__)"; g++ --version | head -1; } 2>&1
$PY tests/aoti_zoo.py compile $W/zoo --device cuda > $W/zoo.log 2>&1 &
ZPID=$!
$PY -m shimgen build -B $W/rt --cuda on -j 16 2>&1 | tail -2
RT=$W/rt/libshimgen_runtime.so
TORCHINDUCTOR_CACHE_DIR=$W/ind $PY scripts/gpu_aoti_cuda.py compile $W 2>$W/compile.log | tail -1
for m in pointwise reduction; do
  (cd $ROOT && PYTHONPATH=$ROOT:/tmp/site $PY -m shimgen prefix-imports $W/$m.pt2 -o $W/$m.old.pt2 -c shimgen/runtime/shimgen.toml | tail -1)
  $PY -m shimgen prefix-imports $W/$m.pt2 -o $W/$m.prefixed.pt2 -c shimgen/runtime/shimgen.toml
done
rm -rf $W/x && $PY -m zipfile -e $W/pointwise.pt2 $W/x && SO=$(find $W/x -name '*.so' | head -1)
echo "== model .so: NEEDED $(readelf -d $SO | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
echo "   defined dynsym $(nm -D --defined-only $SO | wc -l), GNU_UNIQUE $(nm -D --defined-only $SO | grep -c ' u '); compilers: $(strings -a $SO | grep '^GCC: (' | sort -u | tr '\n' ';')"
echo "   system libstdc++: $(readlink -f /usr/lib/x86_64-linux-gnu/libstdc++.so.6); numpy/lief: $(ldd $($PY -c 'import numpy.core._multiarray_umath as m;print(m.__file__)' 2>/dev/null) 2>/dev/null | grep -c stdc++)"
I="$W/pointwise.in0.npy $W/pointwise.in1.npy --expect $W/pointwise.out0.npy"
echo "== matrix (rc -11 / 139 = SIGSEGV)"
for model in old prefixed; do for shape in numpy-lief-cudart torch-first libtorch-global; do
  timeout 120 $PY scripts/gpu_process_shapes.py probe $shape local $RT $W/pointwise.$model.pt2 $I 2>&1 | grep -E '^(OK|FAIL)|Error' | head -2; echo "   -> $model $shape local rc=$?/${PIPESTATUS[0]}"
done; done
for shape in numpy-lief-cudart libtorch-global; do
  timeout 120 $PY scripts/gpu_process_shapes.py probe $shape deepbind $RT $W/pointwise.old.pt2 2>&1 | tail -1; echo "   -> old $shape deepbind rc=${PIPESTATUS[0]}"
done
LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libstdc++.so.6 timeout 120 $PY scripts/gpu_process_shapes.py probe numpy-lief-cudart local $RT $W/pointwise.old.pt2 $I 2>&1 | tail -1; echo "   -> old numpy-lief-cudart LD_PRELOAD rc=${PIPESTATUS[0]}"
echo "== LD_DEBUG=bindings, model.so references bound into libstdc++.so.6"
for model in old prefixed; do
  rm -f $W/ldd.*; LD_DEBUG=bindings LD_DEBUG_OUTPUT=$W/ldd timeout 120 $PY scripts/gpu_process_shapes.py probe numpy-lief-cudart local $RT $W/pointwise.$model.pt2 $I > /dev/null 2>&1
  echo "   $model: $(cat $W/ldd.* | grep 'binding file .*/model.so' | grep -c 'libstdc++') to libstdc++, $(cat $W/ldd.* | grep 'binding file .*/model.so' | grep -c 'to .*/model.so') to itself; regex-related to libstdc++: $(cat $W/ldd.* | grep 'binding file .*/model.so' | grep 'libstdc++' | grep -ci 'regex\|locale\|ctype\|collate')"
  cat $W/ldd.* | grep 'binding file .*/model.so' | grep 'libstdc++' | grep -i 'locale\|regex' | head -4
done
echo "== cuda-gdb backtrace, old model, numpy-lief-cudart"
timeout 200 cuda-gdb -q -batch -ex run -ex bt --args $PY scripts/gpu_process_shapes.py probe numpy-lief-cudart local $RT $W/pointwise.old.pt2 $I 2>&1 | grep -E '^#|SIG' | cut -c1-220 | head -16
echo "== existing run phase on the localized models"
$PY scripts/gpu_aoti_cuda.py run $W $RT 2>&1 | tail -8
wait $ZPID; tail -3 $W/zoo.log
for d in $W/zoo/*-cuda-*/; do n=$(basename $d); echo "== zoo $n: $($PY -c "import json,sys;m=json.load(open('$d/meta.json'));print(' '.join(x for x in m['imports'] if 'cuda' in x or 'cpu' in x or 'check' in x))")"; done
H=$($PY -c "import importlib.util,pathlib;print(pathlib.Path(importlib.util.find_spec('torch').origin).parent)")/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h
grep -E "aoti_torch_cuda_(mm_out|addmm_out|bmm_out|convolution|_scaled_dot_product_efficient_attention|_scaled_dot_product_flash_attention)\(" $H > $OUT/c_shim_cuda_2_11.txt
tar czf $OUT/zoo.tgz -C $W --exclude inductor-cache zoo pointwise.pt2 reduction.pt2 pointwise.in0.npy pointwise.in1.npy pointwise.out0.npy
ls -la $OUT
