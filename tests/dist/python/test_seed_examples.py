"""The placement / sbp / all_device_placement examples of OneFlow's "Tensor Attributes" page
(its text copied below), run as written with `import ctensor as flow`.

The page's text is copied verbatim below; the only change is that the expected reprs say
"ctensor." where the page says "oneflow.". The page's examples name ranks 0..3 ("Runs on 4
ranks"), so those run only when the world has exactly 4 ranks (on the other sizes rank 3
does not exist and the placement is refused at construction). The rendered page lost the
printed results of the sbp example; they are OneFlow's sbp reprs. The cuda
examples run with the host-emulated accelerator registered as 'cuda' (one device per rank):
this machine has no GPU, and all_device_placement("cuda") needs devices."""
import doctest

import pytest

import ctensor
from dist_util import WORLD

only4 = pytest.mark.skipif(WORLD != 4, reason="the page's example runs on 4 ranks")

PLACEMENT_EXAMPLE = """
>>> import oneflow as flow

>>> p = flow.placement(type="cuda", ranks=[0, 1, 2, 3])
>>> p
oneflow.placement(type="cuda", ranks=[0, 1, 2, 3])
>>> p = flow.placement(type="cuda", ranks=[[0, 1], [2, 3]])
>>> p
oneflow.placement(type="cuda", ranks=[[0, 1], [2, 3]])
"""

ALL_DEVICE_EXAMPLE = """
# Runs on 4 ranks
import oneflow as flow

p = flow.env.all_device_placement("cuda") # oneflow.placement(type="cuda", ranks=[0, 1, 2, 3])
p = flow.env.all_device_placement("cpu") # oneflow.placement(type="cpu", ranks=[0, 1, 2, 3])
"""

SBP_EXAMPLE = """
>>> import oneflow as flow

>>> s = flow.sbp.split(0)
>>> s
oneflow.sbp.split(dim=0)
>>> b = flow.sbp.broadcast()
>>> b
oneflow.sbp.broadcast
>>> p = flow.sbp.partial_sum()
>>> p
oneflow.sbp.partial_sum
"""


def as_ctensor(text):
    """The page's text with the module renamed: the import becomes `import ctensor as flow`,
    and the printed reprs say ctensor."""
    return text.replace("import oneflow as flow", "import ctensor as flow").replace(
        "oneflow.", "ctensor.")


def run_doctest(text, name):
    test = doctest.DocTestParser().get_doctest(as_ctensor(text), {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=0)
    out = []
    runner.run(test, out=out.append)
    assert runner.tries > 0
    assert runner.failures == 0, "".join(out)


@only4
def test_placement_example():
    run_doctest(PLACEMENT_EXAMPLE, "001-placement")


@only4
def test_all_device_placement_example(emulated_cuda):
    # each line: run the statement, then compare repr(p) with the page's comment
    lines = [ln for ln in as_ctensor(ALL_DEVICE_EXAMPLE).splitlines()
             if ln.strip() and not ln.startswith("#")]
    scope = {}
    checked = 0
    for line in lines:
        code, _, comment = line.partition(" # ")
        exec(code, scope)
        if comment:
            assert repr(scope["p"]) == comment.strip(), line
            checked += 1
    assert checked == 2


def test_all_device_placement_example_cpu_any_world():
    # the cpu line of the same example, with this world's ranks
    p = ctensor.env.all_device_placement("cpu")
    assert repr(p) == 'ctensor.placement(type="cpu", ranks=%s)' % list(range(WORLD))


def test_sbp_example():
    run_doctest(SBP_EXAMPLE, "001-sbp")


def test_page_attributes_of_a_global_tensor():
    # "global oneflow.Tensor has a oneflow.dtype, oneflow.placement, oneflow.sbp"
    import ctensor as flow
    p = flow.placement(type="cpu", ranks=list(range(WORLD)))
    x = flow.ones(4, 2, placement=p, sbp=flow.sbp.split(0))
    assert x.dtype == flow.float32
    assert x.placement == p
    assert x.sbp == (flow.sbp.split(0),)
    y = flow.ones(4, 2)
    assert y.dtype == flow.float32
    assert str(y.device) == "cpu"
