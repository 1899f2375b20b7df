#include "dist/slurm_nodes.h"

#include "util/error.h"

namespace trainer {

std::string first_slurm_host(const std::string& nodelist, const std::string& variable) {
  const auto malformed = [&](const std::string& why) {
    return UserError("environment variable " + variable + "='" + nodelist + "' is not a Slurm host list: " + why);
  };
  std::string host;
  size_t at = 0;
  while (at < nodelist.size() && nodelist[at] != ',') {
    if (nodelist[at] != '[') {
      host.push_back(nodelist[at++]);
      continue;
    }
    // A bracket holds ranges and numbers ("01-04,07"); the first host takes the first one's start,
    // zero padding kept.
    const size_t close = nodelist.find(']', at);
    if (close == std::string::npos) throw malformed("a '[' is not closed");
    const std::string first = nodelist.substr(at + 1, close - at - 1);
    const std::string start = first.substr(0, first.find_first_of(",-"));
    if (start.empty() || start.find_first_not_of("0123456789") != std::string::npos) {
      throw malformed("'[" + first + "]' does not start with a number");
    }
    host += start;
    at = close + 1;
  }
  if (host.empty()) throw malformed("no host");
  return host;
}

}  // namespace trainer
