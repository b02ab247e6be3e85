"""Global tensors and devices, OneFlow's meaning: to() and cpu() take a device type string
("cpu", "cuda", "gpu"), which names the placement's device type. The placement's own type
changes nothing (the tensor itself; with a dtype, the cast); "cuda" without the CUDA backend
is the CPU-only build's AssertionError; a device index or a device object is OneFlow's
RuntimeError. The same outcome on every rank (no collective decides it)."""
import numpy as np
import pytest

import ctensor
from dist_util import all_placement, global_np

S0 = ctensor.sbp.split(0)
B = ctensor.sbp.broadcast

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the B overwrite warning

NO_ID = ('Only string device without device id (eg. "cpu" or "cuda") is expected for '
         'global tensor, but got ')


def make():
    return ctensor.arange(6, dtype=ctensor.float32).reshape(3, 2).to_global(
        placement=all_placement(), sbp=B)


def test_cpu_is_the_tensor_itself():
    x = make()
    assert x.cpu() is x
    assert x.to("cpu") is x
    assert x.to(device="cpu") is x
    assert x.to("cpu", None) is x


def test_cpu_with_dtype_casts():
    x = make()
    y = x.to("cpu", ctensor.float64)
    z = x.to(device="cpu", dtype=ctensor.int64)
    gy, gz = global_np(y), global_np(z)  # collectives before any assertion
    assert y.dtype == ctensor.float64 and z.dtype == ctensor.int64
    assert y.placement == x.placement and y.sbp == x.sbp
    np.testing.assert_array_equal(gy, np.arange(6.0).reshape(3, 2))
    np.testing.assert_array_equal(gz, np.arange(6).reshape(3, 2))


@pytest.mark.skipif(ctensor.cuda.is_available(), reason="CPU-only behaviour")
def test_cuda_without_cuda():
    x = make()
    for call in (lambda: x.to("cuda"), lambda: x.to("gpu"), lambda: x.to(device="cuda")):
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            call()


def test_device_with_index_or_object_refused():
    x = make()
    for dev, shown in (("cuda:0", "cuda:0"), ("cpu:1", "cpu:1"), ("cpp", "cpp")):
        with pytest.raises(RuntimeError) as info:
            x.to(dev)
        assert str(info.value) == NO_ID + shown
    with pytest.raises(RuntimeError) as info:
        x.to(ctensor.device("cpu"))
    assert str(info.value).startswith(NO_ID)


def test_to_argument_errors():
    x = make()
    with pytest.raises(TypeError):
        x.to("cpu", ctensor.float32, False, False)
    with pytest.raises(TypeError):
        x.to(ctensor.float32, ctensor.float64)
    with pytest.raises(TypeError):
        x.cpu(1)
