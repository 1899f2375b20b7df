#include "config/timm_flags.h"

namespace trainer {
namespace {

using TimmRow = std::pair<std::string, ForeignSpelling>;

// The flag means what `key` means here: accepted as that key, with an info line.
TimmRow same(std::string flag, std::string key, std::string note = "") {
  return {std::move(key), {std::move(flag), ForeignTool::timm, ForeignMeaning::same, std::move(note), {}, {}}};
}

// The flag asks for something that differs here (or that is not offered): refused with `reason`.
// `key` is ours nearest to it, "" where there is none.
TimmRow refused(std::string flag, std::string key, std::string reason) {
  return {std::move(key), {std::move(flag), ForeignTool::timm, ForeignMeaning::different, std::move(reason), {}, {}}};
}

}  // namespace

// Meanings and defaults as train.py's argparse groups state them.
const std::vector<TimmRow>& timm_spellings() {
  static const std::vector<TimmRow> rows = {
      // Dataset and model.
      same("data_dir", "data", "an ImageFolder root with train/ and validation/ (or val/) class folders"),
      refused("train_split", "data", "the training split is the data root's train/ folder"),
      refused("val_split", "data", "the validation split is the data root's validation/ or val/ folder"),
      refused("num_classes", "", "the class count is the number of class folders in the data"),
      same("initial_checkpoint", "pretrained", "the weights to start from"),
      same("img_size", "imgsz"),
      refused("input_size", "imgsz",
              "--input-size C H W is imgsz=H here: inputs are square, channels come from the data"),
      same("crop_pct", "crop_fraction", "the validation centre crop"),
      same("batch_size", "batch", "per process, as in timm"),
      same("grad_accum_steps", "accumulate"),
      refused("channels_last", "compile",
              "the memory layout follows compile: channels-last under AMP on CUDA in the default mode"),
      refused("amp_dtype", "amp", "the AMP dtype is the value of amp here: amp=fp16 or amp=bf16"),
      // Optimizer and schedule.
      same("opt", "optimizer",
           "sgd (with Nesterov momentum, as timm's sgd), adam, adamw and adadelta are shared; timm's other optimizers "
           "are not offered"),
      same("opt_eps", "eps", "the term added to the denominator of Adam, AdamW and Adadelta"),
      same("clip_grad", "grad_clip", "the total L2 norm, timm's --clip-mode norm"),
      same("sched", "scheduler",
           "cosine is shared (timm ends at --min-lr, here at lr0 × lrf); step, multistep, plateau, tanh and poly are "
           "not offered"),
      same("lr", "lr0",
           "the learning rate itself while lr_scale=none; optimizer=auto picks its own, so give --opt sgd, timm's "
           "default"),
      refused("min_lr", "lrf",
              "timm's --min-lr is an absolute learning rate; lrf is the final one as a fraction of lr0 "
              "(min-lr / lr)"),
      refused("warmup_lr", "",
              "warmup ramps the learning rate up linearly (biases down from warmup_bias_lr) over warmup_epochs or "
              "warmup_updates, as in Ultralytics"),
      refused("decay_epochs", "scheduler",
              "step decay is not offered: scheduler is linear, cosine, onecycle or constant"),
      refused("decay_rate", "scheduler",
              "step decay is not offered: scheduler is linear, cosine, onecycle or constant"),
      refused("dr", "scheduler", "timm's --dr is --decay-rate: step decay is not offered"),
      refused("lr_noise", "scheduler", "learning-rate noise is not offered"),
      // Augmentation and regularisation.
      same("hflip", "fliplr"),
      refused("vflip", "flipud", "classification has no vertical flip here; flipud is detection's"),
      refused("color_jitter", "hsv_v",
              "timm's --color-jitter X is hsv_v=X hsv_s=X hsv_h=0 here (brightness, contrast and saturation; without "
              "auto_augment, as in timm)"),
      refused("aa", "auto_augment",
              "timm's --aa is auto_augment here (randaugment, autoaugment, trivialaugment), with randaugment_ops and "
              "randaugment_magnitude for rand-mM-nN"),
      same("reprob", "erasing", "the box gets the dataset's mean colour, timm's --remode const"),
      refused(
          "remode", "erasing",
          "erasing fills its box with the dataset's mean colour (timm's const); pixel and rand noise are not offered"),
      refused("recount", "erasing", "erasing cuts one box per image (timm's --recount 1)"),
      same("cutmix", "cutmix_alpha"),
      same("smoothing", "label_smoothing", "timm's default is 0.1, ours 0"),
      refused("aug_splits", "", "augmentation splits (AugMix's clean + augmented copies) are not offered"),
      refused("resplit", "", "augmentation splits are not offered, so there is no clean split to spare from erasing"),
      refused("jsd_loss", "", "the Jensen-Shannon divergence loss needs augmentation splits, which are not offered"),
      refused("jsd", "", "timm's --jsd is --jsd-loss: the Jensen-Shannon divergence loss is not offered"),
      refused("split_bn", "norm", "BatchNorm per augmentation split is not offered (augmentation splits are not)"),
      refused("drop", "dropout", "classifier dropout is not offered; dropout is the CRNN's"),
      refused("drop_path", "", "stochastic depth is not offered"),
      refused("sync_bn", "norm", "synchronised BatchNorm is norm=sync_bn here"),
      refused("dist_bn", "norm",
              "BatchNorm statistics are not averaged across ranks after each epoch; norm=sync_bn pools them at every "
              "step"),
      // EMA and the run.
      same("model_ema", "ema", "on by default here"),
      same("model_ema_decay", "ema_decay",
           "reached through a ramp over ema_tau updates, like timm's --model-ema-warmup"),
      same("output", "project", "runs go to <output>/<task>/<name>"),
      same("experiment", "name"),
      refused("log_interval", "", "progress is printed as training goes; there is no logging interval"),
      refused("checkpoint_hist", "save_period",
              "only last.pt and best.pt are kept; save_period=N adds epoch<N>.pt every N epochs"),
  };
  return rows;
}

const std::vector<SharedFlagName>& timm_flags_named_like_our_keys() {
  static const std::vector<SharedFlagName> flags = {
      {"model", "resnet18, resnet34, resnet50 of timm's names (torchvision's weights layout)"},
      {"pretrained", "timm's bare --pretrained downloads weights; nothing is downloaded here: --pretrained PATH"},
      {"resume", ""},
      {"epochs", "timm's default is 300, ours 10"},
      {"warmup_epochs", "timm's default is 5, ours 3"},
      {"momentum", "timm's default is 0.9, ours 0.937"},
      {"weight_decay", "scaled here by effective batch / nbs (Ultralytics' rule); timm applies it as given"},
      {"amp", "bare --amp is amp=true: fp16 on CUDA, fp32 on CPU"},
      {"mixup", "detection's MixUp probability here (it warns on classification); timm's --mixup is mixup_alpha"},
      {"mixup_prob", ""},
      {"mixup_switch_prob", ""},
      {"scale", "one number here (the crop keeps [1 − scale, 1] of the area); timm's --scale 0.08 1.0 is scale=0.92"},
      {"seed", "timm's default is 42, ours 0"},
      {"workers", "also -j N, as in timm"},
  };
  return flags;
}

}  // namespace trainer
