"""Which options a command line gave, and so which flag an error about a
library parameter names (:func:`shown_param`): the option the user wrote, or
none -- never one the command lacks or that was left at its default.

>>> from swgpu.cli import build_parser
>>> argv = ["align", "q.fa", "t.fa", "--gap-o=3", "-ohits.sam"]
>>> args = build_parser().parse_args(argv); args.argv = argv
>>> given(args, "--gap-open"), given(args, "-o"), given(args, "--gap-extend")
(True, True, False)
>>> shown_param(args, "gap_open"), shown_param(args, "gap_extend"), shown_param(args, "targets")
('--gap-open', None, 'target')
"""

from __future__ import annotations

__all__ = ["command_options", "given", "shown_param"]


def command_options(p) -> dict:
    """What :func:`given` and :func:`shown_param` read of a command's parser
    (its option strings and positionals), as defaults of its namespace."""
    return {"option_dests": {s: a.dest for a in p._actions for s in a.option_strings},  # argparse lists none publicly
            "positionals": frozenset(a.dest for a in p._actions if not a.option_strings)}


def given(args, flag: str) -> bool:
    """Whether the command line ``args.argv`` gave the option ``flag`` (any of
    its spellings: ``--gap-open 3``, ``--gap-open=3``, ``--gap-o 3``, ``-ofile``)."""
    dests = getattr(args, "option_dests", None) or {}
    want = dests.get(flag)
    if want is None:
        return False
    for token in getattr(args, "argv", None) or ():
        if token == "--":
            break
        if token.startswith("--"):
            name = token.split("=", 1)[0]
            if name not in dests:  # an abbreviation argparse took: the one option it begins
                matches = [s for s in dests if s.startswith(name)]
                name = matches[0] if len(matches) == 1 else name
        elif token.startswith("-"):
            name = token[:2]
        else:
            continue
        if dests.get(name) == want:
            return True
    return False


def shown_param(args, param: str) -> str | None:
    """What names library parameter ``param`` in an error of the command
    ``args``: its flag when the command line gave that option, a positional
    argument's name; else None (the message stands alone: an option the
    command lacks, or one not given, is not named)."""
    from .options import PARAM_ALIASES

    flag = (getattr(args, "param_flags", None) or {}).get(param)
    if flag is not None:
        return flag if given(args, flag) else None
    positional = PARAM_ALIASES.get(param, param)
    return positional if positional in (getattr(args, "positionals", None) or ()) else None
