// Precompiled header: the heavy, stable headers nearly every translation unit needs.
#pragma once
#include <torch/torch.h>
#include <spdlog/spdlog.h>
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
