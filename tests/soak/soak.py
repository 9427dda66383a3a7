#!/usr/bin/env python3
"""Hours of real use on one memory (issue 44): many kinds of client at once, for a duration.

    python3 tests/soak/soak.py --native target/release/mcp-memory [--node npm/bin/mcp-memory.js]
        [--minutes 10] [--store postgres://…] [--history-days N] [--durability sync|background]
        [--full MIB]

On one memory file (or, with --store, one memory of a PostgreSQL database): 8 native stdio
servers, 1 native HTTP server with 2 clients, and 1 Node stdio server (files only), each
client at a bounded rate (--rate calls a second) with a mix of writes (creates,
observations added and deleted, deletes, relations made and removed, merges, undo), reads,
searches and compactions. Every 15 s one of the first four stdio clients is replaced: its
server killed with SIGKILL between two calls (a crash), or its client gone (stdin and stdout
closed), after which the server must have exited within 2 s; a new server and session take
its place. The other servers (four stdio, the HTTP one, the Node one) live the whole run.

Each client writes only entities of its own (names `<client>:<n>`), so what the memory must
hold is known exactly: each client keeps the model of its entities, observations and
relations as its acknowledged calls left them. Checked and printed:
- RSS of every long-lived server over time (printed at each tenth of the run): after warm-up
  (the first quarter) it may drift at most 5% (`--rss-drift`); the Node server runs with
  `--no-wasm-lazy-compilation --no-wasm-dynamic-tiering`, so that its code is compiled and
  optimized at the start and not counted as drift;
- the memory file's size over time: at most 4 times its size after warm-up and never more
  than 64 MiB per 10,000 live entities (live data plus the history horizon);
  (each client starts with its --live entities, so the memory is at its steady size from the
  start and warm-up is the servers' own);
- p50/p99 latency per minute: no minute's p99 above 10 times the first minute's;
- at the end, every server's view (read_graph through each live client) and a fresh
  server's equal the clients' models: every acknowledged write present, nothing else;
- every call answered with success read back at once in one of every 10 calls;
- no server process alive 2 s after its client is gone.

With --full (files only; root, to mount): the memory file lives on a tmpfs of that many MiB,
and from 40% to 60% of the run a filler takes all the room left on it. A write that finds no
room must fail saying so ("No space left on device"): it is counted, not acknowledged, so
the models (and the final checks) hold without it; reads go on meanwhile; once the filler is
removed, writes must go through again. No server is replaced meanwhile: one started while the
storage is full refuses to start (it takes the file's lock to read the log, and the lock file
cannot be written), naming the lock file and "No space left on device".

Exit status 0 when every check holds. Not a test of speed: the figures are printed.
"""

import argparse
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TOKEN = "soak-token"
# Calls that change the memory (the ones that must find room).
WRITES = {"create_entities", "add_observations", "delete_observations", "delete_entities",
          "create_relations", "delete_relations", "merge_entities", "undo", "compact"}
ORPHAN_SECONDS = 2.0
REPLY_TIMEOUT = 60.0


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def gone_within(proc, seconds):
    try:
        proc.wait(timeout=seconds)
        return True
    except subprocess.TimeoutExpired:
        return False


class Stdio:
    """A stdio server and its session."""

    def __init__(self, cmd, name, env):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.name = name
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": name, "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{self.name}: the server closed its output")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                return message

    def pid(self):
        return self.proc.pid

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def leave(self):
        """The client goes (its pipes closed); whether the server then exited in time."""
        self.proc.stdin.close()
        self.proc.stdout.close()
        return gone_within(self.proc, ORPHAN_SECONDS)


class HttpClient:
    """A client of the HTTP server, in a session of its own."""

    def __init__(self, port, name):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REPLY_TIMEOUT)
        self.name = name
        self.session = None
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": name, "version": "1"}})
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, message):
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}",
                   "Accept": "application/json, text/event-stream"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
            headers["MCP-Protocol-Version"] = "2025-11-25"
        self.conn.request("POST", "/mcp", body=json.dumps(message), headers=headers)
        response = self.conn.getresponse()
        body = response.read().decode()
        self.session = self.session or response.getheader("Mcp-Session-Id")
        if response.getheader("Content-Type", "").startswith("text/event-stream"):
            return [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:")]
        return [json.loads(body)] if body else []

    def request(self, method, params):
        self.next_id += 1
        for message in self.post({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                  "params": params}):
            if message.get("id") == self.next_id:
                return message
        raise RuntimeError(f"{self.name}: no reply")


class NoRoom(Exception):
    """A write refused because the storage is full (with --full, while the filler is there)."""


def says_no_room(reply):
    return "no space left on device" in json.dumps(reply).lower()


class Model:
    """What a client's acknowledged calls left of its entities and relations."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.entities = {}  # name -> set of observations
        self.relations = set()  # (from, type, to)
        self.made = 0

    def fresh(self):
        self.made += 1
        return f"{self.prefix}:{self.made}"

    def related(self, name):
        return any(name in (f, t) for f, _, t in self.relations)


class Client:
    """One client's loop: calls at a bounded rate, the model kept, latencies recorded."""

    def __init__(self, soak, name, connect, live):
        self.soak, self.name, self.connect, self.live = soak, name, connect, live
        self.model = Model(name)
        self.rng = random.Random(name)
        self.conn = connect()
        self.lock = threading.Lock()  # held for a call; the killer takes it between calls

    def call(self, tool, args):
        start = time.monotonic()
        reply = self.conn.request("tools/call", {"name": tool, "arguments": args})
        self.soak.latency(tool, (time.monotonic() - start) * 1000)
        result = reply.get("result")
        if (not result or result.get("isError")) and self.soak.may_be_full() and says_no_room(reply):
            self.soak.refused(self.name, tool)
            raise NoRoom()
        if not result or result.get("isError"):
            raise RuntimeError(f"{self.name} {tool} {json.dumps(args)[:200]}: {json.dumps(reply)[:400]}")
        self.soak.acknowledged(tool)
        return result.get("structuredContent")

    def step(self):
        m, rng = self.model, self.rng
        names = list(m.entities)
        r = rng.random()
        if r < 0.22 or len(names) < 4:
            if len(names) >= self.live:
                old = names[0]
                self.call("delete_entities", {"entityNames": [old]})
                del m.entities[old]
                m.relations = {x for x in m.relations if old not in (x[0], x[2])}
                return
            name = m.fresh()
            obs = [f"fact {rng.randrange(10**6)} about {name}"]
            self.call("create_entities", {"entities": [{"name": name, "entityType": "soak", "observations": obs}]})
            m.entities[name] = set(obs)
            if rng.random() < 0.05:
                self.undo_create(name)
        elif r < 0.40:
            name = rng.choice(names)
            text = f"more {rng.randrange(10**6)}"
            self.call("add_observations", {"observations": [{"entityName": name, "contents": [text]}]})
            m.entities[name].add(text)
        elif r < 0.45:
            name = rng.choice(names)
            if m.entities[name]:
                text = sorted(m.entities[name])[0]
                self.call("delete_observations", {"deletions": [{"entityName": name, "observations": [text]}]})
                m.entities[name].discard(text)
        elif r < 0.55:
            a, b = rng.sample(names, 2)
            self.call("create_relations", {"relations": [{"from": a, "to": b, "relationType": "soaks"}]})
            m.relations.add((a, "soaks", b))
        elif r < 0.60 and m.relations:
            f, t, to = rng.choice(sorted(m.relations))
            self.call("delete_relations", {"relations": [{"from": f, "to": to, "relationType": t}]})
            m.relations.discard((f, t, to))
        elif r < 0.62:
            free = [n for n in names if not m.related(n)]
            if len(free) >= 2:
                source, target = rng.sample(free, 2)
                self.call("merge_entities", {"source": source, "target": target})
                m.entities[target] |= m.entities.pop(source)
        elif r < 0.78:
            name = rng.choice(names)
            got = self.call("open_nodes", {"names": [name]})
            self.check_entity(name, got)
        elif r < 0.97:
            self.call("search", {"query": f"fact {rng.randrange(10**6)}", "limit": 5})
        elif r < 0.975:
            self.call("compact", {})
        else:
            self.call("read_graph", {"limit": 20})
        if rng.random() < 0.1 and names:
            name = rng.choice(list(m.entities))
            self.check_entity(name, self.call("open_nodes", {"names": [name]}))

    def undo_create(self, name):
        # With no history kept, another client's compaction may fold the create into the
        # state between the calls: then it is no longer a change to undo (history lists
        # none, undo finds no such id), and the entity stays.
        folded = self.soak.args.history_days == 0
        changes = self.call("history", {"client": self.name, "limit": 1})["changes"]
        if not changes and folded:
            return
        try:
            self.call("undo", {"changeId": changes[0]["id"]})
        except RuntimeError as e:
            if folded and "no change has id" in str(e):
                return
            raise
        del self.model.entities[name]

    def check_entity(self, name, got):
        found = [e for e in got["entities"] if e["name"] == name]
        if not found or set(found[0]["observations"]) != self.model.entities[name]:
            self.soak.fail(f"{self.name}: {name} read back as {found} instead of {sorted(self.model.entities[name])}")

    def fill(self):
        """Starts from a client's steady state: `live` entities of its own."""
        names = [self.model.fresh() for _ in range(self.live)]
        entities = [{"name": n, "entityType": "soak", "observations": [f"first fact about {n}"]} for n in names]
        self.call("create_entities", {"entities": entities})
        for n in names:
            self.model.entities[n] = {f"first fact about {n}"}

    def run(self, until, rate):
        while time.monotonic() < until and not self.soak.failed:
            begin = time.monotonic()
            with self.lock:
                try:
                    self.step()
                except NoRoom:
                    pass  # not acknowledged: the model is as before the call
                except Exception as e:  # noqa: BLE001 - any failure fails the soak
                    self.soak.fail(f"{self.name}: {e}")
                    return
            time.sleep(max(0.0, 1.0 / rate - (time.monotonic() - begin)))


class Soak:
    def __init__(self, args):
        self.args = args
        self.failures = []
        self.failed = False
        self.samples = []  # (t, op, ms)
        self.samples_lock = threading.Lock()
        self.dir = tempfile.mkdtemp(prefix="mcp-memory-soak-")
        if args.full:
            subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={args.full}m", "tmpfs", self.dir], check=True)
        self.filler = os.path.join(self.dir, "filler")
        self.filled_once = False
        self.refusals = {}  # (client, tool) -> count
        self.writes_after_room = 0
        self.room_made = None
        self.file = os.path.join(self.dir, "memory.mcpmem")
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("MEMORY_FILE_PATH", "MCP_MEMORY_STORE", "MCP_MEMORY_NOW")}
        self.env["MCP_MEMORY_PROFILE"] = "all"
        if args.history_days is not None:
            self.env["MCP_MEMORY_HISTORY_DAYS"] = str(args.history_days)
        self.where = ["--store", args.store] if args.store else ["-f", self.file]
        if args.durability:
            self.where += ["--durability", args.durability]
        self.start = time.monotonic()

    def fail(self, message):
        self.failed = True
        self.failures.append(message)
        print(f"FAIL: {message}", file=sys.stderr, flush=True)

    def latency(self, op, ms):
        with self.samples_lock:
            self.samples.append((time.monotonic() - self.start, op, ms))

    def acknowledged(self, tool):
        if self.room_made and time.monotonic() > self.room_made and tool in WRITES:
            with self.samples_lock:
                self.writes_after_room += 1

    def may_be_full(self):
        """Whether the filler is there, or was until a moment ago (calls under way)."""
        return self.filled_once and (self.room_made is None or time.monotonic() < self.room_made)

    def refused(self, client, tool):
        with self.samples_lock:
            self.refusals[(client, tool)] = self.refusals.get((client, tool), 0) + 1

    def fill_up(self):
        """The filler takes all the room left on the tmpfs."""
        self.filled_once = True
        with open(self.filler, "wb") as f:
            try:
                while True:
                    f.write(b"\0" * (1 << 16))
                    f.flush()
            except OSError:
                pass

    def make_room(self):
        os.remove(self.filler)
        self.room_made = time.monotonic() + 1  # calls under way when it went do not count

    def native_stdio(self, name):
        return lambda: Stdio([self.args.native, *self.where], name, self.env)

    def node_stdio(self, name):
        # V8 compiles each of the engine's functions when first called and again, optimized,
        # once it has run enough: that code, not data, grows the Node server's RSS by steps
        # of megabytes for minutes, later on a busy machine (+6% at 80% of a CI run, the JS
        # heap and the wasm memory flat). Compiled whole at the start and optimized at once,
        # RSS after warm-up follows the memory's data, as the check means.
        return lambda: Stdio(["node", "--no-wasm-lazy-compilation", "--no-wasm-dynamic-tiering",
                              self.args.node, "-f", self.file], name, self.env)

    def http_server(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = dict(self.env, MCP_MEMORY_AUTH_TOKEN=TOKEN)
        proc = subprocess.Popen([self.args.native, *self.where, "--transport", "http",
                                 "--bind", f"127.0.0.1:{port}"], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                return proc, port
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the HTTP server did not start")

    def run(self):
        a = self.args
        duration = a.minutes * 60
        http_proc, port = self.http_server()
        clients = [Client(self, f"stdio{i}", self.native_stdio(f"stdio{i}"), a.live) for i in range(8)]
        clients += [Client(self, f"http{i}", (lambda i=i: HttpClient(port, f"http{i}")), a.live) for i in range(2)]
        if a.node and not a.store:
            clients.append(Client(self, "node", self.node_stdio("node"), a.live))
        for c in clients:
            c.fill()
        self.start = time.monotonic()
        until = self.start + duration
        threads = [threading.Thread(target=c.run, args=(until, a.rate), daemon=True) for c in clients]
        for t in threads:
            t.start()
        replaceable = clients[:4]
        rss = {}  # label -> [(t, KiB)]
        sizes = []  # (t, bytes)
        next_replace = time.monotonic() + 15
        replaced = 0
        full_from, full_until = (self.start + duration * x for x in (0.4, 0.6))
        while time.monotonic() < until and not self.failed:
            t = time.monotonic() - self.start
            if a.full and not self.filled_once and time.monotonic() >= full_from:
                self.fill_up()
            if a.full and self.filled_once and self.room_made is None and time.monotonic() >= full_until:
                self.make_room()
            for c in clients:
                if isinstance(c.conn, Stdio) and c not in replaceable:
                    rss.setdefault(c.name, []).append((t, rss_kib(c.conn.pid())))
            rss.setdefault("http", []).append((t, rss_kib(http_proc.pid)))
            if not a.store:
                sizes.append((t, os.path.getsize(self.file)))
            # No server is started while the storage is full: one refuses to start then (it
            # takes the lock to read the log, and cannot write the lock), saying so.
            if time.monotonic() >= next_replace and not self.may_be_full():
                victim = replaceable[replaced % len(replaceable)]
                with victim.lock:
                    if replaced % 2 == 0:
                        victim.conn.kill()
                    elif not victim.conn.leave():
                        self.fail(f"{victim.name}: its server was alive {ORPHAN_SECONDS} s after its client went")
                    victim.conn = victim.connect()
                replaced += 1
                next_replace += 15
            time.sleep(5)
        for t in threads:
            t.join(timeout=REPLY_TIMEOUT)
        self.report_series(rss, sizes, duration, replaced, sum(len(c.model.entities) for c in clients))
        self.check_views(clients)
        for c in clients:
            if isinstance(c.conn, Stdio) and not c.conn.leave():
                self.fail(f"{c.name}: its server was alive {ORPHAN_SECONDS} s after its client went")
        http_proc.send_signal(signal.SIGTERM)
        if not gone_within(http_proc, 10):
            self.fail("the HTTP server did not stop within 10 s of SIGTERM")
            http_proc.kill()
        fresh = Stdio([a.native, *self.where], "fresh", self.env)
        self.compare(clients, fresh.request("tools/call", {"name": "read_graph", "arguments": {}}), "a fresh server")
        fresh.leave()
        if a.full:
            self.report_full()
            subprocess.run(["umount", self.dir], check=False)
        return not self.failed

    def report_full(self):
        by_tool = {}
        for (_, tool), n in self.refusals.items():
            by_tool[tool] = by_tool.get(tool, 0) + n
        print(f"storage full from 40% to 60% of the run: {sum(by_tool.values())} writes refused for want of "
              f"room ({', '.join(f'{t} {n}' for t, n in sorted(by_tool.items()))}), by "
              f"{len({c for c, _ in self.refusals})} clients; {self.writes_after_room} writes went through "
              f"once room was made")
        if not by_tool:
            self.fail("the storage was full and no write was refused")
        if self.writes_after_room == 0:
            self.fail("no write went through once room was made")

    def expected(self, clients):
        entities, relations = {}, set()
        for c in clients:
            entities.update({n: sorted(o) for n, o in c.model.entities.items()})
            relations |= c.model.relations
        return entities, relations

    def compare(self, clients, reply, who):
        graph = reply["result"]["structuredContent"]
        got = {e["name"]: sorted(e["observations"]) for e in graph["entities"]}
        got_relations = {(r["from"], r["relationType"], r["to"]) for r in graph["relations"]}
        entities, relations = self.expected(clients)
        if got != entities:
            missing = sorted(set(entities) - set(got))[:5]
            extra = sorted(set(got) - set(entities))[:5]
            differ = sorted(n for n in set(got) & set(entities) if got[n] != entities[n])[:5]
            self.fail(f"{who}: entities differ: missing {missing}, extra {extra}, other observations {differ}")
        if got_relations != relations:
            self.fail(f"{who}: relations differ: missing {sorted(relations - got_relations)[:5]}, "
                      f"extra {sorted(got_relations - relations)[:5]}")
        return len(got), len(got_relations)

    def check_views(self, clients):
        for c in clients:
            with c.lock:
                counts = self.compare(clients, c.conn.request("tools/call", {"name": "read_graph", "arguments": {}}),
                                      f"{c.name}'s server")
        print(f"views checked: {len(clients)} servers' read_graph and a fresh server's against the models "
              f"({counts[0]} entities, {counts[1]} relations)")

    def report_series(self, rss, sizes, duration, replaced, live):
        warm = duration / 4
        print(f"{len(self.samples)} calls in {duration / 60:.1f} min, {replaced} servers replaced, {live} live entities at the end")
        print("RSS (MiB) after warm-up -> end, by server:")
        for label, series in sorted(rss.items()):
            series = [(t, k) for t, k in series if k]
            after = [k for t, k in series if t >= warm]
            if len(after) < 2:
                continue
            start, end = after[0], max(after[-3:])
            drift = end / start - 1
            tenths = [next((k for t, k in series if t >= duration * i / 10), series[-1][1]) for i in range(11)]
            print(f"  {label}: {start / 1024:.1f} -> {end / 1024:.1f} ({drift:+.1%}); by tenths: "
                  + " ".join(f"{k / 1024:.1f}" for k in tenths))
            if drift > self.args.rss_drift:
                self.fail(f"{label}: RSS grew {drift:.1%} after warm-up ({start} -> {end} KiB)")
        if sizes:
            after = [s for t, s in sizes if t >= warm] or [sizes[-1][1]]
            tenths = [next((b for t, b in sizes if t >= duration * i / 10), sizes[-1][1]) for i in range(11)]
            print(f"memory file: {after[0] / 2**20:.1f} MiB after warm-up, {max(after) / 2**20:.1f} MiB at most, "
                  f"{sizes[-1][1] / 2**20:.1f} MiB at the end; by tenths (MiB): "
                  + " ".join(f"{b / 2**20:.1f}" for b in tenths))
            if max(after) > 4 * max(after[0], 1 << 20) or max(after) > (64 << 20) * max(1, live / 10_000):
                self.fail(f"the memory file grew to {max(after)} bytes")
        minutes = {}
        for t, _, ms in self.samples:
            if t < duration - duration % 60 or duration < 60:
                minutes.setdefault(int(t // 60), []).append(ms)
        print("latency per minute (ms): minute, calls, p50, p99")
        first = None
        for minute, values in sorted(minutes.items()):
            values.sort()
            p50, p99 = values[len(values) // 2], values[min(len(values) - 1, int(len(values) * 0.99))]
            print(f"  {minute}: {len(values)}, {p50:.2f}, {p99:.2f}")
            first = first or p99
            if p99 > 10 * first:
                self.fail(f"minute {minute}: p99 {p99:.1f} ms is over 10 times the first minute's ({first:.1f})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--native", required=True, help="the mcp-memory binary")
    p.add_argument("--node", help="npm/bin/mcp-memory.js (one Node stdio server on the file)")
    p.add_argument("--minutes", type=float, default=10)
    p.add_argument("--store", help="a postgres:// memory instead of a file (no Node server)")
    p.add_argument("--rate", type=float, default=20, help="calls a second per client")
    p.add_argument("--live", type=int, default=150, help="entities a client keeps (older ones deleted)")
    p.add_argument("--durability", choices=["sync", "background"], help="the native servers' --durability")
    p.add_argument("--full", type=int, metavar="MIB",
                   help="the memory file on a tmpfs of MIB MiB, filled from 40%% to 60%% of the run")
    p.add_argument("--rss-drift", type=float, default=0.05)
    p.add_argument("--history-days", type=int,
                   help="the servers' --history-days (default theirs, 30: then the log keeps the whole run's "
                        "history and grows with it; the history tools read it a page at a time)")
    args = p.parse_args()
    ok = Soak(args).run()
    print("soak passed" if ok else "soak FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
