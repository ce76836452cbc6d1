"""Expected outputs of the fixture models from real Paddle Inference 2.6.2 (the oracle), for
tests/python/test_inference_models.py and test_inference_capi.py. Inputs come from
tests/python/inference_cases.py (seeds, not stored); for each model and case this writes, into
tests/python/data/inference/<model>.npz, every output's kept values (all of them up to 20000
elements, else a fixed subsample), shape, dtype, sum and sum of squares, with IR optimisation off
(the reference) and the largest difference IR on makes (recorded, for the report). One thread,
oneDNN off. Run from an empty directory (the project never imports real Paddle):

    cd $(mktemp -d) && /work/oracle/bin/python /path/to/repo/tools/oracle/inference_models.py [model ...]
"""
import os
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "python"))
import inference_cases as ic  # noqa: E402

import paddle.inference as pi  # noqa: E402


def predictor(model, ir_optim):
    prog, params = ic.MODELS[model]
    cfg = pi.Config(os.path.join(ic.FIXTURES, prog), os.path.join(ic.FIXTURES, params))
    cfg.disable_gpu()
    cfg.switch_ir_optim(ir_optim)
    cfg.set_cpu_math_library_num_threads(1)
    cfg.disable_glog_info()
    return pi.create_predictor(cfg)


def run(pred, inputs):
    for name in pred.get_input_names():
        h = pred.get_input_handle(name)
        h.reshape(list(inputs[name].shape))
        h.copy_from_cpu(inputs[name])
    pred.run()
    return [(n, pred.get_output_handle(n).copy_to_cpu()) for n in pred.get_output_names()]


def main(models):
    out_dir = os.path.join(REPO, "tests", "python", "data", "inference")
    os.makedirs(out_dir, exist_ok=True)
    for model in models:
        ref, opt = predictor(model, False), predictor(model, True)
        data = {"paddle_version": np.array(pi.get_version().split("\n")[0])}
        for ci, case in enumerate(ic.CASES[model]):
            inputs = ic.case_inputs(case)
            outs, outs_opt = run(ref, inputs), run(opt, inputs)
            data[f"c{ci}_output_names"] = np.array([n for n, _ in outs])
            for k, ((name, a), (_, b)) in enumerate(zip(outs, outs_opt)):
                for key, val in ic.summarize(a).items():
                    data[f"c{ci}_o{k}_{key}"] = np.asarray(val)
                diff = float(np.abs(a.astype("float64") - b.astype("float64")).max()) if a.shape == b.shape and a.size \
                    else (0.0 if a.shape == b.shape else -1.0)
                data[f"c{ci}_o{k}_ir_on_maxdiff"] = np.float64(diff)
                print(f"{model} case {ci} {name}: shape {a.shape} {a.dtype} |max| "
                      f"{float(np.abs(a).max()) if a.size else 0:.4g} ir-on diff {diff:.3g}")
        np.savez_compressed(os.path.join(out_dir, f"{model}.npz"), **data)


if __name__ == "__main__":
    main(sys.argv[1:] or list(ic.MODELS))
