"""Python's side of tests/test_torch_pickle.cpp and tests/test_pretrained.cpp.

  torch_pickle_fixture.py OUTDIR [--resnet]

writes into OUTDIR what real-world torch.save files look like (the resnet18 ones only with
--resnet, as they take most of the time):
  resnet18_sd.pt      torchvision resnet18's state_dict() (an OrderedDict with _metadata)
  resnet18_dp.pt      the same through nn.DataParallel ("module." keys)
  resnet18_ref.pt     plain dicts only, which LibTorch 1.13's own reader opens: "state_dict",
                      "input" and torchvision's eval "logits" for it
  tensors.pt          fp16/bf16/int/bool tensors, views sharing one storage, a Parameter
  tensors_p4.pt, tensors_p5.pt, tensors_legacy.pt   the same with pickle protocol 4 and 5, and
                      in the pre-1.6 format
  values.pt           scalars and containers, one-entry ones included
  module.pt           a whole nn.Module (refused as data; pretrained= reads its weights inertly)
  linear.pt           a Linear(4, 2)'s state dict (see linear_state); ultralytics.pt, timm.pt,
                      ema_only.pt, no_weights.pt   checkpoints nesting it, or not
  missing_storage.pt  a zip whose storage record is gone; bad_pickle.pt  a truncated data.pkl
"""
import collections
import os
import sys
import zipfile

import torch


def tensors():
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    return collections.OrderedDict([
        ("half", (torch.arange(6, dtype=torch.float16) / 4).reshape(2, 3)),
        ("bf16", torch.tensor([1.5, -2.25, 3.0], dtype=torch.bfloat16)),
        ("long", torch.tensor([-3, 2**40], dtype=torch.int64)),
        ("int32", torch.tensor([7, -8], dtype=torch.int32)),
        ("int8", torch.tensor([-5, 6], dtype=torch.int8)),
        ("uint8", torch.tensor([200, 3], dtype=torch.uint8)),
        ("bool", torch.tensor([True, False, True])),
        ("double", torch.tensor([0.1, 1e300], dtype=torch.float64)),
        ("base", base),
        ("transposed", base.t()),
        ("window", base[1:, 1:3]),
        ("scalar", torch.tensor(2.5)),
        ("empty", torch.zeros(0, 3)),
        ("param", torch.nn.Parameter(torch.ones(2))),
    ])


def linear_state(scale):
    """Linear(4, 2) weights: weight = arange(8).reshape(2, 4) * scale / 8, bias = [0.5, -0.5]."""
    return collections.OrderedDict([
        ("weight", torch.arange(8, dtype=torch.float32).reshape(2, 4) * scale / 8),
        ("bias", torch.tensor([0.5, -0.5])),
    ])


def resnet(out):
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.1, 0.1)
                module.running_var.uniform_(0.5, 1.5)
        batch = torch.randn(2, 3, 32, 32)
        logits = model(batch)
    torch.save(model.state_dict(), out("resnet18_sd.pt"))
    torch.save(torch.nn.DataParallel(model).state_dict(), out("resnet18_dp.pt"))
    torch.save({"state_dict": dict(model.state_dict()), "input": batch, "logits": logits},
               out("resnet18_ref.pt"))


def checkpoints(out):
    linear = torch.nn.Linear(4, 2)
    linear.load_state_dict(linear_state(1))
    optimizer = torch.optim.SGD(linear.parameters(), lr=0.1, momentum=0.9)
    linear(torch.ones(1, 4)).sum().backward()
    optimizer.step()
    linear.load_state_dict(linear_state(1))
    # What Ultralytics / YOLOv5-style training scripts keep, with the weights as a state dict.
    torch.save({"epoch": 3, "best_fitness": None, "model": linear.state_dict(), "ema": None,
                "updates": 12, "optimizer": optimizer.state_dict(),
                "train_args": {"lr0": 0.01, "imgsz": 640, "name": "exp", "flip": True},
                "date": "2024-01-01T00:00:00"}, out("ultralytics.pt"))
    torch.save({"epoch": 1, "arch": "linear", "state_dict": linear_state(1),
                "state_dict_ema": linear_state(2)}, out("timm.pt"))
    torch.save({"ema": linear_state(2), "updates": 10}, out("ema_only.pt"))
    torch.save({"epoch": 1, "model": None}, out("no_weights.pt"))
    torch.save(linear_state(1), out("linear.pt"))


def main(out_dir, with_resnet):
    out = lambda name: os.path.join(out_dir, name)
    if with_resnet:
        resnet(out)
    torch.save(tensors(), out("tensors.pt"))
    torch.save(tensors(), out("tensors_p4.pt"), pickle_protocol=4)
    torch.save(tensors(), out("tensors_p5.pt"), pickle_protocol=5)
    torch.save(tensors(), out("tensors_legacy.pt"), _use_new_zipfile_serialization=False)
    torch.save({"int": -7, "big": 2**40, "most_negative": -2**63, "float": 0.1, "text": "ünï",
                "none": None, "true": True, "false": False, "list1": [1], "tuple": (1, "a", None),
                "int_keys": {0: "a", 5: "b"}, "one": {"only": 1}, "bytes": b"a\xffb", "no_bytes": b"",
                "empty_ordered": collections.OrderedDict(), "nested": [[]]}, out("values.pt"))
    torch.save(torch.nn.Linear(2, 3), out("module.pt"))
    checkpoints(out)
    with zipfile.ZipFile(out("tensors.pt")) as source:
        names = source.namelist()
        with zipfile.ZipFile(out("missing_storage.pt"), "w") as target:
            for name in names:
                if not name.endswith("/data/0"):
                    target.writestr(name, source.read(name))
        with zipfile.ZipFile(out("bad_pickle.pt"), "w") as target:
            for name in names:
                data = source.read(name)
                target.writestr(name, data[: len(data) // 2] if name.endswith("data.pkl") else data)


if __name__ == "__main__":
    main(sys.argv[1], "--resnet" in sys.argv[2:])
