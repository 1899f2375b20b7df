// A start-up guard against a LibTorch whose oneDNN computes wrong convolution gradients on this
// CPU. Debian trixie's LibTorch 2.6 (oneDNN 3.7.2) is one, on the AVX-512 AMD EPYC machine we have:
// its AVX-512 backward pass gets the input gradient of layers with 4 or 8 output channels wrong
// (by 25-80 %, now and then as NaN). Capped at AVX2 (ONEDNN_MAX_CPU_ISA) it is right from 8 output
// channels up, at SSE4.1 for 4 too; LibTorch 1.13 is right throughout (docs/training.md,
// "LibTorch 2.x on a CPU", and scripts/python/onednn_conv_check.py).
#pragma once

namespace trainer {

// Whether oneDNN (LibTorch's CPU convolution path) and ATen's own kernels give the same input and
// weight gradients for a 3x3 layer of 4 to 8 channels, computed on one thread. Leaves the thread
// count, the oneDNN switch and the random generators as they were. True where oneDNN is off.
bool onednn_convolution_gradients_agree();

// Call first in main, before anything else runs a convolution: the variable is read when
// oneDNN is first used. Where the check fails and ONEDNN_MAX_CPU_ISA is unset, this runs the
// program again (same arguments, warning first) with it set to AVX2, and so does not return; where
// it fails with the variable set, a UserError.
void use_correct_onednn(char** argv);

}  // namespace trainer
