#include "config/foreign_keys.h"

#include "config/timm_flags.h"

namespace trainer {
namespace {

constexpr ForeignTool kUltralytics = ForeignTool::ultralytics;
constexpr ForeignTool kEasyOcr = ForeignTool::easyocr;
constexpr ForeignTool kTimm = ForeignTool::timm;

// A key with no counterpart here, refused with `reason` except at `inert_values`.
ForeignSpelling refused(ForeignTool tool, std::string name, std::string reason, std::vector<std::string> inert_values) {
  return {std::move(name), tool, ForeignMeaning::different, std::move(reason), std::move(inert_values), {}};
}

// Every key of Ultralytics' default.yaml (8.0 to 8.3) and of an Ultralytics run's args.yaml that
// has no key here, each accepted at the value(s) that ask for nothing: its default in those
// releases. The keys with a counterpart are in the rows of the key table.
std::vector<ForeignSpelling> ultralytics_keys() {
  const std::string no_segment_pose = "segmentation and pose are not trained here (tasks: classify, detect, ocr)";
  const std::string no_video = "predict reads images; video sources are not read";
  const std::string no_export_format =
      "export's options belong to trainer export (format=onnx with imgsz, batch, dynamic, half, opset and simplify; "
      "docs/export.md), not to a training recipe; TorchScript, TensorRT and the other formats are not offered";
  const std::string predict_output =
      "predict prints every box with its confidence on stdout and writes annotated images and predictions.json to "
      "runs/detect/predict/, always with boxes, class names and confidences";
  return {
      refused(kUltralytics, "weights",
              "train starts from a file with pretrained=PATH (or model=yolov8n.pt); val and predict take --weights "
              "PATH or model=PATH, export --weights PATH",
              {}),
      refused(kUltralytics, "mode", "the mode is the command here: trainer train, val, predict or export", {"train"}),
      refused(kUltralytics, "time", "training length is epochs; no wall-clock budget is offered", {""}),
      refused(kUltralytics, "save", "last.pt and best.pt are always saved; save_period and save_interval add more",
              {"true"}),
      refused(kUltralytics, "verbose", "output is verbose unless -q/--quiet is given", {"true"}),
      refused(kUltralytics, "rect",
              "Ultralytics' rectangular batches are not offered: every image is letterboxed to imgsz, so input shapes "
              "stay fixed for CUDA graphs",
              {"false"}),
      refused(kUltralytics, "profile", "ONNX and TensorRT speeds are not profiled during training", {"false"}),
      refused(kUltralytics, "multi_scale",
              "multi-scale training is not offered: inputs keep imgsz, so shapes stay fixed for CUDA graphs",
              {"false", "0"}),
      refused(kUltralytics, "overlap_mask", no_segment_pose, {"true"}),
      refused(kUltralytics, "mask_ratio", no_segment_pose, {"4"}),
      refused(kUltralytics, "split",
              "validation reads the data's val split; validating on test or train is not offered", {"val"}),
      refused(kUltralytics, "save_json", "COCO JSON results are not written; predict writes predictions.json",
              {"false"}),
      refused(kUltralytics, "save_hybrid", "hybrid labels (labels plus predictions) are not written", {"false"}),
      refused(kUltralytics, "half", "export writes half-precision weights with --half; training uses amp=fp16",
              {"false"}),
      refused(kUltralytics, "dnn",
              "predict and val run an exported .onnx file in OpenCV's DNN module and a checkpoint in LibTorch, "
              "whatever this key says: it chooses nothing here",
              {"false"}),
      refused(kUltralytics, "fuse",
              "convolutions and batch norms are not fused for validation (an inference speed-up; the results are the "
              "same)",
              {"true"}),
      refused(kUltralytics, "source", "source= names predict's images; other commands take none", {""}),
      refused(kUltralytics, "vid_stride", no_video, {"1"}),
      refused(kUltralytics, "stream_buffer", no_video, {"false"}),
      refused(kUltralytics, "save_frames", no_video, {"false"}),
      refused(kUltralytics, "visualize", "feature maps are not drawn", {"false"}),
      refused(kUltralytics, "augment", "test-time augmentation is not offered", {"false"}),
      refused(kUltralytics, "agnostic_nms", "NMS runs per class (class-aware), as in Ultralytics' default", {"false"}),
      refused(kUltralytics, "classes", "predict keeps every class; no class filter is offered", {""}),
      refused(kUltralytics, "retina_masks", no_segment_pose, {"false"}),
      refused(kUltralytics, "embed", "feature embeddings are not returned", {""}),
      refused(kUltralytics, "show", "no window is opened; " + predict_output, {"false"}),
      refused(kUltralytics, "save_txt", predict_output, {"false"}),
      refused(kUltralytics, "save_conf", predict_output, {"false"}),
      refused(kUltralytics, "save_crop", "crops of the detections are not written", {"false"}),
      refused(kUltralytics, "show_labels", predict_output, {"true"}),
      refused(kUltralytics, "show_conf", predict_output, {"true"}),
      refused(kUltralytics, "show_boxes", predict_output, {"true"}),
      refused(kUltralytics, "line_width", "box lines are drawn at a width that follows the image size", {""}),
      refused(kUltralytics, "format", no_export_format, {"torchscript"}),
      refused(kUltralytics, "keras", no_export_format, {"false"}),
      refused(kUltralytics, "optimize", no_export_format, {"false"}),
      refused(kUltralytics, "int8", no_export_format, {"false"}),
      refused(kUltralytics, "dynamic", no_export_format, {"false"}),
      refused(kUltralytics, "simplify", no_export_format, {"true", "false"}),
      refused(kUltralytics, "opset", no_export_format, {""}),
      refused(kUltralytics, "workspace", no_export_format, {"", "4"}),
      refused(kUltralytics, "nms", no_export_format, {"false"}),
      refused(kUltralytics, "pose", no_segment_pose, {"12"}),
      refused(kUltralytics, "kobj", no_segment_pose, {"1"}),
      refused(kUltralytics, "bgr", "the RGB/BGR channel-swap augmentation is not offered", {"0"}),
      refused(kUltralytics, "copy_paste", no_segment_pose, {"0"}),
      refused(kUltralytics, "copy_paste_mode", no_segment_pose, {"flip"}),
      refused(kUltralytics, "cfg", "a recipe file is given with --config FILE", {""}),
      refused(kUltralytics, "tracker", "tracking is not offered; the tracker file is not read", {"*"}),
      refused(kUltralytics, "save_dir",
              "an Ultralytics run's args.yaml records its folder here; the run folder is <project>/<task>/<name>",
              {"*"}),
      // Keys of the 8.0 releases, later renamed or removed.
      refused(kUltralytics, "image_weights", "weighted image selection is not offered", {"false"}),
      refused(kUltralytics, "hide_labels", predict_output, {"false"}),
      refused(kUltralytics, "hide_conf", predict_output, {"false"}),
      refused(kUltralytics, "line_thickness", "box lines are drawn at a width that follows the image size", {"3"}),
      refused(kUltralytics, "boxes", no_segment_pose, {"true"}),
      refused(kUltralytics, "fl_gamma", "the classification loss is plain BCE (no focal loss), as in YOLOv8", {"0"}),
      refused(kUltralytics, "v5loader", "the YOLOv5 data loader is not offered", {"false"}),
  };
}

// EasyOCR's trainer options (trainer/train.py, its config files) with no key here. The keys
// with a counterpart are in the rows of the key table.
std::vector<ForeignSpelling> easyocr_keys() {
  const std::string architecture =
      "EasyOCR's None-VGG-BiLSTM-CTC recognizer (model=crnn) is the one offered; TPS, RCNN, ResNet and Attn are not";
  return {
      refused(kEasyOcr, "FT",
              "pretrained weights always load leniently: a tensor whose shape differs (the Prediction head of another "
              "character set) is skipped and named, as EasyOCR's FT: True",
              {"*"}),
      refused(kEasyOcr, "new_prediction",
              "a Prediction head for another character set is replaced by a freshly initialised one on its own", {"*"}),
      refused(kEasyOcr, "PAD",
              "text lines always keep their aspect and are padded on the right to the batch's width bucket (EasyOCR's "
              "PAD: True); stretching to imgW is not offered",
              {"true"}),
      refused(kEasyOcr, "input_channel", "the input channels follow rgb: 1 grey, 3 with rgb: true", {"1", "3"}),
      refused(kEasyOcr, "decode", "CTC output is decoded greedily; beam search is not offered", {"greedy"}),
      refused(kEasyOcr, "Transformation", architecture, {"none"}),
      refused(kEasyOcr, "FeatureExtraction", architecture, {"vgg"}),
      refused(kEasyOcr, "SequenceModeling", architecture, {"bilstm"}),
      refused(kEasyOcr, "Prediction", architecture, {"ctc"}),
      refused(kEasyOcr, "num_fiducial", "used by the TPS transformation only, which is not offered", {"*"}),
  };
}

// timm's train.py flags with no key here (those with one are spellings on its row).
std::vector<ForeignSpelling> timm_keys() {
  return {
      refused(kTimm, "num_classes", "the class count is the number of class folders in the data", {}),
      refused(kTimm, "warmup_lr",
              "warmup ramps the learning rate up linearly (biases down from warmup_bias_lr) over warmup_epochs or "
              "warmup_updates, as in Ultralytics",
              {}),
      refused(kTimm, "aug_splits", "augmentation splits (AugMix's clean + augmented copies) are not offered", {}),
      refused(kTimm, "resplit", "augmentation splits are not offered, so there is no clean split to spare from erasing",
              {}),
      refused(kTimm, "jsd_loss", "the Jensen-Shannon divergence loss needs augmentation splits, which are not offered",
              {}),
      refused(kTimm, "jsd", "timm's --jsd is --jsd-loss: the Jensen-Shannon divergence loss is not offered", {}),
      refused(kTimm, "drop_path", "stochastic depth is not offered", {}),
      refused(kTimm, "log_interval", "progress is printed as training goes; there is no logging interval", {}),
  };
}

}  // namespace

const std::vector<std::string>& tool_file_keys(ForeignTool tool) {
  static const std::vector<std::string> ultralytics = {"task",
                                                       "mode",
                                                       "model",
                                                       "data",
                                                       "epochs",
                                                       "time",
                                                       "patience",
                                                       "batch",
                                                       "imgsz",
                                                       "save",
                                                       "save_period",
                                                       "cache",
                                                       "device",
                                                       "workers",
                                                       "project",
                                                       "name",
                                                       "exist_ok",
                                                       "pretrained",
                                                       "optimizer",
                                                       "verbose",
                                                       "seed",
                                                       "deterministic",
                                                       "single_cls",
                                                       "rect",
                                                       "cos_lr",
                                                       "close_mosaic",
                                                       "resume",
                                                       "amp",
                                                       "fraction",
                                                       "profile",
                                                       "freeze",
                                                       "multi_scale",
                                                       "overlap_mask",
                                                       "mask_ratio",
                                                       "dropout",
                                                       "val",
                                                       "split",
                                                       "save_json",
                                                       "save_hybrid",
                                                       "conf",
                                                       "iou",
                                                       "max_det",
                                                       "half",
                                                       "dnn",
                                                       "fuse",
                                                       "plots",
                                                       "source",
                                                       "vid_stride",
                                                       "stream_buffer",
                                                       "visualize",
                                                       "augment",
                                                       "agnostic_nms",
                                                       "classes",
                                                       "retina_masks",
                                                       "embed",
                                                       "show",
                                                       "save_frames",
                                                       "save_txt",
                                                       "save_conf",
                                                       "save_crop",
                                                       "show_labels",
                                                       "show_conf",
                                                       "show_boxes",
                                                       "line_width",
                                                       "format",
                                                       "keras",
                                                       "optimize",
                                                       "int8",
                                                       "dynamic",
                                                       "simplify",
                                                       "opset",
                                                       "workspace",
                                                       "nms",
                                                       "lr0",
                                                       "lrf",
                                                       "momentum",
                                                       "weight_decay",
                                                       "warmup_epochs",
                                                       "warmup_momentum",
                                                       "warmup_bias_lr",
                                                       "box",
                                                       "cls",
                                                       "dfl",
                                                       "pose",
                                                       "kobj",
                                                       "label_smoothing",
                                                       "nbs",
                                                       "hsv_h",
                                                       "hsv_s",
                                                       "hsv_v",
                                                       "degrees",
                                                       "translate",
                                                       "scale",
                                                       "shear",
                                                       "perspective",
                                                       "flipud",
                                                       "fliplr",
                                                       "bgr",
                                                       "mosaic",
                                                       "mixup",
                                                       "copy_paste",
                                                       "copy_paste_mode",
                                                       "auto_augment",
                                                       "erasing",
                                                       "crop_fraction",
                                                       "cfg",
                                                       "tracker",
                                                       "save_dir",
                                                       "image_weights",
                                                       "hide_labels",
                                                       "hide_conf",
                                                       "line_thickness",
                                                       "boxes",
                                                       "fl_gamma",
                                                       "v5loader"};
  static const std::vector<std::string> easyocr = {"number",
                                                   "symbol",
                                                   "lang_char",
                                                   "experiment_name",
                                                   "train_data",
                                                   "valid_data",
                                                   "manualSeed",
                                                   "workers",
                                                   "batch_size",
                                                   "num_iter",
                                                   "valInterval",
                                                   "saved_model",
                                                   "FT",
                                                   "optim",
                                                   "lr",
                                                   "beta1",
                                                   "rho",
                                                   "eps",
                                                   "grad_clip",
                                                   "select_data",
                                                   "batch_ratio",
                                                   "total_data_usage_ratio",
                                                   "batch_max_length",
                                                   "imgH",
                                                   "imgW",
                                                   "rgb",
                                                   "contrast_adjust",
                                                   "sensitive",
                                                   "PAD",
                                                   "data_filtering_off",
                                                   "Transformation",
                                                   "FeatureExtraction",
                                                   "SequenceModeling",
                                                   "Prediction",
                                                   "num_fiducial",
                                                   "input_channel",
                                                   "output_channel",
                                                   "hidden_size",
                                                   "decode",
                                                   "new_prediction",
                                                   "freeze_FeatureFxtraction",
                                                   "freeze_SequenceModeling"};
  static const std::vector<std::string> none;
  switch (tool) {
    case ForeignTool::ultralytics:
      return ultralytics;
    case ForeignTool::easyocr:
      return easyocr;
    case ForeignTool::timm:
      return timm_flag_order();
  }
  return none;
}

const std::vector<ForeignSpelling>& keys_without_counterpart() {
  static const std::vector<ForeignSpelling> spellings = [] {
    std::vector<ForeignSpelling> all = ultralytics_keys();
    for (auto& spelling : easyocr_keys()) all.push_back(std::move(spelling));
    for (auto& spelling : timm_keys()) all.push_back(std::move(spelling));
    return all;
  }();
  return spellings;
}

}  // namespace trainer
