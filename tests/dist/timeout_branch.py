"""A rank that enters a global operation its peers never enter (OneFlow's
test_global_branch_error_*): rank 0 calls to_global, the others do not; with
ONEFLOW_TIMEOUT_SECONDS=1 rank 0 must raise RuntimeError with OneFlow's message within a
few seconds, later global operations must raise at once, and every rank must exit 0.
Run under mpirun with 2 ranks."""
import os
import sys
import time

import ctensor

rank = ctensor.env.get_rank()
p = ctensor.placement("cpu", list(range(ctensor.env.get_world_size())))
x = ctensor.ones(4, 3).to_global(placement=p, sbp=ctensor.sbp.split(0))  # all ranks in step
ok = True
os.environ["ONEFLOW_TIMEOUT_SECONDS"] = "1"
if rank == 0:
    t0 = time.monotonic()
    try:
        x.to_global(sbp=ctensor.sbp.broadcast)
        ok = False
    except RuntimeError as e:
        waited = time.monotonic() - t0
        ok = ("Maybe executing different code in different ranks, please check if the code is "
              "branched and operates on the global tensor" in str(e)
              and "global operation to_global" in str(e) and 0.9 <= waited < 20)
        if not ok:
            print("rank 0 after %.2f s: %s" % (waited, e), file=sys.stderr)
    try:
        x.to_global(sbp=ctensor.sbp.broadcast)
        ok = False
    except RuntimeError as e:
        ok = ok and "cannot be used after the timeout" in str(e)
    ok = ok and ctensor.env.get_timeout() == 1.0
    ctensor.env.set_timeout(5)
    ok = ok and ctensor.env.get_timeout() == 5.0
    ctensor.env.set_timeout(0)
    ok = ok and ctensor.env.get_timeout() == 1.0  # back to the environment's
os.environ["ONEFLOW_TIMEOUT_SECONDS"] = "300"
sys.exit(0 if ok else 1)
