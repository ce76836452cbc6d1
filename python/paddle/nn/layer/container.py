"""Containers: Sequential (positional or named), LayerList, LayerDict, ParameterList."""
import collections

from ... import _C
from ...framework.param import Parameter
from .layers import Layer


class Sequential(Layer):
    """Runs its sublayers in order. Sequential(l1, l2) or Sequential(('name', l1), ...)."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (collections.OrderedDict, dict)):
            layers = tuple(layers[0].items())
        if layers and isinstance(layers[0], (list, tuple)):
            for item in layers:
                if not (isinstance(item, (list, tuple)) and len(item) == 2):
                    raise TypeError("Sequential: named entries must be (name, layer) pairs")
                self.add_sublayer(item[0], item[1])
        else:
            for i, layer in enumerate(layers):
                self.add_sublayer(str(i), layer)

    def __getitem__(self, idx):
        items = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return Sequential(*items[idx])
        if isinstance(idx, str):
            return self._sub_layers[idx]
        if not -len(items) <= idx < len(items):
            raise IndexError(f"Sequential index {idx} out of range for {len(items)} layers")
        return items[idx]

    def __setitem__(self, idx, layer):
        key = list(self._sub_layers)[idx]
        self._sub_layers[key] = layer

    def __delitem__(self, idx):
        keys = list(self._sub_layers)[idx]
        for k in (keys if isinstance(keys, list) else [keys]):
            del self._sub_layers[k]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers (registered, so their parameters are found)."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            for i, layer in enumerate(sublayers):
                self.add_sublayer(str(i), layer)

    def _abs(self, idx):
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"LayerList index {idx} out of range for {n} layers")
        return idx + n if idx < 0 else idx

    def __getitem__(self, idx):
        vals = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return self.__class__(vals[idx])
        return vals[self._abs(idx)]

    def __setitem__(self, idx, layer):
        self._sub_layers[str(self._abs(idx))] = layer

    def __delitem__(self, idx):
        vals = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del vals[idx]
        else:
            del vals[self._abs(idx)]
        self._sub_layers.clear()
        for i, layer in enumerate(vals):
            self._sub_layers[str(i)] = layer

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        vals = list(self._sub_layers.values())
        vals.insert(index, sublayer)
        self._sub_layers.clear()
        for i, layer in enumerate(vals):
            self.add_sublayer(str(i), layer)

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """A dict of sublayers."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, layer):
        self.add_sublayer(key, layer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        items = sublayers.items() if isinstance(sublayers, (dict, LayerDict)) else sublayers
        for k, v in items:
            self.add_sublayer(k, v)


class ParameterList(Layer):
    """A list of parameters."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            for i, p in enumerate(parameters):
                self.add_parameter(str(i), p)

    def __getitem__(self, idx):
        return list(self._parameters.values())[idx]

    def __setitem__(self, idx, param):
        self._parameters[str(idx)] = param

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        self.add_parameter(str(len(self)), parameter)
        return self


__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList"]
