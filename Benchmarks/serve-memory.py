#!/usr/bin/env python3
"""The RecordsBench workload against an external `stratus serve --open` (peak RSS measurement; issue 20).

Usage: python3 Benchmarks/serve-memory.py <port> <pid of stratus serve>  (see Benchmarks/README.md, "Memory").

Scenarios as Benchmarks/README.md "Records": 10,000 creates in batches of 200; the whole zone
through records/changes; a delta of 100; 1,000 sequential conditional updates; 8 clients x 500
single creates; 100,000 records loaded and 30 filtered + sorted queries. Samples the server's
VmRSS every 50 ms (with `smaps_rollup` at the highest sample) and prints VmHWM at the end; each phase line also gives its wall time (the
updates' and queries' p50/p99 too, and the server's CPU time), to weigh memory settings against speed. This Python client is
slower than RecordsBench's: compare its times only with its own, in the same run.

Optional third argument: the number of filtered + sorted queries (30)."""
import http.client, json, os, statistics, sys, threading, time

port, pid = int(sys.argv[1]), int(sys.argv[2])
queries = int(sys.argv[3]) if len(sys.argv) > 3 else 30
C = "iCloud.com.example.RecordsBench"
BASE = f"/database/1/{C}/development/private/"
samples = []
stop = False

def rss():
    out = {}
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(("VmRSS", "VmHWM")):
            k, v = line.split(":")
            out[k] = int(v.split()[0])
    return out

at_peak = [0, ""]  # the highest sampled VmRSS and /proc/PID/smaps_rollup read right after it

def sampler():
    while not stop:
        try:
            now = rss()["VmRSS"]
            samples.append((time.time(), now))
            if now > at_peak[0]: at_peak[:] = [now, open(f"/proc/{pid}/smaps_rollup").read()]
        except Exception: pass
        time.sleep(0.05)

def conn(): return http.client.HTTPConnection("127.0.0.1", port)

def post(c, op, body):
    c.request("POST", BASE + op, json.dumps(body), {"Content-Type": "application/json"})
    r = c.getresponse(); data = r.read()
    if r.status != 200: raise SystemExit(f"{op}: {r.status} {data[:300]}")
    return json.loads(data)

def fields(i, rev=0):
    s = (i * 7919 + rev * 104729) % 1000003
    return {"title": {"value": f"Item {i} rev {rev}", "type": "STRING"}, "note": {"value": f"quick brown fox {s}", "type": "STRING"},
            "priority": {"value": s % 1000, "type": "INT64"}, "quantity": {"value": i % 97 + rev, "type": "INT64"},
            "due": {"value": 1767225600000 + s * 1000, "type": "TIMESTAMP"}}

def create_ops(prefix, r):
    return [{"operationType": "create", "record": {"recordName": f"{prefix}-{i}", "recordType": "Item", "fields": fields(i)}} for i in r]

def cpu():  # the server's user + system CPU seconds so far
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

clock = [time.time(), cpu()]
def phase(name, latencies=None):
    now, spent = time.time(), cpu()
    extra = ""
    if latencies:
        ordered = sorted(latencies)
        extra = f", p50 {statistics.median(ordered)*1000:.2f} ms, p99 {ordered[int(len(ordered)*0.99)]*1000:.2f} ms"
    print(f"{name}: RSS {rss()['VmRSS']/1024:.1f} MiB, peak {rss()['VmHWM']/1024:.1f} MiB, {now - clock[0]:.2f} s,"
          f" server CPU {spent - clock[1]:.2f} s{extra}", flush=True)
    clock[:] = [time.time(), cpu()]

def timed(f):
    start = time.perf_counter(); result = f(); return time.perf_counter() - start, result

threading.Thread(target=sampler, daemon=True).start()
phase("start")
print(open(f"/proc/{pid}/smaps_rollup").read())
c = conn()
for zone in ["bench", "query"]:
    post(c, "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": zone}}}]})
z = {"zoneName": "bench"}
for b in range(50):
    post(c, "records/modify", {"operations": create_ops("r", range(b * 200, b * 200 + 200)), "zoneID": z, "atomic": True})
phase("1. 10,000 creates")
token = None
while True:
    body = {"zoneID": z, "resultsLimit": 200}
    if token: body["syncToken"] = token
    rep = post(c, "records/changes", body); token = rep["syncToken"]
    if not rep.get("moreComing"): break
phase("2. download")
post(c, "records/modify", {"operations": [{"operationType": "forceUpdate", "record": {"recordName": f"r-{i}", "recordType": "Item", "fields": fields(i, 1)}} for i in range(100)], "zoneID": z})
post(c, "records/changes", {"zoneID": z, "resultsLimit": 200, "syncToken": token})
phase("3. delta")
tag = post(c, "records/lookup", {"records": [{"recordName": "r-5000"}], "zoneID": z})["records"][0]["recordChangeTag"]
updates = []
for rev in range(1000):
    start = time.perf_counter()
    rep = post(c, "records/modify", {"operations": [{"operationType": "update", "record": {"recordName": "r-5000", "recordChangeTag": tag,
        "fields": {"quantity": {"value": rev, "type": "INT64"}, "note": {"value": f"revision {rev}", "type": "STRING"}}}}], "zoneID": z})
    tag = rep["records"][0]["recordChangeTag"]
    updates.append(time.perf_counter() - start)
phase("4. 1,000 updates", updates)
def client(n):
    cc = conn()
    for i in range(500):
        post(cc, "records/modify", {"operations": create_ops(f"c{n}", range(i, i + 1)), "zoneID": z})
ts = [threading.Thread(target=client, args=(n,)) for n in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
phase("5. 8 x 500 creates")
q = {"zoneName": "query"}
for b in range(500):
    post(c, "records/modify", {"operations": create_ops("q", range(b * 200, b * 200 + 200)), "zoneID": q, "atomic": True})
phase("6. 100,000 loaded")
latencies = []
for index in range(queries):
    if index == 1: phase("6. first query (builds the development index)", latencies)
    latencies.append(timed(lambda: post(c, "records/query", {"query": {"recordType": "Item", "filterBy": [{"fieldName": "priority", "comparator": "GREATER_THAN", "fieldValue": {"value": 500, "type": "INT64"}}],
        "sortBy": [{"fieldName": "due", "ascending": False}]}, "zoneID": q, "resultsLimit": 200}))[0])
phase(f"6. {queries} queries", latencies)
stop = True
print(open(f"/proc/{pid}/smaps_rollup").read())
print(f"smaps_rollup at the highest sample ({at_peak[0]/1024:.1f} MiB):\n{at_peak[1]}")
print(f"peak RSS (VmHWM) {rss()['VmHWM']/1024:.1f} MiB; max sampled VmRSS {max(s for _, s in samples)/1024:.1f} MiB")
