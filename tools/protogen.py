"""Generates the protobuf-c code of Paddle's program format: csrc/graph/framework.proto ->
csrc/graph/generated/framework.pb-c.{c,h} (committed, so a build needs only libprotobuf-c).

Run: python tools/protogen.py [--check]   (--check fails if the committed files differ from what
protoc-c makes now; it needs protoc-c, Debian's protobuf-c-compiler, installed by scripts/deps.sh)."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC_DIR = os.path.join(ROOT, "csrc", "graph")
OUT_DIR = os.path.join(SRC_DIR, "generated")
FILES = ["framework.pb-c.c", "framework.pb-c.h"]


def generate(dst):
    subprocess.run(["protoc-c", f"--proto_path={SRC_DIR}", f"--c_out={dst}", "framework.proto"],
                   check=True, cwd=SRC_DIR)


def main():
    check = "--check" in sys.argv
    if shutil.which("protoc-c") is None:
        print("protogen: protoc-c not found (Debian package protobuf-c-compiler; scripts/deps.sh installs it)")
        return 1 if check else 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        stale = []
        for f in FILES:
            new = open(os.path.join(tmp, f), "rb").read()
            path = os.path.join(OUT_DIR, f)
            old = open(path, "rb").read() if os.path.exists(path) else None
            if old != new:
                stale.append(f)
                if not check:
                    with open(path, "wb") as fh:
                        fh.write(new)
        if check and stale:
            print("protogen: stale generated files (run python tools/protogen.py): " + ", ".join(stale))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
