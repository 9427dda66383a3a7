#!/usr/bin/env python3
"""Runs the scenario files (see README.md) against a memory server over stdio: an mcp-memory
host (the native binary, the npm package), or, with --reference, the reference server
(@modelcontextprotocol/server-memory) to check the expectations that are its behaviour.

An mcp-memory host's search_nodes replies may add ranked word matches after the reference's
entities (docs/compatibility.md §8): they are compared as a superset.

Each scenario gets a fresh temp dir; the server is started with
`MEMORY_FILE_PATH=<dir>/memory.jsonl`. A step is compared with its `expect`; with
--reference, with its `reference_expect` when it has one (a documented difference of
mcp-memory), and `"reference_expect": "$unchecked"` skips the comparison. With --record
(reference only), a step whose expectation is missing (or `reference_expect` is null) gets
the reference's replies written into the file (authoring aid; review before committing).

Usage:
  python3 tests/scenarios/run.py --cmd target/release/mcp-memory [FILE.json ...]
  python3 tests/scenarios/run.py --cmd "node npm/bin/mcp-memory.js"
  python3 tests/scenarios/run.py --reference \
      --cmd "node $REF_DIR/node_modules/@modelcontextprotocol/server-memory/dist/index.js" [--record]

Python 3.11, standard library only. Exit status 1 if any step differs.
"""

import argparse
import json
import os
import queue
import shlex
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANY = "$any"
UNCHECKED = "$unchecked"
REPLY_TIMEOUT = 30.0


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


class Server:
    def __init__(self, cmd, file):
        env = dict(os.environ, MEMORY_FILE_PATH=str(file))
        self.proc = subprocess.Popen(
            shlex.split(cmd),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, raw):
        self.proc.stdin.write(raw.encode("utf-8", "surrogatepass") + b"\n")
        self.proc.stdin.flush()

    def recv(self):
        try:
            line = self.lines.get(timeout=REPLY_TIMEOUT)
        except queue.Empty:
            raise RuntimeError(f"no message within {REPLY_TIMEOUT} s")
        if line is None:
            raise RuntimeError("the server closed stdout")
        return json.loads(line)

    def stop(self):
        self.proc.stdin.close()
        return self.proc.wait(timeout=REPLY_TIMEOUT)


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
        if ws is None or hs is None:
            if not matches(want, have):
                return False
            continue
        key = lambda e: json.dumps(e, sort_keys=True)
        first = hs["entities"][: len(ws["entities"])]
        if sorted(map(key, first)) != sorted(map(key, ws["entities"])):
            return False
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


def run(path, cmd, reference, record):
    scenario = json.loads(path.read_text(encoding="utf-8"))
    failures = []
    changed = False
    index = -1
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "memory.jsonl"
        if scenario.get("file"):
            file.write_bytes(scenario["file"]["jsonl"].encode("utf-8", "surrogatepass"))
        server = Server(cmd, file)
        try:
            for index, step in enumerate(scenario["steps"]):
                if step.get("restart"):
                    rc = server.stop()
                    if rc != 0:
                        failures.append((index, f"exit status {rc} at restart", None, None))
                    server = Server(cmd, file)
                    continue
                if "send" in step:
                    server.send(json.dumps(step["send"], ensure_ascii=False))
                else:
                    server.send(step["send_raw"])
                key = "reference_expect" if reference and "reference_expect" in step else "expect"
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
                got = [server.recv() for _ in want]
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
            server.stop()
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
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args()
    if args.record and not args.reference:
        ap.error("--record records the reference's behaviour: it needs --reference")
    files = args.files or sorted(HERE.glob("*.json"))
    bad = 0
    for path in files:
        failures = run(path, args.cmd, args.reference, args.record)
        print(f"{'FAIL' if failures else 'ok  '} {path.name}")
        for index, why, want, got in failures:
            bad += 1
            print(f"  step {index}: {why}")
            if want is not None:
                print("    expected: " + json.dumps(want, ensure_ascii=False))
            if got is not None:
                print("    got:      " + json.dumps(got, ensure_ascii=False))
    print(f"{len(files)} files, {bad} failing steps")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
