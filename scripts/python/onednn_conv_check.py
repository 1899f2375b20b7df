"""Does this torch's oneDNN compute convolution gradients right on this CPU? For 3x3 layers of a few
input and output channel counts, compares the input and weight gradients oneDNN gives (torch's
usual CPU path) with ATen's own kernels (torch.backends.mkldnn off), on 1 thread and on 2, and
prints the layers where they differ by more than 1e-3 of the largest value. `trainer` checks one
such layer at start-up (lib/util/onednn_check.h); this shows the extent:

  python3 scripts/python/onednn_conv_check.py
  ONEDNN_MAX_CPU_ISA=AVX2 python3 scripts/python/onednn_conv_check.py   # oneDNN capped at AVX2

Debian trixie's torch 2.6 on an AVX-512 AMD EPYC gets the input gradient wrong for every layer
with 4 or 8 output channels; capped at AVX2, for those with 4 (docs/training.md, "LibTorch 2.x
on a CPU")."""
import os

import torch


def wrong_layers(threads):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    wrong = []
    for cin in (1, 2, 3, 4, 8, 16):
        for cout in (4, 8, 16, 32):
            conv = torch.nn.Conv2d(cin, cout, 3, 1, 1)
            x = torch.randn(8, cin, 16, 32, requires_grad=True)
            g = torch.randn(8, cout, 16, 32)
            ours = torch.autograd.grad(conv(x), (x, conv.weight), g)
            with torch.backends.mkldnn.flags(enabled=False):
                reference = torch.autograd.grad(conv(x), (x, conv.weight), g)
            for name, a, b in zip(("input", "weight"), ours, reference):
                if not torch.isfinite(a).all() or (a - b).abs().max() > 1e-3 * b.abs().max():
                    wrong.append(f"{cin}->{cout} {name}")
    return wrong


if __name__ == "__main__":
    isa = os.environ.get("ONEDNN_MAX_CPU_ISA", "unset")
    for threads in (1, 2):
        wrong = wrong_layers(threads)
        print(f"torch {torch.__version__}, ONEDNN_MAX_CPU_ISA {isa}, {threads} thread(s): "
              f"{', '.join(wrong) if wrong else 'every gradient right'}")
