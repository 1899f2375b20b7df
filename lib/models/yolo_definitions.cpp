// The YOLO architectures trainer knows by name, written in Ultralytics' model-definition format
// with the layers, arguments and scales of Ultralytics' cfg/models files of the same stem (8.4),
// and read by the same parser as a user's own file. Comments give each layer's index; the scale
// comments give Ultralytics' model summaries at the file's `nc`.
#include <algorithm>
#include <map>
#include <mutex>

#include "models/yolo_definition.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

// The YOLOv8 and YOLO11 backbones; YOLOv8-cls and YOLO11-cls end theirs with a Classify head.
#define TRAINER_YOLOV8_BACKBONE           \
  "backbone:\n"                           \
  "  - [-1, 1, Conv, [64, 3, 2]]   # 0\n" \
  "  - [-1, 1, Conv, [128, 3, 2]]  # 1\n" \
  "  - [-1, 3, C2f, [128, True]]\n"       \
  "  - [-1, 1, Conv, [256, 3, 2]]  # 3\n" \
  "  - [-1, 6, C2f, [256, True]]\n"       \
  "  - [-1, 1, Conv, [512, 3, 2]]  # 5\n" \
  "  - [-1, 6, C2f, [512, True]]\n"       \
  "  - [-1, 1, Conv, [1024, 3, 2]] # 7\n" \
  "  - [-1, 3, C2f, [1024, True]]\n"

#define TRAINER_YOLO11_BACKBONE             \
  "backbone:\n"                             \
  "  - [-1, 1, Conv, [64, 3, 2]]   # 0\n"   \
  "  - [-1, 1, Conv, [128, 3, 2]]  # 1\n"   \
  "  - [-1, 2, C3k2, [256, False, 0.25]]\n" \
  "  - [-1, 1, Conv, [256, 3, 2]]  # 3\n"   \
  "  - [-1, 2, C3k2, [512, False, 0.25]]\n" \
  "  - [-1, 1, Conv, [512, 3, 2]]  # 5\n"   \
  "  - [-1, 2, C3k2, [512, True]]\n"        \
  "  - [-1, 1, Conv, [1024, 3, 2]] # 7\n"   \
  "  - [-1, 2, C3k2, [1024, True]]\n"

#define TRAINER_YOLO11_SCALES \
  "scales:\n"                 \
  "  n: [0.50, 0.25, 1024]\n" \
  "  s: [0.50, 0.50, 1024]\n" \
  "  m: [0.50, 1.00, 512]\n"  \
  "  l: [1.00, 1.00, 512]\n"  \
  "  x: [1.00, 1.50, 512]\n"

// The YOLO11 and YOLO26 neck up to the P5 output's Concat; the P5 C3k2 and the head follow.
// YOLO26's neck refines with C3k blocks (`c3k` True) at every scale, YOLO11's only at m/l/x.
#define TRAINER_YOLO11_NECK(c3k)                   \
  "  - [-1, 1, nn.Upsample, [None, 2, nearest]]\n" \
  "  - [[-1, 6], 1, Concat, [1]]\n"                \
  "  - [-1, 2, C3k2, [512, " c3k                   \
  "]]  # 13\n"                                     \
  "  - [-1, 1, nn.Upsample, [None, 2, nearest]]\n" \
  "  - [[-1, 4], 1, Concat, [1]]\n"                \
  "  - [-1, 2, C3k2, [256, " c3k                   \
  "]]  # 16 P3/8\n"                                \
  "  - [-1, 1, Conv, [256, 3, 2]]\n"               \
  "  - [[-1, 13], 1, Concat, [1]]\n"               \
  "  - [-1, 2, C3k2, [512, " c3k                   \
  "]]  # 19 P4/16\n"                               \
  "  - [-1, 1, Conv, [512, 3, 2]]\n"               \
  "  - [[-1, 10], 1, Concat, [1]]\n"

const char* const kYolov5 =
    "nc: 80\n"
    "scales:\n"
    "  n: [0.33, 0.25, 1024]  # 2,654,816 parameters\n"
    "  s: [0.33, 0.50, 1024]\n"
    "  m: [0.67, 0.75, 1024]\n"
    "  l: [1.00, 1.00, 1024]\n"
    "  x: [1.33, 1.25, 1024]\n"
    "backbone:\n"
    "  - [-1, 1, Conv, [64, 6, 2, 2]]  # 0\n"
    "  - [-1, 1, Conv, [128, 3, 2]]\n"
    "  - [-1, 3, C3, [128]]\n"
    "  - [-1, 1, Conv, [256, 3, 2]]    # 3\n"
    "  - [-1, 6, C3, [256]]\n"
    "  - [-1, 1, Conv, [512, 3, 2]]    # 5\n"
    "  - [-1, 9, C3, [512]]\n"
    "  - [-1, 1, Conv, [1024, 3, 2]]   # 7\n"
    "  - [-1, 3, C3, [1024]]\n"
    "  - [-1, 1, SPPF, [1024, 5]]      # 9\n"
    "head:\n"
    "  - [-1, 1, Conv, [512, 1, 1]]    # 10\n"
    "  - [-1, 1, nn.Upsample, [None, 2, nearest]]\n"
    "  - [[-1, 6], 1, Concat, [1]]\n"
    "  - [-1, 3, C3, [512, False]]     # 13\n"
    "  - [-1, 1, Conv, [256, 1, 1]]    # 14\n"
    "  - [-1, 1, nn.Upsample, [None, 2, nearest]]\n"
    "  - [[-1, 4], 1, Concat, [1]]\n"
    "  - [-1, 3, C3, [256, False]]     # 17 P3/8\n"
    "  - [-1, 1, Conv, [256, 3, 2]]\n"
    "  - [[-1, 14], 1, Concat, [1]]\n"
    "  - [-1, 3, C3, [512, False]]     # 20 P4/16\n"
    "  - [-1, 1, Conv, [512, 3, 2]]\n"
    "  - [[-1, 10], 1, Concat, [1]]\n"
    "  - [-1, 3, C3, [1024, False]]    # 23 P5/32\n"
    "  - [[17, 20, 23], 1, Detect, [nc]]\n";

const char* const kYolov8 =
    "nc: 80\n"
    "scales:\n"
    "  n: [0.33, 0.25, 1024]  # 3,157,200 parameters\n"
    "  s: [0.33, 0.50, 1024]  # 11,166,560\n"
    "  m: [0.67, 0.75, 768]   # 25,902,640\n"
    "  l: [1.00, 1.00, 512]   # 43,691,520\n"
    "  x: [1.00, 1.25, 512]   # 68,229,648\n" TRAINER_YOLOV8_BACKBONE
    "  - [-1, 1, SPPF, [1024, 5]]      # 9\n"
    "head:\n"
    "  - [-1, 1, nn.Upsample, [None, 2, nearest]]\n"
    "  - [[-1, 6], 1, Concat, [1]]\n"
    "  - [-1, 3, C2f, [512]]           # 12\n"
    "  - [-1, 1, nn.Upsample, [None, 2, nearest]]\n"
    "  - [[-1, 4], 1, Concat, [1]]\n"
    "  - [-1, 3, C2f, [256]]           # 15 P3/8\n"
    "  - [-1, 1, Conv, [256, 3, 2]]\n"
    "  - [[-1, 12], 1, Concat, [1]]\n"
    "  - [-1, 3, C2f, [512]]           # 18 P4/16\n"
    "  - [-1, 1, Conv, [512, 3, 2]]\n"
    "  - [[-1, 9], 1, Concat, [1]]\n"
    "  - [-1, 3, C2f, [1024]]          # 21 P5/32\n"
    "  - [[15, 18, 21], 1, Detect, [nc]]\n";

const char* const kYolo11 =
    "nc: 80  # n: 2,624,080 parameters; s 9,458,752; m 20,114,688; l 25,372,160; x 56,966,176\n"
    TRAINER_YOLO11_SCALES TRAINER_YOLO11_BACKBONE
    "  - [-1, 1, SPPF, [1024, 5]]      # 9\n"
    "  - [-1, 2, C2PSA, [1024]]        # 10\n"
    "head:\n" TRAINER_YOLO11_NECK("False")
    "  - [-1, 2, C3k2, [1024, True]]   # 22 P5/32\n"
    "  - [[16, 19, 22], 1, Detect, [nc]]\n";

// YOLO26: SPPF with the shortcut (and an unactivated cv1), attention in the last C3k2, and an
// end-to-end head without distance bins.
const char* const kYolo26 =
    "nc: 80  # n: 2,572,280 parameters; s 10,009,784; m 21,896,248; l 26,299,704; x 58,993,368\n"
    "end2end: True\n"
    "reg_max: 1\n" TRAINER_YOLO11_SCALES TRAINER_YOLO11_BACKBONE
    "  - [-1, 1, SPPF, [1024, 5, 3, True]]  # 9\n"
    "  - [-1, 2, C2PSA, [1024]]             # 10\n"
    "head:\n" TRAINER_YOLO11_NECK("True")
    "  - [-1, 1, C3k2, [1024, True, 0.5, True]]  # 22 P5/32\n"
    "  - [[16, 19, 22], 1, Detect, [nc]]\n";

const char* const kYolov8Cls =
    "nc: 1000\n"
    "scales:\n"
    "  n: [0.33, 0.25, 1024]\n"
    "  s: [0.33, 0.50, 1024]\n"
    "  m: [0.67, 0.75, 1024]\n"
    "  l: [1.00, 1.00, 1024]\n"
    "  x: [1.00, 1.25, 1024]\n" TRAINER_YOLOV8_BACKBONE
    "head:\n"
    "  - [-1, 1, Classify, [nc]]\n";

// YOLO11-cls and YOLO26-cls are one architecture (Ultralytics' files differ in their nc only).
#define TRAINER_YOLO11_CLS(classes)                                 \
  "nc: " classes "\n" TRAINER_YOLO11_SCALES TRAINER_YOLO11_BACKBONE \
  "  - [-1, 2, C2PSA, [1024]]  # 9\n"                               \
  "head:\n"                                                         \
  "  - [-1, 1, Classify, [nc]]\n"

const char* const kYolo11Cls = TRAINER_YOLO11_CLS("80");    // n: 1,633,584 parameters
const char* const kYolo26Cls = TRAINER_YOLO11_CLS("1000");  // n: 2,812,104 parameters

const std::vector<std::pair<std::string, const char*>>& texts() {
  static const std::vector<std::pair<std::string, const char*>> table{
      {"yolov5", kYolov5},       {"yolov8", kYolov8},        {"yolo11", kYolo11},
      {"yolo26", kYolo26},       {"yolov8-cls", kYolov8Cls}, {"yolo11-cls", kYolo11Cls},
      {"yolo26-cls", kYolo26Cls}};
  return table;
}

}  // namespace

const std::vector<std::string>& builtin_yolo_definitions() {
  static const std::vector<std::string> stems = [] {
    std::vector<std::string> names;
    for (const auto& entry : texts()) names.push_back(entry.first);
    return names;
  }();
  return stems;
}

std::shared_ptr<const YoloDefinition> builtin_yolo_definition(const std::string& stem) {
  const auto found = std::find_if(texts().begin(), texts().end(),
                                  [&](const auto& entry) { return entry.first == stem; });
  if (found == texts().end()) {
    throw UserError("no built-in YOLO definition '" + stem + "'" +
                    did_you_mean(stem, builtin_yolo_definitions()) + "; they are " +
                    join(builtin_yolo_definitions(), ", "));
  }
  // Parsed once per stem; the definitions are constants.
  static std::map<std::string, std::shared_ptr<const YoloDefinition>> parsed;
  static std::mutex guard;
  const std::lock_guard<std::mutex> lock(guard);
  auto& slot = parsed[stem];
  if (!slot) {
    slot = std::make_shared<const YoloDefinition>(
        parse_yolo_definition(found->second, stem + ".yaml"));
  }
  return slot;
}

}  // namespace trainer
