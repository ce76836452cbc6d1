"""Run Paddle's public API test files (PaddleTest framework/api/{nn,fft,optimizer,loss}, pytest) with
real PaddlePaddle 2.6.2 and with Paddle-C (FLAGS_set_to_1d=0), one process per file, and tally the
items real Paddle passes and how many of those Paddle-C passes (issue 23 item 3).

The tests are public code that is NOT part of this repository: extract them into a scratch directory
first, e.g.

    mkdir -p /tmp/ptest && git -C /work/.mirror/PaddlePaddle+PaddleTest/repo archive HEAD \
        framework/api framework/utils | tar -x -C /tmp/ptest
    python tools/oracle/public_suites_nn.py /tmp/ptest/framework/api nn fft optimizer loss -j 2

Each file runs from a private copy of its suite directory (one for Paddle, one for Paddle-C), so files
a test writes never mix. Real Paddle runs from /work/oracle/bin/python with no PYTHONPATH; its outcomes
are cached (by the file's content) in --cache. Paddle-C runs with PYTHONPATH=<this worktree>/python.
Outcomes come from pytest's junitxml. Failures are printed grouped by their first error line.
"""
import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import re
import signal
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE_PY = os.environ.get("PADDLE_ORACLE_PY", "/work/oracle/bin/python")
# The oracle venv has no pytest: a directory holding pytest alone (and nothing of Paddle), made with
# `pip install --target DIR pytest`, goes on its PYTHONPATH when the venv cannot import pytest.
ORACLE_PYTEST = os.environ.get("PADDLE_ORACLE_PYTEST", "/tmp/oracle_pytest")
OURS_PY = os.environ.get("PADDLE_C_PY", "/work/main/.venv/bin/python")


def _outcomes(xml_path):
    """{item id: (status, message)} from a junitxml file; status pass/fail/error/skip."""
    out = {}
    try:
        tree = ET.parse(xml_path)
    except (OSError, ET.ParseError):
        return out
    for tc in tree.iter("testcase"):
        iid = f"{tc.get('classname', '')}::{tc.get('name', '')}"
        status, msg = "pass", ""
        for tag in ("failure", "error", "skipped"):
            node = tc.find(tag)
            if node is not None:
                status = {"failure": "fail", "error": "error", "skipped": "skip"}[tag]
                msg = _cause(node.get("message") or "", node.text or "")
                break
        out[iid] = (status, msg)
    return out


def _cause(message, text):
    """One line naming the cause: the exception line pytest reports (the last 'E   ' line that names
    an exception, else the message's first line), numbers and addresses blurred."""
    lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    exc = [ln for ln in lines if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b", ln)]
    line = (exc[0] if exc else (message.splitlines() or [""])[0] if message else (lines[0] if lines else ""))
    line = re.sub(r"0x[0-9a-f]+", "0x?", line)
    return line[:300]


# A fork server: imports paddle and pytest once, then runs each test file in a child forked from that
# state (a fresh process per file, as run.sh's one pytest per file, without paying the import each
# time: Paddle's import takes 5-20 s on a loaded machine). One request per line on stdin (JSON:
# dir, file, xml, log, timeout); one answer per line on stdout (JSON: the child's status).
_SERVER = r"""
import json, os, signal, sys
import paddle, pytest  # noqa: F401  (imported once, before the forks)
for line in sys.stdin:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        try:
            fd = os.open(req["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1); os.dup2(fd, 2)
            os.chdir(req["dir"]); sys.path.insert(0, req["dir"])
            signal.alarm(req["timeout"])
            rc = pytest.main(["-q", "-p", "no:cacheprovider", "-o", "log_cli=false",
                              "--junitxml=" + req["xml"], req["file"]])
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(int(rc))
        except BaseException:
            import traceback; traceback.print_exc(); sys.stderr.flush()
            os._exit(3)
    _, st = os.waitpid(pid, 0)
    ans = {"rc": os.WEXITSTATUS(st)} if os.WIFEXITED(st) else {"signal": os.WTERMSIG(st)}
    sys.stdout.write(json.dumps(ans) + "\n"); sys.stdout.flush()
"""


class _Server:
    """Runs test files for one interpreter: forked from a fork server (fork=True: Paddle-C), or each
    in a new `python -m pytest` process (real Paddle: its import starts threads, and its forked
    children crash or hang)."""

    def __init__(self, py, env_extra, pythonpath, fork):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FLAGS_", "PYTHON"))}
        env.update(env_extra)
        env["OMP_NUM_THREADS"] = "1"
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        self.py, self.env, self.p = py, env, None
        if fork:
            self.p = subprocess.Popen([py, "-c", _SERVER], cwd=tempfile.gettempdir(), env=env,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, d, name, xml, log, timeout):
        if self.p is None:
            cmd = [self.py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "log_cli=false",
                   f"--junitxml={xml}", name]
            with open(log, "w") as f:
                try:
                    rc = subprocess.run(cmd, cwd=d, env=self.env, stdout=f, stderr=subprocess.STDOUT,
                                        timeout=timeout).returncode
                except subprocess.TimeoutExpired:
                    return {"signal": int(signal.SIGALRM)}
            return {"rc": rc} if rc >= 0 else {"signal": -rc}
        self.p.stdin.write(json.dumps({"dir": d, "file": name, "xml": xml, "log": log,
                                       "timeout": timeout}) + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def close(self):
        if self.p is not None:
            self.p.stdin.close()
            self.p.wait()


def run_file(server, suite_copy, rel, timeout):
    """Run one test file with pytest in its suite directory (a child of the fork server); {item:
    (status, cause)} plus a file-level outcome under '<file>' when the child crashed, timed out or
    collected nothing."""
    d = os.path.join(suite_copy, os.path.dirname(rel))
    fd, xml = tempfile.mkstemp(suffix=".xml")
    os.close(fd)
    log = xml[:-4] + ".log"
    ans = server.run(d, os.path.basename(rel), xml, log, timeout)
    with open(log, errors="replace") as f:
        tail = f.read()[-2000:]
    os.unlink(log)
    res = _outcomes(xml)
    os.unlink(xml)
    if ans.get("signal") == signal.SIGALRM:
        res["<file>"] = ("error", f"timeout after {timeout} s")
    elif "signal" in ans:
        res["<file>"] = ("error", f"crash: signal {ans['signal']}")
    elif ans["rc"] not in (0, 1, 5) or not res:
        res["<file>"] = ("error", f"exit {ans['rc']}: " + (tail.strip().splitlines() or [""])[-1][:200])
    return {k: list(v) for k, v in res.items()}


def _run_all(py, env_extra, pythonpath, suite_copy, files, timeout, j, done, fork=False):
    """Run files on j fork servers; done(rel, result) as each finishes."""
    import queue
    servers = queue.Queue()
    for _ in range(j):
        servers.put(_Server(py, env_extra, pythonpath, fork))

    def one(rel):
        srv = servers.get()
        try:
            return run_file(srv, suite_copy, rel, timeout)
        finally:
            servers.put(srv)

    with cf.ThreadPoolExecutor(j) as ex:
        futs = {ex.submit(one, r): r for r in files}
        for fut in cf.as_completed(futs):
            done(futs[fut], fut.result())
    while not servers.empty():
        servers.get().close()


def _copy(src, dst):
    if not os.path.isdir(dst):
        shutil.copytree(src, dst)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("api_dir", help="an extracted PaddleTest framework/api directory")
    ap.add_argument("dirs", nargs="+", help="suite directories under it (nn fft optimizer loss)")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("-k", default="", help="only files whose name contains one of these (comma-separated; a name ending in .py "
                         "matches exactly)")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--cache", default="/tmp/public_suites_nn_oracle.json")
    ap.add_argument("--scratch", default="/tmp/public_suites_nn_scratch")
    ap.add_argument("--json", help="write per-item outcomes here")
    ap.add_argument("--oracle-only", action="store_true")
    ap.add_argument("--no-fork", action="store_true",
                    help="start Paddle-C afresh for each file too (slower) instead of forking it")
    ap.add_argument("--ours-only", action="store_true",
                    help="run Paddle-C alone and list every item it does not pass (no oracle run)")
    ap.add_argument("--rerun-oracle", action="store_true", help="ignore cached oracle outcomes of these files")
    args = ap.parse_args(argv)

    api = os.path.abspath(args.api_dir)
    files = []
    for d in args.dirs:
        for name in sorted(os.listdir(os.path.join(api, d))):
            wanted = any(k == name if k.endswith(".py") else k in name for k in args.k.split(","))
            if name.startswith("test") and name.endswith(".py") and wanted:
                files.append(os.path.join(d, name))
    cache = {}
    if os.path.exists(args.cache):
        with open(args.cache) as f:
            cache = json.load(f)
    # <scratch>/{paddle,ours}/api/<suite>, with framework/utils (if extracted beside framework/api) at
    # <scratch>/{paddle,ours}/utils: some tests append "../.." to sys.path and import utils.interceptor.
    ora_root, ours_root = os.path.join(args.scratch, "paddle", "api"), os.path.join(args.scratch, "ours", "api")
    utils = os.path.join(os.path.dirname(api), "utils")
    for root in (ora_root, ours_root):
        for d in args.dirs:
            _copy(os.path.join(api, d), os.path.join(root, d))
        if os.path.isdir(utils):
            _copy(utils, os.path.join(os.path.dirname(root), "utils"))

    def key(rel):
        with open(os.path.join(api, rel), "rb") as f:
            return rel + ":" + hashlib.sha1(f.read()).hexdigest()[:12]

    flags = {"FLAGS_set_to_1d": "0", "FLAGS_call_stack_level": "2"}
    has_pytest = subprocess.run([ORACLE_PY, "-c", "import pytest"], cwd=tempfile.gettempdir(),
                                stderr=subprocess.DEVNULL).returncode == 0
    if not has_pytest and not os.path.isdir(ORACLE_PYTEST):
        subprocess.check_call([OURS_PY, "-m", "pip", "install", "-q", "--target", ORACLE_PYTEST, "pytest"])
    ora_path = None if has_pytest else ORACLE_PYTEST
    todo = [r for r in files if args.rerun_oracle or key(r) not in cache]
    if args.ours_only:
        todo = []
    def ora_done(rel, res):
        cache[key(rel)] = res
        print(f"paddle  {rel}: {sum(v[0] == 'pass' for v in res.values())}/{len(res)}", file=sys.stderr)
        with open(args.cache, "w") as f:
            json.dump(cache, f)

    if todo:
        _run_all(ORACLE_PY, flags, ora_path, ora_root, todo, args.timeout, args.j, ora_done)
    if args.oracle_only:
        return 0
    ours = {}

    def ours_done(rel, res):
        ours[rel] = res
        print(f"ours    {rel}: {sum(v[0] == 'pass' for v in res.values())}/{len(res)}", file=sys.stderr)

    _run_all(OURS_PY, flags, os.path.join(ROOT, "python"), ours_root, files, args.timeout, args.j, ours_done,
             fork=not args.no_fork)

    groups, per_dir, detail = {}, {}, {}
    for rel in files:
        mine = ours[rel]
        ora = cache.get(key(rel)) if not args.ours_only else None
        if ora is None:  # --ours-only (or no oracle answer): every item Paddle-C ran counts
            ora = {i: ["pass", ""] for i in mine if i != "<file>"} or {"<file>::?": ["pass", ""]}
        d = rel.split("/")[0]
        t = per_dir.setdefault(d, {"files": 0, "items": 0, "oracle_pass": 0, "pass": 0})
        t["files"] += 1
        items = [i for i in ora if i != "<file>"]
        t["items"] += len(items)
        detail[rel] = {}
        for iid in items:
            if ora[iid][0] != "pass":
                continue
            t["oracle_pass"] += 1
            got = mine.get(iid) or mine.get("<file>") or ["error", "not collected"]
            detail[rel][iid] = got
            if got[0] == "pass":
                t["pass"] += 1
            else:
                groups.setdefault(got[1], []).append(f"{rel}::{iid.split('::')[-1]}")
    for msg, ids in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"\n[{len(ids)}] {msg}")
        for i in ids[:8]:
            print(f"    {i}")
        if len(ids) > 8:
            print(f"    ... and {len(ids) - 8} more")
    print()
    tot = {"files": 0, "items": 0, "oracle_pass": 0, "pass": 0}
    for d, t in per_dir.items():
        print(f"{d}: {t['files']} files, {t['items']} items, Paddle passes {t['oracle_pass']}, "
              f"Paddle-C passes {t['pass']}")
        for k in tot:
            tot[k] += t[k]
    print(f"total: {tot['files']} files, {tot['items']} items, Paddle passes {tot['oracle_pass']}, "
          f"Paddle-C passes {tot['pass']} ({100.0 * tot['pass'] / max(tot['oracle_pass'], 1):.1f}%)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"per_dir": per_dir, "items": detail}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
