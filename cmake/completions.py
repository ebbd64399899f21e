#!/usr/bin/env python3
"""Writes bash and zsh completions for benchledger and its bench-* links from the --help texts
of the built binary, so that they list exactly the subcommands and options it has.

Usage: completions.py BENCHLEDGER BASH_OUT ZSH_OUT
"""
import re
import subprocess
import sys

binary, bash_out, zsh_out = sys.argv[1:4]
LINKS = ["bench-run", "bench-compare", "bench-report", "bench-ledger", "bench-gate"]


def help_of(words):
    done = subprocess.run([binary, *words, "--help"], capture_output=True, text=True, check=True)
    return done.stdout


def parse(text):
    """The subcommands and option names a --help text lists."""
    section, subcommands, options = None, [], []
    for line in text.splitlines():
        if re.fullmatch(r"[A-Z][A-Za-z ]*:", line.strip()) and not line.startswith(" "):
            section = line.strip()[:-1]
            continue
        if section == "Subcommands":
            match = re.match(r"\s{2}([a-z][a-z0-9-]*)\b", line)
            if match:
                subcommands.append(match.group(1))
        elif section == "Options":
            match = re.match(r"\s{2}(-[^ ]+)", line)
            if match:
                options += [name for name in match.group(1).split(",") if name.startswith("-")]
    return subcommands, options


subcommands, options = {}, {}
pending = [["benchledger"]]
while pending:
    path = pending.pop()
    subs, opts = parse(help_of(path[1:]))
    options[" ".join(path)] = list(dict.fromkeys(opts))
    if subs:
        subcommands[" ".join(path)] = subs
        pending += [path + [sub] for sub in subs]


def assoc(values):
    return "\n".join(f'  ["{key}"]="{" ".join(value)}"' for key, value in sorted(values.items()))


commands = " ".join(["benchledger"] + LINKS)
with open(bash_out, "w", encoding="utf-8") as out:
    out.write(f"""# bash completion for benchledger and its links, generated from their --help texts.
declare -gA _benchledger_subcommands=(
{assoc(subcommands)}
)
declare -gA _benchledger_options=(
{assoc(options)}
)
_benchledger() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} name=${{COMP_WORDS[0]##*/}} path=benchledger i word
  [[ $name == bench-* ]] && path="benchledger ${{name#bench-}}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${{COMP_WORDS[i]}}
    [[ $word == -- ]] && return  # then a command to measure: bash's default completion
    [[ " ${{_benchledger_subcommands[$path]-}} " == *" $word "* ]] && path="$path $word"
  done
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${{_benchledger_options[$path]-}}" -- "$cur")
  elif [[ -n ${{_benchledger_subcommands[$path]-}} ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${{_benchledger_subcommands[$path]}}" -- "$cur")
  fi
}}
complete -o default -F _benchledger {commands}
""")


def zsh_assoc(values):
    return "\n".join(f'  "{key}" "{" ".join(value)}"' for key, value in sorted(values.items()))


with open(zsh_out, "w", encoding="utf-8") as out:
    out.write(f"""#compdef {commands}
# zsh completion for benchledger and its links, generated from their --help texts.
local -A command_subcommands command_options
command_subcommands=(
{zsh_assoc(subcommands)}
)
command_options=(
{zsh_assoc(options)}
)
local command_path=benchledger word
[[ $service == bench-* ]] && command_path="benchledger ${{service#bench-}}"
for word in ${{words[2,CURRENT-1]}}; do
  [[ $word == -- ]] && {{ _files; return }}  # then a command to measure
  (( ${{${{(s: :)command_subcommands[$command_path]}}[(Ie)$word]}} )) &&
    command_path="$command_path $word"
done
if [[ $PREFIX == -* ]]; then
  compadd -- ${{(s: :)command_options[$command_path]}}
elif [[ -n ${{command_subcommands[$command_path]}} ]]; then
  compadd -- ${{(s: :)command_subcommands[$command_path]}}
else
  _files
fi
""")
