#!/usr/bin/env bash
# Writes a bash completion script for `hnow` to stdout, read from the
# binary's own --help (CLI11 prints no completion itself): every subcommand
# at every depth, each one's options, and the values of options that take
# one of a set ({auto,tree,...}). The build runs it (dist/CMakeLists.txt),
# so the completion names what the binary has.
#   dist/bash_completion.sh PATH_TO_HNOW > hnow
set -euo pipefail
hnow=$1

declare -A subs opts choices
helps=$(mktemp -d)
trap 'rm -rf "$helps"' EXIT
# Records the subcommands and options of `hnow WORDS... --help` (read from
# $helps) under the key "hnow WORDS...".
record() {
  local key=$1 help line name values
  help=$(cat "$helps/${key// /_}")
  opts[$key]=$(sed -n 's/^  \(-[A-Za-z],\)\?\(--[A-Za-z0-9-]*\).*/\2/p' <<<"$help" | tr '\n' ' ')
  while IFS= read -r line; do
    name=$(sed -n 's/^  \(-[A-Za-z],\)\?\(--[A-Za-z0-9-]*\).*/\2/p' <<<"$line")
    values=$(sed -n 's/.*:{\([^}]*\)}.*/\1/p' <<<"$line" | tr ',' ' ')
    [ -n "$name" ] && [ -n "$values" ] && choices["$key $name"]=$values
  done <<<"$help"
  subs[$key]=$(awk '/^Subcommands:/{inside=1; next} /^[^ ]/{inside=0} inside && /^  [a-z]/{print $1}' <<<"$help" | tr '\n' ' ')
}
# A level of subcommands at a time, their --help run side by side (the
# binary takes a while to start on a loaded machine).
level=(hnow)
while [ ${#level[@]} -gt 0 ]; do
  for key in "${level[@]}"; do
    read -ra words <<<"${key#hnow}"
    "$hnow" "${words[@]}" --help >"$helps/${key// /_}" &
  done
  wait
  next=()
  for key in "${level[@]}"; do
    record "$key"
    for sub in ${subs[$key]}; do next+=("$key $sub"); done
  done
  level=("${next[@]}")
done

# Prints `declare -A NAME=( [key]="value" ... )` with stable order.
table() {
  local -n map=$1
  echo "declare -gA _hnow_$1=("
  local key
  while IFS= read -r key; do
    printf '  [%q]=%q\n' "$key" "${map[$key]% }"
  done < <(printf '%s\n' "${!map[@]}" | LC_ALL=C sort)
  echo ")"
}

cat <<'EOF'
# bash completion for hnow, generated from `hnow --help` by dist/bash_completion.sh.
EOF
table subs
table opts
table choices
cat <<'EOF'
_hnow() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path=hnow i word
  # The subcommand path so far: the words that name one, in order.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    [[ " ${_hnow_subs[$path]} " == *" $word "* ]] && path="$path $word"
  done
  if [[ -n ${_hnow_choices["$path $prev"]+set} ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${_hnow_choices["$path $prev"]}" -- "$cur")
  elif [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${_hnow_opts[$path]}" -- "$cur")
  else
    # Subcommands; none left: file names (complete -o default).
    mapfile -t COMPREPLY < <(compgen -W "${_hnow_subs[$path]}" -- "$cur")
  fi
}
complete -o default -F _hnow hnow
EOF
