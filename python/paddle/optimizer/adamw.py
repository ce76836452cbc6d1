"""paddle.optimizer.AdamW: Adam with decoupled weight decay (one fused adam_ kernel per
parameter): param = param * (1 - lr * coeff), then the Adam update. lr_ratio(param) scales the
learning rate of both; apply_decay_param_fun(param.name) False turns the decay off for a
parameter; a group's weight_decay is its decay coefficient. A row-sparse gradient
(Embedding(sparse=True)) decays every row, then updates as Adam does (Paddle's sparse AdamW)."""
from ..regularizer import WeightDecayRegularizer
from .. import _C
from .adam import Adam
from .optimizer import _scalar

__all__ = ["AdamW"]


class AdamW(Adam):
    """AdamW (accumulators as Adam)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=0.01, lr_ratio=None, apply_decay_param_fun=None, grad_clip=None,
                 lazy_mode=False, multi_precision=False, name=None):
        if weight_decay is None:
            raise ValueError("weight_decay should not be None in AdamW")
        if isinstance(weight_decay, WeightDecayRegularizer):
            weight_decay = weight_decay.coeff
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float, _C.Tensor)):
            raise TypeError("coeff should be float or Tensor.")
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError("'lr_ratio' should be a callable (param) -> float, or None")
        if apply_decay_param_fun is not None and not callable(apply_decay_param_fun):
            raise TypeError("'apply_decay_param_fun' should be a callable (name) -> bool, or None")
        self._coeff = weight_decay
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, name)
        self._defaults["weight_decay"] = weight_decay
        for g in self._param_groups:
            if g.get("weight_decay") is None:
                g["weight_decay"] = weight_decay

    def _group_regularizer(self, group):
        return None  # weight_decay is the decoupled coefficient, not a gradient regulariser

    def _decay(self, p, lr, group):
        if self._lr_ratio is not None:
            lr = lr * float(self._lr_ratio(p))
        if self._apply_decay_param_fun is not None and not self._apply_decay_param_fun(p.name):
            return lr, 0.0
        wd = group.get("weight_decay", self._coeff)
        if isinstance(wd, WeightDecayRegularizer):
            wd = wd.coeff
        return lr, float(_scalar(wd if wd is not None else self._coeff))
