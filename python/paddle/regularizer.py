"""paddle.regularizer: weight-decay regularizers. The optimizers fold them into their fused
update kernels: L2Decay adds coeff * param to the gradient, L1Decay adds coeff * sign(param)
(after gradient clipping, as Paddle does). A parameter's own regularizer (ParamAttr) wins over
the optimizer's weight_decay."""

__all__ = ["L1Decay", "L2Decay"]


class WeightDecayRegularizer:
    """Base class of the weight-decay regularizers."""

    _kind = ""

    def __init__(self, coeff=0.0):
        if isinstance(coeff, bool) or not isinstance(coeff, (int, float)):
            try:
                coeff = float(coeff)  # a [1] Tensor or numpy scalar
            except (TypeError, ValueError):
                raise TypeError(f"{type(self).__name__}: coeff must be a float, received "
                                f"{type(coeff).__name__}") from None
        self._coeff = float(coeff)

    @property
    def coeff(self):
        return self._coeff

    def _coeffs(self):
        """(l1, l2) coefficients for the update kernels."""
        return (self._coeff, 0.0) if self._kind == "l1" else (0.0, self._coeff)

    def __str__(self):
        return f"{type(self).__name__}, coeff={self._coeff:f}"

    __repr__ = __str__


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay: loss + coeff * sum(|w|), i.e. grad += coeff * sign(w)."""

    _kind = "l1"


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay: loss + 0.5 * coeff * sum(w^2), i.e. grad += coeff * w."""

    _kind = "l2"
