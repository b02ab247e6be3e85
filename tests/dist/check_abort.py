"""usage: check_abort.py MPIEXEC PYTHON PROGRAM

Runs PROGRAM on 2 ranks and checks that the job ends within a few seconds with a non-zero
exit code and that stderr names the rank that raised (tests/dist/abort_uncaught.py)."""
import subprocess
import sys
import time

mpiexec, python, program = sys.argv[1:4]
start = time.monotonic()
try:
    done = subprocess.run([mpiexec, "--oversubscribe", "-np", "2", python, program],
                          capture_output=True, text=True, timeout=60)
except subprocess.TimeoutExpired:
    print("FAIL: the job still ran after 60 s: an uncaught exception did not end it")
    sys.exit(1)
elapsed = time.monotonic() - start
print(done.stdout)
print(done.stderr)
problems = []
if done.returncode == 0:
    problems.append("exit code 0")
if elapsed > 30:
    problems.append("took %.1f s" % elapsed)
if "uncaught exception on rank 1" not in done.stderr:
    problems.append("stderr does not name rank 1")
if "rank 1 gives up" not in done.stderr:
    problems.append("stderr lacks the traceback of rank 1")
print("check_abort: exit code %d after %.1f s%s" % (
    done.returncode, elapsed, "; FAIL: " + ", ".join(problems) if problems else "; ok"))
sys.exit(1 if problems else 0)
