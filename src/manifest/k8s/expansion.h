#pragma once

#include <map>
#include <string>

namespace kftrain::manifest {

// Expand $(NAME) references in a container's command or args as the kubelet does
// (k8s.io/kubernetes third_party/forked/golang/expansion): $(NAME) becomes NAME's value when
// the container's env has it and stays as written when it does not; $$ is a literal $; any other
// $ stays as it is, as does an unclosed $(.
std::string expand_references(const std::string& text,
                              const std::map<std::string, std::string>& env);

}  // namespace kftrain::manifest
