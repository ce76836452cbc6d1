"""Paddle Inference side by side: every fixture model of ../shared/fixtures/paddle_models through
our paddle.inference (the C inference API) and through real Paddle Inference 2.6.2 (oneDNN on,
as its CPU default), on the same .pdmodel, the same inputs and the same thread count: batch 1
latency, batch 16 throughput (images/s) and the peak RSS of the process holding one predictor,
right after loading it and after the batch-16 runs. Each (model, side) runs in its own child process (real Paddle from its own virtual
environment, .venv-paddle-ref as in bench_static.py, started in an empty directory), sides
alternating per round. Prints times and ratios (ours / Paddle's: below 1, ours is faster).
Usage: python bench/bench_inference.py [--threads N] [--rounds R] [--models a,b]"""
import argparse
import importlib.util
import json
import os
import resource
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from harness import run_child  # noqa: E402

# input shapes per model: (batch-1 feed, batch-16 feed) built from fixture_cases' integer images
SHAPES = {
    "lite_simple_conv_bn_relu": ("image", 224, 224),
    "ppocr_mobile_v2_cls": ("x", 48, 192),
    "paddleclas_mbv3_small_3cls": ("x", 224, 224),
    "ppocrv3_en_det": ("x", 320, 320),
    "blazeface_facedet": ("det", 128, 128),
    "ppyolo_tiny_320": ("det", 320, 320),
}


def _fc():
    spec = importlib.util.spec_from_file_location("fixture_cases", os.path.join(ROOT, "tools", "oracle", "fixture_cases.py"))
    fc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fc)
    return fc


def feeds(fc, model, n):
    kind, h, w = SHAPES[model]
    if kind == "det":
        return fc._det_feeds(n, h, w, 7)
    return {kind: fc.image([n, 3, h, w], 7)}


def timeit(fn, min_time=0.3, repeats=3):
    fn()
    times, total = [], 0.0
    while len(times) < repeats or total < min_time:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        total += dt
        if len(times) >= 50:
            break
    return min(times)


def child(model, threads):
    import paddle.inference as pi
    fc = _fc()
    prog, params = fc.paths(model)
    cfg = pi.Config(prog, params)
    cfg.disable_gpu()
    cfg.enable_mkldnn()
    cfg.enable_memory_optim()
    cfg.set_cpu_math_library_num_threads(threads)
    if hasattr(cfg, "disable_glog_info"):
        cfg.disable_glog_info()
    pred = pi.create_predictor(cfg)
    rss_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def runner(f):
        hs = [(pred.get_input_handle(n), f[n]) for n in pred.get_input_names()]

        def go():
            for h, a in hs:
                h.reshape(list(a.shape))
                h.copy_from_cpu(a)
            pred.run()
            for n in pred.get_output_names():
                pred.get_output_handle(n).copy_to_cpu()
        return go

    lat1 = timeit(runner(feeds(fc, model, 1)))
    t16 = timeit(runner(feeds(fc, model, 16)), min_time=0.5, repeats=2)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"lat1": lat1, "thr16": 16 / t16, "rss": rss, "rss_load": rss_load}))


def _ref_python():
    from bench_static import _ref_python as ref
    return ref()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--models", default=",".join(SHAPES))
    a = ap.parse_args()
    fc = _fc()
    if not os.path.isdir(fc.FIXTURES):
        sys.exit(f"bench_inference: the fixtures are not at {fc.FIXTURES} (set PADDLE_C_FIXTURES)")
    ref = _ref_python()
    me = os.path.abspath(__file__)
    models = a.models.split(",")
    res = {m: {"ours": [], "ref": []} for m in models}
    env_base = dict(os.environ, OMP_NUM_THREADS=str(a.threads), PADDLE_C_FIXTURES=os.path.abspath(fc.FIXTURES))
    with tempfile.TemporaryDirectory() as d:
        for _ in range(a.rounds):
            for m in models:
                for side, py in (("ours", sys.executable), ("ref", ref)):
                    env = dict(env_base, GLOG_minloglevel="3") if side == "ref" else env_base
                    res[m][side].append(run_child([py, me, "--child", m, str(a.threads)],
                                                  f"bench_inference: the {side} child for {m}", d, env,
                                                  foreign=(side == "ref")))
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    print(f"== Paddle Inference: ours (C inference API) vs Paddle Inference 2.6.2 (oneDNN), {a.threads} thread(s), "
          f"best of {a.rounds} round(s); CPU: {cpu}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'model':<28}{'b1 ours':>11}{'b1 Paddle':>11}{'ratio':>7}{'b16 img/s ours':>16}{'Paddle':>9}"
          f"{'time ratio':>11}{'RSS load':>10}{'Paddle':>9}{'ratio':>7}{'RSS b16':>9}{'Paddle':>9}{'ratio':>7}")
    for m in models:
        o = {k: (min if k == "lat1" else max)(x[k] for x in res[m]["ours"]) for k in ("lat1", "thr16", "rss", "rss_load")}
        r = {k: (min if k == "lat1" else max)(x[k] for x in res[m]["ref"]) for k in ("lat1", "thr16", "rss", "rss_load")}
        print(f"{m:<28}{o['lat1'] * 1e3:>9.2f}ms{r['lat1'] * 1e3:>9.2f}ms{o['lat1'] / r['lat1']:>7.2f}"
              f"{o['thr16']:>16.1f}{r['thr16']:>9.1f}{r['thr16'] / o['thr16']:>11.2f}"
              f"{o['rss_load'] / 2**20:>8.0f}MB{r['rss_load'] / 2**20:>7.0f}MB{o['rss_load'] / r['rss_load']:>7.2f}"
              f"{o['rss'] / 2**20:>7.0f}MB{r['rss'] / 2**20:>7.0f}MB{o['rss'] / r['rss']:>7.2f}")
    print("targets: time ratios <= 0.8, RSS ratio <= 1.0")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
    else:
        main()
