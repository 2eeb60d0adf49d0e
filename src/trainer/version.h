#pragma once

namespace kftrain::trainer {

#ifdef KFTRAIN_VERSION
constexpr const char* k_trainer_version = KFTRAIN_VERSION;
#else
constexpr const char* k_trainer_version = "0.0.0";
#endif

}  // namespace kftrain::trainer
