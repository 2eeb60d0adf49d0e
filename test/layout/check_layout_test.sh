#!/bin/sh
# The layout check fails on what it must: a tree that is right passes, then one breach at a
# time (an include up a layer, one backend including the other, a folder of src/ or test/
# missing from the map, a test name ctest would split, CLI11 or a flag outside cli/, a concrete
# backend included outside backend/, a test folder over 32 files, a verb missing from the map)
# fails it with a line naming the breach. Run as a test: test/layout/check_layout_test.sh CHECKER
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
        'src/backend/kube/  k' 'src/backend/local/  l' 'src/cli/  c' 'src/cli/verbs/  v: run' \
        'src/trainer/  t' 'test/  t' 'test/util/  tu' 'test/data/  td' '```'
    write test/util/text_test.cpp '#include "util/text.h"'
    write test/data/kube/scenarios/a.json '{}'
    write src/util/text.h '#pragma once'
    write src/job/backend.h '#pragma once' '#include "util/text.h"'
    write src/backend/kube/kubectl.h '#pragma once' '#include "job/backend.h"'
    write src/backend/local/supervisor.h '#pragma once' '#include "job/backend.h"'
    write src/backend/select.h '#pragma once' '#include "job/backend.h"'
    write src/backend/select.cpp '#include "backend/select.h"' '#include "backend/kube/kubectl.h"' \
        '#include "backend/local/supervisor.h"'
    write src/cli/app.h '#pragma once' '#include <CLI/CLI.hpp>' '#include "backend/select.h"'
    write src/cli/verbs/run_cmd.cpp '#include "cli/app.h"' \
        'void setup_run(CLI::App& app) { app.add_subcommand("run", "Run a command"); }' \
        'void setup_hidden(CLI::App& app) { app.add_subcommand("__supervise", ""); }'
    write src/trainer/options.cpp '#include <CLI/CLI.hpp>' \
        'void add(CLI::App& app, int& n) { app.add_option("--epochs", n); }'
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

fresh_tree
write src/job/backend.h '#pragma once' '#include <CLI/CLI.hpp>'
expect_fail "CLI11 below the command line" "job/backend.h:2: uses CLI11 (#include <CLI/)"

fresh_tree
write src/backend/local/supervisor.h '#pragma once' \
    'template <class App> void add(App* sub, int& n) { sub->add_option("--n", n); }'
expect_fail "a flag registered in a backend" "backend/local/supervisor.h:2: uses CLI11 (->add_option(): flags and verbs are registered under cli/ only"

fresh_tree
write src/cli/app.h '#pragma once' '#include "backend/kube/kubectl.h"'
expect_fail "the command line includes a concrete backend" "cli/app.h includes backend/kube/kubectl.h: only backend/ includes a concrete backend"

fresh_tree
for i in $(seq 1 32); do write "test/util/case_${i}_test.cpp" '#include "util/text.h"'; done
expect_fail "a test folder over 32 files" "test/util/: 33 files (at most 32"

fresh_tree
write src/cli/verbs/doctor_cmd.cpp '#include "cli/app.h"' \
    'void setup_doctor(CLI::App& app) { app.add_subcommand("doctor", "Check"); }'
expect_fail "a verb missing from the map" "verb doctor (cli/verbs/doctor_cmd.cpp) is missing from the line of src/cli/verbs/"
