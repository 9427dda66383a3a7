#!/usr/bin/env python3
"""Runs the scenario files (see README.md) against a memory server: an mcp-memory host (the
native binary, the npm package), or, with --reference, the reference server
(@modelcontextprotocol/server-memory) to check the expectations that are its behaviour.

An mcp-memory host's search_nodes replies may add ranked word matches after the reference's
entities (docs/compatibility.md §8): they are compared as a superset.

Each scenario gets a fresh temp dir; the server is started with
`MEMORY_FILE_PATH=<dir>/memory.jsonl` and `MCP_MEMORY_PROFILE=all`, or the scenario's
`"profile"`. A step is compared with its `expect`; with
--reference, with its `reference_expect` when it has one (a documented difference of
mcp-memory), and `"reference_expect": "$unchecked"` skips the comparison. With --record
(reference only), a step whose expectation is missing (or `reference_expect` is null) gets
the reference's replies written into the file (authoring aid; review before committing).

--transport (default stdio) is how the runner speaks to the server. tcp and http append
`--transport tcp|http --bind 127.0.0.1:<free port>` to the command and connect once the port
accepts: tcp sends the same lines over one connection, http POSTs each line to /mcp (README.md,
"Transports"). A step's `expect_tcp` / `expect_http` replaces its `expect` there.

--store postgres://… runs each scenario on a new named memory in that database
(MCP_MEMORY_STORE); one that starts from a memory file has it imported first.

Usage:
  python3 tests/scenarios/run.py --cmd target/release/mcp-memory [FILE.json ...]
  python3 tests/scenarios/run.py --cmd target/release/mcp-memory --store postgres://127.0.0.1/db
  python3 tests/scenarios/run.py --cmd target/release/mcp-memory --transport http
  python3 tests/scenarios/run.py --cmd "node npm/bin/mcp-memory.js"
  python3 tests/scenarios/run.py --reference \
      --cmd "node $REF_DIR/node_modules/@modelcontextprotocol/server-memory/dist/index.js" [--record]

Python 3.11, standard library only. Exit status 1 if any step differs.
"""

import argparse
import http.client
import itertools
import json
import os
import queue
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANY = "$any"
UNCHECKED = "$unchecked"
REPLY_TIMEOUT = 30.0
TRANSPORTS = ("stdio", "tcp", "http")


def matches(expected, got):
    """Parsed-JSON equality where the string "$any" in `expected` matches any value."""
    if expected == ANY:
        return True
    if isinstance(expected, dict):
        return (
            isinstance(got, dict)
            and expected.keys() == got.keys()
            and all(matches(v, got[k]) for k, v in expected.items())
        )
    if isinstance(expected, list):
        return (
            isinstance(got, list)
            and len(expected) == len(got)
            and all(matches(e, g) for e, g in zip(expected, got))
        )
    # JSON numbers compare by value (1 == 1.0); bool is not a number here.
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    return expected == got


class Lines:
    """Newline-delimited JSON-RPC: each line the server writes is one message."""

    def _start_reading(self, stream):
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            self.lines.put(line)
        self.lines.put(None)

    def recv(self):
        try:
            line = self.lines.get(timeout=REPLY_TIMEOUT)
        except queue.Empty:
            raise RuntimeError(f"no message within {REPLY_TIMEOUT} s")
        if line is None:
            raise RuntimeError("the server closed its output")
        return json.loads(line)

    def take(self, count):
        """The messages a step reads: `count` of them."""
        return [self.recv() for _ in range(count)]


class Stdio(Lines):
    def __init__(self, cmd, file, env):
        self.proc = subprocess.Popen(
            shlex.split(cmd),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._start_reading(self.proc.stdout)

    def send(self, raw):
        try:
            self.proc.stdin.write(raw.encode("utf-8", "surrogatepass") + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise RuntimeError("the server closed its stdin (it exited)")

    def stop(self):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass  # it exited already; its status says how
        return self.proc.wait(timeout=REPLY_TIMEOUT)


def listen(cmd, file, transport, env):
    """Starts a network server on a free loopback port; the process and a connection to it,
    made as soon as the port accepts."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = file.parent / "server-stderr.log"
    with open(log, "ab") as stderr:
        proc = subprocess.Popen(
            shlex.split(cmd) + ["--transport", transport, "--bind", f"127.0.0.1:{port}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=env,
        )
    deadline = time.monotonic() + REPLY_TIMEOUT
    while True:
        try:
            return proc, socket.create_connection(("127.0.0.1", port), timeout=REPLY_TIMEOUT)
        except OSError:
            if proc.poll() is not None:
                tail = log.read_text(errors="replace").strip().splitlines()[-3:]
                raise RuntimeError(f"the server exited with status {proc.returncode} "
                                   f"before listening: {' / '.join(tail)}")
            if time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"port {port} did not accept within {REPLY_TIMEOUT} s")
            time.sleep(0.02)


def terminate(proc):
    """Stops a network server as its operator would (SIGTERM); its exit status."""
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=REPLY_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


class Tcp(Lines):
    """The scenario's lines over one TCP connection (one session)."""

    def __init__(self, cmd, file, env):
        self.proc, self.sock = listen(cmd, file, "tcp", env)
        self.sock.settimeout(None)
        self._start_reading(self.sock.makefile("rb"))

    def send(self, raw):
        self.sock.sendall(raw.encode("utf-8", "surrogatepass") + b"\n")

    def stop(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # the server has gone already
        self.sock.close()
        return terminate(self.proc)


class Http:
    """Streamable HTTP: one POST to /mcp per line. Every message of a response (a JSON body,
    or each `data:` of an SSE body; none for 202), a refusal's (4xx, 5xx) included, is queued
    for `recv`, in order. `status` is the HTTP status of the last line's POST.

    A session exists only from an `initialize` request on (its response carries the
    Mcp-Session-Id). A line sent while there is none, before the scenario's first initialize
    or after a restart, first opens one with the runner's own initialize and
    notifications/initialized, whose messages are not the step's."""

    OPEN_VERSION = "2025-11-25"

    def __init__(self, cmd, file, env):
        self.proc, probe = listen(cmd, file, "http", env)
        self.port = probe.getpeername()[1]
        probe.close()
        self.conn = None
        self.session = None
        self.version = None
        self.status = None
        self.pending = []
        self.opened = itertools.count(1)

    def _post(self, raw, extra=None):
        """POSTs one line with the `extra` headers (a `None` value leaves one out); its status
        and messages, and what it tells of the session."""
        body = raw.encode("utf-8", "surrogatepass")
        initialize = initialize_id(raw)
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        modern = modern_headers(raw)
        if modern is not None:
            headers.update(modern)
        elif initialize is None and self.session is not None:
            headers["Mcp-Session-Id"] = self.session
            if self.version is not None:
                headers["MCP-Protocol-Version"] = self.version
        for name, value in (extra or {}).items():
            headers.pop(name, None)
            if value is not None:
                headers[name] = value
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REPLY_TIMEOUT)
        try:
            self.conn.request("POST", "/mcp", body=body, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as e:
            self.conn.close()
            self.conn = None
            raise RuntimeError(f"HTTP POST failed: {e!r}")
        messages = http_messages(response.getheader("Content-Type") or "", data)
        if initialize is not None and response.getheader("Mcp-Session-Id"):
            self.session = response.getheader("Mcp-Session-Id")
            self.version = next(
                (m["result"].get("protocolVersion") for m in messages
                 if isinstance(m, dict) and m.get("id") == initialize[0]
                 and isinstance(m.get("result"), dict)),
                None,
            )
        return response.status, messages

    def _open_session(self):
        sid = f"scenario-session-{next(self.opened)}"
        init = {"jsonrpc": "2.0", "id": sid, "method": "initialize",
                "params": {"protocolVersion": self.OPEN_VERSION, "capabilities": {},
                           "clientInfo": {"name": "scenario-runner", "version": "1"}}}
        status, messages = self._post(json.dumps(init))
        if status != 200 or self.session is None or self.version is None:
            raise RuntimeError(f"cannot open an HTTP session: {status} {messages}")
        status, messages = self._post('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        if status != 202 or messages:
            raise RuntimeError(f"notifications/initialized got {status} {messages}")

    def send(self, raw, extra=None):
        if self.session is None and initialize_id(raw) is None and modern_headers(raw) is None:
            self._open_session()
        self.status, messages = self._post(raw, extra)
        self.pending += messages

    def recv(self):
        if not self.pending:
            raise RuntimeError("no message: the responses so far held no more")
        return self.pending.pop(0)

    def take(self, count):
        """The messages a step reads: all its response held, however many."""
        got, self.pending = self.pending, []
        return got

    def stop(self):
        if self.conn is not None:
            self.conn.close()
        return terminate(self.proc)


MODERN_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


def modern_headers(raw):
    """The routing headers of a modern (MCP 2026-07-28) request, or `None` for a line that is
    not one: a request whose `params._meta` carries the protocol version, or
    `server/discover`. Modern requests have no session."""
    try:
        msg = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(msg, dict) or "id" not in msg or msg.get("method") == "initialize":
        return None
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
    if MODERN_VERSION_KEY not in meta and msg.get("method") != "server/discover":
        return None
    headers = {"Mcp-Method": str(msg.get("method"))}
    if isinstance(meta.get(MODERN_VERSION_KEY), str):
        headers["MCP-Protocol-Version"] = meta[MODERN_VERSION_KEY]
    name = {"tools/call": "name", "resources/read": "uri"}.get(msg.get("method"))
    if name and isinstance(params.get(name), str):
        headers["Mcp-Name"] = params[name]
    return headers


def initialize_id(raw):
    """(id,) if the line is an initialize request (the server opens a session for it)."""
    try:
        msg = json.loads(raw)
    except ValueError:
        return None
    if isinstance(msg, dict) and msg.get("method") == "initialize" and "id" in msg:
        return (msg["id"],)
    return None


def http_messages(content_type, data):
    """The messages of an HTTP response body: an SSE stream's `data:` events, else the body as
    one message; none if empty. A message that is not JSON is its text (a JSON string)."""
    text = data.decode("utf-8", "replace")
    if content_type.split(";")[0].strip() == "text/event-stream":
        events, event = [], []
        for line in text.splitlines() + [""]:
            if line == "":
                if event:
                    events.append("\n".join(event))
                event = []
            elif line.startswith("data:"):
                event.append(line[5:].removeprefix(" "))
    else:
        events = [text] if text else []
    return [parse_or_text(e) for e in events]


def parse_or_text(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


SERVERS = {"stdio": Stdio, "tcp": Tcp, "http": Http}


def sync(server, index):
    """Sends the sync ping and returns the messages that arrive before its reply."""
    sync_id = f"scenario-sync-{index}"
    server.send(json.dumps({"jsonrpc": "2.0", "id": sync_id, "method": "ping"}))
    extra = []
    while True:
        msg = server.recv()
        if msg.get("id") == sync_id and "method" not in msg:
            return extra
        extra.append(msg)


def line_of(step):
    """The line a `send` step writes: its message as JSON, padded with spaces before the
    closing brace to `pad_to` bytes of UTF-8 when the step says so (messages at and over the
    size limit)."""
    line = json.dumps(step["send"], ensure_ascii=False)
    size = step.get("pad_to")
    if size is None:
        return line
    line = json.dumps(step["send"], ensure_ascii=False, separators=(",", ":"))
    pad = size - len(line.encode("utf-8"))
    if pad < 0 or not line.endswith("}"):
        raise RuntimeError(f"cannot pad a message of {len(line)} bytes to {size}")
    return line[:-1] + " " * pad + "}"


def request_id_of(step):
    """The id of the request a step sends, if it sends one."""
    msg = step.get("send")
    if msg is None:
        try:
            msg = json.loads(step["send_raw"])
        except ValueError:
            return None
    if isinstance(msg, dict) and "method" in msg and msg.get("id") is not None:
        return msg["id"]
    return None


def is_search_nodes(step):
    send = step.get("send") or {}
    params = send.get("params") or {}
    return send.get("method") == "tools/call" and params.get("name") == "search_nodes"


def superset_matches(expected, got):
    """A search_nodes reply of mcp-memory against the reference's (docs/compatibility.md §8):
    the reference's entities first (compared as a set: ours are in relevance order), then
    only entities the reference did not return (ranked word matches), every relation the
    reference returns, and the text holding the same JSON as structuredContent."""
    if len(expected) != len(got) or not all(
        isinstance(g, dict) for g in got
    ):
        return False
    for want, have in zip(expected, got):
        ws = (want.get("result") or {}).get("structuredContent")
        hs = (have.get("result") or {}).get("structuredContent")
        # Only the reference's shape (entities and relations) is matched as a superset; the
        # Python seed's search_nodes (profile mcp-memory-py) is compared exactly.
        if ws is None or hs is None or "relations" not in ws:
            if not matches(want, have):
                return False
            continue
        # The same entities in any order ("$any" matching any value, as in `matches`).
        first = list(hs["entities"][: len(ws["entities"])])
        for e in ws["entities"]:
            at = next((i for i, h in enumerate(first) if matches(e, h)), None)
            if at is None:
                return False
            first.pop(at)
        names = {e["name"] for e in ws["entities"]}
        if any(e["name"] in names for e in hs["entities"][len(ws["entities"]) :]):
            return False
        if not all(r in hs["relations"] for r in ws["relations"]):
            return False
        if json.loads(have["result"]["content"][0]["text"]) != hs:
            return False
        if want.get("id") != have.get("id"):
            return False
    return True


def expectation_key(step, transport, reference):
    """Which of a step's expectations applies."""
    if reference and "reference_expect" in step:
        return "reference_expect"
    if f"expect_{transport}" in step:
        return f"expect_{transport}"
    return "expect"


def status_failure(step, status):
    """Why the HTTP status of a step's POST is wrong (`http_status`, else any 2xx), or None."""
    want = step.get("http_status")
    if status == want or (want is None and 200 <= status < 300):
        return None
    return f"HTTP status {status}, expected {want or '2xx'}"


def run(path, cmd, reference, record, transport="stdio", store=None):
    scenario = json.loads(path.read_text(encoding="utf-8"))
    if reference and scenario.get("reference_skip"):
        return None
    if transport not in scenario.get("transports", TRANSPORTS):
        return None
    start = SERVERS[transport]
    failures = []
    changed = False
    index = -1
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "memory.jsonl"
        if scenario.get("file"):
            file.write_bytes(scenario["file"]["jsonl"].encode("utf-8", "surrogatepass"))
        # Scenarios see every tool unless they name a profile (MCP_MEMORY_PROFILE; the
        # reference ignores it).
        env = dict(os.environ, MEMORY_FILE_PATH=str(file),
                   MCP_MEMORY_PROFILE=scenario.get("profile", "all"))
        if store:
            # A memory of its own in the database (MCP_MEMORY_STORE beats MEMORY_FILE_PATH).
            sep = "&" if "?" in store else "?"
            env["MCP_MEMORY_STORE"] = f"{store}{sep}memory=scenario-{uuid.uuid4().hex[:12]}"
            if scenario.get("file"):
                # The memory starts as the file would: imported into the database.
                subprocess.run(shlex.split(cmd) + ["import", str(file)], env=env, check=True,
                               stderr=subprocess.DEVNULL)
        server = None
        try:
            server = start(cmd, file, env)
            for index, step in enumerate(scenario["steps"]):
                if step.get("restart"):
                    rc = server.stop()
                    if rc != 0:
                        failures.append((index, f"exit status {rc} at restart", None, None))
                    server = None  # stopped: nothing to stop at the end if the start fails
                    server = start(cmd, file, env)
                    continue
                line = line_of(step) if "send" in step else step["send_raw"]
                if transport == "http":
                    server.send(line, step.get("http_headers"))
                else:
                    server.send(line)
                if transport == "http" and (why := status_failure(step, server.status)):
                    failures.append((index, why, None, None))
                key = expectation_key(step, transport, reference)
                want = step.get(key)
                if want is None or want == UNCHECKED:
                    # Recording: a request's messages up to its reply, then anything else
                    # that arrives before the sync reply.
                    got = []
                    request_id = request_id_of(step)
                    while request_id is not None:
                        got.append(server.recv())
                        if got[-1].get("id") == request_id and "method" not in got[-1]:
                            break
                    got += sync(server, index)
                    if want == UNCHECKED:
                        pass
                    elif record:
                        step[key] = got
                        changed = True
                    else:
                        failures.append((index, "step has no expectation", None, got))
                    continue
                got = server.take(len(want))
                got += sync(server, index)
                same = (
                    superset_matches(want, got)
                    if is_search_nodes(step) and not reference
                    else matches(want, got)
                )
                if not same:
                    failures.append((index, "replies differ", want, got))
        except RuntimeError as e:
            failures.append((index, str(e), None, None))
        finally:
            rc = server.stop() if server is not None else 0
        if rc != 0:
            failures.append((index, f"exit status {rc} at the end", None, None))
    if changed:
        path.write_text(json.dumps(scenario, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cmd", required=True, help="command that starts the server")
    ap.add_argument("--reference", action="store_true",
                    help="the server is the reference: compare with `reference_expect` where set")
    ap.add_argument("--record", action="store_true",
                    help="with --reference: fill in missing expectations")
    ap.add_argument("--transport", choices=TRANSPORTS, default="stdio",
                    help="how to speak to the server (tcp, http: it is started with "
                         "--transport and --bind appended)")
    ap.add_argument("--store", metavar="URL",
                    help="a postgres:// address: each scenario gets a new named memory there "
                         "(a scenario's memory file is imported into it first)")
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args()
    if args.record and not args.reference:
        ap.error("--record records the reference's behaviour: it needs --reference")
    if args.reference and args.transport != "stdio":
        ap.error("the reference server speaks stdio only")
    files = args.files or sorted(HERE.glob("*.json"))
    bad = 0
    for path in files:
        failures = run(path, args.cmd, args.reference, args.record, args.transport, args.store)
        if failures is None:
            why = "reference_skip" if args.reference else f"not run over {args.transport}"
            print(f"skip {path.name} ({why})")
            continue
        print(f"{'FAIL' if failures else 'ok  '} {path.name}")
        for index, why, want, got in failures:
            bad += 1
            print(f"  step {index}: {why}")
            if want is not None:
                print("    expected: " + json.dumps(want, ensure_ascii=False))
            if got is not None:
                print("    got:      " + json.dumps(got, ensure_ascii=False))
    print(f"{len(files)} files, {bad} failing steps ({args.transport})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
