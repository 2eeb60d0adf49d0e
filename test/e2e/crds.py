#!/usr/bin/env python3
"""Print the given CustomResourceDefinition files as Kubernetes 1.20's API server takes them.

The minicluster's API server (1.20) refuses two things newer CRDs hold: the CEL rules
(`x-kubernetes-validations`, 1.25+) and a `default: ""` (1.20 reads it as null, "must be of
type string"). Both are removed. A list-map key field (`imagePullSecrets[].name`) must then be
required instead, as 1.20 wants a key to have a default or be required: the one place this
schema is stricter than the original (an imagePullSecret without a name, which no pull can
use). Everything else (structure, types, enums, required fields, patterns) stays, so the real
API server still validates every manifest kftrain sends against the rest of the schema.

    crds.py FILE... | kubectl apply --server-side -f -
"""
import sys

import yaml


def strip(node):
    if isinstance(node, dict):
        node.pop("x-kubernetes-validations", None)
        if node.get("default") == "":
            del node["default"]
        for value in node.values():
            strip(value)
        items = node.get("items")
        if isinstance(items, dict) and node.get("x-kubernetes-list-map-keys"):
            for key in node["x-kubernetes-list-map-keys"]:
                field = items.get("properties", {}).get(key, {})
                required = items.setdefault("required", [])
                if "default" not in field and key not in required:
                    required.append(key)
    elif isinstance(node, list):
        for value in node:
            strip(value)


def main(paths):
    documents = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            documents += [d for d in yaml.safe_load_all(f) if d]
    for d in documents:
        strip(d)
    yaml.safe_dump_all(documents, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
