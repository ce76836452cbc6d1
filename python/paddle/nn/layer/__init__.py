"""paddle.nn.layer: the layer families (one module per family) and, as in Paddle 2.6, the layer
classes themselves (`paddle.nn.layer.MaxPool1D` is `paddle.nn.MaxPool1D`). The classes are looked
up on paddle.nn when first asked for (the families are imported by paddle.nn, which imports this
package first)."""

# the layer classes Paddle 2.6 exposes in paddle.nn.layer
_LAYER_NAMES = frozenset("""
AdaptiveAvgPool1D AdaptiveAvgPool2D AdaptiveAvgPool3D AdaptiveMaxPool1D AdaptiveMaxPool2D
AdaptiveMaxPool3D AlphaDropout AvgPool1D AvgPool2D AvgPool3D BCELoss BCEWithLogitsLoss BatchNorm1D
BatchNorm2D BatchNorm3D Bilinear CELU CTCLoss ChannelShuffle Conv1D Conv1DTranspose Conv2D
Conv2DTranspose Conv3D Conv3DTranspose CosineSimilarity CrossEntropyLoss Dropout Dropout2D Dropout3D
Embedding Flatten Fold GaussianNLLLoss GroupNorm HingeEmbeddingLoss Identity KLDivLoss L1Loss Layer
LayerDict LayerNorm LeakyReLU Linear LocalResponseNorm LogSoftmax MSELoss MarginRankingLoss MaxPool1D
MaxPool2D MaxPool3D MaxUnPool1D MaxUnPool2D MaxUnPool3D MultiLabelSoftMarginLoss MultiMarginLoss
NLLLoss PReLU Pad1D Pad2D Pad3D PairwiseDistance PixelShuffle PixelUnshuffle PoissonNLLLoss RNNTLoss
RReLU ReLU ReLU6 Sigmoid SmoothL1Loss SoftMarginLoss Softmax Softmax2D SpectralNorm SyncBatchNorm
TripletMarginLoss TripletMarginWithDistanceLoss Unflatten Upsample UpsamplingBilinear2D
UpsamplingNearest2D ZeroPad2D""".split())


def __getattr__(name):
    if name in _LAYER_NAMES:
        import importlib
        nn = importlib.import_module(__name__.rsplit(".", 1)[0])
        if name in getattr(nn, "__dict__", {}):
            return nn.__dict__[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {n for n in _LAYER_NAMES if _has(n)})


def _has(name):
    try:
        __getattr__(name)
        return True
    except AttributeError:
        return False
