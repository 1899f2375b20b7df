"""Ultralytics' .pt files of each era as real ones are laid out, for tests/test_ultralytics_eras.cpp.

  ultralytics_era_fixture.py OUTDIR

Each file reproduces the structure read from a real file of its era (tests/fixtures/ultralytics/
README.md names each file, repository and commit): the zip's archive name (the file's stem) and
records, pickle protocol 2, the dict's keys in order with their values (epoch -1 and None where
strip_optimizer leaves them), the classes under their module paths, each module's attributes (the
torch 2.x hook dicts, Ultralytics' i / f / type / np, Detect's anchors, strides and shape, the
model's args, yaml, names, nc ...), fp16 weights with fp32 model.stride, and train_args with the
keys of that era's default.yaml in order. The tensors are regenerated (He-initialised stand-ins
of ultralytics_checkpoint_fixture.py and ultralytics_yolo11_fixture.py). Writes

  8.0/yolov8n.pt        the released yolov8n.pt (8.0.0.dev0, 80 classes; module `type` strings of
                        8.0's flat ultralytics.nn.modules)
  8.2/yolo11n.pt        the released yolo11n.pt (8.2.100, 80 classes; pt_path, task, criterion)
  8.3/best.pt           a user's best.pt of 8.3.174 (yolov8n fine-tuned to 44 classes; every layer
                        with its parameter count np, model.end2end)
  8.3.243/best.pt       the same model in 8.3.243's file: "scaler" and "git" entries, and torch
                        2.6's .format_version and .storage_alignment records
  weights-80.pt, weights-44.pt, yolo11n-weights.pt   the same weights as plain state dicts
"""
import os
import sys
import zipfile
from collections import OrderedDict

import torch
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ultralytics_checkpoint_fixture as v8file  # noqa: E402  (places the YOLOv8 classes)

DEFAULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures", "ultralytics")
TORCH2_HOOKS = ("_backward_pre_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                "_forward_pre_hooks_with_kwargs", "_state_dict_pre_hooks")
LICENSE_OLD = "AGPL-3.0 License (https://ultralytics.com/license)"
LICENSE = "AGPL-3.0 (https://ultralytics.com/license)"


def names(count):
    return {i: "class%d" % i for i in range(count)}


def train_args(era, drop=(), add=(), **values):
    """That era's default.yaml, keys in order, with a run's values; `add`: (after, key, value)."""
    with open(os.path.join(DEFAULTS, "default-%s.yaml" % era)) as f:
        args = yaml.safe_load(f)
    out = {}
    for key, value in args.items():
        if key not in drop:
            out[key] = values.get(key, value)
        for after, new_key, new_value in add:
            if after == key:
                out[new_key] = new_value
    return out


def header(date, version, license_text):
    return {"date": date, "version": version, "license": license_text, "docs": "https://docs.ultralytics.com"}


def stripped(model, args, extra_keys=(), **tail):
    """strip_optimizer's dict: the fp16 model under "model", the rest None or -1."""
    checkpoint = {"epoch": -1, "best_fitness": None, "model": model, "ema": None, "updates": None, "optimizer": None}
    checkpoint.update({key: None for key in extra_keys})
    checkpoint["train_args"] = args
    checkpoint.update(tail)
    return checkpoint


def dress(model, type_prefix, layer_np, head_anchors):
    """Every module as torch 2.x and the era's Ultralytics leave them."""
    for module in model.modules():
        for hooks in TORCH2_HOOKS:
            module.__dict__.setdefault(hooks, OrderedDict())
        module.__dict__.pop("froms", None)
        if isinstance(module, torch.nn.Upsample):
            module.name = "Upsample"
        for p in module._parameters.values():
            if p is not None:
                p.requires_grad = False
    for layer in model.model:
        name = type(layer).__name__
        if name == "Concat":
            layer.d = 1
        place = {key: layer.__dict__.pop(key) for key in ("i", "f", "type")}  # set last, as parse_model does
        if layer_np:
            layer.np = sum(p.numel() for p in layer.parameters())
        ours = type(layer).__module__.startswith("ultralytics")
        place["type"] = type_prefix(type(layer).__module__, name) if ours else type(layer).__module__ + "." + name
        layer.__dict__.update(place)
    froms = [layer.f if isinstance(layer.f, list) else [layer.f] for layer in model.model]
    model.save, model.inplace = sorted({i for f in froms for i in f if i != -1}), True
    head = model.model[-1]
    for attribute in ("dynamic", "export", "format", "shape", "anchors", "strides", "inplace"):
        head.__dict__.pop(attribute, None)
    head.stride = head.__dict__.pop("stride").half()
    head.__dict__.update({key: head.__dict__.pop(key) for key in ("np", "i", "f", "type") if key in head.__dict__})
    head.inplace = True
    head.anchors, head.strides = torch.zeros(2, head_anchors).half(), torch.full((1, head_anchors), 8.0).half()
    head.shape = torch.Size([1, head.no, head_anchors])
    model.stride = model.stride.float()
    return model.eval()


def in_order(model, *keys):
    """The model's attributes in the order DetectionModel.__init__ and the trainer of an era set them."""
    model.__dict__.update({key: model.__dict__.pop(key) for key in keys})
    return model


def old_type(module, name):
    return "ultralytics.nn.modules." + name


def full_type(module, name):
    return module + "." + name


def v8_model(classes, yaml_dict, **attributes):
    v8file.CLASSES[:] = list(names(classes).values())
    model = v8file.trained_model(v8file.DetectionModel, yaml_dict).half()
    model.names, model.nc = names(classes), classes
    for key, value in attributes.items():
        setattr(model, key, value)
    return model


def yolov8n_80():
    """The released yolov8n.pt as downloaded today (8.0.0.dev0, re-saved with 8.1's train_args)."""
    yaml_dict = {**v8file.yaml_v80(), "nc": 80}
    model_args = train_args("8.0", drop=("save_period", "amp", "split", "show_labels", "show_conf", "classes", "boxes",
                                         "pose", "kobj", "tracker"),
                            add=(("save_crop", "hide_labels", False), ("save_crop", "hide_conf", False),
                                 ("dfl", "fl_gamma", 0.0)), task="detect", model="yolov8n.yaml", data="coco.yaml",
                            epochs=500)
    model = v8_model(80, yaml_dict, yaml_file="yolov8n.yaml", args=model_args)
    in_order(dress(model, old_type, False, 8400), "yaml_file", "yaml", "save", "names", "inplace", "stride", "nc", "args")
    args = train_args("8.1", task="detect", model="yolov8n.yaml", data="coco.yaml", epochs=500)
    return {**header("2022-12-30T00:12:08.084698", "8.0.0.dev0", LICENSE_OLD), **stripped(model, args)}


def user_best_44(version, date, extra_keys=(), **tail):
    """A user's best.pt of 8.3: yolov8n.pt fine-tuned to 44 classes, stripped."""
    yaml_dict = {**v8file.yaml_v80(), "nc": 44, "channels": 3}
    args = train_args("8.3", drop=("save_hybrid", "fuse", "label_smoothing", "crop_fraction"),
                      add=(("mixup", "cutmix", 0.0),), task="detect", model="yolov8n.pt", data="data.yaml",
                      epochs=20, imgsz=448)
    model = v8_model(44, yaml_dict, args={**args, "save_dir": "runs/detect/train"}, criterion=None, end2end=False)
    in_order(dress(model, full_type, True, 2940), "yaml", "save", "names", "inplace", "end2end", "stride", "nc", "args",
             "criterion")
    return {**header(date, version, LICENSE), **stripped(model, args, extra_keys, **tail)}


def yolo11n_80():
    """The released yolo11n.pt's model (8.2.100): args of five keys, criterion, pt_path, task."""
    v8file.CLASSES[:] = list(names(80).values())
    import ultralytics_yolo11_fixture as y11file  # places YOLO11's classes under the same names

    model = y11file.model()
    model.names, model.nc, model.criterion, model.task = names(80), 80, None, "detect"
    model.args = {"task": "detect", "data": "coco.yaml", "imgsz": 640, "single_cls": False, "model": "yolo11n.yaml"}
    model.pt_path = "weights/yolo11n.pt"
    return in_order(dress(model, full_type, False, 6174), "yaml", "save", "names", "inplace", "stride", "nc", "args",
                    "criterion", "pt_path", "task")


METRICS = ("metrics/precision(B)", "metrics/recall(B)", "metrics/mAP50(B)", "metrics/mAP50-95(B)", "val/box_loss",
           "val/cls_loss", "val/dfl_loss", "fitness")
LOSSES = ("train/box_loss", "train/cls_loss", "train/dfl_loss")
LEARNING_RATES = ("lr/pg0", "lr/pg1", "lr/pg2")


def metrics_and_results(metrics, results):
    """train_metrics (the last validation's values) and train_results (results.csv's columns)."""
    return {"train_metrics": {key: 0.5 for key in metrics}, "train_results": {key: [1.0, 2.0] for key in results}}


def tail_8_3():
    """8.3.174's: metrics, then results.csv's columns in its order."""
    return metrics_and_results(METRICS, ("epoch", "time") + LOSSES + METRICS[:7] + LEARNING_RATES)


def tail_8_2():
    """8.2.100's yolo11n.pt: the metrics with the last epoch's losses and rates, and its own column order."""
    losses = ("train/cls_loss", "train/box_loss", "train/dfl_loss")
    results = ("epoch", "metrics/mAP50-95(B)", "metrics/mAP50(B)", "metrics/precision(B)", "metrics/recall(B)")
    return metrics_and_results(METRICS + losses + LEARNING_RATES,
                               results + losses + ("val/cls_loss", "val/dfl_loss", "val/box_loss") + LEARNING_RATES)


def save(checkpoint, path, records=()):
    """torch.save, then torch 2.x's records: byteorder after data.pkl, the given ones before it,
    .data/serialization_id last; every record's data 64-byte aligned as torch aligns them."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save(checkpoint, path)
    with zipfile.ZipFile(path) as source:
        entries = [(info.filename, source.read(info)) for info in source.infolist()]
    archive = entries[0][0].split("/")[0]
    order = [entries[0]] + [(archive + "/" + name, value) for name, value in records]
    order += [(archive + "/byteorder", b"little")] + entries[1:]
    order += [(archive + "/.data/serialization_id", b"0886398514384620487803605279162591045420")]
    with open(path, "wb") as out, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as target:
        for name, data in order:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            pad = -(out.tell() + 30 + len(name) + 4) % 64
            info.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
            target.writestr(info, data)


def main(out_dir):
    save(yolov8n_80(), os.path.join(out_dir, "8.0", "yolov8n.pt"))
    tail = tail_8_3()
    save(user_best_44("8.3.174", "2025-08-07T10:37:07.852880", **tail), os.path.join(out_dir, "8.3", "best.pt"))
    git = {"root": "https://github.com/ultralytics/ultralytics", "branch": "main", "commit": "0" * 40,
           "origin": "https://github.com/ultralytics/ultralytics.git"}
    latest = user_best_44("8.3.243", "2025-12-31T22:48:03.954211", ("scaler",), **tail, git=git)
    save(latest, os.path.join(out_dir, "8.3.243", "best.pt"), ((".format_version", b"1"), (".storage_alignment", b"64")))
    torch.save(OrderedDict(yolov8n_80()["model"].float().state_dict()), os.path.join(out_dir, "weights-80.pt"))
    torch.save(OrderedDict(latest["model"].float().state_dict()), os.path.join(out_dir, "weights-44.pt"))
    model = yolo11n_80()
    args = train_args("8.2", add=(("copy_paste", "copy_paste_mode", "flip"),), task="detect", model="yolo11n.yaml",
                      data="/usr/src/ultralytics/ultralytics/cfg/datasets/coco.yaml")
    checkpoint = {**header("2024-09-25T21:10:26.629566", "8.2.100", LICENSE_OLD), **stripped(model, args, **tail_8_2())}
    save(checkpoint, os.path.join(out_dir, "8.2", "yolo11n.pt"))
    torch.save(OrderedDict(model.float().state_dict()), os.path.join(out_dir, "yolo11n-weights.pt"))


if __name__ == "__main__":
    main(sys.argv[1])
