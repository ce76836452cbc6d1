"""Oracle script (real Paddle 2.6.2, run from an empty directory with /work/oracle/bin/python):
prints, per step, the SGD weights, their ModelAverage average, the weights after apply() (restored),
and LookAhead(SGD) weights. tests/python/test_incubate.py commits its output (avg and lookahead columns)."""
import paddle, numpy as np
paddle.seed(0)
lin = paddle.nn.Linear(2, 1, bias_attr=False)
lin.weight.set_value(np.array([[1.0],[2.0]], 'float32'))
sgd = paddle.optimizer.SGD(learning_rate=0.1, parameters=lin.parameters())
ma = paddle.incubate.ModelAverage(0.5, parameters=lin.parameters(), min_average_window=2, max_average_window=3)
la_lin = paddle.nn.Linear(2, 1, bias_attr=False); la_lin.weight.set_value(np.array([[1.0],[2.0]], 'float32'))
la = paddle.incubate.LookAhead(paddle.optimizer.SGD(learning_rate=0.1, parameters=la_lin.parameters()), alpha=0.5, k=2)
x = paddle.to_tensor(np.array([[1.0, -1.0],[0.5, 2.0]], 'float32'))
for i in range(7):
    loss = (lin(x) ** 2).mean(); loss.backward(); sgd.step(); ma.step(); sgd.clear_grad()
    w = lin.weight.numpy().ravel().tolist()
    with ma.apply():
        avg = lin.weight.numpy().ravel().tolist()
    l2 = (la_lin(x) ** 2).mean(); l2.backward(); la.step(); la.clear_grad()
    print(i, np.round(w, 6).tolist(), np.round(avg, 6).tolist(), np.round(lin.weight.numpy().ravel(), 6).tolist(), np.round(la_lin.weight.numpy().ravel(), 6).tolist())
