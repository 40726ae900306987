"""Command line interface: ``python -m urlkit normalize|join|parse ...``."""
import argparse
import json
import sys

from .normalize import normalize_url
from .url import URL


def _cmd_normalize(args):
    for raw in args.urls:
        print(normalize_url(raw, sort_query=args.sort_query, drop_fragment=args.drop_fragment))


def _cmd_join(args):
    print(URL.parse(args.base).join(args.reference))


def _cmd_parse(args):
    url = URL.parse(args.url)
    fields = {name: getattr(url, name) for name in URL.__slots__}
    print(json.dumps(fields, indent=2))


def build_parser():
    parser = argparse.ArgumentParser(prog="urlkit", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    normalize = commands.add_parser("normalize", help="print normalized URLs")
    normalize.add_argument("urls", nargs="+")
    normalize.add_argument("--sort-query", action="store_true")
    normalize.add_argument("--drop-fragment", action="store_true")
    normalize.set_defaults(handler=_cmd_normalize)

    join = commands.add_parser("join", help="resolve a reference against a base URL")
    join.add_argument("base")
    join.add_argument("reference")
    join.set_defaults(handler=_cmd_join)

    parse = commands.add_parser("parse", help="show the components of a URL")
    parse.add_argument("url")
    parse.set_defaults(handler=_cmd_parse)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        args.handler(args)
    except ValueError as exc:
        print(f"urlkit: error: {exc}", file=sys.stderr)
        return 2
    return 0
