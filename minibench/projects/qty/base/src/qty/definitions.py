"""The default unit definitions.

Each entry is ``(symbol, aliases, definition)``, where ``definition`` is either the name of a base
dimension (for base units) or an expression in earlier units with a scale factor, e.g. ``"1000 * m"``.
Temperature scales are defined with an explicit factor and offset relative to kelvin.
"""

BASE_UNITS = [
    ("m", ("meter", "metre"), "length"),
    ("kg", ("kilogram",), "mass"),
    ("s", ("second", "sec"), "time"),
    ("A", ("ampere", "amp"), "current"),
    ("K", ("kelvin",), "temperature"),
    ("mol", ("mole",), "substance"),
    ("cd", ("candela",), "luminosity"),
]

DERIVED_UNITS = [
    ("g", ("gram",), "1e-3 * kg"),
    ("min", ("minute",), "60 * s"),
    ("h", ("hour", "hr"), "3600 * s"),
    ("day", ("d",), "86400 * s"),
    ("Hz", ("hertz",), "1 / s"),
    ("N", ("newton",), "kg * m / s**2"),
    ("J", ("joule",), "N * m"),
    ("W", ("watt",), "J / s"),
    ("Pa", ("pascal",), "N / m**2"),
    ("bar", (), "1e5 * Pa"),
    ("C", ("coulomb",), "A * s"),
    ("V", ("volt",), "W / A"),
    ("ohm", ("\u03a9",), "V / A"),
    ("L", ("l", "liter", "litre"), "1e-3 * m**3"),
    ("inch", ("in",), "0.0254 * m"),
    ("ft", ("foot", "feet"), "12 * inch"),
    ("yd", ("yard",), "3 * ft"),
    ("mi", ("mile",), "1760 * yd"),
    ("lb", ("pound",), "0.45359237 * kg"),
    ("oz", ("ounce",), "lb / 16"),
    ("cal", ("calorie",), "4.184 * J"),
    ("Wh", (), "W * h"),
    ("percent", ("%",), "0.01"),
]

# symbol, aliases, factor, offset: value_in_K = value * factor + offset
OFFSET_UNITS = [
    ("degC", ("celsius", "\u00b0C"), 1.0, 273.15),
    ("degF", ("fahrenheit", "\u00b0F"), 5.0 / 9.0, 273.15 - 32.0 * 5.0 / 9.0),
]

# Scaled temperature *differences*; these are multiplicative units.
DELTA_UNITS = [
    ("delta_degC", (), "K"),
    ("delta_degF", (), "5/9 * K"),
]
