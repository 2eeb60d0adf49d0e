#pragma once

// An environment for the trainer's parsers made from a map instead of the process's.
#include <map>
#include <optional>
#include <string>

#include "trainer/startup/env.h"

namespace trainer_test {

// Return a lookup that finds exactly the variables in vars.
inline kftrain::trainer::EnvLookup env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
        const auto it = vars.find(name);
        return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
}

}  // namespace trainer_test
