"""``python -m confetti show|render`` for inspecting configuration from the shell."""
import argparse
import json
import sys

from .config import Config
from .errors import ConfettiError
from .template import render


def build_parser():
    parser = argparse.ArgumentParser(prog="confetti")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, help_text in (("show", "print the merged configuration as JSON"), ("render", "render a template")):
        command = commands.add_parser(name, help=help_text)
        command.add_argument("--file", "-f", action="append", default=[], help="configuration file (repeatable)")
        command.add_argument("--env-prefix", help="also read PREFIX_* environment variables")
        if name == "render":
            command.add_argument("template", help="template file")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        config = Config.from_sources(files=args.file, env_prefix=args.env_prefix)
        if args.command == "show":
            print(json.dumps(config.flat(), indent=2, sort_keys=True, default=str))
        else:
            with open(args.template, encoding="utf-8") as handle:
                sys.stdout.write(render(handle.read(), config.as_dict()))
    except (ConfettiError, OSError) as exc:
        print(f"confetti: {exc}", file=sys.stderr)
        return 1
    return 0
