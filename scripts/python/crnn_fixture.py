"""EasyOCR's recognizer, None-VGG-BiLSTM-CTC, as reference data for tests/test_crnn.cpp.

  crnn_fixture.py OUTDIR

The network is written here from EasyOCR's trainer/model.py and modules/ (feature_extraction.py,
sequence_modeling.py): same module names, layer order and shapes, at its en configuration
(input_channel 1, output_channel 256, hidden_size 256, 97 classes). Writes
  OUTDIR/crnn.pt        a plain dict: "state_dict", "keys" (in order), "input", "logits" (eval mode)
  OUTDIR/easyocr_en.pth the state dict as EasyOCR releases it: an OrderedDict saved through
                        torch.nn.DataParallel, so every key starts with "module."
"""
import os
import sys

import torch
from torch import nn


class VGG_FeatureExtractor(nn.Module):
    def __init__(self, input_channel, output_channel):
        super().__init__()
        c = [output_channel // 8, output_channel // 4, output_channel // 2, output_channel]
        self.ConvNet = nn.Sequential(
            nn.Conv2d(input_channel, c[0], 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(c[0], c[1], 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(c[1], c[2], 3, 1, 1), nn.ReLU(True),
            nn.Conv2d(c[2], c[2], 3, 1, 1), nn.ReLU(True), nn.MaxPool2d((2, 1), (2, 1)),
            nn.Conv2d(c[2], c[3], 3, 1, 1, bias=False), nn.BatchNorm2d(c[3]), nn.ReLU(True),
            nn.Conv2d(c[3], c[3], 3, 1, 1, bias=False), nn.BatchNorm2d(c[3]), nn.ReLU(True),
            nn.MaxPool2d((2, 1), (2, 1)),
            nn.Conv2d(c[3], c[3], 2, 1, 0), nn.ReLU(True))

    def forward(self, x):
        return self.ConvNet(x)


class BidirectionalLSTM(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.rnn = nn.LSTM(input_size, hidden_size, bidirectional=True, batch_first=True)
        self.linear = nn.Linear(hidden_size * 2, output_size)

    def forward(self, x):
        recurrent, _ = self.rnn(x)
        return self.linear(recurrent)


class Model(nn.Module):
    def __init__(self, input_channel, output_channel, hidden_size, num_class):
        super().__init__()
        self.FeatureExtraction = VGG_FeatureExtractor(input_channel, output_channel)
        self.AdaptiveAvgPool = nn.AdaptiveAvgPool2d((None, 1))
        self.SequenceModeling = nn.Sequential(
            BidirectionalLSTM(output_channel, hidden_size, hidden_size),
            BidirectionalLSTM(hidden_size, hidden_size, hidden_size))
        self.Prediction = nn.Linear(hidden_size, num_class)

    def forward(self, x):
        visual = self.AdaptiveAvgPool(self.FeatureExtraction(x).permute(0, 3, 1, 2)).squeeze(3)
        return self.Prediction(self.SequenceModeling(visual).contiguous())


def main(out_dir):
    torch.manual_seed(0)
    model = Model(1, 256, 256, 97).eval()
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.running_mean.uniform_(-0.1, 0.1)
                module.running_var.uniform_(0.5, 1.5)
        # Height 64 as EasyOCR trains (3 rows left to average), width 100: 24 time steps.
        batch = torch.randn(2, 1, 64, 100)
        logits = model(batch)
    state = model.state_dict()
    torch.save({"state_dict": dict(state), "keys": list(state.keys()), "input": batch, "logits": logits},
               os.path.join(out_dir, "crnn.pt"))
    torch.save(nn.DataParallel(model).state_dict(), os.path.join(out_dir, "easyocr_en.pth"))


if __name__ == "__main__":
    main(sys.argv[1])
