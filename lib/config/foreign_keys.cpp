#include "config/foreign_keys.h"

#include "config/timm_flags.h"

namespace trainer {
namespace {

constexpr ForeignTool kUltralytics = ForeignTool::ultralytics;
constexpr ForeignTool kEasyOcr = ForeignTool::easyocr;
constexpr ForeignTool kTimm = ForeignTool::timm;

// A key with no counterpart here, refused with `reason` except at `inert_values`.
ForeignSpelling refused(ForeignTool tool, std::string name, std::string reason, std::vector<std::string> inert_values) {
  return {std::move(name), tool, ForeignMeaning::different, std::move(reason), std::move(inert_values), {}, {}};
}

// A key that only `read_by` (a mode or task of the tool) reads: ignored at any value elsewhere,
// as the tool itself ignores it there.
ForeignSpelling read_only_by(ForeignTool tool, std::string name, std::string read_by, std::string note) {
  ForeignSpelling spelling = refused(tool, std::move(name), std::move(note), {"*"});
  spelling.read_by = std::move(read_by);
  return spelling;
}

// Every key of Ultralytics' default.yaml (8.0 to 8.4) and of an Ultralytics run's args.yaml that
// has no key here. A key another mode or task reads (predict's source, export's opset, pose's
// gain) is ignored at any value, as a training run of Ultralytics ignores it; a key that would
// change the training run is accepted only at the value(s) that ask for nothing, its default in
// those releases, and refused with the reason otherwise. The keys with a counterpart are in the
// rows of the key table.
std::vector<ForeignSpelling> ultralytics_keys() {
  const std::string predict_output =
      "predict prints every box with its confidence on stdout and writes annotated images and predictions.json to "
      "runs/detect/predict/, always with boxes, class names and confidences";
  const std::string export_options =
      "trainer export takes format=onnx with imgsz, batch, dynamic, half, opset and simplify (docs/export.md); "
      "TorchScript, TensorRT and the other formats are not offered";
  const std::string not_trained = "that task is not trained here (tasks: classify, detect, ocr)";
  const auto predict = [&](std::string name, std::string note) {
    return read_only_by(kUltralytics, std::move(name), "predict", std::move(note));
  };
  const auto exporting = [&](std::string name) { return read_only_by(kUltralytics, std::move(name), "export", export_options); };
  return {
      refused(kUltralytics, "weights",
              "train starts from a file with pretrained=PATH (or model=yolov8n.pt); val and predict take --weights "
              "PATH or model=PATH, export --weights PATH",
              {}),
      refused(kUltralytics, "mode", "the mode is the command here: trainer train, val, predict or export", {"train"}),
      refused(kUltralytics, "save",
              "last.pt and best.pt are always saved (save_period and save_interval add more); the run is the same",
              {"*"}),
      read_only_by(kUltralytics, "verbose", "log output",
                   "the run's output is the same either way; -q/--quiet keeps only warnings and errors"),
      refused(kUltralytics, "rect",
              "Ultralytics' rectangular batches are not offered: every image is letterboxed to imgsz, so input shapes "
              "stay fixed for CUDA graphs",
              {"false"}),
      refused(kUltralytics, "profile", "ONNX and TensorRT speeds are not profiled; the run is the same", {"*"}),
      refused(kUltralytics, "multi_scale",
              "multi-scale training (8.1–8.3: true; 8.4: a share of imgsz) is not offered: inputs keep imgsz, so "
              "shapes stay fixed for CUDA graphs",
              {"false", "0"}),
      read_only_by(kUltralytics, "overlap_mask", "segment", not_trained),
      read_only_by(kUltralytics, "mask_ratio", "segment", not_trained),
      read_only_by(kUltralytics, "split", "val",
                   "`yolo val`'s split; training validates on the data's val split, here as in Ultralytics"),
      read_only_by(kUltralytics, "save_json", "val", "COCO JSON results are not written; predict writes predictions.json"),
      read_only_by(kUltralytics, "save_hybrid", "val", "hybrid labels (labels plus predictions) are not written"),
      read_only_by(kUltralytics, "half", "val, predict and export",
                   "training validates under amp, as Ultralytics' trainer does whatever half says; trainer export "
                   "takes --half"),
      read_only_by(kUltralytics, "dnn", "val and predict",
                   "predict and val run an exported .onnx file in OpenCV's DNN module and a checkpoint in LibTorch"),
      read_only_by(kUltralytics, "fuse", "val and predict",
                   "convolutions and batch norms are not fused for validation (an inference speed-up; the results "
                   "are the same)"),
      predict("source", "source= names predict's images; other commands take none"),
      predict("vid_stride", "predict reads images; video sources are not read"),
      predict("stream_buffer", "predict reads images; video sources are not read"),
      predict("save_frames", "predict reads images; video sources are not read"),
      predict("visualize", "feature maps are not drawn"),
      predict("augment", "test-time augmentation is not offered"),
      refused(kUltralytics, "agnostic_nms",
              "NMS runs per class (class-aware), as in Ultralytics' default; class-agnostic NMS, which changes "
              "validation's metrics, is not offered",
              {"false"}),
      refused(kUltralytics, "classes",
              "training on a subset of the classes (Ultralytics drops the other classes' labels) is not offered; "
              "predict keeps every class",
              {""}),
      read_only_by(kUltralytics, "retina_masks", "segment", not_trained),
      predict("embed", "feature embeddings are not returned"),
      predict("show", "no window is opened; " + predict_output),
      predict("save_txt", predict_output),
      predict("save_conf", predict_output),
      predict("save_crop", "crops of the detections are not written"),
      predict("show_labels", predict_output),
      predict("show_conf", predict_output),
      predict("show_boxes", predict_output),
      predict("line_width", "box lines are drawn at a width that follows the image size"),
      exporting("format"),
      exporting("keras"),
      exporting("optimize"),
      exporting("int8"),
      exporting("dynamic"),
      exporting("simplify"),
      exporting("opset"),
      exporting("workspace"),
      exporting("nms"),
      refused(kUltralytics, "cls_pw",
              "class weights from the class frequencies (8.4) are not offered: every class weighs the same in the "
              "classification loss",
              {"0"}),
      read_only_by(kUltralytics, "pose", "pose", not_trained),
      read_only_by(kUltralytics, "kobj", "pose", not_trained),
      read_only_by(kUltralytics, "rle", "pose", not_trained),
      read_only_by(kUltralytics, "angle", "obb", not_trained),
      refused(kUltralytics, "bgr", "the RGB/BGR channel-swap augmentation is not offered", {"0"}),
      refused(kUltralytics, "cutmix", "detection's CutMix (8.3.1xx) is not offered; mixup and mosaic are", {"0"}),
      read_only_by(kUltralytics, "copy_paste", "segment", "copy-paste pastes segments; " + not_trained),
      read_only_by(kUltralytics, "copy_paste_mode", "segment", "copy-paste pastes segments; " + not_trained),
      refused(kUltralytics, "cfg", "a recipe file is given with --config FILE", {""}),
      read_only_by(kUltralytics, "tracker", "track", "tracking is not offered; the tracker file is not read"),
      refused(kUltralytics, "save_dir",
              "an Ultralytics run's args.yaml records its folder here; the run folder is <project>/<task>/<name>",
              {"*"}),
      // Keys of the later 8.4 releases (8.4.1xx args.yaml files hold them).
      refused(kUltralytics, "cls_remap",
              "a pretrained head for another class set starts fresh here (its rows are not remapped to the classes "
              "of the same name); the rest of the model loads as in Ultralytics",
              {"*"}),
      refused(kUltralytics, "channels_last",
              "the memory layout follows compile (channels-last under AMP on CUDA in the default mode); the run's "
              "result is the same",
              {"*"}),
      refused(kUltralytics, "distill_model", "knowledge distillation from a teacher model is not offered", {""}),
      read_only_by(kUltralytics, "dis", "distillation (distill_model)", "a distillation loss gain"),
      read_only_by(kUltralytics, "dlog", "distillation (distill_model)", "a distillation loss gain"),
      read_only_by(kUltralytics, "dgrad", "distillation (distill_model)", "a distillation loss gain"),
      read_only_by(kUltralytics, "dlam", "distillation (distill_model)", "a distillation loss gain"),
      // Keys of the 8.0 releases, later renamed or removed.
      refused(kUltralytics, "image_weights", "weighted image selection is not offered", {"false"}),
      predict("hide_labels", predict_output),
      predict("hide_conf", predict_output),
      predict("line_thickness", "box lines are drawn at a width that follows the image size"),
      predict("boxes", predict_output),
      refused(kUltralytics, "fl_gamma", "the classification loss is plain BCE (no focal loss), as in YOLOv8", {"0"}),
      refused(kUltralytics, "v5loader", "the YOLOv5 data loader is not offered", {"false"}),
  };
}

// EasyOCR's trainer options (trainer/train.py, its config files) with no key here. The keys
// with a counterpart are in the rows of the key table.
std::vector<ForeignSpelling> easyocr_keys() {
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
      // Keys of easyocr.Reader's model file (user_network/*.yaml) that people keep in the trainer's.
      read_only_by(kEasyOcr, "network_params", "Reader",
                   "the recognizer's sizes are input_channel, output_channel and hidden_size, as EasyOCR's trainer "
                   "reads them"),
      read_only_by(kEasyOcr, "lang_list", "Reader", "the trainer's languages are its characters"),
      read_only_by(kEasyOcr, "character_list", "Reader",
                   "the character set is number + symbol + lang_char, as EasyOCR's trainer builds it"),
  };
}

// timm's train.py flags with no key here (those with one are spellings on its row).
std::vector<ForeignSpelling> timm_keys() {
  return {
      refused(kTimm, "aug_splits", "augmentation splits (AugMix's clean + augmented copies) are not offered", {}),
      refused(kTimm, "resplit", "augmentation splits are not offered, so there is no clean split to spare from erasing",
              {}),
      refused(kTimm, "jsd_loss", "the Jensen-Shannon divergence loss needs augmentation splits, which are not offered",
              {}),
      refused(kTimm, "jsd", "timm's --jsd is --jsd-loss: the Jensen-Shannon divergence loss is not offered", {}),
      refused(kTimm, "warmup_prefix",
              "the schedule counts its epochs from the first, warmup included, as timm's default does", {"false"}),
      refused(kTimm, "mixup_mode",
              "one Beta draw per batch, each sample mixed with its mirror in the batch (timm's batch mode); pair and "
              "elem are not offered",
              {"batch"}),
      refused(kTimm, "mixup_off_epoch", "MixUp and CutMix stay on for the whole run", {"0"}),
      refused(kTimm, "apex_amp", "NVIDIA Apex is not used: --amp (amp=true) is PyTorch's own mixed precision",
              {"false"}),
      refused(kTimm, "log_interval", "progress is printed as training goes; there is no logging interval", {"*"}),
      refused(kTimm, "pin_mem", "batches reach the device as the loader hands them over; there is no pinning switch",
              {"*"}),
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
                                                       "cls_remap",
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
                                                       "compile",
                                                       "channels_last",
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
                                                       "end2end",
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
                                                       "distill_model",
                                                       "dis",
                                                       "box",
                                                       "cls",
                                                       "cls_pw",
                                                       "dfl",
                                                       "pose",
                                                       "kobj",
                                                       "rle",
                                                       "angle",
                                                       "dlog",
                                                       "dgrad",
                                                       "dlam",
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
                                                       "cutmix",
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
                                                   "freeze_SequenceModeling",
                                                   "network_params",
                                                   "lang_list",
                                                   "character_list"};
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
