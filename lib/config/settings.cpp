#include "config/settings.h"

#include <sstream>

namespace trainer {

const char* to_string(TaskKind value) {
  switch (value) {
    case TaskKind::classify: return "classify";
    case TaskKind::ocr: return "ocr";
    case TaskKind::detect: return "detect";
  }
  return "?";
}

const char* to_string(OptimizerKind value) {
  switch (value) {
    case OptimizerKind::automatic: return "auto";
    case OptimizerKind::sgd: return "sgd";
    case OptimizerKind::adamw: return "adamw";
    case OptimizerKind::adam: return "adam";
    case OptimizerKind::adadelta: return "adadelta";
    case OptimizerKind::musgd: return "musgd";
    case OptimizerKind::rmsproptf: return "rmsproptf";
  }
  return "?";
}

const char* to_string(SchedulerKind value) {
  switch (value) {
    case SchedulerKind::linear: return "linear";
    case SchedulerKind::cosine: return "cosine";
    case SchedulerKind::onecycle: return "onecycle";
    case SchedulerKind::constant: return "constant";
    case SchedulerKind::step: return "step";
    case SchedulerKind::multistep: return "multistep";
  }
  return "?";
}

const char* to_string(AmpMode value) {
  switch (value) {
    case AmpMode::automatic: return "auto";
    case AmpMode::off: return "off";
    case AmpMode::fp16: return "fp16";
    case AmpMode::bf16: return "bf16";
  }
  return "?";
}

const char* to_string(CompileMode value) {
  switch (value) {
    case CompileMode::none: return "none";
    case CompileMode::standard: return "default";
    case CompileMode::reduce_overhead: return "reduce-overhead";
    case CompileMode::max_autotune: return "max-autotune";
  }
  return "?";
}

const char* to_string(ErasingMode value) {
  switch (value) {
    case ErasingMode::constant: return "const";
    case ErasingMode::rand: return "rand";
    case ErasingMode::pixel: return "pixel";
  }
  return "?";
}

const char* to_string(AutoAugmentPolicy value) {
  switch (value) {
    case AutoAugmentPolicy::none: return "none";
    case AutoAugmentPolicy::randaugment: return "randaugment";
    case AutoAugmentPolicy::autoaugment: return "autoaugment";
    case AutoAugmentPolicy::trivialaugment: return "trivialaugment";
    case AutoAugmentPolicy::timm_rand: return "rand";
  }
  return "?";
}

const char* to_string(ImageCacheMode value) {
  switch (value) {
    case ImageCacheMode::off: return "false";
    case ImageCacheMode::ram: return "ram";
    case ImageCacheMode::disk: return "disk";
  }
  return "?";
}

const char* to_string(NormKind value) {
  switch (value) {
    case NormKind::batch: return "bn";
    case NormKind::group: return "gn";
    case NormKind::frozen_batch: return "frozen_bn";
    case NormKind::sync_batch: return "syncbn";
  }
  return "?";
}

const char* to_string(DistBackend value) {
  switch (value) {
    case DistBackend::automatic: return "auto";
    case DistBackend::gloo: return "gloo";
    case DistBackend::nccl: return "nccl";
  }
  return "?";
}

// EasyOCR's own spellings, which its model.py compares case-sensitively.
const char* to_string(OcrTransformation value) {
  switch (value) {
    case OcrTransformation::none:
      return "None";
    case OcrTransformation::tps:
      return "TPS";
  }
  return "?";
}

const char* to_string(OcrFeatureExtraction value) {
  switch (value) {
    case OcrFeatureExtraction::vgg:
      return "VGG";
    case OcrFeatureExtraction::rcnn:
      return "RCNN";
    case OcrFeatureExtraction::resnet:
      return "ResNet";
  }
  return "?";
}

const char* to_string(OcrSequenceModeling value) {
  switch (value) {
    case OcrSequenceModeling::none:
      return "None";
    case OcrSequenceModeling::bilstm:
      return "BiLSTM";
  }
  return "?";
}

const char* to_string(OcrPrediction value) {
  switch (value) {
    case OcrPrediction::ctc:
      return "CTC";
    case OcrPrediction::attn:
      return "Attn";
  }
  return "?";
}

std::vector<int64_t> ocr_bucket_widths(const OcrSettings& ocr) {
  // TPS rectifies every line onto a grid of imgH x imgW, so lines are padded to imgW as EasyOCR
  // pads them; a narrower bucket would be stretched to imgW instead.
  if (ocr.transformation == OcrTransformation::tps) return {ocr.img_w};
  std::vector<int64_t> widths;
  if (!ocr.bucket_widths.empty()) {
    for (int64_t width : ocr.bucket_widths) {
      if (width < ocr.img_w) widths.push_back(width);
    }
  } else {
    for (int64_t width = ocr.bucket_step; width < ocr.img_w; width += ocr.bucket_step) widths.push_back(width);
  }
  widths.push_back(ocr.img_w);
  return widths;
}

std::string lr_scale_text(const ScheduleSettings& schedule) {
  switch (schedule.lr_scale) {
    case LrScaleRule::none: return "none";
    case LrScaleRule::linear: return "linear";
    case LrScaleRule::sqrt: return "sqrt";
    case LrScaleRule::factor: {
      std::ostringstream out;
      out << schedule.lr_scale_factor;
      return out.str();
    }
  }
  return "?";
}

}  // namespace trainer
