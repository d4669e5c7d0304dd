#!/usr/bin/env python3
"""Steady RSS of `stratus serve --open` with N web-courier long-polls parked (issue 20).

Usage: python3 Benchmarks/serve-longpolls.py <port> <pid of stratus serve> [polls 10000] [client processes 4]
(see Benchmarks/README.md, "Memory"). The server needs limits that admit the polls:
--max-parked-polls N --max-parked-polls-per-user N --max-push-tokens-per-user N
--max-connections N+100 --max-connections-per-address 0, and an open-file limit above N.

Creates N courier tokens (tokens/create, one keep-alive connection), then parks one
`GET /courier/{token}` per token, each on its own connection from one of the client processes
(127.0.0.1 only), and reads the server's RSS: before, while the first polls are parked (5-26 s),
while the polls sent again on the same connections after the server's 30-s empty answers are
parked (40-58 s), and after the clients close. Prints RSS per connection for both windows."""
import http.client, json, multiprocessing, resource, selectors, socket, sys, time

port, pid = int(sys.argv[1]), int(sys.argv[2])
polls = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000
procs = int(sys.argv[4]) if len(sys.argv) > 4 else 4
C = "iCloud.com.example.RecordsBench"

def status():
    out = {}
    for line in open(f"/proc/{pid}/status"):
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "Threads"): out[k] = int(v.split()[0])
    return out

def show(name):
    s = status()
    print(f"{name}: RSS {s['VmRSS']/1024:.1f} MiB (anon {s['RssAnon']/1024:.1f}, file {s['RssFile']/1024:.1f}), threads {s['Threads']}", flush=True)
    return s

def tokens():
    c = http.client.HTTPConnection("127.0.0.1", port)
    out = []
    for _ in range(polls):
        c.request("POST", f"/device/1/{C}/development/tokens/create", json.dumps({"apnsEnvironment": "development"}),
                  {"Content-Type": "application/json"})
        r = c.getresponse(); data = r.read()
        if r.status != 200: raise SystemExit(f"tokens/create: {r.status} {data[:300]}")
        out.append(json.loads(data)["apnsToken"])
    return out

def park(chunk, ready, done):
    """Parks a poll per token, each on its own connection; when one answers (empty, after the
    server's 30-s poll timeout), sends the next poll on the same kept-alive connection."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sel = selectors.DefaultSelector()
    request = {}
    for t in chunk:
        s = socket.create_connection(("127.0.0.1", port))
        request[s] = f"GET /courier/{t} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        s.sendall(request[s])
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, b"")
    ready.put(len(request))
    answers = unexpected = 0
    while not done.is_set():
        for key, _ in sel.select(timeout=0.5):
            s, buffer = key.fileobj, key.data
            data = s.recv(65536)
            if not data:
                unexpected += 1; sel.unregister(s); s.close(); continue
            buffer += data
            head, sep, rest = buffer.partition(b"\r\n\r\n")
            length = next((int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")), 0)
            if not sep or len(rest) < length:
                sel.modify(s, selectors.EVENT_READ, buffer); continue
            if not head.startswith(b"HTTP/1.1 200") or length: unexpected += 1
            answers += 1
            s.sendall(request[s])
            sel.modify(s, selectors.EVENT_READ, rest[length:])
    for key in list(sel.get_map().values()): key.fileobj.close()
    ready.put((answers, unexpected))

if __name__ == "__main__":
    before = show("idle")
    all_tokens = tokens()
    created = show(f"{polls} tokens created")
    ready, done = multiprocessing.Queue(), multiprocessing.Event()
    parts = [all_tokens[i::procs] for i in range(procs)]
    started = time.time()
    workers = [multiprocessing.Process(target=park, args=(p, ready, done)) for p in parts]
    [w.start() for w in workers]
    opened = sum(ready.get() for _ in workers)
    print(f"{opened} polls sent in {time.time() - started:.1f} s", flush=True)
    def window(name, start, end):
        while time.time() - started < start: time.sleep(0.5)
        samples = []
        while time.time() - started < end:
            samples.append(show(f"{name} ({time.time() - started:.0f} s)"))
            time.sleep(3)
        return samples
    first = window("first polls parked", 5, 26)
    # The server answers each poll empty after 30 s; the clients poll again on the same connections,
    # which libmicrohttpd has reset for the next request: the steady state of long-polling clients.
    again = window("polls parked again on kept-alive connections", 40, 58)
    done.set()
    results = [ready.get() for _ in workers]
    [w.join() for w in workers]
    print(f"answers: {sum(a for a, _ in results)}, unexpected (not an empty 200, or closed): {sum(u for _, u in results)}")
    print(open(f"/proc/{pid}/smaps_rollup").read())
    for name, samples in (("first polls", first), ("polls again", again)):
        steady = sorted(s["VmRSS"] for s in samples)[len(samples) // 2]
        anon = sorted(s["RssAnon"] for s in samples)[len(samples) // 2]
        print(f"{name}: steady RSS with {opened} parked {steady/1024:.1f} MiB; over the tokens-created figure "
              f"{(steady - created['VmRSS']) * 1024 / opened:.0f} bytes per connection "
              f"(anonymous {(anon - created['RssAnon']) * 1024 / opened:.0f})")
    time.sleep(3)
    show("clients closed")
