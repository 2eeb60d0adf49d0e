#!/bin/sh
# The layout check fails on what it must: a tree that is right passes, then one breach at a
# time (an include up a layer, one backend including the other, a folder of src/ or test/
# missing from the map, a test name ctest would split) fails it with a line naming the breach. Run as a test: test/layout/check_layout_test.sh CHECKER
set -eu
checker=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

write() {  # write FILE LINE...
    mkdir -p "$(dirname "$work/$1")"
    file=$1
    shift
    printf '%s\n' "$@" >"$work/$file"
}

fresh_tree() {
    rm -rf "$work/src" "$work/docs" "$work/test"
    write docs/development.md '```' 'src/util/  u' 'src/job/  j' 'src/backend/  b' \
        'src/backend/kube/  k' 'src/backend/local/  l' 'src/cli/  c' 'test/  t' 'test/util/  tu' \
        'test/data/  td' '```'
    write test/util/text_test.cpp '#include "util/text.h"'
    write test/data/kube/scenarios/a.json '{}'
    write src/util/text.h '#pragma once'
    write src/job/backend.h '#pragma once' '#include "util/text.h"'
    write src/backend/kube/kubectl.h '#pragma once' '#include "job/backend.h"'
    write src/backend/local/supervisor.h '#pragma once' '#include "job/backend.h"'
    write src/cli/app.h '#pragma once' '#include "backend/kube/kubectl.h"'
}

expect_fail() {  # expect_fail WHAT TEXT: the check fails and prints TEXT
    if out=$(python3 "$checker" "$work/src" 2>&1); then
        echo "FAIL: $1: the check passed"
        exit 1
    fi
    case $out in
    *"$2"*) echo "ok: $1" ;;
    *)
        echo "FAIL: $1: expected '$2' in: $out"
        exit 1
        ;;
    esac
}

fresh_tree
python3 "$checker" "$work/src" >/dev/null || {
    echo "FAIL: a tree that keeps the rules did not pass"
    exit 1
}
echo "ok: a tree that keeps the rules passes"

fresh_tree
write src/job/backend.h '#pragma once' '#include "cli/app.h"'
expect_fail "job includes cli" "job/backend.h includes cli/app.h: job (job/) may not include the cli layer"

fresh_tree
write src/backend/kube/kubectl.h '#pragma once' '#include "backend/local/supervisor.h"'
expect_fail "kube includes local" "are peers and never include each other"

fresh_tree
write src/job/search/store.h '#pragma once'
expect_fail "a folder missing from the map" "src/job/search/ is missing from the folder map"

fresh_tree
write test/backend/kube/status_test.cpp '#include "backend/kube/kubectl.h"'
expect_fail "a test folder missing from the map" "test/backend/ is missing from the folder map"

fresh_tree
write docs/development.md '```' 'src/util/  u' 'src/job/  j' 'src/backend/  b' \
    'src/backend/kube/  k' 'src/backend/local/  l' 'src/cli/  c' 'src/gone/  g' 'test/  t' \
    'test/util/  tu' 'test/data/  td' '```'
expect_fail "a mapped folder that is gone" "maps src/gone/, which does not exist"

fresh_tree
write test/util/text_test.cpp '#include "util/text.h"' \
    'TEST_CASE("one half runs; the other half too", "[util]") {}'
expect_fail "a test name with a ';'" "has a ';', where ctest splits it"
