"""FFT benchmarks, Paddle-C vs PyTorch CPU (torch.fft / torch.stft): fft and rfft of 2^20 points
(float32 and complex64), a batch of 256 x 1024 transforms, and the stft of 10 s of 16 kHz audio
(n_fft 512, hop 128, Hann window). Each framework runs in its own child process, alternately
(paddle, torch, paddle, torch), and the best repeat of each side over the rounds is compared.
PyTorch comes from the interpreter in $BENCH_TORCH_PY when set (a separate venv), else this one.
BENCH_FFT_ROUNDS sets the number of alternating rounds (default 2); BENCH_FFT_BURN=N runs N
CPU-burning neighbour processes (`while 1: pass`) during the whole run, to compare both sides on a
machine whose cores are shared (as the CI machine is).
Run: bash bench/run.sh (or PYTHONPATH=python .venv/bin/python bench/bench_fft.py)."""
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import HEADER, row, timeit  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_FFT_ROUNDS", "2"))
WORKLOADS = (("fft 2^20 float32 (full spectrum)", "<= 1.0"), ("fft 2^20 complex64", "<= 1.0"),
             ("rfft 2^20 float32", "<= 1.0"), ("fft batch 256x1024 complex64", "<= 1.0"),
             ("rfft batch 256x1024 float32", "<= 1.0"), ("ifft batch 256x1024 complex64", ""),
             ("stft 10 s @16 kHz, n_fft 512, hop 128", "<= 1.0"))


def inputs():
    rng = np.random.default_rng(0)
    n = 1 << 20
    return (rng.standard_normal(n).astype(np.float32),
            (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64),
            (rng.standard_normal((256, 1024)) + 1j * rng.standard_normal((256, 1024))).astype(np.complex64),
            rng.standard_normal((256, 1024)).astype(np.float32),
            rng.standard_normal(160000).astype(np.float32),
            (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(512) / 512)).astype(np.float32))


def paddle_side():
    import paddle
    r, c, bc, br, audio, win = (paddle.to_tensor(a) for a in inputs())
    F = paddle.fft
    return [lambda: F.fft(r), lambda: F.fft(c), lambda: F.rfft(r), lambda: F.fft(bc), lambda: F.rfft(br),
            lambda: F.ifft(bc), lambda: paddle.signal.stft(audio, 512, 128, window=win)]


def torch_side():
    import torch
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    r, c, bc, br, audio, win = (torch.from_numpy(a) for a in inputs())
    F = torch.fft
    return [lambda: F.fft(r), lambda: F.fft(c), lambda: F.rfft(r), lambda: F.fft(bc), lambda: F.rfft(br),
            lambda: F.ifft(bc), lambda: torch.stft(audio, 512, 128, window=win, return_complex=True)]


def child(side):
    fns = paddle_side() if side == "paddle" else torch_side()
    times = []
    for f in fns:
        for _ in range(3):  # warm-up: plans (our third call of a shape re-plans with FFTW_MEASURE)
            f()
        times.append(timeit(f, min_time=0.1, repeats=7, reduce=min))
    print(json.dumps(times))


def main():
    torch_py = os.environ.get("BENCH_TORCH_PY", sys.executable)
    out = {"paddle": [], "torch": []}
    burn = int(os.environ.get("BENCH_FFT_BURN", "0"))
    burners = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(burn)]
    try:
        for _ in range(ROUNDS):
            for side, py in (("paddle", sys.executable), ("torch", torch_py)):
                r = subprocess.run([py, __file__, "--child", side], capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit(f"bench_fft: the {side} child failed:\n{r.stderr}")
                out[side].append(json.loads(r.stdout.strip().splitlines()[-1]))
        load = os.getloadavg()
    finally:
        for b in burners:
            b.kill()
            b.wait()
    print(f"== FFT (each framework in its own process, alternating rounds x{ROUNDS}; {burn} CPU-burning "
          f"neighbour process(es); load average {' '.join(f'{v:.2f}' for v in load)})")
    print(HEADER)
    for i, (name, target) in enumerate(WORKLOADS):
        row(name, min(t[i] for t in out["paddle"]), min(t[i] for t in out["torch"]), target)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
