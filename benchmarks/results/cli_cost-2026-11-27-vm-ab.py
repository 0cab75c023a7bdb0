import subprocess, time, os, sys, statistics, json
res = {}
for i in range(9):
    for store in ("/tmp/cnr.gt", "/tmp/cnr-ef.gt"):
        for name in ("main", "dev"):
            env = {**os.environ, "PYTHONPATH": f"/work/{name}"}
            tp = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "graphtier.cli", "bfs", store, "--source", "100000", "--device", "cpu", "--json"], env=env, capture_output=True, text=True, cwd="/tmp")
            res.setdefault((store, name), []).append(time.perf_counter() - tp)
            assert r.returncode == 0 and '"reached": 325557' in r.stdout, r.stderr
for k, v in res.items(): print(k, "median %.3f  min %.3f  max %.3f" % (statistics.median(v), min(v), max(v)))
