"""The sparse-table entry rules of the parameter-server mode (configuration objects: they only
describe a rule; the parameter-server runtime that would apply them is not part of Paddle-C)."""


class EntryAttr:
    def __init__(self):
        self._name = None

    def _to_attr(self):
        raise NotImplementedError("EntryAttr is a base class")


class ProbabilityEntry(EntryAttr):
    """A feature enters the table with this probability."""

    def __init__(self, probability):
        super().__init__()
        if not isinstance(probability, float) or not 0 < probability <= 1:
            raise ValueError("probability must be a float in (0,1]")
        self._name = "probability_entry"
        self._probability = probability

    def _to_attr(self):
        return ":".join([self._name, str(self._probability)])


class CountFilterEntry(EntryAttr):
    """A feature enters the table after count_filter occurrences."""

    def __init__(self, count_filter):
        super().__init__()
        if not isinstance(count_filter, int) or count_filter < 0:
            raise ValueError("count_filter must be a valid integer greater or equal than 0")
        self._name = "count_filter_entry"
        self._count_filter = count_filter

    def _to_attr(self):
        return ":".join([self._name, str(self._count_filter)])


class ShowClickEntry(EntryAttr):
    """Show/click statistics taken from the named variables."""

    def __init__(self, show_name, click_name):
        super().__init__()
        if not isinstance(show_name, str) or not isinstance(click_name, str):
            raise ValueError("show_name click_name must be a str")
        self._name = "show_click_entry"
        self._show_name, self._click_name = show_name, click_name

    def _to_attr(self):
        return ":".join([self._name, self._show_name, self._click_name])
