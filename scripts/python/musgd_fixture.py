"""Reference steps of Ultralytics 8.4's MuSGD (ultralytics/optim/muon.py), for tests/test_musgd.cpp.

No Ultralytics package exists here: the optimizer is written from muon.py's definitions (the quintic
Newton-Schulz orthogonalisation in bfloat16, muon_update with Nesterov momentum, MuSGD.step with a
Muon update of lr * muon and an SGD update of lr * sgd in use_muon groups, plain SGD elsewhere) and
run on four parameters shaped like a network's: a convolution's filters and a linear weight in the
Muon group with weight decay, a bias and a norm scale in SGD groups without.

  musgd_fixture.py OUT.pt

writes a plain dict: "initial" (the four parameters), "grads" (per step, the four grads) and
"after" (per step, the four parameters after it), for three steps at lr 0.01, momentum 0.9,
weight decay 5e-4 (muon 0.2, sgd 1.0, as build_optimizer makes it).
"""
import sys

import torch


def orthogonalised(g, eps=1e-7):
    x = g.bfloat16()
    x /= x.norm() + eps
    if g.size(0) > g.size(1):
        x = x.T
    for _ in range(5):
        a_mat = x @ x.T
        b_mat = -4.7750 * a_mat + 2.0315 * a_mat @ a_mat
        x = 3.4445 * x + b_mat @ x
    if g.size(0) > g.size(1):
        x = x.T
    return x


def muon_update(grad, momentum, beta, nesterov):
    momentum.lerp_(grad, 1 - beta)
    update = grad.lerp(momentum, beta) if nesterov else momentum
    if update.ndim == 4:
        update = update.view(len(update), -1)
    update = orthogonalised(update)
    update *= max(1, grad.size(-2) / grad.size(-1)) ** 0.5
    return update


def step(groups, state, muon=0.2, sgd=1.0):
    with torch.no_grad():
        for group in groups:
            for p in group["params"]:
                grad, lr, wd, m = p.grad, group["lr"], group["weight_decay"], group["momentum"]
                if group["use_muon"]:
                    s = state.setdefault(id(p), {"momentum_buffer": torch.zeros_like(p),
                                                 "momentum_buffer_SGD": torch.zeros_like(p)})
                    update = muon_update(grad, s["momentum_buffer"], m, True)
                    p.add_(update.reshape(p.shape), alpha=-(lr * muon))
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    s["momentum_buffer_SGD"].mul_(m).add_(grad)
                    p.add_(grad.add(s["momentum_buffer_SGD"], alpha=m), alpha=-(lr * sgd))
                else:
                    s = state.setdefault(id(p), {"momentum_buffer": torch.zeros_like(p)})
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    s["momentum_buffer"].mul_(m).add_(grad)
                    p.add_(grad.add(s["momentum_buffer"], alpha=m), alpha=-lr)


def main(path):
    torch.manual_seed(0)
    params = [torch.randn(8, 4, 3, 3) * 0.2, torch.randn(5, 12) * 0.3, torch.randn(8) * 0.1, 1 + torch.randn(8) * 0.1]
    initial = [p.clone() for p in params]
    groups = [{"params": params[:2], "lr": 0.01, "weight_decay": 5e-4, "momentum": 0.9, "use_muon": True},
              {"params": params[2:3], "lr": 0.01, "weight_decay": 0.0, "momentum": 0.9, "use_muon": False},
              {"params": params[3:], "lr": 0.01, "weight_decay": 0.0, "momentum": 0.9, "use_muon": False}]
    state, grads, after = {}, [], []
    for _ in range(3):
        step_grads = [torch.randn_like(p) for p in params]
        for p, g in zip(params, step_grads):
            p.grad = g
        step(groups, state)
        grads.append(step_grads)
        after.append([p.clone() for p in params])
    torch.save({"initial": initial, "grads": grads, "after": after}, path)


if __name__ == "__main__":
    main(sys.argv[1])
