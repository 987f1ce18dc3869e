#!/usr/bin/env python3
"""Watch latency over WRITES writes of one new file each into a copy of the sample corpus.

    scripts/watch-latency.py [WRITES] [DEBOUNCE_MS]           # the index reflecting it
    scripts/watch-latency.py [WRITES] [DEBOUNCE_MS] --answer  # an answer reflecting it

Without --answer: `attest watch` reports each run's `latency_ms` (from the burst's first
file-system event to the end of its ingest, debounce included). With --answer: `attest
serve --watch` runs, and after each write the script asks `POST /v1/ask` about the new
file (a question only it answers) every 50 ms until an answer cites it; the latency is
from the write to that answer's arrival, so it includes the asks that came too early.

Prints p50 and p95 in milliseconds. Uses target/release/attest and the bundled model.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time, urllib.request

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = [a for a in sys.argv[1:] if a != "--answer"]
answer = "--answer" in sys.argv[1:]
writes = int(args[0]) if len(args) > 0 else 20
debounce = args[1] if len(args) > 1 else "500"
work = tempfile.mkdtemp(prefix="attest-watch-")
docs = os.path.join(work, "docs")
shutil.copytree(os.path.join(root, "corpus"), docs)
base = [os.path.join(root, "target", "release", "attest"), "--index", os.path.join(work, "idx"),
        "--model-dir", os.path.join(root, "models", "all-MiniLM-L6-v2")]


def note(i):
    """Writes note i, which alone states inspection KX{i}'s finding."""
    with open(os.path.join(docs, f"note-{i:03}.md"), "w") as f:
        f.write(f"# Inspection KX{i:03}\n\nInspection KX{i:03} of the Alder Creek pump station "
                f"found a cracked valve housing.\n")


def percentiles(lat):
    lat.sort()
    p95 = lat[min(len(lat) - 1, round(0.95 * (len(lat) - 1)))]
    return {"writes": writes, "debounce_ms": int(debounce), "p50_ms": statistics.median(lat),
            "p95_ms": p95, "max_ms": lat[-1]}


def by_watch():
    cmd = base + ["watch", "--json", "--debounce-ms", debounce, docs]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        first = json.loads(p.stdout.readline())
        assert first["initial"], first
        lat = []
        for i in range(writes):
            note(i)
            run = json.loads(p.stdout.readline())
            assert run["report"]["added"] == 1, run
            lat.append(run["latency_ms"])
            time.sleep(0.5)
        return percentiles(lat)
    finally:
        p.kill()


def ask(url, question):
    req = urllib.request.Request(url + "/v1/ask", data=json.dumps(
        {"question": question, "no_memory": True}).encode(),
        headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        return json.load(e)


def by_answer():
    subprocess.run(base + ["ingest", docs], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    cmd = base + ["serve", "--addr", "127.0.0.1:0", "--watch", docs,
                  "--debounce-ms", debounce]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = p.stdout.readline().strip().rsplit(" ", 1)[-1].rstrip("/")
        lat, asks = [], 0
        for i in range(writes):
            question = f"What did inspection KX{i:03} find?"
            start = time.monotonic()
            note(i)
            while True:
                reply = ask(url, question)
                asks += 1
                cited = [e.get("source", "") for e in reply.get("evidence", [])]
                if any(c.endswith(f"note-{i:03}.md") for c in cited):
                    break
                assert time.monotonic() - start < 60, reply
                time.sleep(0.05)
            lat.append(round((time.monotonic() - start) * 1000))
            time.sleep(0.5)
        out = percentiles(lat)
        out["asks"] = asks
        return out
    finally:
        p.kill()


try:
    print(json.dumps(by_answer() if answer else by_watch()))
finally:
    shutil.rmtree(work, ignore_errors=True)
