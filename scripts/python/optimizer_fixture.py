"""torch.optim's Adam and Adadelta and timm's RMSpropTF, step by step, as reference data for
tests/test_fused_optimizer.cpp.

  optimizer_fixture.py OUTDIR

Five float32 parameters in two groups (weights with weight decay, the rest without), six steps
whose learning rates change every step; parameter 2 has no grad in step 1 and parameter 3 never
has one, so per-parameter state starts late or not at all. For each optimizer writes
OUTDIR/<adam|adadelta|rmsproptf>.pt, a flat dict of tensors:
  "options.<name>"            the hyper-parameters (beta1, beta2, eps, rho, momentum, alpha; 0-dim
                              float64)
  "group.<g>.params"          the indices of group g's parameters (int64)
  "group.<g>.weight_decay"    0-dim float64
  "init.<i>"                  the parameters before the first step
  "step.<s>.group.<g>.lr"     group g's lr in step s (0-dim float64)
  "step.<s>.grad.<i>"         parameter i's grad in step s (absent: no grad)
  "step.<s>.param.<i>"        parameter i after step s
  "state.<g>.<k>.<name>"      torch's state_dict()["state"] at the end, for the k-th parameter of
                              group g, under torch's own names (a Python int step as float32)
"""
import os
import sys

import torch

STEPS = 6
NO_GRAD = 3
LATE = 2
GROUPS = [[0, 1, 3], [2, 4]]
DECAY = [5e-4, 0.0]


class RMSpropTF(torch.optim.Optimizer):
    """timm/optim/rmsprop_tf.py's RMSpropTF as timm's create_optimizer builds it for --opt rmsproptf
    (alpha 0.9, momentum from --momentum, eps from --opt-eps), written out because timm is not
    installed here: its defaults centered=False, decoupled_decay=False, lr_in_momentum=True,
    no caution. Differences from torch's RMSprop: square_avg starts at ones and moves in
    TensorFlow's order, eps sits inside the square root, lr is accumulated in the momentum
    buffer."""

    def __init__(self, params, lr=1e-2, alpha=0.9, eps=1e-10, weight_decay=0.0, momentum=0.0):
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["square_avg"] = torch.ones_like(p)
                    if group["momentum"] > 0:
                        state["momentum_buffer"] = torch.zeros_like(p)
                square_avg = state["square_avg"]
                one_minus_alpha = 1.0 - group["alpha"]
                state["step"] += 1
                if group["weight_decay"] != 0:
                    grad = grad.add(p, alpha=group["weight_decay"])
                square_avg.add_(grad.pow(2) - square_avg, alpha=one_minus_alpha)
                avg = square_avg.add(group["eps"]).sqrt_()
                if group["momentum"] > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(group["momentum"])
                    buf.addcdiv_(grad, avg, value=group["lr"])
                    p.add_(-buf)
                else:
                    p.addcdiv_(grad, avg, value=-group["lr"])


def make_params():
    torch.manual_seed(0)
    shapes = [(300, 400), (64, 3, 3, 3), (17,), (5,), (400,)]
    return [torch.randn(shape) for shape in shapes]


def run(name, make_optimizer, base_lrs, options, out):
    init = make_params()
    params = [torch.nn.Parameter(p.clone()) for p in init]
    groups = [{"params": [params[i] for i in members], "lr": base_lrs[g], "weight_decay": DECAY[g]}
              for g, members in enumerate(GROUPS)]
    optimizer = make_optimizer(groups)
    record = {"options." + key: torch.tensor(value, dtype=torch.float64) for key, value in options.items()}
    for g, members in enumerate(GROUPS):
        record[f"group.{g}.params"] = torch.tensor(members, dtype=torch.int64)
        record[f"group.{g}.weight_decay"] = torch.tensor(DECAY[g], dtype=torch.float64)
    for i, p in enumerate(init):
        record[f"init.{i}"] = p.clone()
    generator = torch.Generator().manual_seed(1)
    for step in range(STEPS):
        for g, group in enumerate(optimizer.param_groups):
            group["lr"] = base_lrs[g] * (1.0 - 0.15 * step)
            record[f"step.{step}.group.{g}.lr"] = torch.tensor(group["lr"], dtype=torch.float64)
        for i, p in enumerate(params):
            if i == NO_GRAD or (i == LATE and step == 1):
                p.grad = None
                continue
            p.grad = torch.randn(p.shape, generator=generator)
            record[f"step.{step}.grad.{i}"] = p.grad.clone()
        optimizer.step()
        for i, p in enumerate(params):
            record[f"step.{step}.param.{i}"] = p.detach().clone()
    state = optimizer.state_dict()["state"]
    flat_index = 0
    for g, members in enumerate(GROUPS):
        for k in range(len(members)):
            for key, value in state.get(flat_index, {}).items():
                tensor = value if torch.is_tensor(value) else torch.tensor(float(value), dtype=torch.float32)
                record[f"state.{g}.{k}.{key}"] = tensor.clone()
            flat_index += 1
    torch.save(record, os.path.join(out, name + ".pt"))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    # Ultralytics' Adam: betas (momentum, 0.999), coupled weight decay.
    run("adam", lambda groups: torch.optim.Adam(groups, betas=(0.937, 0.999), eps=1e-8), [0.01, 0.1],
        {"beta1": 0.937, "beta2": 0.999, "eps": 1e-8}, out)
    # EasyOCR's Adadelta: lr 1.0, rho 0.95, eps 1e-8.
    run("adadelta", lambda groups: torch.optim.Adadelta(groups, rho=0.95, eps=1e-8), [1.0, 0.5],
        {"rho": 0.95, "eps": 1e-8}, out)
    # timm's EfficientNet recipes: --opt rmsproptf --opt-eps .001 --momentum 0.9.
    run("rmsproptf", lambda groups: RMSpropTF(groups, alpha=0.9, eps=1e-3, momentum=0.9), [0.016, 0.01],
        {"momentum": 0.9, "alpha": 0.9, "eps": 1e-3}, out)


if __name__ == "__main__":
    main()
