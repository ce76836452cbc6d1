"""fleet's data generators: user code turns raw lines into samples ([(slot_name, [values])...]) and
these print them in Paddle's MultiSlot text format ("<n> v1 ... vn" per slot), which the
parameter-server datasets read."""
import sys


class DataGenerator:
    def __init__(self):
        self.batch_size_ = 32
        self._proto_info = None

    def set_batch(self, batch_size):
        self.batch_size_ = batch_size

    def generate_sample(self, line):
        raise NotImplementedError("generate_sample: please rewrite this function to return a list or tuple: "
                                  "[(name, [feasign, ...]), ...]")

    def generate_batch(self, samples):
        def local_iter():
            for sample in samples:
                yield sample
        return local_iter

    def _gen_str(self, line):
        raise NotImplementedError("use MultiSlotDataGenerator or MultiSlotStringDataGenerator")

    def run_from_memory(self):
        batch_samples = []
        for user_parsed_line in self.generate_sample(None)():
            if user_parsed_line is None:
                continue
            batch_samples.append(user_parsed_line)
            if len(batch_samples) == self.batch_size_:
                for sample in self.generate_batch(batch_samples)():
                    sys.stdout.write(self._gen_str(sample))
                batch_samples = []
        for sample in self.generate_batch(batch_samples)():
            sys.stdout.write(self._gen_str(sample))

    def run_from_stdin(self):
        batch_samples = []
        for line in sys.stdin:
            for user_parsed_line in self.generate_sample(line)():
                if user_parsed_line is None:
                    continue
                batch_samples.append(user_parsed_line)
                if len(batch_samples) == self.batch_size_:
                    for sample in self.generate_batch(batch_samples)():
                        sys.stdout.write(self._gen_str(sample))
                    batch_samples = []
        for sample in self.generate_batch(batch_samples)():
            sys.stdout.write(self._gen_str(sample))


class MultiSlotStringDataGenerator(DataGenerator):
    def _gen_str(self, line):
        if not isinstance(line, (list, tuple)):
            raise ValueError("the output of process() must be in list or tuple type")
        out = []
        for item in line:
            name, elements = item
            if not elements:
                raise ValueError(f"the elements of slot {name!r} must not be empty")
            out.append(str(len(elements)))
            out.extend(str(e) for e in elements)
        return " ".join(out) + "\n"


class MultiSlotDataGenerator(DataGenerator):
    def _gen_str(self, line):
        if not isinstance(line, (list, tuple)):
            raise ValueError("the output of process() must be in list or tuple type")
        out = []
        for item in line:
            name, elements = item
            if not isinstance(name, str):
                raise ValueError(f"name{type(name)} must be in str type")
            if not isinstance(elements, list):
                raise ValueError(f"elements{type(elements)} must be in list type")
            if not elements:
                raise ValueError(f"the elements of slot {name!r} must not be empty (pad with 0)")
            for e in elements:
                if not isinstance(e, (int, float)):
                    raise ValueError(f"the type of element{type(e)} must be in int or float")
            out.append(str(len(elements)))
            out.extend(str(e) for e in elements)
        return " ".join(out) + "\n"
