"""timm's RandAugment rules as reference data for tests/test_timm_rand_augment.cpp.

  timm_rand_augment_fixture.py OUTDIR

timm is not installed here, so the parts compared are written out from its
timm/data/auto_augment.py: the level-to-argument functions (LEVEL_TO_ARG) of the 15 ops of
_RAND_TRANSFORMS and of _RAND_INCREASING_TRANSFORMS, and its PIL ops whose arithmetic needs no
resampling (solarize_add, posterize, solarize, invert through PIL's ImageOps and Image.point).

Writes OUTDIR/levels.txt, one `list op level negate argument` line per case (list: plain or
increasing; negate: 1 when _randomly_negate negates; the argument as timm passes it to the op:
degrees, shear factor, translate fraction of the side, enhancement factor, bits, threshold or
amount), and OUTDIR/ops.pt, a dict of uint8 HWC tensors: "input" (a 23x17 RGB ramp covering
0..255) and "<op>.<argument>" for each PIL op applied to it.
"""
import os
import sys

import numpy as np
import torch
from PIL import Image, ImageOps

_LEVEL_DENOM = 10.0

PLAIN = ['AutoContrast', 'Equalize', 'Invert', 'Rotate', 'Posterize', 'Solarize', 'SolarizeAdd', 'Color',
         'Contrast', 'Brightness', 'Sharpness', 'ShearX', 'ShearY', 'TranslateXRel', 'TranslateYRel']
INCREASING = ['AutoContrast', 'Equalize', 'Invert', 'Rotate', 'PosterizeIncreasing', 'SolarizeIncreasing',
              'SolarizeAdd', 'ColorIncreasing', 'ContrastIncreasing', 'BrightnessIncreasing',
              'SharpnessIncreasing', 'ShearX', 'ShearY', 'TranslateXRel', 'TranslateYRel']


def negated(v, negate):
    return -v if negate else v


def level_to_arg(name, level, negate):
    if name in ('AutoContrast', 'Equalize', 'Invert'):
        return None
    if name == 'Rotate':
        return negated((level / _LEVEL_DENOM) * 30.0, negate)
    if name in ('ShearX', 'ShearY'):
        return negated((level / _LEVEL_DENOM) * 0.3, negate)
    if name in ('TranslateXRel', 'TranslateYRel'):
        return negated((level / _LEVEL_DENOM) * 0.45, negate)
    if name == 'Posterize':
        return int((level / _LEVEL_DENOM) * 4)
    if name == 'PosterizeIncreasing':
        return 4 - int((level / _LEVEL_DENOM) * 4)
    if name == 'Solarize':
        return int((level / _LEVEL_DENOM) * 256)
    if name == 'SolarizeIncreasing':
        return 256 - int((level / _LEVEL_DENOM) * 256)
    if name == 'SolarizeAdd':
        return int((level / _LEVEL_DENOM) * 110)
    if name.endswith('Increasing'):
        return max(0.1, 1.0 + negated((level / _LEVEL_DENOM) * .9, negate))
    return (level / _LEVEL_DENOM) * 1.8 + 0.1


def solarize_add(img, add, thresh=128):
    lut = [min(255, i + add) if i < thresh else i for i in range(256)]
    return img.point(lut + lut + lut)


def main(out_dir):
    lines = []
    for list_name, names in (('plain', PLAIN), ('increasing', INCREASING)):
        for name in names:
            for level in (0.0, 1.7, 4.5, 7.0, 9.0, 10.0):
                for negate in (0, 1):
                    arg = level_to_arg(name, level, negate)
                    lines.append(f"{list_name} {name} {level!r} {negate} {'none' if arg is None else repr(float(arg))}")
    with open(os.path.join(out_dir, 'levels.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')

    ramp = (np.arange(23 * 17 * 3, dtype=np.int64) * 37 % 256).astype(np.uint8).reshape(17, 23, 3)
    img = Image.fromarray(ramp, 'RGB')
    outputs = {'input': torch.from_numpy(ramp.copy())}
    for add in (0, 33, 110):
        outputs[f'solarize_add.{add}'] = torch.from_numpy(np.asarray(solarize_add(img, add)).copy())
    for bits in (0, 1, 3, 4):
        outputs[f'posterize.{bits}'] = torch.from_numpy(np.asarray(ImageOps.posterize(img, bits)).copy())
    for threshold in (0, 100, 256):
        outputs[f'solarize.{threshold}'] = torch.from_numpy(np.asarray(ImageOps.solarize(img, threshold)).copy())
    outputs['invert.0'] = torch.from_numpy(np.asarray(ImageOps.invert(img)).copy())
    torch.save(outputs, os.path.join(out_dir, 'ops.pt'))


if __name__ == '__main__':
    main(sys.argv[1])
