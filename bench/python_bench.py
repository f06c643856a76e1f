#!/usr/bin/env python3
"""What the Python binding costs: sequential caged /bin/true, four ways.

    python3 bench/python_bench.py [-n RUNS] [-w WARMUP]      (after make all)

  C        procage_spawn + procage_run_wait + procage_run_free from C, the cage
           made once: a small C loop compiled here against build/libprocage.a,
           which spawns once per request on a pipe and times itself
  binding  the same through the binding: cage.spawn(["/bin/true"]).wait(),
           close(), the Cage made once
  run()    procage.run(["/bin/true"], workspace=WORKDIR): a policy and a
           cage made for every run, as the one-call API does
  CLI      subprocess.run(["build/procage", "run", "--", "/bin/true"])

All four use the default policy for one fresh working directory (private
temporary directory on). They run in rounds, each round every variant once,
starting from a different one each round, so that the noise of a shared
machine falls on all alike; WARMUP rounds are not counted. Printed: median,
p90 and total of RUNS in milliseconds, and the ratios the targets name:
binding <= 1.2x C, and binding and run() below the CLI. Nothing here is a
test: the exit status says only whether the benchmark could run.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(TOP, os.environ.get("BUILD", "build"))
os.environ.setdefault("PROCAGE_LIBRARY", os.path.join(BUILD, "libprocage.so"))
sys.path.insert(0, os.path.join(TOP, "python"))
sys.dont_write_bytecode = True
import procage  # noqa: E402

C_LOOP = r"""
#include <procage.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* One caged /bin/true per byte read on stdin; its nanoseconds on stdout. */
int main(int argc, char **argv)
{
	struct procage_error err;
	struct procage_policy *p;
	struct procage_cage *cage;
	char *target[] = { "/bin/true", NULL };
	char request;

	if (argc != 2 || procage_policy_new_default(argv[1], &p, &err) ||
	    procage_cage_new(p, &cage, &err)) {
		fprintf(stderr, "c loop: %s\n", argc == 2 ? err.message : "usage: c_loop WORKDIR");
		return 1;
	}
	while (read(0, &request, 1) == 1) {
		struct timespec a, b;
		struct procage_run *run;
		int status;
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (procage_spawn(cage, &(struct procage_spawn_opts){
				.size = sizeof(struct procage_spawn_opts), .argv = target }, &run, &err) ||
		    procage_run_wait(run, &status, &err)) {
			fprintf(stderr, "c loop: %s\n", err.message);
			return 1;
		}
		procage_run_free(run);
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec);
		fflush(stdout);
	}
	procage_cage_free(cage);
	procage_policy_free(p);
	return 0;
}
"""


def build_c_loop(scratch):
    source = os.path.join(scratch, "c_loop.c")
    program = os.path.join(scratch, "c_loop")
    with open(source, "w") as f:
        f.write(C_LOOP)
    subprocess.run([os.environ.get("CC", "cc"), "-std=gnu11", "-O2", "-I",
                    os.path.join(TOP, "include"), "-o", program, source,
                    os.path.join(BUILD, "libprocage.a")], check=True)
    return program


class CLoop:
    def __init__(self, program, workdir):
        self.p = subprocess.Popen([program, workdir], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, cwd=workdir)

    def __call__(self):
        self.p.stdin.write(b"x")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("the C loop ended (its error is above)")
        return int(line) / 1e6

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def timed(f):
    def run():
        start = time.perf_counter_ns()
        f()
        return (time.perf_counter_ns() - start) / 1e6
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=200, help="runs per variant (200)")
    parser.add_argument("-w", type=int, default=20, help="warm-up rounds (20)")
    args = parser.parse_args()
    cli = os.path.join(BUILD, "procage")
    scratch = tempfile.mkdtemp(prefix="procage-pybench.")
    try:
        workdir = os.path.join(scratch, "work")
        os.mkdir(workdir)
        c_loop = CLoop(build_c_loop(scratch), workdir)
        cage = procage.Cage(procage.Policy.default(workdir))

        def binding():
            r = cage.spawn(["/bin/true"])
            r.wait()
            r.close()

        def one_call():
            procage.run(["/bin/true"], workspace=workdir)

        def command():
            subprocess.run([cli, "run", "--", "/bin/true"], cwd=workdir, check=True)

        variants = {"C": c_loop, "binding": timed(binding), "run()": timed(one_call),
                    "CLI": timed(command)}
        names = list(variants)
        times = {name: [] for name in names}
        for round in range(args.w + args.n):
            for i in range(len(names)):
                name = names[(round + i) % len(names)]
                t = variants[name]()
                if round >= args.w:
                    times[name].append(t)
        c_loop.close()
        cage.close()
        report(times, args, cage.tier)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def report(times, args, tier):
    print(f"procage Python binding benchmark: {args.n} sequential caged /bin/true per "
          f"variant, after {args.w} warm-up rounds; procage {procage.library_version()}, "
          f"cage tier {tier}, {os.cpu_count()} CPUs, uid {os.getuid()}")
    print(f"\n{'variant':10} {'median ms':>10} {'p90 ms':>10} {'total ms':>10} {'x C':>7}")
    median = {k: statistics.median(v) for k, v in times.items()}
    for name, t in times.items():
        p90 = statistics.quantiles(t, n=10)[-1]
        print(f"{name:10} {median[name]:10.2f} {p90:10.2f} {sum(t):10.1f} "
              f"{median[name] / median['C']:6.2f}x")
    total = {k: sum(v) for k, v in times.items()}
    print("\ntargets:")
    checks = [("binding <= 1.2x C (median)", median["binding"] / median["C"], 1.2),
              ("binding <= 1.2x C (total)", total["binding"] / total["C"], 1.2),
              ("binding < CLI (median)", median["binding"] / median["CLI"], 1.0),
              ("run() < CLI (median)", median["run()"] / median["CLI"], 1.0)]
    for what, ratio, limit in checks:
        met = ratio <= limit if limit != 1.0 else ratio < limit
        print(f"  {what:30} {ratio:6.2f}x   {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
