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


for cls in (y11.Conv, y11.Concat):
    v8file.place(cls, "ultralytics.nn.modules.conv")
for cls in (y11.C3k2, y11.C3k, y11.C2PSA, y11.PSABlock, y11.Attention, y11.Bottleneck, y11.SPPF, y11.DFL):
    v8file.place(cls, "ultralytics.nn.modules.block")
v8file.place(y11.Detect, "ultralytics.nn.modules.head")
v8file.place(DetectionModel, "ultralytics.nn.tasks")


def yaml_yolo11():
    layers = y11.BACKBONE + y11.HEAD
    return {"nc": len(v8file.CLASSES), "scales": {k: list(v) for k, v in y11.SCALES.items()},
            "backbone": layers[:11], "head": layers[11:], "scale": "n", "yaml_file": "yolo11n.yaml", "ch": 3}


def model():
    torch.manual_seed(0)
    net = DetectionModel("n", len(v8file.CLASSES)).eval()
    y11.randomize(net)
    for i, layer in enumerate(net.model):
        layer.i, layer.f, layer.type = i, net.froms[i], type(layer).__module__ + "." + type(layer).__name__
    head = net.model[23]
    head.nc, head.nl, head.reg_max, head.no = len(v8file.CLASSES), 3, 16, 16 * 4 + len(v8file.CLASSES)
    head.stride = torch.tensor([8.0, 16.0, 32.0])
    net.stride, net.yaml, net.names = head.stride, yaml_yolo11(), dict(enumerate(v8file.CLASSES))
    net.args = v8file.IterableSimpleNamespace(**{**v8file.train_args(), "model": "yolo11n.pt"})
    return net.half()


def main(out_dir):
    checkpoint = {"epoch": 2, "best_fitness": None, "model": None, "ema": model(), "updates": 12, "optimizer": None,
                  "train_args": {**v8file.train_args(), "model": "yolo11n.pt"}, **v8file.header("8.3.40")}
    torch.save(checkpoint, os.path.join(out_dir, "yolo11n.pt"))
    torch.save(OrderedDict(model().state_dict()), os.path.join(out_dir, "yolo11n_weights.pt"))


if __name__ == "__main__":
    main(sys.argv[1])
