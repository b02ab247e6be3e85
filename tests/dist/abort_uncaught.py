"""Rank 1 raises at top level while rank 0 waits for it in a collective: the uncaught
exception must end the whole job at once (ctensor's sys.excepthook calls MPI_Abort), not
leave rank 0 waiting. Run by check_abort.py, which checks the exit code and the time."""
import ctensor

rank = ctensor.env.get_rank()
world = ctensor.env.get_world_size()
p = ctensor.placement("cpu", list(range(world)))
if rank == 1:
    raise RuntimeError("rank 1 gives up")
x = ctensor.ones(4, placement=p, sbp=ctensor.sbp.broadcast)  # waits for rank 1
print(x.tolist())
