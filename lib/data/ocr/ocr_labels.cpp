#include "data/ocr/ocr_labels.h"

#include <algorithm>
#include <fstream>

#include "util/error.h"
#include "util/utf8.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHeader = "filename,words";
constexpr const char* kUtf8Bom = "\xEF\xBB\xBF";
// EasyOCR's words are a few dozen characters: a longer line is no label (a binary file, a file
// without line breaks), and is refused before it takes its size in memory.
constexpr size_t kMaxLineBytes = 64 * 1024;

// The next line into `text`, without its '\n'; false at the end of the file.
bool next_line(std::istream& in, std::string& text, const std::string& where) {
  text.clear();
  std::streambuf& bytes = *in.rdbuf();
  for (int byte = bytes.sbumpc(); byte != std::char_traits<char>::eof(); byte = bytes.sbumpc()) {
    if (byte == '\n') return true;
    if (text.size() == kMaxLineBytes) {
      throw UserError(where + ": a line of over " + std::to_string(kMaxLineBytes) + " bytes; labels.csv holds one " +
                      "'filename,words' line per image");
    }
    text.push_back(char(byte));
  }
  return !text.empty();
}

// The start of a line, for a message.
std::string excerpt(const std::string& text) { return text.size() <= 80 ? text : text.substr(0, 80) + "..."; }

}  // namespace

std::vector<OcrLabelLine> read_ocr_labels(const fs::path& csv) {
  std::ifstream in(csv, std::ios::binary);
  if (!in) throw UserError("cannot open " + csv.string());
  std::vector<OcrLabelLine> lines;
  std::string text;
  int64_t number = 0;
  while (next_line(in, text, csv.string() + ":" + std::to_string(number + 1))) {
    ++number;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (number == 1) {
      if (text.rfind(kUtf8Bom, 0) == 0) text.erase(0, 3);
      if (text != kHeader) {
        throw UserError(csv.string() + ":1: expected the header '" + kHeader + "', got '" + excerpt(text) + "'");
      }
      continue;
    }
    if (text.empty()) continue;
    const std::string where = csv.string() + ":" + std::to_string(number);
    const size_t comma = text.find(',');
    if (comma == std::string::npos) throw UserError(where + ": expected 'filename,words', found no comma");
    if (comma == 0) throw UserError(where + ": the filename is empty");
    lines.push_back({text.substr(0, comma), decode_utf8(text.substr(comma + 1), where), number});
  }
  if (number == 0) throw UserError(csv.string() + ": empty file, expected the header '" + std::string(kHeader) + "'");
  return lines;
}

std::vector<std::string> ocr_label_folders(const fs::path& root) {
  std::error_code error;
  if (!fs::is_directory(root, error)) throw UserError(root.string() + " is not a directory");
  std::vector<std::string> folders;
  if (fs::is_regular_file(root / "labels.csv")) folders.push_back(".");
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::follow_directory_symlink);
       it != fs::recursive_directory_iterator(); ++it) {
    if (!it->is_directory()) continue;
    if (it->path().filename().string().front() == '.') {
      it.disable_recursion_pending();
      continue;
    }
    if (fs::is_regular_file(it->path() / "labels.csv")) folders.push_back(it->path().lexically_relative(root).string());
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

}  // namespace trainer
