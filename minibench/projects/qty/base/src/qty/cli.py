"""``python -m qty "3 km" mi`` converts a quantity and prints the result."""
import argparse
import sys

from .errors import QtyError
from .quantity import Quantity


def main(argv=None):
    parser = argparse.ArgumentParser(prog="qty", description="Convert physical quantities.")
    parser.add_argument("quantity", help='a number and a unit, e.g. "3.5 km/h"')
    parser.add_argument("unit", help="the target unit")
    parser.add_argument("--format", default="g", help="format spec for the result, e.g. .3f~P")
    args = parser.parse_args(argv)
    try:
        result = Quantity(args.quantity).to(args.unit)
    except (QtyError, ValueError) as exc:
        print(f"qty: {exc}", file=sys.stderr)
        return 1
    print(format(result, args.format))
    return 0
