#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "diagnose/diagnosis.h"

namespace kftrain::inspect {

// Return a diagnosis as the data of diagnose -o json|yaml (and of a job's record in history).
nlohmann::ordered_json diagnosis_to_json(const std::string& job, const std::string& kind,
                                         const diagnose::Diagnosis& diagnosis);

}  // namespace kftrain::inspect
