"""OneFlow's global tensors with `import ctensor as flow`, across processes:

    mpirun -np 4 python3 demo/demo_global.py

Every rank runs this same program (SPMD). Rank 0 prints; each check runs on every rank and
the demo fails (exit status 1 on every rank) if any result differs from the documentation."""
import sys

import numpy as np

import ctensor as flow

rank, world = flow.env.get_rank(), flow.env.get_world_size()
failures = []


def say(*args):
    if rank == 0:
        print(*args, flush=True)


def check(what, got, want):
    ok = bool(np.array_equal(np.asarray(got), np.asarray(want))) if not isinstance(want, str) else got == want
    if not ok:
        failures.append(f"rank {rank}: {what}: got {got!r}, want {want!r}")


say(f"== {world} process(es); this is rank {rank} of the world")

# Placements: a device type and a grid of ranks, printed as OneFlow prints them.
p = flow.placement(type="cpu", ranks=list(range(world)))
say("placement:", p)
check("placement repr", repr(p), 'ctensor.placement(type="cpu", ranks=[%s])' % ", ".join(map(str, range(world))))
check("placement.all", flow.env.all_device_placement("cpu") == p, True)
say("sbp:", flow.sbp.split(0), flow.sbp.broadcast, flow.sbp.partial_sum)

# Local -> global: each rank contributes 2 rows (split), the logical tensor has 2 * world.
local = flow.ones(2, 3) * (rank + 1)
x = local.to_global(placement=p, sbp=flow.sbp.split(0))
say("x = local.to_global(p, split(0)):", "logical shape", tuple(x.shape), "sbp", x.sbp)
check("x.shape", tuple(x.shape), (2 * world, 3))
want = np.repeat(np.arange(1, world + 1, dtype=np.float32), 2)[:, None] * np.ones((1, 3), np.float32)
check("x.numpy()", x.numpy(), want)

# Boxing: split -> broadcast (all-gather), -> split(1) (all-to-all), -> partial_sum and back.
b = x.to_global(sbp=flow.sbp.broadcast)
check("S(0)->B local", b.to_local().numpy(), want)
s1 = x.to_global(sbp=flow.sbp.split(1))
say("x.to_global(sbp=split(1)): this rank holds", tuple(s1.to_local().shape))
check("S(0)->S(1) logical", s1.numpy(), want)
ps = x.to_global(sbp=flow.sbp.partial_sum)
check("S(0)->P logical", ps.numpy(), want)

# Partial sums: every rank's ones * (rank + 1) summed -> the triangular number.
p_sum = flow.ones(2, 2).mul(rank + 1).to_global(placement=p, sbp=flow.sbp.partial_sum)
total = world * (world + 1) // 2
check("P->B", p_sum.to_global(sbp=flow.sbp.broadcast).to_local().numpy(), np.full((2, 2), total, np.float32))
say(f"sum over ranks of ones*(rank+1) = {total}:", p_sum.to_global(sbp=flow.sbp.broadcast).to_local().tolist())

# Element-wise arithmetic on global tensors infers the result's sbp as OneFlow does.
y = x + x
check("S + S sbp", y.sbp, (flow.sbp.split(0),))
z = p_sum * flow.ones(2, 2, placement=p, sbp=flow.sbp.broadcast)
check("P * B sbp", z.sbp, (flow.sbp.partial_sum,))
say("(x + x).sbp =", y.sbp, "  (P * B).sbp =", z.sbp)

if world == 4:
    # A 2-D placement: (P, S(0)) -> (S(0), S(0)), OneFlow's own test (values 2 and 4).
    grid = flow.placement("cpu", [[0, 1], [2, 3]])
    t = (flow.ones(16, 16, dtype=flow.int32) * rank).to_global(
        placement=grid, sbp=[flow.sbp.partial_sum, flow.sbp.split(0)])
    u = t.to_global(sbp=[flow.sbp.split(0), flow.sbp.split(0)])
    check("2-D (P,S0)->(S0,S0)", u.to_local().numpy(), np.full((8, 16), 2 if rank < 2 else 4, np.int32))
    say("2-D:", grid, "(P, S(0)) -> (S(0), S(0)): rank 0 holds", u.to_local().numpy()[0, 0],
        "ranks 2-3 hold", 4)
    # A placement change: [0, 1] -> [2, 3].
    a = flow.tensor(np.arange(16, dtype=np.float32).reshape(4, 4)).to_global(
        placement=flow.placement("cpu", [0, 1]), sbp=flow.sbp.broadcast)
    moved = a.to_global(placement=flow.placement("cpu", [2, 3]), sbp=flow.sbp.split(1))
    check("[0,1] B -> [2,3] S(1) shape", tuple(moved.to_local().shape), (4, 2) if rank >= 2 else (0, 0))

# Errors are the same on every rank, never a hang.
try:
    flow.sbp.split(-1)
except RuntimeError as e:
    say("flow.sbp.split(-1): RuntimeError:", e)
try:
    flow.ones(3, 4).to_global(placement=p, sbp=flow.sbp.split(2))
except RuntimeError as e:
    say("to_global(sbp=split(2)) of a 2-D tensor: RuntimeError:", e)

bad = flow.tensor(failures and 1 or 0).to_global(placement=p, sbp=flow.sbp.partial_sum)
if int(bad.numpy()) != 0:
    for f in failures:
        print("DEMO CHECK FAILED", f, file=sys.stderr)
    sys.exit(1)
say("all global-tensor demo checks passed")
