"""Loss layers Paddle added in 2.4-2.6 (issue 23), wrapping nn.functional.loss26 with Paddle 2.6's
constructor signatures and construction-time checks."""
from .. import functional as F
from ..functional.loss import _check_reduction
from .layers import Layer


class _Loss(Layer):
    def __init__(self, reduction="mean", name=None):
        super().__init__()
        _check_reduction(type(self).__name__, reduction)
        self.reduction, self.name = reduction, name


class SoftMarginLoss(_Loss):
    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction, self.name)


class MultiLabelSoftMarginLoss(_Loss):
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction, name)
        self.weight = weight

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, weight=self.weight, reduction=self.reduction)


class MultiMarginLoss(_Loss):
    def __init__(self, p: int = 1, margin: float = 1.0, weight=None, reduction="mean", name=None):
        super().__init__(reduction, name)
        self.p, self.margin, self.weight = p, margin, weight

    def forward(self, input, label):
        return F.multi_margin_loss(input, label, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
        if epsilon <= 0:
            raise ValueError(f"[PoissonNLLLoss] the value of `epsilon` should be positive, but received {epsilon}")
        super().__init__(reduction, name)
        self._log_input, self._full, self._epsilon = log_input, full, epsilon
        self._reduction, self._name = reduction, name

    def forward(self, input, label):
        return F.poisson_nll_loss(input, label, log_input=self._log_input, full=self._full, epsilon=self._epsilon,
                                  reduction=self._reduction)


class GaussianNLLLoss(_Loss):
    def __init__(self, full=False, epsilon=1e-6, reduction="mean", name=None):
        super().__init__(reduction, name)
        self.full, self.epsilon = full, epsilon

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon, self.reduction)


class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin=0, reduction="mean", name=None):
        if margin > 1 or margin < -1:
            raise ValueError(f"[CosineEmbeddingLoss] the value of 'margin' should be in the interval of [-1, 1], "
                             f"but received {margin}")
        super().__init__(reduction, name)
        self.margin = margin

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction="mean", name=None):
        super().__init__(reduction, name)
        self.margin, self.p, self.epsilon, self.swap = margin, p, epsilon, swap

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(input, positive, negative, margin=self.margin, p=self.p, epsilon=self.epsilon,
                                     swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        self.margin, self.swap, self.distance_function = margin, swap, distance_function

    def forward(self, input, positive, negative):
        return F.triplet_margin_with_distance_loss(input, positive, negative, self.distance_function,
                                                   margin=self.margin, swap=self.swap, reduction=self.reduction)


class RNNTLoss(Layer):
    def __init__(self, blank=0, fastemit_lambda=0.001, reduction="mean", name=None):
        super().__init__()
        self.blank, self.reduction, self.fastemit_lambda, self.name = blank, reduction, fastemit_lambda, name

    def forward(self, input, label, input_lengths, label_lengths):
        return F.rnnt_loss(input, label, input_lengths, label_lengths, blank=self.blank,
                           fastemit_lambda=self.fastemit_lambda, reduction=self.reduction)


__all__ = ["SoftMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
           "CosineEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "RNNTLoss"]
