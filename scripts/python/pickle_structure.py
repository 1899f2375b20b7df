"""The structure of a torch .pt file, read without running anything in it.

  pickle_structure.py FILE.pt

Prints the zip's records in order, the pickle protocol, the top-level dict's keys with the type
(and, for scalars, the value) of each, and for the pickled model ("model", else "ema"): its class
and attributes, each layer's class and attributes with their types, the yaml's keys, and the
storage types of every tensor. A file cut short still prints: torch writes data.pkl first, so its
local zip header gives the pickle, which is read until its STOP. Two files of the same structure
print the same lines apart from the archive name, dates, versions and counts. Used to compare
scripts/python/ultralytics_era_fixture.py's files with real ones (tests/fixtures/ultralytics/README.md).
"""
import collections
import io
import pickle
import struct
import sys
import zipfile


class Record:
    """Any object the pickle names: its class path, constructor arguments and state."""
    args, state = (), None

    def __setstate__(self, state):
        self.state = state


class Inert(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) in (("__builtin__", "set"), ("builtins", "set")):
            return set
        if module == "torch._utils":
            return lambda *args: ("tensor", name, args)

        def make(*args):
            record = Record()
            record.path, record.args = module + "." + name, args
            return record

        return type(name, (Record,), {"path": module + "." + name, "__new__": lambda cls, *a: make(*a)})

    def persistent_load(self, pid):
        return ("storage", getattr(pid[1], "path", str(pid[1])).split(".")[-1])


def records(path):
    data = open(path, "rb").read()
    try:
        return [(info.filename, info.flag_bits) for info in zipfile.ZipFile(path).infolist()], data
    except zipfile.BadZipFile:
        return [(data[30:30 + struct.unpack("<H", data[26:28])[0]].decode(), "cut short")], data


def pickle_bytes(data):
    name_length, extra_length = struct.unpack("<HH", data[26:30])
    return data[30 + name_length + extra_length:]


def describe(value):
    if isinstance(value, tuple) and value and value[0] == "tensor":
        inner = value[2][0]
        if isinstance(inner, tuple) and inner[0] == "tensor":
            return "Parameter(" + describe(inner) + ")"
        return "Tensor[%s %s]" % (inner[1], tuple(value[2][2]) if len(value[2]) > 2 else "")
    if isinstance(value, Record):
        return value.path
    if isinstance(value, (str, int, float, bool)) or value is None:
        return "%s %r" % (type(value).__name__, value if not isinstance(value, str) or len(value) < 60 else "…")
    return type(value).__name__ + (" of %d" % len(value) if hasattr(value, "__len__") else "")


def public(record):
    return {key: value for key, value in (record.state or {}).items() if not key.startswith("_")}


def storages(value, counts):
    if isinstance(value, tuple) and value and value[0] == "storage":
        counts[value[1]] += 1
    elif isinstance(value, Record):
        storages(value.args, counts)
        storages(value.state, counts)
    elif isinstance(value, dict):
        storages(list(value.values()), counts)
    elif isinstance(value, (list, tuple, set)):
        for item in value:
            storages(item, counts)
    return counts


def print_model(model):
    print("model", model.path, sorted(model.state))
    for key, value in public(model).items():
        print("  %s: %s" % (key, describe(value)))
    if isinstance(model.state.get("yaml"), dict):
        print("  yaml keys", list(model.state["yaml"]))
    for layer in model.state["_modules"]["model"].state["_modules"].values():
        print(" ", layer.path, {key: describe(value) for key, value in public(layer).items()})


def main(path):
    entries, data = records(path)
    tensors = [name for name, _ in entries if "/data/" in name and "/.data/" not in name]
    print("records", [entry for entry in entries if entry[0] not in tensors], "and %d data/N" % len(tensors))
    body = pickle_bytes(data)
    print("protocol", body[1] if body[0] == 0x80 else 0)
    checkpoint = Inert(io.BytesIO(body), encoding="latin1").load()
    for key, value in checkpoint.items():
        print("%s: %s" % (key, describe(value) if not isinstance(value, dict) else "dict " + str(list(value))))
    model = checkpoint.get("model") or checkpoint.get("ema")
    if isinstance(model, Record):
        print_model(model)
    print("storages", dict(storages(checkpoint, collections.Counter())))


if __name__ == "__main__":
    main(sys.argv[1])
