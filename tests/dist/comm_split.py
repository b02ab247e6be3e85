"""ctensor.env.init(comm=...) with mpi4py: MPI_COMM_WORLD split into two disjoint halves
(even and odd world ranks); each half runs global operations at the same time on its own
communicator, with values that differ between the halves. Run under mpirun (2 or 4 ranks);
exits non-zero on any failed check (every rank checks its own results)."""
import sys

from mpi4py import MPI

import ctensor

world = MPI.COMM_WORLD
color = world.rank % 2
half = world.Split(color, world.rank)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


try:
    ctensor.env.init(comm="not a communicator")
    check(False, "init(comm=str) must raise")
except TypeError:
    pass

ctensor.env.init(comm=half)
ctensor.env.init(comm=half)  # the same communicator again: nothing happens
check(ctensor.env.get_rank() == half.rank, "get_rank is the rank in the half")
check(ctensor.env.get_world_size() == half.size, "get_world_size is the half's size")
if world.size > 1:
    try:
        ctensor.env.init(comm=world)
        check(False, "init(comm=COMM_WORLD) after the half must raise")
    except RuntimeError as e:
        check("already runs on another communicator" in str(e), str(e))

n = half.size
p = ctensor.placement("cpu", list(range(n)))
rows = 2 * n
value = [[1000 * color + 10 * i + j for j in range(3)] for i in range(rows)]
mine = ctensor.tensor(value[2 * half.rank:2 * half.rank + 2], dtype=ctensor.float64)
x = mine.to_global(placement=p, sbp=ctensor.sbp.split(0))
b = x.to_global(sbp=ctensor.sbp.broadcast)
s1 = x.to_global(sbp=ctensor.sbp.split(1)).to_global(sbp=ctensor.sbp.broadcast)
ps = b.to_global(sbp=ctensor.sbp.partial_sum).to_global(sbp=ctensor.sbp.broadcast)
check(b.to_local().tolist() == value, "S(0) -> B")
check(s1.to_local().tolist() == value, "S(0) -> S(1) -> B")
check(ps.to_local().tolist() == value, "B -> P -> B")
check(x.sum().to_global(sbp=ctensor.sbp.broadcast).to_local().item() ==
      sum(map(sum, value)), "sum")

# Both halves reach here; the world compares verdicts (mpi4py's own communicator).
ok = world.allreduce(0 if failures else 1, op=MPI.LAND)
if failures:
    print("rank %d: %s" % (world.rank, "; ".join(failures)), file=sys.stderr)
sys.exit(0 if ok else 1)
