"""A YOLO11n checkpoint in Ultralytics' layout, made without Ultralytics, for tests/test_yolo11.cpp.

  ultralytics_yolo11_fixture.py OUTDIR

yolo11_fixture.py's stand-in modules (written from Ultralytics' sources) are given the import
paths of Ultralytics' classes (ultralytics.nn.tasks.DetectionModel, nn.modules.conv.Conv /
Concat, nn.modules.block.C3k2 / C3k / C2PSA / PSABlock / Attention / Bottleneck / SPPF / DFL,
nn.modules.head.Detect) and pickled whole, as ultralytics_checkpoint_fixture.py does for YOLOv8:
a run's last.pt of 8.3 ("model" None, "ema" the fp16 model, a yaml of yolo11.yaml with
"scale": "n"). It is a separate script because both fixtures' modules are placed under the same
Ultralytics names (Conv, Bottleneck ...). Writes
  yolo11n.pt   the checkpoint (5 classes)
  yolo11n_weights.pt   torch.save(model.state_dict()) of the same fp16 weights
and the -cls models as ultralytics.nn.tasks.ClassificationModel (Classify under nn.modules.head,
C2f under nn.modules.block), each with its model yaml's dict (yaml_file naming it, "scale": "n"):
  yolo11n-cls.pt, yolo26n-cls.pt (one architecture, told apart by yaml_file only), yolov8n-cls.pt
  (2 classes) and NAME_weights.pt, their state dicts
and a user's own model yaml, a YOLO11 variant with twice the C3k2 blocks at layer 2 (yaml_file
"yolo11n-deep.yaml", its layers' arguments evaluated in place as parse_model leaves them: nc the
number, None null):
  yolo11n-deep.pt, yolo11n-deep_weights.pt
"""
import os
import sys
from collections import OrderedDict

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ultralytics_checkpoint_fixture as v8file  # noqa: E402  (places the YOLOv8 classes first)
import yolo11_fixture as y11  # noqa: E402


class DetectionModel(y11.YoloModel):
    pass


class ClassificationModel(y11.YoloModel):
    pass


for cls in (y11.Conv, y11.Concat):
    v8file.place(cls, "ultralytics.nn.modules.conv")
for cls in (y11.C3k2, y11.C3k, y11.C2PSA, y11.PSABlock, y11.Attention, y11.Bottleneck, y11.SPPF, y11.DFL):
    v8file.place(cls, "ultralytics.nn.modules.block")
v8file.place(y11.C2f, "ultralytics.nn.modules.block")
v8file.place(y11.Detect, "ultralytics.nn.modules.head")
v8file.place(y11.Classify, "ultralytics.nn.modules.head")
v8file.place(DetectionModel, "ultralytics.nn.tasks")
v8file.place(ClassificationModel, "ultralytics.nn.tasks")
CLS_CLASSES = ["bright", "dark"]  # write_two_class_images' folders
# name -> (layers, scales) of the -cls model yamls
CLASSIFIERS = {"yolo11n-cls": (y11.YOLO11_CLS, y11.SCALES), "yolo26n-cls": (y11.YOLO11_CLS, y11.SCALES),
               "yolov8n-cls": (y11.YOLOV8_CLS, y11.V8_CLS_SCALES)}


def yaml_yolo11():
    layers = y11.BACKBONE + y11.HEAD
    return {"nc": len(v8file.CLASSES), "scales": {k: list(v) for k, v in y11.SCALES.items()},
            "backbone": layers[:11], "head": layers[11:], "scale": "n", "yaml_file": "yolo11n.yaml", "ch": 3}


# yolo11.yaml with layer 2's C3k2 repeated 4 times (2 blocks at scale n's depth 0.5).
DEEP_LAYERS = y11.BACKBONE[:2] + [[-1, 4, "C3k2", [256, False, 0.25]]] + y11.BACKBONE[3:] + y11.HEAD


def yaml_deep():
    # parse_model replaces a layer's string arguments in place: "nc" becomes the class count. The
    # modules keep the yaml's spelling (nn.Upsample, which the stand-ins call Upsample).
    layers = [[f, n, "nn." + m if m == "Upsample" else m, [len(v8file.CLASSES) if a == "nc" else a for a in args]]
              for f, n, m, args in DEEP_LAYERS]
    return {"nc": len(v8file.CLASSES), "scales": {k: list(v) for k, v in y11.SCALES.items()},
            "backbone": layers[:11], "head": layers[11:], "scale": "n", "yaml_file": "yolo11n-deep.yaml", "ch": 3}


def model(layers=y11.BACKBONE + y11.HEAD, yaml=yaml_yolo11):
    torch.manual_seed(0)
    net = DetectionModel("n", len(v8file.CLASSES), layers).eval()
    y11.randomize(net)
    for i, layer in enumerate(net.model):
        layer.i, layer.f, layer.type = i, net.froms[i], type(layer).__module__ + "." + type(layer).__name__
    head = net.model[23]
    head.nc, head.nl, head.reg_max, head.no = len(v8file.CLASSES), 3, 16, 16 * 4 + len(v8file.CLASSES)
    head.stride = torch.tensor([8.0, 16.0, 32.0])
    net.stride, net.yaml, net.names = head.stride, yaml(), dict(enumerate(v8file.CLASSES))
    net.args = v8file.IterableSimpleNamespace(**{**v8file.train_args(), "model": "yolo11n.pt"})
    return net.half()


def classifier(name):
    layers, scales = CLASSIFIERS[name]
    torch.manual_seed(1)
    net = ClassificationModel("n", len(CLS_CLASSES), layers, scales).eval()
    y11.randomize(net)
    for i, layer in enumerate(net.model):
        layer.i, layer.f, layer.type = i, net.froms[i], type(layer).__module__ + "." + type(layer).__name__
    net.stride = torch.Tensor([1])
    net.yaml = {"nc": len(CLS_CLASSES), "scales": {k: list(v) for k, v in scales.items()}, "backbone": layers[:-1],
                "head": layers[-1:], "scale": "n", "yaml_file": name.replace("n-cls", "n-cls.yaml"), "ch": 3}
    net.names = dict(enumerate(CLS_CLASSES))
    net.args = v8file.IterableSimpleNamespace(**{**v8file.train_args(), "model": name + ".pt", "task": "classify"})
    return net.half()


def save_classifiers(out_dir):
    for name in CLASSIFIERS:
        checkpoint = {"epoch": -1, "best_fitness": None, "model": classifier(name), "ema": None, "updates": None,
                      "optimizer": None, "train_args": {**v8file.train_args(), "task": "classify", "imgsz": 224},
                      **v8file.header("8.4.0")}
        torch.save(checkpoint, os.path.join(out_dir, name + ".pt"))
        torch.save(OrderedDict(classifier(name).state_dict()), os.path.join(out_dir, name + "_weights.pt"))


def main(out_dir):
    checkpoint = {"epoch": 2, "best_fitness": None, "model": None, "ema": model(), "updates": 12, "optimizer": None,
                  "train_args": {**v8file.train_args(), "model": "yolo11n.pt"}, **v8file.header("8.3.40")}
    torch.save(checkpoint, os.path.join(out_dir, "yolo11n.pt"))
    torch.save(OrderedDict(model().state_dict()), os.path.join(out_dir, "yolo11n_weights.pt"))
    deep = {**checkpoint, "ema": model(DEEP_LAYERS, yaml_deep)}
    torch.save(deep, os.path.join(out_dir, "yolo11n-deep.pt"))
    torch.save(OrderedDict(model(DEEP_LAYERS, yaml_deep).state_dict()), os.path.join(out_dir, "yolo11n-deep_weights.pt"))
    save_classifiers(out_dir)


if __name__ == "__main__":
    main(sys.argv[1])
