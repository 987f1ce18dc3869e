#!/usr/bin/env python3
"""Watch latency: time from a file write to the index reflecting it, as `attest watch`
reports it (`latency_ms`: from the burst's first file-system event to the end of its
ingest, debounce included), over WRITES writes of one new file each into a copy of the
sample corpus.

    scripts/watch-latency.py [WRITES] [DEBOUNCE_MS]

Prints p50 and p95 in milliseconds. Uses target/release/attest and the bundled model.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
writes = int(sys.argv[1]) if len(sys.argv) > 1 else 20
debounce = sys.argv[2] if len(sys.argv) > 2 else "500"
work = tempfile.mkdtemp(prefix="attest-watch-")
docs = os.path.join(work, "docs")
shutil.copytree(os.path.join(root, "corpus"), docs)
cmd = [os.path.join(root, "target", "release", "attest"), "--index", os.path.join(work, "idx"),
       "--model-dir", os.path.join(root, "models", "all-MiniLM-L6-v2"),
       "watch", "--json", "--debounce-ms", debounce, docs]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    first = json.loads(p.stdout.readline())
    assert first["initial"], first
    lat = []
    for i in range(writes):
        with open(os.path.join(docs, f"note-{i:03}.md"), "w") as f:
            f.write(f"# Note {i}\n\nInspection {i} of pump station {i} found no leaks.\n")
        run = json.loads(p.stdout.readline())
        assert run["report"]["added"] == 1, run
        lat.append(run["latency_ms"])
        time.sleep(0.5)
    lat.sort()
    p95 = lat[min(len(lat) - 1, round(0.95 * (len(lat) - 1)))]
    print(json.dumps({"writes": writes, "debounce_ms": int(debounce),
                      "p50_ms": statistics.median(lat), "p95_ms": p95, "max_ms": lat[-1]}))
finally:
    p.kill()
    shutil.rmtree(work, ignore_errors=True)
