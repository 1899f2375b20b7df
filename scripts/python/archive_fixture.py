"""Python's side of tests/test_tensor_archive.cpp.

  archive_fixture.py echo IN OUT         torch.load IN with weights_only=True, torch.save it to OUT
  archive_fixture.py layouts OUTDIR      write files LibTorch 1.13's own reader cannot read:
                                         ordered.pt (what torch.save(model.state_dict()) writes),
                                         nested.pt (an OrderedDict inside a dict), single.pt (a
                                         one-entry dict holding a one-entry dict and a
                                         one-element list)
"""
import collections
import os
import sys

import torch


def main(argv):
    command = argv[1]
    if command == "echo":
        torch.save(torch.load(argv[2], weights_only=True), argv[3])
    elif command == "layouts":
        weights = collections.OrderedDict(weight=torch.ones(2, 3), bias=torch.zeros(2))
        torch.save(weights, os.path.join(argv[2], "ordered.pt"))
        torch.save({"model": weights, "epoch": 3}, os.path.join(argv[2], "nested.pt"))
        torch.save({"model": {"weight": torch.ones(2, 3), "shape": [2]}},
                   os.path.join(argv[2], "single.pt"))
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv)
