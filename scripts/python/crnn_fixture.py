"""EasyOCR's recognizers, as reference data for tests/test_crnn.cpp and tests/test_ocr_recognizers.cpp.

  crnn_fixture.py OUTDIR
  crnn_fixture.py load STAGES WEIGHTS OUT

The second form loads WEIGHTS (a dict of "state_dict" and "input", as trainer's tests write it)
strictly into EasyOCR's Model of STAGES at the small size below, through torch.nn.DataParallel as
EasyOCR's train.py loads a saved_model (keys prefixed "module."), and writes its eval logits of
"input" to OUT.

The networks are written here from EasyOCR's trainer/model.py and modules/ (transformation.py,
feature_extraction.py, sequence_modeling.py, prediction.py; JaidedAI/EasyOCR at v1.7.2): same
module names, layer order, shapes and buffers. Writes
  OUTDIR/crnn.pt        None-VGG-BiLSTM-CTC at EasyOCR's en configuration (input_channel 1,
                        output_channel 256, hidden_size 256, 97 classes): a plain dict of
                        "state_dict", "keys" (in order), "input", "logits" (eval mode)
  OUTDIR/easyocr_en.pth its state dict as EasyOCR releases it: an OrderedDict saved through
                        torch.nn.DataParallel, so every key starts with "module."
  OUTDIR/<stages>.pt    for each stage combination of RECOGNIZERS (e.g. TPS-ResNet-BiLSTM-Attn) at a
                        small size: the same dict plus "parameters" (the count at EasyOCR's
                        full size, output_channel 512, hidden_size 256, 97 characters), for TPS
                        "rectified" (its output lines), and for Attn "text" and "teacher_logits"
                        (the decoder read text, as in training);
  OUTDIR/<stages>.pth   the same weights as EasyOCR's train.py saves them (DataParallel, "module.")
                        "logits" of Attn are its greedy decoding (is_train=False)
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
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


class TPS_SpatialTransformerNetwork(nn.Module):
    def __init__(self, F, I_size, I_r_size, I_channel_num=1):
        super().__init__()
        self.F = F
        self.I_r_size = I_r_size
        self.LocalizationNetwork = LocalizationNetwork(F, I_channel_num)
        self.GridGenerator = GridGenerator(F, I_r_size)

    def forward(self, batch_I):
        batch_C_prime = self.LocalizationNetwork(batch_I)
        build_P_prime = self.GridGenerator.build_P_prime(batch_C_prime)
        grid = build_P_prime.reshape([build_P_prime.size(0), self.I_r_size[0], self.I_r_size[1], 2])
        return F.grid_sample(batch_I, grid, padding_mode='border', align_corners=False)


class LocalizationNetwork(nn.Module):
    def __init__(self, F, I_channel_num):
        super().__init__()
        self.F = F
        self.conv = nn.Sequential(
            nn.Conv2d(I_channel_num, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU(True),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(64, 128, 3, 1, 1, bias=False), nn.BatchNorm2d(128), nn.ReLU(True),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(128, 256, 3, 1, 1, bias=False), nn.BatchNorm2d(256), nn.ReLU(True),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(256, 512, 3, 1, 1, bias=False), nn.BatchNorm2d(512), nn.ReLU(True),
            nn.AdaptiveAvgPool2d(1))
        self.localization_fc1 = nn.Sequential(nn.Linear(512, 256), nn.ReLU(True))
        self.localization_fc2 = nn.Linear(256, self.F * 2)
        self.localization_fc2.weight.data.fill_(0)
        ctrl_pts_x = np.linspace(-1.0, 1.0, int(F / 2))
        ctrl_pts_y_top = np.linspace(0.0, -1.0, num=int(F / 2))
        ctrl_pts_y_bottom = np.linspace(1.0, 0.0, num=int(F / 2))
        initial_bias = np.concatenate([np.stack([ctrl_pts_x, ctrl_pts_y_top], axis=1),
                                       np.stack([ctrl_pts_x, ctrl_pts_y_bottom], axis=1)], axis=0)
        self.localization_fc2.bias.data = torch.from_numpy(initial_bias).float().view(-1)

    def forward(self, batch_I):
        batch_size = batch_I.size(0)
        features = self.conv(batch_I).view(batch_size, -1)
        return self.localization_fc2(self.localization_fc1(features)).view(batch_size, self.F, 2)


class GridGenerator(nn.Module):
    def __init__(self, F, I_r_size):
        super().__init__()
        self.eps = 1e-6
        self.I_r_height, self.I_r_width = I_r_size
        self.F = F
        self.C = self._build_C(self.F)
        self.P = self._build_P(self.I_r_width, self.I_r_height)
        self.register_buffer("inv_delta_C", torch.tensor(self._build_inv_delta_C(self.F, self.C)).float())
        self.register_buffer("P_hat", torch.tensor(self._build_P_hat(self.F, self.C, self.P)).float())

    def _build_C(self, F):
        ctrl_pts_x = np.linspace(-1.0, 1.0, int(F / 2))
        ctrl_pts_top = np.stack([ctrl_pts_x, -1 * np.ones(int(F / 2))], axis=1)
        ctrl_pts_bottom = np.stack([ctrl_pts_x, np.ones(int(F / 2))], axis=1)
        return np.concatenate([ctrl_pts_top, ctrl_pts_bottom], axis=0)

    def _build_inv_delta_C(self, F, C):
        hat_C = np.zeros((F, F), dtype=float)
        for i in range(0, F):
            for j in range(i, F):
                r = np.linalg.norm(C[i] - C[j])
                hat_C[i, j] = r
                hat_C[j, i] = r
        np.fill_diagonal(hat_C, 1)
        hat_C = (hat_C ** 2) * np.log(hat_C)
        delta_C = np.concatenate([
            np.concatenate([np.ones((F, 1)), C, hat_C], axis=1),
            np.concatenate([np.zeros((2, 3)), np.transpose(C)], axis=1),
            np.concatenate([np.zeros((1, 3)), np.ones((1, F))], axis=1)], axis=0)
        return np.linalg.inv(delta_C)

    def _build_P(self, I_r_width, I_r_height):
        I_r_grid_x = (np.arange(-I_r_width, I_r_width, 2) + 1.0) / I_r_width
        I_r_grid_y = (np.arange(-I_r_height, I_r_height, 2) + 1.0) / I_r_height
        P = np.stack(np.meshgrid(I_r_grid_x, I_r_grid_y), axis=2)
        return P.reshape([-1, 2])

    def _build_P_hat(self, F, C, P):
        n = P.shape[0]
        P_tile = np.tile(np.expand_dims(P, axis=1), (1, F, 1))
        C_tile = np.expand_dims(C, axis=0)
        rbf_norm = np.linalg.norm(P_tile - C_tile, ord=2, axis=2, keepdims=False)
        rbf = np.multiply(np.square(rbf_norm), np.log(rbf_norm + self.eps))
        return np.concatenate([np.ones((n, 1)), P, rbf], axis=1)

    def build_P_prime(self, batch_C_prime):
        batch_size = batch_C_prime.size(0)
        batch_inv_delta_C = self.inv_delta_C.repeat(batch_size, 1, 1)
        batch_P_hat = self.P_hat.repeat(batch_size, 1, 1)
        batch_C_prime_with_zeros = torch.cat((batch_C_prime, torch.zeros(batch_size, 3, 2).float()), dim=1)
        batch_T = torch.bmm(batch_inv_delta_C, batch_C_prime_with_zeros)
        return torch.bmm(batch_P_hat, batch_T)


class RCNN_FeatureExtractor(nn.Module):
    def __init__(self, input_channel, output_channel=512):
        super().__init__()
        c = [int(output_channel / 8), int(output_channel / 4), int(output_channel / 2), output_channel]
        self.ConvNet = nn.Sequential(
            nn.Conv2d(input_channel, c[0], 3, 1, 1), nn.ReLU(True),
            nn.MaxPool2d(2, 2),
            GRCL(c[0], c[0], num_iteration=5, kernel_size=3, pad=1),
            nn.MaxPool2d(2, 2),
            GRCL(c[0], c[1], num_iteration=5, kernel_size=3, pad=1),
            nn.MaxPool2d(2, (2, 1), (0, 1)),
            GRCL(c[1], c[2], num_iteration=5, kernel_size=3, pad=1),
            nn.MaxPool2d(2, (2, 1), (0, 1)),
            nn.Conv2d(c[2], c[3], 2, 1, 0, bias=False),
            nn.BatchNorm2d(c[3]), nn.ReLU(True))

    def forward(self, input):
        return self.ConvNet(input)


class GRCL(nn.Module):
    def __init__(self, input_channel, output_channel, num_iteration, kernel_size, pad):
        super().__init__()
        self.wgf_u = nn.Conv2d(input_channel, output_channel, 1, 1, 0, bias=False)
        self.wgr_x = nn.Conv2d(output_channel, output_channel, 1, 1, 0, bias=False)
        self.wf_u = nn.Conv2d(input_channel, output_channel, kernel_size, 1, pad, bias=False)
        self.wr_x = nn.Conv2d(output_channel, output_channel, kernel_size, 1, pad, bias=False)
        self.BN_x_init = nn.BatchNorm2d(output_channel)
        self.num_iteration = num_iteration
        self.GRCL = nn.Sequential(*[GRCL_unit(output_channel) for _ in range(num_iteration)])

    def forward(self, input):
        wgf_u = self.wgf_u(input)
        wf_u = self.wf_u(input)
        x = F.relu(self.BN_x_init(wf_u))
        for i in range(self.num_iteration):
            x = self.GRCL[i](wgf_u, self.wgr_x(x), wf_u, self.wr_x(x))
        return x


class GRCL_unit(nn.Module):
    def __init__(self, output_channel):
        super().__init__()
        self.BN_gfu = nn.BatchNorm2d(output_channel)
        self.BN_grx = nn.BatchNorm2d(output_channel)
        self.BN_fu = nn.BatchNorm2d(output_channel)
        self.BN_rx = nn.BatchNorm2d(output_channel)
        self.BN_Gx = nn.BatchNorm2d(output_channel)

    def forward(self, wgf_u, wgr_x, wf_u, wr_x):
        G = torch.sigmoid(self.BN_gfu(wgf_u) + self.BN_grx(wgr_x))
        return F.relu(self.BN_fu(wf_u) + self.BN_Gx(self.BN_rx(wr_x) * G))


class ResNet_FeatureExtractor(nn.Module):
    def __init__(self, input_channel, output_channel=512):
        super().__init__()
        self.ConvNet = ResNet(input_channel, output_channel, BasicBlock, [1, 2, 5, 3])

    def forward(self, input):
        return self.ConvNet(input)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        residual = self.downsample(x) if self.downsample is not None else x
        return self.relu(out + residual)


class ResNet(nn.Module):
    def __init__(self, input_channel, output_channel, block, layers):
        super().__init__()
        ocb = [int(output_channel / 4), int(output_channel / 2), output_channel, output_channel]
        self.inplanes = int(output_channel / 8)
        self.conv0_1 = nn.Conv2d(input_channel, int(output_channel / 16), 3, 1, 1, bias=False)
        self.bn0_1 = nn.BatchNorm2d(int(output_channel / 16))
        self.conv0_2 = nn.Conv2d(int(output_channel / 16), self.inplanes, 3, 1, 1, bias=False)
        self.bn0_2 = nn.BatchNorm2d(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool1 = nn.MaxPool2d(kernel_size=2, stride=2, padding=0)
        self.layer1 = self._make_layer(block, ocb[0], layers[0])
        self.conv1 = nn.Conv2d(ocb[0], ocb[0], 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(ocb[0])
        self.maxpool2 = nn.MaxPool2d(kernel_size=2, stride=2, padding=0)
        self.layer2 = self._make_layer(block, ocb[1], layers[1], stride=1)
        self.conv2 = nn.Conv2d(ocb[1], ocb[1], 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(ocb[1])
        self.maxpool3 = nn.MaxPool2d(kernel_size=2, stride=(2, 1), padding=(0, 1))
        self.layer3 = self._make_layer(block, ocb[2], layers[2], stride=1)
        self.conv3 = nn.Conv2d(ocb[2], ocb[2], 3, 1, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(ocb[2])
        self.layer4 = self._make_layer(block, ocb[3], layers[3], stride=1)
        self.conv4_1 = nn.Conv2d(ocb[3], ocb[3], kernel_size=2, stride=(2, 1), padding=(0, 1), bias=False)
        self.bn4_1 = nn.BatchNorm2d(ocb[3])
        self.conv4_2 = nn.Conv2d(ocb[3], ocb[3], kernel_size=2, stride=1, padding=0, bias=False)
        self.bn4_2 = nn.BatchNorm2d(ocb[3])

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, planes * block.expansion, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.relu(self.bn0_1(self.conv0_1(x)))
        x = self.relu(self.bn0_2(self.conv0_2(x)))
        x = self.relu(self.bn1(self.conv1(self.layer1(self.maxpool1(x)))))
        x = self.relu(self.bn2(self.conv2(self.layer2(self.maxpool2(x)))))
        x = self.relu(self.bn3(self.conv3(self.layer3(self.maxpool3(x)))))
        x = self.relu(self.bn4_1(self.conv4_1(self.layer4(x))))
        return self.relu(self.bn4_2(self.conv4_2(x)))


class Attention(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.attention_cell = AttentionCell(input_size, hidden_size, num_classes)
        self.hidden_size = hidden_size
        self.num_classes = num_classes
        self.generator = nn.Linear(hidden_size, num_classes)

    def _char_to_onehot(self, input_char, onehot_dim):
        input_char = input_char.unsqueeze(1)
        one_hot = torch.FloatTensor(input_char.size(0), onehot_dim).zero_()
        return one_hot.scatter_(1, input_char, 1)

    def forward(self, batch_H, text, is_train=True, batch_max_length=25):
        batch_size = batch_H.size(0)
        num_steps = batch_max_length + 1
        output_hiddens = torch.FloatTensor(batch_size, num_steps, self.hidden_size).fill_(0)
        hidden = (torch.FloatTensor(batch_size, self.hidden_size).fill_(0),
                  torch.FloatTensor(batch_size, self.hidden_size).fill_(0))
        if is_train:
            for i in range(num_steps):
                char_onehots = self._char_to_onehot(text[:, i], onehot_dim=self.num_classes)
                hidden, alpha = self.attention_cell(hidden, batch_H, char_onehots)
                output_hiddens[:, i, :] = hidden[0]
            return self.generator(output_hiddens)
        targets = torch.LongTensor(batch_size).fill_(0)
        probs = torch.FloatTensor(batch_size, num_steps, self.num_classes).fill_(0)
        for i in range(num_steps):
            char_onehots = self._char_to_onehot(targets, onehot_dim=self.num_classes)
            hidden, alpha = self.attention_cell(hidden, batch_H, char_onehots)
            probs_step = self.generator(hidden[0])
            probs[:, i, :] = probs_step
            _, targets = probs_step.max(1)
        return probs


class AttentionCell(nn.Module):
    def __init__(self, input_size, hidden_size, num_embeddings):
        super().__init__()
        self.i2h = nn.Linear(input_size, hidden_size, bias=False)
        self.h2h = nn.Linear(hidden_size, hidden_size)
        self.score = nn.Linear(hidden_size, 1, bias=False)
        self.rnn = nn.LSTMCell(input_size + num_embeddings, hidden_size)
        self.hidden_size = hidden_size

    def forward(self, prev_hidden, batch_H, char_onehots):
        batch_H_proj = self.i2h(batch_H)
        prev_hidden_proj = self.h2h(prev_hidden[0]).unsqueeze(1)
        e = self.score(torch.tanh(batch_H_proj + prev_hidden_proj))
        alpha = F.softmax(e, dim=1)
        context = torch.bmm(alpha.permute(0, 2, 1), batch_H).squeeze(1)
        concat_context = torch.cat([context, char_onehots], 1)
        cur_hidden = self.rnn(concat_context, prev_hidden)
        return cur_hidden, alpha


class Model(nn.Module):
    """EasyOCR's Model: opt's Transformation, FeatureExtraction, SequenceModeling and Prediction."""

    def __init__(self, opt):
        super().__init__()
        self.opt = opt
        if opt.Transformation == 'TPS':
            self.Transformation = TPS_SpatialTransformerNetwork(
                F=opt.num_fiducial, I_size=(opt.imgH, opt.imgW), I_r_size=(opt.imgH, opt.imgW),
                I_channel_num=opt.input_channel)
        extractors = {'VGG': VGG_FeatureExtractor, 'RCNN': RCNN_FeatureExtractor, 'ResNet': ResNet_FeatureExtractor}
        self.FeatureExtraction = extractors[opt.FeatureExtraction](opt.input_channel, opt.output_channel)
        self.AdaptiveAvgPool = nn.AdaptiveAvgPool2d((None, 1))
        sequence_output = opt.output_channel
        if opt.SequenceModeling == 'BiLSTM':
            self.SequenceModeling = nn.Sequential(
                BidirectionalLSTM(opt.output_channel, opt.hidden_size, opt.hidden_size),
                BidirectionalLSTM(opt.hidden_size, opt.hidden_size, opt.hidden_size))
            sequence_output = opt.hidden_size
        if opt.Prediction == 'CTC':
            self.Prediction = nn.Linear(sequence_output, opt.num_class)
        else:
            self.Prediction = Attention(sequence_output, opt.hidden_size, opt.num_class)

    def forward(self, input, text=None, is_train=True):
        if self.opt.Transformation == 'TPS':
            input = self.Transformation(input)
        visual = self.AdaptiveAvgPool(self.FeatureExtraction(input).permute(0, 3, 1, 2)).squeeze(3)
        contextual = self.SequenceModeling(visual) if self.opt.SequenceModeling == 'BiLSTM' else visual
        if self.opt.Prediction == 'CTC':
            return self.Prediction(contextual.contiguous())
        return self.Prediction(contextual.contiguous(), text, is_train, batch_max_length=self.opt.batch_max_length)


class Options:
    def __init__(self, stages, input_channel=1, output_channel=256, hidden_size=256, num_class=97, imgH=32,
                 imgW=100, num_fiducial=20, batch_max_length=25):
        self.Transformation, self.FeatureExtraction, self.SequenceModeling, self.Prediction = stages.split('-')
        self.input_channel, self.output_channel, self.hidden_size = input_channel, output_channel, hidden_size
        self.num_class, self.imgH, self.imgW = num_class, imgH, imgW
        self.num_fiducial, self.batch_max_length = num_fiducial, batch_max_length


# The stage combinations tests/test_ocr_recognizers.cpp checks: every option of each stage once.
RECOGNIZERS = ['TPS-ResNet-BiLSTM-Attn', 'None-RCNN-None-CTC', 'None-ResNet-None-CTC', 'TPS-VGG-BiLSTM-CTC',
               'None-VGG-None-Attn']


def randomize_norms(model):
    """Running statistics and affine parameters away from their defaults, so each norm is checked."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.running_mean.uniform_(-0.1, 0.1)
                module.running_var.uniform_(0.5, 1.5)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.1, 0.1)


def small_options(stages):
    return Options(stages, output_channel=64, hidden_size=32, num_class=12, num_fiducial=8, batch_max_length=6)


def load_ours(stages, weights_path, out_path):
    """EasyOCR's Model reads a state dict trainer wrote, strictly, and computes its logits."""
    saved = torch.load(weights_path)
    opt = small_options(stages)
    model = nn.DataParallel(Model(opt))
    model.load_state_dict({"module." + key: value for key, value in saved["state_dict"].items()}, strict=True)
    model.eval()
    with torch.no_grad():
        text = torch.zeros(saved["input"].size(0), opt.batch_max_length + 1, dtype=torch.long)
        torch.save({"logits": model.module(saved["input"], text, is_train=False)}, out_path)


def write_recognizer(out_dir, stages):
    """A small recognizer of these stages (output_channel 64, hidden_size 32, 12 classes, 8 fiducial
    points, 6 characters) on a 2 x 1 x 32 x 100 input."""
    torch.manual_seed(1)
    opt = small_options(stages)
    model = Model(opt).eval()
    randomize_norms(model)
    if opt.Transformation == 'TPS':
        with torch.no_grad():
            # Fiducial points that move with the input, not only RARE's initial ones, and reach past
            # the line's edges, so that grid_sample's border padding is exercised (11 % of the grid).
            fc2 = model.Transformation.LocalizationNetwork.localization_fc2
            fc2.weight.normal_(0, 0.05)
            fc2.bias.mul_(1.25)
    full = Model(Options(stages, output_channel=512, num_class=97 + (1 if opt.Prediction == 'Attn' else 0)))
    batch = torch.randn(2, 1, 32, 100)
    record = {"input": batch, "parameters": sum(p.numel() for p in full.parameters())}
    with torch.no_grad():
        if opt.Transformation == 'TPS':
            record["rectified"] = model.Transformation(batch)
        record["logits"] = model(batch, torch.zeros(2, opt.batch_max_length + 1, dtype=torch.long), is_train=False)
        if opt.Prediction == 'Attn':
            # [GO] 'c3 c7 c2' [s] [GO]...: EasyOCR's AttnLabelConverter's layout, read without its last column.
            text = torch.tensor([[0, 4, 8, 3, 1, 0, 0, 0], [0, 11, 1, 0, 0, 0, 0, 0]])
            record["text"] = text
            record["teacher_logits"] = model(batch, text[:, :-1], is_train=True)
    state = model.state_dict()
    record.update({"state_dict": dict(state), "keys": list(state.keys())})
    torch.save(record, os.path.join(out_dir, stages + ".pt"))
    torch.save(nn.DataParallel(model).state_dict(), os.path.join(out_dir, stages + ".pth"))


def main(out_dir):
    torch.manual_seed(0)
    model = Model(Options('None-VGG-BiLSTM-CTC')).eval()
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
    for stages in RECOGNIZERS:
        write_recognizer(out_dir, stages)


if __name__ == "__main__":
    if sys.argv[1] == "load":
        load_ours(*sys.argv[2:5])
    else:
        main(sys.argv[1])
