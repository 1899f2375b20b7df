// A start-up guard against a LibTorch whose oneDNN computes wrong convolution gradients on this
// CPU. Debian trixie's LibTorch 2.6 (oneDNN 3.7.2) is one, on the AVX-512 AMD EPYC machine we have:
// its backward pass gets the input gradient of layers with 4 or 8 output channels wrong (by
// 25-80 %, now and then as NaN), and a ResNet18's gradients at batch 2 and 16 px. Capping its ISA
// (ONEDNN_MAX_CPU_ISA) moves the faults rather than removing them; ATen's own kernels are right,
// and so is LibTorch 1.13 (docs/training.md, "LibTorch 2.x on a CPU";
// scripts/python/onednn_conv_check.py).
#pragma once

namespace trainer {

// Whether oneDNN (LibTorch's CPU convolution path) and ATen's own kernels give the same input and
// weight gradients for a 3x3 layer of 4 to 8 channels, computed on one thread. Leaves the thread
// count, the oneDNN switch and the random generators as they were. True where oneDNN is off.
bool onednn_convolution_gradients_agree();

// Call in main before any model runs: where the check fails, switches oneDNN off for the process
// (convolutions then run on ATen's kernels) with a warning, and returns false.
bool use_correct_convolutions();

// What runs a CPU convolution in this process, for `trainer plan`: "oneDNN", or ATen's kernels
// and why.
const char* cpu_convolution_kernels();

}  // namespace trainer
