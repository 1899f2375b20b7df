"""Ultralytics' checkpoint files, made without Ultralytics, for tests/test_ultralytics_checkpoint.cpp.

  ultralytics_checkpoint_fixture.py OUTDIR

No Ultralytics package exists here, so yolov8_fixture.py's stand-in modules are given the import
paths of Ultralytics' real classes (ultralytics.nn.tasks.DetectionModel,
ultralytics.nn.modules.conv.Conv / Concat, ultralytics.nn.modules.block.C2f / Bottleneck / SPPF /
DFL, ultralytics.nn.modules.head.Detect, ultralytics.utils.IterableSimpleNamespace) and the
attributes those classes and parse_model set, so that torch.save pickles the whole model the
way Ultralytics' files do: every module object with its real __dict__ (_parameters, _buffers,
_modules, training ...), torch.nn layers under torch.nn.modules.*. The dicts follow
ultralytics/engine/trainer.py save_model (8.1 to 8.3: "model": None, "ema" the fp16 model) and
ultralytics/utils/torch_utils.py strip_optimizer (the released weights: "model" the fp16 model,
"ema", "optimizer", "updates", "best_fitness" None, "epoch" -1). Writes

  released.pt   stripped, as the released v8.0 weights: protocol 2, a yaml of v8.0's
                yolov8n.yaml (depth_multiple 0.33, width_multiple 0.25, no "scale")
  last.pt       a run's last.pt of 8.3: "model" None, "ema" set, an fp16 SGD state, a numpy
                float64 best_fitness, yaml with "scales" and "scale": "n", the model's args an
                IterableSimpleNamespace; protocol 2 (torch.save's default)
  last_p4.pt    the same with pickle protocol 4 (sets as EMPTY_SET/ADDITEMS, FRAME, MEMOIZE ...)
  no_yaml.pt    "model" without yaml or names: scale and classes only from the tensors
  segment.pt    the same weights in an ultralytics.nn.tasks.SegmentationModel (another task)
  weights.pt    torch.save(model.state_dict()) of the same fp16 weights, Ultralytics' key names
  evil_*.pt     last.pt's dict (without weights) with one value whose unpickling calls posix.system,
                builtins.eval, subprocess.Popen or builtins.getattr; each would create
                OUTDIR/ran_<name> if anything ran it; evil_*_p4.pt the same in protocol 4
"""
import datetime
import os
import struct
import sys
import types
from collections import OrderedDict

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import yolov8_fixture as v8  # noqa: E402

CLASSES = ["person", "bicycle", "car", "dog", "cat"]


def python_module(name):
    """A module object in sys.modules (with its parents), so pickle finds classes under `name`."""
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    return sys.modules[name]


def place(cls, module, name=None):
    name = name or cls.__name__
    cls.__module__, cls.__qualname__, cls.__name__ = module, name, name
    setattr(python_module(module), name, cls)
    return cls


class Concat(nn.Module):
    def __init__(self, dimension=1):
        super().__init__()
        self.d = dimension


class DetectionModel(v8.YOLOv8):
    pass


class SegmentationModel(v8.YOLOv8):
    pass


class IterableSimpleNamespace(types.SimpleNamespace):
    pass


class dtype:  # numpy.dtype as numpy pickles it: dtype('f8', False, True) with a state tuple
    def __reduce__(self):
        return dtype, ("f8", False, True), (3, "<", None, None, None, -1, -1, 0)


def scalar(dtype_, data):
    raise AssertionError("never called: only pickled")


class Float64:
    """A numpy.float64, pickled as numpy does: numpy.core.multiarray.scalar(dtype, bytes)."""

    def __init__(self, value):
        self.value = value

    def __reduce__(self):
        return scalar, (dtype(), struct.pack("<d", self.value))


place(v8.Conv, "ultralytics.nn.modules.conv")
place(Concat, "ultralytics.nn.modules.conv")
for block in (v8.C2f, v8.Bottleneck, v8.SPPF, v8.DFL):
    place(block, "ultralytics.nn.modules.block")
place(v8.Detect, "ultralytics.nn.modules.head")
place(DetectionModel, "ultralytics.nn.tasks")
place(SegmentationModel, "ultralytics.nn.tasks")
place(IterableSimpleNamespace, "ultralytics.utils")
place(dtype, "numpy")
scalar.__module__ = "numpy.core.multiarray"
python_module("numpy.core.multiarray").scalar = scalar

# cfg/models/v8/yolov8.yaml's layers, as parse_model reads them: [from, repeats, module, args].
LAYERS = [[-1, 1, "Conv", [64, 3, 2]], [-1, 1, "Conv", [128, 3, 2]], [-1, 3, "C2f", [128, True]],
          [-1, 1, "Conv", [256, 3, 2]], [-1, 6, "C2f", [256, True]], [-1, 1, "Conv", [512, 3, 2]],
          [-1, 6, "C2f", [512, True]], [-1, 1, "Conv", [1024, 3, 2]], [-1, 3, "C2f", [1024, True]],
          [-1, 1, "SPPF", [1024, 5]], [-1, 1, "nn.Upsample", [None, 2, "nearest"]], [[-1, 6], 1, "Concat", [1]],
          [-1, 3, "C2f", [512]], [-1, 1, "nn.Upsample", [None, 2, "nearest"]], [[-1, 4], 1, "Concat", [1]],
          [-1, 3, "C2f", [256]], [-1, 1, "Conv", [256, 3, 2]], [[-1, 12], 1, "Concat", [1]], [-1, 3, "C2f", [512]],
          [-1, 1, "Conv", [512, 3, 2]], [[-1, 9], 1, "Concat", [1]], [-1, 3, "C2f", [1024]],
          [[15, 18, 21], 1, "Detect", ["nc"]]]


def yaml_v80():
    """v8.0's yolov8n.yaml: one scale, as depth and width multiples."""
    return {"nc": len(CLASSES), "depth_multiple": 0.33, "width_multiple": 0.25, "backbone": LAYERS[:10],
            "head": LAYERS[10:], "ch": 3}


def yaml_v83():
    """8.1+: every scale, and the one chosen from the file name (guess_model_scale)."""
    scales = {"n": [0.33, 0.25, 1024], "s": [0.33, 0.50, 1024], "m": [0.67, 0.75, 768], "l": [1.00, 1.00, 512],
              "x": [1.00, 1.25, 512]}
    return {"nc": len(CLASSES), "scales": scales, "backbone": LAYERS[:10], "head": LAYERS[10:],
            "scale": "n", "yaml_file": "yolov8n.yaml", "ch": 3}


def ultralytics_attributes(model, yaml):
    """What DetectionModel.__init__, parse_model and the trainer leave on the model."""
    for i, (layer, spec) in enumerate(zip(model.model, LAYERS)):
        layer.i, layer.f, layer.type = i, spec[0], type(layer).__module__ + "." + type(layer).__name__
    for i in (11, 14, 17, 20):
        model.model[i] = Concat(1)
        model.model[i].i, model.model[i].f, model.model[i].type = i, LAYERS[i][0], "ultralytics.nn.modules.conv.Concat"
    head = model.model[22]
    head.nc, head.nl, head.reg_max, head.no = len(CLASSES), 3, 16, 16 * 4 + len(CLASSES)
    head.stride = torch.tensor([8.0, 16.0, 32.0])
    head.shape, head.dynamic, head.export, head.format = None, False, False, None
    head.anchors, head.strides = torch.empty(0), torch.empty(0)
    model.stride = head.stride
    if yaml is not None:
        model.yaml = yaml
        model.names = dict(enumerate(CLASSES))
    model.save, model.inplace = [4, 6, 9, 12, 15, 18, 21], True


def trained_model(cls, yaml):
    torch.manual_seed(0)
    model = cls(len(CLASSES)).eval()
    v8.randomize(model)
    ultralytics_attributes(model, yaml)
    return model


def train_args():
    return {"task": "detect", "mode": "train", "model": "yolov8n.pt", "data": "coco8.yaml", "epochs": 3,
            "imgsz": 640, "batch": 16, "save_dir": "runs/detect/train", "half": False, "pretrained": True,
            "optimizer": "auto", "lr0": 0.01, "hsv_h": 0.015, "names": None}


def header(version):
    return {"date": datetime.datetime(2023, 1, 10, 12, 0).isoformat(), "version": version,
            "license": "AGPL-3.0 (https://ultralytics.com/license)", "docs": "https://docs.ultralytics.com"}


def released():
    model = trained_model(DetectionModel, yaml_v80()).half()
    for p in model.parameters():
        p.requires_grad = False
    return {**header("8.0.0"), "epoch": -1, "best_fitness": None, "model": model, "ema": None, "updates": None,
            "optimizer": None, "train_args": train_args()}


def last():
    ema = trained_model(DetectionModel, yaml_v83())
    ema.args = IterableSimpleNamespace(**train_args())
    optimizer = torch.optim.SGD(ema.parameters(), lr=0.01, momentum=0.9)
    ema(torch.rand(1, 3, 64, 64))[0].sum().backward()
    optimizer.step()
    # convert_optimizer_state_dict_to_fp16: the momentum buffers as fp16
    state = optimizer.state_dict()
    for entry in state["state"].values():
        entry["momentum_buffer"] = entry["momentum_buffer"].half()
    # The weights as before the step, so that every file holds the same ones.
    ema = trained_model(DetectionModel, yaml_v83())
    ema.args = IterableSimpleNamespace(**train_args())
    return {"epoch": 2, "best_fitness": Float64(0.125), "model": None, "ema": ema.half(), "updates": 12,
            "optimizer": state, "train_args": train_args(), "train_metrics": {"metrics/mAP50(B)": 0.25, "fitness": 0.125},
            "train_results": {"epoch": [1, 2, 3], "train/box_loss": [1.5, 1.25, 1.0]}, **header("8.3.40")}


class Evil:
    def __init__(self, make):
        self.make = make

    def __reduce__(self):
        return self.make()


def evil_calls(out_dir):
    import builtins
    import subprocess
    touch = "touch " + os.path.join(out_dir, "ran_{}")
    return {
        "system": lambda: (os.system, (touch.format("system"),)),
        "eval": lambda: (builtins.eval, ("__import__('os').system(%r)" % touch.format("eval"),)),
        "subprocess": lambda: (subprocess.Popen, (["touch", os.path.join(out_dir, "ran_subprocess")],)),
        "getattr": lambda: (builtins.getattr, ("text", "upper")),
    }


def main(out_dir):
    torch.save(released(), os.path.join(out_dir, "released.pt"))
    torch.save(last(), os.path.join(out_dir, "last.pt"))
    torch.save(last(), os.path.join(out_dir, "last_p4.pt"), pickle_protocol=4)
    no_yaml = trained_model(DetectionModel, None).half()
    torch.save({"model": no_yaml, "ema": None}, os.path.join(out_dir, "no_yaml.pt"))
    torch.save({"model": trained_model(SegmentationModel, yaml_v83()).half(), "ema": None},
               os.path.join(out_dir, "segment.pt"))
    weights = OrderedDict(trained_model(DetectionModel, None).half().state_dict())
    torch.save(weights, os.path.join(out_dir, "weights.pt"))
    for name, make in evil_calls(out_dir).items():
        checkpoint = {**header("8.3.40"), "model": None, "ema": None, "train_args": train_args()}
        checkpoint["train_args"]["callbacks"] = Evil(make)
        # Protocol 2 writes Python 2 names (__builtin__.eval, commands.Popen); 4 the modern ones.
        for protocol, suffix in ((2, ""), (4, "_p4")):
            torch.save(checkpoint, os.path.join(out_dir, "evil_" + name + suffix + ".pt"), pickle_protocol=protocol)


if __name__ == "__main__":
    main(sys.argv[1])
