"""Tab completion for ``harness``: the commands, and names inside ``run=[...]``.

    eval "$(harness completion bash)"     # in ~/.bashrc; zsh: harness completion zsh

The printed script registers a function for the ``harness`` command. On each TAB it hands the
line up to the cursor (and bash's ``COMP_WORDBREAKS``) to ``harness complete``, which prints
``space`` or ``nospace`` and then the replies, one a line. The candidates
(:func:`candidates`) for the word being typed, given the words before it:

* the first word: the commands (``list``, ``report``, ``completion``, ...) and the keys below;
* ``run=[a,b,par``: the baselines and groups (``conf/baseline/*.yaml``, ``groups`` in
  ``conf/config.yaml``) completing the last element, the ones already listed left out;
* ``device=``, ``scenario=``, ``+experiment=``: the YAMLs of that ``conf/`` folder;
* any other key, or a key's value: Hydra's own completion (``harness -sc query=bash``), asked
  in a child process (about 1.5 s: it composes the config); a key typed so far gets the
  keys above as well (``device=``, ``scenario=``, ``+experiment=``, ``run=[``);
* after a command: ``list`` its sections, ``completion`` the shells; the others' arguments
  are files, which the shell completes when no reply comes.

Everything but Hydra's answer reads ``conf/`` directly, without importing Hydra: a reply in
a tenth of a second.

**Bash's words.** Bash replaces only the text after the last character of
``COMP_WORDBREAKS`` (``=`` and ``:`` among them) in the word being typed: ``[adms,ba`` in
``run=[adms,ba``, nothing after ``device=``. The script leaves ``COMP_WORDBREAKS`` alone;
:func:`replies` cuts that part off each candidate, so ``run=[adms,band`` is replied as
``[adms,band``. A word in open quotes (``'run=[adms,ba``) is replaced whole. No space follows
a reply that goes on (``device=``, ``scenario.``, an element of an open ``run=[``). zsh
replaces the whole word; there ``run=[...]`` is typed in quotes anyway (unquoted, zsh reads
the brackets as a pattern).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from harness.cli.main import COMMANDS, INTERNAL
from harness.config import CONF_DIR
from harness.seams.errors import Parser

#: config groups a run's line picks a YAML of by name: the key, and its folder under conf/
GROUPS = {"device": "device", "scenario": "scenario", "+experiment": "experiment"}
#: the key whose value is a list of baseline names
RUN_KEY = "run"
#: words that are commands besides COMMANDS (handled by harness.cli.main itself)
EXTRA_COMMANDS = ("help",)
#: shells a script is printed for
SHELLS = ("bash", "zsh")
#: a reply ending in one of these goes on: no space after it
GOES_ON = ("=", ".", "[", ",", "/", ":")
#: seconds Hydra's completion may take before it is given up
HYDRA_TIMEOUT_S = 20.0


# -- names ----------------------------------------------------------------------------------


def options(folder: str, conf_dir: Path = CONF_DIR) -> list[str]:
    """The YAML names under ``conf/<folder>/``, sorted."""
    return sorted(p.stem for p in (conf_dir / folder).glob("*.yaml"))


def baseline_groups(conf_dir: Path = CONF_DIR) -> list[str]:
    """The names of ``groups`` in ``conf/config.yaml`` (``band_best``, ...), in its order."""
    import yaml

    config = yaml.safe_load((conf_dir / "config.yaml").read_text(encoding="utf-8")) or {}
    return list(config.get("groups") or {})


def baseline_names(conf_dir: Path = CONF_DIR) -> list[str]:
    """What ``run=[...]`` may name: every baseline YAML and every group."""
    return options("baseline", conf_dir) + baseline_groups(conf_dir)


def commands() -> list[str]:
    """The first words that name a command."""
    return [*(c for c in COMMANDS if c not in INTERNAL), *EXTRA_COMMANDS]


def keys() -> list[str]:
    """The keys completed here without Hydra: the groups and ``run``."""
    return [*(f"{key}=" for key in GROUPS), f"{RUN_KEY}=["]


# -- candidates -----------------------------------------------------------------------------


def candidates(before: Sequence[str], word: str, conf_dir: Path = CONF_DIR) -> list[str]:
    """Every completion of ``word`` (the whole word, unquoted), given the words ``before``
    it on the line (the program's name left out): see the module docstring."""
    if before and before[0] in commands():
        return _command_args(before[0], word)
    key, eq, _ = word.partition("=")
    if eq and key == RUN_KEY:
        return run_list(word, conf_dir)
    if eq and key in GROUPS:
        return [f"{key}={name}" for name in options(GROUPS[key], conf_dir)
                if f"{key}={name}".startswith(word)]
    named = _starting(word, commands()) if not before and not eq else []
    found = named + ([] if eq else _starting(word, keys()))
    if word and not word.startswith("-") and not named:
        found += [c for c in hydra_candidates(before, word) if c not in found]
    return found


def run_list(word: str, conf_dir: Path = CONF_DIR) -> list[str]:
    """``run=[a,b,par``: the names starting with ``par`` that are not yet listed, each as
    the whole word (``run=[a,b,parX``)."""
    listed = word.partition("=")[2].lstrip("[").split(",")
    done, last = listed[:-1], listed[-1]
    head = f"{RUN_KEY}=[" + "".join(f"{name}," for name in done)
    return [head + name for name in baseline_names(conf_dir)
            if name.startswith(last) and name not in done]


def _starting(word: str, names: Sequence[str]) -> list[str]:
    return [name for name in names if name.startswith(word)]


def _command_args(command: str, word: str) -> list[str]:
    """A command's own arguments: ``list``'s sections, ``completion``'s shells; nothing for
    the others (their arguments are files: the shell completes them)."""
    if command == "completion":
        return _starting(word, SHELLS)
    if command == "list":
        from harness.cli.listing import SECTIONS

        return _starting(word, list(SECTIONS))
    return []


def hydra_candidates(before: Sequence[str], word: str) -> list[str]:
    """Hydra's completion of ``word`` on a run's line (``harness -sc query=bash``, in a
    child process); nothing when it fails or takes longer than :data:`HYDRA_TIMEOUT_S`."""
    line = shlex.join(["harness", *before, word])
    env = {**os.environ, "COMP_LINE": line, "COMP_POINT": str(len(line))}
    try:
        done = subprocess.run([sys.executable, "-m", "harness", "-sc", "query=bash"],
                              env=env, capture_output=True, text=True, check=False,
                              timeout=HYDRA_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [c for c in done.stdout.split() if c.startswith(word)] if done.returncode == 0 else []


# -- the shell's line -----------------------------------------------------------------------


def raw_words(line: str) -> list[str]:
    """``line`` split at whitespace outside quotes, quotes kept; an empty last word when the
    line ends in whitespace (a new word is being typed)."""
    words, quote, escaped = [""], "", False
    for char in line:
        if char.isspace() and not (quote or escaped):
            words += [""] if words[-1] else []
            continue
        words[-1] += char
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
    return words


def unquoted(raw: str) -> str:
    """A raw word as the program would get it (an open quote closed)."""
    for closing in ("", "'", '"'):
        try:
            parts = shlex.split(raw + closing)
        except ValueError:
            continue
        return parts[0] if parts else ""
    return raw


def replies(line: str, breaks: str = "", conf_dir: Path = CONF_DIR) -> tuple[list[str], bool]:
    """What the shell puts in place of the text it completes: each candidate for the line's
    last word (``line``: the line up to the cursor, the program first), less the part up to
    the word's last break character (``breaks``: bash's ``COMP_WORDBREAKS``; a quoted word
    is replaced whole); and whether a candidate goes on (:func:`goes_on`: no space after)."""
    words = raw_words(line)
    raw = words[-1]
    before = [unquoted(w) for w in words[1:-1]]
    quote = raw[0] if raw[:1] in ("'", '"') else ""
    cut = 0 if quote else max((i + 1 for i, char in enumerate(raw) if char in breaks),
                              default=0)
    found = candidates(before, unquoted(raw), conf_dir)
    return [(quote + c)[cut:] for c in found], any(goes_on(c) for c in found)


def goes_on(reply: str) -> bool:
    """Whether a reply is unfinished: a key waiting for its value, an open list."""
    return reply.endswith(GOES_ON) or reply.count("[") > reply.count("]")


# -- commands -------------------------------------------------------------------------------

BASH = r"""# harness: tab completion (bash). Install: eval "$(harness completion bash)"
_harness_complete() {
    local reply first=1
    COMPREPLY=()
    while IFS= read -r reply; do
        if [ "$first" = 1 ]; then
            first=0
            if [ "$reply" = nospace ] && type compopt >/dev/null 2>&1; then
                compopt -o nospace
            fi
        else
            COMPREPLY+=("$reply")
        fi
    done < <("$1" complete --breaks "$COMP_WORDBREAKS" -- "${COMP_LINE:0:$COMP_POINT}" \
             2>/dev/null)
}
complete -o default -F _harness_complete harness
"""
ZSH = r"""# harness: tab completion (zsh). Install: eval "$(harness completion zsh)"
_harness() {
    local -a replies
    replies=("${(@f)$("$words[1]" complete -- "${(j: :)words[1,CURRENT-1]} $PREFIX" \
                      2>/dev/null)}")
    local spacing=$replies[1]
    shift replies
    if (( $#replies )); then
        if [[ $spacing = nospace ]]; then
            compadd -Q -S '' -a replies
        else
            compadd -Q -a replies
        fi
    else
        _files
    fi
}
(( $+functions[compdef] )) || { autoload -U compinit && compinit }
compdef _harness harness
"""


def script(shell: str) -> str:
    """The completion script for ``shell`` (bash or zsh)."""
    return {"bash": BASH, "zsh": ZSH}[shell]


def main(argv: Sequence[str] | None = None) -> int:
    """``harness completion bash|zsh``: print the script to ``eval``."""
    parser = Parser(prog="harness completion", description=__doc__.split("\n\n")[0])
    parser.add_argument("shell", choices=SHELLS, help="the shell: bash or zsh")
    print(script(parser.parse_args(argv).shell), end="")
    return 0


def callback(argv: Sequence[str] | None = None) -> int:
    """``harness complete [--breaks CHARS] -- LINE``: the script's question. Prints
    ``space`` or ``nospace``, then the replies, one a line."""
    parser = Parser(prog="harness complete", description="the completion script's callback")
    parser.add_argument("--breaks", default="", help="the shell's word breaks "
                        "(COMP_WORDBREAKS); none: the whole word is replaced")
    parser.add_argument("line", help="the line up to the cursor")
    args = parser.parse_args(argv)
    found, on = replies(args.line, args.breaks)
    print("nospace" if on else "space")
    for reply in found:
        print(reply)
    return 0
