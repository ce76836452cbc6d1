"""Run public API test suites written for Paddle 2.6 (PaddleTest's framework/api) twice, with real
PaddlePaddle 2.6.2 and with Paddle-C (FLAGS_set_to_1d=0), one pytest process per file, and tally:
items real Paddle passes, how many of those Paddle-C passes, and our failures grouped by cause.

    python tools/oracle/public_suites.py /tmp/ptest framework/api/paddlebase framework/api/linalg
        [-j 2] [--timeout 300] [--cache FILE] [--only test_abs.py,test_cummax.py] [--show-items]

The suites are public code and are never copied into this repository: they run from the given
checkout (a scratch directory), with the suite directory as the working directory, as their run.sh
does. Real Paddle's outcomes are cached (per file, keyed by the file's content hash) in --cache, so a
rerun only runs ours. Real Paddle runs with no PYTHONPATH except a directory holding links to
pytest and its pure-Python dependencies (the oracle venv has no pytest); ours runs with
PYTHONPATH=<this worktree>/python.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE_PY = os.environ.get("PADDLE_ORACLE_PY", "/work/oracle/bin/python")
OURS_PY = os.environ.get("PADDLE_C_PY", "/work/main/.venv/bin/python")
OURS_PATH = os.path.join(ROOT, "python")
DEFAULT_CACHE = os.path.join(ROOT, "tools", "oracle", "public_suites_oracle.json")
PYTEST_PKGS = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py")


def pytest_shim(workdir):
    """A directory with links to pytest and its pure-Python dependencies from our venv."""
    site = subprocess.check_output([OURS_PY, "-c", "import pytest, os; print(os.path.dirname("
                                    "os.path.dirname(pytest.__file__)))"], text=True).strip()
    shim = os.path.join(workdir, "pytest_shim")
    os.makedirs(shim, exist_ok=True)
    for name in os.listdir(site):
        base = name.split("-")[0]
        if name in PYTEST_PKGS or (name.endswith(".dist-info") and base in PYTEST_PKGS):
            dst = os.path.join(shim, name)
            if not os.path.lexists(dst):
                os.symlink(os.path.join(site, name), dst)
    return shim


def run_file(which, suite_dir, fname, timeout, workdir, shim):
    """One pytest process for one test file; returns {item: (outcome, message)} or a file-level failure."""
    xml = os.path.join(workdir, f"{which}-{os.path.basename(suite_dir)}-{fname}.xml")
    if os.path.exists(xml):
        os.remove(xml)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "FLAGS_", "PADDLE"))}
    env["FLAGS_set_to_1d"] = "0"
    env["FLAGS_call_stack_level"] = "2"
    env["OMP_NUM_THREADS"] = "1"
    if which == "oracle":
        py, env["PYTHONPATH"] = ORACLE_PY, shim
    else:
        py, env["PYTHONPATH"] = OURS_PY, OURS_PATH
    cmd = [py, "-m", "pytest", fname, "-q", "-p", "no:cacheprovider", "-o", "log_cli=false",
           "-o", "junit_family=xunit1", f"--junitxml={xml}"]
    try:
        p = subprocess.run(cmd, cwd=suite_dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, text=True, errors="replace")
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        rc, out = "timeout", (e.stdout or b"").decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
    items = {}
    if os.path.exists(xml):
        try:
            items = parse_junit(xml)
        except ET.ParseError:
            items = {}
    status = "ok"
    if rc == "timeout":
        status = f"timeout after {timeout} s"
    elif not isinstance(rc, int) or rc < 0 or rc > 5:
        status = f"crash (exit {rc})"
    tail = "\n".join(out.splitlines()[-15:])
    return {"items": items, "status": status, "tail": tail}


def parse_junit(path):
    items = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        name = f"{tc.get('classname', '')}::{tc.get('name')}"
        outcome, msg = "passed", ""
        for child in tc:
            if child.tag in ("failure", "error"):
                outcome = "failed" if child.tag == "failure" else "error"
                msg = cause(child.get("message") or "", child.text or "")
                break
            if child.tag == "skipped":
                outcome, msg = "skipped", (child.get("message") or "")[:200]
                break
        items[name] = (outcome, msg)
    return items


def cause(message, text):
    """A one-line cause: the exception line pytest reports, numbers and addresses folded."""
    lines = [ln[4:].strip() for ln in text.splitlines() if ln.startswith("E   ")]
    lines = [ln for ln in lines if ln and not ln.startswith("---") and ln != "Error Message Summary:"]
    line = lines[0] if lines else ""
    if line.endswith(":") and len(lines) > 1:  # Paddle's summary form: "ValueError:" then the text
        line = f"{line} {lines[1]}"
    if not line:
        line = message.splitlines()[0] if message.strip() else "?"
    line = re.sub(r"0x[0-9a-f]+", "0x..", line)
    return line[:300]


def fold(msg):
    """Group key: exception class and message with numbers and quoted values folded."""
    m = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", msg)
    m = re.sub(r"\[[^\]]{40,}\]", "[...]", m)
    return m[:160]


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()[:16]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout")
    ap.add_argument("suites", nargs="+")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--cache", default=DEFAULT_CACHE)
    ap.add_argument("--only", default="", help="comma-separated file names to run (others are left out)")
    ap.add_argument("--show-items", action="store_true", help="list every item we fail")
    ap.add_argument("--json", default="", help="write the per-item result of ours here")
    ap.add_argument("--ours-path", default=None, help="the PYTHONPATH of Paddle-C (default: this worktree)")
    ap.add_argument("--oracle-only", action="store_true", help="fill the cache of real Paddle's results only")
    ap.add_argument("--ours-only", action="store_true", help="run ours on the files cached for real Paddle only")
    a = ap.parse_args(argv)
    global OURS_PATH
    OURS_PATH = a.ours_path or OURS_PATH
    cache = {}
    if os.path.exists(a.cache):
        with open(a.cache) as f:
            cache = json.load(f)
    workdir = tempfile.mkdtemp(prefix="public_suites_")
    shim = pytest_shim(workdir)
    only = set(filter(None, a.only.split(",")))
    jobs = []
    for suite in a.suites:
        d = os.path.join(a.checkout, suite)
        for fname in sorted(os.listdir(d)):
            if fname.startswith("test") and fname.endswith(".py") and (not only or fname in only):
                jobs.append((suite, d, fname))
    todo = [(s, d, f) for s, d, f in jobs
            if cache.get(f"{s}/{f}", {}).get("sha") != sha(os.path.join(d, f))]
    if a.ours_only:  # compare on the files real Paddle has already run
        jobs = [j for j in jobs if j not in todo]
        todo = []
    print(f"{len(jobs)} files; real Paddle runs {len(todo)} (the rest cached in {a.cache})", flush=True)
    with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
        futs = {ex.submit(run_file, "oracle", d, f, a.timeout, workdir, shim): (s, d, f) for s, d, f in todo}
        for i, fut in enumerate(concurrent.futures.as_completed(futs)):
            s, d, f = futs[fut]
            r = fut.result()
            cache[f"{s}/{f}"] = {"sha": sha(os.path.join(d, f)), "status": r["status"],
                                 "items": {k: v[0] for k, v in r["items"].items()}}
            if i % 10 == 9 or i == len(todo) - 1:
                with open(a.cache, "w") as fh:
                    json.dump(cache, fh, indent=0, sort_keys=True)
        if a.oracle_only:
            return
        ours = {}
        futs = {ex.submit(run_file, "ours", d, f, a.timeout, workdir, shim): (s, d, f) for s, d, f in jobs}
        for fut in concurrent.futures.as_completed(futs):
            ours[futs[fut][0] + "/" + futs[fut][2]] = fut.result()
    report(a, jobs, cache, ours)


def report(a, jobs, cache, ours):
    per_suite = collections.OrderedDict()
    groups = collections.defaultdict(list)
    crashes = []
    dump = {}
    for s, d, f in jobs:
        key = f"{s}/{f}"
        o = cache[key]
        r = ours[key]
        t = per_suite.setdefault(s, {"files": 0, "items": 0, "oracle": 0, "ours": 0})
        t["files"] += 1
        t["items"] += len(o["items"])
        if r["status"] != "ok":
            crashes.append(f"{key}: {r['status']}\n{r['tail']}")
        for item, outcome in o["items"].items():
            if outcome != "passed":
                continue
            t["oracle"] += 1
            got = r["items"].get(item)
            if got is None:
                why = (f"file {r['status']}" if r["status"] != "ok" else "not collected: " +
                       (r["tail"].splitlines()[-1] if r["tail"] else "?"))
                got = ("missing", why)
            dump[f"{key}::{item}"] = list(got)
            if got[0] == "passed":
                t["ours"] += 1
            else:
                groups[fold(got[1])].append(f"{f}::{item.split('::')[-1]}  {got[1]}")
    for s, t in per_suite.items():
        print(f"{s}: {t['files']} files, {t['items']} items; real Paddle passes {t['oracle']}; "
              f"Paddle-C passes {t['ours']} of those")
    tot_o = sum(t["oracle"] for t in per_suite.values())
    tot = sum(t["ours"] for t in per_suite.values())
    print(f"TOTAL: {tot} / {tot_o} ({100.0 * tot / max(tot_o, 1):.1f}%)")
    print(f"\nour failures by cause ({tot_o - tot} items):")
    for k, v in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(v):4d}  {k}")
        for it in v[:3 if not a.show_items else len(v)]:
            print(f"          {it[:220]}")
    if crashes:
        print(f"\nfiles that crashed or timed out ({len(crashes)}):")
        for c in crashes:
            print("  " + c.replace("\n", "\n    "))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(dump, fh, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
