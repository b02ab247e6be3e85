"""A short run of the random API driver (api_driver.py) in the normal build, so that the
driver itself keeps working; the long run is scripts/api_driver.sh, under AddressSanitizer."""
import os
import subprocess
import sys

DRIVER = os.path.join(os.path.dirname(__file__), "api_driver.py")


def test_api_driver_short_run():
    r = subprocess.run([sys.executable, DRIVER, "--seconds", "3", "--seed", "12"],
                       capture_output=True, text=True, timeout=120)
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert last.startswith("api driver: ") and " 0 failed" in last, last
    assert int(last.split()[2]) > 0, last
