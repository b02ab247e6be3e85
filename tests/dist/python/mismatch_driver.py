"""Seeded random driver of mismatched arguments (not a pytest module: run it under mpirun).

usage: mpirun -np N python3 mismatch_driver.py [ROUNDS] [SEED]

For ROUNDS rounds from SEED (the same on every rank), it picks a global operation and, per
rank, either the correct call or a mismatched or bad one (a bad rounding mode, an sbp list
of the wrong length, a string where an sbp or a placement belongs, a None operand, a bad
alpha, a bad dtype in a factory, a local tensor mixed in, another operation, reading the
value (tolist / numpy / repr / item) instead of computing, to_global to another sbp, a
list of another length to ctensor.to_global, a str or list operand). Then
the ranks compare outcomes: either every rank succeeded with the same value, or every rank
raised (and every rank must raise when any rank's call was not the correct one). A hang is
the failure this looks for; the launch's timeout turns it into one. Prints "driver: N
passed, M failed" on rank 0 and exits non-zero when M > 0.
"""
import random
import sys
import zlib

import numpy as np

import ctensor

RANK = ctensor.env.get_rank()
WORLD = ctensor.env.get_world_size()
P = ctensor.placement("cpu", list(range(WORLD)))
S0, S1, B = ctensor.sbp.split(0), ctensor.sbp.split(1), ctensor.sbp.broadcast


def make_inputs():
    mine = np.arange(6, dtype=np.float32).reshape(2, 3) + 6 * RANK + 1
    x = ctensor.tensor(mine).to_global(placement=P, sbp=S0)
    # another dtype: the agreement compares metadata, never data, so x and y must differ
    # in it for a rank using y where another uses x to be a mismatch
    y = ctensor.full((2, 3), 2.0, dtype=ctensor.float64).to_global(placement=P, sbp=S0)
    return x, y


def value_of(r):
    """A comparable text of a result (a global tensor is read collectively)."""
    if isinstance(r, ctensor.GlobalTensor):
        return "G" + repr(r.tolist())
    if isinstance(r, np.ndarray):
        return "N" + repr(r.tolist())
    return "V" + repr(r)


# Each operation: the correct call and its variants, all functions of (x, y). A variant is
# BAD (it raises on its own: a bad argument, a local tensor) or ALT (a valid call that
# differs from the correct one in what the ranks must agree on: another sbp, scalar or
# operation). Every rank must raise when some rank's call is bad or the calls differ.
BAD, ALT = True, False
OPS = {
    "div": (lambda x, y: ctensor.div(x, y, rounding_mode="floor"),
            [(lambda x, y: ctensor.div(x, y, rounding_mode="bogus"), BAD),
             (lambda x, y: ctensor.div(x, None), BAD),
             (lambda x, y: ctensor.div(x, ctensor.ones(2, 3), rounding_mode="floor"), BAD),
             (lambda x, y: ctensor.div(x, y, rounding_mode="trunc"), ALT)]),
    "add": (lambda x, y: ctensor.add(x, y, alpha=2),
            [(lambda x, y: ctensor.add(x, y, alpha="a"), BAD),
             (lambda x, y: x + None, BAD),
             (lambda x, y: ctensor.add(x, y, alpha=3), ALT),
             (lambda x, y: x + ctensor.ones(2, 3), BAD)]),
    "sub": (lambda x, y: x - y,
            [(lambda x, y: None - x, BAD), (lambda x, y: ctensor.ones(2, 3) - y, BAD),
             (lambda x, y: 1 - x, ALT)]),
    "mul": (lambda x, y: 3 * x,
            [(lambda x, y: x * None, BAD), (lambda x, y: 4 * x, ALT)]),
    "to_global": (lambda x, y: x.to_global(sbp=B),
                  [(lambda x, y: x.to_global(sbp=[B, B]), BAD),
                   (lambda x, y: x.to_global(sbp="B"), BAD),
                   (lambda x, y: x.to_global(placement="cpu", sbp=B), BAD),
                   (lambda x, y: x.to_global(sbp=S1), ALT),
                   (lambda x, y: ctensor.ones(2).global_to_global(sbp=B), BAD)]),
    "local_to_global": (lambda x, y: ctensor.ones(2, 3).to_global(placement=P, sbp=S0),
                        [(lambda x, y: ctensor.ones(2, 3).to_global(placement=P,
                                                                    sbp=[S0, S0]), BAD),
                         (lambda x, y: ctensor.ones(2, 3).to_global(placement=P), BAD),
                         (lambda x, y: ctensor.ones(2, 3).to_global(placement=P, sbp=B,
                                                                    copy=True), ALT)]),
    "factory": (lambda x, y: ctensor.ones(2, 3, dtype=ctensor.float32, placement=P, sbp=B),
                [(lambda x, y: ctensor.ones(2, 3, dtype="bogus", placement=P, sbp=B), BAD),
                 (lambda x, y: ctensor.ones(2, 3, placement=P), BAD),
                 (lambda x, y: ctensor.zeros(2, 3, dtype=ctensor.float32, placement=P,
                                             sbp=B), ALT),
                 (lambda x, y: ctensor.ones(2, 3, dtype=ctensor.float32, placement=P,
                                            sbp=[B, B]), BAD)]),
    "tolist": (lambda x, y: x.tolist(),
               [(lambda x, y: x.numpy(), ALT), (lambda x, y: repr(x), ALT),
                (lambda x, y: x + y, ALT)]),
    "numpy": (lambda x, y: y.numpy(),
              [(lambda x, y: y.tolist(), ALT), (lambda x, y: y.item(), BAD),
               (lambda x, y: y * 2, ALT)]),
    "repr": (lambda x, y: repr(x),
             [(lambda x, y: x.tolist(), ALT), (lambda x, y: x.to_global(sbp=B), ALT)]),
    "to_global_list": (lambda x, y: ctensor.to_global([x, y], sbp=B),
                       [(lambda x, y: ctensor.to_global([x, y, x], sbp=B), ALT),
                        (lambda x, y: ctensor.to_global([x], sbp=B), ALT),
                        (lambda x, y: ctensor.to_global([x, y], sbp="B"), BAD),
                        (lambda x, y: x * "ab", BAD),
                        (lambda x, y: [1] * x, BAD)]),
    "item": (lambda x, y: ctensor.full((1,), 5.0, placement=P, sbp=B).item(),
             [(lambda x, y: x.item(), BAD), (lambda x, y: x.tolist(), ALT)]),
    "eq": (lambda x, y: x == y,
           [(lambda x, y: x == None, ALT), (lambda x, y: x != y, ALT),  # noqa: E711
            (lambda x, y: x < "a", BAD), (lambda x, y: x == ctensor.ones(2, 3), BAD),
            (lambda x, y: x.maximum(2), BAD), (lambda x, y: bool(x), BAD)]),
    "exp": (lambda x, y: x.exp(),
            [(lambda x, y: x.sin(), ALT), (lambda x, y: -x, ALT),
             (lambda x, y: x.round(decimals="a"), BAD), (lambda x, y: ctensor.exp(x, out=x), BAD),
             (lambda x, y: x.exp_(), BAD)]),
    "sum": (lambda x, y: x.sum(0),
            [(lambda x, y: x.sum(1), ALT), (lambda x, y: x.sum(0, keepdim=True), ALT),
             (lambda x, y: x.mean(), ALT), (lambda x, y: x.sum(dim="a"), BAD),
             (lambda x, y: x.amax(0, dtype=ctensor.float64), BAD),
             (lambda x, y: x.max(0, dtype=ctensor.float64), BAD),
             (lambda x, y: x.max(0).values, ALT), (lambda x, y: x.argmax(1), ALT),
             (lambda x, y: x.cumsum(0), ALT), (lambda x, y: x.argmax(dim="a"), BAD)]),
}
NAMES = sorted(OPS)


def call_of(step):
    kind, op, i = step
    return OPS[op][0] if kind in ("good", "other") else OPS[op][1][i][0]


def call_key(step):
    """What a call does: two lambdas with the same code are the same call."""
    c = call_of(step).__code__
    return (c.co_code, c.co_consts, c.co_names)


def exchange(status, crc):
    """Every rank's (status, crc) (collective)."""
    t = ctensor.tensor([[status, crc, RANK, 0x5EED]], dtype=ctensor.int64)
    rows = t.to_global(placement=P, sbp=S0).numpy()
    return [(int(r[0]), int(r[1])) for r in rows]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 12345
    x, y = make_inputs()
    passed = failed = 0
    for rnd in range(rounds):
        rng = random.Random(seed * 1000003 + rnd)  # the same draws on every rank
        name = rng.choice(NAMES)
        good, bads = OPS[name]
        all_good = rng.random() < 0.4
        plan = []  # per rank: ("good", op, -1), ("other", another op, -1) or ("bad", op, i)
        for _ in range(WORLD):
            if all_good or rng.random() < 0.4:
                plan.append(("good", name, -1))
            elif rng.random() < 0.25:
                plan.append(("other", rng.choice([n for n in NAMES if n != name]), -1))
            else:
                plan.append(("bad", name, rng.randrange(len(bads))))
        kind, op, i = plan[RANK]
        fn = call_of(plan[RANK])
        try:
            text = value_of(fn(x, y))
            status, crc = 0, zlib.crc32(text.encode()) & 0x7FFFFFFF
        except Exception as e:  # noqa: BLE001 - every exception is an outcome here
            status, crc, text = 1, 0, "%s: %s" % (type(e).__name__, e)
        outcomes = exchange(status, crc)
        statuses = {s for s, _ in outcomes}
        ok = len(statuses) == 1 and (statuses == {1} or len({c for _, c in outcomes}) == 1)
        differ = len({call_key(p) for p in plan}) > 1
        bad = any(k == "bad" and OPS[o][1][j][1] for k, o, j in plan)
        if (differ or bad) and statuses != {1}:
            ok = False  # a bad call somewhere, or calls that differ, must fail everywhere
        if ok:
            passed += 1
        else:
            failed += 1
            print("driver: round %d rank %d: plan %s, outcomes %s, mine: %s" % (
                rnd, RANK, plan, outcomes, text[:200]), flush=True)
    if RANK == 0:
        print("driver: %d passed, %d failed" % (passed, failed), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
