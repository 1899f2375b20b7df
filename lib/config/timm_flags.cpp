#include "config/timm_flags.h"

namespace trainer {

// As train.py's argparse groups list them.
const std::vector<std::string>& timm_flag_order() {
  static const std::vector<std::string> flags = {
      // Dataset and model.
      "data_dir", "train_split", "val_split", "num_classes", "initial_checkpoint", "img_size", "input_size",
      "crop_pct", "batch_size", "validation_batch_size", "grad_accum_steps", "channels_last", "amp_dtype",
      // Optimizer and schedule.
      "opt", "opt_eps", "clip_grad", "sched", "lr", "lr_base", "lr_base_size", "lr_base_scale", "dr", "lr_noise",
      "warmup_prefix",
      // Augmentation and regularisation.
      "hflip", "vflip", "color_jitter", "aa", "reprob", "remode", "recount", "cutmix", "mixup_mode", "mixup_off_epoch", "smoothing", "aug_splits",
      "resplit", "jsd_loss", "jsd", "split_bn", "drop", "drop_path", "sync_bn", "dist_bn",
      // EMA and the run.
      "model_ema", "model_ema_decay", "output", "experiment", "log_interval", "checkpoint_hist", "native_amp",
      "apex_amp", "pin_mem",
      // Named like our keys.
      "model", "pretrained", "resume", "epochs", "sched_on_updates", "min_lr", "warmup_lr", "decay_epochs",
      "decay_milestones", "decay_rate", "warmup_epochs", "cooldown_epochs", "momentum", "weight_decay", "amp", "mixup",
      "mixup_prob", "mixup_switch_prob", "scale", "seed", "workers",
  };
  return flags;
}

}  // namespace trainer
