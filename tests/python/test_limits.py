"""Overflow and limits from Python: huge, negative and overflowing sizes, strides,
offsets, dims, indices, device ordinals, arange ranges, too many dims, placements and sbp.

Every row must raise a clear exception, never crash, hang or allocate hugely. Rows marked
SAME run through torch 1.13 too and must match its exception type and message (in
ctensor's words); the other rows say why ctensor differs (a torch 1.13 bug such as silent
int64 wrap-around or int32 truncation, or ctensor's documented 64-dim limit) and give the
expected exception explicitly.
"""
import os
import subprocess
import sys
import textwrap

import pytest

import ctensor
import torch
from test_tensor_common import ct_words

M = 2**63 - 1
m = -(2**63)
ONES65 = [1] * 65
MAXDIM = "maximum supported dimension for a tensor is 64, found 65"
UNPACK = "Overflow when unpacking long"
SAME = "same"  # the outcome must equal torch 1.13's


def nested(x, depth):
    for _ in range(depth):
        x = [x]
    return x


def doubled(depth):
    """A list of depth `depth` with 2**depth leaves, all shared (small in memory)."""
    x = [0]
    for _ in range(depth):
        x = [x, x]
    return x


def as_strided_on(L, *args):
    return L.zeros(4).as_strided(*args)


# (id, call(L), expected: SAME, or (exception type, message piece) with the reason in a comment)
ROWS = [
    # factories: Python ints beyond int64, products beyond int64, bytes beyond int64
    ("zeros(2**63)", lambda L: L.zeros(2**63), SAME),
    ("zeros(2**64)", lambda L: L.zeros(2**64), SAME),
    ("zeros(-2**63-1)", lambda L: L.zeros(-(2**63) - 1), SAME),
    ("zeros(2**40,2**40)", lambda L: L.zeros(2**40, 2**40), SAME),
    ("zeros(M,2)", lambda L: L.zeros(M, 2), SAME),
    ("ones(M,M,M)", lambda L: L.ones(M, M, M), SAME),
    ("empty(2**62)", lambda L: L.empty(2**62), SAME),
    ("empty(2**61,dtype=float64)", lambda L: L.empty(2**61, dtype=L.float64), SAME),
    ("full((M,M),1.)", lambda L: L.full((M, M), 1.0), SAME),
    ("zeros(M,M,device=meta)", lambda L: L.zeros(M, M, device="meta"), SAME),
    ("ones(-1,3)", lambda L: L.ones(-1, 3), SAME),
    # torch 1.13 cannot hold -2**63 in a SymInt (TypeError); a negative size either way
    ("empty(m)", lambda L: L.empty(m),
     (RuntimeError, "Trying to create tensor with negative dimension -9223372036854775808")),
    ("rand(M,M)", lambda L: L.rand(M, M), SAME),
    # torch 1.13 has no dim limit on cpu; ctensor (and newest PyTorch's TensorIterator) 64
    ("zeros(65 dims)", lambda L: L.zeros(ONES65), (ValueError, MAXDIM)),
    ("empty(65 dims)", lambda L: L.empty(*ONES65), (ValueError, MAXDIM)),
    ("tensor(65 nested)", lambda L: L.tensor(nested([0], 64)), (ValueError, "too many dimensions 'list'")),
    # nesting far beyond the limit: refused at depth 65, no deep recursion
    ("tensor(10**5 nested)", lambda L: L.tensor(nested([0], 10**5)),
     (ValueError, "too many dimensions 'list'")),
    ("tensor(10**5 nested, empty)", lambda L: L.tensor(nested([], 10**5)),
     (ValueError, "too many dimensions 'list'")),
    ("tensor(2**100 leaves)", lambda L: L.tensor(doubled(100)), (ValueError, "too many dimensions 'list'")),
    ("empty_strided(65 dims)", lambda L: L.empty_strided(ONES65, ONES65), (ValueError, MAXDIM)),
    ("empty_strided stride M", lambda L: L.empty_strided((2, 1), (M, 1)), SAME),
    ("empty_strided stride 2**63", lambda L: L.empty_strided((2,), (2**63,)), SAME),
    ("empty_strided size 2**64", lambda L: L.empty_strided((2**64,), (1,)), SAME),
    # 1.13 reports the negative stride as an overflow; newest PyTorch's own message
    ("empty_strided stride -1", lambda L: L.empty_strided((2, 2), (-1, 1)),
     (RuntimeError, "empty_strided: Negative strides are not supported at the moment, got "
                    "strides: [-1, 1]")),
    ("tensor([2**64])", lambda L: L.tensor([2**64]), SAME),
    # arange: sizes beyond int64 and Python ints beyond int64
    ("arange(0,1e300,1e-300)", lambda L: L.arange(0, 1e300, 1e-300), SAME),
    ("arange(-1e300,1e300)", lambda L: L.arange(-1e300, 1e300), SAME),
    ("arange(0,1,1e-300)", lambda L: L.arange(0, 1, 1e-300, dtype=L.float64), SAME),
    ("arange(m,M)", lambda L: L.arange(m, M), SAME),
    ("arange(0,2**64)", lambda L: L.arange(0, 2**64), SAME),
    ("arange(0,10,2**64)", lambda L: L.arange(0, 10, 2**64), SAME),
    ("arange(0,inf)", lambda L: L.arange(0, float("inf")), SAME),
    # torch 1.13 wraps end - start around int64 and returns an empty tensor
    ("arange(m,M,M)", lambda L: L.arange(m, M, M), (RuntimeError, "invalid size, possible overflow?")),
    # as_strided on a 4-element storage
    ("as_strided stride M", lambda L: as_strided_on(L, (2,), (M,)), SAME),
    ("as_strided out of storage", lambda L: as_strided_on(L, (5,), (1,)), SAME),
    ("as_strided offset 4", lambda L: as_strided_on(L, (1,), (1,), 4), SAME),
    ("as_strided offset 2**63", lambda L: as_strided_on(L, (1,), (1,), 2**63), SAME),
    ("as_strided offset -1", lambda L: as_strided_on(L, (1,), (1,), -1), SAME),
    ("as_strided stride -1", lambda L: as_strided_on(L, (2,), (-1,), 1), SAME),
    # torch 1.13: -2**63 is no SymInt (TypeError); -1 a "Storage size ... overflowed"
    ("as_strided stride m", lambda L: as_strided_on(L, (2,), (m,), 1),
     (RuntimeError, "as_strided: Negative strides are not supported at the moment")),
    ("as_strided size -1", lambda L: as_strided_on(L, (-1,), (1,)),
     (RuntimeError, "Trying to create tensor with negative dimension -1: [-1]")),
    # torch 1.13 accepts offset M (its bounds check overflows); the view would reach 2**65 bytes
    ("as_strided offset M", lambda L: as_strided_on(L, (1,), (1,), M),
     (RuntimeError, "Storage size calculation overflowed with sizes=[1] and strides=[1]")),
    ("as_strided offset M//4", lambda L: as_strided_on(L, (1,), (1,), M // 4),
     (RuntimeError, "Storage size calculation overflowed")),
    # an empty view may sit anywhere (torch 1.13 too), but offset * itemsize must fit int64:
    # data_ptr() computes it
    ("as_strided empty, offset 2**40", lambda L: as_strided_on(L, (0,), (1,), 2**40).shape, SAME),
    ("as_strided empty, offset 2**62", lambda L: as_strided_on(L, (0,), (1,), 2**62),
     (RuntimeError, "Storage offset calculation overflowed: offset 4611686018427387904 of 4-byte "
                    "elements")),
    ("as_strided(65 dims)", lambda L: as_strided_on(L, ONES65, ONES65), (ValueError, MAXDIM)),
    # views with shapes
    ("view(2**63)", lambda L: L.zeros(2, 3).view(2**63), SAME),
    ("view(M,2)", lambda L: L.zeros(2, 3).view(M, 2), SAME),
    ("view(m,1)", lambda L: L.zeros(2, 3).view(m, 1),  # torch 1.13: no SymInt
     (RuntimeError, "invalid shape dimension -9223372036854775808")),
    ("view(-1,-1)", lambda L: L.zeros(2, 3).view(-1, -1), SAME),
    # M * M wraps to 1 in int64: torch 1.13 takes it for a 1-element shape and fails later
    ("view(M,M)", lambda L: L.zeros(1).view(M, M),
     (RuntimeError, "shape '[9223372036854775807, 9223372036854775807]' is invalid for input "
                    "of size 1")),
    ("reshape(M,M)", lambda L: L.zeros(1).reshape(M, M),
     (RuntimeError, "is invalid for input of size 1")),
    ("reshape(-1,M,M)", lambda L: L.zeros(2, 3).reshape(-1, M, M),
     (RuntimeError, "is invalid for input of size 6")),
    ("view(65 dims)", lambda L: L.zeros(1).view(ONES65), (ValueError, MAXDIM)),
    ("reshape(65 dims)", lambda L: L.zeros(1).reshape(ONES65), (ValueError, MAXDIM)),
    ("expand(M,M)", lambda L: L.zeros(1).expand(M, M), SAME),
    ("expand(2**63)", lambda L: L.zeros(1).expand(2**63), SAME),
    ("expand(m,1)", lambda L: L.zeros(1).expand(m, 1),
     (RuntimeError, "Trying to create tensor with negative dimension")),
    ("expand(65 dims)", lambda L: L.zeros(1).expand(ONES65), (ValueError, MAXDIM)),
    ("permute(0,M)", lambda L: L.zeros(2, 3).permute(0, M), SAME),
    ("permute(m,0)", lambda L: L.zeros(2, 3).permute(m, 0), SAME),
    ("permute(0,2**63)", lambda L: L.zeros(2, 3).permute(0, 2**63), SAME),
    ("permute(65 dims)", lambda L: L.zeros(2, 3).permute([0] * 65), (ValueError, MAXDIM)),
    # dims and indices
    ("narrow(m,0,1)", lambda L: L.zeros(2, 3).narrow(m, 0, 1), SAME),
    ("narrow(1,2**63,1)", lambda L: L.zeros(2, 3).narrow(1, 2**63, 1), SAME),
    ("narrow(1,2,M)", lambda L: L.zeros(2, 3).narrow(1, 2, M), SAME),
    # newest PyTorch's checks and messages (1.13 wraps start as a dim, checks no length sign)
    ("narrow(1,0,m)", lambda L: L.zeros(2, 3).narrow(1, 0, m),
     (RuntimeError, "narrow(): length must be non-negative.")),
    ("narrow(1,M,1)", lambda L: L.zeros(2, 3).narrow(1, M, 1),
     (IndexError, "start out of range (expected to be in range of [-3, 3], but got "
                  "9223372036854775807)")),
    ("select(0,M)", lambda L: L.zeros(2, 3).select(0, M), SAME),
    ("select(0,m)", lambda L: L.zeros(2, 3).select(0, m), SAME),
    ("select(M,0)", lambda L: L.zeros(2, 3).select(M, 0), SAME),
    ("select(0,2**63)", lambda L: L.zeros(2, 3).select(0, 2**63), SAME),
    ("transpose(0,M)", lambda L: L.zeros(2, 3).transpose(0, M), SAME),
    ("transpose(m,0)", lambda L: L.zeros(2, 3).transpose(m, 0), SAME),
    ("transpose(0,2**63)", lambda L: L.zeros(2, 3).transpose(0, 2**63), SAME),
    ("squeeze(M)", lambda L: L.zeros(2, 3).squeeze(M), SAME),
    ("squeeze(2**64)", lambda L: L.zeros(2, 3).squeeze(2**64), SAME),
    ("unsqueeze(M)", lambda L: L.zeros(2, 3).unsqueeze(M), SAME),
    ("unsqueeze(m)", lambda L: L.zeros(2, 3).unsqueeze(m), SAME),
    ("unsqueeze past 64 dims", lambda L: L.zeros([1] * 64).unsqueeze(0), (ValueError, MAXDIM)),
    ("flatten(m,0)", lambda L: L.zeros(2, 3).flatten(m, 0), SAME),
    ("flatten(0,M)", lambda L: L.zeros(2, 3).flatten(0, M), SAME),
    ("size(M)", lambda L: L.zeros(2, 3).size(M), SAME),
    ("stride(m)", lambda L: L.zeros(2, 3).stride(m), SAME),
    ("t[M]", lambda L: L.zeros(2, 3)[M], SAME),
    ("t[m]", lambda L: L.zeros(2, 3)[m], SAME),
    ("t[2**63]", lambda L: L.zeros(2, 3)[2**63], SAME),
    ("t[:, 2**63:]", lambda L: L.zeros(2, 3)[:, 2**63:].shape, SAME),
    ("t[:, ::0]", lambda L: L.zeros(2, 3)[:, ::0], SAME),
    # devices
    ("device('cuda:99999999999999999999')", lambda L: L.device("cuda:99999999999999999999"), SAME),
    ("device('cpu:18446744073709551616')", lambda L: L.device("cpu:18446744073709551616"), SAME),
    ("device('cuda:4294967296')", lambda L: L.device("cuda:4294967296"), SAME),

    ("device('cpu',2**63)", lambda L: L.device("cpu", 2**63), SAME),
    ("device('cpu',2**64)", lambda L: L.device("cpu", 2**64), SAME),
    ("device(2**63)", lambda L: L.device(2**63), SAME),
    ("zeros(device='cuda:99999999999999999999')",
     lambda L: L.zeros(1, device="cuda:99999999999999999999"), SAME),
    # torch 1.13 truncates the index to int8/int32 (device('cpu', -2**63) is cpu:0,
    # device('cuda:128') is cuda:65408)
    ("device('cuda:128')", lambda L: L.device("cuda:128"),
     (RuntimeError, "Device index 128 is out of range: device indices must be between 0 and 127")),
    ("device('cpu',-2**63)", lambda L: L.device("cpu", -(2**63)),
     (RuntimeError, "Device index must not be negative")),
    ("device('cuda',2**31)", lambda L: L.device("cuda", 2**31),
     (RuntimeError, "Device index 2147483648 is out of range: device indices must be between 0 "
                    "and 127")),
    ("device(2**40)", lambda L: L.device(2**40),
     (RuntimeError, "Device index 1099511627776 is out of range")),
    ("device('cpu',2**32)", lambda L: L.device("cpu", 2**32),
     (RuntimeError, "Device index 4294967296 is out of range")),
]


def outcome(L, call):
    try:
        r = call(L)
    except Exception as e:  # noqa: BLE001 - the exception is the result
        return type(e), str(e)
    return "ok", repr(r)


@pytest.mark.parametrize("name,call,want", ROWS, ids=[r[0] for r in ROWS])
def test_limit(name, call, want):
    got = outcome(ctensor, call)
    if want is SAME:
        th = outcome(torch, call)
        assert got[0] == th[0], (name, got, th)  # the exception type, or both "ok"
        assert got[1] == ct_words(th[1]), (name, got, th)
    else:
        exc, piece = want
        assert got[0] is exc, (name, got)
        assert piece in got[1], (name, got)


def test_a_table_row_can_fail():
    """The comparison itself is not vacuous: a call that succeeds where torch raises fails."""
    got = outcome(ctensor, lambda L: L.zeros(2))
    th = outcome(torch, lambda L: L.zeros(-1))
    assert got[0] != th[0]


def test_dlpack_import_of_65_dims():
    """torch 1.13 builds a 65-dim tensor; importing it is a clear error, the capsule consumed
    exactly once (torch's deleter runs; the tensor stays usable on torch's side)."""
    t = torch.zeros(ONES65)
    with pytest.raises(ValueError):
        ctensor.from_dlpack(t)
    assert t.sum().item() == 0


def test_dlpack_export_of_huge_expanded_view():
    """A stride-0 view whose numel fits but that spans no memory exports and imports."""
    t = torch.zeros(1).expand(2**40)
    c = ctensor.from_dlpack(t)
    assert tuple(c.shape) == (2**40,) and tuple(c.stride()) == (0,)


# Placements and sbp need MPI (started by the first placement): run them in a child process
# so that MPI's initialisation and teardown stay out of this one.
DIST_SCRIPT = textwrap.dedent(r"""
    import ctensor
    M = 2**63 - 1
    rows = [
        (lambda: ctensor.sbp.split(M), RuntimeError,
         "Expected split axis to be less than the supported maximum axis (6), but got 9223372036854775807!"),
        (lambda: ctensor.sbp.split(2**64), RuntimeError, "but got 18446744073709551616!"),
        (lambda: ctensor.sbp.split(2**32), RuntimeError, "but got 4294967296!"),
        (lambda: ctensor.sbp.split(-1), RuntimeError, "Split axis must not be negative, but got -1!"),
        (lambda: ctensor.sbp.split(-2**63), RuntimeError, "must not be negative"),
        (lambda: ctensor.sbp.split(6), RuntimeError, "but got 6!"),
        (lambda: ctensor.placement("cpu", [M]), RuntimeError, "rank must be less than world size"),
        (lambda: ctensor.placement("cpu", [2**32]), RuntimeError, "rank must be less than world size"),
        (lambda: ctensor.placement("cpu", [2**63]), RuntimeError, "placement ranks"),
        (lambda: ctensor.placement("cpu", [-1]), RuntimeError, "rank must be non-negative, but got -1!"),
        (lambda: ctensor.placement("cpu", [-2**63]), RuntimeError, "rank must be non-negative"),
        (lambda: ctensor.placement("cpu", [[[[[[[0]]]]]]]), ValueError, "1 to 6 dims, but got 7"),
        (lambda: ctensor.placement("cuda:99999999999999999999", [0]), RuntimeError, "device type"),
        (lambda: ctensor.zeros(2).to_global(placement=ctensor.placement("cpu", [0]),
                                            sbp=ctensor.sbp.split(1)),
         RuntimeError, "Split axis out of range (expected to be in range of [0, 1), but got 1!)"),
        (lambda: ctensor.zeros(2, 3).to_global(placement=ctensor.placement("cpu", [0]),
                                               sbp=ctensor.sbp.split(5)),
         RuntimeError, "but got 5!"),
        (lambda: ctensor.zeros([1] * 65, placement=ctensor.placement("cpu", [0]),
                               sbp=ctensor.sbp.broadcast),
         ValueError, "maximum supported dimension for a tensor is 64, found 65"),
        (lambda: ctensor.zeros(2**62, 4, placement=ctensor.placement("cpu", [0]),
                               sbp=ctensor.sbp.broadcast),
         RuntimeError, "Storage size calculation overflowed with sizes=[4611686018427387904, 4]"),
        (lambda: ctensor.zeros(M, M, placement=ctensor.placement("cpu", [0]),
                               sbp=ctensor.sbp.split(1)),
         RuntimeError, "Storage size calculation overflowed"),
        (lambda: ctensor.zeros([1] * 64, placement=ctensor.placement("cpu", [0]),
                               sbp=ctensor.sbp.split(63)),
         RuntimeError, "supported maximum axis (6), but got 63!"),
    ]
    bad = 0
    for i, (call, exc, piece) in enumerate(rows):
        try:
            call()
            print(f"row {i}: no exception"); bad += 1
        except Exception as e:
            if type(e) is not exc or piece not in str(e):
                print(f"row {i}: {type(e).__name__}: {e}"); bad += 1
    print("checked", len(rows))
    raise SystemExit(1 if bad else 0)
""")


@pytest.mark.skipif(not hasattr(ctensor, "placement"), reason="built without libctensor_dist")
def test_placement_and_sbp_limits():
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    r = subprocess.run([sys.executable, "-c", DIST_SCRIPT], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "checked 19" in r.stdout
