"""paddle.ParamAttr: how a layer creates a parameter (name, initializer, learning-rate scale,
regularizer, trainable, clipping)."""


class ParamAttr:
    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr: name must be a str, received {type(name).__name__}")
        if not isinstance(learning_rate, (int, float)) or isinstance(learning_rate, bool):
            raise TypeError("ParamAttr: learning_rate must be a float")
        if not isinstance(trainable, bool):
            raise TypeError("ParamAttr: trainable must be a bool")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    @staticmethod
    def _to_attr(arg):
        """None/True/str/ParamAttr/initializer/False -> ParamAttr (or False: no parameter)."""
        if arg is None:
            return ParamAttr()
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if arg is False:
            return False
        if arg is True:  # Paddle: True means the default attribute (seed E13: bias_attr=True)
            return ParamAttr()
        from ..nn.initializer.base import Initializer
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        raise TypeError(f"cannot use {type(arg).__name__} as a parameter attribute")

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, learning_rate={self.learning_rate}, "
                f"trainable={self.trainable})")
