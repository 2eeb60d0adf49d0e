#include "cli/completion/scripts.h"

namespace kftrain::cli::completion {
namespace {

// Each script sends the words typed so far, the one under the cursor last, to
// `kftrain __complete kftrain WORD...` and reads one candidate a line ("value" or
// "value<TAB>description") and a last line ":DIRECTIVE" (candidates.h): 4 no file
// names, 8 the candidates are file extensions to complete files and directories with.

constexpr const char* k_bash = R"SH(# bash completion for kftrain
# Load it in this shell:   source <(kftrain completion bash)
# For every new shell:     kftrain completion bash > ~/.local/share/bash-completion/completions/kftrain
# The candidates come from kftrain itself (kftrain __complete): verbs, flags, flag values
# and the names of jobs and searches.

__kftrain_complete() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    local -a args=() lines=()
    local i word glued=0 out directive line ext
    # Put back --flag=value, which bash splits at '=' (COMP_WORDBREAKS).
    for ((i = 1; i <= COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if [[ $word == "=" && ${#args[@]} -gt 0 && ${args[-1]} == -* ]]; then
            args[-1]+="="
            glued=1
        elif ((glued)); then
            args[-1]+=$word
            glued=0
        else
            args+=("$word")
        fi
    done
    [[ $cur == "=" ]] && cur=""
    out=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[0]}" "${args[@]}" 2>/dev/null) || return 0
    mapfile -t lines <<<"$out"
    directive=${lines[-1]#:}
    [[ $directive =~ ^[0-9]+$ ]] || return 0
    unset 'lines[-1]'
    COMPREPLY=()
    if ((directive & 8)); then
        for ext in "${lines[@]}"; do
            mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -X "!*.$ext" -- "$cur")
        done
        mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -d -- "$cur")
        compopt -o filenames 2>/dev/null
        return 0
    fi
    for line in "${lines[@]}"; do
        COMPREPLY+=("${line%%$'\t'*}")
    done
    if ((${#COMPREPLY[@]} == 0 && !(directive & 4))); then
        compopt -o default 2>/dev/null
    fi
    return 0
}

complete -F __kftrain_complete kftrain
)SH";

constexpr const char* k_zsh = R"SH(#compdef kftrain
# zsh completion for kftrain
# Load it in this shell:   source <(kftrain completion zsh)   (after compinit)
# For every new shell:     kftrain completion zsh > "${fpath[1]}/_kftrain"
# The candidates come from kftrain itself (kftrain __complete): verbs, flags, flag values
# and the names of jobs and searches.

_kftrain() {
    local cur=${words[CURRENT]} out directive line value
    local -a lines candidates
    out=$("${words[1]}" __complete "${(@)words[1,CURRENT]}" 2>/dev/null) || return 1
    lines=("${(@f)out}")
    directive=${lines[-1]#:}
    [[ $directive == <-> ]] || return 1
    lines[-1]=()
    # --flag=value: complete the value only.
    [[ $cur == -*=* ]] && compset -P '*='
    if ((directive & 8)); then
        _files -g "*.(${(j:|:)lines})"
        return
    fi
    for line in "${lines[@]}"; do
        value=${line%%$'\t'*}
        if [[ $line == *$'\t'* ]]; then
            candidates+=("${value//:/\\:}:${line#*$'\t'}")
        else
            candidates+=("${value//:/\\:}")
        fi
    done
    if ((${#candidates})); then
        _describe -t kftrain kftrain candidates
    elif ((!(directive & 4))); then
        _files
    fi
}

if [[ $funcstack[1] == _kftrain ]]; then
    _kftrain "$@"
elif (($+functions[compdef])); then
    compdef _kftrain kftrain
fi
)SH";

constexpr const char* k_fish = R"SH(# fish completion for kftrain
# Load it in this shell:   kftrain completion fish | source
# For every new shell:     kftrain completion fish > ~/.config/fish/completions/kftrain.fish
# The candidates come from kftrain itself (kftrain __complete): verbs, flags, flag values
# and the names of jobs and searches.

function __kftrain_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l out ($tokens[1] __complete $tokens "$current" 2>/dev/null)
    or return
    test (count $out) -gt 0; or return
    set -l directive (string replace -r -- '^:' '' $out[-1])
    string match -qr -- '^[0-9]+$' $directive; or return
    set -e out[-1]
    if test (math "bitand($directive, 8)") -ne 0
        # The files with these extensions, and directories to go into.
        set -l pattern '\.('(string join '|' -- $out)')$'
        for path in (__fish_complete_path "$current")
            set -l file (string split -f1 -- \t $path)
            if string match -q -- '*/' $file; or string match -qr -- $pattern $file
                printf '%s\n' $file
            end
        end
        return
    end
    # --flag=value: fish completes the whole token, so give the flag back in front.
    set -l prefix ''
    if string match -qr -- '^-[^=]*=' "$current"
        set prefix (string replace -r -- '=.*' '=' "$current")
    end
    for line in $out
        printf '%s%s\n' $prefix $line
    end
    if test (count $out) -eq 0 -a (math "bitand($directive, 4)") -eq 0
        __fish_complete_path "$current"
    end
end

complete -c kftrain -e
complete -c kftrain -f -a '(__kftrain_complete)'
)SH";

struct Script {
    const char* shell;
    const char* text;
};

constexpr Script k_scripts[] = {{"bash", k_bash}, {"zsh", k_zsh}, {"fish", k_fish}};

}  // namespace

const std::vector<std::string>& shell_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> all;
        for (const Script& script : k_scripts) {
            all.emplace_back(script.shell);
        }
        return all;
    }();
    return names;
}

std::optional<std::string> completion_script(const std::string& shell) {
    for (const Script& script : k_scripts) {
        if (shell == script.shell) {
            return std::string(script.text);
        }
    }
    return std::nullopt;
}

}  // namespace kftrain::cli::completion
