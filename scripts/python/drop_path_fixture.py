"""timm's stochastic depth and classifier dropout on torchvision's ResNets, as reference data for
tests/test_drop_path.cpp.

  drop_path_fixture.py OUTDIR

timm is not installed here, so its rules are written out from its source: timm/layers/drop.py's
drop_path (per-sample Bernoulli keep mask, kept samples scaled by 1 / keep) applied to the
residual branch after the last norm and before the shortcut is added (timm/models/resnet.py's
BasicBlock and Bottleneck), each block's rate drop_path_rate * net_block_idx / (net_num_blocks - 1)
over all blocks (resnet.py's make_blocks), and forward_head's F.dropout(p=drop_rate) of the pooled
features before fc. torchvision's modules give the same state-dict keys as timm's plain ResNets.

Writes OUTDIR/<arch>.pt for resnet18 and resnet50: a dict of "state_dict", "input", "seed",
"drop_path", "dropout", "rates" (each block's rate in order), "train_logits" (train mode, drawn
after torch.manual_seed(seed)) and "eval_logits" (eval mode after that training pass, which moved
the BatchNorm statistics from the saved state's).
"""
import os
import sys

import torch
import torch.nn.functional as F
import torchvision
from torchvision.models.resnet import BasicBlock, Bottleneck


def drop_path(x, drop_prob, training):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0:
        random_tensor.div_(keep_prob)
    return x * random_tensor


def basic_forward(self, x):
    shortcut = x
    x = self.relu(self.bn1(self.conv1(x)))
    x = drop_path(self.bn2(self.conv2(x)), self.drop_prob, self.training)
    if self.downsample is not None:
        shortcut = self.downsample(shortcut)
    return self.relu(x + shortcut)


def bottleneck_forward(self, x):
    shortcut = x
    x = self.relu(self.bn1(self.conv1(x)))
    x = self.relu(self.bn2(self.conv2(x)))
    x = drop_path(self.bn3(self.conv3(x)), self.drop_prob, self.training)
    if self.downsample is not None:
        shortcut = self.downsample(shortcut)
    return self.relu(x + shortcut)


def model_forward(self, x):
    x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
    x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
    x = torch.flatten(self.avgpool(x), 1)
    if self.drop_rate:
        x = F.dropout(x, p=float(self.drop_rate), training=self.training)
    return self.fc(x)


def timm_resnet(arch, drop_path_rate, drop_rate):
    model = getattr(torchvision.models, arch)(num_classes=10)
    blocks = [b for layer in (model.layer1, model.layer2, model.layer3, model.layer4) for b in layer]
    rates = []
    for net_block_idx, block in enumerate(blocks):
        block.drop_prob = drop_path_rate * net_block_idx / (len(blocks) - 1)
        rates.append(block.drop_prob)
    model.drop_rate = drop_rate
    return model, rates


def main(out_dir):
    BasicBlock.forward = basic_forward
    Bottleneck.forward = bottleneck_forward
    torchvision.models.ResNet.forward = model_forward
    torch.manual_seed(0)
    batch = torch.randn(8, 3, 32, 32)
    for arch, seed in (("resnet18", 3), ("resnet50", 5)):
        model, rates = timm_resnet(arch, 0.3, 0.25)
        # Before the forward passes, whose training one moves the BatchNorm statistics.
        state = {key: value.clone() for key, value in model.state_dict().items()}
        model.train()
        torch.manual_seed(seed)
        with torch.no_grad():
            train_logits = model(batch)
            model.eval()
            eval_logits = model(batch)
        torch.save({"state_dict": state, "input": batch, "seed": seed, "drop_path": 0.3,
                    "dropout": 0.25, "rates": rates, "train_logits": train_logits, "eval_logits": eval_logits},
                   os.path.join(out_dir, arch + ".pt"))


if __name__ == "__main__":
    main(sys.argv[1])
