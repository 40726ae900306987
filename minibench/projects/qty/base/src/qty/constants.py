"""A few physical constants (CODATA 2018 exact or recommended values)."""
from .quantity import Quantity

SPEED_OF_LIGHT = Quantity(299_792_458, "m/s")
STANDARD_GRAVITY = Quantity(9.80665, "m/s**2")
AVOGADRO = Quantity(6.02214076e23, "1/mol")
BOLTZMANN = Quantity(1.380649e-23, "J/K")
ELEMENTARY_CHARGE = Quantity(1.602176634e-19, "C")
STANDARD_ATMOSPHERE = Quantity(101_325, "Pa")
