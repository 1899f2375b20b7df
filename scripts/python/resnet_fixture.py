"""torchvision's ResNets as reference data for tests/test_resnet.cpp.

  resnet_fixture.py OUTDIR [ARCH ...]

writes OUTDIR/<arch>.pt for resnet18/34/50 (or the ARCHs given: resnet101, resnet152), each a plain dict (LibTorch 1.13 cannot read an
OrderedDict) of: "state_dict" (dict of the state dict), "keys" (its keys in order), "input"
(a fixed random batch) and "logits" (torchvision's output for it in eval mode).
"""
import os
import sys

import torch
import torchvision


def main(out_dir, archs):
    torch.manual_seed(0)
    # Small enough for resnet50 to stay quick, large enough to keep layer4 at 2x2.
    batch = torch.randn(2, 3, 64, 64)
    for arch in archs:
        model = getattr(torchvision.models, arch)().eval()
        # Non-trivial running statistics, so eval mode really exercises them.
        with torch.no_grad():
            for module in model.modules():
                if isinstance(module, torch.nn.BatchNorm2d):
                    module.running_mean.uniform_(-0.1, 0.1)
                    module.running_var.uniform_(0.5, 1.5)
            logits = model(batch)
        state = model.state_dict()
        torch.save({"state_dict": dict(state), "keys": list(state.keys()),
                    "input": batch, "logits": logits}, os.path.join(out_dir, arch + ".pt"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or ["resnet18", "resnet34", "resnet50"])
