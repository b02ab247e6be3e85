"""Each instruction-set level of the element-wise kernels from Python: each SIMD
level tested against the scalar reference on the same inputs.

The level is read once, at first use, from CT_CPU_ISA (baseline, avx2, avx512; never above what
the CPU has), so each level runs in a subprocess: the large-tensor differential tests against
torch 1.13 at baseline and avx2 (this process runs them at the best level), and the same
inputs' bytes compared across baseline (the scalar reference), avx2 and avx512.
"""
import os
import subprocess
import sys

import pytest

import torch
from arith_compare_util import check_case
from arith_util import DTYPES, OP_FORMS, Case, safe, scalar, tensor


# ---- large tensors: the vectorised loops ------------------------------------------------------

LARGE_PAIRS = [(x, x) for x in DTYPES] + [
    ("int32", "float32"), ("float16", "float32"), ("bfloat16", "float32"), ("uint8", "int64"),
    ("int8", "int16"), ("float32", "float64"), ("float64", "complex64"), ("bool", "int32"),
    ("float16", "bfloat16"), ("int64", "float16")]
LARGE_SHAPES = [((1037,), (1037,)), ((33, 40), (40,)), ((40, 33), ()), ((1029,), None)]


def large_cases():
    out = []
    for i, (x, y) in enumerate(LARGE_PAIRS):
        for op, alpha, mode in OP_FORMS:
            for j, (sa, sb) in enumerate(LARGE_SHAPES):
                a = tensor(x, sa, 100 * i + j)
                b = tensor(y, sb, 100 * i + j + 50, nonzero=True) if sb is not None \
                    else scalar(2.5)
                if j == 1:  # a transposed operand: strided inner loops
                    a = tensor(x, (40, 33), 100 * i + j, [("permute", (1, 0))])
                out.append(safe(Case(op, a, b, "function", alpha, mode)))
            out.append(safe(Case(op, tensor(x, (1100,), i),
                                 tensor(y, (1100,), i + 7, nonzero=True), "out", alpha, mode,
                                 out=tensor("complex128", (1100,), 1))))
    return out


def test_large_tensors_match_torch():
    """Sizes past the vector widths, with odd tails, broadcasting, transposed inputs and
    scalars, so the SIMD loops (not only their scalar tails) are compared with torch."""
    for case in large_cases():
        check_case(case)


def test_int_min_wraps_in_a_large_tensor():
    """INT_MIN / -1 (defined by ctensor: INT_MIN) in the vectorised loops too."""
    import ctensor
    for name, lo in [("int32", -2**31), ("int64", -2**63)]:
        dt = getattr(ctensor, name)
        t = ctensor.full((1037,), lo, dtype=dt)
        for mode in ["trunc", "floor"]:
            assert set(ctensor.div(t, -1, rounding_mode=mode).tolist()) == {lo}
            assert set(ctensor.div(t, ctensor.full((1037,), -1, dtype=dt),
                                   rounding_mode=mode).tolist()) == {lo}

# ---- each instruction-set level -----------------------------------------------------------------

# The tests with tensors large enough for the vector loops (the random cases are small).
SUBSET = "test_large_tensors_match_torch or test_int_min_wraps_in_a_large_tensor"


@pytest.mark.parametrize("isa", ["baseline", "avx2"])
def test_each_instruction_set_level_matches_torch(isa):
    """The differential tests above, rerun in a subprocess with CT_CPU_ISA forcing a lower
    instruction-set level (read once at first use, hence the subprocess): every level gives
    torch's results. The default level (the best the CPU has) is this process's."""
    if os.environ.get("CT_CPU_ISA"):
        pytest.skip("already running under CT_CPU_ISA=" + os.environ["CT_CPU_ISA"])
    env = dict(os.environ, CT_CPU_ISA=isa, PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-x", __file__, "-k", SUBSET], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]


def _level_results(isa):
    """{case: bytes of the result or the error} of large_cases() at one level (subprocess)."""
    code = r"""
import sys
sys.path.insert(0, %r)
import ctensor
from arith_util import NO, realize
from test_arith_isa_levels import large_cases
for case in large_cases():
    a, b = realize(ctensor, case.a), realize(ctensor, case.b)
    kw = {}
    if case.alpha is not NO: kw["alpha"] = case.alpha
    if case.mode is not NO: kw["rounding_mode"] = case.mode
    try:
        r = getattr(ctensor, case.op)(a, b, **kw).contiguous().reshape(-1)
        print(repr(case) + "\t" + str(r.dtype).split(".")[1] + " " +
              bytes(r.view(ctensor.uint8).tolist()).hex())
    except Exception as e:
        print(repr(case) + "\t" + type(e).__name__ + ": " + str(e))
""" % (os.path.dirname(os.path.abspath(__file__)),)
    env = dict(os.environ, CT_CPU_ISA=isa, PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return dict(line.split("\t", 1) for line in r.stdout.splitlines())


def _as_values(payload):
    """A level's result as a torch tensor, or None for an error."""
    if ":" in payload:
        return None
    name, hexbytes = payload.split(" ")
    u8 = torch.frombuffer(bytearray.fromhex(hexbytes), dtype=torch.uint8) if hexbytes \
        else torch.empty(0, dtype=torch.uint8)
    return u8.view(getattr(torch, name))


def test_instruction_set_levels_agree_bitwise():
    """The same inputs give the same bytes at every level (baseline = the scalar reference,
    avx2, avx512 where the CPU has it): the levels are interchangeable. Large cases (vector
    bodies and tails, broadcasting, transposed inputs, scalars, every op form). NaNs only need
    to be NaN in the same places (their sign and payload are not compared)."""
    from arith_compare_util import values_mismatch
    levels = {isa: _level_results(isa) for isa in ["baseline", "avx2", "avx512"]}
    ref = levels["baseline"]
    problems = []
    for isa in ["avx2", "avx512"]:
        assert levels[isa].keys() == ref.keys()
        for case, got in levels[isa].items():
            g, w = _as_values(got), _as_values(ref[case])
            if g is None or w is None or g.dtype != w.dtype:
                if got != ref[case]:
                    problems.append("%s: %s: %s, baseline: %s" % (isa, case, got[:200],
                                                                  ref[case][:200]))
                continue
            bad = values_mismatch(g, w, None)
            if bad:
                problems.append("%s vs baseline: %s: %s" % (isa, case, bad))
    assert not problems, "%d cases differ between levels:\n%s" % (
        len(problems), "\n".join(problems[:10]))
