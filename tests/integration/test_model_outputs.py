"""shimgen_model_run hands out one handle per output slot, each the caller's to free, also when the
model wrote one handle to several slots: AOTInductor's generated code does that for a model returning
one tensor twice (`output_handles[1] = output_handles[0];`, t5gemma's last hidden state and its
decoder's, tests/arch_ring.py), and freeing such a slot twice was a double free. Also on a failed run,
where the loader frees what the model left in the slots. A driver model stands in for the generated
code (a small C library with the model container's C API, as tests/proxy_driver.py builds)."""

from __future__ import annotations

import shutil
from ctypes import byref, c_void_p
from pathlib import Path

import pytest

from tests.aoti_helpers import shim

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow

# Run: input 0 goes to every output slot (one handle, repeated); the run takes its input. With FAIL,
# the run fails after writing the slots (the loader frees them).
REPEAT_C = r"""
int AOTInductorModelContainerRun(void* container, Handle* inputs, size_t num_inputs, Handle* outputs,
                                 size_t num_outputs, void* stream, void* proxy_executor) {
  (void)stream, (void)proxy_executor;
  if (container != &g_container || num_inputs != 1 || num_outputs != 3) return 1;
  outputs[0] = inputs[0];
  inputs[0] = NULL;
  outputs[1] = outputs[0];
  outputs[2] = outputs[0];
  return FAIL;
}
"""


def _model(rt, work: Path, fail: int):
    from shimgen.aoti.runner import Model
    from tests.proxy_driver import compile_stand_in, write_stand_in

    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler (cc) for the driver model")
    library = compile_stand_in(work, f"repeat_{fail}", REPEAT_C, {"NUM_INPUTS": 1, "NUM_OUTPUTS": 3, "FAIL": fail})
    return Model(rt, write_stand_in(library, work / f"repeat_{fail}.pt2", []))


def test_a_handle_the_model_repeats_is_a_handle_per_slot(rt, hs, tmp_path):
    model = _model(rt, tmp_path, 0)
    try:
        x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        outputs = [c_void_p(h) for h in model.run_handles([hs.of(x)])]
        assert len({h.value for h in outputs}) == 3  # three handles ...
        addresses = []
        for h in outputs:
            address = c_void_p()
            assert shim(rt, "aoti_torch_get_data_ptr")(h, byref(address)) == 0
            addresses.append(address.value)
        assert addresses == [x.data_ptr()] * 3  # ... onto the one tensor
        for h in outputs:  # each freed on its own (hs.tensor frees them at the test's end)
            assert torch.equal(hs.tensor(h), x)
        # numpy in and out: the API frees every output handle it got
        assert [a.tolist() for a in model.run([x.numpy()])] == [x.tolist()] * 3
    finally:
        model.close()


def test_a_failed_run_frees_a_repeated_handle_once(rt, hs, tmp_path):
    from shimgen.aoti.runner import ModelError

    model = _model(rt, tmp_path, 1)
    try:
        x = torch.ones(4)
        handle = hs.of(x)
        with pytest.raises(ModelError, match="the model failed"):
            model.run_handles([handle])
        address = c_void_p()  # the caller's handle is intact (the loader freed its own, once)
        assert shim(rt, "aoti_torch_get_data_ptr")(handle, byref(address)) == 0 and address.value == x.data_ptr()
    finally:
        model.close()
