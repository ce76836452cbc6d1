"""Static training and metrics against real PaddlePaddle 2.6.2's output (recorded by
tools/oracle/static_training.py into tools/oracle/static_training.json): static Adam with global
norm clipping and L2 decay, Momentum with a StepDecay scheduler (losses and weights within float
rounding), accuracy and auc (sliding window included) exactly, ExponentialMovingAverage."""
import json
import os
import runpy

import numpy as np

import paddle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE = os.path.join(ROOT, "tools", "oracle")


def test_static_training_matches_oracle():
    expected = json.load(open(os.path.join(ORACLE, "static_training.json")))
    mod = runpy.run_path(os.path.join(ORACLE, "static_training.py"), run_name="oracle_case")
    paddle.enable_static()
    try:
        got = {"adam": mod["train"]("adam"), "momentum_sched": mod["train"]("momentum"),
               "metrics": mod["metrics"](), "ema": mod["ema"]()}
    finally:
        paddle.disable_static()
    for kind in ("adam", "momentum_sched"):
        np.testing.assert_allclose(got[kind]["losses"], expected[kind]["losses"], rtol=2e-6, atol=1e-6)
        np.testing.assert_allclose(got[kind]["w2"], expected[kind]["w2"], rtol=1e-5, atol=1e-6)
    for k in ("acc1", "acc2", "auc", "batch_auc"):
        np.testing.assert_array_equal(got["metrics"][k], expected["metrics"][k])
    for k in ("applied", "restored"):
        np.testing.assert_allclose(got["ema"][k], expected["ema"][k], rtol=1e-6, atol=1e-7)
