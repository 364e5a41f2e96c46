#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""simpy_mmc.py — the M/M/c queue of bench/simpy_mmc.json in SimPy 2.3
(Debian's python3-simpy), the peer tarmac is measured against
(bench/simpy_bench.sh, bench/README.md "Against SimPy").

    simpy_mmc.py [JOBS [SERVERS [RHO [SEED]]]]    (default 1000000 32 0.9 1)

JOBS jobs arrive as a Poisson stream at rate RHO x SERVERS per second; each
takes one of SERVERS servers (a SimPy Resource, FIFO) for an exponential time
of mean 1 s. Prints one line of key=value: engine_s and engine_cpu_s (the wall and CPU
time of simulate(), the model's own work: events, queue, random draws, the per-job
wait recorded in a list), the mean wait after the first 1 % of jobs, its
standard error by 20 batch means, and the Erlang C mean wait.
"""
import math
import random
import sys
import time

from SimPy.Simulation import Process, Resource, Simulation, hold, release, request


class Job(Process):
    def serve(self, k, server, waits, service):
        t0 = self.sim.now()
        yield request, self, server
        waits[k] = self.sim.now() - t0
        yield hold, self, service
        yield release, self, server


class Source(Process):
    def run(self, n, lam, mu, server, waits, rng):
        for k in range(n):
            j = Job(sim=self.sim)
            self.sim.activate(j, j.serve(k, server, waits, rng.expovariate(mu)))
            yield hold, self, rng.expovariate(lam)


def erlang_c_wait(c, lam, mu):
    """Mean wait in queue of M/M/c: C(c, a) / (c mu - lam), a = lam / mu."""
    a = lam / mu
    b = 1.0
    for k in range(1, c + 1):  # Erlang B by its recursion
        b = a * b / (k + a * b)
    rho = a / c
    cw = b / (1 - rho + rho * b)
    return cw / (c * mu - lam)


def batch_means(x, skip, batches=20):
    x = x[skip:]
    m = len(x) // batches
    means = [sum(x[i * m:(i + 1) * m]) / m for i in range(batches)]
    mean = sum(x) / len(x)
    bm = sum(means) / batches
    var = sum((v - bm) ** 2 for v in means) / (batches - 1)
    return mean, math.sqrt(var / batches)


def main():
    a = sys.argv[1:]
    n = int(a[0]) if len(a) > 0 else 1000000
    c = int(a[1]) if len(a) > 1 else 32
    rho = float(a[2]) if len(a) > 2 else 0.9
    seed = int(a[3]) if len(a) > 3 else 1
    lam, mu = rho * c, 1.0
    rng = random.Random(seed)
    sim = Simulation()
    sim.initialize()
    server = Resource(capacity=c, sim=sim)
    waits = [0.0] * n
    src = Source(sim=sim)
    sim.activate(src, src.run(n, lam, mu, server, waits, rng))
    t0, c0 = time.perf_counter(), time.process_time()
    sim.simulate(until=1e18)
    engine, engine_cpu = time.perf_counter() - t0, time.process_time() - c0
    mean, se = batch_means(waits, n // 100)
    print(f"engine_s={engine:.3f} engine_cpu_s={engine_cpu:.3f} jobs={n} servers={c} rho={rho} t_end_s={sim.now():.1f} "
          f"wait_mean_s={mean:.6f} wait_se_s={se:.6f} erlang_c_s={erlang_c_wait(c, lam, mu):.6f}")


main()
